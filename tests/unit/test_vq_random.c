// SPDX-License-Identifier: MIT
/*
 * test_vq_random.c - the device side against the driver side of the same
 * ring, a million random operations per layout: adds of 1..20 pieces
 * (some straddling a region boundary, some indirect), kicks, pops, pushes
 * in random order (in pop order with IN_ORDER), partial flushes, discards,
 * and collection. Checks that every chain pops with exactly the pieces
 * the driver added, in order, and every buffer comes back to the driver
 * exactly once with the length the device pushed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "testlib.h"
#include "vq_testutil.h"

#define MAXP	20		/* pieces per buffer */
#define NREC	1024		/* > any ring size used here */
#define NTOK	65536

struct rec {
	uint32_t token;
	uint8_t nout, nin;
	struct vq_buf b[MAXP];
};

struct rt {
	struct tenv t;
	struct rec recs[NREC];		/* by add sequence number */
	uint32_t add_seq, pop_seq;	/* FIFO: pop_seq .. add_seq */
	uint32_t pub_seq;		/* adds the device can see */
	uint8_t tok_state[NTOK];	/* 0 free, 1 added, 2 pushed */
	uint32_t tok_len[NTOK];
	uint32_t next_token;
	struct vq_chain chains[256];
	uint32_t chain_seq[256];
	uint16_t inflight[256];		/* chain slots in pop order */
	uint16_t ninflight;
	uint16_t free_slots[256];
	uint16_t nfree;
	uint64_t added, returned, popped, pushed, discarded, enospc;
	uint64_t rng;
};

static struct rt R;

static uint32_t rnd(uint32_t n)
{
	return (uint32_t)(test_xorshift(&R.rng) % n);
}

static uint64_t rnd_gpa(uint32_t len)
{
	/* One in 8 pieces straddles the boundary between the two regions */
	if (!rnd(8) && len > 1)
		return TM_GPA + TM_HALF - 1 - rnd(len - 1);
	return tdata(rnd(1024)) + rnd(2048);
}

static int drv_add(void)
{
	struct rec *r = &R.recs[R.add_seq % NREC];
	unsigned int n = rnd(10) ? 1 + rnd(4) : 1 + rnd(MAXP), i;
	int ret;

	r->nout = (uint8_t)rnd(n + 1);
	r->nin = (uint8_t)(n - r->nout);
	for (i = 0; i < n; i++) {
		r->b[i].len = 1 + rnd(2000);
		r->b[i].gpa = rnd_gpa(r->b[i].len);
	}
	r->token = R.next_token;
	ret = vq_drv_add(&R.t.drv, r->b, r->nout, r->b + r->nout, r->nin,
			 r->token);
	if (ret == -ENOSPC)
		return 0;
	if (ret || R.tok_state[r->token % NTOK])
		return -1;
	R.tok_state[r->token % NTOK] = 1;
	R.next_token++;
	R.add_seq++;
	if (R.t.drv.layout == VQ_PACKED)	/* visible at once */
		R.pub_seq = R.add_seq;
	R.added++;
	return 0;
}

/* The popped chain must hold exactly the record's pieces, in order */
static int check_chain(const struct vq_chain *c, const struct rec *r)
{
	unsigned int p, k = 0;
	uint32_t in_len = 0, out_len = 0;

	for (p = 0; p < (unsigned int)r->nout + r->nin; p++) {
		uint64_t off = 0;
		bool write = p >= r->nout;

		*(write ? &in_len : &out_len) += r->b[p].len;
		while (off < r->b[p].len) {
			if (k >= (unsigned int)c->nout + c->nin)
				return -1;
			if ((k >= c->nout) != write ||
			    c->gpa[k] != r->b[p].gpa + off ||
			    c->iov[k].iov_base != thost(&R.t, c->gpa[k]))
				return -1;
			off += c->iov[k++].iov_len;
		}
		if (off != r->b[p].len)
			return -1;
	}
	if (k != (unsigned int)c->nout + c->nin || c->in_len != in_len ||
	    c->out_len != out_len)
		return -1;
	return 0;
}

static int dev_push_one(void)
{
	unsigned int i = R.t.dev.in_order ? 0 : rnd(R.ninflight);
	uint16_t slot = R.inflight[i];
	struct vq_chain *c = &R.chains[slot];
	uint32_t tok = R.recs[R.chain_seq[slot] % NREC].token;
	/* IN_ORDER: zero lengths half the time (collapsed batches) */
	uint32_t len = c->in_len && !(R.t.dev.in_order && rnd(2)) ?
		       rnd(c->in_len + 1) : 0;

	if (R.tok_state[tok % NTOK] != 1)
		return -1;
	vq_push(&R.t.dev, c, len);
	R.tok_state[tok % NTOK] = 2;
	R.tok_len[tok % NTOK] = len;
	memmove(&R.inflight[i], &R.inflight[i + 1],
		(R.ninflight - i - 1) * sizeof(R.inflight[0]));
	R.ninflight--;
	R.free_slots[R.nfree++] = slot;
	R.pushed++;
	return 0;
}

static int dev_pop(void)
{
	uint16_t slot;
	int ret;

	if (!R.nfree)
		return 0;
	slot = R.free_slots[R.nfree - 1];
	ret = vq_pop(&R.t.dev, &R.chains[slot]);
	if (ret == -EAGAIN)	/* wrong if something published is unpopped */
		return R.pop_seq < R.pub_seq ? -1 : 0;
	if (ret == -ENOSPC) {
		R.enospc++;
		return R.ninflight ? 0 : -1;
	}
	if (ret)
		return -1;
	if (R.pop_seq == R.add_seq ||
	    check_chain(&R.chains[slot], &R.recs[R.pop_seq % NREC]))
		return -1;
	R.chain_seq[slot] = R.pop_seq++;
	R.nfree--;
	R.inflight[R.ninflight++] = slot;
	R.popped++;
	return 0;
}

/* Give back the most recent pops if none of them was pushed yet */
static void dev_discard(void)
{
	unsigned int n = 1 + rnd(2), i;

	if (n > R.ninflight)
		return;
	/* vq_discard wants them in pop order, contiguous: use the slots */
	for (i = 0; i < n; i++) {
		uint16_t slot = R.inflight[R.ninflight - n + i];

		if (R.chain_seq[slot] != R.pop_seq - n + i)
			return;	/* an older chain was pushed in between */
	}
	/* Pool slots are not adjacent: discard newest first, one by one */
	for (i = 0; i < n; i++)
		vq_discard(&R.t.dev, &R.chains[R.inflight[R.ninflight - 1 - i]],
			   1);
	for (i = 0; i < n; i++)
		R.free_slots[R.nfree++] = R.inflight[--R.ninflight];
	R.pop_seq -= n;
	R.discarded += n;
}

static int drv_collect(void)
{
	uint32_t tok, len;
	int ret;

	while (!(ret = vq_drv_get_used(&R.t.drv, &tok, &len))) {
		if (R.tok_state[tok % NTOK] != 2 || R.tok_len[tok % NTOK] != len)
			return -1;
		R.tok_state[tok % NTOK] = 0;
		R.returned++;
	}
	return ret == -EAGAIN ? 0 : -1;
}

static int step(void)
{
	switch (rnd(16)) {
	case 0: case 1: case 2: case 3:
		return drv_add();
	case 4: case 5:
		vq_drv_kick_needed(&R.t.drv);
		R.pub_seq = R.add_seq;
		return 0;
	case 6: case 7: case 8: case 9:
		return dev_pop();
	case 10: case 11: case 12:
		return R.ninflight ? dev_push_one() : 0;
	case 13:
		vq_flush(&R.t.dev);
		return 0;
	case 14:
		return drv_collect();
	default:
		if (!rnd(4))
			dev_discard();
		return 0;
	}
}

/* Everything outstanding comes back */
static int drain(void)
{
	int guard;

	for (guard = 0; guard < 100000; guard++) {
		vq_drv_kick_needed(&R.t.drv);
		R.pub_seq = R.add_seq;
		if (dev_pop())
			return -1;
		if (R.pop_seq == R.add_seq || !R.nfree)
			break;
	}
	while (R.ninflight)
		if (dev_push_one())
			return -1;
	vq_flush(&R.t.dev);
	if (drv_collect())
		return -1;
	if (R.pop_seq != R.add_seq)
		return drain();
	return R.added == R.returned ? 0 : -1;
}

static int run(enum vq_layout l, uint16_t num, uint64_t features,
	       unsigned long ops, uint64_t seed)
{
	unsigned long i;
	uint16_t k;

	memset(&R, 0, sizeof(R));
	R.rng = seed;
	if (tenv_init(&R.t, l, num, features))
		return -1;
	for (k = 0; k < 256; k++)
		R.free_slots[R.nfree++] = k;
	for (i = 0; i < ops; i++) {
		if (step()) {
			fprintf(stderr, "  op %lu failed (broken: %s / %s)\n", i,
				vq_broken_reason(&R.t.dev),
				vq_drv_broken_reason(&R.t.drv));
			tenv_cleanup(&R.t);
			return -1;
		}
	}
	i = drain();
	fprintf(stderr, "  # %s num %u: added %llu returned %llu popped %llu discarded %llu spills %llu enospc %llu\n",
		l == VQ_PACKED ? "packed" : "split", num,
		(unsigned long long)R.added, (unsigned long long)R.returned,
		(unsigned long long)R.popped, (unsigned long long)R.discarded,
		(unsigned long long)R.t.dev.stats.spills,
		(unsigned long long)R.enospc);
	if (R.added < ops / 64 || vq_is_broken(&R.t.dev) ||
	    vq_drv_is_broken(&R.t.drv))
		i = 1;
	tenv_cleanup(&R.t);
	return i ? -1 : 0;
}

static void test_split_random(void)
{
	CHECK_EQ(run(VQ_SPLIT, 256, F_EVENT_IDX | F_INDIRECT, 400000, 1), 0);
	CHECK_EQ(run(VQ_SPLIT, 16, 0, 300000, 2), 0);
	CHECK_EQ(run(VQ_SPLIT, 4, F_EVENT_IDX | F_INDIRECT, 300000, 3), 0);
}

static void test_packed_random(void)
{
	CHECK_EQ(run(VQ_PACKED, 255, F_EVENT_IDX | F_INDIRECT, 400000, 4), 0);
	CHECK_EQ(run(VQ_PACKED, 17, 0, 300000, 5), 0);
	CHECK_EQ(run(VQ_PACKED, 7, F_IN_ORDER | F_INDIRECT, 300000, 6), 0);
}

int main(void)
{
	RUN(test_split_random);
	RUN(test_packed_random);
	return test_exit();
}
