/* SPDX-License-Identifier: MIT */
/*
 * test_vring_common.h - the ring unit tests both layouts share, as
 * fuzz/fuzz_vring_common.h is for the fuzzers: the same scenario against
 * the device side and our driver side, for split (test_vring_split.c) and
 * packed (test_vring_packed.c) rings. Define TEST_LAYOUT (VQ_SPLIT or
 * VQ_PACKED) before including; run the cases with vring_common_run().
 *
 * Where a layout legitimately differs (ring sizes a split ring cannot
 * have, guest-visible ring contents, what a driver sees before a kick),
 * the case says so with TL_SPLIT; everything else is checked for both.
 * Layout-specific scenarios stay in the two programs. A template (typed
 * by TEST_LAYOUT per includer), so not part of build/libvnet-test.a.
 */
#ifndef VNET_TEST_VRING_COMMON_H
#define VNET_TEST_VRING_COMMON_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "testlib.h"
#include "vq_testutil.h"

#ifndef TEST_LAYOUT
#error "define TEST_LAYOUT (VQ_SPLIT or VQ_PACKED) first"
#endif

#define TL_SPLIT	(TEST_LAYOUT == VQ_SPLIT)
#define PF_AVAIL	(1u << VRING_PACKED_DESC_F_AVAIL)
#define PF_USED		(1u << VRING_PACKED_DESC_F_USED)

static struct tenv T;

/* ---- raw guest-side writes, either layout ---- */

/* Ring descriptor @i; @link is the split next index or the packed id.
 * A packed descriptor is marked available for wrap 1 at once. */
static void tg_desc(uint16_t i, uint64_t addr, uint32_t len, uint16_t flags,
		    uint16_t link)
{
	if (TL_SPLIT)
		tsplit_desc(&T, i, addr, len, flags, link);
	else
		tpacked_desc(&T, i, addr, len, link, flags, 1);
}

/* Offer the chain at @head (split: avail ring; packed: already offered) */
static void tg_publish(uint16_t head)
{
	if (TL_SPLIT)
		tsplit_avail(&T, head);
}

/* Entry @i of an indirect table at our address @t (next: split only) */
static void tg_table(void *t, uint16_t i, uint64_t addr, uint32_t len,
		     uint16_t flags, uint16_t next)
{
	if (TL_SPLIT)
		((struct vring_desc *)t)[i] = (struct vring_desc){
			htole64(addr), htole32(len), htole16(flags),
			htole16(next) };
	else
		((struct vring_packed_desc *)t)[i] = (struct vring_packed_desc){
			htole64(addr), htole32(len), 0, htole16(flags) };
}

/* ---------------- device side against our driver side ---------------- */

static void test_single_desc(void)
{
	struct vq_buf b = { tdata(0), 100 };
	uint32_t tok, len, wlen = TL_SPLIT ? 0 : 3;
	struct vq_chain c;

	CHECK_EQ(tenv_init(&T, TEST_LAYOUT, 256, 0), 0);
	CHECK_EQ(vq_pop(&T.dev, &c), -EAGAIN);
	CHECK(!vq_avail_pending(&T.dev));
	CHECK_EQ(vq_drv_add(&T.drv, &b, 1, NULL, 0, 77), 0);
	if (TL_SPLIT)	/* packed: visible as soon as added */
		CHECK_EQ(vq_pop(&T.dev, &c), -EAGAIN);	/* not published */
	CHECK(vq_drv_kick_needed(&T.drv));
	CHECK(vq_avail_pending(&T.dev));
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	CHECK_EQ(c.nout, 1);
	CHECK_EQ(c.nin, 0);
	CHECK_EQ(c.ndesc, 1);
	CHECK_EQ(c.out_len, 100);
	CHECK(c.iov == c.iov_inline);
	CHECK(c.iov[0].iov_base == thost(&T, tdata(0)));
	CHECK_EQ(c.iov[0].iov_len, 100);
	CHECK_EQ(c.gpa[0], tdata(0));
	CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), -EAGAIN);
	vq_push(&T.dev, &c, wlen);
	CHECK(vq_flush(&T.dev));
	CHECK(!vq_flush(&T.dev));	/* empty batch */
	if (!TL_SPLIT)
		CHECK_EQ(le16toh(((struct vring_packed_desc *)T.desc)->flags) &
			 (PF_AVAIL | PF_USED), PF_AVAIL | PF_USED);
	CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), 0);
	CHECK_EQ(tok, 77);
	CHECK_EQ(len, wlen);
	CHECK_EQ(vq_drv_num_free(&T.drv), 256);
	CHECK_EQ(vq_pop(&T.dev, &c), -EAGAIN);
	tenv_cleanup(&T);
}

static void test_multi_desc(void)
{
	struct vq_buf out[2] = { { tdata(0), 10 }, { tdata(1), 20 } };
	struct vq_buf in[3] = { { tdata(2), 30 }, { tdata(3), 40 },
				{ tdata(4), 50 } };
	uint16_t num = TL_SPLIT ? 8 : 7;	/* packed: an odd size */
	struct vq_chain c;
	uint32_t tok, len;
	int i;

	CHECK_EQ(tenv_init(&T, TEST_LAYOUT, num, 0), 0);
	CHECK_EQ(vq_drv_add(&T.drv, out, 2, in, 3, 5), 0);
	CHECK_EQ(vq_drv_num_free(&T.drv), num - 5);
	CHECK_EQ(vq_drv_add(&T.drv, out, 2, in, 3, 6), -ENOSPC);
	vq_drv_kick_needed(&T.drv);
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	CHECK_EQ(c.nout, 2);
	CHECK_EQ(c.nin, 3);
	CHECK_EQ(c.out_len, 30);
	CHECK_EQ(c.in_len, 120);
	CHECK_EQ(c.ndesc, 5);
	CHECK(c.iov != c.iov_inline);	/* 5 > VQ_INLINE_IOV */
	for (i = 0; i < 5; i++) {
		CHECK(c.iov[i].iov_base == thost(&T, tdata(i)));
		CHECK_EQ(c.iov[i].iov_len, 10 * (i + 1));
	}
	vq_push(&T.dev, &c, 99);
	vq_flush(&T.dev);
	CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), 0);
	CHECK_EQ(tok, 5);
	CHECK_EQ(len, 99);
	CHECK_EQ(vq_drv_num_free(&T.drv), num);
	if (TL_SPLIT) {
		tenv_cleanup(&T);
		return;
	}
	/* Packed: the next chain crosses the end of the ring (5, 6, 0, 1) */
	CHECK_EQ(vq_drv_add(&T.drv, out, 2, in, 2, 8), 0);
	vq_drv_kick_needed(&T.drv);
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	CHECK_EQ(c.ndesc, 4);
	CHECK(c.iov[3].iov_base == thost(&T, tdata(3)));
	CHECK_EQ(T.dev.last_avail, 2);
	CHECK(!T.dev.avail_wrap);
	vq_push(&T.dev, &c, 1);
	vq_flush(&T.dev);
	CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), 0);
	CHECK_EQ(tok, 8);
	CHECK(!T.drv.drv_used_wrap);
	tenv_cleanup(&T);
}

/*
 * One-descriptor chains take the short way (vq_chain_one()) while their
 * buffer lies in the region of the previous one and the walk otherwise:
 * both fill the chain alike, for readable and writable buffers, and a
 * buffer in the other region moves the hint there.
 */
static void test_one_desc_chains(void)
{
	static const uint64_t at[4] = { TM_GPA + 4096, TM_GPA + TM_HALF + 64,
					TM_GPA + TM_HALF + 8192, TM_GPA + 64 };
	struct vq_chain c;
	unsigned int i;

	CHECK_EQ(tenv_init(&T, TEST_LAYOUT, 8, 0), 0);
	for (i = 0; i < 8; i++) {
		struct vq_buf b = { at[i % 4], 100 + i };
		bool w = i & 1;

		CHECK_EQ(vq_drv_add(&T.drv, w ? NULL : &b, !w, w ? &b : NULL,
				    w, i), 0);
		vq_drv_kick_needed(&T.drv);
		CHECK_EQ(vq_pop(&T.dev, &c), 0);
		CHECK_EQ(c.ndesc, 1);
		CHECK_EQ(c.nout, !w);
		CHECK_EQ(c.nin, w);
		CHECK_EQ(c.out_len, w ? 0 : 100 + i);
		CHECK_EQ(c.in_len, w ? 100 + i : 0);
		CHECK(c.iov == c.iov_inline && c.gpa == c.gpa_inline);
		CHECK(c.iov[0].iov_base == T.buf + (at[i % 4] - TM_GPA));
		CHECK_EQ(c.iov[0].iov_len, 100 + i);
		CHECK_EQ(c.gpa[0], at[i % 4]);
		CHECK_EQ(T.dev.inflight, 1);
		vq_push(&T.dev, &c, 0);
		vq_flush(&T.dev);
		CHECK_EQ(vq_drv_get_used(&T.drv, &(uint32_t){ 0 },
					 &(uint32_t){ 0 }), 0);
	}
	CHECK_EQ(T.dev.stats.chains, 8);
	CHECK(!vq_is_broken(&T.dev));
	tenv_cleanup(&T);
}

/* A buffer across two adjacent regions is legit: two iovecs */
static void test_buffer_across_regions(void)
{
	struct vq_buf b = { TM_GPA + TM_HALF - 100, 300 };
	struct vq_chain c;

	CHECK_EQ(tenv_init(&T, TEST_LAYOUT, 8, 0), 0);
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &b, 1, 1), 0);
	vq_drv_kick_needed(&T.drv);
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	CHECK_EQ(c.nin, 2);
	CHECK_EQ(c.in_len, 300);
	CHECK_EQ(c.iov[0].iov_len, 100);
	CHECK_EQ(c.iov[1].iov_len, 200);
	CHECK(c.iov[1].iov_base == T.buf + TM_HALF);
	CHECK_EQ(c.gpa[1], TM_GPA + TM_HALF);
	tenv_cleanup(&T);
}

/* A one-entry ring: every operation wraps */
static void test_ring_size_one(void)
{
	struct vq_buf b[2] = { { tdata(0), 10 }, { tdata(1), 20 } };
	struct vq_chain c;
	uint32_t tok, len, i;

	CHECK_EQ(tenv_init(&T, TEST_LAYOUT, 1, F_EVENT_IDX | F_INDIRECT), 0);
	for (i = 0; i < 1000; i++) {
		CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, b, 2, i), -ENOSPC);
		CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, b, 1, i), 0);
		CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, b, 1, i), -ENOSPC);
		vq_drv_kick_needed(&T.drv);
		CHECK_EQ(vq_pop(&T.dev, &c), 0);
		CHECK_EQ(vq_pop(&T.dev, &c), -EAGAIN);
		vq_push(&T.dev, &c, i % 10);
		vq_flush(&T.dev);
		CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), 0);
		CHECK_EQ(tok, i);
		CHECK_EQ(len, i % 10);
		CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), -EAGAIN);
	}
	CHECK(!vq_is_broken(&T.dev) && !vq_drv_is_broken(&T.drv));
	tenv_cleanup(&T);
}

/* Flags mode (no EVENT_IDX) both ways, and enable-then-recheck */
static void test_notify_flags(void)
{
	struct vq_buf b = { tdata(0), 64 };
	struct vq_chain c;

	CHECK_EQ(tenv_init(&T, TEST_LAYOUT, TL_SPLIT ? 8 : 4, 0), 0);
	vq_disable_notify(&T.dev);
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &b, 1, 1), 0);
	CHECK(!vq_drv_kick_needed(&T.drv));
	CHECK(vq_enable_notify(&T.dev));	/* pending: keep working */
	if (!TL_SPLIT)
		CHECK_EQ(le16toh(((struct vring_packed_desc_event *)T.deva)->flags),
			 VRING_PACKED_EVENT_FLAG_ENABLE);
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &b, 1, 2), 0);
	CHECK(vq_drv_kick_needed(&T.drv));
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	vq_drv_disable_cb(&T.drv);
	vq_push(&T.dev, &c, 0);
	CHECK(!vq_flush(&T.dev));
	CHECK(vq_drv_enable_cb(&T.drv));
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	vq_push(&T.dev, &c, 0);
	CHECK(vq_flush(&T.dev));
	CHECK(!vq_enable_notify(&T.dev));
	tenv_cleanup(&T);
}

/* ---- vq_pop_burst(): the same chains as one vq_pop() at a time ---- */

static struct tenv T2;
static uint64_t burst_rng;

static uint32_t burst_rnd(uint32_t n)
{
	return (uint32_t)(test_xorshift(&burst_rng) % n);
}

/* Add one buffer of kind @k (token @tok) to the driver side of @t */
static int burst_add(struct tenv *t, unsigned int k, uint32_t tok)
{
	struct vq_buf b[3] = {
		/* the other region now and then: the hint moves */
		{ (k & 8 ? TM_GPA + 4096 : tdata(tok % 64)), 60 + tok % 40 },
		{ tdata(64 + tok % 64), 100 },
		{ tdata(128 + tok % 64), 1 + tok % 7 },
	};

	switch (k & 7) {
	case 0: case 1: case 2:		/* one readable buffer */
		return vq_drv_add(&t->drv, b, 1, NULL, 0, tok);
	case 3: case 4:			/* one writable buffer */
		return vq_drv_add(&t->drv, NULL, 0, b, 1, tok);
	case 5:				/* header + frame */
		return vq_drv_add(&t->drv, b, 2, NULL, 0, tok);
	case 6:				/* three writable (indirect if set) */
		return vq_drv_add(&t->drv, NULL, 0, b, 3, tok);
	default:			/* readable then writable */
		return vq_drv_add(&t->drv, b, 1, b + 1, 1, tok);
	}
}

/* Chains @a (in @ta) and @b (in @tb) hold the same buffers */
static int burst_same(const struct tenv *ta, const struct vq_chain *a,
		      const struct tenv *tb, const struct vq_chain *b)
{
	unsigned int i;

	if (a->id != b->id || a->ndesc != b->ndesc || a->nout != b->nout ||
	    a->nin != b->nin || a->out_len != b->out_len ||
	    a->in_len != b->in_len)
		return 0;
	for (i = 0; i < (unsigned int)a->nout + a->nin; i++)
		if ((uint8_t *)a->iov[i].iov_base - ta->buf !=
		    (uint8_t *)b->iov[i].iov_base - tb->buf ||
		    a->iov[i].iov_len != b->iov[i].iov_len ||
		    a->gpa[i] != b->gpa[i])
			return 0;
	return 1;
}

/*
 * Two identical rings: random mixes of chains (one buffer readable or
 * writable, in either region, two or three buffers, indirect tables),
 * popped one at a time on T and in bursts of 1..9 on T2, for many laps of
 * a ring whose size is no multiple of four: same chains, same order, same
 * stop, same positions; then completed alike, the driver gets all back.
 */
static void burst_laps(uint16_t num, uint64_t features, uint64_t seed)
{
	static struct vq_chain ca[64], cb[64];
	uint32_t tok = 0, ta, tb, la, lb;
	unsigned int lap, i, n, na, nb;
	int ea, eb;

	burst_rng = seed;
	CHECK_EQ(tenv_init(&T, TEST_LAYOUT, num, features), 0);
	CHECK_EQ(tenv_init(&T2, TEST_LAYOUT, num, features), 0);
	for (lap = 0; lap < 400; lap++) {
		n = 1 + burst_rnd(num);
		for (i = 0; i < n; i++, tok++) {
			unsigned int k = burst_rnd(16);

			/* mostly one-buffer chains, as a NIC's rings hold */
			if (burst_rnd(4))
				k &= 8 | 3;
			ea = burst_add(&T, k, tok);
			eb = burst_add(&T2, k, tok);
			CHECK_EQ(ea, eb);
			if (ea)
				break;
		}
		vq_drv_kick_needed(&T.drv);
		vq_drv_kick_needed(&T2.drv);
		na = 0;
		while (na < 64 && !(ea = vq_pop(&T.dev, &ca[na])))
			na++;
		nb = 0;
		eb = 0;
		while (nb < 64 && !eb) {
			unsigned int want = MIN(1 + burst_rnd(9), 64 - nb);
			unsigned int got = vq_pop_burst(&T2.dev, &cb[nb], want,
							&eb);

			CHECK(got <= want);
			CHECK_EQ(eb != 0, got < want);
			nb += got;
		}
		CHECK_EQ(na, nb);
		CHECK_EQ(ea, -EAGAIN);
		CHECK_EQ(eb, -EAGAIN);
		for (i = 0; i < na; i++)
			CHECK(burst_same(&T, &ca[i], &T2, &cb[i]));
		CHECK_EQ(T.dev.last_avail, T2.dev.last_avail);
		CHECK_EQ(T.dev.avail_wrap, T2.dev.avail_wrap);
		CHECK_EQ(T.dev.inflight, T2.dev.inflight);
		CHECK_EQ(T.dev.stats.chains, T2.dev.stats.chains);
		for (i = 0; i < na; i++) {
			vq_push(&T.dev, &ca[i], ca[i].in_len);
			vq_push(&T2.dev, &cb[i], cb[i].in_len);
		}
		vq_flush(&T.dev);
		vq_flush(&T2.dev);
		for (i = 0; i < na; i++) {
			CHECK_EQ(vq_drv_get_used(&T.drv, &ta, &la), 0);
			CHECK_EQ(vq_drv_get_used(&T2.drv, &tb, &lb), 0);
			CHECK_EQ(ta, tb);
			CHECK_EQ(la, lb);
		}
	}
	CHECK(tok > 400u * num / 4);
	CHECK(!vq_is_broken(&T.dev) && !vq_is_broken(&T2.dev));
	tenv_cleanup(&T);
	tenv_cleanup(&T2);
}

static void test_pop_burst_same_as_pop(void)
{
	burst_laps(TL_SPLIT ? 16 : 13, F_INDIRECT, 7);
	burst_laps(TL_SPLIT ? 32 : 30, F_IN_ORDER, 8);
	burst_laps(TL_SPLIT ? 4 : 5, 0, 9);
}

/*
 * Rings no driver side of ours writes, the same in T and T2: an empty
 * buffer (1), a buffer in the other region (2), one across both (5), a
 * two-descriptor chain (6, 7) among one-descriptor ones. Popped one at a
 * time and in one burst: the same chains, the same stop.
 */
static void test_pop_burst_raw(void)
{
	static const uint64_t at[10] = {
		0, 0, TM_GPA + 8192, 0, 0, TM_GPA + TM_HALF - 8, 0, 0, 0, 0 };
	static const uint32_t len[10] = { 64, 0, 64, 64, 64, 16, 64, 64,
					  64, 64 };
	struct vq_chain ca[10], cb[10];
	struct tenv *t[2] = { &T, &T2 };
	unsigned int na = 0, nb, i, k;
	int ea, eb;

	for (k = 0; k < 2; k++) {
		CHECK_EQ(tenv_init(t[k], TEST_LAYOUT, 16, 0), 0);
		for (i = 0; i < 10; i++) {
			uint64_t a = at[i] ? at[i] : tdata(i);
			uint16_t f = i == 6 ? VRING_DESC_F_NEXT : 0;

			if (TL_SPLIT)
				tsplit_desc(t[k], (uint16_t)i, a, len[i], f,
					    (uint16_t)(i + 1));
			else
				tpacked_desc(t[k], (uint16_t)i, a, len[i],
					     (uint16_t)(100 + i), f, 1);
			if (TL_SPLIT && i != 7)
				tsplit_avail(t[k], (uint16_t)i);
		}
	}
	while (na < 10 && !(ea = vq_pop(&T.dev, &ca[na])))
		na++;
	nb = vq_pop_burst(&T2.dev, cb, 10, &eb);
	CHECK_EQ(na, 9);
	CHECK_EQ(nb, na);
	CHECK_EQ(ea, -EAGAIN);
	CHECK_EQ(eb, -EAGAIN);
	for (i = 0; i < na; i++)
		CHECK(burst_same(&T, &ca[i], &T2, &cb[i]));
	CHECK_EQ(ca[1].in_len + ca[1].out_len, 0);
	CHECK_EQ(ca[5].nout, 2);
	CHECK_EQ(T.dev.last_avail, T2.dev.last_avail);
	CHECK_EQ(T.dev.inflight, T2.dev.inflight);
	tenv_cleanup(&T);
	tenv_cleanup(&T2);
}

/*
 * A burst stops at a bad chain: the good ones before it are popped, the
 * error is the break's, the queue is broken; and a guest that offers more
 * than the ring holds in flight is caught inside a burst as by vq_pop().
 */
static void test_pop_burst_stops(void)
{
	struct vq_chain c[8];
	uint16_t i;
	int err;

	CHECK_EQ(tenv_init(&T, TEST_LAYOUT, 8, 0), 0);
	for (i = 0; i < 6; i++) {
		tg_desc(i, i == 3 ? TM_GPA + TM_SIZE : tdata(i), 64, 0, i);
		tg_publish(i);
	}
	CHECK_EQ(vq_pop_burst(&T.dev, c, 8, &err), 3);
	CHECK_EQ(err, -EBADMSG);
	CHECK(strstr(vq_broken_reason(&T.dev), "outside guest memory"));
	for (i = 0; i < 3; i++)
		CHECK_EQ(c[i].id, i);
	CHECK_EQ(vq_pop_burst(&T.dev, c, 8, &err), 0);
	CHECK_EQ(err, -EBADMSG);
	tenv_cleanup(&T);

	CHECK_EQ(tenv_init(&T, TEST_LAYOUT, 8, 0), 0);
	for (i = 0; i < 8; i++) {
		tg_desc(i, tdata(i), 64, 0, i);
		tg_publish(i);
	}
	CHECK_EQ(vq_pop_burst(&T.dev, c, 8, &err), 8);
	CHECK_EQ(err, 0);
	/* the guest offers slot 0 again while all eight are in flight */
	if (TL_SPLIT)
		tg_publish(0);
	else
		tpacked_desc(&T, 0, tdata(0), 64, 0, 0, 0);
	CHECK_EQ(vq_pop_burst(&T.dev, c, 4, &err), 0);
	CHECK_EQ(err, -EBADMSG);
	CHECK(strstr(vq_broken_reason(&T.dev), "in flight"));
	tenv_cleanup(&T);

	/*
	 * split: a head outside the table inside a run of good ones. Where
	 * "descriptor 13" would be (in the used ring, not written before a
	 * flush) lies what reads as a good one: only the index check stops it.
	 */
	if (TL_SPLIT) {
		CHECK_EQ(tenv_init(&T, TEST_LAYOUT, 8, 0), 0);
		tg_desc(13, tdata(13), 64, 0, 0);
		for (i = 0; i < 4; i++) {
			tg_desc(i, tdata(i), 64, 0, 0);
			tg_publish(i == 2 ? 13 : i);
		}
		CHECK_EQ(vq_pop_burst(&T.dev, c, 8, &err), 2);
		CHECK_EQ(err, -EBADMSG);
		CHECK(strstr(vq_broken_reason(&T.dev), "head 13"));
		tenv_cleanup(&T);
	}

	/* empty ring, and a queue without memory: -EAGAIN, nothing taken */
	CHECK_EQ(tenv_init(&T, TEST_LAYOUT, 8, 0), 0);
	CHECK_EQ(vq_pop_burst(&T.dev, c, 8, &err), 0);
	CHECK_EQ(err, -EAGAIN);
	vq_set_mem(&T.dev, NULL);
	tg_desc(0, tdata(0), 64, 0, 0);
	tg_publish(0);
	CHECK_EQ(vq_pop_burst(&T.dev, c, 8, &err), 0);
	CHECK_EQ(err, -EAGAIN);
	CHECK_EQ(T.dev.inflight, 0);
	tenv_cleanup(&T);
}

/* ------------- malicious guests: each breaks the queue ------------- */

static int mal_setup(uint64_t features)
{
	return tenv_init(&T, TEST_LAYOUT, 8, features);
}

/* Pop must fail with -EBADMSG, the reason must mention @what, and the
 * queue must stay broken until reset */
static int mal_expect(const char *what)
{
	struct vq_chain c;
	int ok;

	ok = vq_pop(&T.dev, &c) == -EBADMSG && vq_is_broken(&T.dev) &&
	     strstr(vq_broken_reason(&T.dev), what) &&
	     vq_pop(&T.dev, &c) == -EBADMSG && !vq_enable_notify(&T.dev) &&
	     !vq_avail_pending(&T.dev);
	if (!ok)
		fprintf(stderr, "  reason: \"%s\"\n", vq_broken_reason(&T.dev));
	tenv_cleanup(&T);
	return ok;
}

static void test_mal_nested_indirect(void)
{
	CHECK_EQ(mal_setup(F_INDIRECT), 0);
	tg_table(thost(&T, TM_GPA + TM_INDIR_OFF), 0, TM_GPA + TM_INDIR_OFF,
		 16, VRING_DESC_F_INDIRECT, 0);
	tg_desc(0, TM_GPA + TM_INDIR_OFF, 16, VRING_DESC_F_INDIRECT, 1);
	tg_publish(0);
	CHECK(mal_expect("nested indirect"));
}

static void test_mal_indirect_len_zero(void)
{
	CHECK_EQ(mal_setup(F_INDIRECT), 0);
	tg_desc(0, TM_GPA + TM_INDIR_OFF, 0, VRING_DESC_F_INDIRECT, 1);
	tg_publish(0);
	CHECK(mal_expect("indirect table length 0"));
}

static void test_mal_indirect_len_not_16(void)
{
	uint32_t len = TL_SPLIT ? 24 : 40;
	char what[64];

	snprintf(what, sizeof(what), "indirect table length %u", len);
	CHECK_EQ(mal_setup(F_INDIRECT), 0);
	tg_desc(0, TM_GPA + TM_INDIR_OFF, len, VRING_DESC_F_INDIRECT, 1);
	tg_publish(0);
	CHECK(mal_expect(what));
}

static void test_mal_indirect_len_too_big(void)
{
	CHECK_EQ(mal_setup(F_INDIRECT), 0);
	tg_desc(0, TM_GPA + TM_INDIR_OFF, 9 * 16, VRING_DESC_F_INDIRECT, 1);
	tg_publish(0);
	CHECK(mal_expect("indirect table length 144"));
}

static void test_mal_indirect_with_next(void)
{
	CHECK_EQ(mal_setup(F_INDIRECT), 0);
	tg_desc(0, TM_GPA + TM_INDIR_OFF, 16,
		VRING_DESC_F_INDIRECT | VRING_DESC_F_NEXT, 1);
	tg_desc(1, tdata(0), 10, 0, 1);
	tg_publish(0);
	CHECK(mal_expect("indirect descriptor with NEXT"));
}

/* Split: a table running off the end of memory; packed: one below it */
static void test_mal_indirect_outside_memory(void)
{
	CHECK_EQ(mal_setup(F_INDIRECT), 0);
	if (TL_SPLIT)
		tg_desc(0, TM_GPA + TM_SIZE - 16, 32, VRING_DESC_F_INDIRECT, 1);
	else
		tg_desc(0, 0x1000, 16, VRING_DESC_F_INDIRECT, 1);
	tg_publish(0);
	CHECK(mal_expect("outside memory"));
}

/* Split: a buffer below guest memory; packed: one just past its end */
static void test_mal_addr_outside_memory(void)
{
	CHECK_EQ(mal_setup(0), 0);
	if (TL_SPLIT)
		tg_desc(0, 0x1000, 10, 0, 1);
	else
		tg_desc(0, TM_GPA + TM_SIZE, 1, 0, 1);
	tg_publish(0);
	CHECK(mal_expect("outside guest memory"));
}

static void test_mal_addr_wraps(void)
{
	CHECK_EQ(mal_setup(0), 0);
	if (TL_SPLIT)
		tg_desc(0, UINT64_MAX - 4, 100, 0, 1);
	else
		tg_desc(0, UINT64_MAX, 2, 0, 1);
	tg_publish(0);
	CHECK(mal_expect("outside guest memory"));
}

static void test_mal_read_after_write(void)
{
	CHECK_EQ(mal_setup(0), 0);
	tg_desc(1, tdata(1), 10, 0, 1);
	tg_desc(0, tdata(0), 10, VRING_DESC_F_WRITE | VRING_DESC_F_NEXT, 1);
	tg_publish(0);
	CHECK(mal_expect("readable descriptor after a writable"));
}

/* Run the shared cases (after the program's own, or before: any order) */
static void vring_common_run(void)
{
	RUN(test_single_desc);
	RUN(test_multi_desc);
	RUN(test_one_desc_chains);
	RUN(test_buffer_across_regions);
	RUN(test_ring_size_one);
	RUN(test_notify_flags);
	RUN(test_pop_burst_same_as_pop);
	RUN(test_pop_burst_raw);
	RUN(test_pop_burst_stops);
	RUN(test_mal_nested_indirect);
	RUN(test_mal_indirect_len_zero);
	RUN(test_mal_indirect_len_not_16);
	RUN(test_mal_indirect_len_too_big);
	RUN(test_mal_indirect_with_next);
	RUN(test_mal_indirect_outside_memory);
	RUN(test_mal_addr_outside_memory);
	RUN(test_mal_addr_wraps);
	RUN(test_mal_read_after_write);
}

#endif /* VNET_TEST_VRING_COMMON_H */
