// SPDX-License-Identifier: MIT
/*
 * test_worker.c - the worker threads driven from the guest's side of real
 * rings: frames sent on TX come back on RX through the loop backend, for
 * both layouts, mergeable on and off, several pairs on fewer threads,
 * pause/resume in the middle of traffic, disabled rings (TX drained and
 * dropped, RX not filled), a broken ring that stops only its queue and
 * signals its error eventfd, busy polling, the gen backend filling RX as
 * fast as buffers are posted (kicks and polling). The tap backend is
 * tests/system/test_worker_tap.c, the frames/s figure
 * bench/test_worker_rate.c.
 */
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
#include "dp_testutil.h"
#include "dp_flow.h"

static void t_loop(enum vq_layout l, uint64_t features, unsigned int npairs,
		   unsigned int nthreads)
{
	struct worker_opts o = { .nthreads = nthreads };
	struct dp_env e;
	unsigned long n = 3000;
	unsigned int i, d;
	uint64_t t0, wall;

	CHECK_EQ(dp_init(&e, l, features, npairs, "loop"), 0);
	t0 = dp_now_ns();
	CHECK_EQ(dp_start(&e, &o), 0);
	CHECK_EQ(run_traffic(&e, n, false), 0);
	wall = dp_now_ns() - t0;
	for (i = 0; i < npairs; i++) {
		struct vnet_pair *p = &e.pairs[i];

		/* the worker commits its counters when a pass finds nothing,
		 * maybe just after the frontend got the last frame: wait */
		CHECK_EQ(dp_wait_ctr(&p->rx.ctr.packets, n, DEADLINE_NS), n);
		CHECK(dp_ctr(&p->rx.ctr.batches) >= 1);
		CHECK(dp_ctr(&p->rx.ctr.batches) <= n);
		CHECK(dp_ctr(&p->rx.ctr.calls) >= 1);
		CHECK(dp_wait_ctr(&p->tx.ctr.packets, n - 256, DEADLINE_NS) >=
		      n - 256);
		for (d = 0; d < DROP_MAX; d++) {
			CHECK_EQ(dp_ctr(&p->rx.ctr.drops[d]), 0);
			CHECK_EQ(dp_ctr(&p->tx.ctr.drops[d]), 0);
		}
		CHECK_EQ(dp_ctr(&p->tx.ctr.breaks), 0);
		/* both rings worked: busy time charged, within the run */
		CHECK(dp_ctr(&p->rx.ctr.busy_ns) > 0);
		CHECK(dp_ctr(&p->tx.ctr.busy_ns) > 0);
		CHECK(dp_ctr(&p->rx.ctr.busy_ns) + dp_ctr(&p->tx.ctr.busy_ns) <
		      wall);
	}
	dp_cleanup(&e);
}

static void test_loop_split_mrg(void) { t_loop(VQ_SPLIT, F_V1 | F_MRG | F_EIDX, 1, 0); }
static void test_loop_split_nomrg(void) { t_loop(VQ_SPLIT, F_V1, 1, 0); }
static void test_loop_split_legacy_hdr(void) { t_loop(VQ_SPLIT, 0, 1, 0); }
static void test_loop_packed_mrg(void) { t_loop(VQ_PACKED, F_V1 | F_MRG, 1, 0); }
static void test_loop_packed_nomrg(void) { t_loop(VQ_PACKED, F_V1 | F_EIDX, 1, 0); }
static void test_pairs4_split(void) { t_loop(VQ_SPLIT, F_V1 | F_MRG | F_EIDX, 4, 0); }
static void test_pairs3_on_2_threads_packed(void) { t_loop(VQ_PACKED, F_V1 | F_MRG, 3, 2); }
static void test_pairs3_on_1_thread_split(void) { t_loop(VQ_SPLIT, F_V1, 3, 1); }

static void test_poll_mode(void)
{
	struct worker_opts o = { .poll_us = 200 };
	struct dp_env e;

	CHECK_EQ(dp_init(&e, VQ_PACKED, F_V1 | F_MRG | F_EIDX, 2, "loop"), 0);
	CHECK_EQ(dp_start(&e, &o), 0);
	CHECK_EQ(run_traffic(&e, 2000, false), 0);
	dp_cleanup(&e);
}

/* Small budgets: more, smaller batches, nothing lost */
static void test_small_budgets(void)
{
	struct worker_opts o = { .budget_pkts = 4, .budget_bytes = 3000 };
	struct dp_env e;

	CHECK_EQ(dp_init(&e, VQ_SPLIT, F_V1 | F_MRG, 1, "loop"), 0);
	CHECK_EQ(dp_start(&e, &o), 0);
	CHECK_EQ(run_traffic(&e, 2000, false), 0);
	/* at most 4 frames (or ~3000 bytes + one frame) per RX batch */
	CHECK(dp_ctr(&e.pairs[0].rx.ctr.batches) >= 2000 / 4);
	dp_cleanup(&e);
}

/*
 * A full TX ring waiting when the thread starts: TX and RX take turns of
 * WORKER_TURN frames, each ending in a used-ring flush, within the one
 * 256-frame budget. So both rings see at least 255 / WORKER_TURN flushes
 * (one each if a ring were served to its budget in one go), yet, without
 * EVENT_IDX and with the driver asking for every interrupt, one call per
 * ring for the pass (plus the one every ring start gives RX); and every
 * frame comes back once, in order.
 */
static void test_turns(void)
{
	struct worker_opts o = { 0 };
	uint64_t deadline = dp_now_ns() + DEADLINE_NS;
	unsigned long got = 0, bad = 0, n;
	struct dp_env e;
	uint8_t first;
	int len;

	CHECK_EQ(dp_init(&e, VQ_SPLIT, F_V1 | F_MRG, 1, "loop"), 0);
	CHECK_EQ(dp_post_rx(&e, 0), DP_RING);
	for (n = 0; n < DP_RING - 1; n++)
		CHECK_EQ(dp_send(&e, 0, 64, (uint8_t)n, false), 0);
	CHECK_EQ(dp_start(&e, &o), 0);
	dp_kick(&e.pairs[0].tx, &e.tx[0]);
	while (got < DP_RING - 1 && dp_now_ns() < deadline) {
		while ((len = dp_recv(&e, 0, &first, NULL)) != -EAGAIN) {
			bad += len != 64 || first != (uint8_t)got;
			got++;
		}
	}
	CHECK_EQ(got, DP_RING - 1);
	CHECK_EQ(bad, 0);
	dp_wait_ctr(&e.pairs[0].tx.ctr.packets, DP_RING - 1, DEADLINE_NS);
	printf("# %u frames: used-ring flushes TX %lu, RX %lu; calls TX %lu, "
	       "RX %lu\n", (unsigned int)DP_RING - 1,
	       (unsigned long)dp_ctr(&e.pairs[0].tx.ctr.batches),
	       (unsigned long)dp_ctr(&e.pairs[0].rx.ctr.batches),
	       (unsigned long)dp_ctr(&e.pairs[0].tx.ctr.calls),
	       (unsigned long)dp_ctr(&e.pairs[0].rx.ctr.calls));
	CHECK(dp_ctr(&e.pairs[0].tx.ctr.batches) >= (DP_RING - 1) / WORKER_TURN);
	CHECK(dp_ctr(&e.pairs[0].rx.ctr.batches) >= (DP_RING - 1) / WORKER_TURN);
	CHECK(dp_ctr(&e.pairs[0].tx.ctr.calls) <= 1);
	CHECK(dp_ctr(&e.pairs[0].rx.ctr.calls) <= 2);
	dp_cleanup(&e);
}

/*
 * TX alone (null host: nothing comes back): after the first, capped turn
 * finds RX idle, TX is served to its budget in one go. So 255 waiting
 * frames take two used-ring flushes, not one per WORKER_TURN.
 */
static void test_turns_one_way(void)
{
	struct worker_opts o = { 0 };
	uint64_t deadline = dp_now_ns() + DEADLINE_NS;
	unsigned int n, reaped = 0;
	struct dp_env e;

	CHECK_EQ(dp_init(&e, VQ_SPLIT, F_V1 | F_MRG, 1, "null"), 0);
	for (n = 0; n < DP_RING - 1; n++)
		CHECK_EQ(dp_send(&e, 0, 64, (uint8_t)n, false), 0);
	CHECK_EQ(dp_start(&e, &o), 0);
	dp_kick(&e.pairs[0].tx, &e.tx[0]);
	while (reaped < DP_RING - 1 && dp_now_ns() < deadline)
		reaped += dp_reap_tx(&e, 0);
	CHECK_EQ(reaped, DP_RING - 1);
	dp_wait_ctr(&e.pairs[0].tx.ctr.packets, DP_RING - 1, DEADLINE_NS);
	printf("# %u frames, TX alone: %lu used-ring flushes\n",
	       (unsigned int)DP_RING - 1,
	       (unsigned long)dp_ctr(&e.pairs[0].tx.ctr.batches));
	CHECK(dp_ctr(&e.pairs[0].tx.ctr.batches) <= 2);
	dp_cleanup(&e);
}

/* Rings without a kick fd are polled ("no fd" bit in SET_VRING_KICK) */
static void test_no_kick_fd_polls(void)
{
	struct dp_env e;

	CHECK_EQ(dp_init(&e, VQ_PACKED, F_V1 | F_MRG, 1, "loop"), 0);
	close(e.pairs[0].tx.kick_fd);
	close(e.pairs[0].rx.kick_fd);
	e.pairs[0].tx.kick_fd = -1;
	e.pairs[0].rx.kick_fd = -1;
	CHECK_EQ(dp_start(&e, NULL), 0);
	CHECK_EQ(run_traffic(&e, 1000, false), 0);
	worker_pause_all(e.wp);	/* destroy works on a paused pool too */
	e.pairs[0].tx.kick_fd = eventfd(0, 0);	/* for dp_cleanup */
	e.pairs[0].rx.kick_fd = eventfd(0, 0);
	dp_cleanup(&e);
}

/* Paused pairs are not touched; traffic resumes where it stopped */
static void test_pause_resume_mid_traffic(void)
{
	struct worker_opts o = { .nthreads = 1 };
	struct flow fl[2] = { { 0 } };
	unsigned long total = 4000;
	uint64_t pk, deadline;
	struct dp_env e;
	uint32_t base;
	unsigned int i, round = 0;

	CHECK_EQ(dp_init(&e, VQ_SPLIT, F_V1 | F_MRG | F_EIDX, 2, "loop"), 0);
	CHECK_EQ(dp_start(&e, &o), 0);
	deadline = dp_now_ns() + DEADLINE_NS;
	while (fl[0].got < total || fl[1].got < total) {
		for (i = 0; i < 2; i++)
			flow_step(&e, i, &fl[i], total, 32, false);
		CHECK(!fl[0].bad && !fl[1].bad);
		CHECK(dp_now_ns() < deadline);
		if (++round % 8)
			continue;
		/* pause mid-traffic, queue more while paused */
		worker_pause(e.wp, round % 16 ? 0 : 1);
		pk = dp_ctr(&e.pairs[0].tx.ctr.packets);
		base = vq_get_base(&e.pairs[0].tx.vq);
		if (fl[0].sent < total && !dp_send(&e, 0, frame_len(fl[0].sent),
						   (uint8_t)fl[0].sent, true))
			fl[0].sent++;
		usleep(2000);
		CHECK_EQ(dp_ctr(&e.pairs[0].tx.ctr.packets), pk);
		CHECK_EQ(vq_get_base(&e.pairs[0].tx.vq), base);
		worker_resume(e.wp, round % 16 ? 0 : 1);
	}
	/* nested pauses need as many resumes */
	worker_pause_all(e.wp);
	worker_pause(e.wp, 1);
	worker_resume_all(e.wp);
	worker_resume(e.wp, 1);
	CHECK_EQ(run_traffic(&e, 100, false), 0);
	dp_cleanup(&e);
}

static void wait_ms(unsigned int ms)
{
	usleep(ms * 1000);
}

/* Started but disabled: TX is drained and dropped, RX is not filled */
static void t_disabled(enum vq_layout l)
{
	struct dp_env e;
	unsigned int k, reaped = 0;
	uint64_t deadline;

	CHECK_EQ(dp_init(&e, l, F_V1 | F_MRG, 1, "loop"), 0);
	e.pairs[0].tx.enabled = false;
	e.pairs[0].rx.enabled = false;
	CHECK_EQ(dp_start(&e, NULL), 0);
	dp_post_rx(&e, 0);
	for (k = 0; k < 10; k++)
		CHECK_EQ(dp_send(&e, 0, 100, (uint8_t)k, true), 0);
	deadline = dp_now_ns() + DEADLINE_NS;
	while (reaped < 10 && dp_now_ns() < deadline)
		reaped += dp_reap_tx(&e, 0);
	CHECK_EQ(reaped, 10);
	wait_ms(20);
	CHECK_EQ(dp_ctr(&e.pairs[0].tx.ctr.drops[DROP_DISABLED]), 10);
	CHECK_EQ(dp_ctr(&e.pairs[0].tx.ctr.packets), 0);
	CHECK_EQ(dp_recv(&e, 0, NULL, NULL), -EAGAIN);

	/* TX on, RX still off: frames wait in the backend, RX untouched */
	worker_pause(e.wp, 0);
	e.pairs[0].tx.enabled = true;
	worker_resume(e.wp, 0);
	for (k = 0; k < 5; k++)
		CHECK_EQ(dp_send(&e, 0, 100, (uint8_t)k, true), 0);
	wait_ms(30);
	CHECK_EQ(dp_recv(&e, 0, NULL, NULL), -EAGAIN);
	CHECK_EQ(dp_ctr(&e.pairs[0].tx.ctr.packets), 5);
	CHECK_EQ(dp_ctr(&e.pairs[0].rx.ctr.packets), 0);

	/* RX enabled: the resume checks RX at once and signals */
	worker_pause(e.wp, 0);
	e.pairs[0].rx.enabled = true;
	worker_resume(e.wp, 0);
	deadline = dp_now_ns() + DEADLINE_NS;
	for (k = 0; k < 5 && dp_now_ns() < deadline;)
		if (dp_recv(&e, 0, NULL, NULL) == 100)
			k++;
	CHECK_EQ(k, 5);
	/* counters are published once per wake, just after the frames */
	while (!dp_ctr(&e.pairs[0].rx.ctr.calls) && dp_now_ns() < deadline)
		wait_ms(1);
	CHECK(dp_ctr(&e.pairs[0].rx.ctr.calls) >= 1);
	dp_cleanup(&e);
}

static void test_disabled_split(void) { t_disabled(VQ_SPLIT); }
static void test_disabled_packed(void) { t_disabled(VQ_PACKED); }

/* A guest that corrupts pair 0's TX ring stops that queue only */
static void test_broken_ring_stops_one_queue(void)
{
	struct worker_opts o = { .nthreads = 1 };
	struct vring_avail *avail;
	uint64_t v = 0, deadline;
	struct dp_env e;
	struct pollfd p;
	uint16_t idx;

	CHECK_EQ(dp_init(&e, VQ_SPLIT, F_V1 | F_MRG, 2, "loop"), 0);
	CHECK_EQ(dp_start(&e, &o), 0);
	CHECK_EQ(run_traffic(&e, 100, false), 0);

	/* head 999 in a 256-entry ring: a guest fault */
	avail = e.tx[0].vq.split.avail;
	idx = le16toh(avail->idx);
	avail->ring[idx % DP_RING] = htole16(999);
	__atomic_store_n(&avail->idx, htole16((uint16_t)(idx + 1)),
			 __ATOMIC_RELEASE);
	CHECK(write(e.pairs[0].tx.kick_fd, &(uint64_t){ 1 }, 8) == 8);

	p = (struct pollfd){ .fd = e.pairs[0].tx.err_fd, .events = POLLIN };
	CHECK_EQ(poll(&p, 1, 5000), 1);
	CHECK_EQ(read(e.pairs[0].tx.err_fd, &v, 8), 8);
	CHECK_EQ(v, 1);
	deadline = dp_now_ns() + DEADLINE_NS;
	while (!dp_ctr(&e.pairs[0].tx.ctr.breaks) && dp_now_ns() < deadline)
		wait_ms(1);
	CHECK_EQ(dp_ctr(&e.pairs[0].tx.ctr.breaks), 1);
	CHECK(vq_is_broken(&e.pairs[0].tx.vq));

	/* pair 1 still moves frames; pair 0's broken ring stays quiet */
	e.npairs = 2;
	{
		struct flow f1 = { 0 };

		deadline = dp_now_ns() + DEADLINE_NS;
		while (f1.got < 500 && dp_now_ns() < deadline)
			flow_step(&e, 1, &f1, 500, 32, false);
		CHECK_EQ(f1.got, 500);
		CHECK_EQ(f1.bad, 0);
	}
	CHECK(dp_send(&e, 0, 100, 0, true) == 0);
	wait_ms(20);
	CHECK_EQ(dp_ctr(&e.pairs[0].tx.ctr.breaks), 1);	/* signalled once */
	CHECK_EQ(read(e.pairs[0].tx.err_fd, &v, 8), -1);
	dp_cleanup(&e);
}


/*
 * gen backend: a frame for every RX buffer the guest posts, with or
 * without busy-polling; a starved ring restarts on the guest's RX kick.
 */
static void t_gen(enum vq_layout l, unsigned int poll_us)
{
	struct worker_opts o = { .nthreads = 1, .poll_us = poll_us };
	unsigned long got = 0, bad = 0;
	uint64_t deadline;
	struct dp_env e;
	uint8_t first;
	int ret;

	CHECK_EQ(dp_init(&e, l, F_V1 | F_MRG, 1, "gen"), 0);
	CHECK_EQ(dp_start(&e, &o), 0);
	deadline = dp_now_ns() + DEADLINE_NS;
	while (got < 5000 && dp_now_ns() < deadline) {
		dp_post_rx(&e, 0);
		while ((ret = dp_recv(&e, 0, &first, NULL)) != -EAGAIN) {
			got++;
			bad += ret != 64 || first != 0x02;
		}
	}
	CHECK(got >= 5000);
	CHECK_EQ(bad, 0);
	while (dp_ctr(&e.pairs[0].rx.ctr.packets) < got &&
	       dp_now_ns() < deadline)
		wait_ms(1);
	CHECK(dp_ctr(&e.pairs[0].rx.ctr.packets) >= got);
	CHECK_EQ(dp_ctr(&e.pairs[0].tx.ctr.packets), 0);
	/* busy time goes to the ring that moved frames, none to idle TX */
	CHECK(dp_ctr(&e.pairs[0].rx.ctr.busy_ns) > 0);
	CHECK_EQ(dp_ctr(&e.pairs[0].tx.ctr.busy_ns), 0);
	dp_cleanup(&e);
}

static void test_gen_split(void) { t_gen(VQ_SPLIT, 0); }
static void test_gen_packed_poll(void) { t_gen(VQ_PACKED, 50); }

int main(void)
{
	RUN(test_loop_split_mrg);
	RUN(test_loop_split_nomrg);
	RUN(test_loop_split_legacy_hdr);
	RUN(test_loop_packed_mrg);
	RUN(test_loop_packed_nomrg);
	RUN(test_pairs4_split);
	RUN(test_pairs3_on_2_threads_packed);
	RUN(test_pairs3_on_1_thread_split);
	RUN(test_poll_mode);
	RUN(test_small_budgets);
	RUN(test_turns);
	RUN(test_turns_one_way);
	RUN(test_no_kick_fd_polls);
	RUN(test_pause_resume_mid_traffic);
	RUN(test_disabled_split);
	RUN(test_disabled_packed);
	RUN(test_broken_ring_stops_one_queue);
	RUN(test_gen_split);
	RUN(test_gen_packed_poll);
	return test_exit();
}
