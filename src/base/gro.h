/* SPDX-License-Identifier: MIT */
/*
 * gro.h - software GRO for a host side whose frames come without a
 * virtio-net header (AF_XDP): consecutive in-order TCP segments of one
 * flow, as they came off the wire, become one GSO frame for a guest that
 * acked GUEST_CSUM and GUEST_TSO4/6, as the kernel's GRO makes them per NAPI
 * poll. The reverse of gso.c's segmentation. Pure: no allocation, no
 * syscall, no state outside struct gro; the caller holds the frames and
 * copies them.
 */
#ifndef VNET_GRO_H
#define VNET_GRO_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/virtio_net.h>

/* Headers of a mergeable frame at most: Ethernet + one VLAN tag, IPv6 (or
 * IPv4 without options), TCP with options (18 + 40 + 60) */
#define GRO_HDR_MAX	118

/* Families that may merge (gro_start()'s @families) */
#define GRO_IPV4	0x1
#define GRO_IPV6	0x2

/**
 * struct gro - One run of segments being merged
 * @first:	The first frame (the caller's, valid until gro_finish())
 * @first_len:	Its bytes
 * @cap:	Merged frame bytes at most
 * @len:	Merged frame bytes so far
 * @l3:		Offset of the IP header
 * @l4:		Offset of the TCP header
 * @hlen:	Header bytes, Ethernet to the end of the TCP options
 * @mss:	Payload bytes of the first segment (the gso_size)
 * @seq:	Sequence number the next segment must start at
 * @ip_id:	IPv4 id of the last segment
 * @id_step:	IPv4 id per segment: 1, 0 (DF and a fixed id), or
 *		GRO_ID_UNSET before the second segment
 * @count:	Segments in the run
 * @v6:		IPv6
 * @checked:	The first frame's checksums were verified
 * @closed:	The last segment ended the run (shorter than @mss, or PSH)
 * @psh:	The last segment carried PSH
 * @hdr:	The first frame's headers (@hlen bytes); gro_finish()
 *		rewrites them for the merged frame
 */
struct gro {
	const uint8_t *first;
	uint32_t first_len;
	uint32_t cap;
	uint32_t len;
	uint32_t l3;
	uint32_t l4;
	uint32_t hlen;
	uint32_t mss;
	uint32_t seq;
	uint16_t ip_id;
	uint8_t id_step;
	uint32_t count;
	bool v6;
	bool checked;
	bool closed;
	bool psh;
	uint8_t hdr[GRO_HDR_MAX];
};

int gro_start(struct gro *g, const uint8_t *frame, uint32_t len,
	      unsigned int families, uint32_t cap);
bool gro_add(struct gro *g, const uint8_t *frame, uint32_t len);
uint32_t gro_finish(struct gro *g, struct virtio_net_hdr_v1 *vh);

#endif /* VNET_GRO_H */
