/* SPDX-License-Identifier: MIT */
/*
 * switch_hash.h - which receiving queue pair of a switch member takes a
 * frame: a hash of its flow (IPv4/IPv6 addresses and, when present, the
 * TCP/UDP/SCTP ports; else the MACs and EtherType; the VLAN always), so
 * one flow always lands on one queue, in order, and a multi-queue
 * member's queues share the flows. Pure: no allocation, no state.
 */
#ifndef VNET_SWITCH_HASH_H
#define VNET_SWITCH_HASH_H

#include <stddef.h>
#include <stdint.h>

/* Frame bytes the hash may read: Ethernet + tag + a 60-byte IPv4 header
 * (options included) + 4 bytes of ports */
#define SW_HASH_BYTES	82

uint32_t switch_flow_hash(const uint8_t *f, size_t len, uint16_t vlan);

/**
 * switch_hash_pick() - The pair of @npairs a hash goes to
 * @hash:	switch_flow_hash()
 * @npairs:	The receiver's pairs, 1..64
 *
 * Return: 0..@npairs-1 (multiply-shift: no division)
 */
static inline unsigned int switch_hash_pick(uint32_t hash, unsigned int npairs)
{
	return (unsigned int)(((uint64_t)hash * npairs) >> 32);
}

#endif /* VNET_SWITCH_HASH_H */
