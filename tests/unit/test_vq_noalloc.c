// SPDX-License-Identifier: MIT
/*
 * test_vq_noalloc.c - proves the per-packet ring path never allocates:
 * this binary interposes malloc/calloc/realloc/free/aligned_alloc/
 * posix_memalign (forwarding to glibc's __libc_* entry points) and counts
 * calls while a flag is set; a million chains per layout, steady state,
 * device pop/push/flush and driver add/kick/collect, must count zero.
 *
 * ASan/UBSan builds (-DVNET_SANITIZED) intercept the allocator themselves,
 * so there the counting cases skip with that reason.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"
#include "vq_testutil.h"

#ifndef VNET_SANITIZED
#include "alloc_count.h"
#endif

#ifndef VNET_SANITIZED
static struct tenv T;

/*
 * @chains chains through both ends; batches of up to 32, chains of
 * 1, 2 or 19 pieces (19: the spill path; indirect when negotiated).
 */
static int churn(unsigned long chains)
{
	static struct vq_chain c[32];
	struct vq_buf b[19];
	unsigned long done = 0;
	uint32_t tok, len;
	unsigned int i, n, k;

	for (i = 0; i < 19; i++)
		b[i] = (struct vq_buf){ tdata(i), 1500 };
	while (done < chains) {
		for (n = 0; n < 32; n++) {
			unsigned int pieces = (done + n) % 3 == 2 ? 19 :
					      1 + (done + n) % 3;

			if (vq_drv_add(&T.drv, b, 1, b + 1, pieces - 1,
				       (uint32_t)(done + n)))
				break;
		}
		vq_drv_kick_needed(&T.drv);
		/* Pop a batch, then complete it: chains in flight together */
		for (k = 0; k < 32; k++) {
			int ret = vq_pop(&T.dev, &c[k]);

			if (ret == -EAGAIN || ret == -ENOSPC)
				break;
			if (ret)
				return -1;
		}
		for (i = 0; i < k; i++)
			vq_push(&T.dev, &c[i], c[i].in_len);
		vq_flush(&T.dev);
		while (!vq_drv_get_used(&T.drv, &tok, &len))
			done++;
		if (vq_is_broken(&T.dev) || vq_drv_is_broken(&T.drv))
			return -1;
	}
	return 0;
}
#endif

static void noalloc_case(enum vq_layout l, uint64_t features)
{
#ifdef VNET_SANITIZED
	(void)l;
	(void)features;
	SKIP("sanitizer build intercepts malloc itself");
#else
	unsigned long calls;
	uint64_t chains, spills;
	int ret;

	CHECK_EQ(tenv_init(&T, l, 256, features), 0);
	CHECK_EQ(churn(1000), 0);	/* warm up */
	alloc_count_start();
	ret = churn(1000000);
	calls = alloc_count_stop();
	chains = T.dev.stats.chains;
	spills = T.dev.stats.spills;
	tenv_cleanup(&T);
	CHECK_EQ(ret, 0);
	CHECK_EQ(calls, 0);
	/* The window really ran the device path, long chains included */
	CHECK(chains >= 1000000);
	if (!(features & F_INDIRECT))
		CHECK(spills > 0);
#endif
}

/* The counter itself works: a malloc in the window is seen */
static void test_counter_sees_malloc(void)
{
#ifdef VNET_SANITIZED
	SKIP("sanitizer build intercepts malloc itself");
#else
	/* Through pointers, or the compiler drops the malloc/free pair */
	void *(*volatile do_malloc)(size_t) = malloc;
	void (*volatile do_free)(void *) = free;

	alloc_count_start();
	do_free(do_malloc(64));
	CHECK_EQ(alloc_count_stop(), 2);
#endif
}

static void test_split_noalloc(void)
{
	noalloc_case(VQ_SPLIT, F_EVENT_IDX);
}

static void test_split_indirect_noalloc(void)
{
	noalloc_case(VQ_SPLIT, F_EVENT_IDX | F_INDIRECT);
}

static void test_packed_noalloc(void)
{
	noalloc_case(VQ_PACKED, F_EVENT_IDX);
}

static void test_packed_indirect_noalloc(void)
{
	noalloc_case(VQ_PACKED, F_INDIRECT | F_IN_ORDER);
}

int main(void)
{
	RUN(test_counter_sees_malloc);
	RUN(test_split_noalloc);
	RUN(test_split_indirect_noalloc);
	RUN(test_packed_noalloc);
	RUN(test_packed_indirect_noalloc);
	return test_exit();
}
