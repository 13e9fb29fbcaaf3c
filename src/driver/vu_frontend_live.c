// SPDX-License-Identifier: MIT
/*
 * vu_frontend_live.c - requests a VMM sends while the rings run: memory
 * hotplug (ADD_MEM_REG / REM_MEM_REG of a region the rings do not use), the
 * start and end of dirty logging (SET_LOG_BASE, then SET_FEATURES with
 * VHOST_F_LOG_ALL, as QEMU orders them at migration start) and a ring
 * switched off and on (SET_VRING_ENABLE, as `ethtool -L` in a guest does).
 *
 * The layer above vu_frontend_ctl.c (its send/reply primitives). The data
 * path of every pair may run meanwhile: nothing here touches the rings.
 * Used by `vnet-bench --ctl-soak` to prove a backend survives these under
 * traffic without leaking.
 */
#include <errno.h>
#include <string.h>

#include "util.h"
#include "vu_msg.h"
#include "vu_frontend.h"
#include "vu_frontend_core.h"
#include "vu_frontend_ctl.h"

/* One ADD_MEM_REG or REM_MEM_REG of @r, mapped by us at @host */
static int live_mem_msg(struct vu_frontend *f, uint32_t req,
			const struct vu_frontend_region *r, void *host)
{
	struct vu_mem_single s = { .region = {
		.guest_phys_addr = r->gpa, .memory_size = r->size,
		.userspace_addr = (uint64_t)(uintptr_t)host,
		.mmap_offset = r->offset } };

	if (!f->connected)
		return vu_frontend_set_err(f, -ENOTCONN, "%s: not connected",
					   vu_request_name(req));
	if (!vu_frontend_has_proto(f, VHOST_USER_PROTOCOL_F_CONFIGURE_MEM_SLOTS))
		return vu_frontend_set_err(f, -ENOTSUP,
					   "%s: the backend did not negotiate CONFIGURE_MEM_SLOTS",
					   vu_request_name(req));
	if (!r->size || r->fd < 0 || !host)
		return vu_frontend_set_err(f, -EINVAL,
					   "%s: empty region, no fd or no mapping",
					   vu_request_name(req));
	return vu_frontend_send(f, req, &s, sizeof(s), &r->fd, 1);
}

/**
 * vu_frontend_mem_add() - Announce one more memory region (hotplug)
 * @f:		Frontend, connected, CONFIGURE_MEM_SLOTS negotiated
 * @r:		The region: fd (stays the caller's), offset, gpa, size; it
 *		must not overlap the library's own regions
 * @host:	Where the caller mapped it (its "userspace address")
 *
 * Context: the control thread; the data path may run
 * Return: 0, -ENOTSUP, -EINVAL, -EIO if the backend refused, other -errno
 */
int vu_frontend_mem_add(struct vu_frontend *f, const struct vu_frontend_region *r,
			void *host)
{
	return live_mem_msg(f, VHOST_USER_ADD_MEM_REG, r, host);
}

/**
 * vu_frontend_mem_remove() - Withdraw a region added by vu_frontend_mem_add()
 * @f:		Frontend, connected
 * @r:		The same region
 * @host:	The same mapping
 *
 * Context: the control thread; the data path may run
 * Return: 0, -ENOTSUP, -EINVAL, -EIO if the backend refused, other -errno
 */
int vu_frontend_mem_remove(struct vu_frontend *f,
			   const struct vu_frontend_region *r, void *host)
{
	return live_mem_msg(f, VHOST_USER_REM_MEM_REG, r, host);
}

/**
 * vu_frontend_mem_end() - The guest address past the library's regions
 * @f:	Frontend, connected
 *
 * Return: highest gpa + size of the regions we announced (a hotplugged
 *	   region goes above it)
 */
uint64_t vu_frontend_mem_end(const struct vu_frontend *f)
{
	uint64_t end = 0;
	unsigned int i;

	for (i = 0; i < f->nmem; i++)
		end = MAX(end, f->mem[i].gpa + f->mem[i].size);
	return end;
}

/**
 * vu_frontend_log_size() - Bytes of dirty log the guest memory needs
 * @f:	Frontend, connected
 *
 * One bit per 4 KiB page up to vu_frontend_mem_end() (vhost-user
 * "Migration": VHOST_LOG_PAGE).
 *
 * Return: bytes, a multiple of 8
 */
uint64_t vu_frontend_log_size(const struct vu_frontend *f)
{
	return (vu_frontend_mem_end(f) / 4096 + 63) / 64 * 8;
}

/* SET_FEATURES with VHOST_F_LOG_ALL set or cleared */
static int live_log_features(struct vu_frontend *f, bool on)
{
	uint64_t feat = f->features & ~(1ULL << VHOST_F_LOG_ALL_BIT);

	if (on)
		feat |= 1ULL << VHOST_F_LOG_ALL_BIT;
	/* PROTOCOL_FEATURES stays acked, as at set-up */
	if (f->offered & (1ULL << VHOST_USER_F_PROTOCOL_FEATURES))
		feat |= 1ULL << VHOST_USER_F_PROTOCOL_FEATURES;
	return vu_frontend_send(f, VHOST_USER_SET_FEATURES, &feat, sizeof(feat),
				NULL, 0);
}

/**
 * vu_frontend_log_start() - Start dirty logging into @fd
 * @f:		Frontend, connected, LOG_SHMFD negotiated, LOG_ALL offered
 * @fd:		The log (stays the caller's), at least @size bytes
 * @size:	Bytes, at least vu_frontend_log_size()
 *
 * SET_LOG_BASE (the backend answers it) then SET_FEATURES with LOG_ALL.
 *
 * Context: the control thread; the data path may run
 * Return: 0, -ENOTSUP, -EINVAL, -EIO if the backend refused, other -errno
 */
int vu_frontend_log_start(struct vu_frontend *f, int fd, uint64_t size)
{
	struct vu_log l = { .mmap_size = size, .mmap_offset = 0 };
	struct vu_msg m = { .hdr = { .request = VHOST_USER_SET_LOG_BASE,
				     .flags = VHOST_USER_VERSION,
				     .size = sizeof(l) } };
	int ret;

	if (!f->connected)
		return vu_frontend_set_err(f, -ENOTCONN, "SET_LOG_BASE: not connected");
	if (!vu_frontend_has_proto(f, VHOST_USER_PROTOCOL_F_LOG_SHMFD) ||
	    !(f->offered & (1ULL << VHOST_F_LOG_ALL_BIT)))
		return vu_frontend_set_err(f, -ENOTSUP,
					   "SET_LOG_BASE: the backend offers no LOG_SHMFD or no VHOST_F_LOG_ALL");
	if (fd < 0 || size < vu_frontend_log_size(f))
		return vu_frontend_set_err(f, -EINVAL,
					   "SET_LOG_BASE: log of %llu bytes, %llu needed",
					   (unsigned long long)size,
					   (unsigned long long)vu_frontend_log_size(f));
	m.payload.log = l;
	m.fds[0] = fd;
	m.nfds = 1;
	ret = vu_msg_send(f->sock, &m);
	if (ret)
		return vu_frontend_set_err(f, ret, "SET_LOG_BASE: send: %s",
					   strerror(-ret));
	/* With LOG_SHMFD the backend answers, QEMU waits for it */
	ret = vu_frontend_recv_reply(f, VHOST_USER_SET_LOG_BASE, &m,
				     sizeof(uint64_t), false);
	if (ret)
		return ret;
	if (m.payload.u64)
		return vu_frontend_set_err(f, -EIO, "SET_LOG_BASE: backend refused (%llu)",
					   (unsigned long long)m.payload.u64);
	return live_log_features(f, true);
}

/**
 * vu_frontend_log_stop() - End dirty logging (SET_FEATURES without LOG_ALL)
 * @f:	Frontend, connected
 *
 * Context: the control thread; the data path may run
 * Return: 0 or -errno
 */
int vu_frontend_log_stop(struct vu_frontend *f)
{
	if (!f->connected)
		return vu_frontend_set_err(f, -ENOTCONN, "SET_FEATURES: not connected");
	return live_log_features(f, false);
}

/**
 * vu_frontend_ring_enable() - SET_VRING_ENABLE of one ring
 * @f:		Frontend, connected, PROTOCOL_FEATURES negotiated
 * @ring:	Ring index, 0..2 * pairs - 1
 * @on:		Enable or disable
 *
 * A disabled TX ring keeps what the guest put in it; the backend takes it
 * once the ring is enabled again.
 *
 * Context: the control thread; the data path may run
 * Return: 0, -EINVAL, -ENOTSUP, -EIO if the backend refused, other -errno
 */
int vu_frontend_ring_enable(struct vu_frontend *f, unsigned int ring, bool on)
{
	struct vu_vring_state s = { .index = ring, .num = on };

	if (!f->connected)
		return vu_frontend_set_err(f, -ENOTCONN, "SET_VRING_ENABLE: not connected");
	if (ring >= 2 * f->pairs)
		return vu_frontend_set_err(f, -EINVAL,
					   "SET_VRING_ENABLE: ring %u, we have 0..%u",
					   ring, 2 * f->pairs - 1);
	if (!(f->offered & (1ULL << VHOST_USER_F_PROTOCOL_FEATURES)))
		return vu_frontend_set_err(f, -ENOTSUP,
					   "SET_VRING_ENABLE: no PROTOCOL_FEATURES");
	return vu_frontend_send(f, VHOST_USER_SET_VRING_ENABLE, &s, sizeof(s),
				NULL, 0);
}
