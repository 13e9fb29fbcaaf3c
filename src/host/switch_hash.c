// SPDX-License-Identifier: MIT
/*
 * switch_hash.c - the switch's flow hash (see switch_hash.h).
 *
 * Fields, from the frame as the guest sent it (an 802.1Q tag skipped):
 * IPv4: source and destination address, protocol, and for TCP, UDP,
 * UDP-Lite and SCTP the two ports unless the packet is a fragment (a
 * flow's fragments then hash as its addresses, never apart); IPv6: the
 * two addresses, next header and the ports when the next header is one
 * of those (extension headers are not walked: the addresses alone);
 * anything else: the two MACs and the EtherType. The VLAN is always
 * mixed in. A header cut short by @len falls back to the next coarser
 * set of fields, so any frame hashes to something stable.
 */
#include <string.h>

#include "eth.h"
#include "switch_hash.h"

/* 4 bytes at @p as they lie (any alignment) */
static inline uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* One step of a multiplicative mix (murmur3's word step) */
static inline uint32_t mix(uint32_t h, uint32_t k)
{
	k *= 0xcc9e2d51u;
	k = k << 15 | k >> 17;
	k *= 0x1b873593u;
	h ^= k;
	h = h << 13 | h >> 19;
	return h * 5 + 0xe6546b64u;
}

/* murmur3's finalizer: every input bit reaches the top bits, which
 * switch_hash_pick() uses */
static inline uint32_t fmix(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

/* Does IP protocol @proto start with two 16-bit ports? */
static inline int l4_ports(uint8_t proto)
{
	return proto == 6 || proto == 17 || proto == 132 || proto == 136;
}

/**
 * switch_flow_hash() - Hash a frame's flow
 * @f:		The frame from its Ethernet header (a tag, if any, still in)
 * @len:	Bytes of @f readable (at most SW_HASH_BYTES are read)
 * @vlan:	The frame's VLAN
 *
 * Context: per frame; a few loads and multiplications
 * Return: the hash (equal for every frame of one flow)
 */
uint32_t switch_flow_hash(const uint8_t *f, size_t len, uint16_t vlan)
{
	uint32_t h = mix(0x5f3759dfu, vlan);
	size_t off = 12;
	uint16_t type;

	if (len < 14)
		return fmix(h);
	type = (uint16_t)(f[12] << 8 | f[13]);
	if ((type == ETH_P_8021Q_ || type == ETH_P_8021AD_) && len >= 18) {
		off = 16;
		type = (uint16_t)(f[16] << 8 | f[17]);
	}
	off += 2;	/* the L3 header */
	if (type == ETH_P_IP_ && len >= off + 20 && (f[off] >> 4) == 4) {
		const uint8_t *ip = f + off;
		size_t ihl = (size_t)(ip[0] & 0xf) * 4;
		int frag = (ip[6] & 0x3f) | ip[7];	/* MF or an offset */

		h = mix(h, rd32(ip + 12));
		h = mix(h, rd32(ip + 16));
		h = mix(h, ip[9]);
		if (!frag && ihl >= 20 && l4_ports(ip[9]) && len >= off + ihl + 4)
			h = mix(h, rd32(ip + ihl));
		return fmix(h);
	}
	if (type == ETH_P_IPV6_ && len >= off + 40 && (f[off] >> 4) == 6) {
		const uint8_t *ip = f + off;
		unsigned int i;

		for (i = 8; i < 40; i += 4)
			h = mix(h, rd32(ip + i));
		h = mix(h, ip[6]);
		if (l4_ports(ip[6]) && len >= off + 44)
			h = mix(h, rd32(ip + 40));
		return fmix(h);
	}
	h = mix(h, rd32(f));
	h = mix(h, rd32(f + 4));
	h = mix(h, rd32(f + 8));
	h = mix(h, type);
	return fmix(h);
}
