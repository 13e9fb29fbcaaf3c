/* SPDX-License-Identifier: MIT */
/*
 * vq_chain.h - helpers the layouts' device sides share to turn descriptors
 * (read-once copies of guest data) into a chain of translated iovecs, and
 * to break a queue. Below the layouts, above gmem: included by
 * vring_split_dev.c, vring_packed_dev.c and vq.c; it calls nothing above
 * it.
 */
#ifndef VNET_VQ_CHAIN_H
#define VNET_VQ_CHAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "gmem.h"
#include "util.h"
#include "vq_types.h"

int vq_break(struct vq *vq, const char *fmt, ...) PRINTF_FMT(2, 3);
void vq_chain_start(struct vq_chain *c);
int vq_chain_add(struct vq *vq, struct vq_chain *c, uint64_t addr,
		 uint32_t len, bool write);
const void *vq_chain_indirect(struct vq *vq, uint64_t addr, uint32_t len);

/**
 * vq_hint_region() - The region the queue's previous buffer was in
 * @vq:		Virtqueue (device side), memory set
 *
 * Most buffers lie in the region the previous one was in: the hint is an
 * index, re-checked against the current table, so a changed table costs a
 * lookup (vq_chain_add()), never a stale pointer.
 *
 * Return: the region, or NULL if the hint is not one of the table's
 */
static inline const struct gmem_region *vq_hint_region(const struct vq *vq)
{
	const struct gmem *m = vq->mem;

	if (unlikely(vq->mem_hint >= m->nregions))
		return NULL;
	return &m->regions[vq->mem_hint];
}

/**
 * vq_region_ptr() - Our address of a buffer inside one region
 * @r:		Region
 * @addr:	Buffer guest address (a read-once copy of guest data)
 * @len:	Buffer length (likewise)
 *
 * Return: the host address of all @len bytes, or NULL if they are not all
 *	   inside @r
 */
static inline uint8_t *vq_region_ptr(const struct gmem_region *r,
				     uint64_t addr, uint32_t len)
{
	uint64_t off = addr - r->gpa;

	if (unlikely(addr < r->gpa || off >= r->size || len > r->size - off))
		return NULL;
	return r->host + off;
}

/**
 * vq_hint_ptr() - Our address of a buffer inside the queue's hint region
 * @vq:		Virtqueue (device side), memory set
 * @addr:	Buffer guest address (a read-once copy of guest data)
 * @len:	Buffer length (likewise), not 0
 *
 * Return: the host address of all @len bytes, or NULL if they are not all
 *	   inside the hint region (vq_hint_region())
 */
static inline uint8_t *vq_hint_ptr(const struct vq *vq, uint64_t addr,
				   uint32_t len)
{
	const struct gmem_region *r = vq_hint_region(vq);

	return r ? vq_region_ptr(r, addr, len) : NULL;
}

/**
 * vq_chain_set_one() - Make @c the chain of one buffer inside region @r
 * @c:		Chain to fill (any content)
 * @r:		Region (vq_hint_region(), or a copy of it)
 * @addr:	Buffer guest address (a read-once copy of guest data)
 * @len:	Buffer length (likewise)
 * @write:	Device-writable buffer
 *
 * The one-buffer chain without the walk: what vq_chain_one() and the
 * layouts' batch paths (vring_*_pop_run()) take, same checks, same result.
 *
 * Return: true if @c now holds the buffer; false (@c unusable, nothing
 *	   else changed) if it needs the walk: empty, or not all inside @r
 */
static inline bool vq_chain_set_one(struct vq_chain *c,
				    const struct gmem_region *r,
				    uint64_t addr, uint32_t len, bool write)
{
	uint8_t *p;

	if (unlikely(!len))
		return false;
	p = vq_region_ptr(r, addr, len);
	if (unlikely(!p))
		return false;
	c->ndesc = 1;
	c->iov = c->iov_inline;
	c->gpa = c->gpa_inline;
	c->iov_inline[0].iov_base = p;
	c->iov_inline[0].iov_len = len;
	c->gpa_inline[0] = addr;
	c->nout = !write;
	c->nin = write;
	c->out_len = write ? 0 : len;
	c->in_len = write ? len : 0;
	return true;
}

/**
 * vq_chain_one() - Make an empty chain of one buffer, the common case
 * @vq:		Virtqueue (device side)
 * @c:		Chain to fill (any content)
 * @addr:	Buffer guest address (a read-once copy of guest data)
 * @len:	Buffer length (likewise)
 * @write:	Device-writable buffer
 *
 * The layouts try this for a descriptor without NEXT or INDIRECT before
 * walking the chain with vq_chain_start() / vq_chain_add(): same checks,
 * same result, without the loop; vq_chain_commit() follows either way.
 *
 * Return: true if @c now holds the buffer; false (@c unusable, nothing
 *	   else changed) if it needs the walk: empty, or not inside the hint
 *	   region
 */
static inline bool vq_chain_one(struct vq *vq, struct vq_chain *c,
				uint64_t addr, uint32_t len, bool write)
{
	const struct gmem_region *r = vq_hint_region(vq);

	return r && vq_chain_set_one(c, r, addr, len, write);
}

/**
 * vq_chain_commit() - Account a fully walked chain (spill area, counters)
 * @vq:		Virtqueue (device side)
 * @c:		Chain just popped
 */
static inline void vq_chain_commit(struct vq *vq, const struct vq_chain *c)
{
	if (unlikely(c->iov != c->iov_inline)) {
		vq->spill_used = (uint32_t)(c->iov - vq->spill_iov) +
				 c->nout + c->nin;
		vq->stats.spills++;
	}
	vq->inflight++;
	vq->stats.chains++;
}

/**
 * vq_chain_commit_one() - vq_chain_commit() of @n chains vq_chain_set_one()
 *			   filled: none spilled
 * @vq:		Virtqueue (device side)
 * @n:		How many
 */
static inline void vq_chain_commit_one(struct vq *vq, unsigned int n)
{
	vq->inflight = (uint16_t)(vq->inflight + n);
	vq->stats.chains += n;
}

#endif /* VNET_VQ_CHAIN_H */
