// SPDX-License-Identifier: MIT
/*
 * vq.c - the layout-neutral virtqueue, device side: lifetime,
 * configuration, dispatch to the layouts (vring_*_dev.c), discards,
 * completions and their dirty logging; and the ring-area head both sides
 * share (vq_area_*(), vq_ring_sizes(): the driver side,
 * src/driver/vq_drv.c, calls them).
 *
 * Leaves to others: ring layouts (vring_*.c), filling chains and breaking
 * a queue (vq_chain.c), address translation (gmem.c), notifications by
 * eventfd and logging of breaks (callers).
 *
 * Security model: nothing here reads guest memory. vq_set_base() checks
 * the ring position a frontend relays (a bad one breaks the queue); the
 * device-side entry points refuse a broken or unconfigured queue before
 * dispatching; vq_push() / vq_discard() take chains the device side built
 * and abort only on our own bugs (more completions than pops).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vq.h"
#include "vq_chain.h"
#include "vring_packed.h"
#include "vring_split.h"

static bool vq_split_size_ok(uint16_t num)
{
	return num && !(num & (num - 1)) && num <= VQ_MAX_SIZE;
}

/*
 * Zeroed scratch of @n elements of @size bytes in whole cache lines of its
 * own: the data path thread writes it (the used batch at every push) while
 * the control thread allocates and frees next to it (ports coming and
 * going): no allocator header or neighbour shares a line with it.
 */
static void *vq_scratch(size_t n, size_t size)
{
	size_t len = (n * size + 63) & ~(size_t)63;
	void *p = aligned_alloc(64, len);

	if (p)
		memset(p, 0, len);
	return p;
}

static int vq_alloc(struct vq *vq, uint16_t num)
{
	/* A chain of up to @num descriptors, each split across two regions;
	 * never more than a chain's 16-bit nout + nin can count */
	vq->spill_cap = MIN(2u * num + 16, (unsigned int)UINT16_MAX);
	vq->batch = vq_scratch(num, sizeof(*vq->batch));
	vq->spill_iov = vq_scratch(vq->spill_cap, sizeof(*vq->spill_iov));
	vq->spill_gpa = vq_scratch(vq->spill_cap, sizeof(*vq->spill_gpa));
	vq->indir_scratch = vq_scratch(num, 16);
	if (!vq->batch || !vq->spill_iov || !vq->spill_gpa ||
	    !vq->indir_scratch)
		return -ENOMEM;
	return 0;
}

/**
 * vq_area_init() - Check a ring's layout and size, take its ring features
 * @a:		Ring-area head (zeroed by the caller); num stays 0 for the
 *		caller to set once its scratch space is allocated
 * @layout:	VQ_SPLIT or VQ_PACKED
 * @num:	Ring size: split a power of 2 in 1..32768, packed 1..32768
 * @features:	Negotiated virtio feature bits
 *
 * The one place both sides' rules for a ring's shape live (vq_init(),
 * vq_drv_init()).
 *
 * Return: 0, -EINVAL (bad size or layout)
 */
int vq_area_init(struct vq_area *a, enum vq_layout layout, uint16_t num,
		 uint64_t features)
{
	if (layout != VQ_SPLIT && layout != VQ_PACKED)
		return -EINVAL;
	if (layout == VQ_SPLIT ? !vq_split_size_ok(num) :
				 (!num || num > VQ_MAX_SIZE))
		return -EINVAL;

	a->layout = layout;
	a->features = features;
	a->event_idx = features & (1ULL << VIRTIO_RING_F_EVENT_IDX);
	a->indirect = features & (1ULL << VIRTIO_RING_F_INDIRECT_DESC);
	a->in_order = features & (1ULL << VIRTIO_F_IN_ORDER);
	return 0;
}

/**
 * vq_init() - Configure a queue and allocate all of its scratch space
 * @vq:		Virtqueue (any previous content is overwritten)
 * @layout:	VQ_SPLIT or VQ_PACKED
 * @num:	Ring size: split a power of 2 in 1..32768, packed 1..32768
 * @features:	Negotiated virtio feature bits
 *
 * Context: control thread. Nothing after this allocates.
 * Return: 0, -EINVAL (bad size or layout), -ENOMEM
 */
int vq_init(struct vq *vq, enum vq_layout layout, uint16_t num,
	    uint64_t features)
{
	int ret;

	memset(vq, 0, sizeof(*vq));
	ret = vq_area_init(&vq->area, layout, num, features);
	if (ret)
		return ret;

	ret = vq_alloc(vq, num);
	if (ret)
		goto err_free;
	vq->num = num;
	vq_reset(vq);
	return 0;

err_free:
	vq_cleanup(vq);
	return ret;
}

/**
 * vq_cleanup() - Free a queue's scratch space; the queue is unconfigured
 * @vq:		Virtqueue
 *
 * Context: control thread
 */
void vq_cleanup(struct vq *vq)
{
	free(vq->batch);
	free(vq->spill_iov);
	free(vq->spill_gpa);
	free(vq->indir_scratch);
	memset(vq, 0, sizeof(*vq));
}

/**
 * vq_ring_sizes() - Bytes of the three ring areas, event fields included
 * @layout:	VQ_SPLIT or VQ_PACKED
 * @num:	Ring size
 * @desc_len:	Output: descriptor table
 * @driver_len:	Output: avail ring (split) or driver event suppression
 * @device_len:	Output: used ring (split) or device event suppression
 */
void vq_ring_sizes(enum vq_layout layout, uint16_t num, uint64_t *desc_len,
		   uint64_t *driver_len, uint64_t *device_len)
{
	*desc_len = 16ULL * num;
	if (layout == VQ_PACKED) {
		*driver_len = sizeof(struct vring_packed_desc_event);
		*device_len = sizeof(struct vring_packed_desc_event);
		return;
	}
	/* flags, idx, ring[num], used_event / avail_event (virtio 1.2,
	 * "Split Virtqueues") */
	*driver_len = 4ULL + 2ULL * num + 2;
	*device_len = 4ULL + 8ULL * num + 2;
}

/**
 * vq_area_set_addr() - Set a ring's areas (our addresses, already validated
 *			by the caller for their full lengths)
 * @a:		Ring-area head, configured (vq_area_init() and a size)
 * @desc:	Descriptor table
 * @driver_area: Avail ring (split) or driver event suppression (packed)
 * @device_area: Used ring (split) or device event suppression (packed)
 *
 * Return: 0, or -EINVAL if an area is misaligned (virtio 1.2, "Virtqueue
 *	   Alignment" and the packed "Structure Size and Alignment": split
 *	   16/2/4, packed 16/4/4) or the ring is unconfigured
 */
int vq_area_set_addr(struct vq_area *a, void *desc, void *driver_area,
		     void *device_area)
{
	uintptr_t drv_align = a->layout == VQ_PACKED ? 4 : 2;

	if (!a->num || !desc || !driver_area || !device_area)
		return -EINVAL;
	if (((uintptr_t)desc & 15) || ((uintptr_t)driver_area & (drv_align - 1)) ||
	    ((uintptr_t)device_area & 3))
		return -EINVAL;

	if (a->layout == VQ_PACKED) {
		a->packed.desc = desc;
		a->packed.driver = driver_area;
		a->packed.device = device_area;
	} else {
		a->split.desc = desc;
		a->split.avail = driver_area;
		a->split.used = device_area;
	}
	return 0;
}

/**
 * vq_set_addr() - Set the ring areas (our addresses, already validated by
 *		   the caller for their full lengths)
 * @vq:		Virtqueue
 * @desc:	Descriptor table
 * @driver_area: Avail ring (split) or driver event suppression (packed)
 * @device_area: Used ring (split) or device event suppression (packed)
 *
 * Context: control thread, data path quiesced
 * Return: 0, or -EINVAL (see vq_area_set_addr())
 */
int vq_set_addr(struct vq *vq, void *desc, void *driver_area,
		void *device_area)
{
	return vq_area_set_addr(&vq->area, desc, driver_area, device_area);
}

/**
 * vq_set_mem() - Set the memory table descriptors are translated through
 * @vq:		Virtqueue (device side)
 * @mem:	Memory table, outlives the queue's use of it
 *
 * Context: control thread, data path quiesced
 */
void vq_set_mem(struct vq *vq, const struct gmem *mem)
{
	vq->mem = mem;
}

/**
 * vq_set_log() - Turn dirty logging of device writes on or off
 * @vq:		Virtqueue (device side)
 * @log:	Dirty bitmap, NULL for off
 * @used_gpa:	Guest address of the area the device writes completions to:
 *		split the used ring, packed the descriptor ring (used
 *		descriptors are written there)
 *
 * Context: control thread, data path quiesced
 */
void vq_set_log(struct vq *vq, struct gmem_log *log, uint64_t used_gpa)
{
	vq->log = log;
	vq->log_used_gpa = used_gpa;
}

/**
 * vq_set_base() - Set the ring position (vhost-user SET_VRING_BASE)
 * @vq:		Virtqueue (device side)
 * @base:	Split: next avail index (used index too). Packed: bits 0-14
 *		avail index, 15 avail wrap, 16-30 used index, 31 used wrap;
 *		if bits 16-31 are 0 (QEMU's form) used = avail
 *
 * A packed index outside the ring breaks the queue (the frontend relays
 * what the guest left).
 *
 * Context: control thread, data path quiesced
 */
void vq_set_base(struct vq *vq, uint32_t base)
{
	uint16_t avail, used;

	vq->inflight = 0;
	vq->nbatch = 0;
	vq->spill_used = 0;
	vq->signalled_used_valid = false;

	if (vq->layout == VQ_SPLIT) {
		vq->last_avail = vq->used_idx = (uint16_t)base;
		vq->avail_shadow = vq->last_avail;
		return;
	}

	if (!(base >> 16))
		base |= base << 16;
	avail = base & 0x7fff;
	used = (base >> 16) & 0x7fff;
	vq->avail_wrap = base & 0x8000;
	vq->used_wrap = base & 0x80000000u;
	vq->last_avail = avail < vq->num ? avail : 0;
	vq->used_idx = used < vq->num ? used : 0;
	if (avail >= vq->num || used >= vq->num)
		vq_break(vq, "ring base %#x outside ring size %u", base,
			 vq->num);
}

/**
 * vq_get_base() - Ring position in vq_set_base()'s encoding
 * @vq:		Virtqueue (device side)
 *
 * Return: split: next avail index; packed: avail idx | wrap << 15 |
 *	   used idx << 16 | used wrap << 31
 */
uint32_t vq_get_base(const struct vq *vq)
{
	if (vq->layout == VQ_SPLIT)
		return vq->last_avail;
	return (uint32_t)vq->last_avail | (uint32_t)vq->avail_wrap << 15 |
	       (uint32_t)vq->used_idx << 16 | (uint32_t)vq->used_wrap << 31;
}

/**
 * vq_reset() - Back to the just-initialised state, configuration kept
 * @vq:		Virtqueue
 *
 * Indices 0, wrap counters 1, nothing in flight, not broken.
 *
 * Context: control thread, data path quiesced
 */
void vq_reset(struct vq *vq)
{
	vq->last_avail = 0;
	vq->avail_shadow = 0;
	vq->used_idx = 0;
	vq->avail_wrap = true;
	vq->used_wrap = true;
	vq->signalled_used = 0;
	vq->signalled_used_valid = false;
	vq->inflight = 0;
	vq->nbatch = 0;
	vq->spill_used = 0;
	vq->broken = false;
	reason_clear(&vq->reason);
}

/**
 * vq_is_broken() - Has a guest fault stopped this queue?
 * @vq:		Virtqueue
 *
 * Return: true until vq_reset()
 */
bool vq_is_broken(const struct vq *vq)
{
	return vq->broken;
}

/**
 * vq_broken_reason() - Why the queue broke, one line for the caller's log
 * @vq:		Virtqueue
 *
 * Return: the reason, "" if not broken
 */
const char *vq_broken_reason(const struct vq *vq)
{
	return vq->broken ? vq->reason.msg : "";
}

/* ---------------- device side ---------------- */

/* Can the device side pop at all? 0, -EBADMSG (broken), -EAGAIN (not set up) */
static inline int vq_pop_ready(const struct vq *vq)
{
	if (unlikely(vq->broken))
		return -EBADMSG;
	if (unlikely(!vq->mem || !vq->split.desc))
		return -EAGAIN;
	return 0;
}

/**
 * vq_pop() - Take the next available chain
 * @vq:		Virtqueue (device side), owned by the calling thread
 * @c:		Chain to fill; valid until pushed or discarded
 *
 * Return: 0, -EAGAIN (empty or not configured), -EBADMSG (broken now or
 *	   before: see vq_broken_reason()), -ENOSPC (spill area exhausted by
 *	   chains in flight: push/flush them and retry; not a guest fault)
 */
int vq_pop(struct vq *vq, struct vq_chain *c)
{
	int ret = vq_pop_ready(vq);

	if (ret)
		return ret;
	if (vq->layout == VQ_PACKED)
		return vring_packed_pop(vq, c);
	return vring_split_pop(vq, c);
}

/**
 * vq_pop_burst() - Take up to @max available chains, in ring order
 * @vq:		Virtqueue (device side), owned by the calling thread
 * @c:		Array of @max chains to fill; each valid until pushed or
 *		discarded
 * @max:	Chains to take at most
 * @err:	Output: why it stopped short of @max (as vq_pop() returns it),
 *		0 if it did not
 *
 * What @max vq_pop() calls return, chain for chain, for one call: runs
 * of one-descriptor chains go through the layout's batch path (packed: a
 * cache line, four descriptors, at a time: vring_packed_pop_run(); split:
 * vring_split_pop_run()), the chain a run stops at through its single
 * pop, with the full checks.
 *
 * Return: chains popped, c[0 .. n)
 */
unsigned int vq_pop_burst(struct vq *vq, struct vq_chain *c, unsigned int max,
			  int *err)
{
	bool packed = vq->layout == VQ_PACKED;
	unsigned int n = 0;
	int ret = vq_pop_ready(vq);

	while (!ret && n < max) {
		n += packed ? vring_packed_pop_run(vq, &c[n], max - n) :
			      vring_split_pop_run(vq, &c[n], max - n);
		if (n == max)
			break;
		ret = packed ? vring_packed_pop(vq, &c[n]) :
			       vring_split_pop(vq, &c[n]);
		if (ret)
			break;
		n++;
	}
	*err = ret;
	return n;
}

/**
 * vq_discard() - Give back the last @n popped chains unused
 * @vq:		Virtqueue (device side)
 * @c:		Those chains, in pop order
 * @n:		How many (the most recent pops)
 *
 * For RX when buffers were gathered but no frame came: the driver sees
 * nothing, the same chains pop again next time.
 */
void vq_discard(struct vq *vq, const struct vq_chain *c, unsigned int n)
{
	unsigned int i, slots = 0;

	if (!n)
		return;
	if (n > vq->inflight)	/* caller bug: discarding what was not popped */
		abort();

	for (i = 0; i < n; i++) {
		/* The newest pops own the tail of the spill area: give it back */
		if (c[i].iov != c[i].iov_inline) {
			uint32_t at = (uint32_t)(c[i].iov - vq->spill_iov);

			vq->spill_used = MIN(vq->spill_used, at);
		}
		slots += c[i].ndesc;
	}
	vq->inflight -= n;
	vq->stats.chains -= n;
	vq->stats.discards += n;
	if (!vq->inflight)
		vq->spill_used = 0;

	if (vq->layout == VQ_PACKED)
		vring_packed_unpop(vq, slots);
	else
		vq->last_avail -= n;
}

#ifdef VNET_TEST_HOOKS
/*
 * Test builds only (make test-hooks, build/test-hooks/vnetd): with
 * VNET_TEST_DROP_DIRTY_LOG=1 the buffers vnetd writes are not logged, the
 * broken dirty log tests/guest/test-migrate.sh must catch. Read once at
 * load, before any thread starts.
 */
static bool vq_test_drop_log;

__attribute__((constructor)) static void vq_test_hooks_init(void)
{
	const char *v = getenv("VNET_TEST_DROP_DIRTY_LOG");

	vq_test_drop_log = v && *v && strcmp(v, "0");
}
#endif

static void vq_log_chain(struct vq *vq, const struct vq_chain *c, uint32_t len)
{
	unsigned int i;

#ifdef VNET_TEST_HOOKS
	if (vq_test_drop_log)
		return;
#endif
	for (i = c->nout; len && i < (unsigned int)c->nout + c->nin; i++) {
		uint32_t chunk = (uint32_t)MIN((uint64_t)len, c->iov[i].iov_len);

		gmem_log_write(vq->log, c->gpa[i], chunk);
		len -= chunk;
	}
}

/**
 * vq_push_slow() - vq_push() out of line: our bugs and dirty logging
 * @vq:		Virtqueue (device side)
 * @c:		Chain popped earlier
 * @len:	Bytes the device wrote into the chain's writable part
 *
 * With dirty logging on, the written bytes are marked dirty here.
 */
void vq_push_slow(struct vq *vq, const struct vq_chain *c, uint32_t len)
{
	/* Our bug: more completions than pops */
	if (!vq->inflight || vq->nbatch >= vq->num)
		abort();

	if (vq->log)
		vq_log_chain(vq, c, len);
	vq_push_elem(vq, c, len);
}

/**
 * vq_flush() - Publish the queued completions to the driver
 * @vq:		Virtqueue (device side)
 *
 * Split: entries, then one release store of used->idx. Packed: ids and
 * lengths, then flags, the batch's first flags last.
 *
 * Return: true if the driver must be notified (EVENT_IDX / flags decide)
 */
bool vq_flush(struct vq *vq)
{
	bool notify;

	if (!vq->nbatch)
		return false;
	if (vq->layout == VQ_PACKED)
		notify = vring_packed_flush(vq);
	else
		notify = vring_split_flush(vq);
	vq->nbatch = 0;
	vq->stats.flushes++;
	if (notify)
		vq->stats.notifies++;
	return notify;
}

/**
 * vq_avail_pending() - Is there a chain to pop?
 * @vq:		Virtqueue (device side)
 *
 * Return: true if vq_pop() would not return -EAGAIN (or the queue is broken:
 *	   false then)
 */
bool vq_avail_pending(struct vq *vq)
{
	if (vq->broken || !vq->mem || !vq->split.desc)
		return false;
	if (vq->layout == VQ_PACKED)
		return vring_packed_avail_pending(vq);
	return vring_split_avail_pending(vq);
}

/**
 * vq_disable_notify() - Ask the driver not to kick us (we are polling)
 * @vq:		Virtqueue (device side)
 */
void vq_disable_notify(struct vq *vq)
{
	if (!vq->split.desc)
		return;
	if (vq->layout == VQ_PACKED)
		vring_packed_disable_notify(vq);
	else
		vring_split_disable_notify(vq);
}

/**
 * vq_enable_notify() - Ask for kicks again, then recheck the ring
 * @vq:		Virtqueue (device side)
 *
 * Return: true if chains are pending: the caller must keep working (it may
 *	   not wait for a kick that the driver will not send); false if
 *	   none are, or the queue is broken
 */
bool vq_enable_notify(struct vq *vq)
{
	if (!vq->split.desc || vq->broken)
		return false;
	if (vq->layout == VQ_PACKED)
		return vring_packed_enable_notify(vq);
	return vring_split_enable_notify(vq);
}
