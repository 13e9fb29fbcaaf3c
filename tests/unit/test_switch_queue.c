// SPDX-License-Identifier: MIT
/*
 * test_switch_queue.c - the switch's hand-off queue: FIFO order, a full
 * queue refuses (and recovers), positions wrap past the slot count, a
 * frame larger than a slot is refused, drain empties it, a multi-slot
 * reserve takes all its slots or none (across the wrap, published out of
 * order), a frame pushed in one piece (swq_push_buf()) comes out as
 * swq_push() queues it, and two producer threads against one consumer lose, duplicate
 * or reorder nothing.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "testlib.h"
#include "switch_queue.h"

static int push_u32(struct swq *q, uint32_t v, uint32_t meta)
{
	struct iovec iov = { .iov_base = &v, .iov_len = sizeof(v) };

	return swq_push(q, &iov, 1, meta);
}

static int pop_u32(struct swq *q, uint32_t *v, uint32_t *meta)
{
	const uint8_t *f = swq_peek(q, meta);

	if (!f)
		return -EAGAIN;
	if (swq_peek_len(q) != sizeof(*v))
		return -EMSGSIZE;
	memcpy(v, f, sizeof(*v));
	swq_pop(q);
	return 0;
}

static void test_fifo_full_wrap(void)
{
	struct swq q;
	uint32_t v, meta, next = 0, i;
	unsigned int round;

	CHECK_EQ(swq_init(&q, 8, 64), 0);
	CHECK(!swq_peek_len(&q));
	for (round = 0; round < 5; round++) {	/* 40 positions: wraps 5 times */
		for (i = 0; i < 8; i++)
			CHECK_EQ(push_u32(&q, round * 8 + i, round), 0);
		CHECK_EQ(push_u32(&q, 999, 0), -ENOSPC);
		for (i = 0; i < 8; i++) {
			CHECK_EQ(pop_u32(&q, &v, &meta), 0);
			CHECK_EQ(v, next++);
			CHECK_EQ(meta, round);
		}
		CHECK_EQ(pop_u32(&q, &v, &meta), -EAGAIN);
	}
	/* half full, then full again across the wrap */
	for (i = 0; i < 5; i++)
		CHECK_EQ(push_u32(&q, i, 0), 0);
	for (i = 0; i < 3; i++)
		CHECK_EQ(pop_u32(&q, &v, &meta), 0);
	for (i = 0; i < 6; i++)
		CHECK_EQ(push_u32(&q, 100 + i, 0), 0);
	CHECK_EQ(push_u32(&q, 0, 0), -ENOSPC);
	CHECK_EQ(pop_u32(&q, &v, &meta), 0);
	CHECK_EQ(v, 3);
	swq_fini(&q);
}

static void test_size_gather_drain(void)
{
	uint8_t big[65], a[3] = { 1, 2, 3 }, b[2] = { 4, 5 };
	struct iovec iov[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	struct iovec one = { big, sizeof(big) };
	const uint8_t *f;
	struct swq q;
	uint32_t meta;

	CHECK_EQ(swq_init(&q, 3, 64), -EINVAL);	/* not a power of two */
	CHECK_EQ(swq_init(&q, 4, 64), 0);
	CHECK_EQ(swq_push(&q, &one, 1, 0), -EMSGSIZE);
	CHECK_EQ(swq_push(&q, iov, 2, 7), 0);
	f = swq_peek(&q, &meta);
	CHECK(f);
	CHECK_EQ(swq_peek_len(&q), 5);
	CHECK_EQ(meta, 7);
	CHECK(!memcmp(f, "\1\2\3\4\5", 5));
	CHECK_EQ(swq_push(&q, iov, 2, 0), 0);
	swq_drain(&q);
	CHECK(!swq_peek(&q, &meta));
	CHECK_EQ(swq_push(&q, iov, 2, 0), 0);	/* usable after a drain */
	CHECK_EQ(swq_peek_len(&q), 5);
	swq_fini(&q);
}

#define MP_N	200000

struct mp_arg {
	struct swq *q;
	uint32_t id;
	unsigned long full;
};

/* swq_reserve(): n slots or none; the consumer waits for the first */
/*
 * swq_push_buf(): the bytes, length and meta as swq_push() gives them, in
 * order with swq_push()'s frames; full and too large refuse, nothing queued
 */
static void test_push_buf(void)
{
	uint8_t big[65] = { 0 }, f[5] = { 9, 8, 7, 6, 5 };
	const uint8_t *got;
	uint32_t v, meta, len, i;
	struct swq q;

	CHECK_EQ(swq_init(&q, 4, 64), 0);
	CHECK_EQ(swq_push_buf(&q, big, sizeof(big), 0), -EMSGSIZE);
	CHECK(!swq_peek_len(&q));
	CHECK_EQ(push_u32(&q, 1, 10), 0);
	CHECK_EQ(swq_push_buf(&q, f, sizeof(f), 11), 0);
	CHECK_EQ(push_u32(&q, 2, 12), 0);
	CHECK_EQ(swq_push_buf(&q, f, 1, 13), 0);
	CHECK_EQ(swq_push_buf(&q, f, sizeof(f), 14), -ENOSPC);	/* full */
	CHECK_EQ(pop_u32(&q, &v, &meta), 0);
	CHECK_EQ(v, 1);
	got = swq_peek_frame(&q, &meta, &len);
	CHECK(got && len == sizeof(f) && meta == 11 && !memcmp(got, f, len));
	swq_pop(&q);
	CHECK_EQ(pop_u32(&q, &v, &meta), 0);
	CHECK_EQ(v, 2);
	got = swq_peek_frame(&q, &meta, &len);
	CHECK(got && len == 1 && meta == 13 && got[0] == 9);
	swq_pop(&q);
	CHECK(!swq_peek_len(&q));
	for (i = 0; i < 10; i++) {	/* across the wrap */
		CHECK_EQ(swq_push_buf(&q, &i, sizeof(i), i), 0);
		CHECK_EQ(pop_u32(&q, &v, &meta), 0);
		CHECK(v == i && meta == i);
	}
	swq_fini(&q);
}

static void test_reserve_all_or_none(void)
{
	struct swq q;
	uint32_t v, meta, i;
	size_t pos, tail;

	CHECK_EQ(swq_init(&q, 8, 16), 0);
	for (i = 0; i < 6; i++)
		CHECK_EQ(push_u32(&q, i, 0), 0);
	CHECK_EQ(pop_u32(&q, &v, &meta), 0);
	CHECK_EQ(pop_u32(&q, &v, &meta), 0);
	CHECK_EQ(pop_u32(&q, &v, &meta), 0);	/* 3 in, 5 free */
	tail = atomic_load(&q.tail);
	CHECK_EQ(swq_reserve(&q, 6, &pos), -ENOSPC);
	CHECK_EQ(atomic_load(&q.tail), tail);	/* nothing claimed */
	CHECK_EQ(swq_reserve(&q, 0, &pos), -EMSGSIZE);
	CHECK_EQ(swq_reserve(&q, 9, &pos), -EMSGSIZE);
	CHECK_EQ(swq_reserve(&q, 5, &pos), 0);	/* wraps past slot 7 */
	CHECK_EQ(pos, tail);
	CHECK_EQ(push_u32(&q, 99, 0), -ENOSPC);
	/* published last to first: nothing is read before the first is */
	for (i = 5; i-- > 1;) {
		v = 100 + i;
		memcpy(swq_slot_buf(&q, pos + i), &v, sizeof(v));
		swq_publish(&q, pos + i, sizeof(v), i);
	}
	for (i = 3; i < 6; i++) {
		CHECK_EQ(pop_u32(&q, &v, &meta), 0);
		CHECK_EQ(v, i);
	}
	CHECK_EQ(pop_u32(&q, &v, &meta), -EAGAIN);
	v = 100;
	memcpy(swq_slot_buf(&q, pos), &v, sizeof(v));
	swq_publish(&q, pos, sizeof(v), 0);
	for (i = 0; i < 5; i++) {
		CHECK_EQ(pop_u32(&q, &v, &meta), 0);
		CHECK_EQ(v, 100 + i);
		CHECK_EQ(meta, i);
	}
	CHECK_EQ(pop_u32(&q, &v, &meta), -EAGAIN);
	swq_fini(&q);
}

static void *mp_producer(void *p)
{
	struct mp_arg *a = p;
	uint32_t i;

	for (i = 0; i < MP_N; i++) {
		uint32_t v = a->id << 24 | i;

		while (push_u32(a->q, v, a->id) == -ENOSPC) {
			a->full++;
			sched_yield();
		}
	}
	return NULL;
}

static void test_mpsc_two_producers(void)
{
	struct mp_arg a[2];
	pthread_t t[2];
	uint32_t next[2] = { 0, 0 }, v, meta, got = 0;
	struct swq q;
	int i, bad = 0;

	CHECK_EQ(swq_init(&q, 64, 16), 0);
	for (i = 0; i < 2; i++) {
		a[i] = (struct mp_arg){ .q = &q, .id = (uint32_t)i + 1 };
		CHECK_EQ(pthread_create(&t[i], NULL, mp_producer, &a[i]), 0);
	}
	while (got < 2 * MP_N) {
		if (pop_u32(&q, &v, &meta)) {
			sched_yield();
			continue;
		}
		got++;
		/* each producer's frames arrive once, in its order */
		if ((v >> 24) != meta || meta < 1 || meta > 2 ||
		    (v & 0xffffff) != next[meta - 1]++)
			bad++;
	}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ(bad, 0);
	CHECK_EQ(next[0], MP_N);
	CHECK_EQ(next[1], MP_N);
	CHECK_EQ(pop_u32(&q, &v, &meta), -EAGAIN);
	swq_fini(&q);
}

int main(void)
{
	RUN(test_fifo_full_wrap);
	RUN(test_size_gather_drain);
	RUN(test_push_buf);
	RUN(test_reserve_all_or_none);
	RUN(test_mpsc_two_producers);
	return test_exit();
}
