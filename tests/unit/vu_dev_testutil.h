/* SPDX-License-Identifier: MIT */
/*
 * vu_dev_testutil.h - vhost-user requests straight into a device's
 * dispatcher, for the tests that set a device up without a frontend
 * process (test_vu_dev_upgrade.c, test_vu_upgrade_vhost.c).
 */
#ifndef VNET_VU_DEV_TESTUTIL_H
#define VNET_VU_DEV_TESTUTIL_H

#include <stdint.h>
#include <string.h>

#include "vu_backend.h"
#include "vu_msg.h"

/* the bodies: vu_dev_testutil.c */
int req(struct vu_dev *d, uint32_t r, const void *p, uint32_t size, int fd);
int req_u64(struct vu_dev *d, uint32_t r, uint64_t v, int fd);

#endif /* VNET_VU_DEV_TESTUTIL_H */
