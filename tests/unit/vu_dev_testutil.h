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

/* One request as a frontend sends it, with @fd (or none if < 0) */
static inline int req(struct vu_dev *d, uint32_t r, const void *p,
		      uint32_t size, int fd)
{
	struct vu_msg m;

	memset(&m, 0, sizeof(m));
	m.hdr.request = r;
	m.hdr.flags = VHOST_USER_VERSION;
	m.hdr.size = size;
	if (size)
		memcpy(&m.payload, p, size);
	m.fds[0] = fd;
	m.nfds = fd >= 0;
	return vu_dev_dispatch(d, &m);
}

/* A request whose payload is one u64 */
static inline int req_u64(struct vu_dev *d, uint32_t r, uint64_t v, int fd)
{
	return req(d, r, &v, sizeof(v), fd);
}

#endif /* VNET_VU_DEV_TESTUTIL_H */
