// SPDX-License-Identifier: MIT
/*
 * test_dp_noalloc.c - proof that the data path does not allocate or lock
 * per packet. malloc/calloc/realloc/free/aligned_alloc/memalign/
 * posix_memalign and pthread_mutex_lock/trylock are interposed for the
 * whole program; after a warm-up, a steady stream of frames goes guest TX
 * -> worker -> loop backend -> worker -> guest RX (both layouts, mergeable
 * on and off, busy polling on and off; gen backend -> guest RX) and every
 * interposed call made by any thread while it runs is counted: there must
 * be none. The same through a real TAP and the worker's io_uring:
 * tests/system/test_dp_noalloc_tap.c.
 *
 * Skipped under the sanitizer build (ASan replaces the allocator).
 */
#include <fcntl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "testlib.h"
#include "dp_testutil.h"

#define F(b)		(1ULL << (b))
#define F_V1		F(VIRTIO_F_VERSION_1)
#define F_MRG		F(VIRTIO_NET_F_MRG_RXBUF)
#define F_EIDX		F(VIRTIO_RING_F_EVENT_IDX)

#ifndef VNET_SANITIZED
#include "alloc_count.h"

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

/* Move @total 64..1400 byte frames through pair 0; 0 when all came back */
static int stream(struct dp_env *e, unsigned long total)
{
	uint64_t deadline = dp_now_ns() + 20ull * 1000000000ull;
	unsigned long sent = 0, got = 0;
	int len;

	while (got < total) {
		dp_post_rx(e, 0);
		dp_reap_tx(e, 0);
		while (sent < total && sent - got < 200 &&
		       !dp_send(e, 0, 64 + (uint32_t)(sent * 13 % 1336),
				(uint8_t)sent, false))
			sent++;
		dp_kick(&e->pairs[0].tx, &e->tx[0]);
		while ((len = dp_recv(e, 0, NULL, NULL)) != -EAGAIN) {
			if (len != (int)(64 + got * 13 % 1336))
				return -1;
			got++;
		}
		if (dp_now_ns() > deadline)
			return -1;
	}
	return 0;
}

static void t_noalloc_opts(enum vq_layout l, uint64_t features,
			   const struct worker_opts *op)
{
	struct worker_opts o = *op;
	unsigned long a, f, k;
	struct dp_env e;
	int ret;

	CHECK(real_lock && real_trylock);
	CHECK_EQ(dp_init(&e, l, features, 1, "loop"), 0);
	CHECK_EQ(dp_start(&e, &o), 0);
	CHECK_EQ(stream(&e, 2000), 0);	/* warm up: threads, first faults */

	__atomic_store_n(&alloc_n_alloc, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&alloc_n_free, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&n_lock, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&alloc_counting, 1, __ATOMIC_SEQ_CST);
	ret = stream(&e, 20000);
	__atomic_store_n(&alloc_counting, 0, __ATOMIC_SEQ_CST);
	a = alloc_n_alloc;
	f = alloc_n_free;
	k = n_lock;
	CHECK_EQ(ret, 0);
	CHECK(dp_wait_ctr(&e.pairs[0].rx.ctr.packets, 22000,
			  2000000000ull) >= 22000);
	dp_cleanup(&e);
	if (a || f || k)
		fprintf(stderr, "  steady state: %lu allocations, %lu frees, "
			"%lu mutex locks\n", a, f, k);
	CHECK_EQ(a, 0);
	CHECK_EQ(f, 0);
	CHECK_EQ(k, 0);
}

static void t_noalloc(enum vq_layout l, uint64_t features, unsigned int poll_us)
{
	struct worker_opts o = { .poll_us = poll_us };

	t_noalloc_opts(l, features, &o);
}

/* gen backend, busy-polling: frames only towards the guest */
static void test_gen_rx_poll(void)
{
	struct worker_opts o = { .poll_us = 50 };
	unsigned long got = 0, a, f, k;
	uint64_t deadline;
	struct dp_env e;

	CHECK_EQ(dp_init(&e, VQ_SPLIT, F_V1 | F_MRG | F_EIDX, 1, "gen"), 0);
	CHECK_EQ(dp_start(&e, &o), 0);
	deadline = dp_now_ns() + 20ull * 1000000000ull;
	__atomic_store_n(&alloc_n_alloc, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&alloc_n_free, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&n_lock, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&alloc_counting, 1, __ATOMIC_SEQ_CST);
	while (got < 20000 && dp_now_ns() < deadline) {
		dp_post_rx(&e, 0);
		while (dp_recv(&e, 0, NULL, NULL) == 64)
			got++;
	}
	__atomic_store_n(&alloc_counting, 0, __ATOMIC_SEQ_CST);
	a = alloc_n_alloc;
	f = alloc_n_free;
	k = n_lock;
	CHECK(got >= 20000);
	dp_cleanup(&e);
	CHECK_EQ(a, 0);
	CHECK_EQ(f, 0);
	CHECK_EQ(k, 0);
}

/* The counters themselves work: a control path call is seen */
static void test_interposition_works(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	struct dp_env e;
	void *p;

	__atomic_store_n(&alloc_n_alloc, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&n_lock, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&alloc_counting, 1, __ATOMIC_SEQ_CST);
	p = malloc(10);
	free(p);
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
	CHECK_EQ(dp_init(&e, VQ_SPLIT, F_V1, 1, "loop"), 0);
	CHECK_EQ(dp_start(&e, NULL), 0);
	worker_pause(e.wp, 0);	/* control path: locks */
	worker_resume(e.wp, 0);
	__atomic_store_n(&alloc_counting, 0, __ATOMIC_SEQ_CST);
	CHECK(alloc_n_alloc >= 3);	/* malloc, dp_init's, the pool's */
	CHECK(n_lock >= 3);
	dp_cleanup(&e);
}

static void test_split_mrg(void) { t_noalloc(VQ_SPLIT, F_V1 | F_MRG | F_EIDX, 0); }
static void test_split_nomrg(void) { t_noalloc(VQ_SPLIT, F_V1, 0); }
static void test_packed_mrg(void) { t_noalloc(VQ_PACKED, F_V1 | F_MRG, 0); }
static void test_packed_nomrg_eidx(void) { t_noalloc(VQ_PACKED, F_V1 | F_EIDX, 0); }
static void test_split_mrg_poll(void) { t_noalloc(VQ_SPLIT, F_V1 | F_MRG | F_EIDX, 50); }

/* Anti-spoofing on (every frame copied, checked, passed): still none */
static void test_split_mrg_spoof(void)
{
	struct worker_opts o = { 0 };

	CHECK(spoof_parse_list(&o.spoof, "0.0.0.0/0,::/0", ',') == NULL);
	t_noalloc_opts(VQ_SPLIT, F_V1 | F_MRG | F_EIDX, &o);
}

int main(void)
{
	real_lock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT,
						      "pthread_mutex_lock");
	real_trylock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT,
							 "pthread_mutex_trylock");
	RUN(test_interposition_works);
	RUN(test_split_mrg);
	RUN(test_split_nomrg);
	RUN(test_packed_mrg);
	RUN(test_packed_nomrg_eidx);
	RUN(test_split_mrg_poll);
	RUN(test_split_mrg_spoof);
	RUN(test_gen_rx_poll);
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
