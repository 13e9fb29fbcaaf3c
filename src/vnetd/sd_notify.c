// SPDX-License-Identifier: MIT
/*
 * sd_notify.c - systemd's readiness protocol (sd_notify(3)): one datagram
 * of "KEY=VALUE\n" lines to the AF_UNIX socket named by $NOTIFY_SOCKET, a
 * path or, with a leading '@', an abstract name. vnetd sends READY=1 once
 * every port listens, STATUS= when the number of connected frontends
 * changes, and STOPPING=1 when it starts to shut down.
 *
 * Written here rather than linking libsystemd: the protocol is one
 * sendto() of a short string, and libsystemd would be vnetd's only runtime
 * dependency beyond libc, and brings code paths (and syscalls the seccomp
 * sandbox would have to allow) that vnetd never uses.
 * The socket is opened at sd_notify_init(), before any privilege drop or
 * sandbox, and kept: later messages need no path lookup.
 *
 * Without $NOTIFY_SOCKET every call is a no-op.
 */
#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "sd_notify.h"


/* #syscalls: socket connect sendmsg sendto close */

static int sd_notify_fd = -1;
static struct sockaddr_un sd_notify_addr;
static socklen_t sd_notify_addrlen;

/**
 * sd_notify_init() - Open the notification socket named by $NOTIFY_SOCKET
 *
 * Unsets $NOTIFY_SOCKET so children (none today) do not notify for us.
 *
 * Return: 0 (also when not under systemd), -EINVAL for a malformed
 *	   $NOTIFY_SOCKET, or -errno from socket()
 */
int sd_notify_init(void)
{
	const char *path = getenv("NOTIFY_SOCKET");
	size_t len;

	if (!path || !*path)
		return 0;
	len = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || len < 2 ||
	    len >= sizeof(sd_notify_addr.sun_path))
		return -EINVAL;
	memset(&sd_notify_addr, 0, sizeof(sd_notify_addr));
	sd_notify_addr.sun_family = AF_UNIX;
	memcpy(sd_notify_addr.sun_path, path, len);
	if (path[0] == '@')
		sd_notify_addr.sun_path[0] = '\0';	/* abstract namespace */
	/* abstract names are not NUL-terminated: the length says where */
	sd_notify_addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len +
				  (path[0] == '/'));
	sd_notify_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sd_notify_fd < 0)
		return -errno;
	unsetenv("NOTIFY_SOCKET");
	return 0;
}

/**
 * sd_notify_send() - Send one notification
 * @fmt:	printf format of the "KEY=VALUE" lines, e.g. "READY=1"
 *
 * Return: 0 (also when not under systemd), or -errno from sendto()
 */
int sd_notify_send(const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	int n;

	if (sd_notify_fd < 0)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(msg))
		return -EMSGSIZE;
	if (sendto(sd_notify_fd, msg, (size_t)n, MSG_NOSIGNAL,
		   (struct sockaddr *)&sd_notify_addr, sd_notify_addrlen) < 0)
		return -errno;
	return 0;
}
