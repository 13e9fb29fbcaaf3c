// SPDX-License-Identifier: MIT
/*
 * switch_offl.c - offloads through the switch (see switch_offl.h): which
 * offloads a member takes, one frame's request checked at the sender, and
 * the frame written into a receiver's hand-off queue in the form that
 * receiver takes: as it is, cut into slot-sized segmentation requests, or
 * segmented and checksummed in software.
 *
 * Security model: the vnet header and the frame come from the sending
 * guest. gso_init() checks every field that decides an offset or a length
 * (see gso.c); sw_offl_init() adds what the switch needs: the checksum
 * start past the Ethernet header (so that removing the tag cannot move it
 * before the frame), each piece fitting a slot and the pieces fitting a
 * queue. Nothing is reserved before all of that holds.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <linux/virtio_config.h>

#include "eth.h"
#include "iov.h"
#include "switch_offl.h"
#include "util.h"
#include "vnet_hdr.h"

/**
 * sw_offl_mask() - The offloads a member takes, from what its guest acked
 * @features:	The member's negotiated virtio-net features
 * @hdr_len:	Its vnet header bytes (0: no header, no offloads)
 *
 * GUEST_CSUM: partial checksums; a gso type's GUEST_* feature
 * (vnet_hdr_gso_feature()) with GUEST_CSUM, which segmentation needs
 * (virtio 5.1.3.1): that type; GUEST_ECN: the ECN bit with it.
 *
 * Context: control thread, when the member's guest acks its features
 * Return: the mask for struct sw_member.offl
 */
uint32_t sw_offl_mask(uint64_t features, unsigned int hdr_len)
{
	static const uint8_t types[] = {
		VIRTIO_NET_HDR_GSO_TCPV4, VIRTIO_NET_HDR_GSO_TCPV6,
		VIRTIO_NET_HDR_GSO_UDP_L4,
	};
	uint32_t mask = SW_OFFL_CSUM;
	unsigned int i;
	int feat;

	if (!vnet_hdr_len_valid(hdr_len) ||
	    !(features & BIT(VIRTIO_NET_F_GUEST_CSUM)))
		return 0;
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		feat = vnet_hdr_gso_feature(types[i], VNET_HDR_RX);
		if (feat >= 0 && (features & BIT(feat)))
			mask |= 1u << types[i];
	}
	if (features & BIT(VIRTIO_NET_F_GUEST_ECN))
		mask |= SW_OFFL_ECN;
	return mask;
}

/**
 * sw_offl_init() - Check a frame's offload request once, at the sender
 * @o:		Output
 * @iov:	The frame, vnet header first (as switch_tx() got it)
 * @iovcnt:	Entries in @iov
 * @hdr_len:	vnet header bytes, 1..SW_VNET_HDR
 * @tagged:	The frame carries an 802.1Q tag (removed in the slots)
 * @frame_max:	Frame bytes a slot holds after the vnet header
 * @slots:	Slots of a receiver's queue
 *
 * Return: 0: @o describes the request; 1: the header asks for nothing
 *	   (a plain frame); -EINVAL: gso refused it, its checksum starts in
 *	   the Ethernet header, a piece would not fit a slot or its pieces
 *	   not a queue (drop it: drop_bad)
 */
int sw_offl_init(struct sw_offl *o, const struct iovec *iov,
		 unsigned int iovcnt, unsigned int hdr_len, bool tagged,
		 uint32_t frame_max, uint32_t slots)
{
	struct virtio_net_hdr_v1 *vh = &o->vh;
	uint32_t hlen, cs;
	int nseg;

	if (!hdr_len || hdr_len > sizeof(*vh))
		return -EINVAL;
	memset(vh, 0, sizeof(*vh));
	iov_to_buf(iov, iovcnt, 0, vh, hdr_len);
	vh->num_buffers = 0;
	if (!vh->flags && vh->gso_type == VIRTIO_NET_HDR_GSO_NONE)
		return 1;
	nseg = gso_init(&o->g, vh, iov, iovcnt, hdr_len);
	if (nseg < 1 || o->g.kind == GSO_KIND_NONE)
		return -EINVAL;
	o->tagoff = tagged ? 4 : 0;
	o->len = o->g.len - o->tagoff;
	cs = le16toh(vh->csum_start);
	if (cs < ETH_HLEN_ + o->tagoff)
		return -EINVAL;
	vh->csum_start = htole16((uint16_t)(cs - o->tagoff));
	o->need = SW_OFFL_CSUM;
	o->per = 1;
	if (o->g.kind == GSO_KIND_CSUM)
		return o->len <= frame_max ? 0 : -EINVAL;
	/* a segmentation request: every segment fits a slot, all a queue */
	if (gso_seg_max(&o->g) - o->tagoff > frame_max || o->g.nseg > slots)
		return -EINVAL;
	hlen = o->g.hdr_len - o->tagoff;
	o->per = MAX((frame_max - hlen) / o->g.mss, 1u);
	if (le16toh(vh->hdr_len) >= o->tagoff)
		vh->hdr_len = htole16((uint16_t)(le16toh(vh->hdr_len) - o->tagoff));
	o->need |= 1u << (vh->gso_type & ~VIRTIO_NET_HDR_GSO_ECN);
	o->need |= vh->gso_type & VIRTIO_NET_HDR_GSO_ECN;
	return 0;
}

/*
 * One piece written by @write at @buf (room @room past SW_VNET_HDR)
 * without the tag: written @tagoff bytes early, then its MACs moved over
 * the tag. Return: the untagged piece's bytes, or -errno
 */
static ssize_t sw_offl_piece(struct gso *g, uint8_t *buf, size_t room,
			     uint32_t tagoff, uint32_t per)
{
	uint8_t *at = buf + SW_VNET_HDR - tagoff;
	ssize_t n;

	n = per ? gso_next_gso(g, at, room + tagoff, per) :
		  gso_next(g, at, room + tagoff);
	if (n <= (ssize_t)tagoff)
		return n < 0 ? n : -EINVAL;
	if (tagoff)
		memmove(buf + SW_VNET_HDR, at, 12);
	return n - (ssize_t)tagoff;
}

/**
 * sw_offl_push() - Queue a frame that asks for an offload to one receiver
 * @q:		The receiving pair's queue
 * @mask:	The receiver's offload mask (sw_offl_mask())
 * @o:		The request (sw_offl_init() returned 0)
 * @seg:	The untagged frame without vnet header (sw_slice())
 * @nseg:	Entries in @seg
 * @vlan:	The frame's VLAN (slot meta)
 *
 * Every slot the frame takes is reserved first; each holds a vnet header
 * (SW_META_VNET) and its frame.
 *
 * Context: a sending pair's worker; no allocation, no syscall
 * Return: 0, -ENOSPC if the queue lacks the slots (nothing queued)
 */
int sw_offl_push(struct swq *q, uint32_t mask, const struct sw_offl *o,
		 const struct iovec *seg, unsigned int nseg, uint32_t vlan)
{
	struct virtio_net_hdr_v1 vh = { 0 };
	uint32_t meta = vlan | SW_META_VNET, per = 0, n, i;
	size_t pos, room = q->slot_size - SW_VNET_HDR;
	struct gso g;
	uint8_t *buf;
	ssize_t len;
	int ret;

	if ((mask & o->need) == o->need && o->len <= room) {
		/* the receiver takes it as it is */
		ret = swq_reserve(q, 1, &pos);
		if (ret)
			return ret;
		buf = swq_slot_buf(q, pos);
		memcpy(buf, &o->vh, SW_VNET_HDR);
		iov_to_buf(seg, nseg, 0, buf + SW_VNET_HDR, o->len);
		swq_publish(q, pos, o->len, meta);
		return 0;
	}
	memcpy(&g, &o->g, sizeof(g));
	n = g.nseg;
	if ((mask & o->need) == o->need) {
		/* it segments itself, but not from one slot: cut */
		per = o->per;
		n = (g.nseg + per - 1) / per;
		vh.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		vh.gso_type = o->vh.gso_type;
		vh.gso_size = o->vh.gso_size;
		vh.csum_start = htole16((uint16_t)(g.l4 - o->tagoff));
		vh.csum_offset = o->vh.csum_offset;
		vh.hdr_len = htole16((uint16_t)(g.hdr_len - o->tagoff));
	}
	ret = swq_reserve(q, n, &pos);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		buf = swq_slot_buf(q, pos + i);
		len = sw_offl_piece(&g, buf, room, o->tagoff, per);
		if (len < 0)
			len = 0;	/* cannot be (sizes checked at init) */
		memcpy(buf, &vh, SW_VNET_HDR);
		swq_publish(q, pos + i, (uint32_t)len, meta);
	}
	return 0;
}
