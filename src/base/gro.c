// SPDX-License-Identifier: MIT
/*
 * gro.c - TCP segments merged into one GSO frame in software, as the
 * kernel's tcp_gro_receive() and tcp_gro_complete() merge them, for a host
 * side that receives wire frames without a virtio-net header (AF_XDP) and a
 * guest that takes GSO frames (GUEST_CSUM and GUEST_TSO4/6 acked). The
 * caller (xsk_ring.c) holds a batch of frames and asks, frame after frame,
 * whether the next one continues the run (gro_add()); nothing is held
 * across batches, so there is no timer. The merged frame is the first
 * frame's headers as gro_finish() rewrites them, then the payload of every
 * segment in order: what gso.c's segmentation turns back into the same
 * wire frames, byte for byte.
 *
 * A segment continues the run when, as in tcp_gro_receive(): its Ethernet
 * header (MACs, the VLAN tag) is the first's; IPv4 without options, not a
 * fragment, with the first's TOS, DF, TTL and addresses and the id one
 * past the previous segment's (or, with DF, the same id on every segment),
 * or IPv6 without extension headers with the first's traffic class, flow
 * label, hop limit and addresses; TCP with the first's ports, ack number,
 * window, urgent pointer, header length and option bytes (timestamps
 * included), its sequence number where the previous payload ended, ACK
 * alone set (PSH allowed: it ends the run and the merged frame carries
 * it); a payload of at most the first's (the mss), only the last may be
 * shorter; the merged IP length within 65535 and the frame within the
 * caller's byte cap. The first segment must have ACK alone and a payload.
 * Anything else (SYN, FIN, RST, URG, CWR, ECE, a pure ACK, another flow)
 * goes to the guest as it is.
 *
 * Checksums: a merged frame goes to the guest with NEEDS_CSUM, which a
 * guest takes as verified, so every segment of a run has its IPv4 header
 * checksum and its TCP checksum verified here first (the first only once
 * a second segment matched: a run of one costs no sum). A segment that
 * fails is never merged: it reaches the guest as it came, with an all-zero
 * vnet header, and the guest drops it.
 *
 * Security model: the frames are the wire's (a peer's), read from memory
 * the caller owns. Every length and offset is checked in gro_parse()
 * before any field behind it is read: the Ethernet type (one 802.1Q tag),
 * the IP version, header length and protocol, the IP length against the
 * frame's (a frame with padding or cut short is not merged), the TCP
 * header length inside the frame. Each of those fields is read once, and
 * every offset and length gro.c and its caller use comes from those reads
 * (struct gro), never from a second look at the frame: memory that changed
 * under it (a UMEM another process maps) can change the bytes delivered,
 * not where they are read. Nothing is written but struct gro and the
 * caller's vnet header.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "eth.h"
#include "gro.h"
#include "gso.h"

#define GRO_VLAN_HLEN	4
#define GRO_IP4_HLEN	20
#define GRO_IP6_HLEN	40
#define GRO_TCP_HLEN	20
#define GRO_IP_MAX	0xffffu		/* IPv4 total / IPv6 payload length */

#define GRO_TCP_PSH	0x08
#define GRO_TCP_ACK	0x10
#define GRO_IP4_DF	0x40		/* in the high byte of frag_off */

/* gro.id_step before a second segment chose it */
#define GRO_ID_UNSET	0xff

_Static_assert(ETH_HLEN_ + GRO_VLAN_HLEN + GRO_IP6_HLEN + 60 <= GRO_HDR_MAX,
	       "GRO_HDR_MAX holds the longest header gro_parse() takes");

/**
 * struct gro_pkt - One frame's checked layout (gro_parse())
 * @l3:		Offset of the IP header
 * @l4:		Offset of the TCP header
 * @hlen:	Header bytes (Ethernet to the end of the TCP options)
 * @plen:	TCP payload bytes
 * @v6:		IPv6
 * @flags:	TCP flags
 */
struct gro_pkt {
	uint32_t l3;
	uint32_t l4;
	uint32_t hlen;
	uint32_t plen;
	bool v6;
	uint8_t flags;
};

/*
 * Check that @f (@len bytes) is Ethernet (one 802.1Q tag at most), IPv4
 * without options and not a fragment or IPv6 without extension headers
 * (of @families), TCP, the IP length exactly the frame's; fill @p.
 * Return: 0, -EINVAL for any other frame
 */
static int gro_parse(const uint8_t *f, uint32_t len, unsigned int families,
		     struct gro_pkt *p)
{
	const uint8_t *ip;
	uint16_t type;
	uint32_t doff;

	if (len < ETH_HLEN_ + GRO_VLAN_HLEN)
		return -EINVAL;
	p->l3 = ETH_HLEN_;
	type = be_get16(f + 12);
	if (type == ETH_P_8021Q_) {
		p->l3 += GRO_VLAN_HLEN;
		type = be_get16(f + 16);
	}
	ip = f + p->l3;
	if (type == ETH_P_IP_ && (families & GRO_IPV4)) {
		if (len < p->l3 + GRO_IP4_HLEN || ip[0] != 0x45 || ip[9] != 6 ||
		    (be_get16(ip + 6) & 0x3fff) ||
		    p->l3 + be_get16(ip + 2) != len)
			return -EINVAL;
		p->l4 = p->l3 + GRO_IP4_HLEN;
		p->v6 = false;
	} else if (type == ETH_P_IPV6_ && (families & GRO_IPV6)) {
		if (len < p->l3 + GRO_IP6_HLEN || ip[0] >> 4 != 6 || ip[6] != 6 ||
		    p->l3 + GRO_IP6_HLEN + be_get16(ip + 4) != len)
			return -EINVAL;
		p->l4 = p->l3 + GRO_IP6_HLEN;
		p->v6 = true;
	} else {
		return -EINVAL;
	}
	if (len < p->l4 + GRO_TCP_HLEN)
		return -EINVAL;
	doff = (f[p->l4 + 12] >> 4) * 4u;
	if (doff < GRO_TCP_HLEN || p->l4 + doff > len)
		return -EINVAL;
	p->hlen = p->l4 + doff;
	p->plen = len - p->hlen;
	p->flags = f[p->l4 + 13];
	return 0;
}

/* Are the IPv4 header checksum and the TCP checksum of @f right? */
static bool gro_csum_ok(const uint8_t *f, uint32_t len, uint32_t l3,
			uint32_t l4, bool v6)
{
	const uint8_t *ip = f + l3;
	uint64_t s;

	if (!v6 && gso_sum_fold(gso_sum(0, ip, GRO_IP4_HLEN)) != 0xffff)
		return false;
	s = gso_pseudo_sum(ip, v6, 6, len - l4);
	return gso_sum_fold(gso_sum(s, f + l4, len - l4)) == 0xffff;
}

/**
 * gro_start() - Begin a run with frame @frame, if it can head one
 * @g:		Run, filled in here
 * @frame:	The frame (Ethernet header first); must stay valid and
 *		unchanged until gro_finish() or the run is abandoned
 * @len:	Its bytes
 * @families:	GRO_IPV4 and/or GRO_IPV6: what the guest takes merged
 * @cap:	Merged frame bytes at most (what the guest's buffers take)
 *
 * Its checksums are verified by the first gro_add() that matches.
 *
 * Return: 0, -EINVAL if @frame cannot head a run (not TCP of @families,
 *	   options or extension headers, flags other than ACK, no payload,
 *	   longer than @cap): it goes to the guest as it is
 */
int gro_start(struct gro *g, const uint8_t *frame, uint32_t len,
	      unsigned int families, uint32_t cap)
{
	struct gro_pkt p;

	if (gro_parse(frame, len, families, &p) || len > cap ||
	    p.flags != GRO_TCP_ACK || !p.plen)
		return -EINVAL;
	g->first = frame;
	g->first_len = len;
	g->cap = cap;
	g->len = len;
	g->l3 = p.l3;
	g->l4 = p.l4;
	g->hlen = p.hlen;
	g->mss = p.plen;
	g->seq = be_get32(frame + p.l4 + 4) + p.plen;
	g->ip_id = p.v6 ? 0 : be_get16(frame + p.l3 + 4);
	g->id_step = GRO_ID_UNSET;
	g->count = 1;
	g->v6 = p.v6;
	g->checked = false;
	g->closed = false;
	g->psh = false;
	memcpy(g->hdr, frame, p.hlen);
	return 0;
}

/*
 * Do the IP headers of @b (layout @p) continue the run? *@step: the IPv4
 * id step they imply (committed by the caller once all else matched)
 */
static bool gro_ip_match(const struct gro *g, const uint8_t *b,
			 const struct gro_pkt *p, uint8_t *step)
{
	const uint8_t *h = g->hdr + g->l3, *ip = b + p->l3;
	uint16_t d;

	if (g->v6)	/* version, class, flow label; hop limit; addresses */
		return !memcmp(ip, h, 4) && ip[7] == h[7] &&
		       !memcmp(ip + 8, h + 8, 32);
	/* TOS; DF (MF and the offset are 0: gro_parse()); TTL; addresses */
	if (ip[1] != h[1] || ip[6] != h[6] || ip[8] != h[8] ||
	    memcmp(ip + 12, h + 12, 8))
		return false;
	d = (uint16_t)(be_get16(ip + 4) - g->ip_id);
	if (g->id_step != GRO_ID_UNSET)
		*step = g->id_step;
	else if (d == 1 || (!d && (ip[6] & GRO_IP4_DF)))
		*step = (uint8_t)d;
	else
		return false;
	return d == *step;
}

/* Does the TCP header of @b (layout @p) continue the run? */
static bool gro_tcp_match(const struct gro *g, const uint8_t *b,
			  const struct gro_pkt *p)
{
	const uint8_t *h = g->hdr + g->l4, *th = b + p->l4;

	/* ports; seq; ack; header length; flags; window; urgent pointer;
	 * options (the same bytes, timestamps included) */
	return !memcmp(th, h, 4) && be_get32(th + 4) == g->seq &&
	       !memcmp(th + 8, h + 8, 5) &&
	       (p->flags & (uint8_t)~GRO_TCP_PSH) == GRO_TCP_ACK &&
	       !memcmp(th + 14, h + 14, 2) && !memcmp(th + 18, h + 18, 2) &&
	       !memcmp(th + GRO_TCP_HLEN, h + GRO_TCP_HLEN,
		       g->hlen - g->l4 - GRO_TCP_HLEN);
}

/**
 * gro_add() - Add frame @frame to the run if it continues it
 * @g:		Run (gro_start() succeeded)
 * @frame:	The next frame held; valid and unchanged as gro_start() says
 * @len:	Its bytes
 *
 * The match rules are at the top of the file. The first match verifies
 * the first frame's checksums too: if they fail, the run stays at one
 * frame for good.
 *
 * Return: true if @frame joined the run (its payload follows the
 *	   previous one in the merged frame), false if it did not: the run
 *	   ends before it, and @frame goes on as the next frame
 */
bool gro_add(struct gro *g, const uint8_t *frame, uint32_t len)
{
	struct gro_pkt p;
	uint8_t step = 0;

	if (g->closed ||
	    gro_parse(frame, len, g->v6 ? GRO_IPV6 : GRO_IPV4, &p) ||
	    p.hlen != g->hlen || p.l3 != g->l3 || !p.plen || p.plen > g->mss ||
	    g->len + p.plen > g->cap || g->len + p.plen - g->l3 > GRO_IP_MAX)
		return false;
	if (memcmp(frame, g->hdr, g->l3) || !gro_ip_match(g, frame, &p, &step) ||
	    !gro_tcp_match(g, frame, &p))
		return false;
	if (!g->checked) {
		if (!gro_csum_ok(g->first, g->first_len, g->l3, g->l4, g->v6)) {
			g->closed = true;
			return false;
		}
		g->checked = true;
	}
	if (!gro_csum_ok(frame, len, g->l3, g->l4, g->v6))
		return false;
	g->len += p.plen;
	g->seq += p.plen;
	if (!g->v6) {
		g->ip_id = be_get16(frame + p.l3 + 4);
		g->id_step = step;
	}
	g->count++;
	g->psh = p.flags & GRO_TCP_PSH;
	g->closed = g->psh || p.plen < g->mss;
	return true;
}

/**
 * gro_finish() - Write the merged frame's headers and its vnet header
 * @g:		Run of two segments or more
 * @vh:		vnet header for the guest (little-endian; num_buffers 0,
 *		the caller's to set)
 *
 * As tcp_gro_complete() leaves a merged frame: in g->hdr the IPv4 total
 * length and header checksum, or the IPv6 payload length, for the merged
 * length; PSH if the last segment had it; the TCP checksum field holding
 * the pseudo-header sum (not complemented, virtio 1.x 5.1.6.2: the guest
 * may complete it). @vh: NEEDS_CSUM from the TCP header on (csum_offset
 * 16), gso_type TCPV4 or TCPV6, gso_size the first segment's payload,
 * hdr_len the header bytes.
 *
 * Return: the merged frame's bytes: g->hdr (g->hlen bytes), then every
 *	   segment's payload in order
 */
uint32_t gro_finish(struct gro *g, struct virtio_net_hdr_v1 *vh)
{
	uint8_t *ip = g->hdr + g->l3, *th = g->hdr + g->l4;
	uint16_t r;

	if (g->v6) {
		be_put16(ip + 4, (uint16_t)(g->len - g->l3 - GRO_IP6_HLEN));
	} else {
		be_put16(ip + 2, (uint16_t)(g->len - g->l3));
		ip[10] = ip[11] = 0;
		gso_fold(ip + 10, gso_sum(0, ip, GRO_IP4_HLEN));
	}
	if (g->psh)
		th[13] |= GRO_TCP_PSH;
	r = gso_sum_fold(gso_pseudo_sum(ip, g->v6, 6, g->len - g->l4));
	memcpy(th + 16, &r, 2);
	memset(vh, 0, sizeof(*vh));
	vh->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	vh->gso_type = g->v6 ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4;
	vh->hdr_len = htole16((uint16_t)g->hlen);
	vh->gso_size = htole16((uint16_t)g->mss);
	vh->csum_start = htole16((uint16_t)g->l4);
	vh->csum_offset = htole16(16);
	return g->len;
}
