/* SPDX-License-Identifier: MIT */
/*
 * rx_policy.h - the host RX policy, all of it, and its constants: when a
 * data plane thread holds host RX back (the RX hold, worker_loop.c), when
 * a TAP queue is read in batches and how many reads a batch asks for
 * (host_tap.c), and how many guest buffers a frame of unknown length is
 * offered (the size estimate, net.c). Pure: no clock, no I/O, no thread;
 * the callers read the clock, sleep and read, this file decides.
 *
 * The RX hold. The tun driver wakes the thread for about every frame that
 * arrives while it sleeps, and a wake (epoll, context switch, the read
 * that says EAGAIN, the guest's call) costs as much as ten frames. So the
 * thread measures the host RX rate over windows of RX_HOLD_WINDOW_NS (one
 * clock read per sleep, never per frame); at RX_HOLD_MIN_PPS or more it
 * sleeps instead without the host fds (kicks and control still wake it)
 * for as long as RX_HOLD_FRAMES take at that rate, within
 * RX_HOLD_MIN_NS..RX_HOLD_MAX_NS, then reads what gathered meanwhile in
 * one batch: one flush and one call. A hold that gathers nothing, or a
 * window under the rate, ends it: a sparse or request/response flow never
 * waits. What the kernel's vhost-net gets from busy-polling, without
 * spinning a core at moderate load.
 *
 * The TAP RX batch. With the thread's io_uring a fill reads up to
 * RX_BATCH_MAX frames into the host side's own buffers in one syscall, so
 * their lengths are known before guest buffers are popped; the price is a
 * copy of each frame. Batches are read only while the queue gives at
 * least RX_BATCH_STRETCH frames from one time it is found empty to the
 * next: below that (a wake every few dozen frames) the copy and the reads
 * that find the queue empty cost more than the readv() syscalls they
 * save. A fill that read a frame over RX_BATCH_COPY_MAX bytes sends the
 * next RX_BATCH_DIRECT frames straight into guest memory (a bulk stream:
 * the copy would cost more than the syscall). How many reads a fill asks
 * for: rx_batch_filled().
 *
 * The size estimate. A frame read straight into guest memory (readv) has
 * no length until it is read; with mergeable buffers it is offered the
 * estimate (the recent frames' sizes) plus a bounce tail for the rest of
 * a maximal frame, not every buffer a 64 KiB frame would need: popping
 * about 40 chains per 64 byte frame and giving back all but one costs
 * more than the frame, a wrong guess one copy of the tail. It jumps up to
 * a larger frame at once (a TCP stream's 64 KiB frames then pop all their
 * chains up front) and comes down by 1/RX_EST_DECAY of the gap per
 * smaller frame. It stays because the direct reads above and a build
 * without liburing have no other way to learn a frame's length (the tun
 * driver has no peek for userspace).
 */
#ifndef VNET_RX_POLICY_H
#define VNET_RX_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RX_HOLD_WINDOW_NS	1000000u	/* the rate window */
#define RX_HOLD_MIN_PPS		20000u		/* host RX rate that starts a hold */
#define RX_HOLD_FRAMES		64		/* frames a hold aims to gather */
#define RX_HOLD_MIN_NS		20000u
#define RX_HOLD_MAX_NS		200000u

#define RX_BATCH_MAX		32	/* reads of one fill at most */
#define RX_BATCH_FIRST		4	/* reads of a first fill, and the least */
#define RX_BATCH_COPY_MAX	2048	/* larger frames: read direct ... */
#define RX_BATCH_DIRECT		64	/* ... for this many frames */
#define RX_BATCH_STRETCH	64	/* frames between two empty queues to batch */

#define RX_EST_DECAY		8	/* the estimate comes down by 1/8 of the gap */

/**
 * struct rx_hold - The RX hold's state, one per thread
 * @win_ns:	Start of the rate window
 * @win_frames:	Host RX frames moved in that window
 * @hold_ns:	Length of a hold, 0: not holding
 */
struct rx_hold {
	uint64_t win_ns;
	uint64_t win_frames;
	uint64_t hold_ns;
};

/**
 * struct rx_batch - One host queue's batch decision (its worker thread only)
 * @want:	Reads the next fill asks for (RX_BATCH_FIRST..RX_BATCH_MAX)
 * @run:	Frames read (batched or not) since the queue was last found
 *		empty
 * @last:	Frames between the last two times it was found empty
 * @direct:	Frames still to read straight into guest memory
 */
struct rx_batch {
	unsigned int want;
	unsigned int run;
	unsigned int last;
	unsigned int direct;
};

bool rx_hold_next(struct rx_hold *h, unsigned int moved, uint64_t now_ns);

void rx_batch_reset(struct rx_batch *b);
void rx_batch_empty(struct rx_batch *b);
void rx_batch_filled(struct rx_batch *b, unsigned int asked, unsigned int got,
		     bool big);

/**
 * rx_batch_on() - Read the queue in batches now?
 * @b:		The queue's state
 *
 * Return: true while the stretches are long and no bulk stream goes direct
 */
static inline bool rx_batch_on(const struct rx_batch *b)
{
	return !b->direct && b->last >= RX_BATCH_STRETCH;
}

/**
 * rx_batch_read_one() - A frame is about to be read on its own (readv)
 * @b:		The queue's state
 */
static inline void rx_batch_read_one(struct rx_batch *b)
{
	b->direct -= b->direct > 0;
}

/**
 * rx_batch_got_one() - The frame read on its own came
 * @b:		The queue's state
 */
static inline void rx_batch_got_one(struct rx_batch *b)
{
	b->run++;
}

/**
 * rx_est_want() - Bytes to offer a frame of unknown length
 * @est:	The estimate, 0: none yet
 * @max:	The largest frame with its header
 *
 * Return: @est, or @max without an estimate or above it
 */
static inline size_t rx_est_want(uint32_t est, size_t max)
{
	return !est || est > max ? max : est;
}

/**
 * rx_est_update() - Follow the frames' sizes
 * @est:	The estimate, updated
 * @len:	Bytes of the frame just read
 */
static inline void rx_est_update(uint32_t *est, size_t len)
{
	if (len >= *est)
		*est = (uint32_t)len;
	else
		*est -= (uint32_t)((*est - len) / RX_EST_DECAY);
}

#endif /* VNET_RX_POLICY_H */
