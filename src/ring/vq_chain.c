// SPDX-License-Identifier: MIT
/*
 * vq_chain.c - the helpers both layouts' device sides share: breaking a
 * queue, filling a chain's iovecs from descriptors (translation with a
 * per-queue region hint, spilling long chains), accounting a popped chain,
 * and reading an indirect table. Below vring_*_dev.c, above gmem.c; it
 * calls nothing above it.
 *
 * Leaves to others: walking the rings (vring_*_dev.c), dispatch and
 * completions (vq.c), address translation itself (gmem.c).
 *
 * Security model: the helpers here receive descriptor fields that the ring
 * walkers already copied out of guest memory (read once); they check the
 * copies: addresses must translate through the memory table, lengths may
 * not overflow a chain, readable buffers may not follow writable ones,
 * indirect tables must lie inside guest memory. A violation breaks the
 * queue (vq_break()): the call fails with -EBADMSG and so does every later
 * one until vq_reset(). Nothing a guest writes reaches an assert.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gmem.h"
#include "vq_chain.h"

/**
 * vq_break() - Mark a queue broken by a guest fault
 * @vq:		Virtqueue
 * @fmt:	One-line reason, printf format
 *
 * The first reason is kept (in vq->reason, read by vq_broken_reason()) until
 * vq_reset(); later breaks only return.
 *
 * Return: -EBADMSG, for the caller to return
 */
int vq_break(struct vq *vq, const char *fmt, ...)
{
	char msg[REASON_LEN];
	va_list ap;

	if (!vq->broken) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		reason_set(&vq->reason, -EBADMSG, "%s", msg);
		vq->broken = true;
		vq->stats.breaks++;
	}
	return -EBADMSG;
}

/**
 * vq_chain_start() - Empty a chain before a walk fills it
 * @c:		Chain
 */
void vq_chain_start(struct vq_chain *c)
{
	c->ndesc = 0;
	c->nout = 0;
	c->nin = 0;
	c->out_len = 0;
	c->in_len = 0;
	c->iov = c->iov_inline;
	c->gpa = c->gpa_inline;
}

/* Move a chain from its inline arrays to the free tail of the spill area */
static int vq_chain_spill(struct vq *vq, struct vq_chain *c)
{
	unsigned int n = c->nout + c->nin;

	if (vq->spill_cap - vq->spill_used < n + 1)
		return vq->spill_used ? -ENOSPC :
		       vq_break(vq, "chain needs more than %u iovecs",
				vq->spill_cap);
	memcpy(vq->spill_iov + vq->spill_used, c->iov, n * sizeof(*c->iov));
	memcpy(vq->spill_gpa + vq->spill_used, c->gpa, n * sizeof(*c->gpa));
	c->iov = vq->spill_iov + vq->spill_used;
	c->gpa = vq->spill_gpa + vq->spill_used;
	return 0;
}

/* gmem_translate() with a per-queue hint (vq_hint_ptr()) */
static int vq_translate(struct vq *vq, uint64_t addr, uint32_t len,
			struct iovec *iov, unsigned int max_iov)
{
	const struct gmem *m = vq->mem;
	uint8_t *p;
	int idx;

	if (likely(max_iov && len)) {
		p = vq_hint_ptr(vq, addr, len);
		if (p) {
			iov->iov_base = p;
			iov->iov_len = len;
			return 1;
		}
	}
	idx = gmem_region_index(m, addr);
	if (idx >= 0)
		vq->mem_hint = (uint32_t)idx;
	return gmem_translate(m, addr, len, iov, max_iov);
}

/**
 * vq_chain_add() - Translate one descriptor's buffer into a chain
 * @vq:		Virtqueue (device side)
 * @c:		Chain being walked
 * @addr:	Buffer guest address (a read-once copy of guest data)
 * @len:	Buffer length (likewise)
 * @write:	Device-writable buffer
 *
 * Return: 0, -EBADMSG (queue broken: bad address, readable after writable,
 *	   chain length overflow), -ENOSPC (spill area held by chains in
 *	   flight: flush and retry)
 */
int vq_chain_add(struct vq *vq, struct vq_chain *c, uint64_t addr,
		 uint32_t len, bool write)
{
	unsigned int n = c->nout + c->nin, room, i;
	uint64_t total = write ? c->in_len : c->out_len;
	int ret;

	if (!write && c->nin)
		return vq_break(vq, "readable descriptor after a writable one");
	if ((uint64_t)len + total > UINT32_MAX)
		return vq_break(vq, "chain longer than 4 GiB");

	for (;;) {
		room = c->iov == c->iov_inline ? VQ_INLINE_IOV :
		       vq->spill_cap - (unsigned int)(c->iov - vq->spill_iov);
		ret = vq_translate(vq, addr, len, c->iov + n, room - n);
		if (ret != -ENOBUFS)
			break;
		if (c->iov != c->iov_inline)
			return vq->spill_used ? -ENOSPC :
			       vq_break(vq, "chain needs more than %u iovecs",
					vq->spill_cap);
		ret = vq_chain_spill(vq, c);
		if (ret)
			return ret;
	}
	if (ret < 0)
		return vq_break(vq, "buffer %#llx+%u outside guest memory",
				(unsigned long long)addr, len);

	for (i = 0; i < (unsigned int)ret; i++) {
		c->gpa[n + i] = addr;
		addr += c->iov[n + i].iov_len;
	}
	if (write) {
		c->nin += ret;
		c->in_len += len;
	} else {
		c->nout += ret;
		c->out_len += len;
	}
	return 0;
}

/**
 * vq_chain_indirect() - Our address of an indirect table, read in one piece
 * @vq:		Virtqueue (device side)
 * @addr:	Table guest address (read-once copy)
 * @len:	Table length, already checked: non-zero, multiple of 16,
 *		at most num descriptors
 *
 * A table inside one region and 8-byte aligned is used in place (each
 * entry is still read once); one spanning regions, or at an address the
 * descriptor structure cannot be read from directly, is copied to the
 * queue's (aligned) scratch: any guest placement works, none is undefined
 * behaviour here.
 *
 * Return: the table, or NULL if any byte is outside guest memory
 */
const void *vq_chain_indirect(struct vq *vq, uint64_t addr, uint32_t len)
{
	const void *t = gmem_gpa_ptr(vq->mem, addr, len);

	if (t && !((uintptr_t)t & 7))
		return t;
	if (gmem_read(vq->mem, addr, vq->indir_scratch, len))
		return NULL;
	return vq->indir_scratch;
}
