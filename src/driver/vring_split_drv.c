// SPDX-License-Identifier: MIT
/*
 * vring_split_drv.c - the driver side of the split virtqueue layout
 * (virtio 1.2, "Split Virtqueues"): our own rings (the frontend's, the
 * benchmark's): add buffers to the avail ring, collect them from the used
 * ring, FIFO free list, indirect tables, notification suppression.
 *
 * Leaves to others: dispatch (vq_drv.c), breaking the queue (vring_drv.c),
 * the ring layout's shared helpers (vring_split.h, the device side's).
 *
 * Security model: the rings are ours, but the used ring is written by the
 * device (a vhost-user backend, possibly another process). Each used
 * entry is read once; the used index may not move by more than the ring
 * size and a used id must be a buffer in flight, else the queue breaks
 * (-EBADMSG until reset). The free list lives in drv_ids[], private to
 * us: the device cannot redirect our writes.
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>

#include "vring_drv.h"
#include "vring_split.h"

/**
 * vring_split_drv_setup() - Initialise our own split ring (driver side)
 * @vq:		Virtqueue (driver side), addresses set, state already reset
 */
void vring_split_drv_setup(struct vq_drv *vq)
{
	uint16_t i;

	for (i = 0; i < vq->num; i++) {
		struct vring_desc *d = &vq->split.desc[i];

		d->addr = 0;
		d->len = 0;
		d->flags = 0;
		d->next = 0;
		vq->drv_ids[i].ndesc = 0;
		vq->drv_ids[i].next_free = (uint16_t)(i + 1);
	}
	vq->split.avail->flags = 0;
	vq->split.avail->idx = 0;
	*vring_split_used_event(&vq->area) = 0;
	vq->split.used->flags = 0;
	vq->split.used->idx = 0;
	*vring_split_avail_event(&vq->area) = 0;
}

/*
 * Store only the fields that change. A buffer re-posted with the same
 * descriptor (fixed slots, FIFO free list) finds addr, len and flags
 * already right: skipping the stores leaves the cache line shared with the
 * device instead of taking it back and making the device miss on it again.
 * The descriptor is free (ours alone) while it is filled.
 */
static void split_fill(struct vring_desc *d, uint64_t gpa, uint32_t len,
		       uint16_t flags)
{
	if (d->addr != htole64(gpa))
		d->addr = htole64(gpa);
	if (d->len != htole32(len))
		d->len = htole32(len);
	if (d->flags != htole16(flags))
		d->flags = htole16(flags);
}

/* Same for a 16-bit ring field we own (next, an avail ring entry) */
static void split_store16(uint16_t *p, uint16_t v)
{
	if (*p != htole16(v))
		*p = htole16(v);
}

/*
 * Give a completed chain's descriptors back at the tail of the free list.
 * First in, first out: when the device completes in order (as vnetd and
 * DPDK do), every lap of the ring hands out the same descriptors in the
 * same avail slots, so re-posted buffers rewrite nothing (split_fill()).
 */
static void split_drv_free_chain(struct vq_drv *vq, uint16_t id,
				 struct vq_drv_id *e)
{
	if (vq->drv_num_free)
		vq->drv_ids[vq->drv_free_tail].next_free = id;
	else
		vq->drv_free_head = id;
	vq->drv_free_tail = e->last;
	vq->drv_num_free += e->ndesc;
	e->ndesc = 0;
}

/* Fill a table of @n linked descriptors (indirect): out pieces then in */
static void split_fill_table(struct vring_desc *t, const struct vq_buf *out,
			     unsigned int nout, const struct vq_buf *in,
			     unsigned int nin)
{
	unsigned int i, n = nout + nin;

	for (i = 0; i < n; i++) {
		const struct vq_buf *b = i < nout ? &out[i] : &in[i - nout];
		uint16_t flags = i < nout ? 0 : VRING_DESC_F_WRITE;

		if (i + 1 < n)
			flags |= VRING_DESC_F_NEXT;
		split_fill(&t[i], b->gpa, b->len, flags);
		t[i].next = htole16((uint16_t)(i + 1));
	}
}

/**
 * vring_split_drv_add() - Add a buffer to our split ring (not yet published)
 * @vq:		Virtqueue (driver side)
 * @out:	Readable pieces
 * @nout:	How many
 * @in:		Writable pieces
 * @nin:	How many
 * @token:	Caller's cookie
 *
 * Return: 0 or -ENOSPC
 */
int vring_split_drv_add(struct vq_drv *vq, const struct vq_buf *out,
			unsigned int nout, const struct vq_buf *in,
			unsigned int nin, uint32_t token)
{
	unsigned int n = nout + nin, i, ndesc;
	uint16_t head = vq->drv_free_head, cur = head, last = head;
	bool indirect = vq->indirect && vq->drv_indirect && n > 1 &&
			n <= vq->drv_indirect_max && n <= vq->num;

	ndesc = indirect ? 1 : n;
	if (ndesc > vq->drv_num_free)
		return -ENOSPC;

	if (indirect) {
		struct vring_desc *t = (struct vring_desc *)vq->drv_indirect +
				       (size_t)head * vq->drv_indirect_max;

		split_fill_table(t, out, nout, in, nin);
		split_fill(&vq->split.desc[head], vq->drv_indirect_gpa +
			   (uint64_t)head * vq->drv_indirect_max * 16,
			   n * 16, VRING_DESC_F_INDIRECT);
		cur = vq->drv_ids[head].next_free;
	} else {
		for (i = 0; i < n; i++) {
			const struct vq_buf *b = i < nout ? &out[i] :
							    &in[i - nout];
			uint16_t flags = i < nout ? 0 : VRING_DESC_F_WRITE;

			if (i + 1 < n)
				flags |= VRING_DESC_F_NEXT;
			last = cur;
			split_fill(&vq->split.desc[cur], b->gpa, b->len, flags);
			/* The free list lives in drv_ids[], private to us:
			 * the device cannot redirect our writes */
			cur = vq->drv_ids[cur].next_free;
			if (i + 1 < n)	/* the last one's next is not read */
				split_store16(&vq->split.desc[last].next, cur);
		}
	}

	vq->drv_free_head = cur;
	vq->drv_num_free -= ndesc;
	vq->drv_ids[head].token = token;
	vq->drv_ids[head].ndesc = (uint16_t)ndesc;
	vq->drv_ids[head].last = last;
	split_store16(&vq->split.avail->ring[vq->drv_avail_idx & (vq->num - 1)],
		      head);
	vq->drv_avail_idx++;
	vq->stats.chains++;
	return 0;
}

/**
 * vring_split_drv_kick_needed() - Publish avail->idx, decide on a kick
 * @vq:		Virtqueue (driver side)
 *
 * Return: true if the device wants a notification
 */
bool vring_split_drv_kick_needed(struct vq_drv *vq)
{
	uint16_t old = vq->drv_kicked_avail, new = vq->drv_avail_idx;

	/* Pairs with the device's acquire load of avail->idx: descriptors
	 * and ring entries are visible before the index */
	STORE_RELEASE(vq->split.avail->idx, htole16(new));
	/* Orders that store before reading avail_event / used->flags; pairs
	 * with the device's full barrier in its enable-notify recheck */
	smp_mb();
	vq->drv_kicked_avail = new;
	if (old == new)
		return false;
	if (vq->event_idx) {
		uint16_t *event = vring_split_avail_event(&vq->area);

		return vring_need_event(le16toh(READ_ONCE(*event)), new, old);
	}
	return !(le16toh(READ_ONCE(vq->split.used->flags)) &
		 VRING_USED_F_NO_NOTIFY);
}

/**
 * vring_split_drv_get_used() - Collect one used buffer
 * @vq:		Virtqueue (driver side)
 * @token:	Output
 * @len:	Output
 *
 * Return: 0, -EAGAIN, -EBADMSG (device returned a bad id or index)
 */
int vring_split_drv_get_used(struct vq_drv *vq, uint32_t *token, uint32_t *len)
{
	int n = vring_split_drv_get_used_burst(vq, token, len, 1);

	return n > 0 ? 0 : n ? n : -EAGAIN;
}

/**
 * vring_split_drv_get_used_burst() - Collect up to @max used buffers
 * @vq:		Virtqueue (driver side)
 * @tokens:	Output: tokens, [max], or NULL
 * @lens:	Output: lengths, [max], or NULL
 * @max:	Most buffers to collect
 *
 * One acquire load of used->idx for the burst and, with notifications
 * enabled under EVENT_IDX, one used_event store and barrier at its end.
 *
 * Return: buffers collected (0: none), -EBADMSG if the queue broke before
 *	   any was collected (those collected first are returned first)
 */
int vring_split_drv_get_used_burst(struct vq_drv *vq, uint32_t *tokens,
				   uint32_t *lens, unsigned int max)
{
	uint16_t used_idx, slot, id, avail;
	unsigned int n = 0;
	struct vq_drv_id *e;
	uint32_t raw_id, len;

	/* Pairs with the device's release store of used->idx */
	used_idx = le16toh(LOAD_ACQUIRE(vq->split.used->idx));
	avail = (uint16_t)(used_idx - vq->drv_last_used);
	if (avail > vq->num)
		return vring_drv_break(vq, "used idx jumped from %u to %u",
				vq->drv_last_used, used_idx);
	while (n < max && n < avail) {
		slot = vq->drv_last_used & (vq->num - 1);
		raw_id = le32toh(READ_ONCE(vq->split.used->ring[slot].id));
		len = le32toh(READ_ONCE(vq->split.used->ring[slot].len));
		if (raw_id >= vq->num || !vq->drv_ids[raw_id].ndesc) {
			vring_drv_break(vq, "used id %u not in flight", raw_id);
			break;
		}
		id = (uint16_t)raw_id;
		e = &vq->drv_ids[id];
		if (tokens)
			tokens[n] = e->token;
		split_drv_free_chain(vq, id, e);
		if (lens)
			lens[n] = len;
		vq->drv_last_used++;
		vq->stats.used++;
		n++;
	}
	if (n && vq->event_idx && !vq->drv_cb_disabled) {
		/* Ask for the next entry; the barrier orders it before our
		 * next used->idx read (pairs with the device's smp_mb) */
		WRITE_ONCE(*vring_split_used_event(&vq->area), htole16(vq->drv_last_used));
		smp_mb();
	}
	if (!n && vq->broken)
		return -EBADMSG;
	return (int)n;
}

/**
 * vring_split_drv_disable_cb() - Suppress used notifications
 * @vq:		Virtqueue (driver side)
 */
void vring_split_drv_disable_cb(struct vq_drv *vq)
{
	vq->drv_cb_disabled = true;
	if (vq->event_idx)
		/* Half a ring of indices away: effectively never */
		WRITE_ONCE(*vring_split_used_event(&vq->area),
			   htole16((uint16_t)(vq->drv_last_used - 0x8000)));
	else
		WRITE_ONCE(vq->split.avail->flags,
			   htole16(VRING_AVAIL_F_NO_INTERRUPT));
}

/**
 * vring_split_drv_enable_cb() - Ask for used notifications, then recheck
 * @vq:		Virtqueue (driver side)
 *
 * Return: true if used buffers are pending
 */
bool vring_split_drv_enable_cb(struct vq_drv *vq)
{
	vq->drv_cb_disabled = false;
	if (vq->event_idx)
		WRITE_ONCE(*vring_split_used_event(&vq->area), htole16(vq->drv_last_used));
	else
		WRITE_ONCE(vq->split.avail->flags, 0);
	/* Orders the store above before re-reading used->idx; pairs with
	 * the device's full barrier between its used->idx store and its
	 * read of used_event / avail->flags */
	smp_mb();
	return le16toh(LOAD_ACQUIRE(vq->split.used->idx)) != vq->drv_last_used;
}
