/* SPDX-License-Identifier: MIT */
/*
 * rx_policy.h - when a data plane thread holds host RX back to read it in
 * one batch (the RX hold), and its constants. Pure: no clock, no I/O, no
 * thread; the worker reads the clock and sleeps, this file decides.
 *
 * The tun driver wakes the thread for about every frame that arrives while
 * it sleeps, and a wake (epoll, context switch, the read that says EAGAIN,
 * the guest's call) costs as much as ten frames. So the thread measures the
 * host RX rate over windows of RX_HOLD_WINDOW_NS (one clock read per sleep,
 * never per frame); at RX_HOLD_MIN_PPS or more it sleeps instead without
 * the host fds (kicks and control still wake it) for as long as
 * RX_HOLD_FRAMES take at that rate, within RX_HOLD_MIN_NS..RX_HOLD_MAX_NS,
 * then reads what gathered meanwhile in one batch: one flush and one call.
 * A hold that gathers nothing, or a window under the rate, ends it: a
 * sparse or request/response flow never waits. What the kernel's vhost-net
 * gets from busy-polling, without spinning a core at moderate load.
 */
#ifndef VNET_RX_POLICY_H
#define VNET_RX_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#define RX_HOLD_WINDOW_NS	1000000u	/* the rate window */
#define RX_HOLD_MIN_PPS		20000u		/* host RX rate that starts a hold */
#define RX_HOLD_FRAMES		64		/* frames a hold aims to gather */
#define RX_HOLD_MIN_NS		20000u
#define RX_HOLD_MAX_NS		200000u

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

bool rx_hold_next(struct rx_hold *h, unsigned int moved, uint64_t now_ns);

#endif /* VNET_RX_POLICY_H */
