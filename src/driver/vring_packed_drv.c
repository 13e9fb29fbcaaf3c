// SPDX-License-Identifier: MIT
/*
 * vring_packed_drv.c - the driver side of the packed virtqueue layout
 * (virtio 1.2, "Packed Virtqueues"): our own ring (the frontend's, the
 * benchmark's): mark descriptors available, collect used ones, buffer ids,
 * indirect tables, event suppression and in-order batches.
 *
 * Leaves to others: dispatch (vq_drv.c), breaking the queue (vring_drv.c),
 * the ring layout's shared helpers (vring_packed.h, the device side's).
 *
 * Security model: the ring is ours, but used descriptors are written by
 * the device (a vhost-user backend, possibly another process). Each used
 * descriptor is read once, flags with acquire ordering; a used id must be
 * a buffer in flight (an in-order batch may not pass the buffers in
 * flight), else the queue breaks (-EBADMSG until reset).
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>

#include "vring_drv.h"
#include "vring_packed.h"

/* Used, as seen by a driver whose used wrap counter is @wrap */
static bool packed_is_used(uint16_t flags, bool wrap)
{
	return !!(flags & VRING_PACKED_F_AVAIL) == wrap &&
	       !!(flags & VRING_PACKED_F_USED) == wrap;
}

/**
 * vring_packed_drv_setup() - Initialise our own packed ring (driver side)
 * @vq:		Virtqueue (driver side), addresses set, state already reset
 */
void vring_packed_drv_setup(struct vq_drv *vq)
{
	uint16_t i;

	for (i = 0; i < vq->num; i++) {
		struct vring_packed_desc *d = &vq->packed.desc[i];

		d->addr = 0;
		d->len = 0;
		d->id = 0;
		d->flags = 0;
		vq->drv_ids[i].ndesc = 0;
		vq->drv_ids[i].next_free = (uint16_t)(i + 1);
	}
	vq->packed.driver->flags = 0;
	vq->packed.driver->off_wrap = 0;
	vq->packed.device->flags = 0;
	vq->packed.device->off_wrap = 0;
}

static void packed_fill(struct vring_packed_desc *d, uint64_t gpa,
			uint32_t len, uint16_t id)
{
	d->addr = htole64(gpa);
	d->len = htole32(len);
	d->id = htole16(id);
}

static uint16_t packed_avail_bits(bool wrap)
{
	return wrap ? VRING_PACKED_F_AVAIL : VRING_PACKED_F_USED;
}

/* Fill ring slots from the avail position; returns the head's flags */
static uint16_t packed_fill_direct(struct vq_drv *vq, const struct vq_buf *out,
				   unsigned int nout, const struct vq_buf *in,
				   unsigned int nin, uint16_t id)
{
	uint16_t slot = vq->drv_avail_idx, head_flags = 0;
	unsigned int i, n = nout + nin;
	bool wrap = vq->drv_avail_wrap;

	for (i = 0; i < n; i++) {
		const struct vq_buf *b = i < nout ? &out[i] : &in[i - nout];
		uint16_t f = packed_avail_bits(wrap);

		if (i >= nout)
			f |= VRING_DESC_F_WRITE;
		if (i + 1 < n)
			f |= VRING_DESC_F_NEXT;
		packed_fill(&vq->packed.desc[slot], b->gpa, b->len, id);
		if (i)
			vq->packed.desc[slot].flags = htole16(f);
		else
			head_flags = f;
		vring_packed_advance(&vq->area, &slot, &wrap, 1);
	}
	return head_flags;
}

/**
 * vring_packed_drv_add() - Make a buffer available in our packed ring
 * @vq:		Virtqueue (driver side)
 * @out:	Readable pieces
 * @nout:	How many
 * @in:		Writable pieces
 * @nin:	How many
 * @token:	Caller's cookie
 *
 * Return: 0 or -ENOSPC
 */
int vring_packed_drv_add(struct vq_drv *vq, const struct vq_buf *out,
			 unsigned int nout, const struct vq_buf *in,
			 unsigned int nin, uint32_t token)
{
	unsigned int n = nout + nin, i;
	bool indirect = vq->indirect && vq->drv_indirect && n > 1 &&
			n <= vq->drv_indirect_max && n <= vq->num;
	uint16_t head = vq->drv_avail_idx, id, head_flags, slots;

	if (indirect ? !vq->drv_num_free : n > vq->drv_num_free)
		return -ENOSPC;
	slots = indirect ? 1 : (uint16_t)n;

	/* In order: ids are head slots, so completions arrive by slot */
	id = vq->in_order ? head : vq->drv_free_id;
	if (!vq->in_order)
		vq->drv_free_id = vq->drv_ids[id].next_free;

	if (indirect) {
		struct vring_packed_desc *t =
			(struct vring_packed_desc *)vq->drv_indirect +
			(size_t)id * vq->drv_indirect_max;

		for (i = 0; i < n; i++) {
			const struct vq_buf *b = i < nout ? &out[i] :
							    &in[i - nout];

			packed_fill(&t[i], b->gpa, b->len, 0);
			t[i].flags = htole16(i < nout ? 0 : VRING_DESC_F_WRITE);
		}
		packed_fill(&vq->packed.desc[head], vq->drv_indirect_gpa +
			    (uint64_t)id * vq->drv_indirect_max * 16,
			    n * 16, id);
		head_flags = packed_avail_bits(vq->drv_avail_wrap) |
			     VRING_DESC_F_INDIRECT;
	} else {
		head_flags = packed_fill_direct(vq, out, nout, in, nin, id);
	}
	/* Pairs with the device's acquire load of the head's flags: the
	 * whole chain is visible when the head becomes available */
	STORE_RELEASE(vq->packed.desc[head].flags, htole16(head_flags));

	vring_packed_advance(&vq->area, &vq->drv_avail_idx, &vq->drv_avail_wrap,
			     slots);
	vq->drv_ids[id].token = token;
	vq->drv_ids[id].ndesc = slots;
	vq->drv_num_free -= slots;
	vq->drv_num_added += slots;
	vq->stats.chains++;
	return 0;
}

/**
 * vring_packed_drv_kick_needed() - Must the device be kicked?
 * @vq:		Virtqueue (driver side)
 *
 * Buffers are already visible (vring_packed_drv_add()); this decides on
 * the notification from the device event suppression structure.
 *
 * Return: true if the device wants a notification
 */
bool vring_packed_drv_kick_needed(struct vq_drv *vq)
{
	uint16_t added = vq->drv_num_added, flags, off_wrap, event;
	uint16_t new = vq->drv_avail_idx;

	/* Orders our flag stores before reading the device's event
	 * suppression; pairs with the device's full barrier in its
	 * enable-notify recheck */
	smp_mb();
	vq->drv_num_added = 0;
	if (!added)
		return false;
	flags = le16toh(READ_ONCE(vq->packed.device->flags));
	if (flags != VRING_PACKED_EVENT_FLAG_DESC || !vq->event_idx)
		return flags != VRING_PACKED_EVENT_FLAG_DISABLE;

	off_wrap = le16toh(READ_ONCE(vq->packed.device->off_wrap));
	event = off_wrap & ~VRING_PACKED_WRAP;
	if (!!(off_wrap & VRING_PACKED_WRAP) != vq->drv_avail_wrap)
		event = (uint16_t)(event - vq->num);
	return vring_need_event(event, new, (uint16_t)(new - added));
}

/* Give buffer @id back to the caller and free its slots */
static void packed_complete(struct vq_drv *vq, uint16_t id, uint32_t *token)
{
	struct vq_drv_id *e = &vq->drv_ids[id];

	vring_packed_advance(&vq->area, &vq->drv_last_used, &vq->drv_used_wrap,
			     e->ndesc);
	vq->drv_num_free += e->ndesc;
	e->ndesc = 0;
	*token = e->token;
	if (!vq->in_order) {
		e->next_free = vq->drv_free_id;
		vq->drv_free_id = id;
	}
	vq->stats.used++;
}

/* IN_ORDER: one used descriptor completed every buffer up to its id */
static int packed_complete_inorder(struct vq_drv *vq, uint32_t *token,
				   uint32_t *len)
{
	uint16_t id = vq->drv_last_used;

	if (!vq->drv_ids[id].ndesc)
		return vring_drv_break(vq,
				       "in-order batch up to id %u passed the in-flight buffers",
				vq->drv_inorder_last);
	*len = 0;
	if (id == vq->drv_inorder_last) {
		*len = vq->drv_inorder_len;
		vq->drv_inorder_batch = false;
	}
	packed_complete(vq, id, token);
	return 0;
}

/**
 * vring_packed_drv_get_used() - Collect one used buffer
 * @vq:		Virtqueue (driver side)
 * @token:	Output
 * @len:	Output
 *
 * Return: 0, -EAGAIN, -EBADMSG (device returned an id not in flight)
 */
int vring_packed_drv_get_used(struct vq_drv *vq, uint32_t *token, uint32_t *len)
{
	const struct vring_packed_desc *d;
	uint16_t flags, id;

	if (vq->drv_inorder_batch)
		return packed_complete_inorder(vq, token, len);

	d = &vq->packed.desc[vq->drv_last_used];
	/* Pairs with the device's release store of the batch's first flags */
	flags = le16toh(LOAD_ACQUIRE(d->flags));
	if (!packed_is_used(flags, vq->drv_used_wrap))
		return -EAGAIN;
	id = le16toh(READ_ONCE(d->id));
	*len = le32toh(READ_ONCE(d->len));
	if (id >= vq->num || !vq->drv_ids[id].ndesc)
		return vring_drv_break(vq, "used id %u not in flight", id);

	if (vq->in_order && id != vq->drv_last_used) {
		vq->drv_inorder_batch = true;
		vq->drv_inorder_last = id;
		vq->drv_inorder_len = *len;
		return packed_complete_inorder(vq, token, len);
	}
	packed_complete(vq, id, token);
	return 0;
}

/**
 * vring_packed_drv_disable_cb() - Suppress used notifications
 * @vq:		Virtqueue (driver side)
 */
void vring_packed_drv_disable_cb(struct vq_drv *vq)
{
	vq->drv_cb_disabled = true;
	WRITE_ONCE(vq->packed.driver->flags,
		   htole16(VRING_PACKED_EVENT_FLAG_DISABLE));
}

/**
 * vring_packed_drv_enable_cb() - Ask for used notifications, then recheck
 * @vq:		Virtqueue (driver side)
 *
 * Return: true if used buffers are pending
 */
bool vring_packed_drv_enable_cb(struct vq_drv *vq)
{
	uint16_t flags;

	vq->drv_cb_disabled = false;
	if (vq->event_idx) {
		WRITE_ONCE(vq->packed.driver->off_wrap,
			   htole16(vq->drv_last_used |
				   (vq->drv_used_wrap ? VRING_PACKED_WRAP : 0)));
		WRITE_ONCE(vq->packed.driver->flags,
			   htole16(VRING_PACKED_EVENT_FLAG_DESC));
	} else {
		WRITE_ONCE(vq->packed.driver->flags,
			   htole16(VRING_PACKED_EVENT_FLAG_ENABLE));
	}
	/* Orders the stores above before re-reading the ring; pairs with the
	 * device's full barrier between its used flag stores and its read of
	 * our event suppression */
	smp_mb();
	if (vq->drv_inorder_batch)
		return true;
	flags = le16toh(LOAD_ACQUIRE(vq->packed.desc[vq->drv_last_used].flags));
	return packed_is_used(flags, vq->drv_used_wrap);
}
