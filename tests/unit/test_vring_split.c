// SPDX-License-Identifier: MIT
/*
 * test_vring_split.c - split ring: device side against our driver side on
 * fake guest memory, notification decisions, and every malicious guest
 * case as its own test (the queue must break with a reason, never crash).
 * The scenarios both layouts share live in test_vring_common.h (run by
 * vring_common_run()); this file keeps the layout-specific ones.
 */
#define TEST_LAYOUT	VQ_SPLIT
#include "test_vring_common.h"

#define F_NOE	(1ULL << VIRTIO_F_NOTIFY_ON_EMPTY)

static void test_init_sizes(void)
{
	struct vq q;
	struct vq_drv qd;
	uint64_t d, a, u;

	CHECK_EQ(vq_init(&q, VQ_SPLIT, 0, 0), -EINVAL);
	CHECK_EQ(vq_init(&q, VQ_SPLIT, 3, 0), -EINVAL);
	CHECK_EQ(vq_init(&q, VQ_SPLIT, 32769, 0), -EINVAL);
	CHECK_EQ(vq_init(&q, VQ_SPLIT, 65535, 0), -EINVAL);
	CHECK_EQ(vq_init(&q, (enum vq_layout)7, 8, 0), -EINVAL);
	CHECK_EQ(vq_init(&q, VQ_SPLIT, 32768, 0), 0);
	CHECK_EQ(q.spill_cap, 65535);	/* capped: nout + nin is 16 bits */
	vq_cleanup(&q);
	CHECK_EQ(vq_drv_init(&qd, VQ_SPLIT, 1, 0), 0);
	vq_drv_cleanup(&qd);

	vq_ring_sizes(VQ_SPLIT, 256, &d, &a, &u);
	CHECK_EQ(d, 4096);
	CHECK_EQ(a, 4 + 512 + 2);
	CHECK_EQ(u, 4 + 2048 + 2);
}

static void test_set_addr_alignment(void)
{
	static uint8_t area[8192] __attribute__((aligned(64)));
	struct vq q;

	CHECK_EQ(vq_init(&q, VQ_SPLIT, 16, 0), 0);
	CHECK_EQ(vq_set_addr(&q, area + 8, area + 1024, area + 2048), -EINVAL);
	CHECK_EQ(vq_set_addr(&q, area, area + 1025, area + 2048), -EINVAL);
	CHECK_EQ(vq_set_addr(&q, area, area + 1024, area + 2050), -EINVAL);
	CHECK_EQ(vq_set_addr(&q, area, area + 1026, area + 2052), 0);
	vq_cleanup(&q);
}

static void test_indirect(void)
{
	struct vq_buf out[1] = { { tdata(0), 12 } };
	struct vq_buf in[6];
	struct vq_chain c;
	uint32_t tok, len;
	int i;

	for (i = 0; i < 6; i++)
		in[i] = (struct vq_buf){ tdata(1 + i), 1000 };
	CHECK_EQ(tenv_init(&T, VQ_SPLIT, 16, F_INDIRECT), 0);
	CHECK_EQ(vq_drv_add(&T.drv, out, 1, in, 6, 1234), 0);
	CHECK_EQ(vq_drv_num_free(&T.drv), 15);	/* one ring descriptor */
	vq_drv_kick_needed(&T.drv);
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	CHECK_EQ(c.ndesc, 1);
	CHECK_EQ(c.nout, 1);
	CHECK_EQ(c.nin, 6);
	CHECK_EQ(c.in_len, 6000);
	for (i = 0; i < 7; i++)
		CHECK(c.iov[i].iov_base == thost(&T, tdata(i)));
	vq_push(&T.dev, &c, 6000);
	vq_flush(&T.dev);
	CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), 0);
	CHECK_EQ(tok, 1234);
	CHECK_EQ(len, 6000);
	CHECK_EQ(vq_drv_num_free(&T.drv), 16);
	tenv_cleanup(&T);
}

/* Indirect table straddling the region boundary: copied, still correct */
static void test_indirect_across_regions(void)
{
	uint64_t tbl = TM_GPA + TM_HALF - 32;	/* 2 entries each side */
	struct vq_chain c;
	int i;

	CHECK_EQ(tenv_init(&T, VQ_SPLIT, 8, F_INDIRECT), 0);
	for (i = 0; i < 4; i++) {
		struct vring_desc *d = (struct vring_desc *)thost(&T, tbl) + i;

		d->addr = htole64(tdata(i));
		d->len = htole32(64);
		d->flags = htole16(VRING_DESC_F_WRITE |
				   (i < 3 ? VRING_DESC_F_NEXT : 0));
		d->next = htole16((uint16_t)(i + 1));
	}
	tsplit_desc(&T, 0, tbl, 64, VRING_DESC_F_INDIRECT, 0);
	tsplit_avail(&T, 0);
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	CHECK_EQ(c.nin, 4);
	for (i = 0; i < 4; i++)
		CHECK(c.iov[i].iov_base == thost(&T, tdata(i)));
	tenv_cleanup(&T);
}

/* Regression (found by the corpus replay under UBSan): an indirect table
 * at an odd guest address is legal and must not be read misaligned */
static void test_indirect_misaligned_table(void)
{
	uint64_t tbl = TM_GPA + TM_INDIR_OFF + 3;
	struct vring_desc d[2];
	struct vq_chain c;

	CHECK_EQ(tenv_init(&T, VQ_SPLIT, 8, F_INDIRECT), 0);
	d[0] = (struct vring_desc){ htole64(tdata(1)), htole32(10),
				    htole16(VRING_DESC_F_NEXT), htole16(1) };
	d[1] = (struct vring_desc){ htole64(tdata(2)), htole32(20),
				    htole16(VRING_DESC_F_WRITE), 0 };
	memcpy(thost(&T, tbl), d, sizeof(d));
	tsplit_desc(&T, 0, tbl, 32, VRING_DESC_F_INDIRECT, 0);
	tsplit_avail(&T, 0);
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	CHECK_EQ(c.nout, 1);
	CHECK_EQ(c.nin, 1);
	CHECK_EQ(c.gpa[1], tdata(2));
	CHECK_EQ(c.in_len, 20);
	tenv_cleanup(&T);
}

/* Long chains spill; count and order kept; -ENOSPC when spill is held */
static void test_spill_and_enospc(void)
{
	struct vq_buf in[16];
	struct vq_chain a, b;
	uint32_t tok, len;
	int i;

	CHECK_EQ(tenv_init(&T, VQ_SPLIT, 16, F_INDIRECT), 0);
	/* 16 pieces each straddling the boundary: 32 iovecs (cap 48) */
	for (i = 0; i < 16; i++)
		in[i] = (struct vq_buf){ TM_GPA + TM_HALF - 8 - i, 32 };
	vq_drv_set_indirect(&T.drv, NULL, 0, 0);	/* direct first */
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, in, 16, 1), 0);
	vq_drv_set_indirect(&T.drv, T.buf + TM_INDIR_OFF,
			    TM_GPA + TM_INDIR_OFF, TM_INDIR_PER);
	vq_drv_kick_needed(&T.drv);
	CHECK_EQ(vq_pop(&T.dev, &a), 0);
	CHECK_EQ(a.nin, 32);
	CHECK_EQ(T.dev.stats.spills, 1);
	for (i = 0; i < 16; i++) {
		CHECK_EQ(a.gpa[2 * i], TM_GPA + TM_HALF - 8 - i);
		CHECK_EQ(a.iov[2 * i].iov_len, 8 + i);
		CHECK_EQ(a.iov[2 * i + 1].iov_len, 24 - i);
		CHECK(a.iov[2 * i + 1].iov_base == T.buf + TM_HALF);
	}
	/* Returns a's descriptors to the driver so b can be added */
	vq_push(&T.dev, &a, 0);
	CHECK_EQ(T.dev.spill_used, 0);
	vq_flush(&T.dev);
	CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), 0);

	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, in, 16, 2), 0);	/* direct */
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, in, 0, 3), -EINVAL);
	vq_drv_set_indirect(&T.drv, NULL, 0, 0);
	vq_drv_kick_needed(&T.drv);
	CHECK_EQ(vq_pop(&T.dev, &a), 0);
	CHECK_EQ(T.dev.spill_used, 32);
	tenv_cleanup(&T);

	/* Now: one chain holds 32 spill entries, the next needs 32 more */
	CHECK_EQ(tenv_init(&T, VQ_SPLIT, 16, F_INDIRECT), 0);
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, in, 16, 1), 0);	/* indirect */
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, in, 16, 2), 0);
	vq_drv_kick_needed(&T.drv);
	CHECK_EQ(vq_pop(&T.dev, &a), 0);
	CHECK_EQ(vq_pop(&T.dev, &b), -ENOSPC);
	CHECK(!vq_is_broken(&T.dev));
	vq_push(&T.dev, &a, 0);
	vq_flush(&T.dev);
	CHECK_EQ(vq_pop(&T.dev, &b), 0);
	CHECK_EQ(b.nin, 32);
	CHECK_EQ(b.gpa[31], TM_GPA + TM_HALF);
	tenv_cleanup(&T);
}

static void test_discard(void)
{
	struct vq_buf b[3] = { { tdata(0), 1 }, { tdata(1), 2 }, { tdata(2), 3 } };
	struct vq_chain c[3];
	int i;

	CHECK_EQ(tenv_init(&T, VQ_SPLIT, 8, 0), 0);
	for (i = 0; i < 3; i++)
		CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &b[i], 1, (uint32_t)i), 0);
	vq_drv_kick_needed(&T.drv);
	for (i = 0; i < 3; i++)
		CHECK_EQ(vq_pop(&T.dev, &c[i]), 0);
	vq_discard(&T.dev, &c[1], 2);
	CHECK_EQ(T.dev.inflight, 1);
	CHECK_EQ(vq_pop(&T.dev, &c[1]), 0);
	CHECK_EQ(c[1].in_len, 2);
	CHECK_EQ(vq_pop(&T.dev, &c[2]), 0);
	CHECK_EQ(c[2].in_len, 3);
	CHECK_EQ(vq_pop(&T.dev, &c[0]), -EAGAIN);
	tenv_cleanup(&T);
}

/* 16-bit index wrap: 70000 round trips through an 8-entry ring */
static void test_index_wrap(void)
{
	struct vq_buf b;
	struct vq_chain c;
	uint32_t tok, len, i;

	CHECK_EQ(tenv_init(&T, VQ_SPLIT, 8, F_EVENT_IDX), 0);
	for (i = 0; i < 70000; i++) {
		b = (struct vq_buf){ tdata(i % 8), 64 + i % 100 };
		CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &b, 1, i), 0);
		vq_drv_kick_needed(&T.drv);
		CHECK_EQ(vq_pop(&T.dev, &c), 0);
		CHECK_EQ(c.in_len, 64 + i % 100);
		vq_push(&T.dev, &c, i % 100);
		vq_flush(&T.dev);
		CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), 0);
		CHECK_EQ(tok, i);
		CHECK_EQ(len, i % 100);
	}
	CHECK_EQ(vq_get_base(&T.dev), 70000 & 0xffff);
	tenv_cleanup(&T);
}

static void test_set_get_base(void)
{
	struct vq_chain c;

	CHECK_EQ(tenv_init(&T, VQ_SPLIT, 8, 0), 0);
	vq_set_base(&T.dev, 65534);
	CHECK_EQ(vq_get_base(&T.dev), 65534);
	/* Guest continues at 65534: two buffers, index wraps to 0 */
	tsplit_desc(&T, 3, tdata(0), 10, VRING_DESC_F_WRITE, 0);
	tsplit_desc(&T, 4, tdata(1), 10, VRING_DESC_F_WRITE, 0);
	((struct vring_avail *)T.drva)->ring[65534 & 7] = htole16(3);
	((struct vring_avail *)T.drva)->ring[65535 & 7] = htole16(4);
	((struct vring_avail *)T.drva)->idx = htole16(0);
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	CHECK_EQ(c.id, 3);
	vq_push(&T.dev, &c, 1);
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	CHECK_EQ(c.id, 4);
	vq_push(&T.dev, &c, 2);
	vq_flush(&T.dev);
	CHECK_EQ(le16toh(((struct vring_used *)T.deva)->idx), 0);
	CHECK_EQ(le32toh(((struct vring_used *)T.deva)->ring[7].id), 4);
	CHECK_EQ(vq_get_base(&T.dev), 0);
	tenv_cleanup(&T);
}

/* EVENT_IDX, device deciding whether to interrupt the driver */
static void test_event_idx_device(void)
{
	struct vq_buf b = { tdata(0), 64 };
	struct vq_chain c[4];
	uint32_t tok, len;
	int i;

	CHECK_EQ(tenv_init(&T, VQ_SPLIT, 8, F_EVENT_IDX), 0);
	for (i = 0; i < 4; i++)
		CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &b, 1, (uint32_t)i), 0);
	vq_drv_kick_needed(&T.drv);
	for (i = 0; i < 4; i++)
		CHECK_EQ(vq_pop(&T.dev, &c[i]), 0);
	vq_push(&T.dev, &c[0], 1);
	CHECK(vq_flush(&T.dev));	/* used_event 0 crossed */
	vq_push(&T.dev, &c[1], 1);
	CHECK(!vq_flush(&T.dev));	/* driver has not caught up */
	CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), 0);
	CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), 0);	/* event=2 */
	vq_push(&T.dev, &c[2], 1);
	CHECK(vq_flush(&T.dev));
	vq_drv_disable_cb(&T.drv);
	vq_push(&T.dev, &c[3], 1);
	CHECK(!vq_flush(&T.dev));
	CHECK(vq_drv_enable_cb(&T.drv));	/* pending: recheck says so */
	tenv_cleanup(&T);
}

/* EVENT_IDX, driver deciding whether to kick the device */
static void test_event_idx_driver(void)
{
	struct vq_buf b = { tdata(0), 64 };
	struct vq_chain c;

	CHECK_EQ(tenv_init(&T, VQ_SPLIT, 8, F_EVENT_IDX), 0);
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &b, 1, 1), 0);
	CHECK(vq_drv_kick_needed(&T.drv));	/* avail_event 0 */
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &b, 1, 2), 0);
	CHECK(!vq_drv_kick_needed(&T.drv));	/* device not caught up */
	CHECK(!vq_drv_kick_needed(&T.drv));	/* nothing new */
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	CHECK(!vq_enable_notify(&T.dev));	/* avail_event = 2 */
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &b, 1, 3), 0);
	CHECK(vq_drv_kick_needed(&T.drv));
	tenv_cleanup(&T);
}

static void test_notify_on_empty(void)
{
	struct vq_buf b = { tdata(0), 64 };
	struct vq_chain c;

	CHECK_EQ(tenv_init(&T, VQ_SPLIT, 8, F_EVENT_IDX | F_NOE), 0);
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &b, 1, 1), 0);
	vq_drv_kick_needed(&T.drv);
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	vq_drv_disable_cb(&T.drv);
	vq_push(&T.dev, &c, 0);
	CHECK(vq_flush(&T.dev));	/* ring empty: notify regardless */
	tenv_cleanup(&T);
}

static void test_dirty_log(void)
{
	static uint8_t bitmap[(TM_GPA + TM_SIZE) / 4096 / 8];
	struct gmem_log log = { .base = bitmap, .size = sizeof(bitmap) };
	struct vq_buf b = { tdata(1) - 10, 8192 };	/* 3 pages touched */
	struct vq_chain c;
	uint64_t p = (tdata(1) - 10) / 4096, u = T.deva_gpa / 4096;

	CHECK_EQ(tenv_init(&T, VQ_SPLIT, 8, 0), 0);
	u = T.deva_gpa / 4096;
	vq_set_log(&T.dev, &log, T.deva_gpa);
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &b, 1, 1), 0);
	vq_drv_kick_needed(&T.drv);
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	vq_push(&T.dev, &c, 20);	/* 20 bytes: pages p and p+1 */
	vq_flush(&T.dev);
	CHECK(bitmap[p / 8] & (1u << (p % 8)));
	CHECK(bitmap[(p + 1) / 8] & (1u << ((p + 1) % 8)));
	CHECK(!(bitmap[(p + 2) / 8] & (1u << ((p + 2) % 8))));
	CHECK(bitmap[u / 8] & (1u << (u % 8)));
	tenv_cleanup(&T);
}

/* ---------------- malicious guests: each breaks the queue ---------------- */

static void test_mal_head_out_of_range(void)
{
	CHECK_EQ(mal_setup(0), 0);
	tsplit_avail(&T, 8);
	CHECK(mal_expect("head 8 >= ring size 8"));
}

static void test_mal_next_out_of_range(void)
{
	CHECK_EQ(mal_setup(0), 0);
	tsplit_desc(&T, 0, tdata(0), 10, VRING_DESC_F_NEXT, 200);
	tsplit_avail(&T, 0);
	CHECK(mal_expect("next 200"));
}

static void test_mal_loop(void)
{
	CHECK_EQ(mal_setup(0), 0);
	tsplit_desc(&T, 0, tdata(0), 10, VRING_DESC_F_NEXT, 1);
	tsplit_desc(&T, 1, tdata(1), 10, VRING_DESC_F_NEXT, 0);
	tsplit_avail(&T, 0);
	CHECK(mal_expect("longer than ring"));
}

static void test_mal_self_loop(void)
{
	CHECK_EQ(mal_setup(0), 0);
	tsplit_desc(&T, 5, tdata(0), 10, VRING_DESC_F_NEXT, 5);
	tsplit_avail(&T, 5);
	CHECK(mal_expect("longer than ring"));
}

static void test_mal_indirect_loop(void)
{
	struct vring_desc *t;

	CHECK_EQ(mal_setup(F_INDIRECT), 0);
	t = thost(&T, TM_GPA + TM_INDIR_OFF);
	t[0] = (struct vring_desc){ htole64(tdata(0)), htole32(8),
				    htole16(VRING_DESC_F_NEXT), htole16(1) };
	t[1] = (struct vring_desc){ htole64(tdata(1)), htole32(8),
				    htole16(VRING_DESC_F_NEXT), htole16(0) };
	tsplit_desc(&T, 0, TM_GPA + TM_INDIR_OFF, 32, VRING_DESC_F_INDIRECT, 0);
	tsplit_avail(&T, 0);
	CHECK(mal_expect("longer than table"));
}

static void test_mal_indirect_next_out_of_table(void)
{
	struct vring_desc *t;

	CHECK_EQ(mal_setup(F_INDIRECT), 0);
	t = thost(&T, TM_GPA + TM_INDIR_OFF);
	t[0] = (struct vring_desc){ htole64(tdata(0)), htole32(8),
				    htole16(VRING_DESC_F_NEXT), htole16(2) };
	tsplit_desc(&T, 0, TM_GPA + TM_INDIR_OFF, 32, VRING_DESC_F_INDIRECT, 0);
	tsplit_avail(&T, 0);
	CHECK(mal_expect("next 2 >= table size 2"));
}

static void test_mal_addr_past_end(void)
{
	CHECK_EQ(mal_setup(0), 0);
	tsplit_desc(&T, 0, TM_GPA + TM_SIZE - 10, 11, 0, 0);
	tsplit_avail(&T, 0);
	CHECK(mal_expect("outside guest memory"));
}

static void test_mal_avail_idx_jump(void)
{
	CHECK_EQ(mal_setup(0), 0);
	((struct vring_avail *)T.drva)->idx = htole16(9);
	CHECK(mal_expect("avail idx jumped from 0 to 9"));
}

static void test_mal_too_many_in_flight(void)
{
	struct vq_chain c;
	int i;

	CHECK_EQ(mal_setup(0), 0);
	tsplit_desc(&T, 0, tdata(0), 10, 0, 0);
	/* Same head offered 9 times while nothing is returned */
	for (i = 0; i < 8; i++) {
		tsplit_avail(&T, 0);
		CHECK_EQ(vq_pop(&T.dev, &c), 0);
	}
	tsplit_avail(&T, 0);
	CHECK(mal_expect("more than 8 buffers in flight"));
}

/* The translation hint must not outlive a region removed from the table */
static void test_mal_region_removed(void)
{
	struct vq_buf b = { tdata(0), 64 };
	struct vq_chain c;

	CHECK_EQ(mal_setup(0), 0);
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &b, 1, 1), 0);
	vq_drv_kick_needed(&T.drv);
	CHECK_EQ(vq_pop(&T.dev, &c), 0);	/* hint: second region */
	CHECK_EQ(gmem_remove_region(&T.mem, TM_GPA + TM_HALF, TM_HALF,
				    TM_UVA + TM_HALF), 0);
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &b, 1, 2), 0);
	vq_drv_kick_needed(&T.drv);
	CHECK(mal_expect("outside guest memory"));
}

static void test_mal_reset_recovers(void)
{
	struct vq_chain c;

	CHECK_EQ(mal_setup(0), 0);
	tsplit_avail(&T, 100);
	CHECK_EQ(vq_pop(&T.dev, &c), -EBADMSG);
	CHECK_EQ(T.dev.stats.breaks, 1);
	vq_reset(&T.dev);
	CHECK(!vq_is_broken(&T.dev));
	CHECK_EQ(strlen(vq_broken_reason(&T.dev)), 0);
	memset(T.drva, 0, 64);
	tsplit_desc(&T, 2, tdata(0), 10, 0, 0);
	tsplit_avail(&T, 2);
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	CHECK_EQ(c.id, 2);
	tenv_cleanup(&T);
}

/* The driver side checks what the device returns, too */
static void test_mal_device_bad_used_id(void)
{
	struct vq_buf b = { tdata(0), 64 };
	struct vring_used *u;
	uint32_t tok, len;

	CHECK_EQ(mal_setup(0), 0);
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &b, 1, 1), 0);
	vq_drv_kick_needed(&T.drv);
	u = (struct vring_used *)T.deva;
	u->ring[0].id = htole32(5);	/* not in flight */
	u->idx = htole16(1);
	CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), -EBADMSG);
	CHECK(strstr(vq_drv_broken_reason(&T.drv), "used id 5"));
	tenv_cleanup(&T);
}

/*
 * Regression: after vq_set_base() (a backend restart) the first flush with
 * EVENT_IDX trusted used_event against this batch only. A driver still
 * waiting for an entry the previous backend published without a call
 * (used_event behind the new batch) never got one. Like Linux vhost and
 * DPDK, the first flush after a reset or set_base notifies.
 */
static void test_regress_event_idx_first_flush_after_set_base(void)
{
	struct vring_avail *a;
	struct vq_chain c;

	CHECK_EQ(tenv_init(&T, VQ_SPLIT, 8, F_EVENT_IDX), 0);
	a = (struct vring_avail *)T.drva;
	tsplit_desc(&T, 0, tdata(0), 64, VRING_DESC_F_WRITE, 0);
	a->ring[5] = htole16(0);
	a->idx = htole16(6);
	a->ring[8] = htole16(0);	/* used_event: waiting since entry 0 */
	vq_set_base(&T.dev, 5);
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	vq_push(&T.dev, &c, 1);
	CHECK(vq_flush(&T.dev));
	tenv_cleanup(&T);
}

/*
 * Guest: 15 direct descriptors, then an indirect table of @nind entries,
 * every buffer straddling the region boundary (two iovecs each)
 */
static void spill_cap_chain(uint16_t nind)
{
	uint64_t at = TM_GPA + TM_HALF - 8;
	struct vring_desc *t = thost(&T, TM_GPA + TM_INDIR_OFF);
	uint16_t i;

	for (i = 0; i < 15; i++)
		tsplit_desc(&T, i, at, 16, VRING_DESC_F_NEXT, (uint16_t)(i + 1));
	tsplit_desc(&T, 15, TM_GPA + TM_INDIR_OFF, nind * 16u,
		    VRING_DESC_F_INDIRECT, 0);
	for (i = 0; i < nind; i++) {
		t[i].addr = htole64(at);
		t[i].len = htole32(16);
		t[i].flags = htole16(i + 1 < nind ? VRING_DESC_F_NEXT : 0);
		t[i].next = htole16((uint16_t)(i + 1));
	}
	tsplit_avail(&T, 0);
}

/* A chain of exactly the spill capacity (2 * 16 + 16 iovecs) pops; one
 * iovec more breaks the queue, never writes past the spill area */
static void test_spill_capacity_edge(void)
{
	struct vq_chain c;

	CHECK_EQ(tenv_init(&T, VQ_SPLIT, 16, F_INDIRECT), 0);
	spill_cap_chain(9);			/* 30 + 18 = 48 iovecs */
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	CHECK_EQ(c.nout, 48);
	CHECK_EQ(c.out_len, 24 * 16);
	CHECK_EQ(c.ndesc, 16);
	tenv_cleanup(&T);

	CHECK_EQ(tenv_init(&T, VQ_SPLIT, 16, F_INDIRECT), 0);
	spill_cap_chain(10);			/* 50 iovecs */
	CHECK(mal_expect("more than 48 iovecs"));
}

/*
 * Regression: with a 32768 ring the spill area held 65552 iovecs, more
 * than the chain's 16-bit nout/nin counters: a chain of straddling
 * buffers wrapped nout to a small number while out_len kept the full sum
 * (and later iovecs overwrote earlier ones). Such a chain must break the
 * queue.
 */
static void test_regress_chain_iovec_count_wraps(void)
{
	uint64_t at = TM_GPA + TM_HALF - 8;
	struct vring_desc *t;
	struct vq_chain c;
	uint32_t i;
	int ret;

	CHECK_EQ(tenv_init(&T, VQ_SPLIT, 32768, F_INDIRECT), 0);
	t = thost(&T, TM_GPA + TM_INDIR_OFF);
	for (i = 0; i < 32767; i++)
		tsplit_desc(&T, (uint16_t)i, at, 16, VRING_DESC_F_NEXT,
			    (uint16_t)(i + 1));
	tsplit_desc(&T, 32767, TM_GPA + TM_INDIR_OFF, 32768u * 16,
		    VRING_DESC_F_INDIRECT, 0);
	for (i = 0; i < 32768; i++) {
		t[i].addr = htole64(at);
		t[i].len = htole32(16);
		t[i].flags = htole16(i < 32767 ? VRING_DESC_F_NEXT : 0);
		t[i].next = htole16((uint16_t)(i + 1));
	}
	tsplit_avail(&T, 0);
	ret = vq_pop(&T.dev, &c);
	if (!ret)	/* then the counters must tell the whole chain */
		CHECK_EQ((uint32_t)c.nout * 8, c.out_len);
	CHECK_EQ(ret, -EBADMSG);
	CHECK(strstr(vq_broken_reason(&T.dev), "iovecs") != NULL);
	tenv_cleanup(&T);
}

/* Driver side: a full lap completed in order, then the same buffers
 * re-posted, leaves the descriptor table and avail ring byte for byte as
 * they were (FIFO free list: nothing for the device to miss on) */
static void test_drv_fifo_reuse_rewrites_nothing(void)
{
	static uint8_t desc0[8 * 16], avail0[2 * 8];
	struct vring_avail *a;
	struct vq_chain c;
	uint32_t tok;
	int i, lap;

	CHECK_EQ(tenv_init(&T, VQ_SPLIT, 8, 0), 0);
	a = (struct vring_avail *)T.drva;
	for (lap = 0; lap < 3; lap++) {
		for (i = 0; i < 8; i++) {
			struct vq_buf b = { tdata((unsigned int)i), 76 };

			CHECK_EQ(vq_drv_next_id(&T.drv), i);
			CHECK_EQ(vq_drv_add(&T.drv, &b, 1, NULL, 0,
					    (uint32_t)i), 0);
		}
		vq_drv_kick_needed(&T.drv);
		if (!lap) {
			memcpy(desc0, T.desc, sizeof(desc0));
			memcpy(avail0, a->ring, sizeof(avail0));
		} else {
			CHECK(!memcmp(desc0, T.desc, sizeof(desc0)));
			CHECK(!memcmp(avail0, a->ring, sizeof(avail0)));
		}
		for (i = 0; i < 8; i++) {
			CHECK_EQ(vq_pop(&T.dev, &c), 0);
			vq_push(&T.dev, &c, 0);
		}
		vq_flush(&T.dev);
		for (i = 0; i < 8; i++) {
			CHECK_EQ(vq_drv_get_used(&T.drv, &tok, NULL), 0);
			CHECK_EQ(tok, i);
		}
	}
	tenv_cleanup(&T);
}

/* Out-of-order completions still give every descriptor back exactly once */
static void test_drv_fifo_out_of_order(void)
{
	struct vq_chain c[8];
	uint32_t tok, seen = 0;
	int i;

	CHECK_EQ(tenv_init(&T, VQ_SPLIT, 8, 0), 0);
	for (i = 0; i < 8; i++) {
		struct vq_buf b = { tdata((unsigned int)i), 64 };

		CHECK_EQ(vq_drv_add(&T.drv, &b, 1, NULL, 0, (uint32_t)i), 0);
	}
	vq_drv_kick_needed(&T.drv);
	for (i = 0; i < 8; i++)
		CHECK_EQ(vq_pop(&T.dev, &c[i]), 0);
	for (i = 7; i >= 0; i -= 2)
		vq_push(&T.dev, &c[i], 0);
	vq_flush(&T.dev);
	for (i = 0; i < 4; i++) {
		CHECK_EQ(vq_drv_get_used(&T.drv, &tok, NULL), 0);
		seen |= 1u << tok;
	}
	CHECK_EQ(vq_drv_num_free(&T.drv), 4);
	for (i = 0; i < 4; i++) {	/* the four freed ones, in that order */
		struct vq_buf b = { tdata(0), 64 };

		CHECK_EQ(vq_drv_next_id(&T.drv), 7 - 2 * i);
		CHECK_EQ(vq_drv_add(&T.drv, &b, 1, NULL, 0, 100), 0);
	}
	CHECK_EQ(vq_drv_add(&T.drv, &(struct vq_buf){ tdata(0), 1 }, 1, NULL,
			    0, 101), -ENOSPC);
	CHECK_EQ(seen, 0xaa);
	tenv_cleanup(&T);
}

/* Burst collection: one used idx read, tokens in order, at most @max, one
 * used_event update for the burst (EVENT_IDX, notifications enabled) */
static void test_drv_get_used_burst(void)
{
	uint32_t tok[8], len[8];
	struct vq_chain c;
	uint16_t *used_event;
	int i;

	CHECK_EQ(tenv_init(&T, VQ_SPLIT, 8, F_EVENT_IDX), 0);
	used_event = &((struct vring_avail *)T.drva)->ring[8];
	CHECK_EQ(vq_drv_get_used_burst(&T.drv, tok, len, 8), 0);
	for (i = 0; i < 7; i++) {
		struct vq_buf b = { tdata((unsigned int)i), 64 };

		CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &b, 1, 10u + (uint32_t)i), 0);
	}
	vq_drv_kick_needed(&T.drv);
	for (i = 0; i < 7; i++) {
		CHECK_EQ(vq_pop(&T.dev, &c), 0);
		vq_push(&T.dev, &c, (uint32_t)i + 1);
	}
	vq_flush(&T.dev);
	CHECK_EQ(vq_drv_get_used_burst(&T.drv, tok, len, 5), 5);
	for (i = 0; i < 5; i++) {
		CHECK_EQ(tok[i], 10 + i);
		CHECK_EQ(len[i], i + 1);
	}
	CHECK_EQ(le16toh(*used_event), 5);
	CHECK_EQ(vq_drv_get_used_burst(&T.drv, NULL, NULL, 8), 2);
	CHECK_EQ(le16toh(*used_event), 7);
	CHECK_EQ(vq_drv_get_used_burst(&T.drv, tok, NULL, 8), 0);
	CHECK_EQ(vq_drv_num_free(&T.drv), 8);
	CHECK_EQ(T.drv.stats.used, 7);
	/* Notifications off: used_event is left alone */
	vq_drv_disable_cb(&T.drv);
	i = le16toh(*used_event);
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &(struct vq_buf){ tdata(0), 64 },
			    1, 1), 0);
	vq_drv_kick_needed(&T.drv);
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	vq_push(&T.dev, &c, 0);
	vq_flush(&T.dev);
	CHECK_EQ(vq_drv_get_used_burst(&T.drv, tok, NULL, 8), 1);
	CHECK_EQ(le16toh(*used_event), i);
	tenv_cleanup(&T);
}

/* A bad id in the middle of a burst: the good ones first, then broken */
static void test_drv_get_used_burst_bad_id(void)
{
	struct vring_used *u;
	uint32_t tok[4];
	int i;

	CHECK_EQ(tenv_init(&T, VQ_SPLIT, 4, 0), 0);
	u = (struct vring_used *)T.deva;
	for (i = 0; i < 3; i++)
		CHECK_EQ(vq_drv_add(&T.drv, &(struct vq_buf){ tdata(0), 8 }, 1,
				    NULL, 0, (uint32_t)i), 0);
	vq_drv_kick_needed(&T.drv);
	u->ring[0].id = htole32(0);
	u->ring[1].id = htole32(1);
	u->ring[2].id = htole32(0);	/* already completed */
	u->idx = htole16(3);
	CHECK_EQ(vq_drv_get_used_burst(&T.drv, tok, NULL, 4), 2);
	CHECK(vq_drv_is_broken(&T.drv));
	CHECK_EQ(vq_drv_get_used_burst(&T.drv, tok, NULL, 4), -EBADMSG);
	tenv_cleanup(&T);
}

int main(void)
{
	RUN(test_init_sizes);
	RUN(test_set_addr_alignment);
	RUN(test_indirect);
	RUN(test_indirect_across_regions);
	RUN(test_indirect_misaligned_table);
	RUN(test_spill_and_enospc);
	RUN(test_discard);
	RUN(test_index_wrap);
	RUN(test_set_get_base);
	RUN(test_event_idx_device);
	RUN(test_event_idx_driver);
	RUN(test_regress_event_idx_first_flush_after_set_base);
	RUN(test_spill_capacity_edge);
	RUN(test_regress_chain_iovec_count_wraps);
	RUN(test_notify_on_empty);
	RUN(test_dirty_log);
	RUN(test_mal_head_out_of_range);
	RUN(test_mal_next_out_of_range);
	RUN(test_mal_loop);
	RUN(test_mal_self_loop);
	RUN(test_mal_indirect_loop);
	RUN(test_mal_indirect_next_out_of_table);
	RUN(test_mal_addr_past_end);
	RUN(test_mal_avail_idx_jump);
	RUN(test_mal_too_many_in_flight);
	RUN(test_mal_region_removed);
	RUN(test_mal_reset_recovers);
	RUN(test_mal_device_bad_used_id);
	RUN(test_drv_fifo_reuse_rewrites_nothing);
	RUN(test_drv_fifo_out_of_order);
	RUN(test_drv_get_used_burst);
	RUN(test_drv_get_used_burst_bad_id);
	vring_common_run();
	return test_exit();
}
