// SPDX-License-Identifier: MIT
/*
 * rx_policy.c - the RX hold's decision (rx_policy.h says what and why).
 */
#include "rx_policy.h"
#include "util.h"

/**
 * rx_hold_next() - Before a thread sleeps: hold host RX, and how long?
 * @h:		The thread's hold state
 * @moved:	Host RX frames moved since the thread last slept
 * @now_ns:	CLOCK_MONOTONIC now
 *
 * At the end of each rate window the rate decides; a hold that moved
 * nothing ends at once.
 *
 * Return: true to hold for @h->hold_ns, false to sleep on every fd
 */
bool rx_hold_next(struct rx_hold *h, unsigned int moved, uint64_t now_ns)
{
	uint64_t ns, pps;

	if (!moved)
		h->hold_ns = 0;		/* idle, or the traffic stopped */
	h->win_frames += moved;
	ns = now_ns - h->win_ns;
	if (ns < RX_HOLD_WINDOW_NS)
		return h->hold_ns != 0;
	pps = h->win_frames * 1000000000u / ns;
	h->win_ns = now_ns;
	h->win_frames = 0;
	if (pps < RX_HOLD_MIN_PPS) {
		h->hold_ns = 0;
		return false;
	}
	ns = RX_HOLD_FRAMES * 1000000000ull / pps;
	h->hold_ns = MIN(MAX(ns, RX_HOLD_MIN_NS), RX_HOLD_MAX_NS);
	return true;
}
