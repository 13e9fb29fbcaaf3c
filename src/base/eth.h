/* SPDX-License-Identifier: MIT */
/*
 * eth.h - the Ethernet header's length and the EtherTypes the data path
 * parses (the switch, its flow hash, anti-spoofing), defined once. A
 * trailing underscore keeps them apart from <linux/if_ether.h>'s names.
 * Host-order values, to compare with a type read big-endian from the
 * frame; be_get16() and the others read and write a header's big-endian
 * fields at any alignment (gso.c, gro.c).
 */
#ifndef VNET_ETH_H
#define VNET_ETH_H

#include <stdint.h>

#define ETH_HLEN_	14
#define ETH_P_IP_	0x0800
#define ETH_P_ARP_	0x0806
#define ETH_P_RARP_	0x8035
#define ETH_P_8021Q_	0x8100	/* C-tag */
#define ETH_P_8021AD_	0x88a8	/* S-tag */
#define ETH_P_IPV6_	0x86dd

/* A big-endian 16-bit field at @p */
static inline uint16_t be_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* A big-endian 32-bit field at @p */
static inline uint32_t be_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* Store @v big-endian at @p */
static inline void be_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Store @v big-endian at @p */
static inline void be_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

#endif /* VNET_ETH_H */
