// SPDX-License-Identifier: MIT
/*
 * test_switch_police.c - the switch's ingress policer with an injected
 * clock: a frame rate and a bit rate are each held over simulated
 * seconds, a full bucket lets its burst through at once, both limits
 * together hold the tighter one, a long idle time refills to the burst
 * and no further (no overflow, even at the largest rates and times),
 * the port's buckets are shared by its pairs (one pair alone gets the
 * whole rate, several together share it and one burst), the rate parser's ranges and
 * suffixes, no allocation per frame, and through the switch: a policed
 * member's frames over its rate are dropped before they are switched
 * (counted as drop_police), with the clock read once per burst.
 */
#include <errno.h>
#include <string.h>

#include "testlib.h"
#include "switch.h"
#include "switch_police.h"
#include "switch_testutil.h"
#ifndef VNET_SANITIZED
#include "alloc_count.h"
#endif

#define NS	1000000000ULL
#define T0	(5 * NS)

static struct sw_police_port port;

/* Set the port's buckets from @cfg and give @p (its only pair) its view */
static void police_one(struct sw_police *p, const struct sw_police_cfg *cfg,
		       uint64_t t)
{
	switch_police_init(&port, cfg, 1, t);
	switch_police_pair(p, &port);
}

/*
 * Offer @n frames of @bytes evenly over @secs seconds from *@t (advanced);
 * Return: frames passed
 */
static uint64_t offer(struct sw_police *p, uint64_t n, uint32_t bytes,
		      double secs, uint64_t *t)
{
	uint64_t i, passed = 0, step = (uint64_t)(secs * NS) / n;

	for (i = 0; i < n; i++) {
		*t += step;
		passed += switch_police_pass(p, bytes, *t);
	}
	return passed;
}

static void test_pps_held(void)
{
	struct sw_police_cfg cfg = { .pps = 20000 };
	struct sw_police p;
	uint64_t t = T0, got;

	police_one(&p, &cfg, t);
	CHECK(switch_police_on(&p));
	/* drain the initial burst (100 ms: 2000 frames), then 2 s at 50k */
	got = offer(&p, 2000, 64, 0.000001, &t);
	CHECK_EQ(got, 2000);
	got = offer(&p, 100000, 64, 2.0, &t);
	CHECK(got >= 39900 && got <= 40100);	/* 20k/s +- 0.25 % */
}

static void test_bps_held(void)
{
	struct sw_police_cfg cfg = { .bps = 10000000 };	/* 10 Mbit/s */
	struct sw_police p;
	uint64_t t = T0, got;

	police_one(&p, &cfg, t);
	offer(&p, 100000, 1000, 0.001, &t);	/* empty the bucket */
	/* 1000-byte frames: 1250/s pass; offer 10k/s for 4 s */
	got = offer(&p, 40000, 1000, 4.0, &t);
	CHECK(got >= 4980 && got <= 5020);
	/* small frames pass more often: the limit is in bits */
	got = offer(&p, 100000, 100, 4.0, &t);
	CHECK(got >= 49800 && got <= 50200);
}

static void test_burst(void)
{
	struct sw_police_cfg cfg = { .pps = 1000, .burst_ms = 500 };
	struct sw_police p;
	uint64_t t = T0;
	unsigned int i, passed = 0;

	police_one(&p, &cfg, t);
	/* all at one instant: exactly the burst (500 ms of 1000/s) */
	for (i = 0; i < 2000; i++)
		passed += switch_police_pass(&p, 64, t);
	CHECK_EQ(passed, 500);
	/* 1 ms later: one more token */
	t += NS / 1000;
	CHECK(switch_police_pass(&p, 64, t));
	CHECK(!switch_police_pass(&p, 64, t));
	/* the default burst is 100 ms of the rate */
	cfg.burst_ms = 0;
	police_one(&p, &cfg, t);
	for (i = 0, passed = 0; i < 2000; i++)
		passed += switch_police_pass(&p, 64, t);
	CHECK_EQ(passed, SW_POLICE_BURST_DEF);
	/* a tiny bit rate still lets one maximal frame through */
	cfg = (struct sw_police_cfg){ .bps = SW_POLICE_BPS_MIN, .burst_ms = 10 };
	police_one(&p, &cfg, t);
	CHECK(switch_police_pass(&p, 9018, t));
	CHECK(!switch_police_pass(&p, 60, t));
}

static void test_both_limits(void)
{
	/* 10k frames/s and 8 Mbit/s: 1000-byte frames are held by the bits
	 * (1000/s), 64-byte ones by the frames (10k/s) */
	struct sw_police_cfg cfg = { .pps = 10000, .bps = 8000000 };
	struct sw_police p;
	uint64_t t = T0, got;

	police_one(&p, &cfg, t);
	offer(&p, 100000, 1000, 0.001, &t);
	got = offer(&p, 20000, 1000, 2.0, &t);
	CHECK(got >= 1990 && got <= 2010);
	offer(&p, 100000, 64, 0.5, &t);	/* the frame bucket empties */
	got = offer(&p, 100000, 64, 2.0, &t);
	CHECK(got >= 19900 && got <= 20100);
}

static void test_idle_refill_no_overflow(void)
{
	struct sw_police_cfg cfg = { .pps = SW_POLICE_PPS_MAX,
				     .bps = SW_POLICE_BPS_MAX,
				     .burst_ms = SW_POLICE_BURST_MAX };
	struct sw_police_cfg slow = { .pps = 10, .burst_ms = 1000 };
	struct sw_police p;
	uint64_t t = T0;
	unsigned int i, passed = 0;

	/* the largest rates and burst: a year idle fills, never wraps */
	police_one(&p, &cfg, t);
	CHECK(switch_police_pass(&p, 9018, t));
	t += 365ULL * 86400 * NS;
	CHECK(switch_police_pass(&p, 9018, t));
	CHECK(p.tok_f <= port.span_f * port.pps + NS);
	CHECK(p.tok_b <= port.span_b * port.bps + 9018ULL * 8 * NS);
	CHECK(port.span_b * port.bps <= (1ULL << 62));
	/* a slow rate after an hour idle: exactly its burst, then the rate */
	police_one(&p, &slow, t);
	for (i = 0; i < 100; i++)
		passed += switch_police_pass(&p, 64, t);
	CHECK_EQ(passed, 10);
	t += 3600 * NS;
	for (i = 0, passed = 0; i < 100; i++)
		passed += switch_police_pass(&p, 64, t);
	CHECK_EQ(passed, 10);
	/* a clock that goes back adds nothing and breaks nothing */
	CHECK(!switch_police_pass(&p, 64, t - NS));
	t += NS / 10;
	CHECK(switch_police_pass(&p, 64, t));
	/* uint64 time near its end: no wrap in the difference */
	police_one(&p, &slow, UINT64_MAX - NS);
	CHECK(switch_police_pass(&p, 64, UINT64_MAX));
}

static void test_pairs_share(void)
{
	struct sw_police_cfg cfg = { .pps = 30000 };
	struct sw_police p[3];
	uint64_t t = T0, got = 0, step = NS / 100000;
	unsigned int i, k;

	switch_police_init(&port, &cfg, 3, t);
	for (i = 0; i < 3; i++)
		switch_police_pair(&p[i], &port);
	/* all three at one instant: the port's one burst (100 ms of 30k/s,
	 * less what chunks lose to rounding), not one per pair */
	for (k = 0; k < 10000; k++)
		got += switch_police_pass(&p[k % 3], 64, t);
	CHECK(got >= 2990 && got <= 3000);
	/* one pair alone gets the port's whole rate: 100k/s offered, 2 s */
	got = offer(&p[1], 200000, 64, 2.0, &t);
	CHECK(got >= 59700 && got <= 60300);
	/* the three at once share it: frames offered in turn, 2 s */
	for (k = 0, got = 0; k < 200000; k++) {
		t += step;
		got += switch_police_pass(&p[k % 3], 64, t);
	}
	CHECK(got >= 59700 && got <= 60300);
	/* ... each getting a part: none is starved by the others' chunks */
	for (i = 0; i < 3; i++) {
		uint64_t mine = 0;

		for (k = 0; k < 30000; k++) {
			t += step;
			mine += switch_police_pass(&p[k % 3], 64, t) && k % 3 == i;
		}
		CHECK(mine > 1000);
	}
	cfg.pps = 0;
	switch_police_init(&port, &cfg, 3, t);
	switch_police_pair(&p[0], &port);
	CHECK(!switch_police_on(&p[0]));
}

static void test_rate_parse(void)
{
	uint64_t v = 0;

	CHECK(!switch_police_rate_parse("20000", false, &v));
	CHECK_EQ(v, 20000);
	CHECK(!switch_police_rate_parse("100000000", false, &v));
	CHECK(switch_police_rate_parse("100000001", false, &v));
	CHECK(switch_police_rate_parse("0", false, &v));
	CHECK(switch_police_rate_parse("10k", false, &v));
	CHECK(switch_police_rate_parse("-1", false, &v));
	CHECK(switch_police_rate_parse("", false, &v));
	CHECK(!switch_police_rate_parse("100M", true, &v));
	CHECK_EQ(v, 100000000);
	CHECK(!switch_police_rate_parse("8k", true, &v));
	CHECK_EQ(v, 8000);
	CHECK(!switch_police_rate_parse("400G", true, &v));
	CHECK_EQ(v, SW_POLICE_BPS_MAX);
	CHECK(switch_police_rate_parse("401G", true, &v));
	CHECK(switch_police_rate_parse("7999", true, &v));
	CHECK(switch_police_rate_parse("10m", true, &v));
	CHECK(switch_police_rate_parse("10MM", true, &v));
	CHECK(switch_police_rate_parse("99999999999999999999", true, &v));
	CHECK(strstr(switch_police_rate_parse("x", true, &v), "8000..400000000000"));
	CHECK(strstr(switch_police_rate_parse("x", false, &v), "1..100000000"));
}

static uint64_t fake_ns = T0;
static unsigned int fake_reads;

static uint64_t fake_clock(void)
{
	fake_reads++;
	return fake_ns;
}

static void test_switch_polices(void)
{
	struct sw_police_cfg cfg = { .pps = 1000 };	/* burst: 100 frames */
	struct vswitch *sw = switch_new("s0");
	struct sw_member *a, *b;
	unsigned int reads;

	CHECK(sw);
	sw->clock_ns = fake_clock;
	a = test_sw_join(sw, 1);
	b = test_sw_join(sw, 1);
	CHECK(a && b);
	switch_set_police(a, &cfg);
	/* an unpoliced member is not held */
	CHECK_EQ(test_sw_send_bcast(b, 200), 200);
	CHECK_EQ(test_sw_rx_count(a, NULL, 0), 200);
	/* 256 frames at one instant: the burst passes, the rest is dropped */
	reads = fake_reads;
	CHECK_EQ(test_sw_send_bcast(a, 256), 100);
	CHECK_EQ(fake_reads - reads, 8);	/* once per burst of 32 */
	CHECK_EQ(a->st.drop_police, 156);
	CHECK_EQ(test_sw_rx_count(b, NULL, 0), 100);
	/* 50 ms later: 50 more */
	fake_ns += NS / 20;
	CHECK_EQ(test_sw_send_bcast(a, 200), 50);
	CHECK_EQ(test_sw_rx_count(b, NULL, 0), 50);
	CHECK_EQ(a->st.drop_police, 306);
	CHECK_EQ(b->st.drop_police, 0);
	switch_free(sw);
}

/* A frame that waits on a full queue (-EAGAIN) is policed once, not at
 * each try */
static void test_wait_policed_once(void)
{
	struct sw_police_cfg cfg = { .pps = 1000, .burst_ms = 257 };
	struct vswitch *sw = switch_new("s0");
	uint8_t f[12 + 60] = { 0 }, mb[6] = { 0x02, 0, 0, 0, 0, 0x0b };
	struct iovec iov = { f, sizeof(f) };
	struct sw_member *a, *b;
	unsigned int i, ok = 0;
	uint8_t buf[128];
	struct iovec riov = { buf, sizeof(buf) };

	CHECK(sw);
	sw->clock_ns = fake_clock;
	a = test_sw_join(sw, 1);
	b = test_sw_join(sw, 1);
	CHECK(a && b);
	switch_set_police(a, &cfg);		/* 257 frames of burst */
	switch_learn_port(b, mb, 1000);
	memcpy(f + 12, mb, 6);
	f[18] = 0x02;
	f[23] = 0x01;
	for (i = 0; i < SW_QUEUE_SLOTS; i++)
		ok += switch_tx(a, 0, &iov, 1, 12, 1000) > 0;
	CHECK_EQ(ok, SW_QUEUE_SLOTS);
	for (i = 0; i < 5; i++)		/* the 257th: policed once, waits */
		CHECK_EQ(switch_tx(a, 0, &iov, 1, 12, 1000), -EAGAIN);
	CHECK_EQ(a->st.drop_police, 0);
	CHECK(switch_rx(b, 0, &riov, 1, 12) > 0);
	CHECK(switch_tx(a, 0, &iov, 1, 12, 1000) > 0);
	CHECK_EQ(switch_tx(a, 0, &iov, 1, 12, 1000), -EDQUOT);	/* burst spent */
	CHECK_EQ(a->st.drop_police, 1);
	switch_flush(a, 0);
	switch_free(sw);
}

#ifndef VNET_SANITIZED
static void test_no_alloc(void)
{
	struct sw_police_cfg cfg = { .pps = 1000, .bps = 1000000 };
	struct sw_police p;
	uint64_t t = T0;
	unsigned long n;

	alloc_count_start();
	switch_police_init(&port, &cfg, 2, t);
	switch_police_pair(&p, &port);
	offer(&p, 100000, 500, 1.0, &t);
	n = alloc_count_stop();
	CHECK_EQ(n, 0);
}
#else
static void test_no_alloc(void)
{
	SKIP("sanitizer build: ASan owns the allocator, run the release build");
}
#endif

int main(void)
{
	RUN(test_pps_held);
	RUN(test_bps_held);
	RUN(test_burst);
	RUN(test_both_limits);
	RUN(test_idle_refill_no_overflow);
	RUN(test_pairs_share);
	RUN(test_rate_parse);
	RUN(test_switch_polices);
	RUN(test_wait_policed_once);
	RUN(test_no_alloc);
	return test_exit();
}
