// SPDX-License-Identifier: MIT
/*
 * switch_queue.c - the switch's bounded MPSC hand-off queue (see
 * switch_queue.h): allocation when a port joins, and the producers'
 * enqueue, one compare-and-swap on the tail per frame.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "switch_queue.h"

/**
 * swq_init() - Allocate a queue's slots
 * @q:		Queue (output)
 * @nslots:	Slots, a power of two, 2..65536
 * @slot_size:	Bytes per slot, the largest frame it takes
 *
 * Context: control thread; the only allocation of a queue's life
 * Return: 0, -EINVAL for a bad size, -ENOMEM
 */
int swq_init(struct swq *q, unsigned int nslots, size_t slot_size)
{
	size_t i;

	memset(q, 0, sizeof(*q));
	if (nslots < 2 || nslots > 65536 || (nslots & (nslots - 1)) ||
	    !slot_size)
		return -EINVAL;
	q->slots = calloc(nslots, sizeof(*q->slots));
	if (!q->slots)
		return -ENOMEM;
	/* untouched pages cost nothing: reserve, do not commit */
	q->buf = mmap(NULL, nslots * slot_size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (q->buf == MAP_FAILED) {
		free(q->slots);
		q->slots = NULL;
		q->buf = NULL;
		return -ENOMEM;
	}
	q->mask = nslots - 1;
	q->slot_size = slot_size;
	for (i = 0; i < nslots; i++)
		atomic_init(&q->slots[i].seq, i);
	atomic_init(&q->tail, 0);
	return 0;
}

/**
 * swq_fini() - Free what swq_init() allocated
 * @q:		Queue (no producer or consumer may use it any more)
 */
void swq_fini(struct swq *q)
{
	if (q->buf)
		munmap(q->buf, (q->mask + 1) * q->slot_size);
	free(q->slots);
	memset(q, 0, sizeof(*q));
}

/**
 * swq_drain() - Drop every frame published so far, as the consumer
 * @q:		Queue; producers may go on meanwhile
 *
 * Context: the consumer, or a thread standing in for it while it is paused
 * Return: nothing; a frame a producer is still copying stays
 */
void swq_drain(struct swq *q)
{
	uint32_t meta;

	if (!q->slots)
		return;
	while (swq_peek(q, &meta))
		swq_pop(q);
}

/**
 * swq_push() - Copy one frame into the queue
 * @q:		Queue
 * @iov:	The frame's bytes
 * @iovcnt:	Entries in @iov
 * @meta:	What the consumer gets with it (swq_peek())
 *
 * Context: any number of producer threads at once; never blocks
 * Return: 0, -ENOSPC if the queue is full, -EMSGSIZE if the frame is
 *	   larger than a slot (both: nothing queued)
 */
int swq_push(struct swq *q, const struct iovec *iov, unsigned int iovcnt,
	     uint32_t meta)
{
	size_t pos, len = 0, n = 0;
	uint8_t *dst;
	unsigned int i;

	if (iovcnt == 1)	/* the common frame: one piece, no loops */
		len = iov[0].iov_len;
	else
		for (i = 0; i < iovcnt; i++)
			len += iov[i].iov_len;
	if (len > q->slot_size)
		return -EMSGSIZE;
	if (swq_reserve(q, 1, &pos))
		return -ENOSPC;
	dst = q->buf + (pos & q->mask) * q->slot_size;
	if (iovcnt == 1)
		memcpy(dst, iov[0].iov_base, len);
	else
		for (i = 0; i < iovcnt; i++) {
			memcpy(dst + n, iov[i].iov_base, iov[i].iov_len);
			n += iov[i].iov_len;
		}
	swq_publish(q, pos, (uint32_t)len, meta);
	return 0;
}

