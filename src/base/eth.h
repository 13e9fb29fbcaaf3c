/* SPDX-License-Identifier: MIT */
/*
 * eth.h - the Ethernet header's length and the EtherTypes the data path
 * parses (the switch, its flow hash, anti-spoofing), defined once. A
 * trailing underscore keeps them apart from <linux/if_ether.h>'s names.
 * Host-order values, to compare with a type read big-endian from the
 * frame.
 */
#ifndef VNET_ETH_H
#define VNET_ETH_H

#define ETH_HLEN_	14
#define ETH_P_IP_	0x0800
#define ETH_P_ARP_	0x0806
#define ETH_P_RARP_	0x8035
#define ETH_P_8021Q_	0x8100	/* C-tag */
#define ETH_P_8021AD_	0x88a8	/* S-tag */
#define ETH_P_IPV6_	0x86dd

#endif /* VNET_ETH_H */
