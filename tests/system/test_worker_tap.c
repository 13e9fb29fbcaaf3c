// SPDX-License-Identifier: MIT
/*
 * test_worker_tap.c - the worker threads with the tap backend, in a
 * private network namespace: frames both ways between the guest rings and
 * an AF_PACKET socket on the TAP, split with mergeable buffers and packed
 * without. (The loop and gen backends: tests/unit/test_worker.c.)
 */
/* needs: root netns tun */
#include <sched.h>
#include <stdio.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#include "testlib.h"
#include "netns_testutil.h"
#include "dp_testutil.h"
#include "dp_flow.h"

/* Our test frames: unicast 02:..:01, ethertype 0x88b5, 200 bytes */
static void tap_frame(uint8_t *f, uint8_t marker)
{
	unsigned int i;

	memset(f, 0, 12);
	f[0] = 0x02;
	f[5] = 0x01;
	f[6] = 0x02;
	f[11] = 0x02;
	f[12] = 0x88;
	f[13] = 0xb5;
	for (i = 14; i < 200; i++)
		f[i] = (uint8_t)(marker + i);
}

#define TFAIL(...) do { fprintf(stderr, "  " __VA_ARGS__); fprintf(stderr, "\n"); return 1; } while (0)

static int tap_worker_case(enum vq_layout l, uint64_t features)
{
	unsigned int k, seen = 0, got = 0, i;
	uint8_t f[2048], first;
	uint64_t deadline;
	struct dp_env e;
	ssize_t n;
	int s, len;

	if (dp_init_cfg(&e, l, features, 2, "tap", "vnt-wk"))
		TFAIL("dp_init with tap");
	if (test_if_up("vnt-wk"))
		TFAIL("link up");
	s = test_packet_sock("vnt-wk");
	if (s < 0 || dp_start(&e, NULL))
		TFAIL("packet socket / pool");
	/* guest -> host, both pairs */
	for (i = 0; i < 2; i++) {
		dp_post_rx(&e, i);
		for (k = 0; k < 50; k++)
			if (dp_send(&e, i, 186, (uint8_t)k, true))
				TFAIL("send");
	}
	deadline = dp_now_ns() + 5000000000ull;
	while (seen < 100 && dp_now_ns() < deadline) {
		n = recv(s, f, sizeof(f), 0);
		/* dp_send's frames: 186 bytes, byte k = seed + k */
		if (n == 186 && f[13] == (uint8_t)(f[0] + 13) &&
		    f[185] == (uint8_t)(f[0] + 185))
			seen++;
		else if (n < 0)
			usleep(1000);
	}
	if (seen != 100)
		TFAIL("guest TX seen on the TAP: %u of 100", seen);
	/* host -> guest: the kernel picks the queue by flow */
	for (k = 0; k < 50; k++) {
		tap_frame(f, (uint8_t)k);
		if (send(s, f, 200, 0) != 200)
			TFAIL("packet send: %s", strerror(errno));
	}
	deadline = dp_now_ns() + 5000000000ull;
	while (got < 50 && dp_now_ns() < deadline) {
		for (i = 0; i < 2; i++) {
			dp_post_rx(&e, i);
			while ((len = dp_recv(&e, i, &first, NULL)) != -EAGAIN)
				if (len == 200 && first == 0x02)
					got++;
		}
		usleep(1000);
	}
	if (got != 50)
		TFAIL("host frames in guest RX: %u of 50", got);
	close(s);
	dp_cleanup(&e);
	return 0;
}

static int tap_worker_split_mrg(void)
{
	return tap_worker_case(VQ_SPLIT, F_V1 | F_MRG | F_EIDX);
}

static int tap_worker_packed_nomrg(void)
{
	return tap_worker_case(VQ_PACKED, F_V1);
}

static void t_tap(int (*fn)(void))
{
	pid_t pid;
	int st;

	if (geteuid() != 0)
		SKIP("tap: needs root (CAP_NET_ADMIN)");
	if (access("/dev/net/tun", R_OK | W_OK))
		SKIP("tap: /dev/net/tun missing or not accessible");
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		if (unshare(CLONE_NEWNET))
			_exit(77);
		_exit(fn());
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77)
		SKIP("tap: unshare(CLONE_NEWNET) failed: no network namespaces");
	CHECK_EQ(WEXITSTATUS(st), 0);
}

static void test_tap_split_mrg(void) { t_tap(tap_worker_split_mrg); }
static void test_tap_packed_nomrg(void) { t_tap(tap_worker_packed_nomrg); }

int main(void)
{
	RUN(test_tap_split_mrg);
	RUN(test_tap_packed_nomrg);
	return test_exit();
}
