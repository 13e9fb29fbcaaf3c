// SPDX-License-Identifier: MIT
/*
 * switch_police.c - the switch's ingress policer (see switch_police.h):
 * a port's two buckets, each one theoretical arrival time (GCRA) that
 * its pairs move on by compare-and-swap when they take a chunk of tokens,
 * and each pair's unspent tokens.
 *
 * Overflow: times count from the init (epoch_ns), so a clock near the end
 * of uint64 does not wrap; a bucket holds at most 2^62 units x 1e9
 * (police_cap()), a chunk at most a bucket plus one frame, so a pair's
 * tokens stay below 2^63.
 */
#include <errno.h>
#include <stdatomic.h>
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
 * switch_police_init() - Set a port's buckets from its policer's keys
 * @port:	The port's buckets (output; they start full)
 * @cfg:	The port's limits (checked: switch_police_rate_parse() and
 *		the burst range)
 * @npairs:	The port's pairs: a chunk is a quarter of the bucket shared
 *		between them
 * @now_ns:	Time now
 *
 * Context: before any pair polices (the port's workers do not run)
 */
void switch_police_init(struct sw_police_port *port,
			const struct sw_police_cfg *cfg, unsigned int npairs,
			uint64_t now_ns)
{
	unsigned int ms = cfg->burst_ms ? cfg->burst_ms : SW_POLICE_BURST_DEF;
	uint64_t cap;

	if (!npairs)
		npairs = 1;
	port->pps = cfg->pps;
	port->bps = cfg->bps;
	port->span_f = port->span_b = port->chunk_f = port->chunk_b = 0;
	/* at least one frame fits, whatever the rate and burst */
	if (port->pps) {
		cap = police_cap(port->pps, ms, 1);
		port->span_f = cap / port->pps;
		port->chunk_f = cap / (4ULL * npairs);
	}
	if (port->bps) {
		cap = police_cap(port->bps, ms, MAX_FRAME_BITS);
		port->span_b = cap / port->bps;
		port->chunk_b = cap / (4ULL * npairs);
	}
	port->epoch_ns = now_ns;
	atomic_store_explicit(&port->tat_f, 0, memory_order_relaxed);
	atomic_store_explicit(&port->tat_b, 0, memory_order_relaxed);
}

/**
 * switch_police_pair() - Give a sending pair its view of the port's buckets
 * @p:		The pair's view (output; holds no tokens)
 * @port:	The port's buckets (switch_police_init())
 */
void switch_police_pair(struct sw_police *p, struct sw_police_port *port)
{
	p->port = port;
	p->lim_f = port->pps != 0;
	p->lim_b = port->bps != 0;
	p->on = p->lim_f || p->lim_b;
	p->tok_f = p->tok_b = 0;
}

/*
 * Take tokens from one shared bucket into *@tok, which holds less than
 * @cost: at least what the frame still needs, up to a chunk, as far as
 * the bucket has them at @now (ns since the epoch). A time before the
 * bucket's last move only finds less room: it adds nothing.
 * Return: true if *@tok now covers @cost
 */
static bool police_take(_Atomic uint64_t *tat, uint64_t rate, uint64_t span,
			uint64_t chunk, uint64_t *tok, uint64_t cost,
			uint64_t now)
{
	uint64_t need = (cost - *tok + rate - 1) / rate;	/* ns, rounded up */
	uint64_t want = MAX(chunk / rate, need);
	uint64_t old = atomic_load_explicit(tat, memory_order_relaxed);
	uint64_t base, room, take;

	do {
		base = MAX(old, now);
		if (base - now >= span)
			return false;
		room = span - (base - now);
		if (room < need)
			return false;
		take = MIN(want, room);
	} while (!atomic_compare_exchange_weak_explicit(tat, &old, base + take,
							memory_order_relaxed,
							memory_order_relaxed));
	*tok += take * rate;
	return true;
}

/**
 * switch_police_pass() - May this frame pass? Takes its tokens if so
 * @p:		The pair's view (switch_police_on())
 * @bytes:	The frame's Ethernet bytes
 * @now_ns:	Time now (the same clock as init)
 *
 * A frame is paid from the pair's own tokens; only when they run short
 * does it take a chunk from the port's bucket (one compare-and-swap).
 *
 * Context: the pair's worker, per frame
 * Return: true: pass; false: drop (no tokens spent)
 */
bool switch_police_pass(struct sw_police *p, uint32_t bytes, uint64_t now_ns)
{
	struct sw_police_port *port = p->port;
	uint64_t cost_b = (uint64_t)bytes * 8 * NS, now;

	if ((p->lim_f && p->tok_f < NS) || (p->lim_b && p->tok_b < cost_b)) {
		now = now_ns > port->epoch_ns ? now_ns - port->epoch_ns : 0;
		if (p->lim_f && p->tok_f < NS &&
		    !police_take(&port->tat_f, port->pps, port->span_f,
				 port->chunk_f, &p->tok_f, NS, now))
			return false;
		if (p->lim_b && p->tok_b < cost_b &&
		    !police_take(&port->tat_b, port->bps, port->span_b,
				 port->chunk_b, &p->tok_b, cost_b, now))
			return false;
	}
	if (p->lim_f)
		p->tok_f -= NS;
	if (p->lim_b)
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
