// SPDX-License-Identifier: MIT
/*
 * vring_packed.c - the packed virtqueue layout (virtio 1.2, "Packed
 * Virtqueues"): device side (pop chains marked available, write used
 * descriptors back in place) and driver side (mark descriptors available,
 * collect used ones), with wrap counters, indirect tables, event
 * suppression structures (incl. EVENT_IDX "DESC" mode) and in-order
 * completion.
 *
 * Leaves to others: dispatch, chain iovec filling and dirty logging (vq.c),
 * address translation (gmem.c).
 *
 * Security model (device side): the descriptor ring is written by the
 * guest at any time. Each descriptor field is read once into a host-order
 * local; the head's flags with acquire ordering, then the rest of the chain.
 * The buffer id is captured during the walk (last descriptor of a direct
 * chain, the ring descriptor of an indirect one; ids inside indirect tables
 * are ignored) and the ring is never re-read after it. Checked: every
 * descriptor of a chain is marked available for the current wrap, a chain
 * is at most the ring size, indirect tables are non-empty, a multiple of 16
 * bytes, at most ring size entries, not nested and not combined with NEXT.
 * A violation breaks the queue (-EBADMSG until reset). Driver side: a used
 * id that is not in flight breaks the queue the same way.
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>

#include "vring.h"

/* Available for a driver whose wrap counter is @wrap ("Driver and Device
 * Ring Wrap Counters") */
static bool packed_is_avail(uint16_t flags, bool wrap)
{
	return !!(flags & VRING_PACKED_F_AVAIL) == wrap &&
	       !!(flags & VRING_PACKED_F_USED) != wrap;
}

/* Used, as seen by a driver whose used wrap counter is @wrap */
static bool packed_is_used(uint16_t flags, bool wrap)
{
	return !!(flags & VRING_PACKED_F_AVAIL) == wrap &&
	       !!(flags & VRING_PACKED_F_USED) == wrap;
}

/* Advance a (slot, wrap) position by @n slots, n <= num */
static void packed_advance(const struct vq *vq, uint16_t *slot, bool *wrap,
			   uint16_t n)
{
	uint32_t s = (uint32_t)*slot + n;

	if (s >= vq->num) {
		s -= vq->num;
		*wrap = !*wrap;
	}
	*slot = (uint16_t)s;
}

/* Walk an indirect table: sequential entries, only WRITE counts ("Indirect
 * Flag: Scatter-Gather Support") */
static int packed_walk_indirect(struct vq *vq, uint16_t flags, uint64_t addr,
				uint32_t len, struct vq_chain *c)
{
	const struct vring_packed_desc *t;
	uint32_t i;
	int ret;

	if (flags & VRING_DESC_F_NEXT)
		return vq_break(vq, "indirect descriptor with NEXT set");
	if (!len || len % 16 || len / 16 > vq->num)
		return vq_break(vq, "indirect table length %u invalid (ring %u)",
				len, vq->num);
	t = vq_indirect_table(vq, addr, len);
	if (!t)
		return vq_break(vq, "indirect table %#llx+%u outside memory",
				(unsigned long long)addr, len);

	for (i = 0; i < len / 16; i++) {
		uint16_t f = le16toh(READ_ONCE(t[i].flags));

		if (f & VRING_DESC_F_INDIRECT)
			return vq_break(vq, "nested indirect table");
		ret = vq_chain_add(vq, c, le64toh(READ_ONCE(t[i].addr)),
				   le32toh(READ_ONCE(t[i].len)),
				   f & VRING_DESC_F_WRITE);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Walk the chain whose head (at last_avail) has @flags, read with acquire
 * ordering by the caller. Every ring descriptor is read once.
 */
static int packed_walk(struct vq *vq, uint16_t flags, struct vq_chain *c)
{
	const struct vring_packed_desc *ring = vq->packed.desc;
	uint16_t slot = vq->last_avail, n = 0, id;
	bool wrap = vq->avail_wrap;
	uint64_t addr;
	uint32_t len;
	int ret;

	vq_chain_start(c);
	for (;;) {
		if (n) {
			flags = le16toh(READ_ONCE(ring[slot].flags));
			if (!packed_is_avail(flags, wrap))
				return vq_break(vq, "descriptor %u of chain at %u not available (flags %#x)",
						slot, vq->last_avail, flags);
		}
		addr = le64toh(READ_ONCE(ring[slot].addr));
		len = le32toh(READ_ONCE(ring[slot].len));
		id = le16toh(READ_ONCE(ring[slot].id));
		n++;

		if (flags & VRING_DESC_F_INDIRECT)
			ret = packed_walk_indirect(vq, flags, addr, len, c);
		else
			ret = vq_chain_add(vq, c, addr, len,
					   flags & VRING_DESC_F_WRITE);
		if (ret)
			return ret;
		if (!(flags & VRING_DESC_F_NEXT))
			break;
		if (n >= vq->num)
			return vq_break(vq, "chain at %u longer than ring %u",
					vq->last_avail, vq->num);
		packed_advance(vq, &slot, &wrap, 1);
	}
	/* The id of the chain's last (or only, indirect) ring descriptor */
	c->id = id;
	c->ndesc = n;
	return 0;
}

/**
 * vring_packed_pop() - Take the next available chain from a packed ring
 * @vq:		Virtqueue (device side), configured
 * @c:		Chain to fill
 *
 * Return: 0, -EAGAIN, -EBADMSG, -ENOSPC (see vq_pop())
 */
int vring_packed_pop(struct vq *vq, struct vq_chain *c)
{
	uint16_t flags;
	int ret;

	/* Pairs with the driver's release store of the head's flags: the
	 * chain's other descriptors were written before it */
	flags = le16toh(LOAD_ACQUIRE(vq->packed.desc[vq->last_avail].flags));
	if (!packed_is_avail(flags, vq->avail_wrap))
		return -EAGAIN;
	if (vq->inflight + vq->nbatch >= vq->num)
		return vq_break(vq, "more than %u buffers in flight", vq->num);

	ret = packed_walk(vq, flags, c);
	if (ret)
		return ret;
	packed_advance(vq, &vq->last_avail, &vq->avail_wrap, c->ndesc);
	vq_chain_commit(vq, c);
	return 0;
}

/**
 * vring_packed_unpop() - Move the avail position back (vq_discard())
 * @vq:		Virtqueue (device side)
 * @slots:	Ring slots the discarded chains took: may exceed the ring
 *		size (a guest that re-marks slots lets pops run laps ahead)
 */
void vring_packed_unpop(struct vq *vq, uint32_t slots)
{
	uint32_t rem = slots % vq->num;

	if ((slots / vq->num) & 1)
		vq->avail_wrap = !vq->avail_wrap;
	if (vq->last_avail >= rem) {
		vq->last_avail = (uint16_t)(vq->last_avail - rem);
	} else {
		vq->last_avail = (uint16_t)(vq->last_avail + vq->num - rem);
		vq->avail_wrap = !vq->avail_wrap;
	}
}

/* Must the driver be notified of @slots slots used up to used_idx? */
static bool packed_need_notify(struct vq *vq, uint16_t slots)
{
	uint16_t flags, off_wrap, event, new = vq->used_idx;

	/* Orders our used flag stores before reading the driver's event
	 * suppression; pairs with the driver's full barrier between writing
	 * it and rechecking the ring (enable_cb) */
	smp_mb();
	flags = le16toh(READ_ONCE(vq->packed.driver->flags));
	if (flags != VRING_PACKED_EVENT_FLAG_DESC || !vq->event_idx)
		return flags != VRING_PACKED_EVENT_FLAG_DISABLE;

	/* First flush since a reset or set_base: what was signalled before
	 * is unknown, the driver may wait for an earlier slot */
	if (!vq->signalled_used_valid) {
		vq->signalled_used_valid = true;
		return true;
	}
	off_wrap = le16toh(READ_ONCE(vq->packed.driver->off_wrap));
	event = off_wrap & ~VRING_PACKED_WRAP;
	/* Positions of the previous lap are negative (mod 2^16) */
	if (!!(off_wrap & VRING_PACKED_WRAP) != vq->used_wrap)
		event = (uint16_t)(event - vq->num);
	return vring_need_event(event, new, (uint16_t)(new - slots));
}

/*
 * IN_ORDER and every length 0 (TX completions): one used descriptor naming
 * the batch's last buffer stands for all of them, the driver skips the
 * slots of the others (virtio 1.2 packed, "In-order use of descriptors").
 * Only while the batch spans at most one lap of the ring: a guest that
 * re-marks slots can make the device pop more, and one advance by the sum
 * would leave used_idx outside the ring.
 */
static bool packed_batch_collapsible(const struct vq *vq)
{
	uint32_t slots = 0;
	uint16_t k;

	if (!vq->in_order || vq->nbatch < 2)
		return false;
	for (k = 0; k < vq->nbatch; k++) {
		if (vq->batch[k].len)
			return false;
		slots += vq->batch[k].ndesc;
	}
	return slots <= vq->num;
}

/* Write the collapsed batch's single used descriptor (but not its flags) */
static uint32_t packed_write_collapsed(struct vq *vq, uint16_t *slot,
				       bool *wrap)
{
	struct vring_packed_desc *d = &vq->packed.desc[*slot];
	uint32_t slots = 0;
	uint16_t k;

	for (k = 0; k < vq->nbatch; k++)
		slots += vq->batch[k].ndesc;
	WRITE_ONCE(d->id, htole16(vq->batch[vq->nbatch - 1].id));
	WRITE_ONCE(d->len, 0);
	if (vq->log)
		gmem_log_write(vq->log, vq->log_used_gpa + (uint64_t)*slot * 16,
			       16);
	packed_advance(vq, slot, wrap, (uint16_t)slots);
	return slots;
}

/**
 * vring_packed_flush() - Write the batch as used descriptors
 * @vq:		Virtqueue (device side) with a non-empty batch
 *
 * Ids and lengths first, then the flags, the first descriptor's last: the
 * driver sees the whole batch at once. With IN_ORDER, a batch of zero
 * lengths is written as one used descriptor.
 *
 * Return: true if the driver must be notified
 */
bool vring_packed_flush(struct vq *vq)
{
	struct vring_packed_desc *ring = vq->packed.desc;
	uint16_t first = vq->used_idx, slot = first, k, first_flags;
	bool wrap = vq->used_wrap;
	bool collapse = packed_batch_collapsible(vq);
	uint32_t slots = 0;

	first_flags = wrap ? VRING_PACKED_F_AVAIL | VRING_PACKED_F_USED : 0;
	if (collapse)
		slots = packed_write_collapsed(vq, &slot, &wrap);
	for (k = 0; !collapse && k < vq->nbatch; k++) {
		const struct vq_used_elem *e = &vq->batch[k];
		uint16_t f = wrap ? VRING_PACKED_F_AVAIL | VRING_PACKED_F_USED
				  : 0;

		WRITE_ONCE(ring[slot].id, htole16(e->id));
		WRITE_ONCE(ring[slot].len, htole32(e->len));
		if (k)
			WRITE_ONCE(ring[slot].flags, htole16(f));
		if (vq->log)
			gmem_log_write(vq->log, vq->log_used_gpa +
				       (uint64_t)slot * 16, 16);
		slots += e->ndesc;
		packed_advance(vq, &slot, &wrap, e->ndesc);
	}
	/* Pairs with the driver's acquire load of the first used flags:
	 * every id, length and later flag above is visible with it */
	STORE_RELEASE(ring[first].flags, htole16(first_flags));

	vq->used_idx = slot;
	vq->used_wrap = wrap;
	return packed_need_notify(vq, (uint16_t)slots);
}

/**
 * vring_packed_avail_pending() - Is the next slot available?
 * @vq:		Virtqueue (device side), configured
 *
 * Return: true if a chain can be popped
 */
bool vring_packed_avail_pending(struct vq *vq)
{
	/* Pairs with the driver's release store of the head's flags */
	return packed_is_avail(le16toh(LOAD_ACQUIRE(
			vq->packed.desc[vq->last_avail].flags)),
			vq->avail_wrap);
}

/**
 * vring_packed_disable_notify() - Suppress kicks while we poll
 * @vq:		Virtqueue (device side)
 */
void vring_packed_disable_notify(struct vq *vq)
{
	WRITE_ONCE(vq->packed.device->flags,
		   htole16(VRING_PACKED_EVENT_FLAG_DISABLE));
}

/**
 * vring_packed_enable_notify() - Ask for kicks, then recheck the ring
 * @vq:		Virtqueue (device side)
 *
 * Return: true if a chain is pending (keep working)
 */
bool vring_packed_enable_notify(struct vq *vq)
{
	if (vq->event_idx) {
		WRITE_ONCE(vq->packed.device->off_wrap,
			   htole16(vq->last_avail |
				   (vq->avail_wrap ? VRING_PACKED_WRAP : 0)));
		WRITE_ONCE(vq->packed.device->flags,
			   htole16(VRING_PACKED_EVENT_FLAG_DESC));
	} else {
		WRITE_ONCE(vq->packed.device->flags,
			   htole16(VRING_PACKED_EVENT_FLAG_ENABLE));
	}
	/* Orders the stores above before re-reading the ring; pairs with the
	 * driver's full barrier between marking descriptors available and
	 * reading our event suppression (kick decision) */
	smp_mb();
	return vring_packed_avail_pending(vq);
}

/* ---------------- driver side ---------------- */

/**
 * vring_packed_setup() - Initialise our own packed ring (driver side)
 * @vq:		Virtqueue (driver side), addresses set, state already reset
 */
void vring_packed_setup(struct vq *vq)
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
static uint16_t packed_fill_direct(struct vq *vq, const struct vq_buf *out,
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
		packed_advance(vq, &slot, &wrap, 1);
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
int vring_packed_drv_add(struct vq *vq, const struct vq_buf *out,
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

	packed_advance(vq, &vq->drv_avail_idx, &vq->drv_avail_wrap, slots);
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
bool vring_packed_drv_kick_needed(struct vq *vq)
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
static void packed_complete(struct vq *vq, uint16_t id, uint32_t *token)
{
	struct vq_drv_id *e = &vq->drv_ids[id];

	packed_advance(vq, &vq->drv_last_used, &vq->drv_used_wrap, e->ndesc);
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
static int packed_complete_inorder(struct vq *vq, uint32_t *token,
				   uint32_t *len)
{
	uint16_t id = vq->drv_last_used;

	if (!vq->drv_ids[id].ndesc)
		return vq_break(vq, "in-order batch up to id %u passed the in-flight buffers",
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
int vring_packed_drv_get_used(struct vq *vq, uint32_t *token, uint32_t *len)
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
		return vq_break(vq, "used id %u not in flight", id);

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
void vring_packed_drv_disable_cb(struct vq *vq)
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
bool vring_packed_drv_enable_cb(struct vq *vq)
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
