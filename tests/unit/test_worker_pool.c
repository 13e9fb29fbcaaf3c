// SPDX-License-Identifier: MIT
/*
 * test_worker_pool.c - the pairs of several ports on the threads of one
 * worker_pool (vnetd --worker-threads): pairs spread evenly, every frame
 * of every port back in order through the loop backend, a port added and
 * one removed while the others carry traffic (their pairs handed to a
 * thread and taken back), a port with no started ring handed over only
 * at its first pause, a pause of one port's pair that leaves the
 * other ports' pairs on the same thread resumed afterwards, and bad pool
 * sizes refused.
 */
#include <stdio.h>

#include "testlib.h"
#include "dp_testutil.h"

#define F_V1		(1ULL << VIRTIO_F_VERSION_1)
#define F_MRG		(1ULL << VIRTIO_NET_F_MRG_RXBUF)
#define F_EIDX		(1ULL << VIRTIO_RING_F_EVENT_IDX)
#define NPORTS		6
#define DEADLINE_NS	(20ull * 1000000000ull)

/* Per port and pair: frames sent, got back, got wrong (length or order) */
struct gflow {
	unsigned long sent, got, bad;
};

static struct dp_env ports[NPORTS];
static struct gflow flows[NPORTS][DP_MAX_PAIRS];

static uint32_t frame_len(unsigned long k)
{
	return 60 + (uint32_t)(k * 53 % 1400);
}

/* One round over pair @i of port @e: post RX, send a burst, reap, receive */
static void gflow_step(struct dp_env *e, unsigned int i, struct gflow *f,
		       unsigned long total)
{
	uint32_t ok;
	uint8_t first;
	unsigned int n;
	int len;

	dp_post_rx(e, i);
	dp_reap_tx(e, i);
	for (n = 0; n < 32 && f->sent < total; n++) {
		if (dp_send(e, i, frame_len(f->sent), (uint8_t)f->sent, false))
			break;
		f->sent++;
	}
	if (n)
		dp_kick(&e->pairs[i].tx, &e->tx[i]);
	while ((len = dp_recv(e, i, &first, &ok)) != -EAGAIN) {
		if (len != (int)frame_len(f->got) || first != (uint8_t)f->got ||
		    ok != (uint32_t)len)
			f->bad++;
		f->got++;
	}
}

/* @total more frames on every pair of ports[@from..@to); 0 when all came */
static int gtraffic(unsigned int from, unsigned int to, unsigned long total)
{
	uint64_t deadline = dp_now_ns() + DEADLINE_NS;
	unsigned int p, i, done, want;

	for (p = from; p < to; p++)
		for (i = 0; i < ports[p].npairs; i++)
			flows[p][i].sent = flows[p][i].got = 0;
	do {
		done = want = 0;
		for (p = from; p < to; p++)
			for (i = 0; i < ports[p].npairs; i++) {
				struct gflow *f = &flows[p][i];

				gflow_step(&ports[p], i, f, total);
				if (f->bad) {
					fprintf(stderr, "  port %u pair %u: %lu bad frames\n",
						p, i, f->bad);
					return -1;
				}
				done += f->got == total;
				want++;
			}
		if (dp_now_ns() > deadline) {
			for (p = from; p < to; p++)
				for (i = 0; i < ports[p].npairs; i++)
					fprintf(stderr, "  port %u pair %u: sent %lu got %lu\n",
						p, i, flows[p][i].sent,
						flows[p][i].got);
			return -1;
		}
	} while (done < want);
	return 0;
}

static int gport_start(unsigned int p, unsigned int npairs,
		       struct worker_pool *g, enum vq_layout l)
{
	struct worker_opts o = { .pool = g, .nthreads = 7 /* ignored */ };
	int ret;

	ret = dp_init(&ports[p], l, F_V1 | F_MRG | F_EIDX, npairs, "loop");
	return ret ? ret : dp_start(&ports[p], &o);
}

static unsigned int pool_total(const struct worker_pool *g)
{
	unsigned int i, n = 0;

	for (i = 0; i < worker_pool_threads(g); i++)
		n += worker_pool_pairs(g, i);
	return n;
}

static void test_spread_and_traffic(void)
{
	struct worker_pool *g;
	unsigned int p, lo, hi, i;

	CHECK_EQ(worker_pool_create(&g, 2), 0);
	CHECK_EQ(worker_pool_threads(g), 2);
	CHECK_EQ(pool_total(g), 0);
	/* 1 + 2 + 3 + 1 + 2 pairs: 9 pairs, 4 and 5 on the two threads */
	for (p = 0; p < 5; p++)
		CHECK_EQ(gport_start(p, p % 3 + 1, g, p & 1 ? VQ_PACKED : VQ_SPLIT), 0);
	CHECK_EQ(pool_total(g), 9);
	lo = hi = worker_pool_pairs(g, 0);
	for (i = 1; i < 2; i++) {
		lo = MIN(lo, worker_pool_pairs(g, i));
		hi = MAX(hi, worker_pool_pairs(g, i));
	}
	CHECK(hi - lo <= 1);
	CHECK_EQ(gtraffic(0, 5, 3000), 0);
	for (p = 0; p < 5; p++)
		for (i = 0; i < ports[p].npairs; i++)
			CHECK_EQ(dp_ctr(&ports[p].pairs[i].rx.ctr.packets), 3000);
	for (p = 0; p < 5; p++)
		dp_cleanup(&ports[p]);
	CHECK_EQ(pool_total(g), 0);
	worker_pool_destroy(g);
}

static void test_add_del_while_running(void)
{
	struct worker_pool *g;
	unsigned int round;

	CHECK_EQ(worker_pool_create(&g, 2), 0);
	CHECK_EQ(gport_start(0, 2, g, VQ_SPLIT), 0);
	CHECK_EQ(gport_start(1, 1, g, VQ_PACKED), 0);
	CHECK_EQ(gtraffic(0, 2, 500), 0);
	/* ports 2..5 come and go; 0 and 1 keep their pairs and their frames */
	for (round = 0; round < 8; round++) {
		unsigned int p = 2 + round % 4;

		CHECK_EQ(gport_start(p, 1 + round % 2, g, VQ_SPLIT), 0);
		CHECK_EQ(gtraffic(0, 2, 300), 0);
		CHECK_EQ(gtraffic(p, p + 1, 300), 0);
		dp_cleanup(&ports[p]);
		CHECK_EQ(pool_total(g), 3);
	}
	CHECK_EQ(gtraffic(0, 2, 500), 0);
	dp_cleanup(&ports[1]);
	dp_cleanup(&ports[0]);
	CHECK_EQ(pool_total(g), 0);
	worker_pool_destroy(g);
}

static void test_pause_one_port_others_resume(void)
{
	struct worker_pool *g;

	/* one thread: both ports' pairs on it */
	CHECK_EQ(worker_pool_create(&g, 1), 0);
	CHECK_EQ(gport_start(0, 1, g, VQ_SPLIT), 0);
	CHECK_EQ(gport_start(1, 1, g, VQ_SPLIT), 0);
	worker_pause(ports[0].wp, 0);
	worker_pause_all(ports[1].wp);
	worker_resume_all(ports[1].wp);
	/* port 0 still holds its pause; port 1's unpause must not drop it */
	worker_unpause_all(ports[1].wp);
	worker_resume(ports[0].wp, 0);
	worker_resume(ports[0].wp, 0);	/* unbalanced: ignored */
	CHECK_EQ(gtraffic(0, 2, 1000), 0);
	dp_cleanup(&ports[1]);
	dp_cleanup(&ports[0]);
	worker_pool_destroy(g);
}

/* A port whose rings have not started (no frontend yet) stops no thread:
 * its pairs are handed over at the first pause for them */
static void test_lazy_hand_over(void)
{
	struct worker_opts o = { 0 };
	struct worker_pool *g;
	unsigned int i;

	CHECK_EQ(worker_pool_create(&g, 2), 0);
	o.pool = g;
	CHECK_EQ(dp_init(&ports[0], VQ_SPLIT, F_V1 | F_MRG | F_EIDX, 2, "loop"), 0);
	for (i = 0; i < 2; i++)
		ports[0].pairs[i].rx.started = ports[0].pairs[i].tx.started = false;
	CHECK_EQ(dp_start(&ports[0], &o), 0);
	CHECK_EQ(pool_total(g), 0);
	worker_pause(ports[0].wp, 1);
	ports[0].pairs[1].rx.started = ports[0].pairs[1].tx.started = true;
	worker_resume(ports[0].wp, 1);
	CHECK_EQ(pool_total(g), 1);
	worker_pause_all(ports[0].wp);
	ports[0].pairs[0].rx.started = ports[0].pairs[0].tx.started = true;
	worker_resume_all(ports[0].wp);
	CHECK_EQ(pool_total(g), 2);
	CHECK_EQ(worker_pool_pairs(g, 0), 1);
	CHECK_EQ(gtraffic(0, 1, 1000), 0);
	dp_cleanup(&ports[0]);
	CHECK_EQ(pool_total(g), 0);
	worker_pool_destroy(g);
}

static void test_bad_sizes(void)
{
	struct worker_pool *g = NULL;

	CHECK_EQ(worker_pool_create(&g, 0), -EINVAL);
	CHECK_EQ(worker_pool_create(&g, WORKER_POOL_MAX + 1), -EINVAL);
	CHECK(g == NULL);
	worker_pool_destroy(NULL);
	CHECK_EQ(worker_pool_threads(NULL), 0);
}

int main(void)
{
	RUN(test_spread_and_traffic);
	RUN(test_add_del_while_running);
	RUN(test_pause_one_port_others_resume);
	RUN(test_lazy_hand_over);
	RUN(test_bad_sizes);
	return test_exit();
}
