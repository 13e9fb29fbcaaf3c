// SPDX-License-Identifier: MIT
/*
 * ctl_path.c - the default control socket path: one answer for vnetd and
 * vnetctl, so a plain `vnetctl status` finds a plain `vnetd`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/un.h>

#include "ctl_path.h"

/**
 * ctl_default_path() - Where the control socket goes without --ctl-socket
 *
 * Return: $XDG_RUNTIME_DIR/vnetd.ctl for a non-root user that has one,
 *	   /run/vnetd/vnetd.ctl otherwise (static storage)
 */
const char *ctl_default_path(void)
{
	static char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	const char *xdg = getenv("XDG_RUNTIME_DIR");

	if (getuid() != 0 && xdg && *xdg &&
	    strlen(xdg) + sizeof("/vnetd.ctl") <= sizeof(path)) {
		snprintf(path, sizeof(path), "%s/vnetd.ctl", xdg);
		return path;
	}
	return "/run/vnetd/vnetd.ctl";
}
