// SPDX-License-Identifier: MIT
/*
 * test_xsk_ring.c - xsk_ring.c against a fake kernel: four rings and a UMEM
 * in ordinary memory, the test moving the kernel's indices by hand.
 *
 * - init: every RX chunk is in the fill ring, TX chunks are free;
 * - RX: frames the "kernel" puts on the RX ring reach the caller's buffers
 *   behind a zero vnet header, in order, byte for byte, with the 32-bit
 *   indices wrapping, and their chunks go back to the fill ring;
 * - a descriptor out of the UMEM's RX area is refused and counted, its
 *   memory not read and nothing recycled for it; one longer than its chunk
 *   is refused and its chunk recycled; the frames around it still arrive;
 * - a frame larger than the guest's buffers: -EMSGSIZE, chunk recycled;
 * - TX: frames are copied without their vnet header, published once per
 *   submit, a wake-up asked only when the kernel set NEED_WAKEUP; a full TX
 *   ring or no free chunk says -EAGAIN; completions give chunks back;
 * - a guest frame larger than a chunk is refused before anything is
 *   written; a completion address outside the TX area, or not a chunk's
 *   start, or one too many, is refused and counted;
 * - TX metadata room (xsk_tx_metadata()): every TX frame starts that many
 *   bytes into its chunk (descriptor and completion), a frame is at most
 *   a chunk less the room; xsk_tx_put_csum() writes the checksum request
 *   (flags, csum_start, csum_offset) right before the frame and
 *   XDP_TX_METADATA into the descriptor, and counts it; a plain put does
 *   not; a completion at a chunk's start is refused then; without room a
 *   checksum request is not written;
 * - hand-over: settling drops the held frames (counted), publishes queued
 *   TX, says busy until the kernel completed it, puts every RX chunk in the
 *   fill ring; a fresh queue adopting the same rings receives the frame
 *   left on the RX ring and then runs as before, every chunk in one place;
 *   rings still holding TX descriptors or completions are refused;
 * - GRO on (a guest with GUEST_CSUM and TSO): a batch holding a run of TCP
 *   segments and one other frame gives one merged GSO frame (its vnet
 *   header right, gso.c segmenting it back into the very segments), then
 *   the other frame alone with a zero header, every chunk back in the fill
 *   ring; a merged frame larger than the guest's buffers is dropped whole
 *   with every chunk recycled; a family the guest did not ack, or GRO
 *   off, delivers every segment as before;
 * - no allocation on the frame path, merged runs included.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if_xdp.h>

#ifndef VNET_SANITIZED
#include "alloc_count.h"
#endif
#include <endian.h>

#include "gro.h"
#include "gso.h"
#include "tcpseg_testutil.h"
#include "testlib.h"
#include "util.h"
#include "vnet_hdr.h"
#include "xsk_ring.h"
#include "xsk_txmd.h"

#define CHUNK	2048
#define NRX	8
#define NTX	8
#define RSZ	8		/* entries of each ring */
#define HDR	12

/* The kernel's side of one ring */
struct fring {
	uint32_t prod, cons, flags;
	union {
		uint64_t addr[RSZ];
		struct xdp_desc desc[RSZ];
	};
};

struct fake {
	struct fring fill, comp, rx, tx;
	uint8_t umem[(NRX + NTX) * CHUNK];
	struct xsk_queue q;
};

static void fake_ring(struct xsk_ring *r, struct fring *f, uint32_t start)
{
	f->prod = f->cons = start;
	r->producer = &f->prod;
	r->consumer = &f->cons;
	r->flags = &f->flags;
	r->desc = f->addr;
	r->mask = RSZ - 1;
}

/* A fake with every index starting at @start (near 2^32: they wrap) */
static int fake_init(struct fake *k, uint32_t start)
{
	memset(k, 0, sizeof(*k));
	fake_ring(&k->q.fill, &k->fill, start);
	fake_ring(&k->q.comp, &k->comp, start);
	fake_ring(&k->q.rx, &k->rx, start);
	fake_ring(&k->q.tx, &k->tx, start);
	return xsk_queue_init(&k->q, k->umem, CHUNK, NRX, NTX);
}

/* The kernel receives a frame of @len bytes (pattern @seed) into the next
 * fill chunk at offset 256. Return: 0, -1 if the fill ring is empty or
 * the RX ring full */
static int kern_rx(struct fake *k, uint32_t len, uint8_t seed)
{
	uint64_t addr;

	if (k->fill.prod == k->fill.cons || k->rx.prod - k->rx.cons == RSZ)
		return -1;
	addr = k->fill.addr[k->fill.cons++ % RSZ] + 256;
	for (uint32_t i = 0; i < len; i++)
		k->umem[addr + i] = (uint8_t)(seed + i);
	k->rx.desc[k->rx.prod % RSZ] = (struct xdp_desc){ addr, len, 0 };
	k->rx.prod++;
	return 0;
}

static void test_init(void)
{
	struct fake *k = malloc(sizeof(*k));

	CHECK(k);
	CHECK_EQ(fake_init(k, 0), 0);
	CHECK_EQ(k->fill.prod, NRX);
	for (unsigned int i = 0; i < NRX; i++) {
		uint64_t a = k->fill.addr[i];

		CHECK(a < NRX * CHUNK && !(a % CHUNK));
		for (unsigned int j = 0; j < i; j++)
			CHECK(k->fill.addr[j] != a);
	}
	CHECK_EQ(k->q.ntx_free, NTX);
	xsk_queue_cleanup(&k->q);
	k->q.fill.mask = NRX / 2 - 1;	/* fill ring smaller than nrx */
	CHECK_EQ(xsk_queue_init(&k->q, k->umem, CHUNK, NRX, NTX), -EINVAL);
	free(k);
}

/* Receive @n frames through the queue, checking each one */
static int rx_run(struct fake *k, unsigned int n, unsigned int burst)
{
	uint8_t buf[HDR + CHUNK];
	unsigned int sent = 0, got = 0;

	while (got < n) {
		for (unsigned int b = 0; b < burst && sent < n; b++, sent++)
			if (kern_rx(k, 60 + sent % 300, (uint8_t)sent))
				break;
		for (;;) {
			struct iovec iov[2] = { { buf, 7 }, { buf + 7, sizeof(buf) - 7 } };
			ssize_t len = xsk_rx_peek(&k->q, HDR), r;

			if (!len)
				break;
			if (len != HDR + 60 + got % 300)
				return fprintf(stderr, "  frame %u: peek %zd\n", got, len), -1;
			memset(buf, 0xff, HDR);
			r = xsk_rx_copy(&k->q, iov, 2, HDR);
			if (r != len)
				return fprintf(stderr, "  frame %u: copy %zd\n", got, r), -1;
			for (unsigned int i = 0; i < HDR; i++)
				if (buf[i])
					return fprintf(stderr, "  frame %u: header\n", got), -1;
			for (unsigned int i = 0; i < (unsigned int)len - HDR; i++)
				if (buf[HDR + i] != (uint8_t)(got + i))
					return fprintf(stderr, "  frame %u: byte %u\n", got, i), -1;
			got++;
		}
		if (sent > got + RSZ)
			return fprintf(stderr, "  stuck at %u/%u\n", got, sent), -1;
	}
	return 0;
}

static void test_rx_wrap(void)
{
	static const uint32_t starts[] = { 0, 0xfffffffa };
	struct fake *k = malloc(sizeof(*k));

	CHECK(k);
	for (unsigned int s = 0; s < ARRAY_SIZE(starts); s++) {
		CHECK_EQ(fake_init(k, starts[s]), 0);
		CHECK_EQ(rx_run(k, 100, 1), 0);
		CHECK_EQ(rx_run(k, 100, 5), 0);
		CHECK_EQ(rx_run(k, 100, RSZ), 0);	/* full RX ring */
		CHECK_EQ(k->q.stats.bad_rx, 0);
		/* every chunk is back in the fill ring or the stash */
		xsk_rx_peek(&k->q, HDR);
		CHECK_EQ(k->fill.prod - k->fill.cons, NRX);
		xsk_queue_cleanup(&k->q);
	}
	free(k);
}

static void test_rx_bad_desc(void)
{
	struct fake *k = malloc(sizeof(*k));
	uint8_t buf[HDR + CHUNK];
	struct iovec iov = { buf, sizeof(buf) };
	uint32_t fill_before;

	CHECK(k);
	CHECK_EQ(fake_init(k, 0), 0);
	CHECK_EQ(kern_rx(k, 100, 1), 0);
	/* out of the RX area (a TX chunk, then past the UMEM): refused,
	 * nothing recycled */
	k->rx.desc[k->rx.prod++ % RSZ] = (struct xdp_desc){ NRX * CHUNK, 64, 0 };
	k->rx.desc[k->rx.prod++ % RSZ] = (struct xdp_desc){ 1ULL << 40, 64, 0 };
	k->fill.cons++;			/* the kernel took a chunk for it */
	CHECK_EQ(kern_rx(k, 100, 2), 0);
	/* longer than its chunk: refused, its chunk recycled */
	k->rx.desc[k->rx.prod++ % RSZ] = (struct xdp_desc){ k->fill.addr[k->fill.cons++ % RSZ] + 256, CHUNK - 255, 0 };
	CHECK_EQ(kern_rx(k, 100, 3), 0);
	fill_before = k->fill.prod;

	CHECK_EQ(xsk_rx_peek(&k->q, HDR), HDR + 100);
	CHECK_EQ(k->q.stats.bad_rx, 3);
	for (uint8_t seed = 1; seed <= 3; seed++) {
		CHECK_EQ(xsk_rx_copy(&k->q, &iov, 1, HDR), HDR + 100);
		CHECK_EQ(buf[HDR], seed);
	}
	CHECK_EQ(xsk_rx_peek(&k->q, HDR), 0);
	/* three frames and the long one's chunk came back, not the others */
	CHECK_EQ(k->fill.prod - fill_before, 4);
	CHECK_EQ(k->rx.cons, k->rx.prod);
	xsk_queue_cleanup(&k->q);
	free(k);
}

static void test_rx_too_big(void)
{
	struct fake *k = malloc(sizeof(*k));
	uint8_t buf[HDR + 100];
	struct iovec iov = { buf, sizeof(buf) };

	CHECK(k);
	CHECK_EQ(fake_init(k, 0), 0);
	CHECK_EQ(kern_rx(k, 1500, 1), 0);
	CHECK_EQ(kern_rx(k, 100, 2), 0);
	CHECK_EQ(xsk_rx_peek(&k->q, HDR), HDR + 1500);
	CHECK_EQ(xsk_rx_copy(&k->q, &iov, 1, HDR), -EMSGSIZE);
	CHECK_EQ(k->q.stats.rx_too_big, 1);
	CHECK_EQ(xsk_rx_copy(&k->q, &iov, 1, HDR), HDR + 100);
	CHECK_EQ(buf[HDR], 2);
	CHECK_EQ(xsk_rx_copy(&k->q, &iov, 1, HDR), -EAGAIN);
	CHECK_EQ(k->q.nrecycle + (k->fill.prod - k->fill.cons), NRX);
	xsk_queue_cleanup(&k->q);
	free(k);
}

/* The kernel receives the frame @f (@len bytes) into the next fill chunk
 * at offset 256. Return: 0, -1 if the fill ring is empty or the RX ring
 * full */
static int kern_rx_frame(struct fake *k, const uint8_t *f, uint32_t len)
{
	uint64_t addr;

	if (k->fill.prod == k->fill.cons || k->rx.prod - k->rx.cons == RSZ)
		return -1;
	addr = k->fill.addr[k->fill.cons++ % RSZ] + 256;
	memcpy(k->umem + addr, f, len);
	k->rx.desc[k->rx.prod % RSZ] = (struct xdp_desc){ addr, len, 0 };
	k->rx.prod++;
	return 0;
}

#define GRO_SEGS	4
#define GRO_MSS		1000

static uint8_t gro_seg[GRO_SEGS + 1][TCPSEG_HDR_MAX + GRO_MSS];
static size_t gro_len[GRO_SEGS + 1];

/* The kernel receives GRO_SEGS segments of one flow (@f), the last one
 * shorter, then a segment of another flow (another port). Return: the
 * merged frame's bytes */
static size_t kern_rx_run(struct fake *k, const struct tcpseg_flow *f)
{
	size_t total = 0, hlen;
	uint32_t seq = 7000;

	for (unsigned int i = 0; i <= GRO_SEGS; i++) {
		size_t plen = i + 1 < GRO_SEGS ? GRO_MSS : 300;

		gro_len[i] = tcpseg_build(gro_seg[i], f, seq, (uint16_t)(100 + i),
					  TCPSEG_ACK, plen);
		seq += (uint32_t)plen;
		if (i == GRO_SEGS) {	/* another flow: a source port + 1 */
			gro_seg[i][tcpseg_l4(gro_seg[i]) + 1]++;
			tcpseg_fix(gro_seg[i], gro_len[i]);
		}
		if (kern_rx_frame(k, gro_seg[i], (uint32_t)gro_len[i]))
			return 0;
	}
	hlen = tcpseg_hlen(gro_seg[0]);
	for (unsigned int i = 0; i < GRO_SEGS; i++)
		total += gro_len[i] - hlen;
	return hlen + total;
}

/* @buf holds a merged frame of @len bytes after its vnet header: gso.c
 * segments it back into gro_seg[0 .. GRO_SEGS). Return: 0 or -1 */
static int gro_check(const uint8_t *buf, size_t len)
{
	static uint8_t out[TCPSEG_HDR_MAX + GRO_MSS];
	struct virtio_net_hdr_v1 vh;
	struct iovec iov = { (void *)(buf + HDR), len };
	struct gso g;

	memcpy(&vh, buf, sizeof(vh));
	if (vh.flags != VIRTIO_NET_HDR_F_NEEDS_CSUM ||
	    le16toh(vh.gso_size) != GRO_MSS || vh.num_buffers ||
	    le16toh(vh.hdr_len) != tcpseg_hlen(gro_seg[0]))
		return -1;
	if (gso_init(&g, &vh, &iov, 1, 0) != GRO_SEGS)
		return -1;
	for (unsigned int i = 0; i < GRO_SEGS; i++)
		if (gso_next(&g, out, sizeof(out)) != (ssize_t)gro_len[i] ||
		    memcmp(out, gro_seg[i], gro_len[i]))
			return -1;
	return 0;
}

static void test_rx_gro(void)
{
	struct fake *k = malloc(sizeof(*k));
	static uint8_t buf[HDR + 8192];
	/* odd pieces: the copy crosses iovecs inside headers and payloads */
	struct iovec iov[4] = { { buf, 5 }, { buf + 5, 40 }, { buf + 45, 1001 },
				{ buf + 1046, sizeof(buf) - 1046 } };
	const struct tcpseg_flow f4 = { .df = true, .ttl = 64, .ts = true };
	const struct tcpseg_flow f6 = { .v6 = true, .vlan = true, .ttl = 64 };
	size_t mlen;

	CHECK(k);
	for (unsigned int v = 0; v < 2; v++) {
		CHECK_EQ(fake_init(k, v ? 0xfffffffd : 0), 0);
		xsk_rx_gro(&k->q, GRO_IPV4 | GRO_IPV6, VNET_FRAME_MAX);
		mlen = kern_rx_run(k, v ? &f6 : &f4);
		CHECK(mlen);
		CHECK_EQ(xsk_rx_peek(&k->q, HDR), HDR + mlen);
		/* a second look says the same */
		CHECK_EQ(xsk_rx_peek(&k->q, HDR), HDR + mlen);
		memset(buf, 0xee, sizeof(buf));
		CHECK_EQ(xsk_rx_copy(&k->q, iov, 4, HDR), HDR + mlen);
		CHECK_EQ(gro_check(buf, mlen), 0);
		CHECK_EQ(buf[1], v ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4);
		/* then the other flow's segment, alone, zero header */
		CHECK_EQ(xsk_rx_peek(&k->q, HDR), HDR + gro_len[GRO_SEGS]);
		memset(buf, 0xee, sizeof(buf));
		CHECK_EQ(xsk_rx_copy(&k->q, iov, 4, HDR), HDR + gro_len[GRO_SEGS]);
		for (unsigned int i = 0; i < HDR; i++)
			CHECK_EQ(buf[i], 0);
		CHECK(!memcmp(buf + HDR, gro_seg[GRO_SEGS], gro_len[GRO_SEGS]));
		CHECK_EQ(xsk_rx_peek(&k->q, HDR), 0);
		/* every chunk is back in the fill ring */
		CHECK_EQ(k->fill.prod - k->fill.cons, NRX);
		CHECK_EQ(k->q.stats.gro_frames, 1);
		CHECK_EQ(k->q.stats.gro_segs, GRO_SEGS);
		CHECK_EQ(k->q.stats.rx_too_big, 0);

		/* too big for the guest's buffers: dropped whole */
		mlen = kern_rx_run(k, v ? &f6 : &f4);
		CHECK_EQ(xsk_rx_peek(&k->q, HDR), HDR + mlen);
		CHECK_EQ(xsk_rx_copy(&k->q, iov, 3, HDR), -EMSGSIZE);
		CHECK_EQ(k->q.stats.rx_too_big, 1);
		CHECK_EQ(xsk_rx_copy(&k->q, iov, 4, HDR), HDR + gro_len[GRO_SEGS]);
		CHECK_EQ(xsk_rx_peek(&k->q, HDR), 0);
		CHECK_EQ(k->fill.prod - k->fill.cons, NRX);

		/* the other family only, then GRO off: frame by frame */
		for (unsigned int off = 0; off < 2; off++) {
			xsk_rx_gro(&k->q, off ? 0 : v ? GRO_IPV4 : GRO_IPV6,
				   VNET_FRAME_MAX);
			kern_rx_run(k, v ? &f6 : &f4);
			for (unsigned int i = 0; i <= GRO_SEGS; i++) {
				CHECK_EQ(xsk_rx_peek(&k->q, HDR), HDR + gro_len[i]);
				memset(buf, 0xee, sizeof(buf));
				CHECK_EQ(xsk_rx_copy(&k->q, iov, 4, HDR),
					 HDR + gro_len[i]);
				CHECK_EQ(buf[0] | buf[1] | buf[HDR - 1], 0);
				CHECK(!memcmp(buf + HDR, gro_seg[i], gro_len[i]));
			}
			CHECK_EQ(xsk_rx_peek(&k->q, HDR), 0);
			CHECK_EQ(k->fill.prod - k->fill.cons, NRX);
		}
		/* the run dropped as too big is not counted as delivered */
		CHECK_EQ(k->q.stats.gro_frames, 1);
		xsk_queue_cleanup(&k->q);
	}
	free(k);
}

/* The kernel sends every published TX frame and completes it */
static void kern_tx_all(struct fake *k, uint8_t *seen, unsigned int *nseen)
{
	while (k->tx.cons != k->tx.prod) {
		struct xdp_desc d = k->tx.desc[k->tx.cons++ % RSZ];

		seen[(*nseen)++] = k->umem[d.addr];
		k->comp.addr[k->comp.prod++ % RSZ] = d.addr;
	}
}

static ssize_t tx_one(struct fake *k, uint8_t seed, size_t len)
{
	uint8_t frame[HDR + CHUNK + 1];
	struct iovec iov[3] = { { frame, HDR }, { frame + HDR, 3 },
				{ frame + HDR + 3, len - 3 } };

	memset(frame, 0xee, HDR);
	for (size_t i = 0; i < len; i++)
		frame[HDR + i] = (uint8_t)(seed + i);
	return xsk_tx_push(&k->q, iov, 3, HDR);
}

static void test_tx(void)
{
	static const uint32_t starts[] = { 0, 0xfffffffd };
	struct fake *k = malloc(sizeof(*k));
	uint8_t seen[512];
	unsigned int nseen, sent;

	CHECK(k);
	for (unsigned int s = 0; s < ARRAY_SIZE(starts); s++) {
		CHECK_EQ(fake_init(k, starts[s]), 0);
		/* not published before submit; no wake-up without the flag */
		CHECK_EQ(tx_one(k, 0, 64), HDR + 64);
		CHECK_EQ(k->tx.prod, starts[s]);
		CHECK(!xsk_tx_submit(&k->q));
		CHECK_EQ(k->tx.prod, starts[s] + 1);
		{
			struct xdp_desc d = k->tx.desc[starts[s] % RSZ];

			CHECK_EQ(d.len, 64);
			CHECK(d.addr >= NRX * CHUNK && !(d.addr % CHUNK));
			CHECK_EQ(k->umem[d.addr], 0);
			CHECK_EQ(k->umem[d.addr + 63], 63);
		}
		k->tx.flags = XDP_RING_NEED_WAKEUP;
		CHECK(xsk_tx_submit(&k->q));	/* still unsent: wake */
		nseen = 0;
		kern_tx_all(k, seen, &nseen);
		CHECK(!xsk_tx_submit(&k->q));	/* nothing left: no wake */
		/* bursts with wrap; a full TX ring says -EAGAIN */
		sent = 1;
		for (unsigned int round = 0; round < 40; round++) {
			unsigned int b;

			for (b = 0; b < RSZ + 2; b++) {
				ssize_t r = tx_one(k, (uint8_t)sent, 60 + b);

				if (r == -EAGAIN)
					break;
				CHECK_EQ(r, HDR + 60 + b);
				sent++;
			}
			CHECK(b >= 1 && b <= RSZ);
			CHECK(xsk_tx_submit(&k->q));
			kern_tx_all(k, seen, &nseen);
			if (nseen > 400)
				break;
		}
		for (unsigned int i = 0; i < nseen; i++)
			CHECK_EQ(seen[i], (uint8_t)i);
		CHECK(k->q.stats.tx_full > 0);
		CHECK_EQ(k->q.stats.bad_comp, 0);
		xsk_queue_cleanup(&k->q);
	}
	free(k);
}

/*
 * Several frames at once (the segments of one guest frame): reserved all
 * or none, written in place, published together, taken back on completion
 */
static void test_tx_reserve(void)
{
	struct fake *k = malloc(sizeof(*k));
	uint8_t seen[64];
	unsigned int nseen = 0, i;

	CHECK(k);
	CHECK_EQ(fake_init(k, 0xfffffffe), 0);
	CHECK(!xsk_tx_reserve(&k->q, NTX + 1));		/* more than there are */
	CHECK_EQ(k->q.stats.tx_full, 1);
	CHECK(xsk_tx_reserve(&k->q, 5));
	for (i = 0; i < 5; i++) {
		uint8_t *c = xsk_tx_chunk(&k->q);

		CHECK(c >= k->umem + NRX * CHUNK && c < k->umem + sizeof(k->umem));
		c[0] = (uint8_t)i;
		xsk_tx_put(&k->q, 100 + i);
	}
	CHECK_EQ(k->tx.prod, 0xfffffffe);		/* written, not published */
	CHECK(!xsk_tx_reserve(&k->q, 4));		/* 3 chunks left */
	CHECK(xsk_tx_reserve(&k->q, 3));
	xsk_tx_submit(&k->q);
	CHECK_EQ(k->tx.prod, 0xfffffffe + 5);
	for (i = 0; i < 5; i++)
		CHECK_EQ(k->tx.desc[(0xfffffffe + i) % RSZ].len, 100 + i);
	kern_tx_all(k, seen, &nseen);
	CHECK_EQ(nseen, 5);
	for (i = 0; i < 5; i++)
		CHECK_EQ(seen[i], i);
	CHECK(xsk_tx_reserve(&k->q, NTX));		/* reaped back */
	CHECK_EQ(k->q.ntx_free, NTX);
	xsk_queue_cleanup(&k->q);
	free(k);
}

static void test_tx_too_big(void)
{
	struct fake *k = malloc(sizeof(*k));

	CHECK(k);
	CHECK_EQ(fake_init(k, 0), 0);
	CHECK_EQ(tx_one(k, 0, CHUNK + 1), -EMSGSIZE);
	CHECK_EQ(k->q.stats.tx_too_big, 1);
	CHECK_EQ(k->q.ntx_free, NTX);
	CHECK_EQ(k->q.tx_pending, 0);
	CHECK_EQ(tx_one(k, 0, CHUNK), HDR + CHUNK);	/* exactly a chunk */
	xsk_queue_cleanup(&k->q);
	free(k);
}

static void test_comp_bad_addr(void)
{
	struct fake *k = malloc(sizeof(*k));

	CHECK(k);
	CHECK_EQ(fake_init(k, 0), 0);
	/* use every TX chunk */
	for (unsigned int i = 0; i < NTX; i++)
		CHECK_EQ(tx_one(k, 0, 64), HDR + 64);
	CHECK_EQ(tx_one(k, 0, 64), -EAGAIN);
	xsk_tx_submit(&k->q);
	/* the kernel completes garbage: an RX chunk, past the UMEM, not a
	 * chunk start */
	k->comp.addr[k->comp.prod++ % RSZ] = 0;
	k->comp.addr[k->comp.prod++ % RSZ] = (NRX + NTX) * CHUNK;
	k->comp.addr[k->comp.prod++ % RSZ] = NRX * CHUNK + 256;
	k->comp.addr[k->comp.prod++ % RSZ] = k->tx.desc[0].addr;	/* good */
	CHECK_EQ(xsk_comp_reap(&k->q), 1);
	CHECK_EQ(k->q.stats.bad_comp, 3);
	CHECK_EQ(k->q.ntx_free, 1);
	CHECK_EQ(k->comp.cons, k->comp.prod);
	/* a producer index far ahead: clamped to the ring; one chunk more
	 * than are out is refused too */
	k->q.ntx_free = NTX;
	k->comp.addr[k->comp.prod % RSZ] = k->tx.desc[1].addr;
	k->comp.prod += 1000;
	CHECK_EQ(xsk_comp_reap(&k->q), 0);
	CHECK_EQ(k->q.ntx_free, NTX);
	xsk_queue_cleanup(&k->q);
	free(k);
}

/* TX with metadata room: frame offsets, the checksum request, completions */
static void test_tx_metadata(void)
{
	struct fake *k = malloc(sizeof(*k));
	struct xsk_tx_metadata md;
	struct xdp_desc d;
	uint8_t *c;

	CHECK(k);
	CHECK_EQ(fake_init(k, 0xffffffff), 0);
	xsk_tx_metadata(&k->q, XSK_TXMD_LEN);
	CHECK_EQ(xsk_tx_room(&k->q), CHUNK - XSK_TXMD_LEN);
	CHECK_EQ(tx_one(k, 0, CHUNK - XSK_TXMD_LEN + 1), -EMSGSIZE);
	/* a pushed frame: after the room, no metadata asked */
	CHECK_EQ(tx_one(k, 5, CHUNK - XSK_TXMD_LEN), HDR + CHUNK - XSK_TXMD_LEN);
	d = k->tx.desc[0xffffffff % RSZ];
	CHECK_EQ(d.addr % CHUNK, XSK_TXMD_LEN);
	CHECK_EQ(d.options, 0);
	CHECK_EQ(k->umem[d.addr], 5);
	/* a segment with a checksum request */
	CHECK(xsk_tx_reserve(&k->q, 2));
	c = xsk_tx_chunk(&k->q);
	CHECK_EQ((size_t)(c - k->umem) % CHUNK, XSK_TXMD_LEN);
	c[0] = 9;
	xsk_tx_put_csum(&k->q, 1514, 34, 16);
	d = k->tx.desc[0 % RSZ];
	CHECK_EQ(d.addr, (uint64_t)(c - k->umem));
	CHECK_EQ(d.len, 1514);
	CHECK_EQ(d.options, XDP_TX_METADATA);
	memcpy(&md, k->umem + d.addr - XSK_TXMD_LEN, XSK_TXMD_LEN);
	CHECK_EQ(md.flags, XDP_TXMD_FLAGS_CHECKSUM);
	CHECK_EQ(md.request.csum_start, 34);
	CHECK_EQ(md.request.csum_offset, 16);
	CHECK_EQ(k->q.stats.tx_csum_req, 1);
	/* a plain put next to it asks nothing */
	xsk_tx_put(&k->q, 60);
	CHECK_EQ(k->tx.desc[1 % RSZ].options, 0);
	CHECK_EQ(k->tx.desc[1 % RSZ].addr % CHUNK, XSK_TXMD_LEN);
	CHECK_EQ(k->q.stats.tx_csum_req, 1);
	xsk_tx_submit(&k->q);
	/* completions carry the frame's address; a chunk start is refused */
	k->comp.addr[k->comp.prod++ % RSZ] = d.addr - XSK_TXMD_LEN;
	CHECK_EQ(xsk_comp_reap(&k->q), 0);
	CHECK_EQ(k->q.stats.bad_comp, 1);
	{
		uint8_t seen[8];
		unsigned int nseen = 0;

		kern_tx_all(k, seen, &nseen);
		CHECK_EQ(nseen, 3);
		CHECK_EQ(seen[0], 5);
		CHECK_EQ(seen[1], 9);
	}
	CHECK(xsk_tx_reserve(&k->q, NTX));		/* all three back */
	CHECK_EQ(k->q.ntx_free, NTX);
	xsk_queue_cleanup(&k->q);
	/* no room: a checksum request is not written */
	CHECK_EQ(fake_init(k, 0), 0);
	CHECK(xsk_tx_reserve(&k->q, 1));
	xsk_tx_put_csum(&k->q, 100, 34, 16);
	CHECK_EQ(k->tx.desc[0].options, 0);
	CHECK_EQ(k->tx.desc[0].addr % CHUNK, 0);
	CHECK_EQ(k->q.stats.tx_csum_req, 0);
	xsk_queue_cleanup(&k->q);
	free(k);
}

/* The next process's queue on @k's rings (their pointers, nothing else) */
static int adopt(struct fake *k, struct xsk_queue *nq)
{
	memset(nq, 0, sizeof(*nq));
	nq->fill = k->q.fill;
	nq->comp = k->q.comp;
	nq->rx = k->q.rx;
	nq->tx = k->q.tx;
	return xsk_queue_adopt(nq, k->umem, CHUNK, NRX, NTX);
}

static void test_settle_adopt(void)
{
	static const uint32_t starts[] = { 0, 0xfffffffb };
	struct fake *k = malloc(sizeof(*k));
	uint8_t buf[HDR + CHUNK], seen[64];
	struct iovec iov = { buf, sizeof(buf) };
	unsigned int dropped, nseen, i;
	struct xsk_queue nq;

	CHECK(k);
	for (unsigned int s = 0; s < ARRAY_SIZE(starts); s++) {
		nseen = 0;
		CHECK_EQ(fake_init(k, starts[s]), 0);
		CHECK_EQ(rx_run(k, 20, 3), 0);	/* chunks in the stash */
		for (i = 0; i < 4; i++)
			CHECK_EQ(kern_rx(k, 100, (uint8_t)i), 0);
		CHECK_EQ(xsk_rx_peek(&k->q, HDR), HDR + 100);	/* 4 held */
		CHECK_EQ(xsk_rx_copy(&k->q, &iov, 1, HDR), HDR + 100);
		CHECK_EQ(kern_rx(k, 100, 9), 0);	/* left on the RX ring */
		CHECK_EQ(tx_one(k, 1, 100), HDR + 100);
		CHECK_EQ(tx_one(k, 2, 100), HDR + 100);	/* not published */
		CHECK_EQ(xsk_queue_settle(&k->q, &dropped), -EBUSY);
		CHECK_EQ(dropped, 3);
		CHECK_EQ(k->tx.prod - k->tx.cons, 2);	/* published */
		/* unsettled rings: a chunk would be in two places */
		CHECK_EQ(adopt(k, &nq), -EBUSY);
		kern_tx_all(k, seen, &nseen);
		CHECK_EQ(nseen, 2);
		CHECK_EQ(adopt(k, &nq), -EBUSY);	/* completions not reaped */
		CHECK_EQ(xsk_queue_settle(&k->q, &dropped), 0);
		CHECK_EQ(dropped, 0);
		CHECK_EQ(k->q.ntx_free, NTX);
		CHECK_EQ(k->q.nrecycle, 0);
		CHECK_EQ((k->fill.prod - k->fill.cons) + (k->rx.prod - k->rx.cons), NRX);
		CHECK_EQ(k->comp.prod, k->comp.cons);

		CHECK_EQ(adopt(k, &nq), 0);
		xsk_queue_cleanup(&k->q);
		k->q = nq;
		CHECK(k->q.fill_kick);
		CHECK_EQ(k->q.ntx_free, NTX);
		CHECK_EQ(k->q.nrecycle, 0);
		/* the frame the old process left on the RX ring, once */
		CHECK_EQ(xsk_rx_copy(&k->q, &iov, 1, HDR), HDR + 100);
		CHECK_EQ(buf[HDR], 9);
		CHECK_EQ(xsk_rx_copy(&k->q, &iov, 1, HDR), -EAGAIN);
		CHECK_EQ(rx_run(k, 100, RSZ), 0);	/* every RX chunk in use */
		xsk_rx_peek(&k->q, HDR);
		CHECK_EQ(k->fill.prod - k->fill.cons, NRX);
		CHECK_EQ(k->q.stats.bad_rx, 0);
		/* every TX chunk free, each once */
		for (i = 0; i < NTX; i++)
			CHECK_EQ(tx_one(k, (uint8_t)(10 + i), 64), HDR + 64);
		CHECK_EQ(tx_one(k, 99, 64), -EAGAIN);
		xsk_tx_submit(&k->q);
		nseen = 0;
		kern_tx_all(k, seen, &nseen);
		CHECK_EQ(nseen, NTX);
		for (i = 0; i < NTX; i++)
			CHECK_EQ(seen[i], 10 + i);
		CHECK_EQ(xsk_comp_reap(&k->q), NTX);
		CHECK_EQ(k->q.stats.bad_comp, 0);
		xsk_queue_cleanup(&k->q);
	}
	free(k);
}

static void test_noalloc(void)
{
	struct fake *k = malloc(sizeof(*k));
	uint8_t seen[1024];
	unsigned int nseen = 0;

#ifdef VNET_SANITIZED
	free(k);
	SKIP("the sanitizer intercepts the allocator");
#endif
	CHECK(k);
	CHECK_EQ(fake_init(k, 0), 0);
#ifndef VNET_SANITIZED
	alloc_count_start();
#endif
	CHECK_EQ(rx_run(k, 200, 3), 0);
	xsk_rx_gro(&k->q, GRO_IPV4 | GRO_IPV6, VNET_FRAME_MAX);
	for (unsigned int i = 0; i < 50; i++) {
		static uint8_t buf[HDR + 8192];
		struct iovec iov = { buf, sizeof(buf) };
		size_t mlen;

		/* nothing held: the chunks go back to the fill ring */
		CHECK_EQ(xsk_rx_peek(&k->q, HDR), 0);
		mlen = kern_rx_run(k, &(struct tcpseg_flow){ .ttl = 9 });
		CHECK(mlen);
		CHECK_EQ(xsk_rx_copy(&k->q, &iov, 1, HDR), HDR + mlen);
		CHECK(xsk_rx_copy(&k->q, &iov, 1, HDR) > 0);
	}
	CHECK_EQ(k->q.stats.gro_frames, 50);
	xsk_rx_gro(&k->q, 0, 0);
	for (unsigned int i = 0; i < 200; i++) {
		CHECK(tx_one(k, 0, 64) > 0);
		xsk_tx_submit(&k->q);
		kern_tx_all(k, seen, &nseen);
		nseen = 0;
	}
#ifndef VNET_SANITIZED
	CHECK_EQ(alloc_count_stop(), 0);
#endif
	xsk_queue_cleanup(&k->q);
	free(k);
}

int main(void)
{
	RUN(test_init);
	RUN(test_rx_wrap);
	RUN(test_rx_bad_desc);
	RUN(test_rx_too_big);
	RUN(test_rx_gro);
	RUN(test_tx);
	RUN(test_tx_reserve);
	RUN(test_tx_too_big);
	RUN(test_comp_bad_addr);
	RUN(test_tx_metadata);
	RUN(test_settle_adopt);
	RUN(test_noalloc);
	return test_exit();
}
