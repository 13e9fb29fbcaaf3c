/* SPDX-License-Identifier: MIT */
/*
 * switch_police.h - a switch member's ingress policer (as OVS's ingress
 * policing): frames the guest sends beyond a rate are dropped before they
 * are switched. Two token buckets, one in frames/s and one in bits/s
 * (either or both); a frame passes only if both have room for it.
 *
 * Pure: the caller gives the time (nanoseconds, any monotonic origin), so
 * tests inject a clock; no allocation, no syscall, no atomics. Each
 * sending pair's worker owns one bucket pair (the port's rate shared
 * evenly between its pairs: switch_police_init()).
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
 * struct sw_police - One pair's buckets. Tokens are kept in
 * "units x nanoseconds": a second's worth of the rate is rate x 1e9, so
 * the refill is elapsed_ns x rate and a frame costs 1e9 (or its bits x
 * 1e9): integers, no division per frame.
 * @pps:	Frames per second of this pair, 0: off
 * @bps:	Bits per second of this pair, 0: off
 * @cap_f:	Frame bucket depth (frames x 1e9)
 * @cap_b:	Bit bucket depth (bits x 1e9)
 * @tok_f:	Frame tokens now
 * @tok_b:	Bit tokens now
 * @last_ns:	Time of the last refill
 */
struct sw_police {
	uint64_t pps;
	uint64_t bps;
	uint64_t cap_f;
	uint64_t cap_b;
	uint64_t tok_f;
	uint64_t tok_b;
	uint64_t last_ns;
};

void switch_police_init(struct sw_police *p, const struct sw_police_cfg *cfg,
			unsigned int npairs, uint64_t now_ns);
bool switch_police_pass(struct sw_police *p, uint32_t bytes, uint64_t now_ns);
const char *switch_police_rate_parse(const char *text, bool bits,
				     uint64_t *out);

/**
 * switch_police_on() - Does this pair police at all?
 * @p:		The pair's buckets
 *
 * Return: true if a frame or bit limit is set
 */
static inline bool switch_police_on(const struct sw_police *p)
{
	return p->pps | p->bps;
}

#endif /* VNET_SWITCH_POLICE_H */
