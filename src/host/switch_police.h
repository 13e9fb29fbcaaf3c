/* SPDX-License-Identifier: MIT */
/*
 * switch_police.h - a switch member's ingress policer (as OVS's ingress
 * policing): frames the guest sends beyond a rate are dropped before they
 * are switched. Two token buckets, one in frames/s and one in bits/s
 * (either or both); a frame passes only if both have room for it.
 *
 * The buckets are the port's, shared by its pairs, so a guest gets its
 * rate whichever of its queues it sends on. They are kept as a GCRA
 * (the ATM "virtual scheduling" form of a token bucket): per bucket one
 * time, the theoretical arrival time, moved on by a compare-and-swap. A
 * pair does not take each frame's cost from it: it takes a chunk of
 * tokens at once (a quarter of the bucket shared between the pairs) and
 * spends them alone, so the shared cache line is written once per chunk,
 * not per frame; what pairs hold unspent is at most a quarter of the
 * bucket together, so a burst is at most 1.25 buckets.
 *
 * Pure: the caller gives the time (nanoseconds, any monotonic origin), so
 * tests inject a clock; no allocation, no syscall, no lock.
 */
#ifndef VNET_SWITCH_POLICE_H
#define VNET_SWITCH_POLICE_H

#include <stdbool.h>
#include <stdint.h>

#define SW_POLICE_PPS_MAX	100000000ULL		/* 100 Mpps */
#define SW_POLICE_BPS_MIN	8000ULL			/* 8 kbit/s */
#define SW_POLICE_BPS_MAX	400000000000ULL		/* 400 Gbit/s */
#define SW_POLICE_BURST_MIN	10U	/* ms: above the coarse clock's tick */
#define SW_POLICE_BURST_MAX	10000U	/* ms */
#define SW_POLICE_BURST_DEF	100U	/* ms of the rate */

/**
 * struct sw_police_cfg - A port's policer, as its keys gave it
 * @pps:	Frames per second, 0: no frame limit
 * @bps:	Bits per second (the frame's Ethernet bytes x 8, no vnet
 *		header), 0: no bit limit
 * @burst_ms:	Bucket depth: this many ms of the rate (0: the default,
 *		SW_POLICE_BURST_DEF)
 */
struct sw_police_cfg {
	uint64_t pps;
	uint64_t bps;
	unsigned int burst_ms;
};

/**
 * struct sw_police_port - A port's buckets, shared by its pairs. Tokens
 * are kept in "units x nanoseconds": a second's worth of the rate is
 * rate x 1e9, so a frame costs 1e9 (or its bits x 1e9) and the time
 * those tokens take to come is tokens / rate ns: integers, a division
 * per chunk, none per frame.
 * @pps:	Frames per second, 0: off
 * @bps:	Bits per second, 0: off
 * @span_f:	Frame bucket depth as time (ns of @pps)
 * @span_b:	Bit bucket depth as time (ns of @bps)
 * @chunk_f:	Frame tokens a pair takes at once
 * @chunk_b:	Bit tokens a pair takes at once
 * @epoch_ns:	Time of init: the times below count from it
 * @tat_f:	Frame bucket's theoretical arrival time (ns since
 *		@epoch_ns): the bucket is full while it is not after now,
 *		empty when it is @span_f after now
 * @tat_b:	Bit bucket's, the same way
 */
struct sw_police_port {
	uint64_t pps;
	uint64_t bps;
	uint64_t span_f;
	uint64_t span_b;
	uint64_t chunk_f;
	uint64_t chunk_b;
	uint64_t epoch_ns;
	_Atomic uint64_t tat_f;
	_Atomic uint64_t tat_b;
};

/**
 * struct sw_police - One sending pair's view of its port's buckets
 * @port:	The port's buckets
 * @on:		A limit is set
 * @lim_f:	The frame limit is set (these two are read per frame
 *		here, not on @port's line, which other pairs write)
 * @lim_b:	The bit limit is set
 * @tok_f:	Frame tokens this pair took and has not spent
 * @tok_b:	Bit tokens, the same way
 */
struct sw_police {
	struct sw_police_port *port;
	bool on;
	bool lim_f;
	bool lim_b;
	uint64_t tok_f;
	uint64_t tok_b;
};

void switch_police_init(struct sw_police_port *port,
			const struct sw_police_cfg *cfg, unsigned int npairs,
			uint64_t now_ns);
void switch_police_pair(struct sw_police *p, struct sw_police_port *port);
bool switch_police_pass(struct sw_police *p, uint32_t bytes, uint64_t now_ns);
const char *switch_police_rate_parse(const char *text, bool bits,
				     uint64_t *out);

/**
 * switch_police_on() - Does this pair police at all?
 * @p:		The pair's view (switch_police_pair())
 *
 * Return: true if a frame or bit limit is set
 */
static inline bool switch_police_on(const struct sw_police *p)
{
	return p->on;
}

#endif /* VNET_SWITCH_POLICE_H */
