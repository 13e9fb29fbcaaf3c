// SPDX-License-Identifier: MIT
/*
 * report.c - vnet-bench's output: a human table (per-queue rows, a total,
 * latency percentiles for ping-pong, the sequence check verdict) or one
 * JSON object (--json). Rates are frames and frame bytes over the measured
 * window; Gbit/s counts Ethernet frame bytes without FCS or vnet header.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/**
 * struct bench_sum - Totals over queues
 */
struct bench_sum {
	uint64_t tx, txb, rx, rxb, lost, dup, foreign, bad, kicks;
};

static const char *const mode_names[] = {
	[BENCH_TX] = "tx-only", [BENCH_RX] = "rx-only",
	[BENCH_BIDIR] = "bidirectional", [BENCH_PINGPONG] = "ping-pong",
};

/**
 * bench_mode_name() - Name of a mode, as --mode takes it
 * @m:	Mode
 *
 * Return: static string
 */
const char *bench_mode_name(enum bench_mode m)
{
	return mode_names[m];
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static double pct(const uint32_t *v, uint32_t n, double p)
{
	uint32_t i;

	if (!n)
		return 0;
	i = (uint32_t)(p * (n - 1) + 0.5);
	return v[i] / 1000.0;
}

/* Latency percentiles of one queue */
static void bench_lat(struct bench_q *q)
{
	qsort(q->lat, q->nlat, sizeof(*q->lat), cmp_u32);
	q->p50_us = pct(q->lat, q->nlat, 0.50);
	q->p99_us = pct(q->lat, q->nlat, 0.99);
	q->p999_us = pct(q->lat, q->nlat, 0.999);
}

/* Kicks (eventfd writes) the library made on both rings of @q's pair */
static uint64_t bench_kicks(const struct bench_q *q)
{
	const struct vu_frontend_stats *rx, *tx;

	rx = vu_frontend_stats(&q->vm->fe, 2 * q->pair);
	tx = vu_frontend_stats(&q->vm->fe, 2 * q->pair + 1);
	return (rx ? rx->kicks : 0) + (tx ? tx->kicks : 0);
}

static void bench_add(struct bench_sum *s, const struct bench_q *q)
{
	s->tx += q->tx_frames;
	s->txb += q->tx_bytes;
	s->rx += q->rx_frames;
	s->rxb += q->rx_bytes;
	s->lost += q->lost;
	s->dup += q->dup;
	s->foreign += q->foreign;
	s->bad += q->bad;
	s->kicks += bench_kicks(q);
}

/* Frames sent but never seen again, for modes where all must return */
static uint64_t bench_missing(const struct bench_cfg *c, const struct bench_q *q)
{
	uint64_t seen = q->expect_seq;

	if (!c->check_seq || c->mode == BENCH_RX)
		return 0;
	return q->next_seq > seen ? q->next_seq - seen : 0;
}

static void bench_json_q(const struct bench_cfg *c, const struct bench_q *q,
			 double secs, bool last)
{
	printf("    {\"vm\": %u, \"pair\": %u, \"tx_frames\": %llu, \"rx_frames\": %llu, "
	       "\"tx_mpps\": %.4f, \"rx_mpps\": %.4f, \"tx_gbps\": %.4f, \"rx_gbps\": %.4f, "
	       "\"lost\": %llu, \"missing\": %llu, \"dup_or_reordered\": %llu, "
	       "\"foreign\": %llu, \"wrong_queue\": %llu, \"kicks\": %llu",
	       q->vm->id, q->pair, (unsigned long long)q->tx_frames,
	       (unsigned long long)q->rx_frames, q->tx_frames / secs / 1e6,
	       q->rx_frames / secs / 1e6, q->tx_bytes * 8 / secs / 1e9,
	       q->rx_bytes * 8 / secs / 1e9, (unsigned long long)q->lost,
	       (unsigned long long)bench_missing(c, q),
	       (unsigned long long)q->dup, (unsigned long long)q->foreign,
	       (unsigned long long)q->bad,
	       (unsigned long long)bench_kicks(q));
	if (c->mode == BENCH_PINGPONG)
		printf(", \"lat_samples\": %u, \"p50_us\": %.2f, \"p99_us\": %.2f, \"p999_us\": %.2f",
		       q->nlat, q->p50_us, q->p99_us, q->p999_us);
	printf("}%s\n", last ? "" : ",");
}

/*
 * Per VM (all its pairs): frames/s in the mode's direction (TX for tx-only,
 * else RX), and the fairness line: the slowest VM over the mean
 */
static void bench_json_vms(const struct bench_cfg *c, struct bench_vm *vms,
			   unsigned int nvms, double secs)
{
	double r, sum = 0, lo = 0, hi = 0;
	unsigned int v, i;

	printf("  \"per_vm\": [");
	for (v = 0; v < nvms; v++) {
		uint64_t f = 0;

		for (i = 0; i < c->pairs; i++)
			f += c->mode == BENCH_TX ? vms[v].q[i].tx_frames :
						   vms[v].q[i].rx_frames;
		r = f / secs / 1e6;
		printf("%s{\"vm\": %u, \"mpps\": %.4f}", v ? ", " : "", v, r);
		sum += r;
		lo = v ? (r < lo ? r : lo) : r;
		hi = v ? (r > hi ? r : hi) : r;
	}
	printf("],\n  \"fairness\": {\"vm_min_mpps\": %.4f, \"vm_mean_mpps\": %.4f, "
	       "\"vm_max_mpps\": %.4f, \"min_over_mean\": %.4f},\n",
	       lo, sum / nvms, hi, sum > 0 ? lo / (sum / nvms) : 0.0);
}

static void bench_print_json(const struct bench_cfg *c, struct bench_vm *vms,
			     unsigned int nvms, double secs,
			     const struct bench_sum *s, uint64_t missing, bool ok)
{
	unsigned int v, i;

	printf("{\n  \"mode\": \"%s\", \"frame_bytes\": %u, \"vms\": %u, \"pairs\": %u, "
	       "\"ring\": \"%s\", \"ring_size\": %u, \"wait\": \"%s\", \"duration_s\": %.3f,\n"
	       "  \"features\": \"0x%llx\", \"protocol_features\": \"0x%llx\", "
	       "\"mac\": \"%02x:%02x:%02x:%02x:%02x:%02x\", "
	       "\"sequence_check\": %s, \"ok\": %s,\n"
	       "  \"total\": {\"tx_frames\": %llu, \"rx_frames\": %llu, \"tx_mpps\": %.4f, "
	       "\"rx_mpps\": %.4f, \"tx_gbps\": %.4f, \"rx_gbps\": %.4f, \"lost\": %llu, "
	       "\"missing\": %llu, \"dup_or_reordered\": %llu, \"foreign\": %llu, "
	       "\"wrong_queue\": %llu, \"kicks\": %llu},\n",
	       bench_mode_name(c->mode), c->size, nvms, c->pairs,
	       c->packed ? "packed" : "split", c->ring, c->poll ? "poll" : "eventfd",
	       secs, (unsigned long long)vms[0].fe.features,
	       (unsigned long long)vms[0].fe.protocol_features,
	       vms[0].fe.mac[0], vms[0].fe.mac[1], vms[0].fe.mac[2],
	       vms[0].fe.mac[3], vms[0].fe.mac[4], vms[0].fe.mac[5],
	       c->check_seq ? "true" : "false", ok ? "true" : "false",
	       (unsigned long long)s->tx, (unsigned long long)s->rx,
	       s->tx / secs / 1e6, s->rx / secs / 1e6, s->txb * 8 / secs / 1e9,
	       s->rxb * 8 / secs / 1e9, (unsigned long long)s->lost,
	       (unsigned long long)missing, (unsigned long long)s->dup,
	       (unsigned long long)s->foreign, (unsigned long long)s->bad,
	       (unsigned long long)s->kicks);
	bench_json_vms(c, vms, nvms, secs);
	printf("  \"queues\": [\n");
	for (v = 0; v < nvms; v++)
		for (i = 0; i < c->pairs; i++)
			bench_json_q(c, &vms[v].q[i], secs,
				     v == nvms - 1 && i == c->pairs - 1);
	printf("  ]\n}\n");
}

static void bench_row(const char *who, uint64_t tx, uint64_t txb, uint64_t rx,
		      uint64_t rxb, uint64_t lost, uint64_t dup, double secs)
{
	printf("%-10s %10.3f %10.3f %10.3f %10.3f %9llu %9llu\n", who,
	       tx / secs / 1e6, txb * 8 / secs / 1e9, rx / secs / 1e6,
	       rxb * 8 / secs / 1e9, (unsigned long long)lost,
	       (unsigned long long)dup);
}

static void bench_print_table(const struct bench_cfg *c, struct bench_vm *vms,
			      unsigned int nvms, double secs,
			      const struct bench_sum *s, uint64_t missing)
{
	unsigned int v, i;
	char who[32];

	printf("vnet-bench: %s, %u B frames, %u VM x %u pair%s, %s ring %u, %s, %.1f s\n",
	       bench_mode_name(c->mode), c->size, nvms, c->pairs,
	       c->pairs > 1 ? "s" : "", c->packed ? "packed" : "split", c->ring,
	       c->poll ? "busy poll" : "eventfd wait", secs);
	printf("%-10s %10s %10s %10s %10s %9s %9s\n", "queue", "tx Mpps",
	       "tx Gbit/s", "rx Mpps", "rx Gbit/s", "lost", "dup/reord");
	for (v = 0; v < nvms; v++)
		for (i = 0; i < c->pairs; i++) {
			const struct bench_q *q = &vms[v].q[i];

			snprintf(who, sizeof(who), "vm%u/q%u", v, i);
			bench_row(who, q->tx_frames, q->tx_bytes, q->rx_frames,
				  q->rx_bytes, q->lost + bench_missing(c, q),
				  q->dup, secs);
		}
	bench_row("total", s->tx, s->txb, s->rx, s->rxb, s->lost + missing,
		  s->dup, secs);
	if (c->mode == BENCH_PINGPONG)
		for (v = 0; v < nvms; v++)
			for (i = 0; i < c->pairs; i++) {
				const struct bench_q *q = &vms[v].q[i];

				printf("latency vm%u/q%u: %u round trips, p50 %.2f us, p99 %.2f us, p999 %.2f us\n",
				       v, i, q->nlat, q->p50_us, q->p99_us,
				       q->p999_us);
			}
	printf("kicks: %llu (%.2f per 1000 frames sent)\n",
	       (unsigned long long)s->kicks,
	       s->tx ? s->kicks * 1000.0 / s->tx : 0.0);
	if (s->foreign || s->bad)
		printf("frames not ours: %llu, ours on the wrong queue: %llu\n",
		       (unsigned long long)s->foreign,
		       (unsigned long long)s->bad);
}

/**
 * bench_report() - Print the results; decide pass/fail of the checks
 * @cfg:	Options
 * @vms:	VMs after the run
 * @nvms:	How many
 * @secs:	Measured window in seconds
 *
 * Return: 0 if every check passed, 1 otherwise (nothing received, or with
 *	   the sequence check: a frame lost, duplicated, reordered or on the
 *	   wrong queue)
 */
int bench_report(const struct bench_cfg *cfg, struct bench_vm *vms,
		 unsigned int nvms, double secs)
{
	struct bench_sum s = { 0 };
	uint64_t missing = 0;
	unsigned int v, i;
	bool ok;

	for (v = 0; v < nvms; v++)
		for (i = 0; i < cfg->pairs; i++) {
			struct bench_q *q = &vms[v].q[i];

			if (cfg->mode == BENCH_PINGPONG)
				bench_lat(q);
			bench_add(&s, q);
			missing += bench_missing(cfg, q);
		}
	ok = cfg->mode == BENCH_TX ? s.tx > 0 : s.rx > 0;
	if (cfg->check_seq)
		ok = ok && !s.lost && !s.dup && !s.bad && !missing;
	if (cfg->json)
		bench_print_json(cfg, vms, nvms, secs, &s, missing, ok);
	else
		bench_print_table(cfg, vms, nvms, secs, &s, missing);
	if (!cfg->json && cfg->check_seq)
		printf("sequence check: %s (%llu frames back, %llu lost, %llu missing, %llu dup/reordered, %llu on a wrong queue)\n",
		       ok ? "OK" : "FAILED", (unsigned long long)s.rx,
		       (unsigned long long)s.lost, (unsigned long long)missing,
		       (unsigned long long)s.dup, (unsigned long long)s.bad);
	else if (!cfg->json && !ok)
		printf("FAILED: no frames %s\n",
		       cfg->mode == BENCH_TX ? "sent" : "received");
	return ok ? 0 : 1;
}
