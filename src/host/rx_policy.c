// SPDX-License-Identifier: MIT
/*
 * rx_policy.c - the host RX policy's decisions (rx_policy.h says what
 * and why): the RX hold and the TAP RX batch.
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

/**
 * rx_batch_reset() - A queue's state before its first frame
 * @b:		The queue's state
 */
void rx_batch_reset(struct rx_batch *b)
{
	b->want = RX_BATCH_FIRST;
	b->run = 0;
	b->last = 0;
	b->direct = 0;
}

/**
 * rx_batch_empty() - The queue was found empty
 * @b:		The queue's state
 *
 * The stretch since the last time ends; an empty one (a read that found
 * nothing at all) keeps the last.
 */
void rx_batch_empty(struct rx_batch *b)
{
	if (b->run)
		b->last = b->run;
	b->run = 0;
}

/**
 * rx_batch_filled() - A fill is done: plan the next one
 * @b:		The queue's state
 * @asked:	Reads the fill made
 * @got:	Frames they got
 * @big:	One of them was over RX_BATCH_COPY_MAX bytes
 *
 * A read that finds the queue empty costs nearly what one that gets a
 * frame does, so the fills of one wake should together ask for one more
 * than the frames waiting. At a steady rate a wake finds about what the
 * one before found (@b->last, from one empty queue to the next): ask for
 * what is left of that, plus one; just past it, for RX_BATCH_FIRST
 * (frames that came in meanwhile); further past it (the rate went up),
 * for twice the last fill.
 */
void rx_batch_filled(struct rx_batch *b, unsigned int asked, unsigned int got,
		     bool big)
{
	unsigned int left;

	b->run += got;
	if (got < asked) {
		rx_batch_empty(b);
		left = b->last;
	} else if (b->last > b->run) {
		left = b->last - b->run;
	} else {
		/* past the estimate: a few came in meanwhile, or the rate
		 * went up (a full fill past it already: double) */
		left = b->run > b->last + asked ? 2 * asked - 1 : RX_BATCH_FIRST - 1;
	}
	b->want = MIN(MAX(left + 1, (unsigned int)RX_BATCH_FIRST),
		      (unsigned int)RX_BATCH_MAX);
	if (big)
		b->direct = RX_BATCH_DIRECT;
}
