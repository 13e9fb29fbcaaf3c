/* SPDX-License-Identifier: MIT */
/*
 * gso.h - software offloads for a host side that cannot take a virtio-net
 * header (AF_XDP; a switch port): a guest frame with a partial checksum
 * (NEEDS_CSUM) or a segmentation request (TSO4, TSO6, USO) becomes the
 * frames a NIC would have put on the wire, one segment at a time, into
 * buffers the caller provides. Pure: no allocation, no syscall, no state
 * outside struct gso.
 */
#ifndef VNET_GSO_H
#define VNET_GSO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <linux/virtio_net.h>

#include "vnet_hdr.h"

/* Headers copied into every segment at most: Ethernet + VLAN, IPv4 with
 * options or IPv6, TCP with options (18 + 60 + 60) */
#define GSO_HDR_MAX	144

/**
 * enum gso_kind - What a frame asks of gso_next()
 * @GSO_KIND_NONE:	Nothing: copied as it is
 * @GSO_KIND_CSUM:	Complete the partial checksum (csum_start/offset)
 * @GSO_KIND_TCP4:	TCP over IPv4, segmented
 * @GSO_KIND_TCP6:	TCP over IPv6, segmented
 * @GSO_KIND_UDP4:	UDP over IPv4, segmented (USO)
 * @GSO_KIND_UDP6:	UDP over IPv6, segmented (USO)
 */
enum gso_kind {
	GSO_KIND_NONE,
	GSO_KIND_CSUM,
	GSO_KIND_TCP4,
	GSO_KIND_TCP6,
	GSO_KIND_UDP4,
	GSO_KIND_UDP6,
};

/**
 * struct gso - One frame being turned into wire frames (gso_init())
 * @iov:	The frame's memory (may be guest memory: only the header
 *		copy @hdr is parsed; payload bytes are copied, then summed)
 * @iovcnt:	Entries in @iov
 * @skip:	Bytes of @iov before the frame (the vnet header)
 * @len:	Frame bytes
 * @kind:	enum gso_kind
 * @l3:		Offset of the IP header (segmentation only)
 * @l4:		Offset of the TCP/UDP header, csum_start for GSO_KIND_CSUM
 * @csum:	Offset of the checksum field
 * @hdr_len:	Header bytes repeated in each segment
 * @mss:	Payload bytes per segment (gso_size)
 * @off:	Next payload byte of the frame to send
 * @seg:	Segments produced so far
 * @nseg:	Segments the frame becomes
 * @partial:	Transport checksums are left to the sender's offload
 *		(gso_partial())
 * @ci:		Entry of @iov the next payload copy starts in (segments
 *		copy forward only: gso_payload())
 * @cbase:	Byte of @iov where entry @ci starts
 * @hdr:	Checked copy of the frame's first bytes
 */
struct gso {
	const struct iovec *iov;
	unsigned int iovcnt;
	uint32_t skip;
	uint32_t len;
	uint8_t kind;
	uint32_t l3;
	uint32_t l4;
	uint32_t csum;
	uint32_t hdr_len;
	uint32_t mss;
	uint32_t off;
	uint32_t seg;
	uint32_t nseg;
	bool partial;
	unsigned int ci;
	size_t cbase;
	uint8_t hdr[GSO_HDR_MAX];
};

int gso_init(struct gso *g, const struct virtio_net_hdr_v1 *vh,
	     const struct iovec *iov, unsigned int iovcnt, uint32_t skip);
bool gso_partial(struct gso *g, uint16_t *start, uint16_t *offset);
uint32_t gso_seg_max(const struct gso *g);
ssize_t gso_next(struct gso *g, uint8_t *buf, size_t room);
ssize_t gso_next_gso(struct gso *g, uint8_t *buf, size_t room, uint32_t n);
void gso_csum(uint8_t *p, const uint8_t *data, size_t n);
uint64_t gso_sum(uint64_t s, const uint8_t *p, size_t n);
uint16_t gso_sum_fold(uint64_t s);
void gso_fold(uint8_t *p, uint64_t s);
uint64_t gso_pseudo_sum(const uint8_t *ip, bool v6, uint8_t proto,
			uint32_t l4len);

#endif /* VNET_GSO_H */
