// SPDX-License-Identifier: MIT
/*
 * netns_testutil.c - host-side helpers for the tests that run a TAP inside
 * a private network namespace (netns_testutil.h), built once into
 * build/libvnet-test.a.
 */
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

#include "netns_testutil.h"

/**
 * test_in_netns() - Run @fn in a child in its own network namespace
 * @fn:		The case body, returns 0 pass, else fail
 *
 * Return: @fn's exit status (0 pass, else fail), 1 if the child died, or the
 * skip codes RUN_NETNS() words: 77 not root, 78 no /dev/net/tun, 79 no netns
 */
int test_in_netns(int (*fn)(void))
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

/**
 * test_uring_refused() - Why this process cannot make a TAP TX io_uring
 *
 * No liburing, a sysctl or a seccomp filter refuse it.
 *
 * Return: the reason (static), or NULL: a worker's ring will be made
 */
const char *test_uring_refused(void)
{
	static struct reason why;
	struct tap_uring *u;

	if (tap_uring_create(&u, &why))
		return why.msg;
	tap_uring_destroy(u);
	return NULL;
}

/**
 * test_if_up() - Set IFF_UP on interface @name
 * @name:	Interface
 *
 * Return: 0 or -1
 */
int test_if_up(const char *name)
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

/**
 * test_if_set_int() - Set an int of interface @name with ioctl @req
 * @name:	Interface
 * @req:	SIOCSIFMTU, SIOCSIFTXQLEN: both take the union's int
 * @v:		Value
 *
 * Return: 0 or -1
 */
int test_if_set_int(const char *name, unsigned long req, int v)
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

/**
 * test_packet_sock() - Non-blocking AF_PACKET socket bound to @name
 * @name:	Interface; all protocols are received
 *
 * Return: the socket, or -1 on error
 */
int test_packet_sock(const char *name)
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

/**
 * test_count_urings() - io_uring instances this process holds
 *
 * Each worker's TAP TX ring is one.
 *
 * Return: the count, -1 if /proc/self/fd cannot be read
 */
int test_count_urings(void)
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
