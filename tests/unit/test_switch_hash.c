// SPDX-License-Identifier: MIT
/*
 * test_switch_hash.c - the switch's receiving-pair choice: one flow
 * always hashes the same (whatever its payload), its ports and addresses
 * change the hash, fragments keep their addresses' hash, a tag or the
 * VLAN is part of it, cut-short and non-IP frames hash stably; through
 * the switch, 1000 flows spread over a 4-pair receiver's pairs (each
 * within 20 % of a quarter), every frame of a flow reaches one pair in
 * order, non-IP frames of one MAC pair reach one pair, and the sender's
 * flush wakes exactly the receiving pairs it queued to.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>

#include "testlib.h"
#include "switch.h"
#include "switch_hash.h"

#define HDR	12

static const uint8_t MA[6] = { 0x02, 0, 0, 0, 0, 0x0a };
static const uint8_t MB[6] = { 0x02, 0, 0, 0, 0, 0x0b };

/* IPv4/UDP (or @proto) frame src:@sport -> dst:@dport, @pay payload byte;
 * Return: bytes (no vnet header) */
static size_t ip4(uint8_t *f, uint32_t src, uint32_t dst, uint16_t sport,
		  uint16_t dport, uint8_t proto, uint8_t pay)
{
	memset(f, pay, 64);
	memcpy(f, MB, 6);
	memcpy(f + 6, MA, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	memset(f + 14, 0, 20);
	f[14] = 0x45;
	f[23] = proto;
	memcpy(f + 26, &src, 4);
	memcpy(f + 30, &dst, 4);
	f[34] = (uint8_t)(sport >> 8);
	f[35] = (uint8_t)sport;
	f[36] = (uint8_t)(dport >> 8);
	f[37] = (uint8_t)dport;
	return 64;
}

static size_t ip6(uint8_t *f, uint8_t lo, uint16_t sport, uint8_t pay)
{
	memset(f, pay, 80);
	memcpy(f, MB, 6);
	memcpy(f + 6, MA, 6);
	f[12] = 0x86;
	f[13] = 0xdd;
	memset(f + 14, 0, 40);
	f[14] = 0x60;
	f[20] = 6;		/* TCP */
	f[22] = 0xfd;		/* fd00::lo -> fd00::1 */
	f[37] = lo;
	f[38] = 0xfd;
	f[53] = 1;
	f[54] = (uint8_t)(sport >> 8);
	f[55] = (uint8_t)sport;
	f[56] = 0;
	f[57] = 80;
	return 80;
}

static void test_hash_fields(void)
{
	uint8_t f[96], g[96], t[100];
	uint32_t h;

	ip4(f, 0x0100000a, 0x0200000a, 1000, 80, 17, 0x11);
	h = switch_flow_hash(f, 64, 1);
	/* the payload is not the flow */
	ip4(g, 0x0100000a, 0x0200000a, 1000, 80, 17, 0x77);
	CHECK_EQ(switch_flow_hash(g, 64, 1), h);
	/* ports, addresses, protocol and VLAN are */
	ip4(g, 0x0100000a, 0x0200000a, 1001, 80, 17, 0x11);
	CHECK(switch_flow_hash(g, 64, 1) != h);
	ip4(g, 0x0300000a, 0x0200000a, 1000, 80, 17, 0x11);
	CHECK(switch_flow_hash(g, 64, 1) != h);
	ip4(g, 0x0100000a, 0x0200000a, 1000, 80, 6, 0x11);
	CHECK(switch_flow_hash(g, 64, 1) != h);
	CHECK(switch_flow_hash(f, 64, 2) != h);
	/* an ICMP frame: no ports, so the "port" bytes do not count */
	ip4(f, 0x0100000a, 0x0200000a, 1, 2, 1, 0);
	ip4(g, 0x0100000a, 0x0200000a, 3, 4, 1, 0);
	CHECK_EQ(switch_flow_hash(f, 64, 1), switch_flow_hash(g, 64, 1));
	/* fragments (MF, or an offset): the addresses only, so a flow's
	 * fragments stay together */
	ip4(f, 0x0100000a, 0x0200000a, 1000, 80, 17, 0);
	ip4(g, 0x0100000a, 0x0200000a, 7, 9, 17, 0);
	f[20] = 0x20;		/* MF */
	g[21] = 0x10;		/* offset */
	CHECK_EQ(switch_flow_hash(f, 64, 1), switch_flow_hash(g, 64, 1));
	/* an 802.1Q tag is skipped: the same flow, the same hash */
	ip4(f, 0x0100000a, 0x0200000a, 1000, 80, 17, 0);
	memcpy(t, f, 12);
	t[12] = 0x81;
	t[13] = 0x00;
	t[14] = 0;
	t[15] = 10;
	memcpy(t + 16, f + 12, 52);
	CHECK_EQ(switch_flow_hash(t, 68, 10), switch_flow_hash(f, 64, 10));
	/* IPv6: ports count */
	ip6(f, 2, 1000, 0);
	ip6(g, 2, 1000, 0x55);
	CHECK_EQ(switch_flow_hash(f, 80, 1), switch_flow_hash(g, 80, 1));
	ip6(g, 2, 1001, 0);
	CHECK(switch_flow_hash(f, 80, 1) != switch_flow_hash(g, 80, 1));
	ip6(g, 3, 1000, 0);
	CHECK(switch_flow_hash(f, 80, 1) != switch_flow_hash(g, 80, 1));
	/* non-IP: the MACs and EtherType; stable, payload aside */
	memset(f, 0x11, 64);
	memcpy(f, MB, 6);
	memcpy(f + 6, MA, 6);
	f[12] = 0x88;
	f[13] = 0xb5;
	memcpy(g, f, 64);
	g[20] = 0x99;
	CHECK_EQ(switch_flow_hash(f, 64, 1), switch_flow_hash(g, 64, 1));
	g[11] = 0x0c;
	CHECK(switch_flow_hash(f, 64, 1) != switch_flow_hash(g, 64, 1));
	/* cut short: an IPv4 header that does not fit hashes as non-IP, and
	 * a runt still hashes (the callers checked 14 bytes) */
	ip4(f, 0x0100000a, 0x0200000a, 1000, 80, 17, 0);
	ip4(g, 0x0100000a, 0x0200000a, 1001, 80, 17, 0);
	CHECK_EQ(switch_flow_hash(f, 30, 1), switch_flow_hash(g, 30, 1));
	CHECK_EQ(switch_flow_hash(f, 5, 1), switch_flow_hash(g, 5, 1));
	/* the pick is in range */
	CHECK_EQ(switch_hash_pick(0, 4), 0);
	CHECK_EQ(switch_hash_pick(UINT32_MAX, 4), 3);
	CHECK_EQ(switch_hash_pick(UINT32_MAX, 1), 0);
}

static struct sw_member *join(struct vswitch *sw, unsigned int npairs)
{
	struct sw_vlans v;
	int err;

	memset(&v, 0, sizeof(v));
	v.access = 1;
	return switch_join(sw, npairs, &v, &err);
}

/* Send @len bytes of @f from @m's pair 0 (a vnet header before it) */
static int send_frame(struct sw_member *m, const uint8_t *f, size_t len)
{
	uint8_t buf[128] = { 0 };
	struct iovec iov = { buf, HDR + len };

	memcpy(buf + HDR, f, len);
	return switch_tx(m, 0, &iov, 1, HDR, 1000);
}

/* Take every frame of @m's pair @q; @ports[n] gets each one's UDP
 * source port in order. Return: frames */
static unsigned int drain(struct sw_member *m, unsigned int q,
			  uint16_t *ports, unsigned int max)
{
	uint8_t f[128];
	struct iovec iov = { f, sizeof(f) };
	unsigned int n = 0;

	while (switch_rx_peek_len(m, q, HDR) > 0 &&
	       switch_rx(m, q, &iov, 1, HDR) > 0) {
		if (ports && n < max)
			ports[n] = (uint16_t)(f[HDR + 34] << 8 | f[HDR + 35]);
		n++;
	}
	return n;
}

static void test_flows_spread(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_member *a, *b;
	uint16_t ports[4][300];
	unsigned int got[4], q, i, k, seen[1000];
	uint8_t f[96];

	CHECK(sw);
	a = join(sw, 1);
	b = join(sw, 4);
	CHECK(a && b);
	/* 1000 flows, 200 frames at a time (the queues hold 256) */
	memset(seen, 0xff, sizeof(seen));
	for (k = 0; k < 1000; k += 200) {
		for (i = k; i < k + 200; i++) {
			ip4(f, 0x0100000a, 0x0200000a, (uint16_t)(10000 + i), 5001, 17, 0);
			CHECK(send_frame(a, f, 64) > 0);
		}
		switch_flush(a, 0);
		for (q = 0; q < 4; q++) {
			got[q] = drain(b, q, ports[q], 300);
			for (i = 0; i < got[q] && i < 300; i++)
				seen[ports[q][i] - 10000] = q;
		}
	}
	for (q = 0; q < 4; q++)
		got[q] = 0;
	for (i = 0; i < 1000; i++) {
		CHECK(seen[i] < 4);
		got[seen[i]]++;
	}
	for (q = 0; q < 4; q++) {
		if (got[q] < 200 || got[q] > 300)
			fprintf(stderr, "  pair %u got %u of 1000 flows\n", q, got[q]);
		CHECK(got[q] >= 200 && got[q] <= 300);	/* 250 +- 20 % */
	}
	/* one flow: every frame on the pair it had, in order */
	for (i = 0; i < 100; i++) {
		ip4(f, 0x0100000a, 0x0200000a, 10007, 5001, 17, (uint8_t)i);
		f[40] = (uint8_t)i;
		CHECK(send_frame(a, f, 64) > 0);
	}
	switch_flush(a, 0);
	for (q = 0; q < 4; q++)
		CHECK_EQ(drain(b, q, NULL, 0), q == seen[7] ? 100 : 0);
	/* frames without IP: one MAC pair, one pair of B, every time */
	memset(f, 0, 64);
	memcpy(f, MB, 6);
	memcpy(f + 6, MA, 6);
	f[12] = 0x88;
	f[13] = 0xb5;
	for (i = 0; i < 50; i++) {
		f[20] = (uint8_t)i;
		CHECK(send_frame(a, f, 60) > 0);
	}
	switch_flush(a, 0);
	for (q = 0, k = 0; q < 4; q++) {
		unsigned int n = drain(b, q, NULL, 0);

		CHECK(n == 0 || n == 50);
		k += n;
	}
	CHECK_EQ(k, 50);
	switch_free(sw);
}

static void test_flush_wakes_queued_pairs(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_member *a, *b;
	struct pollfd pfd[4];
	unsigned int q, target;
	uint8_t f[96];
	int woken;

	CHECK(sw);
	a = join(sw, 1);
	b = join(sw, 4);
	CHECK(a && b);
	ip4(f, 0x0100000a, 0x0200000a, 4242, 5001, 17, 0);
	target = switch_hash_pick(switch_flow_hash(f, 64, 1), 4);
	for (q = 0; q < 4; q++)
		CHECK_EQ(switch_rx_peek_len(b, q, HDR), 0);	/* all may sleep */
	CHECK(send_frame(a, f, 64) > 0);
	CHECK(send_frame(a, f, 64) > 0);
	switch_flush(a, 0);
	for (q = 0; q < 4; q++) {
		pfd[q].fd = b->rxq[q].efd;
		pfd[q].events = POLLIN;
	}
	woken = poll(pfd, 4, 0);
	CHECK_EQ(woken, 1);
	CHECK(pfd[target].revents & POLLIN);
	CHECK_EQ(drain(b, target, NULL, 0), 2);
	switch_free(sw);
}

int main(void)
{
	RUN(test_hash_fields);
	RUN(test_flows_spread);
	RUN(test_flush_wakes_queued_pairs);
	return test_exit();
}
