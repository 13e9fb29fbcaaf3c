// SPDX-License-Identifier: MIT
/*
 * switch_police.c - the switch's ingress policer (see switch_police.h):
 * two token buckets per sending pair, refilled from the caller's clock.
 *
 * Overflow: the refill multiplies the elapsed time by the rate, so the
 * elapsed time is first clamped to what fills an empty bucket (cap /
 * rate + 1 ns): after any idle time the bucket is full, never past it,
 * and the product stays below cap + rate < 2^63: a bucket holds at most
 * 2^62 units x 1e9 (police_cap()).
 */
#include <errno.h>
#include <stdlib.h>

#include "switch_police.h"
#include "util.h"

#define NS	1000000000ULL
#define MAX_FRAME_BITS	(9018ULL * 8)	/* SW_FRAME_MAX */

#define CAP_UNITS_MAX	((1ULL << 62) / NS)	/* ~4.6e9 frames or bits */

/* Bucket depth: @burst_ms of @rate, at least @floor units, at most
 * CAP_UNITS_MAX (a 4.6 Gbit bucket); x 1e9 */
static uint64_t police_cap(uint64_t rate, unsigned int burst_ms, uint64_t floor)
{
	uint64_t units = rate * burst_ms / 1000;

	return MIN(MAX(units, floor), CAP_UNITS_MAX) * NS;
}

/**
 * switch_police_init() - Set one pair's buckets from the port's policer
 * @p:		The pair's buckets (output; start full)
 * @cfg:	The port's limits (checked: switch_police_rate_parse() and
 *		the burst range)
 * @npairs:	The port's pairs: each gets 1/@npairs of the rate and burst
 *		(rounded up), as each pair's worker polices its own frames
 * @now_ns:	Time now
 */
void switch_police_init(struct sw_police *p, const struct sw_police_cfg *cfg,
			unsigned int npairs, uint64_t now_ns)
{
	unsigned int ms = cfg->burst_ms ? cfg->burst_ms : SW_POLICE_BURST_DEF;

	if (!npairs)
		npairs = 1;
	p->pps = (cfg->pps + npairs - 1) / npairs;
	p->bps = (cfg->bps + npairs - 1) / npairs;
	/* at least one frame fits, whatever the rate and burst */
	p->cap_f = p->pps ? police_cap(p->pps, ms, 1) : 0;
	p->cap_b = p->bps ? police_cap(p->bps, ms, MAX_FRAME_BITS) : 0;
	p->tok_f = p->cap_f;
	p->tok_b = p->cap_b;
	p->last_ns = now_ns;
}

/* Add @dt ns of @rate to *@tok, up to @cap */
static inline void police_fill(uint64_t *tok, uint64_t cap, uint64_t rate,
			       uint64_t dt)
{
	uint64_t room = cap - *tok;

	if (dt > cap / rate + 1 || dt * rate >= room)
		*tok = cap;
	else
		*tok += dt * rate;
}

/**
 * switch_police_pass() - May this frame pass? Takes its tokens if so
 * @p:		The pair's buckets (switch_police_on())
 * @bytes:	The frame's Ethernet bytes
 * @now_ns:	Time now (the same clock as init; a time before the last
 *		refill adds nothing)
 *
 * Context: the pair's worker, per frame: a few multiplications
 * Return: true: pass; false: drop (no tokens taken)
 */
bool switch_police_pass(struct sw_police *p, uint32_t bytes, uint64_t now_ns)
{
	uint64_t dt = now_ns > p->last_ns ? now_ns - p->last_ns : 0;
	uint64_t cost_b = (uint64_t)bytes * 8 * NS;

	if (dt) {
		p->last_ns = now_ns;
		if (p->pps)
			police_fill(&p->tok_f, p->cap_f, p->pps, dt);
		if (p->bps)
			police_fill(&p->tok_b, p->cap_b, p->bps, dt);
	}
	if ((p->pps && p->tok_f < NS) || (p->bps && p->tok_b < cost_b))
		return false;
	if (p->pps)
		p->tok_f -= NS;
	if (p->bps)
		p->tok_b -= cost_b;
	return true;
}

/**
 * switch_police_rate_parse() - Parse police-pps= or police-bps=
 * @text:	A decimal number; for bits a k, M or G suffix (x 1000^n)
 * @bits:	police-bps (suffixes, SW_POLICE_BPS_MIN..MAX) or police-pps
 *		(1..SW_POLICE_PPS_MAX)
 * @out:	The rate (output)
 *
 * Return: NULL, or what is allowed (to follow "'police-pps=VALUE': ")
 */
const char *switch_police_rate_parse(const char *text, bool bits, uint64_t *out)
{
	unsigned long long v, mul = 1;
	char *end;

	if (*text < '0' || *text > '9')
		goto bad;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno)
		goto bad;
	if (bits && *end && !end[1]) {
		switch (*end) {
		case 'k': mul = 1000ULL; end++; break;
		case 'M': mul = 1000000ULL; end++; break;
		case 'G': mul = 1000000000ULL; end++; break;
		}
	}
	if (*end || v > (bits ? SW_POLICE_BPS_MAX : SW_POLICE_PPS_MAX) / mul)
		goto bad;
	v *= mul;
	if (bits ? v < SW_POLICE_BPS_MIN : v < 1)
		goto bad;
	*out = v;
	return NULL;
bad:
	return bits ? "must be bits/s 8000..400000000000, with k, M or G (x1000) allowed (e.g. 100M)"
		    : "must be frames/s 1..100000000";
}
