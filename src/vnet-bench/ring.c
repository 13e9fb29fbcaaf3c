// SPDX-License-Identifier: MIT
/*
 * ring.c - `vnet-bench ring`: the ring micro-benchmark. Device side and
 * driver side of one ring on one thread, over an in-process guest memory
 * table: the driver adds a batch of chains (1 piece, or 19 pieces: the
 * virtio-net big-packets RX layout, directly or through an indirect table),
 * publishes and kicks; the device pops, pushes and flushes the batch; the
 * driver collects. Reports ns per chain for the whole round trip (wall
 * clock, and thread CPU time, which a busy machine does not inflate) and
 * for the device's pop+push+flush alone (its share of the wall time applied
 * to the CPU time), for both layouts, and the number of allocator calls
 * made during the timed loops (must be 0).
 *
 * Allocator calls are counted by interposing malloc/calloc/realloc/free/
 * aligned_alloc/posix_memalign in this binary: each forwards to glibc's
 * __libc_* entry point and counts only while a ring benchmark is timed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/virtio_config.h>

#include "bench.h"
#include "gmem.h"
#include "vq.h"
#include "vq_drv.h"

#define RB_GPA		0x100000000ULL
#define RB_MEM		(16u << 20)
#define RB_DATA_OFF	(8u << 20)
#define RB_INDIR_OFF	(2u << 20)
#define RB_BATCH	32u
#define RB_PIECES	19u

#include "alloc_count.h"

struct rb_case {
	const char *name;
	enum vq_layout layout;
	unsigned int pieces;
	bool indirect;
};

struct rb_result {
	double wall_ns;		/* per chain, driver + device, wall clock */
	double total_ns;	/* per chain, driver + device, thread CPU time */
	double device_ns;	/* per chain, pop + push + flush (CPU time,
				 * scaled by the device's share of wall time) */
	unsigned long allocs;
	unsigned long chains;
};

struct rb_env {
	struct gmem mem;
	uint8_t *buf;
	struct vq dev;
	struct vq_drv drv;
	struct vq_chain chains[RB_BATCH];
	struct vq_buf bufs[RB_PIECES];
};

static uint64_t rb_clock(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t rb_now(void)
{
	return rb_clock(CLOCK_MONOTONIC);
}

static int rb_setup(struct rb_env *e, const struct rb_case *k, uint16_t num)
{
	uint64_t features = 1ULL << VIRTIO_RING_F_EVENT_IDX, d, a, u;
	unsigned int i;
	int ret;

	if (k->indirect)
		features |= 1ULL << VIRTIO_RING_F_INDIRECT_DESC;
	gmem_init(&e->mem);
	ret = gmem_add_region(&e->mem, RB_GPA, RB_MEM, 0, e->buf);
	if (ret)
		return ret;
	vq_ring_sizes(k->layout, num, &d, &a, &u);
	ret = vq_drv_init(&e->drv, k->layout, num, features);
	if (!ret)
		ret = vq_init(&e->dev, k->layout, num, features);
	if (ret)
		return ret;
	ret = vq_drv_set_addr(&e->drv, e->buf, e->buf + d + 64 - d % 64,
			  e->buf + 2 * d + 8192);
	if (!ret)
		ret = vq_set_addr(&e->dev, e->buf, e->buf + d + 64 - d % 64,
				  e->buf + 2 * d + 8192);
	if (ret)
		return ret;
	vq_set_mem(&e->dev, &e->mem);
	vq_drv_set_indirect(&e->drv, e->buf + RB_INDIR_OFF,
			    RB_GPA + RB_INDIR_OFF, RB_PIECES);
	for (i = 0; i < RB_PIECES; i++)
		e->bufs[i] = (struct vq_buf){
			RB_GPA + RB_DATA_OFF + (uint64_t)i * 4096, 4096 };
	return 0;
}

/* One batch through both ends; adds the device's share to *dev_ns */
static int rb_batch(struct rb_env *e, unsigned int pieces, uint64_t *dev_ns,
		    unsigned long *done)
{
	unsigned int n, k;
	uint32_t tok, len;
	uint64_t t0;
	int ret = 0;

	for (n = 0; n < RB_BATCH; n++)
		if (vq_drv_add(&e->drv, NULL, 0, e->bufs, pieces, n))
			break;
	vq_drv_kick_needed(&e->drv);

	t0 = rb_now();
	for (k = 0; k < n; k++) {
		ret = vq_pop(&e->dev, &e->chains[k]);
		if (ret)
			break;
	}
	for (n = 0; n < k; n++)
		vq_push(&e->dev, &e->chains[n], e->chains[n].in_len);
	vq_flush(&e->dev);
	*dev_ns += rb_now() - t0;

	while (!vq_drv_get_used(&e->drv, &tok, &len))
		(*done)++;
	return ret == -EAGAIN || ret == -ENOSPC ? 0 : ret;
}

static int rb_run(struct rb_env *e, const struct rb_case *k, uint16_t num,
		  unsigned long chains, struct rb_result *r)
{
	unsigned long done = 0, warm = 0;
	uint64_t dev_ns = 0, t0, c0;
	int ret;

	ret = rb_setup(e, k, num);
	while (!ret && warm < 10000)
		ret = rb_batch(e, k->pieces, &dev_ns, &warm);

	dev_ns = 0;
	alloc_count_start();
	c0 = rb_clock(CLOCK_THREAD_CPUTIME_ID);
	t0 = rb_now();
	while (!ret && done < chains)
		ret = rb_batch(e, k->pieces, &dev_ns, &done);
	t0 = rb_now() - t0;
	c0 = rb_clock(CLOCK_THREAD_CPUTIME_ID) - c0;
	r->allocs = alloc_count_stop();
	r->chains = done;
	if (done && t0) {
		/* CPU time is immune to preemption on a busy machine */
		r->wall_ns = (double)t0 / (double)done;
		r->total_ns = (double)c0 / (double)done;
		r->device_ns = r->total_ns * (double)dev_ns / (double)t0;
	}
	if (!ret && (vq_is_broken(&e->dev) || vq_drv_is_broken(&e->drv)))
		ret = -EBADMSG;
	vq_cleanup(&e->dev);
	vq_drv_cleanup(&e->drv);
	return ret;
}

static int rb_usage(FILE *f)
{
	fprintf(f, "usage: vnet-bench ring [-n CHAINS] [-q RING_SIZE]\n"
		"  ns per chain for pop+push+flush, split and packed rings,\n"
		"  1- and 19-descriptor chains; exits 1 if anything allocated\n");
	return 2;
}

static int rb_parse(int argc, char **argv, unsigned long *chains,
		    uint16_t *num)
{
	int i;

	for (i = 1; i < argc; i++) {
		char *end;
		unsigned long v;

		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			rb_usage(stdout);
			exit(0);
		}
		if (i + 1 >= argc || (strcmp(argv[i], "-n") &&
				      strcmp(argv[i], "-q")))
			return rb_usage(stderr);
		v = strtoul(argv[i + 1], &end, 0);
		if (*end || !v)
			return rb_usage(stderr);
		if (!strcmp(argv[i], "-n")) {
			*chains = v;
		} else {
			if (v < 32 || v > 32768 || (v & (v - 1)))
				return rb_usage(stderr);
			*num = (uint16_t)v;
		}
		i++;
	}
	return 0;
}

/**
 * bench_ring_main() - `vnet-bench ring`: the ring micro-benchmark
 * @argc:	Argument count (argv[0] is "ring")
 * @argv:	-n CHAINS (per case, default 2000000), -q RING_SIZE (power of
 *		2, default 256)
 *
 * Return: 0, 1 if a case failed or allocated, 2 on a usage error
 */
int bench_ring_main(int argc, char **argv)
{
	static const struct rb_case cases[] = {
		{ "1 desc", VQ_SPLIT, 1, false },
		{ "19 desc", VQ_SPLIT, RB_PIECES, false },
		{ "19 indirect", VQ_SPLIT, RB_PIECES, true },
		{ "1 desc", VQ_PACKED, 1, false },
		{ "19 desc", VQ_PACKED, RB_PIECES, false },
		{ "19 indirect", VQ_PACKED, RB_PIECES, true },
	};
	static struct rb_env env;
	unsigned long chains = 2000000;
	uint16_t num = 256;
	unsigned int i;
	int ret, status = 0;

	ret = rb_parse(argc, argv, &chains, &num);
	if (ret)
		return ret;
	env.buf = aligned_alloc(4096, RB_MEM);
	if (!env.buf)
		return 1;
	memset(env.buf, 0, RB_MEM);

	printf("vnet-bench ring: ring %u, batch %u, EVENT_IDX, one thread\n",
	       num, RB_BATCH);
	printf("%-7s %-12s %9s %9s %9s %9s %6s\n", "layout", "chain", "chains",
	       "wall ns", "cpu ns", "device ns", "allocs");
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct rb_case *k = &cases[i];
		struct rb_result r = { 0 };
		unsigned long n = k->pieces > 1 && !k->indirect ? chains / 4 :
								  chains;

		ret = rb_run(&env, k, num, n, &r);
		printf("%-7s %-12s %9lu %9.1f %9.1f %9.1f %6lu%s\n",
		       k->layout == VQ_PACKED ? "packed" : "split", k->name,
		       r.chains, r.wall_ns, r.total_ns, r.device_ns, r.allocs,
		       ret ? "  FAILED" : "");
		if (ret || r.allocs)
			status = 1;
	}
	free(env.buf);
	return status;
}
