// SPDX-License-Identifier: MIT
/*
 * vring_split.c - the split virtqueue layout (virtio 1.2, "Split
 * Virtqueues"): device side (pop chains from the avail ring, complete them
 * in the used ring) and driver side (add to the avail ring, collect from
 * the used ring), with indirect descriptors and EVENT_IDX / flag based
 * notification suppression.
 *
 * Leaves to others: dispatch, chain iovec filling and dirty logging (vq.c),
 * address translation (gmem.c).
 *
 * Security model (device side): the descriptor table and the avail ring
 * are written by the guest at any time. Each field is read once
 * (READ_ONCE / LOAD_ACQUIRE) into a host-order local and only the local is
 * checked and used: avail idx may not move by more than the ring size,
 * heads and next indices must be inside the table they index, a walk is
 * bounded by the table size (loops), indirect tables must be non-empty,
 * a multiple of 16 bytes, at most ring size entries, not nested and not
 * combined with NEXT. Any violation breaks the queue (-EBADMSG until reset);
 * nothing is read outside the validated ring areas and memory table.
 * Driver side: the used ring is written by the device; a used id that is
 * not in flight breaks the queue the same way.
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>

#include "vring.h"

/* Descriptors prefetched when new avail entries are seen (one burst) */
#define SPLIT_PREFETCH_MAX	32

/* avail->ring[num] is used_event, used->ring[num] avail_event ("The
 * Virtqueue Available Ring" / "The Virtqueue Used Ring") */
static uint16_t *split_used_event(const struct vq *vq)
{
	return &vq->split.avail->ring[vq->num];
}

static uint16_t *split_avail_event(const struct vq *vq)
{
	return (uint16_t *)&vq->split.used->ring[vq->num];
}

/* One descriptor, each field read once into host order */
struct split_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

static void split_read_desc(const struct vring_desc *d, struct split_desc *o)
{
	o->addr = le64toh(READ_ONCE(d->addr));
	o->len = le32toh(READ_ONCE(d->len));
	o->flags = le16toh(READ_ONCE(d->flags));
	o->next = le16toh(READ_ONCE(d->next));
}

/* Switch a walk to the indirect table @d points to ("Indirect Descriptors") */
static int split_enter_indirect(struct vq *vq, const struct split_desc *d,
				const struct vring_desc **table, uint16_t *max)
{
	if (d->flags & VRING_DESC_F_NEXT)
		return vq_break(vq, "indirect descriptor with NEXT set");
	if (!d->len || d->len % 16 || d->len / 16 > vq->num)
		return vq_break(vq, "indirect table length %u invalid (ring %u)",
				d->len, vq->num);
	*table = vq_indirect_table(vq, d->addr, d->len);
	if (!*table)
		return vq_break(vq, "indirect table %#llx+%u outside memory",
				(unsigned long long)d->addr, d->len);
	*max = (uint16_t)(d->len / 16);
	return 0;
}

/*
 * Walk the chain starting at @head: every descriptor is copied once and
 * validated; the walk is bounded by the size of the table it is in.
 */
static int split_walk(struct vq *vq, uint16_t head, struct vq_chain *c)
{
	const struct vring_desc *table = vq->split.desc;
	uint16_t i = head, max = vq->num, count = 0;
	bool indirect = false;
	struct split_desc d;
	int ret;

	vq_chain_start(c);
	for (;;) {
		if (count++ >= max)
			return vq_break(vq, "chain from head %u longer than %s %u",
					head, indirect ? "table" : "ring", max);
		split_read_desc(&table[i], &d);

		if (d.flags & VRING_DESC_F_INDIRECT) {
			if (indirect)
				return vq_break(vq, "nested indirect table");
			ret = split_enter_indirect(vq, &d, &table, &max);
			if (ret)
				return ret;
			indirect = true;
			c->ndesc++;
			i = 0;
			count = 0;
			continue;
		}
		ret = vq_chain_add(vq, c, d.addr, d.len,
				   d.flags & VRING_DESC_F_WRITE);
		if (ret)
			return ret;
		if (!indirect)
			c->ndesc++;
		if (!(d.flags & VRING_DESC_F_NEXT))
			return 0;
		if (d.next >= max)
			return vq_break(vq, "next %u >= %s size %u", d.next,
					indirect ? "table" : "ring", max);
		i = d.next;
	}
}

/*
 * The driver just published avail entries @from..@to: start loading the
 * descriptors they name now, so that the cache misses of a burst overlap
 * instead of being taken one chain at a time (the head, then its
 * descriptor, then its buffer, each waiting on the previous). Only a hint:
 * heads are masked into the table and read again, validated, by the pop.
 */
static void split_prefetch(const struct vq *vq, uint16_t from, uint16_t to)
{
	uint16_t mask = vq->num - 1, n = (uint16_t)(to - from), i;

	if (n > SPLIT_PREFETCH_MAX)
		n = SPLIT_PREFETCH_MAX;
	for (i = 0; i < n; i++) {
		uint16_t head = READ_ONCE(vq->split.avail->ring[(uint16_t)(from + i) & mask]);

		__builtin_prefetch(&vq->split.desc[le16toh(head) & mask], 0, 3);
	}
}

/**
 * vring_split_pop() - Take the next available chain from a split ring
 * @vq:		Virtqueue (device side), configured
 * @c:		Chain to fill
 *
 * Return: 0, -EAGAIN, -EBADMSG, -ENOSPC (see vq_pop())
 */
int vring_split_pop(struct vq *vq, struct vq_chain *c)
{
	uint16_t avail_idx = vq->avail_shadow, head;
	int ret;

	if (avail_idx == vq->last_avail) {
		/* Pairs with the driver's release store of avail->idx: the
		 * ring entries and descriptors before it are visible */
		avail_idx = le16toh(LOAD_ACQUIRE(vq->split.avail->idx));
		if ((uint16_t)(avail_idx - vq->last_avail) > vq->num)
			return vq_break(vq, "avail idx jumped from %u to %u",
					vq->last_avail, avail_idx);
		vq->avail_shadow = avail_idx;
		if (avail_idx == vq->last_avail)
			return -EAGAIN;
		split_prefetch(vq, vq->last_avail, avail_idx);
	}
	if (vq->inflight + vq->nbatch >= vq->num)
		return vq_break(vq, "more than %u buffers in flight", vq->num);

	head = le16toh(READ_ONCE(vq->split.avail->ring[vq->last_avail &
						       (vq->num - 1)]));
	if (head >= vq->num)
		return vq_break(vq, "head %u >= ring size %u", head, vq->num);

	ret = split_walk(vq, head, c);
	if (ret)
		return ret;
	c->id = head;
	vq->last_avail++;
	vq_chain_commit(vq, c);
	return 0;
}

/* Must the driver be notified of used entries old..new? ("Used Buffer
 * Notification Suppression") */
static bool split_need_notify(struct vq *vq, uint16_t old, uint16_t new)
{
	uint16_t event;
	bool valid = vq->signalled_used_valid;

	/* Orders our used->idx store before the loads of used_event / flags
	 * below; pairs with the driver's full barrier between writing
	 * used_event (or clearing NO_INTERRUPT) and re-reading used->idx */
	smp_mb();

	if ((vq->features & (1ULL << VIRTIO_F_NOTIFY_ON_EMPTY)) &&
	    !vq->inflight && !vring_split_avail_pending(vq))
		return true;
	if (!vq->event_idx)
		return !(le16toh(READ_ONCE(vq->split.avail->flags)) &
			 VRING_AVAIL_F_NO_INTERRUPT);

	if (valid)
		old = vq->signalled_used;
	vq->signalled_used = new;
	vq->signalled_used_valid = true;
	/* First flush since a reset or set_base: what was signalled before
	 * is unknown, the driver may wait for an earlier entry */
	if (!valid)
		return true;
	event = le16toh(READ_ONCE(*split_used_event(vq)));
	return vring_need_event(event, new, old);
}

/**
 * vring_split_flush() - Write the batch to the used ring, one idx store
 * @vq:		Virtqueue (device side) with a non-empty batch
 *
 * Return: true if the driver must be notified
 */
bool vring_split_flush(struct vq *vq)
{
	struct vring_used *used = vq->split.used;
	uint16_t old = vq->used_idx, mask = vq->num - 1, k;
	uint16_t new = (uint16_t)(old + vq->nbatch);

	for (k = 0; k < vq->nbatch; k++) {
		uint16_t slot = (uint16_t)(old + k) & mask;

		WRITE_ONCE(used->ring[slot].id, htole32(vq->batch[k].id));
		WRITE_ONCE(used->ring[slot].len, htole32(vq->batch[k].len));
		if (vq->log)
			gmem_log_write(vq->log, vq->log_used_gpa +
				       offsetof(struct vring_used, ring) +
				       (uint64_t)slot * 8, 8);
	}
	/* Pairs with the driver's acquire load of used->idx: the entries
	 * above are visible before the index that publishes them */
	STORE_RELEASE(used->idx, htole16(new));
	if (vq->log)
		gmem_log_write(vq->log, vq->log_used_gpa +
			       offsetof(struct vring_used, idx), 2);
	vq->used_idx = new;
	return split_need_notify(vq, old, new);
}

/**
 * vring_split_avail_pending() - Anything left to pop?
 * @vq:		Virtqueue (device side), configured
 *
 * Return: true if the avail ring holds unpopped chains
 */
bool vring_split_avail_pending(struct vq *vq)
{
	if (vq->avail_shadow != vq->last_avail)
		return true;
	/* Pairs with the driver's release store of avail->idx */
	return le16toh(LOAD_ACQUIRE(vq->split.avail->idx)) != vq->last_avail;
}

/**
 * vring_split_disable_notify() - Suppress kicks while we poll
 * @vq:		Virtqueue (device side)
 *
 * With EVENT_IDX avail_event is simply left behind: the driver kicks only
 * when it crosses it, which it already has.
 */
void vring_split_disable_notify(struct vq *vq)
{
	if (vq->event_idx)
		return;
	WRITE_ONCE(vq->split.used->flags, htole16(VRING_USED_F_NO_NOTIFY));
	if (vq->log)
		gmem_log_write(vq->log, vq->log_used_gpa, 2);
}

/**
 * vring_split_enable_notify() - Ask for kicks, then recheck avail
 * @vq:		Virtqueue (device side)
 *
 * Return: true if chains are pending (keep working)
 */
bool vring_split_enable_notify(struct vq *vq)
{
	if (vq->event_idx) {
		WRITE_ONCE(*split_avail_event(vq), htole16(vq->last_avail));
		if (vq->log)
			gmem_log_write(vq->log, vq->log_used_gpa +
				       offsetof(struct vring_used, ring) +
				       (uint64_t)vq->num * 8, 2);
	} else {
		WRITE_ONCE(vq->split.used->flags, 0);
		if (vq->log)
			gmem_log_write(vq->log, vq->log_used_gpa, 2);
	}
	/* Orders the store above before re-reading avail->idx; pairs with
	 * the driver's full barrier between its avail->idx store and its
	 * read of avail_event / used->flags (kick decision) */
	smp_mb();
	return le16toh(LOAD_ACQUIRE(vq->split.avail->idx)) != vq->last_avail;
}

/* ---------------- driver side ---------------- */

/**
 * vring_split_setup() - Initialise our own split ring (driver side)
 * @vq:		Virtqueue (driver side), addresses set, state already reset
 */
void vring_split_setup(struct vq *vq)
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
	*split_used_event(vq) = 0;
	vq->split.used->flags = 0;
	vq->split.used->idx = 0;
	*split_avail_event(vq) = 0;
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
static void split_drv_free_chain(struct vq *vq, uint16_t id,
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
int vring_split_drv_add(struct vq *vq, const struct vq_buf *out,
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
bool vring_split_drv_kick_needed(struct vq *vq)
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
	if (vq->event_idx)
		return vring_need_event(le16toh(READ_ONCE(*split_avail_event(vq))),
					new, old);
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
int vring_split_drv_get_used(struct vq *vq, uint32_t *token, uint32_t *len)
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
int vring_split_drv_get_used_burst(struct vq *vq, uint32_t *tokens,
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
		return vq_break(vq, "used idx jumped from %u to %u",
				vq->drv_last_used, used_idx);
	while (n < max && n < avail) {
		slot = vq->drv_last_used & (vq->num - 1);
		raw_id = le32toh(READ_ONCE(vq->split.used->ring[slot].id));
		len = le32toh(READ_ONCE(vq->split.used->ring[slot].len));
		if (raw_id >= vq->num || !vq->drv_ids[raw_id].ndesc) {
			vq_break(vq, "used id %u not in flight", raw_id);
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
		WRITE_ONCE(*split_used_event(vq), htole16(vq->drv_last_used));
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
void vring_split_drv_disable_cb(struct vq *vq)
{
	vq->drv_cb_disabled = true;
	if (vq->event_idx)
		/* Half a ring of indices away: effectively never */
		WRITE_ONCE(*split_used_event(vq),
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
bool vring_split_drv_enable_cb(struct vq *vq)
{
	vq->drv_cb_disabled = false;
	if (vq->event_idx)
		WRITE_ONCE(*split_used_event(vq), htole16(vq->drv_last_used));
	else
		WRITE_ONCE(vq->split.avail->flags, 0);
	/* Orders the store above before re-reading used->idx; pairs with
	 * the device's full barrier between its used->idx store and its
	 * read of used_event / avail->flags */
	smp_mb();
	return le16toh(LOAD_ACQUIRE(vq->split.used->idx)) != vq->drv_last_used;
}
