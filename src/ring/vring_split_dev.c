// SPDX-License-Identifier: MIT
/*
 * vring_split_dev.c - the device side of the split virtqueue layout
 * (virtio 1.2, "Split Virtqueues"): pop chains from the guest's avail
 * ring, complete them in its used ring, with indirect descriptors and
 * EVENT_IDX / flag based notification suppression. This is the code a
 * hostile guest attacks; it reads alone (the driver side is
 * src/driver/vring_split_drv.c).
 *
 * Leaves to others: dispatch, completions and their dirty logging (vq.c),
 * chain iovec filling and breaking the queue (vq_chain.c), address
 * translation (gmem.c).
 *
 * Security model: the descriptor table and the avail ring are written by
 * the guest at any time. Each field is read once (READ_ONCE /
 * LOAD_ACQUIRE) into a host-order local and only the local is checked and
 * used: avail idx may not move by more than the ring size, heads and next
 * indices must be inside the table they index, a walk is bounded by the
 * table size (loops), indirect tables must be non-empty, a multiple of 16
 * bytes, at most ring size entries, not nested and not combined with NEXT.
 * Any violation breaks the queue (-EBADMSG until reset); nothing is read
 * outside the validated ring areas and memory table. The only guest fields
 * read on the completion side are used_event and avail->flags, and only to
 * decide on a notification.
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>

#include "vq_chain.h"
#include "vring_split.h"

/* Descriptors prefetched when new avail entries are seen (one burst) */
#define SPLIT_PREFETCH_MAX	32

/* One descriptor, each field read once into host order */
struct split_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

static inline void split_read_desc(const struct vring_desc *d,
				   struct split_desc *o)
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
	*table = vq_chain_indirect(vq, d->addr, d->len);
	if (!*table)
		return vq_break(vq, "indirect table %#llx+%u outside memory",
				(unsigned long long)d->addr, d->len);
	*max = (uint16_t)(d->len / 16);
	return 0;
}

/*
 * Walk the chain starting at @head, whose descriptor @d (a copy) holds:
 * every descriptor is copied once and validated; the walk is bounded by the
 * size of the table it is in. Out of line: one-descriptor chains do not
 * need it (vq_chain_one()).
 */
static NOINLINE int split_walk(struct vq *vq, uint16_t head,
			       struct split_desc d, struct vq_chain *c)
{
	const struct vring_desc *table = vq->split.desc;
	uint16_t max = vq->num, count = 0;
	bool indirect = false;
	int ret;

	vq_chain_start(c);
	for (;;) {
		if (count++ >= max)
			return vq_break(vq, "chain from head %u longer than %s %u",
					head, indirect ? "table" : "ring", max);

		if (d.flags & VRING_DESC_F_INDIRECT) {
			if (indirect)
				return vq_break(vq, "nested indirect table");
			ret = split_enter_indirect(vq, &d, &table, &max);
			if (ret)
				return ret;
			indirect = true;
			c->ndesc++;
			count = 0;
			split_read_desc(&table[0], &d);
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
		split_read_desc(&table[d.next], &d);
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
	struct split_desc d;
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

	split_read_desc(&vq->split.desc[head], &d);
	/* one descriptor in the hint region: no walk (same checks) */
	if (!(d.flags & (VRING_DESC_F_NEXT | VRING_DESC_F_INDIRECT)) &&
	    vq_chain_one(vq, c, d.addr, d.len, d.flags & VRING_DESC_F_WRITE))
		ret = 0;
	else
		ret = split_walk(vq, head, d, c);
	if (ret)
		return ret;
	c->id = head;
	vq->last_avail++;
	vq_chain_commit(vq, c);
	return 0;
}

/**
 * vring_split_pop_run() - Take the run of one-descriptor chains next
 * @vq:		Virtqueue (device side), configured, not broken
 * @c:		Array of @max chains to fill
 * @max:	Chains to take at most
 *
 * Among the avail entries the driver published (up to avail_shadow, read
 * with acquire ordering by an earlier vring_split_pop()), in order, up to
 * the first entry that is not one: a head outside the table, NEXT or
 * INDIRECT set, a buffer that vq_chain_set_one() does not take (empty,
 * outside the hint region), or the in-flight limit. Each field is read
 * once; the hint region is copied once for the run. vq_pop_burst() pops
 * the entry a run stops at, and reads a new avail index, with
 * vring_split_pop().
 *
 * Return: chains popped, c[0 .. n), possibly none
 */
unsigned int vring_split_pop_run(struct vq *vq, struct vq_chain *c,
				 unsigned int max)
{
	const struct gmem_region *hint = vq_hint_region(vq);
	const uint16_t mask = vq->num - 1, num = vq->num;
	const uint16_t last = vq->last_avail;
	/* locals: the relaxed atomic loads below would reload every field
	 * of @vq per descriptor */
	const struct vring_avail *avail = vq->split.avail;
	const struct vring_desc *desc = vq->split.desc;
	struct gmem_region r;	/* a copy: the chain stores cannot alias it */
	unsigned int n, k, room;

	n = (uint16_t)(vq->avail_shadow - last);
	room = vq->inflight + vq->nbatch < num ?
	       num - vq->inflight - vq->nbatch : 0;
	n = MIN(n, MIN(max, room));
	if (!n || unlikely(!hint))
		return 0;
	r = *hint;
	for (k = 0; k < n; k++) {
		uint16_t head = le16toh(READ_ONCE(avail->ring[
				(uint16_t)(last + k) & mask]));
		struct split_desc d;

		if (unlikely(head >= num))
			break;
		split_read_desc(&desc[head], &d);
		if (d.flags & (VRING_DESC_F_NEXT | VRING_DESC_F_INDIRECT))
			break;
		if (!vq_chain_set_one(&c[k], &r, d.addr, d.len,
				      d.flags & VRING_DESC_F_WRITE))
			break;
		c[k].id = head;
	}
	vq_chain_commit_one(vq, k);
	vq->last_avail = (uint16_t)(last + k);
	return k;
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
	event = le16toh(READ_ONCE(*vring_split_used_event(&vq->area)));
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
	uint16_t nbatch = vq->nbatch, new = (uint16_t)(old + nbatch);
	/* a local: the relaxed atomic stores would reload it per entry */
	const struct vq_used_elem *batch = vq->batch;

	for (k = 0; k < nbatch; k++) {
		uint16_t slot = (uint16_t)(old + k) & mask;

		WRITE_ONCE(used->ring[slot].id, htole32(batch[k].id));
		WRITE_ONCE(used->ring[slot].len, htole32(batch[k].len));
		if (unlikely(vq->log != NULL))
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
		WRITE_ONCE(*vring_split_avail_event(&vq->area), htole16(vq->last_avail));
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
