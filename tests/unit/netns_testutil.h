/* SPDX-License-Identifier: MIT */
/*
 * netns_testutil.h - host-side helpers for tests that run a TAP inside a
 * private network namespace: run a case in one (RUN_NETNS), bring a link
 * up, open a packet socket on it, count the io_uring instances the process
 * holds (a worker's TAP TX ring), run a case only where io_uring is allowed
 * (RUN_NETNS_URING). The RUN_ macros stay here (they return from the
 * case); the functions are netns_testutil.c.
 */
#ifndef VNET_NETNS_TESTUTIL_H
#define VNET_NETNS_TESTUTIL_H

#include <dirent.h>
#include <sched.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#include "tap_uring.h"

int test_in_netns(int (*fn)(void));
const char *test_uring_refused(void);
int test_if_up(const char *name);
int test_if_set_int(const char *name, unsigned long req, int v);
int test_packet_sock(const char *name);
int test_count_urings(void);

/* One test case: @fn in a fresh netns, its skip codes said in words */
#define RUN_NETNS(fn)							\
	do {								\
		int _r = test_in_netns(fn);				\
		if (_r == 77)						\
			SKIP("tap: needs root (CAP_NET_ADMIN)");	\
		if (_r == 78)						\
			SKIP("tap: /dev/net/tun missing or not accessible"); \
		if (_r == 79)						\
			SKIP("tap: unshare(CLONE_NEWNET) failed: no network namespaces"); \
		CHECK_EQ(_r, 0);					\
	} while (0)

/* RUN_NETNS(@fn) for a case that needs the worker's io_uring: skip with
 * the reason where it is refused, so @fn may fail when no ring is made */
#define RUN_NETNS_URING(fn)						\
	do {								\
		const char *_why = test_uring_refused();		\
		if (_why)						\
			SKIP("io_uring refused: %.200s", _why);	\
		RUN_NETNS(fn);						\
	} while (0)

#endif /* VNET_NETNS_TESTUTIL_H */
