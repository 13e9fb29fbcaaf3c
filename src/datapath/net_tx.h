/* SPDX-License-Identifier: MIT */
/*
 * net_tx.h - the checks of a guest TX frame before it reaches the host
 * side: its vnet header against the negotiated offloads and the frame, and
 * the chain turned into the iovecs the host sends. Static, as the TX path
 * runs them per frame (net.c inlines them, and calls the offload check out
 * of line: a static callee lets the compiler keep the TX loop's values in
 * registers around it); tests and fuzzers compile the same code.
 */
#ifndef VNET_NET_TX_H
#define VNET_NET_TX_H

#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <linux/virtio_net.h>

#include "iov.h"
#include "util.h"
#include "vnet_hdr.h"

#define NET_ETH_HLEN		14	/* shortest frame we pass on */

/**
 * net_hdr_check_offload() - net_hdr_check() for a header that asks for an
 *			     offload: out of line, the common header never
 *			     comes here
 * @h:		Host copy of the header
 * @features:	Negotiated features
 * @frame_len:	Bytes after the header
 *
 * Return: 0 if the header is acceptable, -EINVAL otherwise
 */
static NOINLINE int net_hdr_check_offload(const struct virtio_net_hdr_v1 *h,
					  uint64_t features, uint32_t frame_len)
{
	uint32_t csum_start = le16toh(h->csum_start);
	uint32_t csum_offset = le16toh(h->csum_offset);
	uint8_t gso = h->gso_type & (uint8_t)~VIRTIO_NET_HDR_GSO_ECN;
	int feat;

	if (h->flags & ~VIRTIO_NET_HDR_F_NEEDS_CSUM)
		return -EINVAL;
	if (h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
		if (!(features & BIT(VIRTIO_NET_F_CSUM)))
			return -EINVAL;
		if (csum_start + csum_offset + 2 > frame_len)
			return -EINVAL;
	}
	if (h->gso_type == VIRTIO_NET_HDR_GSO_NONE)
		return 0;
	if ((h->gso_type & VIRTIO_NET_HDR_GSO_ECN) &&
	    !(features & BIT(VIRTIO_NET_F_HOST_ECN)))
		return -EINVAL;
	feat = vnet_hdr_gso_feature(gso, VNET_HDR_TX);
	if (feat < 0 || !(features & BIT(feat)))
		return -EINVAL;
	if (!(h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))
		return -EINVAL;
	if (!le16toh(h->gso_size) || le16toh(h->hdr_len) > frame_len)
		return -EINVAL;
	return 0;
}

/**
 * net_hdr_check() - Validate a guest TX vnet header against its frame
 * @h:		Host copy of the header (read once from the guest)
 * @features:	Negotiated features: offloads the guest may use
 * @frame_len:	Bytes after the header
 *
 * virtio 1.x 5.1.6.2: the driver sets no flag but NEEDS_CSUM, and that only
 * with VIRTIO_NET_F_CSUM; the checksum field lies inside the frame; a gso
 * type needs its HOST_* feature, NEEDS_CSUM and a non-zero gso_size; ECN
 * needs HOST_ECN and a gso type; hdr_len does not exceed the frame.
 *
 * Inline in the TX path: the common header (no offload) costs a branch.
 *
 * Return: 0 if the header is acceptable, -E2BIG if the frame is larger than
 *	   any valid frame, -EINVAL otherwise
 */
static inline int net_hdr_check(const struct virtio_net_hdr_v1 *h,
				uint64_t features, uint32_t frame_len)
{
	if (frame_len > VNET_FRAME_MAX)
		return -E2BIG;
	/* The common frame: no offload asked for, nothing else to check */
	if (likely(!h->flags && h->gso_type == VIRTIO_NET_HDR_GSO_NONE))
		return 0;
	return net_hdr_check_offload(h, features, frame_len);
}

/**
 * net_tx_prepare() - Turn a guest TX chain into what the host side sends
 * @in:		Readable iovecs of the chain (guest memory)
 * @nin:	Entries in @in
 * @hdr_len:	vnet header length
 * @features:	Negotiated features
 * @hdr:	Output: validated host copy of the header (zero-padded to 12)
 * @out:	Output: @hdr, then the frame iovecs (pointing into @in's memory)
 * @max_out:	Room in @out
 *
 * The header may span several descriptors; it is read once, into @hdr.
 * Inline in the TX path (net_tx_check()).
 *
 * Return: entries in @out, -EMSGSIZE if the chain is shorter than the
 *	   header plus an Ethernet header, -EINVAL for a bad header, -E2BIG
 *	   if the frame is too large or has too many segments
 */
static inline int net_tx_prepare(const struct iovec *in, unsigned int nin,
				 unsigned int hdr_len, uint64_t features,
				 struct virtio_net_hdr_v1 *hdr, struct iovec *out,
				 unsigned int max_out)
{
	/* the common chain is one buffer: header and frame */
	size_t total = nin == 1 ? in[0].iov_len : iov_len(in, nin);
	size_t skip = hdr_len;
	unsigned int i, n = 1;
	int ret;

	if (hdr_len > sizeof(*hdr) || total < hdr_len + NET_ETH_HLEN)
		return -EMSGSIZE;
	if (total - hdr_len > VNET_FRAME_MAX)
		return -E2BIG;
	/*
	 * One copy of the header (read once). Common case: it lies whole in
	 * the first buffer; a 10 byte header then also copies 2 frame bytes
	 * into num_buffers, which is cleared below.
	 */
	if (in[0].iov_len >= sizeof(*hdr)) {
		memcpy(hdr, in[0].iov_base, sizeof(*hdr));
	} else {
		memset(hdr, 0, sizeof(*hdr));
		iov_to_buf(in, nin, 0, hdr, hdr_len);
	}
	hdr->num_buffers = 0;	/* meaningless on TX (5.1.6.2) */
	ret = net_hdr_check(hdr, features, (uint32_t)(total - hdr_len));
	if (ret)
		return ret;

	out[0].iov_base = hdr;
	out[0].iov_len = hdr_len;
	if (nin == 1) {		/* the frame follows the header (checked above) */
		if (max_out < 2)
			return -E2BIG;
		out[1].iov_base = (uint8_t *)in[0].iov_base + hdr_len;
		out[1].iov_len = in[0].iov_len - hdr_len;
		return 2;
	}
	for (i = 0; i < nin; i++) {
		if (skip >= in[i].iov_len) {
			skip -= in[i].iov_len;
			continue;
		}
		if (n >= max_out)
			return -E2BIG;
		out[n].iov_base = (uint8_t *)in[i].iov_base + skip;
		out[n].iov_len = in[i].iov_len - skip;
		skip = 0;
		n++;
	}
	return (int)n;
}

#endif /* VNET_NET_TX_H */
