// SPDX-License-Identifier: MIT
/*
 * gso.c - checksum completion and segmentation in software, for host
 * sides that cannot hand a virtio-net header on (AF_XDP, a switch port).
 * What the guest asked for (virtio 1.x 5.1.6.2) is done here as the
 * kernel's skb_checksum_help(), tcp_gso_segment() and __udp_gso_segment()
 * do it: each segment carries the headers, the IPv4 total length, id
 * (+1 per segment) and header checksum, or the IPv6 payload length, are
 * rewritten; TCP's sequence number advances by gso_size, FIN and PSH stay
 * on the last segment only, CWR on the first only; UDP's length is the
 * segment's; the TCP/UDP checksum is computed per segment over the
 * pseudo-header and the bytes that leave. In partial mode (gso_partial(),
 * for a sender that fills checksums itself: AF_XDP's TX metadata) only
 * the IPv4 header checksum is summed; the transport checksum field holds
 * the pseudo-header sum, as a guest leaves it with NEEDS_CSUM.
 *
 * Security model: the vnet header and the frame come from the guest. The
 * header is a host copy (net_tx_prepare()); the frame's first bytes are
 * copied once into struct gso and every field that decides an offset or a
 * length is checked there, in gso_init(): the checksum field inside the
 * frame, the Ethernet type, IP version, header lengths and protocol
 * matching the gso type, no IPv4 fragment, csum_start on the transport
 * header, gso_size not 0. A frame that fails is refused with -EINVAL and
 * never read out of bounds. Payload bytes are copied into the caller's
 * buffer first and summed there, so a guest changing its memory meanwhile
 * changes what is sent, never the checksum's match with it.
 *
 * Not handled (refused): IPv6 extension headers, stacked VLANs, UFO (IP
 * fragmentation of UDP, gone from Linux guests since 4.14).
 */
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "eth.h"
#include "gso.h"
#include "iov.h"
#include "util.h"
#include "vnet_hdr.h"

#define GSO_VLAN_HLEN	4
#define GSO_IP4_HLEN	20
#define GSO_IP6_HLEN	40
#define GSO_TCP_HLEN	20
#define GSO_UDP_HLEN	8

#define GSO_TCP_FIN	0x01
#define GSO_TCP_PSH	0x08
#define GSO_TCP_CWR	0x80

/* Add the 8 bytes at @p to @a, counting the carry out in @c */
#define GSO_ADD8(a, c, p)						\
	do {								\
		uint64_t w_;						\
									\
		memcpy(&w_, (p), sizeof(w_));				\
		(a) += w_;						\
		(c) += (a) < w_;					\
	} while (0)

/*
 * The 8-byte words of @p, @n bytes (a multiple of 8), added up with their
 * carries counted apart (an add and an add-with-carry per word), four
 * words per turn. Folded to a value below 2^34 that is the same one's
 * complement sum (2^64 and 2^32 are 1 modulo 2^16 - 1), so that callers
 * keep adding to it.
 */
static uint64_t gso_sum_words(const uint8_t *p, size_t n)
{
	uint64_t a = 0, c = 0;

	for (; n >= 32; n -= 32, p += 32) {
		GSO_ADD8(a, c, p);
		GSO_ADD8(a, c, p + 8);
		GSO_ADD8(a, c, p + 16);
		GSO_ADD8(a, c, p + 24);
	}
	for (; n; n -= 8, p += 8)
		GSO_ADD8(a, c, p);
	return (a & 0xffffffffu) + (a >> 32) + c;
}

/**
 * gso_sum() - Add @n bytes to a one's complement sum (RFC 1071)
 * @s:		Sum so far
 * @p:		Bytes; @p starts a 16-bit word of the checksummed data
 * @n:		How many
 *
 * In host order: the sum is order-independent, gso_fold() and
 * gso_sum_fold() give it back the same way (gro.c verifies and builds
 * checksums with them too). Eight bytes a step: it is most of what a
 * software TSO segment costs.
 *
 * Return: the new sum, not folded
 */
uint64_t gso_sum(uint64_t s, const uint8_t *p, size_t n)
{
	uint32_t w;
	uint16_t h = 0;

	if (n >= 8) {
		s += gso_sum_words(p, n & ~(size_t)7);
		p += n & ~(size_t)7;
		n &= 7;
	}
	while (n >= 4) {
		memcpy(&w, p, 4);
		s += w;
		p += 4;
		n -= 4;
	}
	if (n >= 2) {
		memcpy(&h, p, 2);
		s += h;
		p += 2;
		n -= 2;
	}
	if (n) {
		h = 0;
		memcpy(&h, p, 1);	/* the high byte of a big-endian word */
		s += h;
	}
	return s;
}

/* Add a 16-bit value in network order to the sum: the word gso_sum()
 * would read from its two bytes in that order, without the call */
static inline uint64_t gso_sum16(uint64_t s, uint16_t v)
{
	return s + htobe16(v);
}

/**
 * gso_sum_fold() - Fold a sum of gso_sum() to 16 bits
 * @s:		Sum
 *
 * Return: the folded sum, not complemented, in the byte order gso_sum()
 *	   read (memcpy() it into a frame as it is); 0xffff for data whose
 *	   checksum is right
 */
uint16_t gso_sum_fold(uint64_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/**
 * gso_fold() - Fold a sum and store its complement, the checksum
 * @p:		Where the checksum goes (2 bytes, any alignment)
 * @s:		Sum of gso_sum() over the checksummed bytes, field zero
 *
 * 0 is sent as 0xffff (RFC 768).
 */
void gso_fold(uint8_t *p, uint64_t s)
{
	uint16_t r = (uint16_t)~gso_sum_fold(s);

	if (!r)
		r = 0xffff;
	memcpy(p, &r, 2);
}

/**
 * gso_pseudo_sum() - The TCP/UDP pseudo-header's sum (RFC 793, RFC 8200 8.1)
 * @ip:		The IP header (addresses at 12 for IPv4, 8 for IPv6)
 * @v6:		IPv6
 * @proto:	6 or 17
 * @l4len:	Transport header and payload bytes
 *
 * Return: the sum, for gso_sum() to add the transport bytes to
 */
uint64_t gso_pseudo_sum(const uint8_t *ip, bool v6, uint8_t proto,
			uint32_t l4len)
{
	uint64_t s = v6 ? gso_sum(0, ip + 8, 32) : gso_sum(0, ip + 12, 8);

	s = gso_sum16(s, proto);
	s = gso_sum16(s, (uint16_t)(l4len >> 16));
	return gso_sum16(s, (uint16_t)l4len);
}

/**
 * gso_csum() - Store the internet checksum of @n bytes (RFC 1071)
 * @p:		Where the checksum goes (2 bytes, network order, any alignment)
 * @data:	Checksummed bytes, their checksum field zero
 * @n:		How many
 *
 * For a header built outside the data path (host_gen's template); the
 * segmenting code calls gso_sum() and gso_fold() directly. A result of 0
 * is stored as 0xffff, as gso_fold() does.
 */
void gso_csum(uint8_t *p, const uint8_t *data, size_t n)
{
	gso_fold(p, gso_sum(0, data, n));
}

/* Check the IP header of a segmentation request; Return: 0 or -EINVAL */
static int gso_parse_ip(struct gso *g, uint8_t gso_type)
{
	const uint8_t *h = g->hdr;
	uint16_t type = be_get16(h + 12);
	uint8_t proto;
	bool v4;

	g->l3 = ETH_HLEN_;
	if (type == 0x8100) {
		g->l3 += GSO_VLAN_HLEN;
		type = be_get16(h + 16);
	}
	if (type == 0x0800) {
		v4 = true;
	} else if (type == 0x86dd) {
		v4 = false;
	} else {
		return -EINVAL;
	}
	if ((gso_type == VIRTIO_NET_HDR_GSO_TCPV4 && !v4) ||
	    (gso_type == VIRTIO_NET_HDR_GSO_TCPV6 && v4))
		return -EINVAL;
	if (v4) {
		if (g->len < g->l3 + GSO_IP4_HLEN || h[g->l3] >> 4 != 4 ||
		    (h[g->l3] & 0xf) < 5)
			return -EINVAL;
		/* a fragment cannot be segmented: MF or a fragment offset */
		if (be_get16(h + g->l3 + 6) & 0x3fff)
			return -EINVAL;
		g->l4 = g->l3 + (h[g->l3] & 0xfu) * 4;
		proto = h[g->l3 + 9];
	} else {
		if (g->len < g->l3 + GSO_IP6_HLEN || h[g->l3] >> 4 != 6)
			return -EINVAL;
		g->l4 = g->l3 + GSO_IP6_HLEN;
		proto = h[g->l3 + 6];
	}
	if (gso_type == VIRTIO_NET_HDR_GSO_UDP_L4) {
		if (proto != 17)
			return -EINVAL;
		g->kind = v4 ? GSO_KIND_UDP4 : GSO_KIND_UDP6;
	} else {
		if (proto != 6)
			return -EINVAL;
		g->kind = v4 ? GSO_KIND_TCP4 : GSO_KIND_TCP6;
	}
	return 0;
}

/* Check the transport header of a segmentation request; Return: 0 or -EINVAL */
static int gso_parse_l4(struct gso *g, uint32_t csum_start, uint32_t csum_offset)
{
	bool tcp = g->kind == GSO_KIND_TCP4 || g->kind == GSO_KIND_TCP6;
	uint32_t doff;

	/* the checksum the guest asked for is the transport one */
	if (csum_start != g->l4 || csum_offset != (tcp ? 16u : 6u))
		return -EINVAL;
	if (g->len < g->l4 + (tcp ? GSO_TCP_HLEN : GSO_UDP_HLEN))
		return -EINVAL;
	if (tcp) {
		doff = (g->hdr[g->l4 + 12] >> 4) * 4u;
		if (doff < GSO_TCP_HLEN)
			return -EINVAL;
		g->hdr_len = g->l4 + doff;
	} else {
		g->hdr_len = g->l4 + GSO_UDP_HLEN;
	}
	if (g->hdr_len > g->len || g->hdr_len > GSO_HDR_MAX)
		return -EINVAL;
	g->csum = g->l4 + csum_offset;
	return 0;
}

/**
 * gso_init() - Check a frame and its vnet header, and prepare to send it
 * @g:		State, filled in here
 * @vh:		Host copy of the vnet header (little-endian fields, as the
 *		guest wrote them; a 10 byte header zero-padded)
 * @iov:	The frame, after @skip bytes; must stay valid until the last
 *		gso_next()
 * @iovcnt:	Entries in @iov
 * @skip:	Bytes of @iov before the frame (the vnet header, if it is there)
 *
 * virtio 1.x 5.1.6.2: flags holds NEEDS_CSUM at most; the checksum field
 * (csum_start + csum_offset) lies inside the frame; a gso type (TCPV4,
 * TCPV6, UDP_L4, with the ECN bit or not) needs NEEDS_CSUM, gso_size > 0,
 * and hdr_len inside the frame. hdr_len is only a hint (Linux sends the
 * linear part of the skb there): the headers repeated per segment are
 * taken from the frame's own IP and TCP header lengths.
 *
 * Return: the number of frames gso_next() will produce (1 without
 *	   segmentation), -EINVAL for a header or frame that cannot be sent
 */
int gso_init(struct gso *g, const struct virtio_net_hdr_v1 *vh,
	     const struct iovec *iov, unsigned int iovcnt, uint32_t skip)
{
	uint32_t csum_start = le16toh(vh->csum_start);
	uint32_t csum_offset = le16toh(vh->csum_offset);
	uint8_t type = vh->gso_type & (uint8_t)~VIRTIO_NET_HDR_GSO_ECN;
	size_t total = iov_len(iov, iovcnt);
	uint32_t payload;
	int ret;

	memset(g, 0, offsetof(struct gso, hdr));
	if (total < (size_t)skip + ETH_HLEN_ ||
	    total - skip > VNET_FRAME_MAX)
		return -EINVAL;
	g->iov = iov;
	g->iovcnt = iovcnt;
	g->skip = skip;
	g->len = (uint32_t)(total - skip);
	g->nseg = 1;
	if (vh->flags & ~VIRTIO_NET_HDR_F_NEEDS_CSUM)
		return -EINVAL;
	if (!(vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)) {
		/* nothing to do: no segmentation without a checksum */
		return vh->gso_type == VIRTIO_NET_HDR_GSO_NONE ? 1 : -EINVAL;
	}
	if (csum_start + csum_offset + 2 > g->len)
		return -EINVAL;
	g->l4 = csum_start;
	g->csum = csum_start + csum_offset;
	if (vh->gso_type == VIRTIO_NET_HDR_GSO_NONE) {
		g->kind = GSO_KIND_CSUM;
		return 1;
	}
	if (type != VIRTIO_NET_HDR_GSO_TCPV4 && type != VIRTIO_NET_HDR_GSO_TCPV6 &&
	    type != VIRTIO_NET_HDR_GSO_UDP_L4)
		return -EINVAL;
	g->mss = le16toh(vh->gso_size);
	if (!g->mss || le16toh(vh->hdr_len) > g->len)
		return -EINVAL;
	iov_to_buf(iov, iovcnt, skip, g->hdr, MIN(g->len, (uint32_t)GSO_HDR_MAX));
	ret = gso_parse_ip(g, type);
	if (!ret)
		ret = gso_parse_l4(g, csum_start, csum_offset);
	if (ret) {
		g->kind = GSO_KIND_NONE;
		return ret;
	}
	g->off = g->hdr_len;
	payload = g->len - g->hdr_len;
	g->nseg = payload ? (payload + g->mss - 1) / g->mss : 1;
	/* a segment's IPv4 total length must fit its 16 bits */
	if ((g->kind == GSO_KIND_TCP4 || g->kind == GSO_KIND_UDP4) &&
	    gso_seg_max(g) - g->l3 > 0xffff) {
		g->kind = GSO_KIND_NONE;
		return -EINVAL;
	}
	return (int)g->nseg;
}

/**
 * gso_partial() - Leave the transport checksums of @g to the sender
 * @g:		State (gso_init() succeeded)
 * @start:	Out: where the checksum starts in each frame (the transport
 *		header)
 * @offset:	Out: the checksum field, from @start
 *
 * gso_next() then sums no payload: a NEEDS_CSUM frame goes as the guest
 * wrote it (the pseudo-header sum in the field), each segment gets its
 * IPv4 header checksum and the pseudo-header sum of its own length in the
 * field. The caller must have every frame's checksum filled at @start,
 * @offset (the same for all segments). Call it again after each gso_init().
 *
 * Return: true if @g's frames need that (a checksum or segmentation
 *	   request); false: nothing to fill, @start and @offset untouched
 */
bool gso_partial(struct gso *g, uint16_t *start, uint16_t *offset)
{
	if (g->kind == GSO_KIND_NONE || g->csum > 0xffff)
		return false;
	g->partial = true;
	*start = (uint16_t)g->l4;
	*offset = (uint16_t)(g->csum - g->l4);
	return true;
}

/**
 * gso_seg_max() - The longest frame gso_next() will produce for @g
 * @g:		State (gso_init() succeeded)
 *
 * Return: bytes: a caller whose buffers are shorter refuses the frame
 */
uint32_t gso_seg_max(const struct gso *g)
{
	if (g->kind < GSO_KIND_TCP4)
		return g->len;
	return g->hdr_len + MIN(g->mss, g->len - g->hdr_len);
}

/*
 * Rewrite the headers of the frame @buf (@len bytes) that carries @n
 * segments' payload from segment g->seg on, and set its transport
 * checksum: complete (summed over the bytes) or, @partial, the
 * pseudo-header sum alone, as a guest taking it with NEEDS_CSUM expects
 */
static void gso_fix_seg(const struct gso *g, uint8_t *buf, uint32_t len,
			uint32_t n, bool partial)
{
	bool v4 = g->kind == GSO_KIND_TCP4 || g->kind == GSO_KIND_UDP4;
	bool tcp = g->kind == GSO_KIND_TCP4 || g->kind == GSO_KIND_TCP6;
	uint8_t *ip = buf + g->l3, *th = buf + g->l4;
	uint32_t l4len = len - g->l4;
	uint64_t s;
	uint8_t zero[2] = { 0, 0 };
	uint16_t r;

	if (v4) {
		be_put16(ip + 2, (uint16_t)(len - g->l3));
		be_put16(ip + 4, (uint16_t)(be_get16(ip + 4) + g->seg));
		memcpy(ip + 10, zero, 2);
		gso_fold(ip + 10, gso_sum(0, ip, g->l4 - g->l3));
	} else {
		be_put16(ip + 4, (uint16_t)(len - g->l3 - GSO_IP6_HLEN));
	}
	s = gso_pseudo_sum(ip, !v4, tcp ? 6 : 17, l4len);
	if (tcp) {
		be_put32(th + 4, be_get32(th + 4) + g->seg * g->mss);
		if (g->seg + n < g->nseg)
			th[13] &= (uint8_t)~(GSO_TCP_FIN | GSO_TCP_PSH);
		if (g->seg)
			th[13] &= (uint8_t)~GSO_TCP_CWR;
	} else {
		be_put16(th + 4, (uint16_t)l4len);
	}
	if (partial) {
		/* the folded sum itself, not its complement (5.1.6.2) */
		r = gso_sum_fold(s);
		memcpy(buf + g->csum, &r, 2);
		return;
	}
	memcpy(buf + g->csum, zero, 2);
	gso_fold(buf + g->csum, gso_sum(s, th, l4len));
}

/*
 * Copy @n payload bytes of the frame from g->off on into @buf. g->off only
 * grows, so the walk to its iovec entry goes on from where the last copy
 * started instead of from the first entry (a 64 KiB frame in guest pages
 * is 17 or more entries, walked once per segment otherwise).
 */
static void gso_payload(struct gso *g, uint8_t *buf, uint32_t n)
{
	size_t pos = (size_t)g->skip + g->off;

	while (g->ci < g->iovcnt && g->cbase + g->iov[g->ci].iov_len <= pos) {
		g->cbase += g->iov[g->ci].iov_len;
		g->ci++;
	}
	iov_to_buf(g->iov + g->ci, g->iovcnt - g->ci, pos - g->cbase, buf, n);
}

/**
 * gso_next() - Write the next wire frame of @g into @buf
 * @g:		State (gso_init() succeeded)
 * @buf:	Destination
 * @room:	Bytes at @buf
 *
 * The bytes are copied from the frame first, then checksummed where they
 * are: what leaves is what was summed (partial mode: see gso_partial()).
 *
 * Return: bytes written, 0 when every frame was produced, -EMSGSIZE if
 *	   @room is shorter than the frame (see gso_seg_max()); @g does not
 *	   advance then
 */
ssize_t gso_next(struct gso *g, uint8_t *buf, size_t room)
{
	uint32_t plen, len;

	if (g->seg >= g->nseg)
		return 0;
	if (g->kind < GSO_KIND_TCP4) {
		if (room < g->len)
			return -EMSGSIZE;
		iov_to_buf(g->iov, g->iovcnt, g->skip, buf, g->len);
		if (g->kind == GSO_KIND_CSUM && !g->partial) {
			/* the field holds the pseudo-header sum (5.1.6.2) */
			gso_fold(buf + g->csum, gso_sum(0, buf + g->l4,
							g->len - g->l4));
		}
		g->seg++;
		return (ssize_t)g->len;
	}
	plen = MIN(g->mss, g->len - g->off);
	len = g->hdr_len + plen;
	if (room < len)
		return -EMSGSIZE;
	memcpy(buf, g->hdr, g->hdr_len);
	gso_payload(g, buf + g->hdr_len, plen);
	gso_fix_seg(g, buf, len, 1, g->partial);
	g->off += plen;
	g->seg++;
	return (ssize_t)len;
}

/**
 * gso_next_gso() - Write the next up to @n segments of @g as one smaller
 *		    segmentation request
 * @g:		State (gso_init() succeeded, a TCP or UDP kind)
 * @buf:	Destination
 * @room:	Bytes at @buf
 * @n:		Segments it may carry, at least 1
 *
 * For a receiver that segments itself but whose buffers are shorter than
 * the frame: the frame's headers and the payload of segments g->seg ..
 * g->seg + @n - 1, headers rewritten for that length as gso_next() does
 * (IPv4 total length, id of its first segment and header checksum, IPv6
 * payload length, TCP sequence number, FIN and PSH only on the last
 * piece, CWR only on the first; UDP length); the transport checksum field
 * holds the pseudo-header sum for its length, to be completed by the
 * receiver (it goes with NEEDS_CSUM and the frame's gso type and size).
 * The payload is copied, not summed.
 *
 * Return: bytes written, 0 when every segment was produced, -EMSGSIZE if
 *	   @room is too short, -EINVAL for @n 0 or a frame without
 *	   segmentation; @g does not advance then
 */
ssize_t gso_next_gso(struct gso *g, uint8_t *buf, size_t room, uint32_t n)
{
	uint32_t plen, len, segs;

	if (g->kind < GSO_KIND_TCP4 || !n)
		return -EINVAL;
	if (g->seg >= g->nseg)
		return 0;
	n = MIN(n, g->nseg - g->seg);
	plen = (uint32_t)MIN((uint64_t)n * g->mss, (uint64_t)(g->len - g->off));
	segs = plen ? (plen + g->mss - 1) / g->mss : 1;
	len = g->hdr_len + plen;
	if (room < len)
		return -EMSGSIZE;
	memcpy(buf, g->hdr, g->hdr_len);
	gso_payload(g, buf + g->hdr_len, plen);
	gso_fix_seg(g, buf, len, segs, true);
	g->off += plen;
	g->seg += segs;
	return (ssize_t)len;
}
