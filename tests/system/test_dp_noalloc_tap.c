// SPDX-License-Identifier: MIT
/*
 * test_dp_noalloc_tap.c - proof that the data path does not allocate or
 * lock per packet through a real TAP: guest TX into the TAP and host
 * frames into guest RX, both through the worker's io_uring, with
 * malloc/free & co. and pthread_mutex_lock/trylock interposed as in
 * tests/unit/test_dp_noalloc.c (the loop and gen backends); every
 * interposed call made by any thread while frames stream is counted:
 * there must be none.
 *
 * Skipped under the sanitizer build (ASan replaces the allocator).
 */
/* needs: root netns tun */
#include <fcntl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "testlib.h"
#include "dp_testutil.h"
#include "netns_testutil.h"

#define F(b)		(1ULL << (b))
#define F_V1		F(VIRTIO_F_VERSION_1)

#ifndef VNET_SANITIZED
#include "alloc_count.h"

/* the lock interposition of test_dp_noalloc.c: it must be in the program */
static unsigned long n_lock;

static int (*real_lock)(pthread_mutex_t *m);
static int (*real_trylock)(pthread_mutex_t *m);

int pthread_mutex_lock(pthread_mutex_t *m)
{
	alloc_count_bump(&n_lock);
	return real_lock(m);
}

int pthread_mutex_trylock(pthread_mutex_t *m)
{
	alloc_count_bump(&n_lock);
	return real_trylock(m);
}

/*
 * tap backend: guest TX into a real TAP through the worker's io_uring
 * (tap_uring.c), frames read back on a packet socket. In a child in its
 * own network namespace (RUN_NETNS_URING): 0 pass, 1 fail.
 */
static int tap_stream(struct dp_env *e, int s, unsigned long total)
{
	uint64_t deadline = dp_now_ns() + 20ull * 1000000000ull;
	unsigned long sent = 0, got = 0;
	struct sockaddr_ll from;
	uint8_t buf[256];
	socklen_t fl;
	ssize_t n;

	while (got < total) {
		dp_reap_tx(e, 0);
		while (sent < total && sent - got < 128 &&
		       !dp_send(e, 0, 64, (uint8_t)sent, false))
			sent++;
		dp_kick(&e->pairs[0].tx, &e->tx[0]);
		fl = sizeof(from);
		while ((n = recvfrom(s, buf, sizeof(buf), MSG_DONTWAIT,
				     (struct sockaddr *)&from, &fl)) >= 0) {
			if (n == 64 && from.sll_pkttype != PACKET_OUTGOING)
				got++;
			fl = sizeof(from);
		}
		if (dp_now_ns() > deadline)
			return -1;
	}
	return 0;
}

/*
 * Run @run for 20,000 frames while counting allocations and locks, then
 * close @s and @e. Return: 0 if the stream went through with none, else 1
 * (and a line naming @what)
 */
static int tap_count(struct dp_env *e, int s,
		     int (*run)(struct dp_env *, int, unsigned long),
		     const char *what)
{
	unsigned long a, f, k;
	int ret;

	__atomic_store_n(&alloc_n_alloc, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&alloc_n_free, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&n_lock, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&alloc_counting, 1, __ATOMIC_SEQ_CST);
	ret = run(e, s, 20000);
	__atomic_store_n(&alloc_counting, 0, __ATOMIC_SEQ_CST);
	a = alloc_n_alloc;
	f = alloc_n_free;
	k = n_lock;
	close(s);
	dp_cleanup(e);
	if (ret || a || f || k)
		fprintf(stderr, "  %s: stream %d, %lu allocations, %lu frees, "
			"%lu mutex locks\n", what, ret, a, f, k);
	return ret || a || f || k;
}

static int tap_uring_case(void)
{
	int s, ret, big = 8 << 20;
	struct dp_env e;

	if (dp_init_cfg(&e, VQ_SPLIT, F_V1, 1, "tap", "vnt-noalloc"))
		return 1;
	s = test_packet_sock("vnt-noalloc");
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)))
		return 1;
	if (dp_start(&e, NULL))
		return 1;
	if (tap_stream(&e, s, 2000))	/* warm up, and the ring is made */
		return 1;
	if ((ret = test_count_urings()) != 1) {
		fprintf(stderr, "  tap/io_uring: %d rings in use, want the worker's 1\n",
			ret);
		return 1;
	}
	return tap_count(&e, s, tap_stream, "tap TX/io_uring");
}

static void test_tap_uring_tx(void) { RUN_NETNS_URING(tap_uring_case); }

/*
 * Host -> guest through the same TAP: frames the host sends into it are
 * read in batches through the worker's ring (host_tap.c rx_fill) and
 * copied into the guest's RX buffers, in order.
 */
static int tap_rx_stream(struct dp_env *e, int s, unsigned long total)
{
	uint64_t deadline = dp_now_ns() + 20ull * 1000000000ull;
	unsigned long sent = 0, got = 0;
	uint8_t buf[64] = { 0 };
	uint8_t first;
	int n;

	while (got < total) {
		while (sent < total && sent - got < 64) {
			buf[0] = (uint8_t)sent;
			buf[12] = 0x88;		/* an experimental ethertype */
			buf[13] = 0xb5;
			if (send(s, buf, sizeof(buf), 0) != sizeof(buf))
				break;
			sent++;
		}
		n = dp_recv(e, 0, &first, NULL);
		if (n == -EAGAIN) {
			dp_post_rx(e, 0);
			usleep(50);
		} else if (n != 64 || first != (uint8_t)got++) {
			return -1;
		}
		if (dp_now_ns() > deadline)
			return -1;
	}
	return 0;
}

static int tap_uring_rx_case(void)
{
	int fd = open("/proc/sys/net/ipv6/conf/default/disable_ipv6", O_WRONLY);
	struct dp_env e;
	int s;

	/* no frames of the kernel's own (IPv6 ND) among ours */
	if (fd >= 0 && (write(fd, "1", 1) != 1 || close(fd)))
		return 1;
	if (dp_init_cfg(&e, VQ_SPLIT, F_V1, 1, "tap", "vnt-noalloc"))
		return 1;
	s = test_packet_sock("vnt-noalloc");
	if (s < 0 || dp_start(&e, NULL))
		return 1;
	dp_post_rx(&e, 0);
	if (tap_rx_stream(&e, s, 2000))	/* warm up */
		return 1;
	return tap_count(&e, s, tap_rx_stream, "tap RX/io_uring");
}

static void test_tap_uring_rx(void) { RUN_NETNS_URING(tap_uring_rx_case); }

int main(void)
{
	real_lock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT,
						      "pthread_mutex_lock");
	real_trylock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT,
							 "pthread_mutex_trylock");
	RUN(test_tap_uring_tx);
	RUN(test_tap_uring_rx);
	return test_exit();
}
#else
static void test_noalloc(void)
{
	SKIP("sanitizer build: ASan owns the allocator, run the release build");
}

int main(void)
{
	RUN(test_noalloc);
	return test_exit();
}
#endif
