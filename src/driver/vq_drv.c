// SPDX-License-Identifier: MIT
/*
 * vq_drv.c - the layout-neutral virtqueue, driver side: lifetime,
 * configuration and dispatch to the layouts (vring_split_drv.c,
 * vring_packed_drv.c) of rings we own and add buffers to.
 *
 * Leaves to others: the ring layouts (vring_*_drv.c), breaking a queue
 * (vring_drv.c), the ring-area checks both sides share (vq.c:
 * vq_area_init(), vq_area_set_addr()), notifications by eventfd (callers).
 *
 * Security model: the rings are ours, but the device (a vhost-user backend,
 * possibly another process) writes their used parts. The layouts check
 * what it writes (vring_*_drv.c); here a broken or unconfigured queue is
 * refused before dispatching.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vq.h"
#include "vq_drv.h"
#include "vring_drv.h"

/**
 * vq_drv_init() - Configure a driver-side queue and allocate its
 *		   bookkeeping
 * @vq:		Virtqueue (any previous content is overwritten)
 * @layout:	VQ_SPLIT or VQ_PACKED
 * @num:	Ring size: split a power of 2 in 1..32768, packed 1..32768
 * @features:	Negotiated virtio feature bits
 *
 * The ring itself comes with vq_drv_set_addr(). Nothing after this
 * allocates.
 *
 * Return: 0, -EINVAL (bad size or layout), -ENOMEM
 */
int vq_drv_init(struct vq_drv *vq, enum vq_layout layout, uint16_t num,
		uint64_t features)
{
	int ret;

	memset(vq, 0, sizeof(*vq));
	ret = vq_area_init(&vq->area, layout, num, features);
	if (ret)
		return ret;

	vq->drv_ids = calloc(num, sizeof(*vq->drv_ids));
	if (!vq->drv_ids) {
		vq_drv_cleanup(vq);
		return -ENOMEM;
	}
	vq->num = num;
	vq_drv_reset(vq);
	return 0;
}

/**
 * vq_drv_cleanup() - Free a queue's bookkeeping; the queue is unconfigured
 * @vq:		Virtqueue (driver side)
 */
void vq_drv_cleanup(struct vq_drv *vq)
{
	free(vq->drv_ids);
	memset(vq, 0, sizeof(*vq));
}

/**
 * vq_drv_set_addr() - Set the ring areas and initialise the ring in them
 * @vq:		Virtqueue (driver side)
 * @desc:	Descriptor table
 * @driver_area: Avail ring (split) or driver event suppression (packed)
 * @device_area: Used ring (split) or device event suppression (packed)
 *
 * Writes the ring memory (free list, flags) and resets the driver state.
 *
 * Return: 0, or -EINVAL (see vq_area_set_addr())
 */
int vq_drv_set_addr(struct vq_drv *vq, void *desc, void *driver_area,
		    void *device_area)
{
	int ret = vq_area_set_addr(&vq->area, desc, driver_area, device_area);

	if (ret)
		return ret;
	vq_drv_reset(vq);
	return 0;
}

/**
 * vq_drv_reset() - Back to the just-initialised state, configuration kept
 * @vq:		Virtqueue (driver side)
 *
 * Indices 0, wrap counters 1, every buffer free, not broken; with ring
 * addresses set, the ring memory is re-initialised.
 */
void vq_drv_reset(struct vq_drv *vq)
{
	vq->broken = false;
	reason_clear(&vq->reason);

	vq->drv_free_head = 0;
	vq->drv_free_tail = vq->num ? (uint16_t)(vq->num - 1) : 0;
	vq->drv_num_free = vq->num;
	vq->drv_avail_idx = 0;
	vq->drv_avail_wrap = true;
	vq->drv_last_used = 0;
	vq->drv_used_wrap = true;
	vq->drv_kicked_avail = 0;
	vq->drv_free_id = 0;
	vq->drv_inorder_next = 0;
	vq->drv_num_added = 0;
	vq->drv_cb_disabled = false;
	vq->drv_inorder_batch = false;

	if (!vq->num || !vq->split.desc)
		return;
	if (vq->layout == VQ_PACKED)
		vring_packed_drv_setup(vq);
	else
		vring_split_drv_setup(vq);
}

/**
 * vq_drv_is_broken() - Has a device fault stopped this queue?
 * @vq:		Virtqueue (driver side)
 *
 * Return: true until vq_drv_reset()
 */
bool vq_drv_is_broken(const struct vq_drv *vq)
{
	return vq->broken;
}

/**
 * vq_drv_broken_reason() - Why the queue broke, one line for the caller
 * @vq:		Virtqueue (driver side)
 *
 * Return: the reason, "" if not broken
 */
const char *vq_drv_broken_reason(const struct vq_drv *vq)
{
	return vq->broken ? vq->reason.msg : "";
}

/**
 * vq_drv_set_indirect() - Give the driver side room for indirect tables
 * @vq:		Virtqueue (driver side)
 * @tables:	Our address of num * @per_chain descriptors (16 bytes each),
 *		16-byte aligned; buffer id i uses table i
 * @gpa:	Guest address of @tables
 * @per_chain:	Descriptors per table
 *
 * Used only if VIRTIO_RING_F_INDIRECT_DESC was negotiated.
 */
void vq_drv_set_indirect(struct vq_drv *vq, void *tables, uint64_t gpa,
			 uint16_t per_chain)
{
	vq->drv_indirect = tables;
	vq->drv_indirect_gpa = gpa;
	vq->drv_indirect_max = tables ? per_chain : 0;
}

/**
 * vq_drv_add() - Add one buffer (readable parts, then writable parts)
 * @vq:		Virtqueue (driver side)
 * @out:	Device-readable pieces
 * @nout:	How many
 * @in:		Device-writable pieces
 * @nin:	How many
 * @token:	Returned by vq_drv_get_used() with this buffer
 *
 * Not visible to the device before vq_drv_kick_needed() (split).
 *
 * Return: 0, -ENOSPC (ring full), -EINVAL (no pieces, or the ring is not
 *	   set up)
 */
int vq_drv_add(struct vq_drv *vq, const struct vq_buf *out, unsigned int nout,
	       const struct vq_buf *in, unsigned int nin, uint32_t token)
{
	if (!nout && !nin)
		return -EINVAL;
	if (!vq->split.desc)
		return -EINVAL;
	if (vq->layout == VQ_PACKED)
		return vring_packed_drv_add(vq, out, nout, in, nin, token);
	return vring_split_drv_add(vq, out, nout, in, nin, token);
}

/**
 * vq_drv_kick_needed() - Publish added buffers; must we kick the device?
 * @vq:		Virtqueue (driver side)
 *
 * Return: true if the device asked to be notified of these buffers
 */
bool vq_drv_kick_needed(struct vq_drv *vq)
{
	if (!vq->split.desc)
		return false;
	if (vq->layout == VQ_PACKED)
		return vring_packed_drv_kick_needed(vq);
	return vring_split_drv_kick_needed(vq);
}

/**
 * vq_drv_get_used() - Collect one completed buffer
 * @vq:		Virtqueue (driver side)
 * @token:	Output: the token it was added with
 * @len:	Output: bytes the device wrote
 *
 * Return: 0, -EAGAIN (none), -EBADMSG (the device returned an id that is
 *	   not in flight: the queue is broken)
 */
int vq_drv_get_used(struct vq_drv *vq, uint32_t *token, uint32_t *len)
{
	if (vq->broken)
		return -EBADMSG;
	if (!vq->split.desc)
		return -EAGAIN;
	if (vq->layout == VQ_PACKED)
		return vring_packed_drv_get_used(vq, token, len);
	return vring_split_drv_get_used(vq, token, len);
}

/* Packed rings complete one buffer per descriptor walk: collect one by one */
static int vq_packed_get_used_burst(struct vq_drv *vq, uint32_t *tokens,
				    uint32_t *lens, unsigned int max)
{
	unsigned int n = 0;
	uint32_t tok, len;
	int ret = 0;

	while (n < max && !(ret = vring_packed_drv_get_used(vq, &tok, &len))) {
		if (tokens)
			tokens[n] = tok;
		if (lens)
			lens[n] = len;
		n++;
	}
	return n ? (int)n : ret == -EAGAIN ? 0 : ret;
}

/**
 * vq_drv_get_used_burst() - Collect up to @max completed buffers at once
 * @vq:		Virtqueue (driver side)
 * @tokens:	Output: the tokens they were added with, [max], or NULL
 * @lens:	Output: bytes the device wrote into each, [max], or NULL
 * @max:	Most buffers to collect
 *
 * Split: one read of the used index and, with used-buffer notifications
 * enabled, one used_event store (and barrier) for the whole burst instead
 * of one per buffer.
 *
 * Return: buffers collected (0: none), -EBADMSG (queue broken; buffers
 *	   collected before a bad entry are returned first)
 */
int vq_drv_get_used_burst(struct vq_drv *vq, uint32_t *tokens, uint32_t *lens,
			  unsigned int max)
{
	if (vq->broken)
		return -EBADMSG;
	if (!vq->split.desc || !max)
		return 0;
	if (vq->layout == VQ_PACKED)
		return vq_packed_get_used_burst(vq, tokens, lens, max);
	return vring_split_drv_get_used_burst(vq, tokens, lens, max);
}

/**
 * vq_drv_next_id() - The buffer id (split: head descriptor) of the next add
 * @vq:		Virtqueue (driver side) with free room (vq_drv_num_free())
 *
 * Ids are unique among buffers in flight and below the ring size, so a
 * caller may key per-buffer storage on them: the same storage then goes
 * with the same descriptor every time (see split_fill()).
 *
 * Return: the id vq_drv_add() will give the next buffer
 */
uint16_t vq_drv_next_id(const struct vq_drv *vq)
{
	if (vq->layout == VQ_SPLIT)
		return vq->drv_free_head;
	return vq->in_order ? vq->drv_avail_idx : vq->drv_free_id;
}

/**
 * vq_drv_disable_cb() - Ask the device not to notify us of used buffers
 * @vq:		Virtqueue (driver side)
 */
void vq_drv_disable_cb(struct vq_drv *vq)
{
	if (!vq->split.desc)
		return;
	if (vq->layout == VQ_PACKED)
		vring_packed_drv_disable_cb(vq);
	else
		vring_split_drv_disable_cb(vq);
}

/**
 * vq_drv_enable_cb() - Ask for used notifications again, then recheck
 * @vq:		Virtqueue (driver side)
 *
 * Return: true if used buffers are already pending (collect them: no
 *	   notification will come for them)
 */
bool vq_drv_enable_cb(struct vq_drv *vq)
{
	if (!vq->split.desc)
		return false;
	if (vq->layout == VQ_PACKED)
		return vring_packed_drv_enable_cb(vq);
	return vring_split_drv_enable_cb(vq);
}

/**
 * vq_drv_num_free() - Free descriptors (split) or ring slots (packed)
 * @vq:		Virtqueue (driver side)
 *
 * Return: how many; a buffer of n pieces needs n (or 1 if indirect)
 */
unsigned int vq_drv_num_free(const struct vq_drv *vq)
{
	return vq->drv_num_free;
}
