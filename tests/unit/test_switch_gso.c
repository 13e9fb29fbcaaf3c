// SPDX-License-Identifier: MIT
/*
 * test_switch_gso.c - offloads through the switch: a TSO or partially
 * checksummed frame reaches a member that took the offload unchanged
 * (bytes and vnet header), a member that takes TSO but whose slot is
 * smaller than the frame as smaller TSO frames of whole segments, and a
 * member that took nothing segmented and checksummed in software; the
 * checksums are verified by a byte loop of this file, not gso.c's code.
 * A malformed request is dropped and counted with no slot left reserved;
 * a queue without room for all of a frame's slots gets none of them; no
 * allocation per frame.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <linux/virtio_config.h>
#include <linux/virtio_net.h>

#include "testlib.h"
#include "gso.h"
#include "switch.h"
#include "switch_offl.h"
#include "switch_testutil.h"
#include "util.h"
#ifndef VNET_SANITIZED
#include "alloc_count.h"
#endif

#define HDR	TSW_HDR
#define NOW	1000
#define BIG	70000
#define ID0	0x1234
#define SEQ0	1000u
#define TSO_FEATURES	(BIT(VIRTIO_NET_F_GUEST_CSUM) | BIT(VIRTIO_NET_F_GUEST_TSO4) | \
			 BIT(VIRTIO_NET_F_GUEST_TSO6) | BIT(VIRTIO_F_VERSION_1))

static const uint8_t MA[6] = { 2, 0, 0, 0, 0, 0xa };
static const uint8_t BCAST[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

static uint8_t txbuf[BIG], rxbuf[BIG];

/* One's complement sum of @n bytes, big-endian words, a byte at a time */
static uint32_t sum_bytes(uint32_t s, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		s += i % 2 ? p[i] : (uint32_t)p[i] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* IPv4 pseudo-header sum for @l4len bytes of @proto */
static uint32_t pseudo4(const uint8_t *ip, uint8_t proto, uint32_t l4len)
{
	return sum_bytes(0, ip + 12, 8) + proto + l4len;
}

/*
 * A TCP/IPv4 frame with vnet header into txbuf: @vid >= 0 tagged,
 * @payload bytes, @mss 0: no segmentation (NEEDS_CSUM only), else TSO4;
 * TCP flags @tflags. The checksum field holds the pseudo-header sum.
 * Return: bytes
 */
static size_t tcp4(const uint8_t *dst, int vid, uint32_t payload,
		   uint16_t mss, uint8_t tflags)
{
	struct virtio_net_hdr_v1 vh = { 0 };
	uint8_t *f = txbuf + HDR, *ip, *th;
	uint32_t l2 = vid >= 0 ? 18 : 14, i, l4len = 20 + payload;

	memset(txbuf, 0, HDR + l2 + 40);
	memcpy(f, dst, 6);
	memcpy(f + 6, MA, 6);
	if (vid >= 0) {
		f[12] = 0x81;
		f[14] = (uint8_t)(vid >> 8);
		f[15] = (uint8_t)vid;
	}
	f[l2 - 2] = 0x08;
	ip = f + l2;
	ip[0] = 0x45;
	ip[2] = (uint8_t)((20 + l4len) >> 8);
	ip[3] = (uint8_t)(20 + l4len);
	ip[4] = ID0 >> 8;
	ip[5] = ID0 & 0xff;
	ip[6] = 0x40;	/* DF */
	ip[8] = 64;
	ip[9] = 6;
	memcpy(ip + 12, (uint8_t[]){ 10, 0, 0, 1, 10, 0, 0, 2 }, 8);
	i = (uint16_t)~fold(sum_bytes(0, ip, 20));
	ip[10] = (uint8_t)(i >> 8);
	ip[11] = (uint8_t)i;
	th = ip + 20;
	th[0] = 0x30;
	th[1] = 0x39;
	th[2] = 0x01;
	th[3] = 0xbb;
	th[4] = SEQ0 >> 24;
	th[5] = (uint8_t)(SEQ0 >> 16);
	th[6] = (uint8_t)(SEQ0 >> 8);
	th[7] = (uint8_t)SEQ0;
	th[12] = 0x50;
	th[13] = tflags;
	th[14] = 0xff;
	for (i = 0; i < payload; i++)
		th[20 + i] = (uint8_t)(i * 7 + i / 251);
	i = fold(pseudo4(ip, 6, l4len));
	th[16] = (uint8_t)(i >> 8);
	th[17] = (uint8_t)i;
	vh.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	vh.gso_type = mss ? VIRTIO_NET_HDR_GSO_TCPV4 : VIRTIO_NET_HDR_GSO_NONE;
	vh.gso_size = htole16(mss);
	vh.csum_start = htole16((uint16_t)(l2 + 20));
	vh.csum_offset = htole16(16);
	vh.hdr_len = htole16((uint16_t)(l2 + 40));
	memcpy(txbuf, &vh, HDR);
	return HDR + l2 + 40 + payload;
}

/*
 * Check a complete TCP/IPv4 segment @f (@len bytes, untagged): IPv4
 * length and header checksum, TCP checksum over the pseudo-header.
 * Return: its payload bytes, -1 if a check failed
 */
static int check_seg4(const uint8_t *f, size_t len)
{
	const uint8_t *ip = f + 14;
	uint32_t l4len = (uint32_t)len - 34;

	if (get16(f + 12) != 0x0800 || get16(ip + 2) != len - 14)
		return -1;
	if (fold(sum_bytes(0, ip, 20)) != 0xffff)
		return -1;
	if (fold(sum_bytes(pseudo4(ip, 6, l4len), ip + 20, l4len)) != 0xffff)
		return -1;
	return (int)(l4len - 20);
}

static struct sw_member *join(struct vswitch *sw, uint16_t vlan, int trunk,
			      uint64_t features)
{
	struct sw_vlans v;
	struct sw_member *m;
	int err;

	memset(&v, 0, sizeof(v));
	if (trunk)
		v.trunk[vlan / 8] |= (uint8_t)(1u << (vlan % 8));
	else
		v.access = vlan;
	m = switch_join(sw, 1, &v, &err);
	if (m)
		switch_set_offloads(m, features, HDR);
	return m;
}

static int send(struct sw_member *m, size_t len)
{
	struct iovec iov[2] = { { txbuf, HDR }, { txbuf + HDR, len - HDR } };
	int ret = switch_tx(m, 0, iov, 2, HDR, NOW);

	switch_flush(m, 0);
	return ret;
}

/* Next frame for @m into rxbuf (header first); Return: bytes or -errno */
static int recv1(struct sw_member *m)
{
	return test_sw_rx(m, rxbuf, sizeof(rxbuf));
}

/* Frames waiting for @m, received into rxbuf; Return: how many */
static int pending(struct sw_member *m)
{
	return test_sw_rx_count(m, rxbuf, sizeof(rxbuf));
}

/* Segments the member without offloads got: complete, in order, whole */
static void check_segments(struct sw_member *c, uint32_t payload, uint16_t mss,
			   uint8_t tflags)
{
	uint32_t seen = 0, i = 0, nseg = (payload + mss - 1) / mss;
	const uint8_t *f = rxbuf + HDR, *th = f + 34;
	static const uint8_t zero[HDR];
	int n, p;

	while ((n = recv1(c)) > 0) {
		CHECK(!memcmp(rxbuf, zero, HDR));	/* nothing left to do */
		p = check_seg4(f, (size_t)n - HDR);
		CHECK_EQ(p, (int)MIN((uint32_t)mss, payload - seen));
		CHECK_EQ(get16(f + 18), (uint16_t)(ID0 + i));
		CHECK_EQ(get32(th + 4), SEQ0 + seen);
		CHECK_EQ(th[13], i + 1 == nseg ? tflags : (uint8_t)(tflags & 0x10));
		for (p = 0; p < (int)n - HDR - 54; p++)
			if (th[20 + p] != (uint8_t)((seen + p) * 7 + (seen + p) / 251))
				break;
		CHECK_EQ(p, (int)n - HDR - 54);
		seen += (uint32_t)n - HDR - 54;
		i++;
	}
	CHECK_EQ(i, nseg);
	CHECK_EQ(seen, payload);
}

/* A TSO frame that fits a slot: as it is to b, segmented for c */
static void test_pass_through(void)
{
	struct vswitch *sw = switch_new("s");
	struct sw_member *a, *b, *c;
	size_t len;

	CHECK(sw);
	a = join(sw, 1, 0, TSO_FEATURES);
	b = join(sw, 1, 0, TSO_FEATURES);
	c = join(sw, 1, 0, BIT(VIRTIO_F_VERSION_1));
	len = tcp4(BCAST, -1, 3000, 1000, 0x18);	/* PSH|ACK */
	CHECK_EQ(send(a, len), (int)len);
	CHECK_EQ(recv1(b), (int)len);
	CHECK(!memcmp(rxbuf, txbuf, len));	/* vnet header and bytes */
	CHECK_EQ(pending(b), 0);
	check_segments(c, 3000, 1000, 0x18);
	CHECK_EQ(atomic_load(&a->st.drop_bad), 0);
	switch_free(sw);
}

/*
 * A 20000 B TSO frame: b takes TSO, gets TSO frames of 6 whole segments
 * each that fit a slot; segmenting those gives what c got (full software
 * segmentation), and their partial checksums are the pseudo-header's
 */
static void test_cut_and_segment(void)
{
	struct vswitch *sw = switch_new("s");
	struct sw_member *a, *b, *c;
	static uint8_t segs[BIG], back[BIG];
	const uint16_t mss = 1448;
	uint32_t k, nsegs = 0, off = 0, blen = 0;
	struct virtio_net_hdr_v1 vh;
	struct gso g;
	size_t len;
	int n, i;

	CHECK(sw);
	a = join(sw, 1, 0, TSO_FEATURES);
	b = join(sw, 1, 0, TSO_FEATURES);
	c = join(sw, 1, 0, BIT(VIRTIO_F_VERSION_1));
	len = tcp4(BCAST, -1, 20000, mss, 0x19);	/* FIN|PSH|ACK */
	CHECK_EQ(send(a, len), (int)len);
	/* b: 14 segments, 6 per slot ((9018 - 54) / 1448): 6 + 6 + 2 */
	for (k = 0; (n = recv1(b)) > 0; k++) {
		const uint8_t *f = rxbuf + HDR, *ip = f + 14, *th = ip + 20;
		uint32_t segs_in = k < 2 ? 6 : 2, plen = (uint32_t)n - HDR - 54;
		struct iovec iov = { rxbuf, (size_t)n };

		memcpy(&vh, rxbuf, sizeof(vh));
		CHECK_EQ(vh.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
		CHECK_EQ(vh.gso_type, VIRTIO_NET_HDR_GSO_TCPV4);
		CHECK_EQ(le16toh(vh.gso_size), mss);
		CHECK_EQ(le16toh(vh.csum_start), 34);
		CHECK_EQ(le16toh(vh.csum_offset), 16);
		CHECK_EQ(le16toh(vh.hdr_len), 54);
		CHECK_EQ(plen, k < 2 ? 6u * mss : 20000u - 12u * mss);
		CHECK(n - HDR <= SW_FRAME_MAX);
		CHECK_EQ(get16(ip + 2), n - HDR - 14);
		CHECK_EQ(fold(sum_bytes(0, ip, 20)), 0xffff);
		CHECK_EQ(get16(ip + 4), (uint16_t)(ID0 + nsegs));
		CHECK_EQ(get32(th + 4), SEQ0 + nsegs * mss);
		CHECK_EQ(th[13], k == 2 ? 0x19 : 0x10);
		/* the partial checksum: the pseudo-header sum, not complemented */
		CHECK_EQ(get16(th + 16), fold(pseudo4(ip, 6, 20 + plen)));
		/* segmenting it as a guest's stack would */
		n = gso_init(&g, &vh, &iov, 1, HDR);
		CHECK_EQ(n, (int)segs_in);
		for (i = 0; i < n; i++) {
			ssize_t s = gso_next(&g, back + blen, sizeof(back) - blen);

			CHECK(s > 0);
			blen += (uint32_t)s;
		}
		nsegs += segs_in;
	}
	CHECK_EQ(k, 3);
	CHECK_EQ(nsegs, 14);
	/* c: the 14 segments, complete; the same bytes as b's after segmenting */
	for (k = 0; (n = recv1(c)) > 0; k++) {
		CHECK_EQ(check_seg4(rxbuf + HDR, (size_t)n - HDR),
			 (int)MIN((uint32_t)mss, 20000u - k * mss));
		memcpy(segs + off, rxbuf + HDR, (size_t)n - HDR);
		off += (uint32_t)n - HDR;
	}
	CHECK_EQ(k, 14);
	CHECK_EQ(off, blen);
	CHECK(!memcmp(segs, back, off));
	/* and once more, checking each of c's segments field by field */
	CHECK_EQ(send(a, len), (int)len);
	CHECK_EQ(pending(b), 3);
	check_segments(c, 20000, mss, 0x19);
	switch_free(sw);
}

/* Tagged on a trunk sender: the tag goes, csum_start follows; a trunk
 * receiver gets it back */
static void test_tagged(void)
{
	struct vswitch *sw = switch_new("s");
	struct sw_member *a, *b, *c;
	struct virtio_net_hdr_v1 vh, sent;
	size_t len;
	int n;

	CHECK(sw);
	a = join(sw, 5, 1, TSO_FEATURES);
	b = join(sw, 5, 0, TSO_FEATURES);
	c = join(sw, 5, 1, TSO_FEATURES);
	len = tcp4(BCAST, 5, 2000, 1000, 0x10);
	memcpy(&sent, txbuf, sizeof(sent));
	CHECK_EQ(send(a, len), (int)len);
	n = recv1(b);
	CHECK_EQ(n, (int)len - 4);
	memcpy(&vh, rxbuf, sizeof(vh));
	CHECK_EQ(le16toh(vh.csum_start), le16toh(sent.csum_start) - 4);
	CHECK_EQ(le16toh(vh.hdr_len), le16toh(sent.hdr_len) - 4);
	CHECK(!memcmp(rxbuf + HDR, txbuf + HDR, 12));
	CHECK(!memcmp(rxbuf + HDR + 12, txbuf + HDR + 16, len - HDR - 16));
	n = recv1(c);
	CHECK_EQ(n, (int)len);
	CHECK(!memcmp(rxbuf, txbuf, len));	/* header and tag as sent */
	/* a checksum starting inside the Ethernet header: refused */
	len = tcp4(BCAST, 5, 100, 0, 0x10);
	txbuf[6] = 10;	/* csum_start: inside the 18 tagged L2 bytes */
	txbuf[7] = 0;
	CHECK_EQ(send(a, len), -EMSGSIZE);
	CHECK_EQ(atomic_load(&a->st.drop_bad), 1);
	CHECK_EQ(pending(b) + pending(c), 0);
	switch_free(sw);
}

/* NEEDS_CSUM without segmentation: as it is with GUEST_CSUM, completed
 * without */
static void test_csum_completion(void)
{
	struct vswitch *sw = switch_new("s");
	struct sw_member *a, *b, *c;
	static const uint8_t zero[HDR];
	size_t len;

	CHECK(sw);
	a = join(sw, 1, 0, TSO_FEATURES);
	b = join(sw, 1, 0, BIT(VIRTIO_NET_F_GUEST_CSUM) | BIT(VIRTIO_F_VERSION_1));
	c = join(sw, 1, 0, BIT(VIRTIO_F_VERSION_1));
	len = tcp4(BCAST, -1, 1001, 0, 0x18);
	CHECK_EQ(send(a, len), (int)len);
	CHECK_EQ(recv1(b), (int)len);
	CHECK(!memcmp(rxbuf, txbuf, len));
	CHECK_EQ(recv1(c), (int)len);
	CHECK(!memcmp(rxbuf, zero, HDR));
	CHECK_EQ(check_seg4(rxbuf + HDR, len - HDR), 1001);
	CHECK(!memcmp(rxbuf + HDR, txbuf + HDR, 50));	/* up to the checksum */
	CHECK(!memcmp(rxbuf + HDR + 52, txbuf + HDR + 52, len - HDR - 52));
	switch_free(sw);
}

/* A TSO frame gso refuses: dropped, counted, no slot reserved anywhere */
static void test_malformed_dropped(void)
{
	struct vswitch *sw = switch_new("s");
	struct sw_member *a, *b, *c;
	size_t len;

	CHECK(sw);
	a = join(sw, 1, 0, TSO_FEATURES);
	b = join(sw, 1, 0, TSO_FEATURES);
	c = join(sw, 1, 0, 0);
	len = tcp4(BCAST, -1, 20000, 1448, 0x10);
	txbuf[HDR + 14 + 9] = 17;		/* UDP under a TCPV4 request */
	CHECK_EQ(send(a, len), -EMSGSIZE);
	len = tcp4(BCAST, -1, 20000, 0, 0x10);	/* 20000 B, no segmentation */
	CHECK_EQ(send(a, len), -EMSGSIZE);
	len = tcp4(BCAST, -1, 20000, 8, 0x10);	/* 2500 segments: > a queue */
	CHECK_EQ(send(a, len), -EMSGSIZE);
	CHECK_EQ(atomic_load(&a->st.drop_bad), 3);
	CHECK_EQ(atomic_load(&b->st.drop_full) + atomic_load(&c->st.drop_full), 0);
	CHECK_EQ(atomic_load(&b->rxq[0].q.tail), 0);
	CHECK_EQ(atomic_load(&c->rxq[0].q.tail), 0);
	/* the queues work on */
	len = tcp4(BCAST, -1, 100, 0, 0x10);
	CHECK_EQ(send(a, len), (int)len);
	CHECK_EQ(pending(b), 1);
	CHECK_EQ(pending(c), 1);
	switch_free(sw);
}

/* A queue with fewer free slots than a frame takes gets none of it */
static void test_all_slots_or_none(void)
{
	struct vswitch *sw = switch_new("s");
	struct sw_member *a, *b;
	size_t len, tail;
	unsigned int i;

	CHECK(sw);
	a = join(sw, 1, 0, TSO_FEATURES);
	b = join(sw, 1, 0, 0);
	len = tcp4(BCAST, -1, 100, 0, 0x10);
	for (i = 0; i < SW_QUEUE_SLOTS - 13; i++)
		CHECK_EQ(send(a, len), (int)len);
	tail = atomic_load(&b->rxq[0].q.tail);
	len = tcp4(BCAST, -1, 20000, 1448, 0x10);	/* 14 segments, 13 free */
	CHECK_EQ(send(a, len), (int)len);	/* flooded: taken, dropped at b */
	CHECK_EQ(atomic_load(&b->st.drop_full), 1);
	CHECK_EQ(atomic_load(&b->rxq[0].q.tail), tail);
	CHECK_EQ(pending(b), SW_QUEUE_SLOTS - 13);
	CHECK_EQ(send(a, len), (int)len);
	check_segments(b, 20000, 1448, 0x10);
	switch_free(sw);
}

/* The mask: GUEST_TSO needs GUEST_CSUM; no header, no offloads */
static void test_mask(void)
{
	CHECK_EQ(sw_offl_mask(TSO_FEATURES, HDR),
		 SW_OFFL_CSUM | 1u << VIRTIO_NET_HDR_GSO_TCPV4 |
		 1u << VIRTIO_NET_HDR_GSO_TCPV6);
	CHECK_EQ(sw_offl_mask(TSO_FEATURES & ~BIT(VIRTIO_NET_F_GUEST_CSUM), HDR), 0);
	CHECK_EQ(sw_offl_mask(TSO_FEATURES, 0), 0);
	CHECK_EQ(sw_offl_mask(TSO_FEATURES | BIT(VIRTIO_NET_F_GUEST_ECN), 10) &
		 SW_OFFL_ECN, SW_OFFL_ECN);
}

#ifndef VNET_SANITIZED
static void test_no_alloc_per_frame(void)
{
	struct vswitch *sw = switch_new("s");
	struct sw_member *a, *b, *c;
	unsigned long n;
	unsigned int i;
	size_t len;

	CHECK(sw);
	a = join(sw, 1, 0, TSO_FEATURES);
	b = join(sw, 1, 0, TSO_FEATURES);
	c = join(sw, 1, 0, 0);
	len = tcp4(BCAST, -1, 20000, 1448, 0x10);
	alloc_count_start();
	for (i = 0; i < 200; i++) {
		send(a, len);
		while (recv1(b) > 0 || recv1(c) > 0)
			;
	}
	n = alloc_count_stop();
	CHECK_EQ(n, 0);
	switch_free(sw);
}
#else
static void test_no_alloc_per_frame(void)
{
	SKIP("sanitizer build: ASan owns the allocator, run the release build");
}
#endif

int main(void)
{
	RUN(test_pass_through);
	RUN(test_cut_and_segment);
	RUN(test_tagged);
	RUN(test_csum_completion);
	RUN(test_malformed_dropped);
	RUN(test_all_slots_or_none);
	RUN(test_mask);
	RUN(test_no_alloc_per_frame);
	return test_exit();
}
