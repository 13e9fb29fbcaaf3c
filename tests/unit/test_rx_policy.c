// SPDX-License-Identifier: MIT
/*
 * test_rx_policy.c - rx_hold_next(), the RX hold's decision, on a clock the
 * test moves: no hold under RX_HOLD_MIN_PPS or before a window ends, a hold
 * of RX_HOLD_FRAMES at the measured rate, clamped to its bounds, kept
 * within a window, ended at once by a sleep that moved nothing.
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

int main(void)
{
	RUN(test_hold_rate);
	RUN(test_hold_within_window);
	return test_exit();
}
