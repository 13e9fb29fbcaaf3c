/* SPDX-License-Identifier: MIT */
/*
 * mac.h - the one check of a MAC address an operator gives (vnetd --mac,
 * vnetctl plan --mac), so that what the planner accepts the daemon takes.
 */
#ifndef VNET_MAC_H
#define VNET_MAC_H

#include <stdint.h>

const char *mac_parse(const char *s, uint8_t mac[6]);

#endif /* VNET_MAC_H */
