/* SPDX-License-Identifier: MIT */
/*
 * pair_testutil.h - a queue pair of configured device-side split rings
 * (64 entries, eventfds, RX at position 7, TX at 9) over plain memory, for
 * the vhost_pair tests that refuse before the kernel (tests/unit) and with
 * a real TAP (tests/system). Bodies: pair_testutil.c.
 */
#ifndef VNET_PAIR_TESTUTIL_H
#define VNET_PAIR_TESTUTIL_H

#include "gmem.h"
#include "pair.h"

#define TP_NUM		64	/* ring entries */
#define TP_RX_BASE	7	/* positions test_pair_init() sets */
#define TP_TX_BASE	9

/* ring areas (desc, driver, device) of RX [0] and TX [1], 4 KiB each */
extern void *test_ring_mem[2][3];

int test_pair_init(struct vnet_pair *p, struct gmem *mem);
void test_pair_fini(struct vnet_pair *p);
int test_next_fd(void);

#endif /* VNET_PAIR_TESTUTIL_H */
