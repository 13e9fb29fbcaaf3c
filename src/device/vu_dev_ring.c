// SPDX-License-Identifier: MIT
/*
 * vu_dev_ring.c - the vhost-user device's ring layer (vu_dev_ring.h), on
 * vu_dev_mem and vu_dev_core: SET_VRING_NUM/ADDR/BASE/KICK/CALL/ERR/ENABLE,
 * GET_VRING_BASE, starting a ring once everything it needs has arrived,
 * handing a pair to vhost-net, resetting a ring. Where ring areas lie in
 * memory is vu_dev_mem.c's; the dispatcher (vu_backend.c) has checked size,
 * descriptor count and ring index before any handler here runs.
 *
 * Security model: payloads come from the untrusted frontend. Each is copied
 * once into locals and only the copies are validated and used. Ring areas
 * are checked for alignment and for lying wholly inside mapped memory
 * (vu_ring_translate()) before a worker may touch them, and the data path
 * is quiesced (worker_pause) around every change it could see. A ring is
 * (re)built from the values kept in struct vu_ring only when everything it
 * needs has arrived, so messages may come in any order the spec allows.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/vhost_types.h>
#include <linux/virtio_config.h>

#include "vu_dev_ring.h"
#include "vu_msg.h"

/* Packed base: avail idx bits 0-14, used idx bits 16-30 (vhost-user) */
static int vu_base_check(struct vu_dev *d, unsigned int idx, uint32_t base,
			 uint32_t num)
{
	if (!vu_packed(d)) {
		if (base > UINT16_MAX)
			return vu_fail(d, -EINVAL, "ring %u base %#x > 16 bits",
				       idx, base);
		return 0;
	}
	if (num && ((base & 0x7fff) >= num || ((base >> 16) & 0x7fff) >= num))
		return vu_fail(d, -EINVAL, "ring %u packed base %#x beyond size %u",
			       idx, base, num);
	return 0;
}

static void vu_vq_release(struct vu_dev *d, unsigned int idx)
{
	struct vnet_ring *vr = vu_vring(d, idx);

	if (d->rings[idx].vq_ready)
		vq_cleanup(&vr->vq);
	memset(&vr->vq, 0, sizeof(vr->vq));
	d->rings[idx].vq_ready = false;
}

/**
 * vu_pair_offload() - A ring of @pair started: hand the pair to the kernel
 *		       once both run (docs/vhost-net.md)
 * @d:		Device
 * @pair:	Pair index, paused
 *
 * The TAP queue is the backend's queue_fd(); the dirty log goes along
 * while VHOST_F_LOG_ALL is acked and a log is mapped. Under `auto` a
 * kernel refusal was logged once and the pair stays on the userspace path.
 *
 * Return: 0, or under `--vhost-net on` the kernel's -errno (the caller
 *	   closes the connection)
 */
static int vu_pair_offload(struct vu_dev *d, unsigned int pair)
{
	struct vnet_pair *p = &d->pairs[pair];
	struct host *host = d->cfg.host;
	bool log = (d->features & BIT(VHOST_F_LOG_ALL_BIT)) && d->log.base;
	int fd = -1, ret;

	if (host && host->ops->queue_fd)
		fd = host->ops->queue_fd(host, pair);
	ret = vhost_port_pair_start(&d->vp, p, d->mem, fd,
				    log ? &d->log : NULL, d->log_fd);
	if (ret)
		return vu_fail(d, ret, "pair %u: %s", pair, p->why);
	return 0;
}

/*
 * vhost-user "Ring states": a ring starts once its kick arrived and its
 * size and addresses are known. Called with the pair paused; 0 if the ring
 * runs or still waits for something, -errno if its values do not hold up.
 */
static int vu_ring_try_start(struct vu_dev *d, unsigned int idx)
{
	struct vnet_ring *vr = vu_vring(d, idx);
	struct vu_ring *r = &d->rings[idx];
	uint64_t uva[3];
	void *p[3];
	int ret;

	if (vr->started || !r->kicked || !r->num || !r->addr_set)
		return 0;
	vu_ring_uvas(r, uva);
	ret = vu_ring_translate(d, idx, r->num, uva, p);
	if (!ret)
		ret = vu_base_check(d, idx, r->base, r->num);
	if (ret)
		return ret;
	vu_vq_release(d, idx);
	ret = vq_init(&vr->vq, vu_packed(d) ? VQ_PACKED : VQ_SPLIT,
		      (uint16_t)r->num, d->features);
	if (ret)
		return vu_fail(d, ret, "ring %u: vq_init failed", idx);
	r->vq_ready = true;
	vq_set_mem(&vr->vq, d->mem);
	ret = vq_set_addr(&vr->vq, p[0], p[1], p[2]);
	if (ret) {
		vu_vq_release(d, idx);
		return vu_fail(d, ret, "ring %u: addresses refused", idx);
	}
	vq_set_base(&vr->vq, r->base);
	vu_ring_update_log(d, idx);
	vr->started = true;
	vu_pair_status(d, idx / 2);
	return vu_pair_offload(d, idx / 2);
}

static void vu_close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/**
 * vu_ring_reset() - Ring @idx back to its state before any connection
 * @d:		Device
 * @idx:	Ring index, its pair paused
 */
void vu_ring_reset(struct vu_dev *d, unsigned int idx)
{
	struct vnet_ring *vr = vu_vring(d, idx);

	vu_ring_stop(d, idx);
	vu_vq_release(d, idx);
	vu_close_fd(&vr->call_fd);
	vu_close_fd(&vr->err_fd);
	vr->enabled = false;
	memset(&d->rings[idx], 0, sizeof(d->rings[idx]));
}

/**
 * vu_set_vring_num() - SET_VRING_NUM: the ring's size
 * @d:		Device
 * @m:		Message
 * @idx:	Ring index
 *
 * Return: 0, -EINVAL for 0, > 32768 or (split) not a power of two,
 *	   -EBUSY while the ring runs
 */
int vu_set_vring_num(struct vu_dev *d, struct vu_msg *m, unsigned int idx)
{
	uint32_t num = m->payload.state.num;

	/* virtio 2.7 / 2.8: Queue Size <= 32768; split needs a power of 2 */
	if (!num || num > VQ_MAX_SIZE ||
	    (!vu_packed(d) && (num & (num - 1))))
		return vu_fail(d, -EINVAL, "ring %u size %u", idx, num);
	if (vu_vring(d, idx)->started)
		return vu_fail(d, -EBUSY, "ring %u resized while running", idx);
	d->rings[idx].num = num;
	return 0;
}

/**
 * vu_set_vring_addr() - SET_VRING_ADDR: where the ring's areas are
 * @d:		Device
 * @m:		Message, frontend virtual addresses
 * @idx:	Ring index
 *
 * Accepted on a running ring too: QEMU re-sends it to switch used-ring
 * logging on for migration. A pair the kernel's vhost-net runs gets the
 * new addresses and log flag passed on (vhost_port_ring_addr()).
 *
 * Return: 0 or -errno: before SET_VRING_NUM or SET_MEM_TABLE, unknown
 *	   flags, unaligned or unmapped areas
 */
int vu_set_vring_addr(struct vu_dev *d, struct vu_msg *m, unsigned int idx)
{
	struct vu_vring_addr a = m->payload.addr;
	struct vnet_ring *vr = vu_vring(d, idx);
	struct vu_ring *r = &d->rings[idx];
	uint64_t uva[3] = { a.desc_user_addr, a.avail_user_addr,
			    a.used_user_addr };
	bool running = vr->started;
	void *p[3];
	int ret;

	if (a.flags & ~(1u << VHOST_VRING_F_LOG))
		return vu_fail(d, -EINVAL, "ring %u: flags %#x", idx, a.flags);
	if (!r->num)
		return vu_fail(d, -EINVAL, "ring %u: addresses before its size",
			       idx);
	if (!d->mem->nregions)
		return vu_fail(d, -EINVAL, "ring %u: addresses before memory",
			       idx);
	ret = vu_ring_translate(d, idx, r->num, uva, p);
	if (ret)
		return ret;
	vu_pause(d, idx);
	r->desc_uva = a.desc_user_addr;
	r->avail_uva = a.avail_user_addr;
	r->used_uva = a.used_user_addr;
	r->log_gpa = a.log_guest_addr;
	r->addr_flags = a.flags;
	r->addr_set = true;
	if (running)
		ret = vq_set_addr(&vr->vq, p[0], p[1], p[2]);
	else
		ret = vu_ring_try_start(d, idx);
	vu_ring_update_log(d, idx);
	/* an offloaded ring: the kernel follows (new areas, log flag) */
	if (!ret && running &&
	    vhost_port_ring_addr(&d->vp, &d->pairs[idx / 2]))
		ret = vu_fail(d, -EIO, "ring %u: vhost-net refused the new ring "
			      "addresses: %s", idx,
			      d->pairs[idx / 2].why);
	vu_resume(d, idx);
	return ret;
}

/**
 * vu_set_vring_base() - SET_VRING_BASE: where the ring resumes
 * @d:		Device
 * @m:		Message: split avail idx, or the packed encoding
 * @idx:	Ring index
 *
 * Return: 0, -EBUSY while the ring runs, -EINVAL for a bad base
 */
int vu_set_vring_base(struct vu_dev *d, struct vu_msg *m, unsigned int idx)
{
	uint32_t base = m->payload.state.num;
	int ret;

	if (vu_vring(d, idx)->started)
		return vu_fail(d, -EBUSY, "ring %u: base set while running",
			       idx);
	ret = vu_base_check(d, idx, base, d->rings[idx].num);
	if (ret)
		return ret;
	d->rings[idx].base = base;
	return 0;
}

/**
 * vu_get_vring_base() - GET_VRING_BASE: stop the ring, report where
 * @d:		Device
 * @m:		Message; the reply is built in it
 * @idx:	Ring index
 *
 * vhost-user "GET_VRING_BASE": the ring stops and is not reset. Split:
 * the next avail index; packed: avail idx/wrap in bits 0-15, used idx/wrap
 * in bits 16-31.
 *
 * Return: 0
 */
int vu_get_vring_base(struct vu_dev *d, struct vu_msg *m, unsigned int idx)
{
	vu_pause(d, idx);
	/* The kernel's position first: vu_ring_stop() reads it from the vq */
	vhost_port_ring_stop(&d->vp, &d->pairs[idx / 2], idx);
	vu_ring_stop(d, idx);
	vu_resume(d, idx);
	m->payload.state.index = idx;
	m->payload.state.num = d->rings[idx].base;
	m->hdr.size = sizeof(m->payload.state);
	return 0;
}

/* A running ring's kick/call/err fd changed: the kernel takes the new one */
static int vu_ring_fds_changed(struct vu_dev *d, unsigned int idx)
{
	int ret;

	if (!vu_vring(d, idx)->started)
		return 0;
	ret = vhost_port_ring_fds(&d->vp, &d->pairs[idx / 2], idx);
	if (ret)
		return vu_fail(d, ret, "ring %u: vhost-net refused the new fds",
			       idx);
	return 0;
}

/**
 * vu_set_vring_kick() - SET_VRING_KICK: the guest's kick eventfd
 * @d:		Device
 * @m:		Message: ring index, bit 8 for "no fd: poll"
 * @idx:	Ring index
 *
 * Replaces (and closes) a previous kick fd and starts the ring if its size
 * and addresses are known; otherwise it starts when they arrive.
 *
 * Return: 0 or -errno if the ring's values do not hold up
 */
int vu_set_vring_kick(struct vu_dev *d, struct vu_msg *m, unsigned int idx)
{
	struct vnet_ring *vr = vu_vring(d, idx);
	int fd = vu_msg_take_fd(m, 0), ret;
	bool running;

	vu_pause(d, idx);
	running = vr->started;
	vu_close_fd(&vr->kick_fd);
	vr->kick_fd = fd;
	d->rings[idx].kicked = true;
	if (running)
		ret = vu_ring_fds_changed(d, idx);
	else
		ret = vu_ring_try_start(d, idx);
	vu_resume(d, idx);
	return ret;
}

/* Replace one of a ring's eventfds (call or err) with the pair paused */
static int vu_swap_ring_fd(struct vu_dev *d, unsigned int idx, int *slot,
			   int fd)
{
	int ret;

	vu_pause(d, idx);
	vu_close_fd(slot);
	*slot = fd;
	ret = vu_ring_fds_changed(d, idx);
	vu_resume(d, idx);
	return ret;
}

/**
 * vu_set_vring_call() - SET_VRING_CALL: our notification eventfd
 * @d:		Device
 * @m:		Message: ring index, bit 8 for "no fd"
 * @idx:	Ring index
 *
 * May come while the ring runs: the swap happens with the pair paused.
 *
 * Return: 0
 */
int vu_set_vring_call(struct vu_dev *d, struct vu_msg *m, unsigned int idx)
{
	return vu_swap_ring_fd(d, idx, &vu_vring(d, idx)->call_fd,
			       vu_msg_take_fd(m, 0));
}

/**
 * vu_set_vring_err() - SET_VRING_ERR: eventfd signalled when the ring breaks
 * @d:		Device
 * @m:		Message: ring index, bit 8 for "no fd"
 * @idx:	Ring index
 *
 * Return: 0
 */
int vu_set_vring_err(struct vu_dev *d, struct vu_msg *m, unsigned int idx)
{
	return vu_swap_ring_fd(d, idx, &vu_vring(d, idx)->err_fd,
			       vu_msg_take_fd(m, 0));
}

/**
 * vu_set_vring_enable() - SET_VRING_ENABLE: ring enabled (1) or not (0)
 * @d:		Device
 * @m:		Message
 * @idx:	Ring index
 *
 * vhost-user "Ring states": a started, disabled ring drains TX and leaves
 * RX alone; the worker reads the flag after resuming.
 *
 * Return: 0, -EINVAL for a value other than 0 or 1
 */
int vu_set_vring_enable(struct vu_dev *d, struct vu_msg *m, unsigned int idx)
{
	uint32_t on = m->payload.state.num;
	int ret;

	if (on > 1)
		return vu_fail(d, -EINVAL, "ring %u: enable value %u", idx, on);
	vu_pause(d, idx);
	vu_vring(d, idx)->enabled = on;
	ret = vhost_port_ring_enable(&d->vp, &d->pairs[idx / 2], idx, on);
	vu_resume(d, idx);
	if (ret)
		return vu_fail(d, ret, "ring %u: vhost-net refused %s", idx,
			       on ? "enable" : "disable");
	return 0;
}
