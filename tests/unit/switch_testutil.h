/* SPDX-License-Identifier: MIT */
/*
 * switch_testutil.h - frames in and out of a learning switch's members
 * without vnetd, for the switch tests (test_switch, test_uplink,
 * test_switch_gso, test_switch_police): station MACs, a minimal tagged or
 * untagged frame behind a 12-byte vnet header, one frame sent and flushed,
 * one received, the frames waiting counted, an access member joined, a
 * burst of broadcasts sent under a policer. Bodies: switch_testutil.c.
 */
#ifndef VNET_SWITCH_TESTUTIL_H
#define VNET_SWITCH_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "switch.h"

#define TSW_HDR		12	/* vnet header bytes every helper uses */
#define TSW_FRAME_MAX	128	/* a buffer for any frame these helpers send */

void test_sw_mac(uint8_t mac[6], uint8_t tag, unsigned int n);
size_t test_sw_frame(uint8_t *f, const uint8_t *dst, const uint8_t *src,
		     int vid, uint32_t seq);
int test_sw_tx(struct sw_member *m, const uint8_t *dst, const uint8_t *src,
	       int vid, uint32_t seq, uint32_t now);
int test_sw_rx(struct sw_member *m, uint8_t *buf, size_t size);
int test_sw_rx_count(struct sw_member *m, uint8_t *buf, size_t size);
struct sw_member *test_sw_join(struct vswitch *sw, uint16_t vlan);
unsigned int test_sw_send_bcast(struct sw_member *m, unsigned int n);

#endif /* VNET_SWITCH_TESTUTIL_H */
