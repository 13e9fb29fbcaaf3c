// SPDX-License-Identifier: MIT
/*
 * test_worker_rate.c - frames/s through a worker thread and the loop
 * backend, 64-byte frames on one pair, split and packed, woken by kicks
 * and by busy polling: a measurement (printed as a "# " line) with one
 * floor a working data path clears by far (1,000 frames/s), kept apart
 * from the unit tests as a rate is not a unit property. make check runs
 * it (release and ASan builds); its figure is no benchmark result.
 */
/* needs: none */
#include <stdio.h>

#include "testlib.h"
#include "dp_testutil.h"
#include "dp_flow.h"

/* Frames/s through worker + loop, 64 B, 1 pair: a measurement */
static void t_rate(enum vq_layout l, unsigned int poll_us)
{
	struct worker_opts o = { .poll_us = poll_us };
	unsigned long n = 200000;
	struct dp_env e;
	uint64_t t0, dt;

#ifdef VNET_SANITIZED
	n = 20000;
#endif
	CHECK_EQ(dp_init(&e, l, F_V1 | F_MRG | F_EIDX, 1, "loop"), 0);
	CHECK_EQ(dp_start(&e, &o), 0);
	t0 = dp_now_ns();
	CHECK_EQ(run_traffic(&e, n, true), 0);
	dt = dp_now_ns() - t0;
	printf("# %s poll_us=%u: %lu frames of 64 B TX->loop->RX in %.3f s: "
	       "%.0f frames/s (kicks %lu, calls %llu)\n",
	       l == VQ_SPLIT ? "split" : "packed", poll_us, n, dt / 1e9,
	       n / (dt / 1e9), e.tx[0].kicks,
	       (unsigned long long)dp_ctr(&e.pairs[0].rx.ctr.calls));
	CHECK(n / (dt / 1e9) > 1000);
	dp_cleanup(&e);
}

static void test_rate_split(void) { t_rate(VQ_SPLIT, 0); }
static void test_rate_packed(void) { t_rate(VQ_PACKED, 0); }
static void test_rate_split_poll(void) { t_rate(VQ_SPLIT, 50); }

int main(void)
{
	RUN(test_rate_split);
	RUN(test_rate_packed);
	RUN(test_rate_split_poll);
	return test_exit();
}
