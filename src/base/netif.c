// SPDX-License-Identifier: MIT
/*
 * netif.c - facts about a host network interface read from sysfs
 * (netif.h). Called at setup, before the sandbox (so no #syscalls tag):
 * never per frame.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "netif.h"

/**
 * netif_rx_queues() - How many RX queues an interface has
 * @sysfs_net:	The sysfs net folder, NULL for NETIF_SYSFS (tests point it
 *		at a fake tree)
 * @ifname:	Interface name
 *
 * Counts DIR/IF/queues/rx-N.
 *
 * Return: the count, or -errno if the folder cannot be read (no such
 *	   interface, a name too long)
 */
int netif_rx_queues(const char *sysfs_net, const char *ifname)
{
	char path[512];
	struct dirent *e;
	int n = 0, len;
	DIR *d;

	len = snprintf(path, sizeof(path), "%s/%s/queues",
		       sysfs_net ? sysfs_net : NETIF_SYSFS, ifname);
	if (len < 0 || (size_t)len >= sizeof(path))
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, "rx-", 3);
	closedir(d);
	return n;
}
