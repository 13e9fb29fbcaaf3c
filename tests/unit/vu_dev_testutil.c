// SPDX-License-Identifier: MIT
/*
 * vu_dev_testutil.c - vhost-user requests straight into a device's
 * dispatcher (vu_dev_testutil.h), built once into build/libvnet-test.a.
 */
#include <string.h>

#include "vu_dev_testutil.h"

/**
 * req() - One request into @d's dispatcher as a frontend sends it
 * @d:		Device
 * @r:		VHOST_USER_* request
 * @p:		Payload, @size bytes
 * @size:	Payload size
 * @fd:		Descriptor passed with it, or < 0 for none
 *
 * Return: what vu_dev_dispatch() returns
 */
int req(struct vu_dev *d, uint32_t r, const void *p, uint32_t size, int fd)
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

/**
 * req_u64() - A request whose payload is one u64
 * @d:		Device
 * @r:		VHOST_USER_* request
 * @v:		Payload
 * @fd:		Descriptor passed with it, or < 0 for none
 *
 * Return: what vu_dev_dispatch() returns
 */
int req_u64(struct vu_dev *d, uint32_t r, uint64_t v, int fd)
{
	return req(d, r, &v, sizeof(v), fd);
}
