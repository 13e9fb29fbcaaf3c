// SPDX-License-Identifier: MIT
/*
 * test_gro.c - software GRO (gro.c): the property "merge a run of wire
 * segments, then segment the merged frame with gso.c, and get the wire
 * segments back byte for byte" over IPv4 and IPv6, with and without a
 * VLAN tag and TCP timestamps, the merged frame's vnet header and its
 * completed checksum checked by a reference sum; then each refusal on its
 * own: a sequence gap, another flow, SYN/FIN/RST/URG/CWR/ECE, PSH ending
 * the run, changed options, IPv4 options, a fragment, a bad TCP checksum,
 * a bad IPv4 header checksum, a TTL or TOS change, an IPv4 id out of step,
 * a run reaching 64 KiB or the byte cap, a middle segment shorter than the
 * mss, a pure ACK, a family the guest did not ack; truncated or padded
 * frames in buffers of their exact size (the ASan build sees any read past
 * them); random one-byte changes never crash it and, when merged, still
 * give the frames back; and no allocation.
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gro.h"
#include "gso.h"
#include "tcpseg_testutil.h"
#include "testlib.h"
#include "util.h"
#include "vnet_hdr.h"

#ifndef VNET_SANITIZED
#include "alloc_count.h"
#endif

#define NFR		56
#define FR_ROOM		(TCPSEG_HDR_MAX + 1500)
#define MSS		1448
#define SEQ0		0xfffff000u	/* wraps within a run */
#define ID0		0xfffe		/* wraps within a run */
#define ALL		(GRO_IPV4 | GRO_IPV6)

static uint8_t fr[NFR][FR_ROOM];
static size_t flen[NFR];
static uint8_t merged[VNET_FRAME_MAX + 64];
static uint8_t seg[FR_ROOM];

static const struct tcpseg_flow flow4 = { .df = true, .ttl = 64 };
static const struct tcpseg_flow flow6 = { .v6 = true, .ttl = 64 };

/*
 * Build @n segments of flow @f: @mss payload bytes each but the last,
 * which has @last (0: @mss) and PSH if @psh. Return: payload bytes
 */
static size_t build_flow(const struct tcpseg_flow *f, unsigned int n,
			 size_t mss, size_t last, bool psh)
{
	uint32_t seq = SEQ0;
	size_t total = 0, plen;

	for (unsigned int i = 0; i < n; i++) {
		plen = i + 1 == n && last ? last : mss;
		flen[i] = tcpseg_build(fr[i], f, seq, (uint16_t)(ID0 + i),
				       (uint8_t)(TCPSEG_ACK | (i + 1 == n && psh ?
							      TCPSEG_PSH : 0)),
				       plen);
		seq += (uint32_t)plen;
		total += plen;
	}
	return total;
}

/* Segments of fr[@from ..] that gro merges into one frame (0: refused to
 * start), @g left as it ended */
static unsigned int run_from(struct gro *g, unsigned int from, unsigned int n,
			     unsigned int fam, uint32_t cap)
{
	if (gro_start(g, fr[from], (uint32_t)flen[from], fam, cap))
		return 0;
	for (unsigned int i = from + 1; i < n; i++)
		if (!gro_add(g, fr[i], (uint32_t)flen[i]))
			break;
	return g->count;
}

static unsigned int run_len(unsigned int n)
{
	struct gro g;

	return run_from(&g, 0, n, ALL, VNET_FRAME_MAX);
}

/* Lay out the merged frame of @g (fr[@from ..]) in merged[]; Return: bytes */
static size_t lay_out(struct gro *g, unsigned int from,
		      struct virtio_net_hdr_v1 *vh)
{
	size_t len = gro_finish(g, vh), off = g->hlen;

	memcpy(merged, g->hdr, g->hlen);
	for (unsigned int i = from; i < from + g->count; i++) {
		memcpy(merged + off, fr[i] + g->hlen, flen[i] - g->hlen);
		off += flen[i] - g->hlen;
	}
	return off == len ? len : 0;
}

/*
 * The merged frame of fr[@from .. @from + @n) as gso.c segments it gives
 * back those frames byte for byte. Return: 0 or the first frame that
 * differs + 1 (-1: the merged frame or its header is wrong)
 */
static int round_trip(struct gro *g, unsigned int from, unsigned int n)
{
	struct virtio_net_hdr_v1 vh;
	struct iovec iov;
	struct gso gs;
	size_t len;
	ssize_t k;

	if (g->count != n)
		return -1;
	len = lay_out(g, from, &vh);
	if (!len || vh.flags != VIRTIO_NET_HDR_F_NEEDS_CSUM ||
	    vh.gso_type != (g->v6 ? VIRTIO_NET_HDR_GSO_TCPV6 :
			    VIRTIO_NET_HDR_GSO_TCPV4) ||
	    le16toh(vh.gso_size) != flen[from] - g->hlen ||
	    le16toh(vh.hdr_len) != g->hlen || le16toh(vh.csum_start) != g->l4 ||
	    le16toh(vh.csum_offset) != 16 || vh.num_buffers)
		return -1;
	iov = (struct iovec){ merged, len };
	if (gso_init(&gs, &vh, &iov, 1, 0) != (int)n)
		return -1;
	for (unsigned int i = from; i < from + n; i++) {
		k = gso_next(&gs, seg, sizeof(seg));
		if (k != (ssize_t)flen[i] || memcmp(seg, fr[i], flen[i]))
			return (int)(i + 1);
	}
	if (gso_next(&gs, seg, sizeof(seg)))
		return -1;
	/* completed as the guest does, the merged frame's checksums hold */
	tcpseg_complete(merged, len, g->l4, 16);
	return tcpseg_csum_ok(merged, len) ? 0 : -1;
}

static void test_round_trip(void)
{
	for (unsigned int c = 0; c < 8; c++) {
		struct tcpseg_flow f = { .v6 = c & 1, .vlan = c & 2, .ts = c & 4,
					 .df = true, .ttl = 64 };
		struct gro g;

		build_flow(&f, 5, MSS - (f.ts ? 12 : 0), 700, true);
		CHECK_EQ(run_from(&g, 0, 5, ALL, VNET_FRAME_MAX), 5);
		CHECK_EQ(round_trip(&g, 0, 5), 0);
		/* a run ending with a full segment, without PSH */
		build_flow(&f, 7, 1000, 0, false);
		CHECK_EQ(run_from(&g, 0, 7, c & 1 ? GRO_IPV6 : GRO_IPV4,
				  VNET_FRAME_MAX), 7);
		CHECK(!g.psh);
		CHECK_EQ(round_trip(&g, 0, 7), 0);
	}
}

/* DF and the same id on every segment merges (Linux sends such) */
static void test_fixed_id(void)
{
	build_flow(&flow4, 4, MSS, 0, false);
	for (unsigned int i = 1; i < 4; i++) {
		fr[i][18] = fr[0][18];
		fr[i][19] = fr[0][19];
		tcpseg_fix(fr[i], flen[i]);
	}
	CHECK_EQ(run_len(4), 4);
	/* without DF it does not */
	for (unsigned int i = 0; i < 4; i++) {
		fr[i][20] = 0;
		tcpseg_fix(fr[i], flen[i]);
	}
	CHECK_EQ(run_len(4), 1);
	/* a run that began with consecutive ids keeps them */
	build_flow(&flow4, 4, MSS, 0, false);
	fr[2][19] = fr[1][19];
	fr[2][18] = fr[1][18];
	tcpseg_fix(fr[2], flen[2]);
	CHECK_EQ(run_len(4), 2);
	/* an id that jumps */
	build_flow(&flow4, 4, MSS, 0, false);
	fr[1][19] ^= 0x10;
	tcpseg_fix(fr[1], flen[1]);
	CHECK_EQ(run_len(4), 1);
}

static void test_seq_gap(void)
{
	struct gro g;

	build_flow(&flow4, 4, MSS, 0, false);
	CHECK_EQ(run_len(4), 4);
	/* segment 2 one byte late, as after a lost byte; then 2 and 3 go on */
	flen[2] = tcpseg_build(fr[2], &flow4, SEQ0 + 2 * MSS + 1,
			       (uint16_t)(ID0 + 2), TCPSEG_ACK, MSS);
	flen[3] = tcpseg_build(fr[3], &flow4, SEQ0 + 3 * MSS + 1,
			       (uint16_t)(ID0 + 3), TCPSEG_ACK, MSS);
	CHECK_EQ(run_len(4), 2);
	CHECK_EQ(run_from(&g, 2, 4, ALL, VNET_FRAME_MAX), 2);
	/* a segment sent again (seq behind) */
	build_flow(&flow6, 3, MSS, 0, false);
	memcpy(fr[2] + 54 + 4, fr[1] + 54 + 4, 4);
	tcpseg_fix(fr[2], flen[2]);
	CHECK_EQ(run_len(3), 2);
}

/* Change byte @off of fr[1] (checksums fixed after): the run stops there */
static int refused_at(const struct tcpseg_flow *f, size_t off, uint8_t x)
{
	build_flow(f, 3, MSS, 0, false);
	fr[1][off] ^= x;
	tcpseg_fix(fr[1], flen[1]);
	return run_len(3) == 1;
}

static void test_other_flow(void)
{
	CHECK(refused_at(&flow4, 0, 1));		/* destination MAC */
	CHECK(refused_at(&flow4, 11, 1));		/* source MAC */
	CHECK(refused_at(&flow4, 14 + 15, 1));		/* source address */
	CHECK(refused_at(&flow4, 14 + 19, 1));		/* destination address */
	CHECK(refused_at(&flow4, 34 + 1, 1));		/* source port */
	CHECK(refused_at(&flow4, 34 + 3, 1));		/* destination port */
	CHECK(refused_at(&flow4, 34 + 11, 1));		/* ack */
	CHECK(refused_at(&flow4, 34 + 15, 1));		/* window */
	CHECK(refused_at(&flow4, 34 + 19, 1));		/* urgent pointer */
	CHECK(refused_at(&flow6, 14 + 8 + 15, 1));	/* IPv6 source */
	CHECK(refused_at(&flow6, 14 + 24 + 15, 1));	/* IPv6 destination */
	CHECK(refused_at(&flow6, 14 + 3, 1));		/* flow label */
	CHECK(refused_at(&flow6, 14 + 1, 0x10));	/* traffic class */
	{
		struct tcpseg_flow v = flow4;

		v.vlan = true;
		CHECK(refused_at(&v, 15, 1));		/* VLAN id */
	}
	/* the unchanged flow merges: the helper can tell */
	CHECK(!refused_at(&flow4, 34 + 15, 0));
}

static void test_flags(void)
{
	static const uint8_t bad[] = { TCPSEG_SYN, TCPSEG_FIN, TCPSEG_RST,
				       TCPSEG_URG, 0x40 /* ECE */,
				       0x80 /* CWR */ };
	struct gro g;

	for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
		CHECK(refused_at(&flow4, 34 + 13, bad[i]));
		CHECK(refused_at(&flow6, 54 + 13, bad[i]));
		/* such a segment heads no run */
		build_flow(&flow4, 3, MSS, 0, false);
		fr[0][34 + 13] |= bad[i];
		tcpseg_fix(fr[0], flen[0]);
		CHECK(gro_start(&g, fr[0], (uint32_t)flen[0], ALL, VNET_FRAME_MAX));
	}
	/* neither does one without ACK, nor one with PSH */
	CHECK(refused_at(&flow4, 34 + 13, TCPSEG_ACK));
	build_flow(&flow4, 3, MSS, 0, false);
	fr[0][34 + 13] |= TCPSEG_PSH;
	tcpseg_fix(fr[0], flen[0]);
	CHECK_EQ(run_len(3), 0);
}

/* PSH ends the run and the merged frame carries it */
static void test_psh(void)
{
	struct gro g;

	build_flow(&flow4, 4, MSS, 0, false);
	fr[1][34 + 13] |= TCPSEG_PSH;
	tcpseg_fix(fr[1], flen[1]);
	CHECK_EQ(run_from(&g, 0, 4, ALL, VNET_FRAME_MAX), 2);
	CHECK(g.psh);
	CHECK_EQ(round_trip(&g, 0, 2), 0);
	CHECK(merged[34 + 13] & TCPSEG_PSH);
	CHECK_EQ(run_from(&g, 2, 4, ALL, VNET_FRAME_MAX), 2);
}

static void test_options(void)
{
	struct tcpseg_flow f = flow4;

	f.ts = true;
	CHECK(refused_at(&f, 34 + 27, 1));		/* TSval */
	CHECK(refused_at(&f, 34 + 31, 1));		/* TSecr */
	CHECK(refused_at(&f, 34 + 20, 1));		/* a NOP */
	/* a different header length (no options on the second) */
	build_flow(&f, 2, MSS, 0, false);
	flen[1] = tcpseg_build(fr[1], &flow4, SEQ0 + MSS, ID0 + 1, TCPSEG_ACK, MSS);
	CHECK_EQ(run_len(2), 1);
}

static void test_ip_options(void)
{
	struct tcpseg_flow f = flow4;

	f.ipopt = 4;
	build_flow(&f, 3, MSS, 0, false);
	CHECK_EQ(run_len(3), 0);
	/* options on the second only */
	build_flow(&flow4, 3, MSS, 0, false);
	flen[1] = tcpseg_build(fr[1], &f, SEQ0 + MSS, ID0 + 1, TCPSEG_ACK, MSS);
	CHECK_EQ(run_len(3), 1);
}

static void test_fragment(void)
{
	struct gro g;

	CHECK(refused_at(&flow4, 14 + 6, 0x20));	/* MF */
	CHECK(refused_at(&flow4, 14 + 7, 0x01));	/* an offset */
	build_flow(&flow4, 3, MSS, 0, false);
	fr[0][14 + 6] |= 0x20;
	tcpseg_fix(fr[0], flen[0]);
	CHECK(gro_start(&g, fr[0], (uint32_t)flen[0], ALL, VNET_FRAME_MAX));
	/* an IPv6 extension header (a fragment header's number) */
	build_flow(&flow6, 3, MSS, 0, false);
	fr[0][14 + 6] = 44;
	CHECK(gro_start(&g, fr[0], (uint32_t)flen[0], ALL, VNET_FRAME_MAX));
}

static void test_bad_tcp_csum(void)
{
	struct gro g;

	build_flow(&flow4, 4, MSS, 0, false);
	fr[1][flen[1] - 1] ^= 1;		/* a payload byte, sum not fixed */
	CHECK_EQ(run_len(4), 1);
	/* the first one bad: it goes alone, the rest merge */
	build_flow(&flow6, 4, MSS, 0, false);
	fr[0][54 + 17] ^= 1;
	CHECK_EQ(run_len(4), 1);
	CHECK_EQ(run_from(&g, 1, 4, ALL, VNET_FRAME_MAX), 3);
	CHECK_EQ(round_trip(&g, 1, 3), 0);
	/* the last one bad */
	build_flow(&flow4, 4, MSS, 0, false);
	fr[3][flen[3] - 5] ^= 0x80;
	CHECK_EQ(run_len(4), 3);
}

static void test_bad_ip_csum(void)
{
	build_flow(&flow4, 3, MSS, 0, false);
	fr[1][14 + 10] ^= 1;
	CHECK_EQ(run_len(3), 1);
	build_flow(&flow4, 3, MSS, 0, false);
	fr[0][14 + 11] ^= 1;
	CHECK_EQ(run_len(3), 1);
}

static void test_ttl_tos(void)
{
	CHECK(refused_at(&flow4, 14 + 8, 1));		/* TTL */
	CHECK(refused_at(&flow4, 14 + 1, 0x04));	/* TOS */
	CHECK(refused_at(&flow4, 14 + 1, 0x01));	/* ECN: CE */
	CHECK(refused_at(&flow6, 14 + 7, 1));		/* hop limit */
	CHECK(refused_at(&flow4, 14 + 6, 0x40));	/* DF */
}

/* The run stops before the IP length passes 65535, and at the byte cap */
static void test_64k_and_cap(void)
{
	struct gro g;
	unsigned int n;

	for (unsigned int v = 0; v < 2; v++) {
		build_flow(v ? &flow6 : &flow4, NFR, MSS, 0, false);
		/* no byte cap: the IP length alone stops it */
		n = run_from(&g, 0, NFR, ALL, UINT32_MAX);
		CHECK(n > 40 && n < NFR);
		CHECK(g.len - g.l3 <= 0xffff);
		CHECK(g.len - g.l3 + MSS > 0xffff);
		CHECK_EQ(round_trip(&g, 0, n), 0);
		/* the next segment heads the next run */
		CHECK(run_from(&g, n, NFR, ALL, VNET_FRAME_MAX) > 1);
	}
	build_flow(&flow4, 6, MSS, 0, false);
	n = run_from(&g, 0, 6, ALL, (uint32_t)flen[0] + 2 * MSS);
	CHECK_EQ(n, 3);
	CHECK_EQ(run_from(&g, 0, 6, ALL, (uint32_t)flen[0] + 2 * MSS - 1), 2);
	CHECK_EQ(run_from(&g, 0, 6, ALL, (uint32_t)flen[0] - 1), 0);
}

static void test_short_middle(void)
{
	struct gro g;

	/* mss, 500, mss: the short one ends the run */
	build_flow(&flow4, 4, MSS, 0, false);
	flen[1] = tcpseg_build(fr[1], &flow4, SEQ0 + MSS, ID0 + 1, TCPSEG_ACK, 500);
	for (unsigned int i = 2; i < 4; i++)
		flen[i] = tcpseg_build(fr[i], &flow4, SEQ0 + MSS + 500 +
				       (i - 2) * MSS, (uint16_t)(ID0 + i),
				       TCPSEG_ACK, MSS);
	CHECK_EQ(run_from(&g, 0, 4, ALL, VNET_FRAME_MAX), 2);
	CHECK_EQ(round_trip(&g, 0, 2), 0);
	CHECK_EQ(run_from(&g, 2, 4, ALL, VNET_FRAME_MAX), 2);
	/* a second segment longer than the first */
	build_flow(&flow4, 3, 1000, 0, false);
	flen[1] = tcpseg_build(fr[1], &flow4, SEQ0 + 1000, ID0 + 1, TCPSEG_ACK, 1001);
	CHECK_EQ(run_len(3), 1);
}

static void test_pure_ack(void)
{
	build_flow(&flow4, 3, MSS, 0, false);
	flen[1] = tcpseg_build(fr[1], &flow4, SEQ0 + MSS, ID0 + 1, TCPSEG_ACK, 0);
	CHECK_EQ(run_len(3), 1);
	flen[0] = tcpseg_build(fr[0], &flow4, SEQ0, ID0, TCPSEG_ACK, 0);
	CHECK_EQ(run_len(3), 0);
}

static void test_family(void)
{
	struct gro g;

	build_flow(&flow4, 3, MSS, 0, false);
	CHECK_EQ(run_from(&g, 0, 3, GRO_IPV6, VNET_FRAME_MAX), 0);
	CHECK_EQ(run_from(&g, 0, 3, GRO_IPV4, VNET_FRAME_MAX), 3);
	build_flow(&flow6, 3, MSS, 0, false);
	CHECK_EQ(run_from(&g, 0, 3, GRO_IPV4, VNET_FRAME_MAX), 0);
	CHECK_EQ(run_from(&g, 0, 3, 0, VNET_FRAME_MAX), 0);
	/* not TCP */
	build_flow(&flow4, 3, MSS, 0, false);
	fr[0][14 + 9] = 17;
	CHECK_EQ(run_len(3), 0);
	build_flow(&flow4, 3, MSS, 0, false);
	fr[0][12] = 0x88;				/* not IP */
	CHECK_EQ(run_len(3), 0);
}

/* Frames cut short or padded, each in a buffer of its exact size */
static void test_truncated(void)
{
	for (unsigned int v = 0; v < 4; v++) {
		struct tcpseg_flow f = { .v6 = v & 1, .ts = v & 2, .df = true,
					 .ttl = 64 };
		struct gro g;
		size_t full;

		build_flow(&f, 2, 200, 0, false);
		full = flen[0];
		for (size_t c = 0; c <= full + 4; c++) {
			uint8_t *a = malloc(c ? c : 1), *b = malloc(c ? c : 1);

			CHECK(a && b);
			memcpy(a, fr[0], MIN(c, full));
			memcpy(b, fr[1], MIN(c, full));
			if (c > full) {
				memset(a + full, 0, c - full);
				memset(b + full, 0, c - full);
			}
			if (c == full) {
				CHECK_EQ(gro_start(&g, a, (uint32_t)c, ALL, VNET_FRAME_MAX), 0);
			} else {
				CHECK(gro_start(&g, a, (uint32_t)c, ALL, VNET_FRAME_MAX));
				CHECK_EQ(gro_start(&g, fr[0], (uint32_t)full, ALL,
						   VNET_FRAME_MAX), 0);
			}
			CHECK_EQ(gro_add(&g, b, (uint32_t)c), c == full);
			free(a);
			free(b);
		}
	}
}

/* One byte of the second frame changed at random: gro reads nothing out of
 * bounds (ASan build); when it still merges, gso gives both back */
static void test_random(void)
{
	uint64_t rnd = 0x9e3779b97f4a7c15ull;
	unsigned int merged_n = 0;

	for (unsigned int t = 0; t < 4000; t++) {
		struct tcpseg_flow f = { .v6 = t & 1, .vlan = t & 2, .ts = t & 4,
					 .df = true, .ttl = 64 };
		uint64_t r = test_xorshift(&rnd);
		size_t off;
		uint8_t *b;
		struct gro g;

		build_flow(&f, 2, 300, 0, false);
		off = (size_t)(r % tcpseg_hlen(fr[1]));
		fr[1][off] ^= (uint8_t)(r >> 32) | 1;
		b = malloc(flen[1]);
		CHECK(b);
		memcpy(b, fr[1], flen[1]);
		CHECK_EQ(gro_start(&g, fr[0], (uint32_t)flen[0], ALL, VNET_FRAME_MAX), 0);
		if (gro_add(&g, b, (uint32_t)flen[1])) {
			merged_n++;
			free(b);
			CHECK_EQ(round_trip(&g, 0, 2), 0);
			continue;
		}
		free(b);
	}
	/* one-byte changes that keep the frames mergeable are rare */
	CHECK(merged_n < 40);
}

static void test_noalloc(void)
{
#ifdef VNET_SANITIZED
	SKIP("sanitizer build intercepts malloc itself");
#else
	void *(*volatile do_malloc)(size_t) = malloc;
	void (*volatile do_free)(void *) = free;
	struct virtio_net_hdr_v1 vh;
	unsigned long calls;
	unsigned int i, n = 0;
	struct gro g;

	alloc_count_start();
	do_free(do_malloc(64));
	CHECK_EQ(alloc_count_stop(), 2);
	build_flow(&flow4, 8, MSS, 0, false);
	alloc_count_start();
	for (i = 0; i < 200; i++) {
		n += run_from(&g, 0, 8, ALL, VNET_FRAME_MAX);
		gro_finish(&g, &vh);
	}
	calls = alloc_count_stop();
	CHECK_EQ(n, 200 * 8);
	CHECK_EQ(calls, 0);
#endif
}

int main(void)
{
	RUN(test_round_trip);
	RUN(test_fixed_id);
	RUN(test_seq_gap);
	RUN(test_other_flow);
	RUN(test_flags);
	RUN(test_psh);
	RUN(test_options);
	RUN(test_ip_options);
	RUN(test_fragment);
	RUN(test_bad_tcp_csum);
	RUN(test_bad_ip_csum);
	RUN(test_ttl_tos);
	RUN(test_64k_and_cap);
	RUN(test_short_middle);
	RUN(test_pure_ack);
	RUN(test_family);
	RUN(test_truncated);
	RUN(test_random);
	RUN(test_noalloc);
	return test_exit();
}
