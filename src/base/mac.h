/* SPDX-License-Identifier: MIT */
/*
 * mac.h - the one check of a MAC address an operator gives (vnetd --mac,
 * vnetctl plan --mac), so that what the planner accepts the daemon takes;
 * and the one rule for the MAC of a TAP that vnetd or vnetctl creates.
 */
#ifndef VNET_MAC_H
#define VNET_MAC_H

#include <stdint.h>

/*
 * First byte of the MAC of every TAP vnetd or vnetctl creates: above any
 * vendor's MAC, so that a Linux bridge without a set MAC (which takes the
 * lowest MAC of its ports) never takes a TAP's, as libvirt does for its VMs'
 * TAPs. Locally administered, unicast.
 */
#define MAC_TAP_FIRST	0xfe

struct reason;

const char *mac_parse(const char *s, uint8_t mac[6]);
void mac_tap(const uint8_t guest[6], uint8_t tap[6]);
int mac_tap_set(int tun_fd, const char *ifname, const uint8_t guest[6],
		struct reason *why);

#endif /* VNET_MAC_H */
