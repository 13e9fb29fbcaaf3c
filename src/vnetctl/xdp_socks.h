/* SPDX-License-Identifier: MIT */
/*
 * xdp_socks.h - AF_XDP sockets vnetctl makes for `port add
 * ...backend=af_xdp` and passes to a sandboxed vnetd (xdp_socks.c)
 */
#ifndef VNETCTL_XDP_SOCKS_H
#define VNETCTL_XDP_SOCKS_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>

#include "reason.h"

#define XDP_SOCKS_MAX	64	/* vnetd's VNET_MAX_PAIRS */

/**
 * struct xdp_socks - One af_xdp port's sockets, on vnetctl's side
 * @fds:	Per queue pair an AF_XDP socket, then its UMEM's memfd
 * @n:		Descriptors open in @fds
 * @npairs:	Queue pairs (queues=)
 * @first:	Queue of pair 0 (xdp-queue=)
 * @map_fd:	The redirect program's XSKMAP, -1: none
 * @ifname:	Interface (xdp-if=)
 * @room:	Bytes of TX metadata room the UMEMs have (XSK_TXMD_LEN),
 *		0: none (not asked for, or the kernel refused it)
 */
struct xdp_socks {
	int fds[2 * XDP_SOCKS_MAX];
	unsigned int n;
	unsigned int npairs;
	unsigned int first;
	int map_fd;
	char ifname[IF_NAMESIZE];
	unsigned int room;
};

bool xdp_socks_wanted(const char *spec);
int xdp_socks_make(const char *spec, char *out, size_t outlen, bool room,
		   struct xdp_socks *xs, struct reason *why);
int xdp_socks_insert(struct xdp_socks *xs, struct reason *why);
void xdp_socks_close(struct xdp_socks *xs);

#endif /* VNETCTL_XDP_SOCKS_H */
