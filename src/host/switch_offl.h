/* SPDX-License-Identifier: MIT */
/*
 * switch_offl.h - offloads through the switch (switch.h): a frame whose
 * vnet header asks for a checksum or segmentation reaches each receiving
 * member in the form that member negotiated. Checked once at the sender
 * (sw_offl_init()), then written per receiver (sw_offl_push()):
 *   - the receiver takes the frame's gso type (GUEST_TSO4/6 and
 *     GUEST_CSUM) or its partial checksum (GUEST_CSUM), and the frame fits
 *     a slot: copied as it is, vnet header with it;
 *   - it takes the gso type, but the frame is larger than a slot: cut into
 *     segmentation requests of whole gso_size segments that each fit a
 *     slot (gso_next_gso());
 *   - it does not: segmented and checksummed in software (gso_next()).
 * All slots of a frame are reserved before any is written
 * (swq_reserve()): a full queue refuses the frame whole.
 */
#ifndef VNET_SWITCH_OFFL_H
#define VNET_SWITCH_OFFL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <linux/virtio_net.h>

#include "gso.h"
#include "switch_queue.h"

/* slot meta: the slot holds a vnet header (SW_VNET_HDR bytes), then the
 * frame; the slot's len counts the frame only */
#define SW_META_VNET		(1u << 31)
#define SW_META_VLAN		0xfffu
#define SW_VNET_HDR		12	/* struct virtio_net_hdr_v1 */

/* A member's offload mask (struct sw_member.offl): bit N = it takes gso
 * type N as it is; bit 0 (GSO_NONE): a partial checksum; SW_OFFL_ECN: the
 * ECN bit of a gso type */
#define SW_OFFL_CSUM		(1u << VIRTIO_NET_HDR_GSO_NONE)
#define SW_OFFL_ECN		VIRTIO_NET_HDR_GSO_ECN

/**
 * struct sw_offl - One frame's offload request, checked at the sender
 * @g:		Its gso state after gso_init() (copied per receiver)
 * @vh:		Its vnet header as a receiver taking it as is gets it
 *		(offsets for the untagged frame)
 * @need:	Offload mask bits a receiver needs to take it as is
 * @tagoff:	4 if the sender's frame carries an 802.1Q tag, else 0
 * @len:	Frame bytes without the tag
 * @per:	Segments per slot when it is cut (segmentation kinds)
 */
struct sw_offl {
	struct gso g;
	struct virtio_net_hdr_v1 vh;
	uint32_t need;
	uint32_t tagoff;
	uint32_t len;
	uint32_t per;
};

uint32_t sw_offl_mask(uint64_t features, unsigned int hdr_len);
int sw_offl_init(struct sw_offl *o, const struct iovec *iov,
		 unsigned int iovcnt, unsigned int hdr_len, bool tagged,
		 uint32_t frame_max, uint32_t slots);
int sw_offl_push(struct swq *q, uint32_t mask, const struct sw_offl *o,
		 const struct iovec *seg, unsigned int nseg, uint32_t vlan);

/**
 * sw_offl_asked() - Does the frame's vnet header ask for an offload?
 * @iov:	The frame, vnet header first
 * @hdr_len:	vnet header bytes (0: none)
 *
 * Inline on the common path: reads the header's flags and gso_type
 * bytes. The first iovec holds the whole header (net_tx_prepare()'s host
 * copy); if it is shorter, sw_offl_init() reads the header whole.
 *
 * Return: true if flags or gso_type is not 0, or the header is split
 */
static inline bool sw_offl_asked(const struct iovec *iov, unsigned int hdr_len)
{
	uint16_t w;

	if (!hdr_len)
		return false;
	if (iov[0].iov_len < hdr_len)
		return true;
	memcpy(&w, iov[0].iov_base, sizeof(w));
	return w;
}

#endif /* VNET_SWITCH_OFFL_H */
