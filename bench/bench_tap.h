/* SPDX-License-Identifier: MIT */
/*
 * bench_tap.h - the TAP queue the syscall-level TAP benchmarks use
 * (bench/tap-write.c, bench/tap-read.c), opened as vnetd opens one: vnet
 * header of BENCH_TAP_HDR_LEN bytes, multiqueue, checksum and TSO offloads,
 * non-blocking, the interface up. Header-only: each benchmark is one file
 * its script compiles alone.
 */
#ifndef VNET_BENCH_TAP_H
#define VNET_BENCH_TAP_H

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#define BENCH_TAP_HDR_LEN	12

/**
 * bench_tap_open() - Create (or attach to) TAP @name and bring it up
 * @name:	Interface name
 *
 * Return: the queue's fd, or -1 with errno set
 */
static inline int bench_tap_open(const char *name)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR |
					  IFF_MULTI_QUEUE };
	int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	int len = BENCH_TAP_HDR_LEN, s = -1;

	if (fd < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) || ioctl(fd, TUNSETVNETHDRSZ, &len) ||
	    ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6) ||
	    (s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0 ||
	    ioctl(s, SIOCGIFFLAGS, &ifr))
		goto fail;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr))
		goto fail;
	close(s);
	return fd;
fail:
	if (s >= 0)
		close(s);
	close(fd);
	return -1;
}

#endif /* VNET_BENCH_TAP_H */
