/* SPDX-License-Identifier: MIT */
/*
 * tcpseg_testutil.h - wire frames of one TCP flow (Ethernet, an optional
 * 802.1Q tag, IPv4 or IPv6, TCP with or without timestamps), their
 * checksums set and checked by a reference sum (one big-endian word at a
 * time), for the GRO tests (test_gro, test_xsk_ring). Bodies:
 * tcpseg_testutil.c.
 */
#ifndef VNET_TCPSEG_TESTUTIL_H
#define VNET_TCPSEG_TESTUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Headers of a segment at most: Ethernet + tag, IPv6, TCP + timestamps */
#define TCPSEG_HDR_MAX	(18 + 40 + 32)

#define TCPSEG_FIN	0x01
#define TCPSEG_SYN	0x02
#define TCPSEG_RST	0x04
#define TCPSEG_PSH	0x08
#define TCPSEG_ACK	0x10
#define TCPSEG_URG	0x20

/**
 * struct tcpseg_flow - What every segment of a flow shares
 * @v6:		IPv6 (else IPv4)
 * @vlan:	One 802.1Q tag
 * @ts:		TCP timestamps option (NOP, NOP, 10 bytes)
 * @df:		IPv4 DF
 * @ttl:	TTL / hop limit
 * @ipopt:	IPv4 option bytes (NOPs, a multiple of 4)
 */
struct tcpseg_flow {
	bool v6;
	bool vlan;
	bool ts;
	bool df;
	uint8_t ttl;
	uint8_t ipopt;
};

size_t tcpseg_build(uint8_t *buf, const struct tcpseg_flow *f, uint32_t seq,
		    uint16_t id, uint8_t flags, size_t plen);
size_t tcpseg_l3(const uint8_t *frame);
size_t tcpseg_l4(const uint8_t *frame);
size_t tcpseg_hlen(const uint8_t *frame);
void tcpseg_fix(uint8_t *frame, size_t len);
bool tcpseg_csum_ok(const uint8_t *frame, size_t len);
uint32_t tcpseg_ref_sum(uint32_t s, const uint8_t *p, size_t n);
uint8_t tcpseg_byte(uint32_t seq);
void tcpseg_complete(uint8_t *frame, size_t len, size_t start, size_t off);

#endif /* VNET_TCPSEG_TESTUTIL_H */
