/* SPDX-License-Identifier: MIT */
/*
 * switch_queue.h - the switch's hand-off queue: a bounded multi-producer,
 * single-consumer FIFO of fixed-size frame slots, allocated once (when a
 * port joins its switch), without locks. Each slot carries a sequence
 * number (Vyukov's bounded queue): a producer claims the tail with one
 * compare-and-swap, copies its frame in and publishes the slot by its
 * sequence number; the one consumer (the receiving pair's worker) reads
 * slots in order and hands each back the same way. A full queue refuses
 * at once: the sender drops, it never waits.
 */
#ifndef VNET_SWITCH_QUEUE_H
#define VNET_SWITCH_QUEUE_H

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

/**
 * struct swq_slot - One slot's bookkeeping (its bytes are in swq.buf)
 * @seq:	Sequence number: == position: free for the producer of that
 *		position; == position + 1: holds a frame for the consumer
 * @len:	Frame bytes in the slot
 * @meta:	What the producer says of the frame (the switch: its VLAN)
 */
struct swq_slot {
	_Atomic size_t seq;
	uint32_t len;
	uint32_t meta;
};

/**
 * struct swq - One hand-off queue
 * @tail:	Next position a producer claims (shared by producers)
 * @head:	Next position the consumer reads (the consumer writes it;
 *		producers read it to see that the consumer moves)
 * @mask:	Slots - 1 (slots are a power of two)
 * @slot_size:	Bytes per slot
 * @slots:	Bookkeeping per slot
 * @buf:	Slot bytes, @slot_size each
 */
struct swq {
	_Alignas(64) _Atomic size_t tail;
	_Alignas(64) _Atomic size_t head;
	size_t mask;
	size_t slot_size;
	struct swq_slot *slots;
	uint8_t *buf;
};

int swq_init(struct swq *q, unsigned int nslots, size_t slot_size);
void swq_fini(struct swq *q);
int swq_push(struct swq *q, const struct iovec *iov, unsigned int iovcnt,
	     uint32_t meta);
void swq_drain(struct swq *q);

/**
 * swq_reserve() - Claim @n consecutive slots at once, or none
 * @q:		Queue
 * @n:		Slots, 1..slots of @q
 * @pos:	Output: the first position; the caller writes each of
 *		@pos..@pos+@n-1 (swq_slot_buf()) and publishes it
 *		(swq_publish())
 *
 * One compare-and-swap on the tail. The consumer frees slots in order, so
 * the last of the @n being free means all of them are: a frame of several
 * slots is queued whole or refused whole, never half.
 *
 * Inline: with @n a constant 1 (one frame, one slot) the compiler drops the
 * size check and the index sum.
 *
 * Context: any number of producer threads at once; never blocks
 * Return: 0, -ENOSPC if fewer than @n slots are free, -EMSGSIZE if @n is
 *	   0 or more than the queue holds (nothing claimed)
 */
static inline int swq_reserve(struct swq *q, unsigned int n, size_t *pos)
{
	size_t p, seq;

	if (!n || n > q->mask + 1)
		return -EMSGSIZE;
	p = atomic_load_explicit(&q->tail, memory_order_relaxed);
	for (;;) {
		seq = atomic_load_explicit(&q->slots[(p + n - 1) & q->mask].seq,
					   memory_order_acquire);
		if (seq == p + n - 1) {
			if (atomic_compare_exchange_weak_explicit(&q->tail, &p,
					p + n, memory_order_relaxed,
					memory_order_relaxed))
				break;
		} else if ((ptrdiff_t)(seq - (p + n - 1)) < 0) {
			return -ENOSPC;	/* the consumer has not freed it */
		} else {
			p = atomic_load_explicit(&q->tail, memory_order_relaxed);
		}
	}
	*pos = p;
	return 0;
}

/**
 * swq_slot_buf() - The bytes of a reserved position's slot
 * @q:		Queue
 * @pos:	A position swq_reserve() gave the caller
 *
 * Return: @q->slot_size bytes the caller writes before swq_publish()
 */
static inline uint8_t *swq_slot_buf(struct swq *q, size_t pos)
{
	return q->buf + (pos & q->mask) * q->slot_size;
}

/**
 * swq_publish() - Hand a reserved, written slot to the consumer
 * @q:		Queue
 * @pos:	The position (swq_reserve())
 * @len:	Bytes the consumer reads (swq_peek_len())
 * @meta:	What it gets with them (swq_peek())
 *
 * Every reserved position must be published, in any order: the consumer
 * reads them in order and waits at the first one not yet published.
 */
static inline void swq_publish(struct swq *q, size_t pos, uint32_t len,
			       uint32_t meta)
{
	struct swq_slot *s = &q->slots[pos & q->mask];

	s->len = len;
	s->meta = meta;
	atomic_store_explicit(&s->seq, pos + 1, memory_order_release);
}

/**
 * swq_push_buf() - swq_push() of a frame in one piece, inline
 * @q:		Queue
 * @buf:	The frame's bytes
 * @len:	Their length
 * @meta:	What the consumer gets with them (swq_peek())
 *
 * For a sender's common frame: no call and no iovec loop.
 *
 * Context: any number of producer threads at once; never blocks
 * Return: as swq_push()
 */
static inline int swq_push_buf(struct swq *q, const void *buf, size_t len,
			       uint32_t meta)
{
	struct swq_slot *s;
	size_t pos;

	if (len > q->slot_size)
		return -EMSGSIZE;
	if (swq_reserve(q, 1, &pos))
		return -ENOSPC;
	/* the slot is this producer's until its seq says otherwise: its
	 * length first, so that little is live across the copy */
	s = &q->slots[pos & q->mask];
	s->len = (uint32_t)len;
	s->meta = meta;
	memcpy(swq_slot_buf(q, pos), buf, len);
	atomic_store_explicit(&s->seq, pos + 1, memory_order_release);
	return 0;
}

/**
 * swq_peek() - The consumer's next frame, if one is published
 * @q:		Queue
 * @meta:	Output: the frame's meta (when there is one)
 *
 * Context: the consumer only
 * Return: the frame's slot bytes, NULL if none is ready; its length in
 *	   the slot's len (swq_peek_len())
 */
static inline const uint8_t *swq_peek(struct swq *q, uint32_t *meta)
{
	size_t h = atomic_load_explicit(&q->head, memory_order_relaxed);
	struct swq_slot *s = &q->slots[h & q->mask];

	if (atomic_load_explicit(&s->seq, memory_order_acquire) != h + 1)
		return NULL;
	*meta = s->meta;
	return q->buf + (h & q->mask) * q->slot_size;
}

/**
 * swq_peek_frame() - The consumer's next frame and its length, one look
 * @q:		Queue
 * @meta:	Output: the frame's meta (when there is one)
 * @len:	Output: its bytes (when there is one)
 *
 * Context: the consumer only
 * Return: the frame's slot bytes, NULL if none is ready
 */
static inline const uint8_t *swq_peek_frame(struct swq *q, uint32_t *meta,
					    uint32_t *len)
{
	size_t h = atomic_load_explicit(&q->head, memory_order_relaxed);
	struct swq_slot *s = &q->slots[h & q->mask];

	if (atomic_load_explicit(&s->seq, memory_order_acquire) != h + 1)
		return NULL;
	*meta = s->meta;
	*len = s->len;
	return q->buf + (h & q->mask) * q->slot_size;
}

/**
 * swq_peek_len() - Length of the consumer's next frame
 * @q:		Queue
 *
 * Context: the consumer only
 * Return: its bytes, 0 if none is ready
 */
static inline uint32_t swq_peek_len(struct swq *q)
{
	size_t h = atomic_load_explicit(&q->head, memory_order_relaxed);
	struct swq_slot *s = &q->slots[h & q->mask];

	if (atomic_load_explicit(&s->seq, memory_order_acquire) != h + 1)
		return 0;
	return s->len;
}

/**
 * swq_pop() - Hand the consumer's current frame's slot back to producers
 * @q:		Queue (swq_peek() said there is a frame)
 *
 * Context: the consumer only
 */
static inline void swq_pop(struct swq *q)
{
	size_t h = atomic_load_explicit(&q->head, memory_order_relaxed);
	struct swq_slot *s = &q->slots[h & q->mask];

	atomic_store_explicit(&s->seq, h + q->mask + 1, memory_order_release);
	atomic_store_explicit(&q->head, h + 1, memory_order_relaxed);
}

/**
 * swq_consumed() - How far the consumer has read (it only grows)
 * @q:		Queue
 *
 * Context: any thread; a producer that found the queue full compares two
 *	    reads to tell a consumer that moves from one that stopped
 */
static inline size_t swq_consumed(struct swq *q)
{
	return atomic_load_explicit(&q->head, memory_order_relaxed);
}

#endif /* VNET_SWITCH_QUEUE_H */
