/* SPDX-License-Identifier: MIT */
/*
 * netns_testutil.h - host-side helpers for tests that run a TAP inside a
 * private network namespace: run a case in one (RUN_NETNS), bring a link
 * up, open a packet socket on it, count the io_uring instances the process
 * holds (a worker's TAP TX ring), run a case only where io_uring is allowed
 * (RUN_NETNS_URING).
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

/* Run @fn in a child in its own netns: 0 pass, 1 fail, 77..79 skip codes */
static inline int test_in_netns(int (*fn)(void))
{
	pid_t pid;
	int st;

	if (geteuid() != 0)
		return 77;
	if (access("/dev/net/tun", R_OK | W_OK))
		return 78;
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		if (unshare(CLONE_NEWNET))
			_exit(79);
		_exit(fn());
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 1;
	return WEXITSTATUS(st);
}

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

/* Why this process cannot make a TAP TX io_uring (no liburing, sysctl,
 * seccomp), or NULL: then a worker's ring will be made */
static inline const char *test_uring_refused(void)
{
	static struct reason why;
	struct tap_uring *u;

	if (tap_uring_create(&u, &why))
		return why.msg;
	tap_uring_destroy(u);
	return NULL;
}

/* RUN_NETNS(@fn) for a case that needs the worker's io_uring: skip with
 * the reason where it is refused, so @fn may fail when no ring is made */
#define RUN_NETNS_URING(fn)						\
	do {								\
		const char *_why = test_uring_refused();		\
		if (_why)						\
			SKIP("io_uring refused: %.200s", _why);	\
		RUN_NETNS(fn);						\
	} while (0)

/* Set IFF_UP on @name; 0 or -1 */
static inline int test_if_up(const char *name)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM, 0), ret;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ret = ioctl(s, SIOCGIFFLAGS, &ifr);
	ifr.ifr_flags |= IFF_UP;
	if (!ret)
		ret = ioctl(s, SIOCSIFFLAGS, &ifr);
	close(s);
	return ret;
}

/*
 * Set an int of interface @name with ioctl @req (SIOCSIFMTU, SIOCSIFTXQLEN:
 * both take the union's int); 0 or -1
 */
static inline int test_if_set_int(const char *name, unsigned long req, int v)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM, 0), ret;

	if (s < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_ifru.ifru_ivalue = v;
	ret = ioctl(s, req, &ifr);
	close(s);
	return ret;
}

/* Non-blocking AF_PACKET socket bound to @name, all protocols; -1 on error */
static inline int test_packet_sock(const char *name)
{
	struct sockaddr_ll sll;
	int s = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ETH_P_ALL));

	if (s < 0)
		return -1;
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = (int)if_nametoindex(name);
	if (bind(s, (struct sockaddr *)&sll, sizeof(sll))) {
		close(s);
		return -1;
	}
	return s;
}

/* io_uring instances this process holds (each worker's ring is one) */
static inline int test_count_urings(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	char path[300], link[64];
	int n = 0;
	ssize_t l;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		l = readlink(path, link, sizeof(link) - 1);
		if (l <= 0)
			continue;
		link[l] = '\0';
		if (strstr(link, "io_uring"))
			n++;
	}
	closedir(d);
	return n;
}

#endif /* VNET_NETNS_TESTUTIL_H */
