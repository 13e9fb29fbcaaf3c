// SPDX-License-Identifier: MIT
/*
 * vring_packed_dev.c - the device side of the packed virtqueue layout
 * (virtio 1.2, "Packed Virtqueues"): pop chains the guest marked
 * available, write used descriptors back in place, with wrap counters,
 * indirect tables, event suppression (incl. EVENT_IDX "DESC" mode) and
 * in-order completion. This is the code a hostile guest attacks; it reads
 * alone (the driver side is src/driver/vring_packed_drv.c).
 *
 * Leaves to others: dispatch, completions and their dirty logging (vq.c),
 * chain iovec filling and breaking the queue (vq_chain.c), address
 * translation (gmem.c).
 *
 * Security model: the descriptor ring is written by the guest at any time.
 * Each descriptor field is read once into a host-order local; the head's
 * flags with acquire ordering (a batch of one-descriptor chains: the
 * batch's flags, then one acquire fence), then the rest of the chain. The
 * buffer id is captured during the walk (last descriptor of a direct chain, the ring
 * descriptor of an indirect one; ids inside indirect tables are ignored)
 * and the ring is never re-read after it. Checked: every descriptor of a
 * chain is marked available for the current wrap, a chain is at most the
 * ring size, indirect tables are non-empty, a multiple of 16 bytes, at
 * most ring size entries, not nested and not combined with NEXT. A
 * violation breaks the queue (-EBADMSG until reset). The driver's event
 * suppression structure is read only to decide on a notification.
 */
#include <endian.h>
#include <errno.h>
#include <stddef.h>

#include "vq_chain.h"
#include "vring_packed.h"

/* Available for a driver whose wrap counter is @wrap ("Driver and Device
 * Ring Wrap Counters") */
static bool packed_is_avail(uint16_t flags, bool wrap)
{
	return !!(flags & VRING_PACKED_F_AVAIL) == wrap &&
	       !!(flags & VRING_PACKED_F_USED) != wrap;
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
	t = vq_chain_indirect(vq, addr, len);
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

/* One ring descriptor, each field read once into host order */
struct packed_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t id;
	uint16_t flags;
};

/* The fields of descriptor @d but its flags, which the caller read first */
static inline void packed_read_desc(const struct vring_packed_desc *d,
				    uint16_t flags, struct packed_desc *o)
{
	o->addr = le64toh(READ_ONCE(d->addr));
	o->len = le32toh(READ_ONCE(d->len));
	o->id = le16toh(READ_ONCE(d->id));
	o->flags = flags;
}

/*
 * Walk the chain whose head (at last_avail) @d (a copy) holds, its flags
 * read with acquire ordering by the caller. Every ring descriptor is read
 * once. Out of line: one-descriptor chains do not need it (vq_chain_one()).
 */
static NOINLINE int packed_walk(struct vq *vq, struct packed_desc d,
				struct vq_chain *c)
{
	const struct vring_packed_desc *ring = vq->packed.desc;
	uint16_t slot = vq->last_avail, n = 0, flags;
	bool wrap = vq->avail_wrap;
	int ret;

	vq_chain_start(c);
	for (;;) {
		n++;
		if (d.flags & VRING_DESC_F_INDIRECT)
			ret = packed_walk_indirect(vq, d.flags, d.addr,
						   d.len, c);
		else
			ret = vq_chain_add(vq, c, d.addr, d.len,
					   d.flags & VRING_DESC_F_WRITE);
		if (ret)
			return ret;
		if (!(d.flags & VRING_DESC_F_NEXT))
			break;
		if (n >= vq->num)
			return vq_break(vq, "chain at %u longer than ring %u",
					vq->last_avail, vq->num);
		vring_packed_advance(&vq->area, &slot, &wrap, 1);
		flags = le16toh(READ_ONCE(ring[slot].flags));
		if (!packed_is_avail(flags, wrap))
			return vq_break(vq, "descriptor %u of chain at %u not available (flags %#x)",
					slot, vq->last_avail, flags);
		packed_read_desc(&ring[slot], flags, &d);
	}
	/* The id of the chain's last (or only, indirect) ring descriptor */
	c->id = d.id;
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
	const struct vring_packed_desc *head = &vq->packed.desc[vq->last_avail];
	struct packed_desc d;
	uint16_t flags;
	int ret;

	/* Pairs with the driver's release store of the head's flags: the
	 * chain's other descriptors were written before it */
	flags = le16toh(LOAD_ACQUIRE(head->flags));
	if (!packed_is_avail(flags, vq->avail_wrap))
		return -EAGAIN;
	if (vq->inflight + vq->nbatch >= vq->num)
		return vq_break(vq, "more than %u buffers in flight", vq->num);

	packed_read_desc(head, flags, &d);
	/* one descriptor in the hint region: no walk (same checks) */
	if (!(flags & (VRING_DESC_F_NEXT | VRING_DESC_F_INDIRECT)) &&
	    vq_chain_one(vq, c, d.addr, d.len, flags & VRING_DESC_F_WRITE)) {
		c->id = d.id;
	} else {
		ret = packed_walk(vq, d, c);
		if (ret)
			return ret;
	}
	vring_packed_advance(&vq->area, &vq->last_avail, &vq->avail_wrap, c->ndesc);
	vq_chain_commit(vq, c);
	return 0;
}

/* Descriptors a batch pop reads together: one 64-byte cache line's worth */
#define PACKED_BATCH	4

/*
 * Pop the one-descriptor chains among the PACKED_BATCH slots from
 * last_avail on (the caller checked that they lie before the ring's end
 * and fit in flight), in ring order, stopping at the first slot that is
 * not one: not available, NEXT or INDIRECT set, or a buffer that
 * vq_chain_set_one() does not take (empty, outside the hint region). Their
 * flags are read first, each once, in ring order up to the first that is
 * not one's, then one acquire fence orders every other field after all of
 * them (pairs with the driver's release store of each head's flags, or of
 * the head it was published with: a slot is taken only after every
 * earlier one in the batch). Straight-line for the compiler: one region
 * for the batch, unrolled loops.
 * Return: chains popped into c[0 ..), 0..PACKED_BATCH; vring_packed_pop()
 * handles the slot it stopped at, with the full checks
 */
static unsigned int packed_pop_batch(struct vq *vq, struct vq_chain *c)
{
	const struct vring_packed_desc *d = &vq->packed.desc[vq->last_avail];
	const struct gmem_region *hint = vq_hint_region(vq);
	struct gmem_region r;	/* a copy: the chain stores cannot alias it */
	/* available (packed_is_avail()), neither NEXT nor INDIRECT */
	const uint16_t mask = VRING_PACKED_F_AVAIL | VRING_PACKED_F_USED |
			      VRING_DESC_F_NEXT | VRING_DESC_F_INDIRECT;
	const uint16_t want = vq->avail_wrap ? VRING_PACKED_F_AVAIL :
					       VRING_PACKED_F_USED;
	uint16_t f[PACKED_BATCH] = { 0 };
	unsigned int n, k;

	if (unlikely(!hint))
		return 0;
	r = *hint;
#pragma GCC unroll 4
	for (n = 0; n < PACKED_BATCH; n++) {
		f[n] = le16toh(READ_ONCE(d[n].flags));
		if ((f[n] & mask) != want)
			break;
	}
	if (!n)
		return 0;
	smp_rmb();
#pragma GCC unroll 4
	for (k = 0; k < n; k++) {
		if (!vq_chain_set_one(&c[k], &r, le64toh(READ_ONCE(d[k].addr)),
				      le32toh(READ_ONCE(d[k].len)),
				      f[k] & VRING_DESC_F_WRITE))
			break;
		c[k].id = le16toh(READ_ONCE(d[k].id));
	}
	vq_chain_commit_one(vq, k);
	vring_packed_advance(&vq->area, &vq->last_avail, &vq->avail_wrap, (uint16_t)k);
	return k;
}

/**
 * vring_packed_pop_run() - Take the run of one-descriptor chains next
 * @vq:		Virtqueue (device side), configured, not broken
 * @c:		Array of @max chains to fill
 * @max:	Chains to take at most
 *
 * Every TX frame of a guest without indirect tables, every RX buffer of a
 * mergeable one: PACKED_BATCH at a time through packed_pop_batch(), while
 * a whole batch fits @max, lies before the ring's end and fits in flight.
 * vq_pop_burst() pops the slot a run stops at with vring_packed_pop().
 *
 * Return: chains popped, c[0 .. n), possibly none
 */
unsigned int vring_packed_pop_run(struct vq *vq, struct vq_chain *c,
				  unsigned int max)
{
	unsigned int n = 0, k;

	while (max - n >= PACKED_BATCH &&
	       vq->last_avail + PACKED_BATCH <= vq->num &&
	       vq->inflight + vq->nbatch + PACKED_BATCH <= vq->num) {
		k = packed_pop_batch(vq, &c[n]);
		n += k;
		if (k < PACKED_BATCH)
			break;
	}
	return n;
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
	vring_packed_advance(&vq->area, slot, wrap, (uint16_t)slots);
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
	uint16_t first = vq->used_idx, slot = first, k, first_flags, uflags;
	bool wrap = vq->used_wrap;
	bool collapse = packed_batch_collapsible(vq);
	/* locals: the relaxed atomic stores below would reload these fields
	 * of @vq per entry */
	const struct vq_used_elem *batch = vq->batch;
	const uint16_t nbatch = collapse ? 0 : vq->nbatch, num = vq->num;
	struct gmem_log *log = vq->log;
	uint32_t slots = 0, next;

	first_flags = wrap ? VRING_PACKED_F_AVAIL | VRING_PACKED_F_USED : 0;
	uflags = first_flags;
	if (collapse)
		slots = packed_write_collapsed(vq, &slot, &wrap);
	for (k = 0; k < nbatch; k++) {
		const struct vq_used_elem *e = &batch[k];

		WRITE_ONCE(ring[slot].id, htole16(e->id));
		WRITE_ONCE(ring[slot].len, htole32(e->len));
		if (k)	/* the used flags of the slot's wrap counter */
			WRITE_ONCE(ring[slot].flags, htole16(uflags));
		if (unlikely(log != NULL))
			gmem_log_write(log, vq->log_used_gpa +
				       (uint64_t)slot * 16, 16);
		slots += e->ndesc;
		next = (uint32_t)slot + e->ndesc;	/* vring_packed_advance() */
		if (next >= num) {
			next -= num;
			wrap = !wrap;
			uflags ^= VRING_PACKED_F_AVAIL | VRING_PACKED_F_USED;
		}
		slot = (uint16_t)next;
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
