// SPDX-License-Identifier: MIT
/*
 * test_vring_packed.c - packed ring: device side against our driver side
 * on fake guest memory, wrap counters, buffer ids (captured from the right
 * descriptor), event suppression, in-order completion, and every malicious
 * guest case as its own test.
 * The scenarios both layouts share live in test_vring_common.h (run by
 * vring_common_run()); this file keeps the layout-specific ones.
 */
#define TEST_LAYOUT	VQ_PACKED
#include "test_vring_common.h"

static struct vring_packed_desc *pdesc(uint16_t i)
{
	return (struct vring_packed_desc *)T.desc + i;
}

static struct vring_packed_desc_event *pdriver(void)
{
	return (struct vring_packed_desc_event *)T.drva;
}

static struct vring_packed_desc_event *pdevice(void)
{
	return (struct vring_packed_desc_event *)T.deva;
}

static void test_init_sizes(void)
{
	struct vq q;
	struct vq_drv qd;
	uint64_t d, a, u;

	CHECK_EQ(vq_init(&q, VQ_PACKED, 0, 0), -EINVAL);
	CHECK_EQ(vq_init(&q, VQ_PACKED, 32769, 0), -EINVAL);
	CHECK_EQ(vq_init(&q, VQ_PACKED, 3, 0), 0);
	vq_cleanup(&q);
	CHECK_EQ(vq_drv_init(&qd, VQ_PACKED, 32768, 0), 0);
	vq_drv_cleanup(&qd);
	vq_ring_sizes(VQ_PACKED, 100, &d, &a, &u);
	CHECK_EQ(d, 1600);
	CHECK_EQ(a, 4);
	CHECK_EQ(u, 4);
}

static void test_set_addr_alignment(void)
{
	static uint8_t area[8192] __attribute__((aligned(64)));
	struct vq q;

	CHECK_EQ(vq_init(&q, VQ_PACKED, 16, 0), 0);
	CHECK_EQ(vq_set_addr(&q, area, area + 1026, area + 2048), -EINVAL);
	CHECK_EQ(vq_set_addr(&q, area, area + 1024, area + 2050), -EINVAL);
	CHECK_EQ(vq_set_addr(&q, area + 4, area + 1024, area + 2048), -EINVAL);
	CHECK_EQ(vq_set_addr(&q, area + 16, area + 1028, area + 2052), 0);
	vq_cleanup(&q);
}

/* Ids: the last descriptor's for a direct chain, the ring descriptor's
 * for an indirect one (table ids are reserved and must be ignored) */
static void test_buffer_ids(void)
{
	struct vring_packed_desc *t;
	struct vq_chain c;
	uint16_t f;

	CHECK_EQ(tenv_init(&T, VQ_PACKED, 8, F_INDIRECT), 0);
	tpacked_desc(&T, 1, tdata(1), 8, 0x1111, VRING_DESC_F_NEXT, 1);
	tpacked_desc(&T, 2, tdata(2), 8, 0x2222, 0, 1);
	tpacked_desc(&T, 0, tdata(0), 8, 0x0999, VRING_DESC_F_NEXT, 1);
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	CHECK_EQ(c.id, 0x2222);
	CHECK_EQ(c.ndesc, 3);

	t = thost(&T, TM_GPA + TM_INDIR_OFF);
	t[0] = (struct vring_packed_desc){ htole64(tdata(4)), htole32(8),
					   htole16(0x5555), 0 };
	t[1] = (struct vring_packed_desc){ htole64(tdata(5)), htole32(8),
					   htole16(0x6666),
					   htole16(VRING_DESC_F_WRITE) };
	tpacked_desc(&T, 3, TM_GPA + TM_INDIR_OFF, 32, 0x4321,
		     VRING_DESC_F_INDIRECT, 1);
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	CHECK_EQ(c.id, 0x4321);
	CHECK_EQ(c.ndesc, 1);
	CHECK_EQ(c.nout, 1);
	CHECK_EQ(c.nin, 1);
	/* The guest rewrites the descriptor: our captured id must win */
	pdesc(3)->id = htole16(0x7777);
	vq_push(&T.dev, &c, 8);
	CHECK_EQ(vq_pop(&T.dev, &c), -EAGAIN);
	vq_flush(&T.dev);
	/* Only the indirect chain was pushed: used slot 0 names it */
	CHECK_EQ(le16toh(pdesc(0)->id), 0x4321);
	f = le16toh(pdesc(0)->flags);
	CHECK_EQ(f & (PF_AVAIL | PF_USED), PF_AVAIL | PF_USED);
	tenv_cleanup(&T);
}

/* Driver-added indirect chains with distinct ids: each comes back whole */
static void test_indirect_distinct_ids(void)
{
	struct vq_buf in[4];
	struct vq_chain c[3];
	uint32_t tok, len;
	int i, k;

	CHECK_EQ(tenv_init(&T, VQ_PACKED, 8, F_INDIRECT), 0);
	for (k = 0; k < 3; k++) {
		for (i = 0; i < 4; i++)
			in[i] = (struct vq_buf){ tdata(k * 4 + i), 100 };
		CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, in, 4, 100u + k), 0);
	}
	CHECK_EQ(vq_drv_num_free(&T.drv), 5);
	vq_drv_kick_needed(&T.drv);
	for (k = 0; k < 3; k++) {
		CHECK_EQ(vq_pop(&T.dev, &c[k]), 0);
		CHECK_EQ(c[k].nin, 4);
		CHECK(c[k].iov[0].iov_base == thost(&T, tdata(k * 4)));
	}
	CHECK(c[0].id != c[1].id && c[1].id != c[2].id && c[0].id != c[2].id);
	/* Complete out of order: 2, 0, 1 */
	vq_push(&T.dev, &c[2], 2);
	vq_push(&T.dev, &c[0], 0);
	vq_push(&T.dev, &c[1], 1);
	vq_flush(&T.dev);
	for (k = 0; k < 3; k++) {
		uint32_t want = k == 0 ? 2 : k == 1 ? 0 : 1;

		CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), 0);
		CHECK_EQ(tok, 100 + want);
		CHECK_EQ(len, want);
	}
	CHECK_EQ(vq_drv_num_free(&T.drv), 8);
	tenv_cleanup(&T);
}

/* Regression (found by the corpus replay under UBSan): an indirect table
 * at an odd guest address is legal and must not be read misaligned */
static void test_indirect_misaligned_table(void)
{
	uint64_t tbl = TM_GPA + TM_INDIR_OFF + 5;
	struct vring_packed_desc d[2];
	struct vq_chain c;

	CHECK_EQ(tenv_init(&T, VQ_PACKED, 8, F_INDIRECT), 0);
	d[0] = (struct vring_packed_desc){ htole64(tdata(1)), htole32(10),
					   htole16(0x77), 0 };
	d[1] = (struct vring_packed_desc){ htole64(tdata(2)), htole32(20),
					   htole16(0x88),
					   htole16(VRING_DESC_F_WRITE) };
	memcpy(thost(&T, tbl), d, sizeof(d));
	tpacked_desc(&T, 0, tbl, 32, 0x33, VRING_DESC_F_INDIRECT, 1);
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	CHECK_EQ(c.id, 0x33);
	CHECK_EQ(c.nout, 1);
	CHECK_EQ(c.nin, 1);
	CHECK_EQ(c.gpa[1], tdata(2));
	tenv_cleanup(&T);
}

static void test_spill(void)
{
	struct vq_buf in[12];
	struct vq_chain c;
	int i;

	CHECK_EQ(tenv_init(&T, VQ_PACKED, 12, 0), 0);
	for (i = 0; i < 12; i++)
		in[i] = (struct vq_buf){ tdata(11 - i), (uint32_t)(10 + i) };
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, in, 12, 9), 0);
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	CHECK(c.iov != c.iov_inline);
	CHECK_EQ(c.nin, 12);
	CHECK_EQ(T.dev.stats.spills, 1);
	for (i = 0; i < 12; i++) {
		CHECK(c.iov[i].iov_base == thost(&T, tdata(11 - i)));
		CHECK_EQ(c.iov[i].iov_len, 10 + i);
		CHECK_EQ(c.gpa[i], tdata(11 - i));
	}
	tenv_cleanup(&T);
}

static void test_discard(void)
{
	struct vq_buf b[3] = { { tdata(0), 1 }, { tdata(1), 2 }, { tdata(2), 3 } };
	struct vq_chain c[3];
	uint32_t tok, len;
	int i;

	CHECK_EQ(tenv_init(&T, VQ_PACKED, 3, 0), 0);
	for (i = 0; i < 3; i++)
		CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &b[i], 1, (uint32_t)i), 0);
	for (i = 0; i < 3; i++)
		CHECK_EQ(vq_pop(&T.dev, &c[i]), 0);
	CHECK(!T.dev.avail_wrap);
	vq_discard(&T.dev, &c[1], 2);
	CHECK(T.dev.avail_wrap);
	CHECK_EQ(T.dev.last_avail, 1);
	CHECK_EQ(vq_pop(&T.dev, &c[1]), 0);
	CHECK_EQ(c[1].in_len, 2);
	vq_push(&T.dev, &c[0], 1);
	vq_push(&T.dev, &c[1], 2);
	vq_flush(&T.dev);
	CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), 0);
	CHECK_EQ(tok, 0);
	CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), 0);
	CHECK_EQ(tok, 1);
	CHECK_EQ(len, 2);
	tenv_cleanup(&T);
}

/* Wrap counters: many laps of an odd-sized ring with 1-3 slot chains */
static void test_wrap_counters(void)
{
	struct vq_buf b[3];
	struct vq_chain c;
	uint32_t tok, len, i, laps = 0;
	bool w = true;

	CHECK_EQ(tenv_init(&T, VQ_PACKED, 5, F_EVENT_IDX), 0);
	for (i = 0; i < 50000; i++) {
		unsigned int n = 1 + i % 3;

		b[0] = (struct vq_buf){ tdata(0), 10 };
		b[1] = (struct vq_buf){ tdata(1), 20 };
		b[2] = (struct vq_buf){ tdata(2), 30 };
		CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, b, n, i), 0);
		vq_drv_kick_needed(&T.drv);
		CHECK_EQ(vq_pop(&T.dev, &c), 0);
		CHECK_EQ(c.ndesc, n);
		CHECK_EQ(c.in_len, n == 1 ? 10 : n == 2 ? 30 : 60);
		vq_push(&T.dev, &c, i & 0xff);
		vq_flush(&T.dev);
		CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), 0);
		CHECK_EQ(tok, i);
		CHECK_EQ(len, i & 0xff);
		if (T.dev.used_wrap != w) {
			w = T.dev.used_wrap;
			laps++;
		}
		CHECK_EQ(T.dev.used_wrap, T.drv.drv_used_wrap);
		CHECK_EQ(T.dev.avail_wrap, T.drv.drv_avail_wrap);
	}
	CHECK(laps > 10000);
	tenv_cleanup(&T);
}

static void test_set_get_base(void)
{
	struct vq_chain c;

	CHECK_EQ(tenv_init(&T, VQ_PACKED, 8, 0), 0);
	CHECK_EQ(vq_get_base(&T.dev), 0x80008000u);
	vq_set_base(&T.dev, 6);			/* QEMU form: wrap 0 */
	CHECK(!vq_is_broken(&T.dev));
	CHECK_EQ(vq_get_base(&T.dev), 0x00060006u);
	vq_set_base(&T.dev, 0x80038005u);
	CHECK_EQ(T.dev.last_avail, 5);
	CHECK(T.dev.avail_wrap);
	CHECK_EQ(T.dev.used_idx, 3);
	CHECK(T.dev.used_wrap);
	CHECK_EQ(vq_get_base(&T.dev), 0x80038005u);
	vq_set_base(&T.dev, 0x8007);		/* idx 7, wrap 1 */
	tpacked_desc(&T, 7, tdata(0), 10, 3, VRING_DESC_F_NEXT, 1);
	tpacked_desc(&T, 0, tdata(1), 10, 4, 0, 0);	/* next lap */
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	CHECK_EQ(c.id, 4);
	CHECK_EQ(vq_get_base(&T.dev) & 0xffff, 1);	/* idx 1, wrap 0 */
	vq_set_base(&T.dev, 9);
	CHECK(vq_is_broken(&T.dev));
	tenv_cleanup(&T);
}

/* Device decides on interrupts from the driver event suppression */
static void test_event_idx_device(void)
{
	struct vq_buf b = { tdata(0), 64 };
	struct vq_chain c[4];
	uint32_t tok, len;
	int i;

	CHECK_EQ(tenv_init(&T, VQ_PACKED, 4, F_EVENT_IDX), 0);
	for (i = 0; i < 4; i++)
		CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &b, 1, (uint32_t)i), 0);
	for (i = 0; i < 4; i++)
		CHECK_EQ(vq_pop(&T.dev, &c[i]), 0);
	CHECK(!vq_drv_enable_cb(&T.drv));	/* DESC mode, off 0 wrap 1 */
	CHECK_EQ(le16toh(pdriver()->flags), VRING_PACKED_EVENT_FLAG_DESC);
	vq_push(&T.dev, &c[0], 1);
	CHECK(vq_flush(&T.dev));		/* slot 0 used */
	vq_push(&T.dev, &c[1], 1);
	CHECK(!vq_flush(&T.dev));		/* slot 1: not asked */
	CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), 0);
	CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), 0);
	CHECK(!vq_drv_enable_cb(&T.drv));	/* off 2 */
	vq_push(&T.dev, &c[2], 1);
	vq_push(&T.dev, &c[3], 1);
	CHECK(vq_flush(&T.dev));		/* slots 2-3 cover off 2 */
	CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), 0);
	CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), 0);
	/* Next lap: driver asks for slot 0 with wrap 0 */
	CHECK(!vq_drv_enable_cb(&T.drv));
	CHECK_EQ(le16toh(pdriver()->off_wrap), 0);
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &b, 1, 9), 0);
	CHECK_EQ(vq_pop(&T.dev, &c[0]), 0);
	vq_push(&T.dev, &c[0], 1);
	CHECK(vq_flush(&T.dev));
	vq_drv_disable_cb(&T.drv);
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &b, 1, 10), 0);
	CHECK_EQ(vq_pop(&T.dev, &c[0]), 0);
	vq_push(&T.dev, &c[0], 1);
	CHECK(!vq_flush(&T.dev));
	CHECK(vq_drv_enable_cb(&T.drv));	/* pending */
	tenv_cleanup(&T);
}

/*
 * Regression: after vq_set_base() (a backend restart) the first packed
 * flush trusted the driver's event offset against this batch only; a
 * driver still waiting for a slot the previous backend used without a call
 * never got one. As for split rings, the first flush after a reset or
 * set_base notifies.
 */
static void test_regress_event_idx_first_flush_after_set_base(void)
{
	struct vq_buf b = { tdata(0), 64 };
	struct vq_chain c[3];
	int i;

	CHECK_EQ(tenv_init(&T, VQ_PACKED, 4, F_EVENT_IDX), 0);
	for (i = 0; i < 3; i++)
		CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &b, 1, (uint32_t)i), 0);
	CHECK(!vq_drv_enable_cb(&T.drv));	/* waits for slot 0 */
	for (i = 0; i < 2; i++)
		CHECK_EQ(vq_pop(&T.dev, &c[i]), 0);
	vq_push(&T.dev, &c[0], 1);
	CHECK(vq_flush(&T.dev));		/* slot 0: asked for */
	vq_push(&T.dev, &c[1], 1);
	CHECK(!vq_flush(&T.dev));		/* slot 1: not asked */
	vq_set_base(&T.dev, vq_get_base(&T.dev));	/* backend restart */
	CHECK_EQ(vq_pop(&T.dev, &c[2]), 0);
	vq_push(&T.dev, &c[2], 1);
	CHECK(vq_flush(&T.dev));		/* first after restart */
	tenv_cleanup(&T);
}

/* Driver decides on kicks from the device event suppression */
static void test_event_idx_driver(void)
{
	struct vq_buf b = { tdata(0), 64 };
	struct vq_chain c;

	CHECK_EQ(tenv_init(&T, VQ_PACKED, 4, F_EVENT_IDX), 0);
	CHECK(!vq_enable_notify(&T.dev));	/* DESC, off 0 wrap 1 */
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &b, 1, 1), 0);
	CHECK(vq_drv_kick_needed(&T.drv));
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &b, 1, 2), 0);
	CHECK(!vq_drv_kick_needed(&T.drv));
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	CHECK(!vq_enable_notify(&T.dev));	/* off 2 */
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &b, 1, 3), 0);
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &b, 1, 4), 0);
	CHECK(vq_drv_kick_needed(&T.drv));	/* 2 and 3 added */
	vq_disable_notify(&T.dev);
	CHECK_EQ(le16toh(pdevice()->flags), VRING_PACKED_EVENT_FLAG_DISABLE);
	tenv_cleanup(&T);
}

/* IN_ORDER: a device may write one used descriptor for a whole batch */
static void test_in_order_collapsed(void)
{
	struct vq_buf b[2] = { { tdata(0), 64 }, { tdata(1), 64 } };
	uint32_t tok, len;
	int i;

	CHECK_EQ(tenv_init(&T, VQ_PACKED, 8, F_IN_ORDER), 0);
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, b, 1, 10), 0);	/* slot 0 */
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, b, 2, 11), 0);	/* 1-2 */
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, b, 1, 12), 0);	/* 3 */
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, b, 1, 13), 0);	/* 4 */
	/* Device: one used descriptor at slot 0 naming the 3rd buffer */
	pdesc(0)->id = htole16(3);
	pdesc(0)->len = htole32(500);
	pdesc(0)->flags = htole16(PF_AVAIL | PF_USED);
	for (i = 0; i < 3; i++) {
		CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), 0);
		CHECK_EQ(tok, 10u + i);
		CHECK_EQ(len, i == 2 ? 500 : 0);
	}
	CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), -EAGAIN);
	CHECK_EQ(vq_drv_num_free(&T.drv), 7);
	CHECK_EQ(T.drv.drv_last_used, 4);
	tenv_cleanup(&T);
}

/* IN_ORDER against our own device: completions one by one, in order */
static void test_in_order_device(void)
{
	struct vq_buf b = { tdata(0), 64 };
	struct vq_chain c[3];
	uint32_t tok, len, i;

	CHECK_EQ(tenv_init(&T, VQ_PACKED, 4, F_IN_ORDER), 0);
	for (i = 0; i < 3; i++)
		CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &b, 1, i), 0);
	for (i = 0; i < 3; i++) {
		CHECK_EQ(vq_pop(&T.dev, &c[i]), 0);
		vq_push(&T.dev, &c[i], i + 1);
	}
	vq_flush(&T.dev);
	for (i = 0; i < 3; i++) {
		CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), 0);
		CHECK_EQ(tok, i);
		CHECK_EQ(len, i + 1);
	}
	tenv_cleanup(&T);
}

/* IN_ORDER, all lengths 0: our device writes one used descriptor */
static void test_in_order_collapse_device(void)
{
	struct vq_buf b[2] = { { tdata(0), 64 }, { tdata(1), 64 } };
	struct vq_chain c[3];
	uint32_t tok, len, i;

	CHECK_EQ(tenv_init(&T, VQ_PACKED, 6, F_IN_ORDER), 0);
	for (i = 0; i < 4; i++) {	/* to slot 4: the batch crosses the end */
		CHECK_EQ(vq_drv_add(&T.drv, b, 1, NULL, 0, 100), 0);
		CHECK_EQ(vq_pop(&T.dev, &c[0]), 0);
		vq_push(&T.dev, &c[0], 0);
		vq_flush(&T.dev);
		CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), 0);
		CHECK_EQ(tok, 100);
	}
	for (i = 0; i < 3; i++)
		CHECK_EQ(vq_drv_add(&T.drv, b, 1 + (i == 1), NULL, 0, i), 0);
	for (i = 0; i < 3; i++)
		CHECK_EQ(vq_pop(&T.dev, &c[i]), 0);
	for (i = 0; i < 3; i++)
		vq_push(&T.dev, &c[i], 0);
	vq_flush(&T.dev);
	CHECK_EQ(T.dev.used_idx, 2);			/* 4 + 1 + 2 + 1 - 6 */
	CHECK(!T.dev.used_wrap);
	CHECK_EQ(le16toh(pdesc(4)->id), c[2].id);	/* the last buffer */
	CHECK_EQ(le16toh(pdesc(5)->flags) & PF_USED, 0);	/* untouched */
	for (i = 0; i < 3; i++) {
		CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), 0);
		CHECK_EQ(tok, i);
		CHECK_EQ(len, 0);
	}
	CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), -EAGAIN);
	CHECK_EQ(vq_drv_num_free(&T.drv), 6);
	/* A non-zero length anywhere: one used descriptor per buffer */
	CHECK_EQ(vq_drv_add(&T.drv, b, 1, NULL, 0, 7), 0);
	CHECK_EQ(vq_drv_add(&T.drv, b, 1, NULL, 0, 8), 0);
	CHECK_EQ(vq_pop(&T.dev, &c[0]), 0);
	CHECK_EQ(vq_pop(&T.dev, &c[1]), 0);
	vq_push(&T.dev, &c[0], 0);
	vq_push(&T.dev, &c[1], 5);
	vq_flush(&T.dev);
	CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), 0);
	CHECK_EQ(tok, 7);
	CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), 0);
	CHECK_EQ(tok, 8);
	CHECK_EQ(len, 5);
	tenv_cleanup(&T);
}

/* Dirty log: written bytes of the buffer and the used descriptor slot */
static void test_dirty_log(void)
{
	static uint8_t bitmap[(TM_GPA + TM_SIZE) / 4096 / 8];
	struct gmem_log log = { .base = bitmap, .size = sizeof(bitmap) };
	struct vq_buf b[2] = { { tdata(3), 100 }, { tdata(5), 4096 } };
	uint64_t p3 = tdata(3) / 4096, p5 = tdata(5) / 4096;
	uint64_t d = (T.desc_gpa + 16) / 4096;
	struct vq_chain c;

	CHECK_EQ(tenv_init(&T, VQ_PACKED, 8, 0), 0);
	d = (T.desc_gpa + 16) / 4096;
	vq_set_log(&T.dev, &log, T.desc_gpa);
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, b, 1, 1), 0);
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, b, 2, 2), 0);
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	vq_push(&T.dev, &c, 0);		/* nothing written */
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	vq_flush(&T.dev);
	CHECK(!(bitmap[p3 / 8] & (1u << (p3 % 8))));
	CHECK(bitmap[d / 8] & (1u << (d % 8)));
	vq_push(&T.dev, &c, 101);	/* into the second buffer too */
	vq_flush(&T.dev);
	CHECK(bitmap[p3 / 8] & (1u << (p3 % 8)));
	CHECK(bitmap[p5 / 8] & (1u << (p5 % 8)));
	tenv_cleanup(&T);
}

/* ---------------- malicious guests ---------------- */

static void test_mal_chain_longer_than_ring(void)
{
	uint16_t i;

	CHECK_EQ(tenv_init(&T, VQ_PACKED, 4, 0), 0);
	for (i = 0; i < 4; i++)
		tpacked_desc(&T, i, tdata(i), 8, 0, VRING_DESC_F_NEXT, 1);
	CHECK(mal_expect("longer than ring 4"));
}

static void test_mal_chain_desc_not_avail(void)
{
	CHECK_EQ(tenv_init(&T, VQ_PACKED, 4, 0), 0);
	tpacked_desc(&T, 0, tdata(0), 8, 0, VRING_DESC_F_NEXT, 1);
	tpacked_desc(&T, 1, tdata(1), 8, 0, 0, 0);	/* wrong wrap */
	CHECK(mal_expect("not available"));
}

static void test_mal_chain_wraps_without_flip(void)
{
	CHECK_EQ(tenv_init(&T, VQ_PACKED, 4, 0), 0);
	vq_set_base(&T.dev, 0x8003);
	tpacked_desc(&T, 3, tdata(0), 8, 0, VRING_DESC_F_NEXT, 1);
	tpacked_desc(&T, 0, tdata(1), 8, 0, 0, 1);	/* should be wrap 0 */
	CHECK(mal_expect("descriptor 0 of chain at 3 not available"));
}

/* Guest marks slots available again before they were used */
static void test_mal_too_many_in_flight(void)
{
	struct vq_chain c;
	uint16_t i;

	CHECK_EQ(tenv_init(&T, VQ_PACKED, 2, 0), 0);
	tpacked_desc(&T, 0, tdata(0), 8, 0, 0, 1);
	tpacked_desc(&T, 1, tdata(1), 8, 1, 0, 1);
	for (i = 0; i < 2; i++)
		CHECK_EQ(vq_pop(&T.dev, &c), 0);
	tpacked_desc(&T, 0, tdata(0), 8, 0, 0, 0);	/* next lap */
	CHECK(mal_expect("more than 2 buffers in flight"));
}

static void test_mal_device_bad_used_id(void)
{
	struct vq_buf b = { tdata(0), 64 };
	uint32_t tok, len;

	CHECK_EQ(tenv_init(&T, VQ_PACKED, 8, 0), 0);
	CHECK_EQ(vq_drv_add(&T.drv, NULL, 0, &b, 1, 1), 0);
	pdesc(0)->id = htole16(6);
	pdesc(0)->flags = htole16(PF_AVAIL | PF_USED);
	CHECK_EQ(vq_drv_get_used(&T.drv, &tok, &len), -EBADMSG);
	CHECK(strstr(vq_drv_broken_reason(&T.drv), "used id 6"));
	tenv_cleanup(&T);
}

static void test_mal_reset_recovers(void)
{
	struct vq_chain c;

	CHECK_EQ(tenv_init(&T, VQ_PACKED, 8, 0), 0);
	tpacked_desc(&T, 0, 0x10, 8, 1, 0, 1);
	CHECK_EQ(vq_pop(&T.dev, &c), -EBADMSG);
	vq_reset(&T.dev);
	CHECK(!vq_is_broken(&T.dev));
	tpacked_desc(&T, 0, tdata(0), 8, 42, 0, 1);
	CHECK_EQ(vq_pop(&T.dev, &c), 0);
	CHECK_EQ(c.id, 42);
	tenv_cleanup(&T);
}

/* Guest: slots 0..num-1 as one chain of num descriptors for wrap @wrap */
static void regress_full_chain(uint16_t num, int wrap)
{
	uint16_t i;

	for (i = 0; i < num; i++)
		tpacked_desc(&T, i, tdata(i), 8, 9,
			     i + 1 < num ? VRING_DESC_F_NEXT : 0, wrap);
}

/*
 * Regression: a guest that re-marks slots available pops more than one lap
 * of slots before a flush; the IN_ORDER collapsed used descriptor advanced
 * used_idx by the whole sum (> num) and left it outside the ring: the next
 * flush wrote past the descriptor ring.
 */
static void test_regress_packed_collapse_over_one_lap(void)
{
	struct vq_chain c[3];
	int i;

	CHECK_EQ(tenv_init(&T, VQ_PACKED, 4, F_IN_ORDER), 0);
	for (i = 0; i < 3; i++) {
		regress_full_chain(4, !(i & 1));
		CHECK_EQ(vq_pop(&T.dev, &c[i]), 0);
		CHECK_EQ(c[i].ndesc, 4);
	}
	for (i = 0; i < 3; i++)
		vq_push(&T.dev, &c[i], 0);
	vq_flush(&T.dev);
	CHECK(T.dev.used_idx < T.dev.num);
	CHECK_EQ(T.dev.used_idx, 0);
	CHECK(!T.dev.used_wrap);	/* three laps from wrap 1 */
	CHECK(!vq_is_broken(&T.dev));
	tenv_cleanup(&T);
}

/*
 * Regression: discarding chains that took more than one lap of slots moved
 * last_avail below 0 (uint16_t underflow) and the next pop read a
 * descriptor far outside the ring.
 */
static void test_regress_packed_discard_over_one_lap(void)
{
	struct vq_chain c[3];
	int i;

	CHECK_EQ(tenv_init(&T, VQ_PACKED, 4, 0), 0);
	vq_set_base(&T.dev, 1 | 0x8000);	/* start mid-ring, wrap 1 */
	for (i = 0; i < 3; i++) {
		int w = !(i & 1);	/* the wrap of slots 1..3 */
		uint16_t k;

		for (k = 0; k < 4; k++)	/* chain of 4 from slot 1 */
			tpacked_desc(&T, (uint16_t)((1 + k) % 4), tdata(k), 8,
				     9, k < 3 ? VRING_DESC_F_NEXT : 0,
				     k < 3 ? w : !w);
		CHECK_EQ(vq_pop(&T.dev, &c[i]), 0);
		CHECK_EQ(c[i].ndesc, 4);
		CHECK_EQ(T.dev.last_avail, 1);
	}
	CHECK(!T.dev.avail_wrap);	/* three laps from wrap 1 */
	vq_discard(&T.dev, c, 3);
	CHECK_EQ(T.dev.last_avail, 1);
	CHECK(T.dev.avail_wrap);
	vq_discard(&T.dev, c, 0);
	CHECK_EQ(T.dev.last_avail, 1);
	tenv_cleanup(&T);
}

int main(void)
{
	RUN(test_init_sizes);
	RUN(test_set_addr_alignment);
	RUN(test_buffer_ids);
	RUN(test_indirect_distinct_ids);
	RUN(test_indirect_misaligned_table);
	RUN(test_spill);
	RUN(test_discard);
	RUN(test_wrap_counters);
	RUN(test_set_get_base);
	RUN(test_event_idx_device);
	RUN(test_event_idx_driver);
	RUN(test_regress_event_idx_first_flush_after_set_base);
	RUN(test_in_order_collapsed);
	RUN(test_in_order_device);
	RUN(test_in_order_collapse_device);
	RUN(test_dirty_log);
	RUN(test_mal_chain_longer_than_ring);
	RUN(test_mal_chain_desc_not_avail);
	RUN(test_mal_chain_wraps_without_flip);
	RUN(test_mal_too_many_in_flight);
	RUN(test_mal_device_bad_used_id);
	RUN(test_mal_reset_recovers);
	RUN(test_regress_packed_collapse_over_one_lap);
	RUN(test_regress_packed_discard_over_one_lap);
	vring_common_run();
	return test_exit();
}
