// SPDX-License-Identifier: MIT
/*
 * test_rx_policy.c - rx_hold_next(), the RX hold's decision, on a clock the
 * test moves: no hold under RX_HOLD_MIN_PPS or before a window ends, a hold
 * of RX_HOLD_FRAMES at the measured rate, clamped to its bounds, kept
 * within a window, ended at once by a sleep that moved nothing; the TAP RX
 * batch's plan (rx_batch_*()): off until a long stretch, the reads a fill
 * asks for at a steady rate, past it and after a rise, direct reads after
 * a large frame; the size estimate (rx_est_*()): up at once, down by an
 * eighth of the gap, never above the largest frame.
 */
#include "rx_policy.h"
#include "testlib.h"

#define MS	1000000ull

/* One window of @pps frames, delivered in one sleep; @t advances by a window */
static bool window(struct rx_hold *h, uint64_t *t, uint64_t pps)
{
	*t += RX_HOLD_WINDOW_NS;
	return rx_hold_next(h, (unsigned int)(pps * RX_HOLD_WINDOW_NS / 1000000000ull), *t);
}

static void test_hold_rate(void)
{
	struct rx_hold h = { 0 };
	uint64_t t = 10 * MS;

	CHECK(!rx_hold_next(&h, 0, t));			/* idle */
	h.win_ns = t;
	CHECK(!window(&h, &t, RX_HOLD_MIN_PPS / 2));	/* under the rate */
	CHECK_EQ(h.hold_ns, 0);
	CHECK(window(&h, &t, 100000));			/* 100 kpps */
	/* 64 frames at 100 kpps: 640 us, clamped to the most */
	CHECK_EQ(h.hold_ns, RX_HOLD_MAX_NS);
	CHECK(window(&h, &t, 1000000));			/* 1 Mpps: 64 us */
	CHECK_EQ(h.hold_ns, RX_HOLD_FRAMES * 1000ull);
	CHECK(window(&h, &t, 10000000));		/* 10 Mpps: 6.4 us -> the least */
	CHECK_EQ(h.hold_ns, RX_HOLD_MIN_NS);
}

static void test_hold_within_window(void)
{
	struct rx_hold h = { 0 };
	uint64_t t = 0;

	CHECK(window(&h, &t, 1000000));
	/* inside the next window: the hold goes on while frames come */
	CHECK(rx_hold_next(&h, 5, t + RX_HOLD_WINDOW_NS / 4));
	CHECK(rx_hold_next(&h, 5, t + RX_HOLD_WINDOW_NS / 2));
	CHECK_EQ(h.win_frames, 10);
	/* a hold that gathered nothing ends it, window or not */
	CHECK(!rx_hold_next(&h, 0, t + RX_HOLD_WINDOW_NS * 3 / 4));
	CHECK_EQ(h.hold_ns, 0);
	/* and the window's frames (10 in 1 ms: 10 kpps) are under the rate */
	CHECK(!rx_hold_next(&h, 0, t + RX_HOLD_WINDOW_NS));
	CHECK_EQ(h.win_frames, 0);
	CHECK_EQ(h.win_ns, t + RX_HOLD_WINDOW_NS);
}

/* A stretch of @n frames read one by one, ended by an empty queue */
static void stretch(struct rx_batch *b, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		rx_batch_read_one(b);
		rx_batch_got_one(b);
	}
	rx_batch_read_one(b);
	rx_batch_empty(b);
}

static void test_batch_on(void)
{
	struct rx_batch b;

	rx_batch_reset(&b);
	CHECK(!rx_batch_on(&b));			/* nothing measured yet */
	CHECK_EQ(b.want, RX_BATCH_FIRST);
	stretch(&b, RX_BATCH_STRETCH - 1);
	CHECK(!rx_batch_on(&b));			/* wakes too often */
	stretch(&b, RX_BATCH_STRETCH);
	CHECK(rx_batch_on(&b));
	CHECK_EQ(b.last, RX_BATCH_STRETCH);
	rx_batch_empty(&b);				/* an empty read keeps it */
	CHECK_EQ(b.last, RX_BATCH_STRETCH);
	CHECK(rx_batch_on(&b));
	stretch(&b, 10);				/* the rate fell */
	CHECK(!rx_batch_on(&b));
}

static void test_batch_plan(void)
{
	struct rx_batch b;

	rx_batch_reset(&b);
	stretch(&b, 100);
	/* a fill that found the queue empty: next, the last stretch + 1, capped */
	rx_batch_filled(&b, 4, 3, false);
	CHECK_EQ(b.last, 3);
	CHECK_EQ(b.want, RX_BATCH_FIRST);		/* 3 + 1 */
	b.last = 20;
	b.run = 0;
	rx_batch_filled(&b, 8, 8, false);		/* 12 of 20 left: 13 */
	CHECK_EQ(b.want, 13);
	rx_batch_filled(&b, 13, 13, false);		/* past 20 by 1: a few */
	CHECK_EQ(b.want, RX_BATCH_FIRST);
	rx_batch_filled(&b, 4, 4, false);		/* 25 > 20 + 4: double */
	CHECK_EQ(b.want, 8);
	b.last = 1000;
	b.run = 0;
	rx_batch_filled(&b, 4, 4, false);		/* never above the batch */
	CHECK_EQ(b.want, RX_BATCH_MAX);
	CHECK(rx_batch_on(&b));
	/* a large frame: the next RX_BATCH_DIRECT frames go direct */
	rx_batch_filled(&b, 4, 4, true);
	CHECK_EQ(b.direct, RX_BATCH_DIRECT);
	CHECK(!rx_batch_on(&b));
	for (unsigned int i = 0; i < RX_BATCH_DIRECT; i++)
		rx_batch_read_one(&b);
	CHECK_EQ(b.direct, 0);
	rx_batch_read_one(&b);				/* never wraps */
	CHECK_EQ(b.direct, 0);
	CHECK(rx_batch_on(&b));
}

static void test_estimate(void)
{
	uint32_t est = 0;

	CHECK_EQ(rx_est_want(est, 9000), 9000);	/* none yet: the largest */
	rx_est_update(&est, 64);
	CHECK_EQ(est, 64);
	CHECK_EQ(rx_est_want(est, 9000), 64);
	rx_est_update(&est, 65000);			/* up at once */
	CHECK_EQ(est, 65000);
	CHECK_EQ(rx_est_want(est, 9000), 9000);	/* never above the largest */
	rx_est_update(&est, 64);			/* down by an eighth of the gap */
	CHECK_EQ(est, 65000 - (65000 - 64) / RX_EST_DECAY);
	for (int i = 0; i < 200; i++)
		rx_est_update(&est, 64);
	CHECK(est >= 64 && est < 72);
}

int main(void)
{
	RUN(test_hold_rate);
	RUN(test_hold_within_window);
	RUN(test_batch_on);
	RUN(test_batch_plan);
	RUN(test_estimate);
	return test_exit();
}
