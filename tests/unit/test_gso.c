// SPDX-License-Identifier: MIT
/*
 * test_gso.c - the software offloads (gso.c): frames with a partial
 * checksum or a TSO4/TSO6/USO request become wire frames whose every
 * field is checked here against the input, and whose checksums are
 * verified by an independent byte-at-a-time sum (IPv4 and IPv6, TCP and
 * UDP, odd lengths, a short last segment, frames split over several
 * iovecs); in partial mode (gso_partial(), AF_XDP's TX metadata) a
 * partial checksum goes as the guest wrote it and each segment carries
 * its IPv4 header checksum and the pseudo-header sum that a sender's
 * completion turns into the right checksum; bad headers are refused; random headers never make gso read
 * or write out of bounds (the ASan build); and the path allocates nothing.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "testlib.h"
#include "gso.h"
#include "iov.h"
#include "tcpseg_testutil.h"
#include "util.h"

#ifndef VNET_SANITIZED
#include "alloc_count.h"
#endif

#define FRAME_MAX	70000
#define SEG_ROOM	9100

static uint8_t frame[FRAME_MAX];
static uint8_t seg[SEG_ROOM];
/* seg_check() and csum_check() in partial mode (gso_partial()) */
static int partial;

/* Is the transport checksum of @f (@len bytes, IP at @l3) right? */
static int ref_l4_ok(const uint8_t *f, size_t len, size_t l3, int v6, int proto)
{
	size_t l4 = l3 + (v6 ? 40 : (f[l3] & 0xfu) * 4);
	uint32_t l4len = (uint32_t)(len - l4), s;

	if (v6)
		s = tcpseg_ref_sum(0, f + l3 + 8, 32);
	else
		s = tcpseg_ref_sum(0, f + l3 + 12, 8);
	s += (uint32_t)proto + (l4len >> 16) + (l4len & 0xffff);
	return tcpseg_ref_sum(s, f + l4, l4len) == 0xffff;
}

/*
 * Build an Ethernet frame: IPv4 (options of @ipopt bytes) or IPv6, TCP
 * (options of @tcpopt bytes, @flags) or UDP, @payload bytes of pattern.
 * Return: frame length; *@l4 set
 */
static size_t build(int v6, int tcp, size_t ipopt, size_t tcpopt,
		    uint8_t flags, size_t payload, size_t *l4)
{
	size_t l3 = 14, ihl = v6 ? 40 : 20 + ipopt, th = tcp ? 20 + tcpopt : 8;
	size_t i, len = l3 + ihl + th + payload;

	memset(frame, 0, l3 + ihl + th);
	memset(frame, 0xaa, 12);
	frame[12] = v6 ? 0x86 : 0x08;
	frame[13] = v6 ? 0xdd : 0x00;
	if (v6) {
		frame[l3] = 0x60;
		frame[l3 + 6] = tcp ? 6 : 17;
		frame[l3 + 7] = 64;
		for (i = 0; i < 32; i++)
			frame[l3 + 8 + i] = (uint8_t)(0x20 + i * 7);
	} else {
		frame[l3] = (uint8_t)(0x40 | ihl / 4);
		frame[l3 + 2] = 0xff;	/* a stale total length */
		frame[l3 + 4] = 0x12;
		frame[l3 + 5] = 0xfe;	/* id 0x12fe: wraps the low byte */
		frame[l3 + 6] = 0x40;	/* DF */
		frame[l3 + 8] = 64;
		frame[l3 + 9] = tcp ? 6 : 17;
		memcpy(frame + l3 + 12, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
		for (i = 20; i < ihl; i++)
			frame[l3 + i] = 1;	/* NOP options */
	}
	*l4 = l3 + ihl;
	frame[*l4] = 0x9c;
	frame[*l4 + 1] = 0x40;
	frame[*l4 + 3] = 0x50;
	if (tcp) {
		memcpy(frame + *l4 + 4, "\xff\xff\xf0\x00", 4);	/* seq wraps */
		frame[*l4 + 12] = (uint8_t)((th / 4) << 4);
		frame[*l4 + 13] = flags;
		frame[*l4 + 14] = 0x10;
		for (i = 20; i < th; i++)
			frame[*l4 + i] = 1;
	}
	for (i = 0; i < payload; i++)
		frame[*l4 + th + i] = (uint8_t)(i * 31 + 7);
	return len;
}

/* A vnet header asking for @type with @mss */
static struct virtio_net_hdr_v1 vhdr(uint8_t type, size_t l4, int tcp,
				     uint16_t mss, uint16_t hdr_len)
{
	struct virtio_net_hdr_v1 h;

	memset(&h, 0, sizeof(h));
	h.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	h.gso_type = type;
	h.csum_start = htole16((uint16_t)l4);
	h.csum_offset = htole16(tcp ? 16 : 6);
	h.gso_size = htole16(mss);
	h.hdr_len = htole16(hdr_len);
	return h;
}

/* The frame as the guest gives it: a 12 byte header, then pieces */
static unsigned int split(struct iovec *iov, struct virtio_net_hdr_v1 *h,
			  size_t len, size_t piece)
{
	unsigned int n = 1;
	size_t off = 0;

	iov[0].iov_base = h;
	iov[0].iov_len = sizeof(*h);
	while (off < len) {
		iov[n].iov_base = frame + off;
		iov[n].iov_len = MIN(piece, len - off);
		off += iov[n++].iov_len;
	}
	return n;
}

/* gso_partial() on @g: the request names the checksum at @l4 + @off */
static bool partial_req(struct gso *g, size_t l4, uint16_t off)
{
	uint16_t start = 0, o = 0;

	return gso_partial(g, &start, &o) && start == l4 && o == off;
}

/*
 * Segment a frame and check every segment against it; Return: 0, or the
 * line of the first difference
 */
static int seg_check(int v6, int tcp, size_t ipopt, size_t tcpopt,
		     uint8_t flags, size_t payload, uint16_t mss, size_t piece)
{
	static struct iovec iov[FRAME_MAX / 7 + 4];
	size_t l4, len = build(v6, tcp, ipopt, tcpopt, flags, payload, &l4);
	size_t hl = l4 + (tcp ? 20 + tcpopt : 8), off = hl, l3 = 14;
	uint8_t type = !tcp ? VIRTIO_NET_HDR_GSO_UDP_L4 :
		       v6 ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4;
	struct virtio_net_hdr_v1 h = vhdr(type, l4, tcp, mss, (uint16_t)len);
	unsigned int n = split(iov, &h, len, piece), i, nseg;
	struct gso g;
	ssize_t r;

	nseg = payload ? (unsigned int)((payload + mss - 1) / mss) : 1;
	if (gso_init(&g, &h, iov, n, sizeof(h)) != (int)nseg)
		return __LINE__;
	if (gso_seg_max(&g) != hl + MIN(mss, payload))
		return __LINE__;
	if (partial && !partial_req(&g, l4, tcp ? 16 : 6))
		return __LINE__;
	for (i = 0; i < nseg; i++) {
		size_t plen = MIN((size_t)mss, len - off);
		int last = i + 1 == nseg;

		r = gso_next(&g, seg, sizeof(seg));
		if (r != (ssize_t)(hl + plen))
			return __LINE__;
		if (memcmp(seg, frame, 12) || memcmp(seg + hl, frame + off, plen))
			return __LINE__;
		if (!v6) {
			uint16_t id = (uint16_t)(0x12fe + i);

			if (seg[l3 + 2] != (uint8_t)((r - 14) >> 8) ||
			    seg[l3 + 3] != (uint8_t)(r - 14))
				return __LINE__;
			if (seg[l3 + 4] != id >> 8 || seg[l3 + 5] != (id & 0xff))
				return __LINE__;
			if (tcpseg_ref_sum(0, seg + l3, l4 - l3) != 0xffff)
				return __LINE__;
		} else if (seg[l3 + 4] != (uint8_t)((r - 54) >> 8) ||
			   seg[l3 + 5] != (uint8_t)(r - 54)) {
			return __LINE__;
		}
		if (tcp) {
			uint32_t seq = 0xfffff000u + (uint32_t)(i * mss), got;
			uint8_t want = flags;

			memcpy(&got, seg + l4 + 4, 4);
			if (ntohl(got) != seq)
				return __LINE__;
			if (!last)
				want &= (uint8_t)~0x09;		/* FIN, PSH */
			if (i)
				want &= (uint8_t)~0x80;		/* CWR */
			if (seg[l4 + 13] != want)
				return __LINE__;
		} else if (seg[l4 + 4] != (uint8_t)((r - l4) >> 8) ||
			   seg[l4 + 5] != (uint8_t)(r - l4)) {
			return __LINE__;
		}
		/* the sender completes it (a summed one would come out 0) */
		if (partial)
			tcpseg_complete(seg, (size_t)r, l4, tcp ? 16 : 6);
		if (!ref_l4_ok(seg, (size_t)r, l3, v6, tcp ? 6 : 17))
			return __LINE__;
		off += plen;
	}
	if (gso_next(&g, seg, sizeof(seg)) != 0)
		return __LINE__;
	return 0;
}

static void test_tso4(void)
{
	/* 1448 MSS, last segment shorter; options; odd pieces */
	CHECK_EQ(seg_check(0, 1, 0, 12, 0x19, 65000, 1448, 4096), 0);
	CHECK_EQ(seg_check(0, 1, 8, 0, 0x99, 10001, 1460, 7), 0);
	/* payload an exact multiple of the MSS; odd MSS */
	CHECK_EQ(seg_check(0, 1, 0, 0, 0x18, 3 * 1001, 1001, 1500), 0);
	/* one segment only */
	CHECK_EQ(seg_check(0, 1, 0, 0, 0x11, 100, 1448, 60), 0);
}

static void test_tso6(void)
{
	CHECK_EQ(seg_check(1, 1, 0, 12, 0x19, 64999, 1428, 1500), 0);
	CHECK_EQ(seg_check(1, 1, 0, 40, 0x98, 9001, 8948, 333), 0);
	CHECK_EQ(seg_check(1, 1, 0, 0, 0x08, 2 * 1440 + 1, 1440, 65536), 0);
}

static void test_uso(void)
{
	CHECK_EQ(seg_check(0, 0, 0, 0, 0, 20001, 1472, 1000), 0);
	CHECK_EQ(seg_check(1, 0, 0, 0, 0, 12345, 1452, 3), 0);
	CHECK_EQ(seg_check(0, 0, 4, 0, 0, 1, 1472, 1500), 0);
}

/* A partial checksum as the guest leaves it: the pseudo-header sum */
static int csum_check(int v6, int tcp, size_t payload, size_t piece)
{
	static struct iovec iov[FRAME_MAX / 3 + 4];
	size_t l4, len = build(v6, tcp, 0, 0, 0x18, payload, &l4);
	uint32_t l4len = (uint32_t)(len - l4), s;
	size_t field = l4 + (tcp ? 16 : 6);
	struct virtio_net_hdr_v1 h = vhdr(VIRTIO_NET_HDR_GSO_NONE, l4, tcp, 0, 0);
	unsigned int n;
	struct gso g;

	if (!tcp) {
		frame[l4 + 4] = (uint8_t)(l4len >> 8);
		frame[l4 + 5] = (uint8_t)l4len;
	}
	s = v6 ? tcpseg_ref_sum(0, frame + 22, 32) : tcpseg_ref_sum(0, frame + 26, 8);
	s = tcpseg_ref_sum(s + (tcp ? 6u : 17u) + (l4len >> 16) + (l4len & 0xffff),
		    NULL, 0);
	frame[field] = (uint8_t)(s >> 8);
	frame[field + 1] = (uint8_t)s;
	n = split(iov, &h, len, piece);
	if (gso_init(&g, &h, iov, n, sizeof(h)) != 1 || gso_seg_max(&g) != len)
		return __LINE__;
	if (partial && !partial_req(&g, l4, tcp ? 16 : 6))
		return __LINE__;
	if (gso_next(&g, seg, len - 1) != -EMSGSIZE)
		return __LINE__;
	if (gso_next(&g, seg, sizeof(seg)) != (ssize_t)len)
		return __LINE__;
	if (partial) {		/* unchanged, then completed by the sender */
		if (memcmp(seg, frame, len))
			return __LINE__;
		tcpseg_complete(seg, len, l4, tcp ? 16 : 6);
	}
	if (memcmp(seg, frame, field) || memcmp(seg + field + 2, frame + field + 2,
						len - field - 2))
		return __LINE__;
	if (!ref_l4_ok(seg, len, 14, v6, tcp ? 6 : 17))
		return __LINE__;
	return gso_next(&g, seg, sizeof(seg)) ? __LINE__ : 0;
}

static void test_csum(void)
{
	CHECK_EQ(csum_check(0, 1, 1400, 1500), 0);
	CHECK_EQ(csum_check(0, 1, 1, 5), 0);
	CHECK_EQ(csum_check(1, 1, 777, 100), 0);
	CHECK_EQ(csum_check(0, 0, 8000, 9000), 0);
	CHECK_EQ(csum_check(1, 0, 33, 3), 0);
}

/* Partial mode: the transport checksums are left to the sender */
static void test_partial(void)
{
	struct virtio_net_hdr_v1 h;
	struct iovec iov[2];
	uint16_t start = 7, off = 7;
	struct gso g;
	size_t l4, len;

	partial = 1;
	CHECK_EQ(seg_check(0, 1, 0, 12, 0x19, 65000, 1448, 4096), 0);
	CHECK_EQ(seg_check(0, 1, 8, 0, 0x99, 10001, 1460, 7), 0);
	CHECK_EQ(seg_check(1, 1, 0, 12, 0x19, 64999, 1428, 1500), 0);
	CHECK_EQ(seg_check(0, 0, 0, 0, 0, 20001, 1472, 1000), 0);
	CHECK_EQ(seg_check(1, 0, 0, 0, 0, 12345, 1452, 3), 0);
	CHECK_EQ(csum_check(0, 1, 1400, 1500), 0);
	CHECK_EQ(csum_check(1, 0, 33, 3), 0);
	partial = 0;
	/* no offload asked: nothing to request, the outputs untouched */
	len = build(0, 1, 0, 0, 0x18, 100, &l4);
	memset(&h, 0, sizeof(h));
	iov[0] = (struct iovec){ &h, sizeof(h) };
	iov[1] = (struct iovec){ frame, len };
	CHECK_EQ(gso_init(&g, &h, iov, 2, sizeof(h)), 1);
	CHECK(!gso_partial(&g, &start, &off));
	CHECK_EQ(start, 7);
	CHECK_EQ(off, 7);
}

/* No offload asked: the frame is copied unchanged */
/* gso_sum() over @n bytes at @p, as big-endian 16 bits, like the reference */
static uint32_t sum_be(uint64_t s, const uint8_t *p, size_t n)
{
	uint16_t r = gso_sum_fold(gso_sum(s, p, n));
	uint8_t b[2];

	memcpy(b, &r, 2);
	return (uint32_t)b[0] << 8 | b[1];
}

/*
 * gso_sum() against the byte-at-a-time reference: every length to 300 and
 * some large ones, at every alignment, over random bytes, all-0xff bytes
 * (a carry out of every word) and zeros; and a sum continued from an even
 * split equals the whole.
 */
static void test_sum(void)
{
	static const size_t big[] = { 1448, 1500, 4093, 9000, 65535, 65536 };
	uint32_t x = 12345;
	size_t i, n, off, k;
	int fill;

	for (fill = 0; fill < 3; fill++) {
		for (i = 0; i < sizeof(frame); i++) {
			x = x * 1103515245u + 12345u;
			frame[i] = fill == 0 ? (uint8_t)(x >> 16) :
				   fill == 1 ? 0xff : 0;
		}
		for (off = 0; off < 8; off++) {
			for (n = 0; n <= 300; n++)
				CHECK_EQ(sum_be(0, frame + off, n),
					 tcpseg_ref_sum(0, frame + off, n));
			for (k = 0; k < sizeof(big) / sizeof(big[0]); k++)
				CHECK_EQ(sum_be(0, frame + off, big[k]),
					 tcpseg_ref_sum(0, frame + off, big[k]));
		}
		for (k = 0; k < 1000; k += 2)
			CHECK_EQ(sum_be(gso_sum(0, frame, k), frame + k, 9000 - k),
				 tcpseg_ref_sum(0, frame, 9000));
	}
}

static void test_plain(void)
{
	struct virtio_net_hdr_v1 h;
	struct iovec iov[8];
	size_t l4, len = build(0, 0, 0, 0, 0, 51, &l4);
	unsigned int n;
	struct gso g;

	memset(&h, 0, sizeof(h));
	n = split(iov, &h, len, 20);
	CHECK_EQ(gso_init(&g, &h, iov, n, sizeof(h)), 1);
	CHECK_EQ(gso_next(&g, seg, sizeof(seg)), len);
	CHECK(!memcmp(seg, frame, len));
	CHECK_EQ(gso_next(&g, seg, sizeof(seg)), 0);
}

/* gso_init() of frame @len with @h; Return: its result */
static int try_init(struct virtio_net_hdr_v1 *h, size_t len)
{
	struct iovec iov[2] = {
		{ h, sizeof(*h) }, { frame, len },
	};
	struct gso g;

	return gso_init(&g, h, iov, 2, sizeof(*h));
}

static void test_bad_headers(void)
{
	struct virtio_net_hdr_v1 h, ok;
	size_t l4, len = build(0, 1, 0, 0, 0x18, 4000, &l4);

	ok = vhdr(VIRTIO_NET_HDR_GSO_TCPV4, l4, 1, 1448, 54);
	h = ok;
	CHECK_EQ(try_init(&h, len), 3);
	h.gso_size = 0;				/* gso_size 0 */
	CHECK_EQ(try_init(&h, len), -EINVAL);
	h = ok;
	h.flags = 0;				/* gso without NEEDS_CSUM */
	CHECK_EQ(try_init(&h, len), -EINVAL);
	h = ok;
	h.flags |= VIRTIO_NET_HDR_F_DATA_VALID;	/* an RX-only flag */
	CHECK_EQ(try_init(&h, len), -EINVAL);
	h = ok;
	h.csum_start = htole16(0xfff0);		/* field past the frame */
	CHECK_EQ(try_init(&h, len), -EINVAL);
	h.gso_type = VIRTIO_NET_HDR_GSO_NONE;
	CHECK_EQ(try_init(&h, len), -EINVAL);
	h = ok;
	h.csum_offset = htole16(6);		/* not TCP's checksum */
	CHECK_EQ(try_init(&h, len), -EINVAL);
	h = ok;
	h.csum_start = htole16((uint16_t)(l4 + 4));	/* not on the TCP header */
	CHECK_EQ(try_init(&h, len), -EINVAL);
	h = ok;
	h.hdr_len = htole16((uint16_t)(len + 1));	/* past the frame */
	CHECK_EQ(try_init(&h, len), -EINVAL);
	h = ok;
	h.gso_type = VIRTIO_NET_HDR_GSO_UDP;	/* UFO: not done */
	CHECK_EQ(try_init(&h, len), -EINVAL);
	h.gso_type = VIRTIO_NET_HDR_GSO_TCPV6;	/* type against the frame */
	CHECK_EQ(try_init(&h, len), -EINVAL);
	h.gso_type = VIRTIO_NET_HDR_GSO_UDP_L4;	/* protocol against the type */
	h.csum_offset = htole16(6);
	CHECK_EQ(try_init(&h, len), -EINVAL);
	h = ok;
	CHECK_EQ(try_init(&h, 13), -EINVAL);	/* shorter than Ethernet */
	CHECK_EQ(try_init(&h, l4 + 19), -EINVAL);	/* TCP header cut */
	frame[l4 + 12] = 0x40;			/* doff 4 */
	CHECK_EQ(try_init(&h, len), -EINVAL);
	frame[l4 + 12] = 0xf0;			/* doff 15: past a short frame */
	CHECK_EQ(try_init(&h, l4 + 40), -EINVAL);
	frame[l4 + 12] = 0x50;
	frame[14] = 0x44;			/* IHL 4 */
	CHECK_EQ(try_init(&h, len), -EINVAL);
	frame[14] = 0x65;			/* version 6 in an IPv4 type */
	CHECK_EQ(try_init(&h, len), -EINVAL);
	frame[14] = 0x45;
	frame[20] = 0x20;			/* MF: a fragment */
	CHECK_EQ(try_init(&h, len), -EINVAL);
	frame[20] = 0x00;
	frame[21] = 0x01;			/* a fragment offset */
	CHECK_EQ(try_init(&h, len), -EINVAL);
	frame[21] = 0x00;
	frame[12] = 0x08;
	frame[13] = 0x06;			/* ARP */
	CHECK_EQ(try_init(&h, len), -EINVAL);
	frame[13] = 0x00;
	CHECK_EQ(try_init(&h, len), 3);		/* all restored: accepted */
	/* one segment whose IPv4 total length would not fit 16 bits */
	len = build(0, 1, 0, 0, 0x18, 65496, &l4);
	h = vhdr(VIRTIO_NET_HDR_GSO_TCPV4, l4, 1, 65535, 54);
	CHECK_EQ(try_init(&h, len), -EINVAL);
	h.gso_size = htole16(65535 - 54);
	CHECK_EQ(try_init(&h, len), 2);
}

/* A segment longer than the room is refused, and nothing advances */
static void test_small_room(void)
{
	struct iovec iov[2];
	struct virtio_net_hdr_v1 h;
	size_t l4, len = build(1, 1, 0, 0, 0, 3000, &l4);
	struct gso g;

	h = vhdr(VIRTIO_NET_HDR_GSO_TCPV6, l4, 1, 1440, 0);
	iov[0] = (struct iovec){ &h, sizeof(h) };
	iov[1] = (struct iovec){ frame, len };
	CHECK_EQ(gso_init(&g, &h, iov, 2, sizeof(h)), 3);
	CHECK_EQ(gso_seg_max(&g), 74 + 1440);
	CHECK_EQ(gso_next(&g, seg, 74 + 1439), -EMSGSIZE);
	CHECK_EQ(gso_next(&g, seg, 74 + 1440), 74 + 1440);
}

/*
 * Random headers over random frames: whatever gso_init() accepts,
 * gso_next() writes into a buffer of exactly gso_seg_max() bytes (the ASan
 * build catches any byte past it) and the segments add up to the frame
 */
static void test_random(void)
{
	static const uint8_t types[] = { 0, 1, 3, 4, 5, 0x81, 0x84, 0x85, 7 };
	static uint8_t buf[FRAME_MAX];
	uint64_t st = 0x9e3779b97f4a7c15ull;
	unsigned int i, accepted = 0;

	for (i = 0; i < 20000; i++) {
		uint64_t r = test_xorshift(&st);
		int v6 = r & 1, tcp = !!(r & 2);
		size_t l4, len = build(v6, tcp, (r >> 2 & 3) * 4, (r >> 4 & 7) * 4,
				       (uint8_t)(r >> 8), r >> 16 & 0x3fff, &l4);
		struct virtio_net_hdr_v1 h;
		struct iovec iov[2];
		struct gso g;
		size_t total = 0;
		ssize_t n;
		int ns;

		r = test_xorshift(&st);
		h = vhdr(types[r % sizeof(types)], l4, tcp,
			 (uint16_t)(r >> 8 & 0xfff), (uint16_t)(r >> 20 & 0xff));
		if (r >> 40 & 1)
			h.csum_start = htole16((uint16_t)(r >> 41));
		if (r >> 42 & 1)
			h.csum_offset = htole16((uint16_t)(r >> 43 & 0x1f));
		if (r >> 48 & 1)
			frame[(r >> 49) % 80] = (uint8_t)(r >> 56);
		if (r >> 60 & 1)
			len = (r >> 20) % (len + 1);
		iov[0] = (struct iovec){ &h, sizeof(h) };
		iov[1] = (struct iovec){ frame, len };
		ns = gso_init(&g, &h, iov, 2, sizeof(h));
		if (ns < 0) {
			CHECK_EQ(ns, -EINVAL);
			continue;
		}
		accepted++;
		while ((n = gso_next(&g, buf + sizeof(buf) - gso_seg_max(&g),
				     gso_seg_max(&g))) > 0) {
			CHECK((size_t)n <= gso_seg_max(&g));
			total += (size_t)n - (g.kind >= GSO_KIND_TCP4 ? g.hdr_len : 0);
		}
		CHECK_EQ(n, 0);
		CHECK_EQ(total + (g.kind >= GSO_KIND_TCP4 ? g.hdr_len : 0), len);
	}
	CHECK(accepted > 1000);
}

/* gso_init()/gso_next() over a TSO frame, a USO frame and a partial checksum
 * allocate nothing */
static void test_noalloc(void)
{
#ifdef VNET_SANITIZED
	SKIP("sanitizer build intercepts malloc itself");
#else
	void *(*volatile do_malloc)(size_t) = malloc;
	void (*volatile do_free)(void *) = free;
	struct virtio_net_hdr_v1 h;
	unsigned long calls;
	struct iovec iov[2];
	size_t l4, len;
	unsigned int i;
	struct gso g;
	int k;

	/* the counter sees a malloc in the window */
	alloc_count_start();
	do_free(do_malloc(64));
	CHECK_EQ(alloc_count_stop(), 2);
	alloc_count_start();
	for (i = 0; i < 300; i++) {
		int tcp = i % 3 != 1, v6 = i & 1;

		len = build(v6, tcp, 0, 0, 0x18, 30000 + i, &l4);
		h = vhdr(i % 3 == 2 ? VIRTIO_NET_HDR_GSO_NONE :
			 !tcp ? VIRTIO_NET_HDR_GSO_UDP_L4 :
			 v6 ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4,
			 l4, tcp, 1400, 0);
		iov[0] = (struct iovec){ &h, sizeof(h) };
		iov[1] = (struct iovec){ frame, len };
		k = gso_init(&g, &h, iov, 2, sizeof(h));
		if (k < 1)
			break;
		while (gso_next(&g, seg, sizeof(seg)) > 0)
			;
	}
	calls = alloc_count_stop();
	CHECK_EQ(i, 300);
	CHECK_EQ(calls, 0);
#endif
}

int main(void)
{
	RUN(test_tso4);
	RUN(test_tso6);
	RUN(test_uso);
	RUN(test_csum);
	RUN(test_partial);
	RUN(test_sum);
	RUN(test_plain);
	RUN(test_bad_headers);
	RUN(test_small_room);
	RUN(test_random);
	RUN(test_noalloc);
	return test_exit();
}
