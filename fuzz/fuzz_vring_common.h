/* SPDX-License-Identifier: MIT */
/*
 * fuzz_vring_common.h - shared body of fuzz_vring_split.c and
 * fuzz_vring_packed.c: the chain walkers fed arbitrary ring and memory
 * contents.
 *
 * Input: byte 0 ring size selector, byte 1 option bits (0 EVENT_IDX,
 * 1 INDIRECT_DESC, 2 IN_ORDER, 3 hold chains in flight (spill pressure),
 * 4 run the driver side's get_used over the same ring too, 5 the guest
 * re-marks the ring after every pop: packed flips every descriptor to the
 * other wrap, split bumps avail idx, so pops can run laps ahead of the
 * completions), 6 pop in bursts (vq_pop_burst(), up to 1 + op % 8 chains
 * per op, each checked as one vq_pop() is), bytes 2-5
 * vq_set_base() value (little endian), byte 6 op budget, then the guest
 * memory image (copied to guest address FZ_GPA; the rest is zero).
 * Guest memory is two adjacent regions (FZ_MEM / 2 each), so buffers and
 * indirect tables can straddle a boundary. Rings sit at the start.
 *
 * Every iovec a pop returns is written to in full (ASan catches a
 * translation that escapes guest memory); completions are pushed with the
 * chain's full writable length. While holding chains, every fifth op
 * discards all of them. After every op the ring positions must lie inside
 * the ring (abort otherwise: a position outside it is the next overrun).
 *
 * Build: make fuzz-build; -DFZ_STANDALONE adds a main() running the files
 * named on the command line once each (gcc, no libFuzzer). The fuzz build
 * lets UBSan recover: run with UBSAN_OPTIONS=halt_on_error=1 so undefined
 * behaviour counts as a crash. tests/unit/test_vring_corpus.c replays the
 * seeds (and mutations of them) in the unit tests, where it always does.
 */
#ifndef VNET_FUZZ_VRING_COMMON_H
#define VNET_FUZZ_VRING_COMMON_H

#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/virtio_config.h>

#include "gmem.h"
#include "util.h"
#include "vq.h"
#include "vq_drv.h"

#define FZ_GPA		0x100000ULL
#define FZ_MEM		(64 * 1024)
#define FZ_HDR		7
#define FZ_HOLD		32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t fz_align(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static void fz_touch(const struct vq_chain *c)
{
	unsigned int i;

	for (i = 0; i < (unsigned int)c->nout + c->nin; i++)
		memset(c->iov[i].iov_base, 0xa5, c->iov[i].iov_len);
}

static void fz_complete(struct vq *vq, struct vq_chain *held,
			unsigned int *nheld)
{
	unsigned int i;

	for (i = 0; i < *nheld; i++)
		vq_push(vq, &held[i], held[i].in_len);
	*nheld = 0;
	vq_flush(vq);
}

/* Option bit 5: a guest racing us makes the ring available again */
static void fz_remark(struct vq *vq)
{
	uint16_t i;

	if (vq->layout == VQ_SPLIT) {
		vq->split.avail->idx = (uint16_t)(vq->split.avail->idx + 1);
		return;
	}
	for (i = 0; i < vq->num; i++)
		vq->packed.desc[i].flags ^=
			htole16((1u << VRING_PACKED_DESC_F_AVAIL) |
				(1u << VRING_PACKED_DESC_F_USED));
}

/* Our invariants: a ring position outside the ring is the next overrun */
static void fz_check(const struct vq *vq)
{
	if (vq->layout == VQ_PACKED &&
	    (vq->last_avail >= vq->num || vq->used_idx >= vq->num))
		abort();
}

/*
 * One op's pops into held[*nheld ..]: one vq_pop(), or with option bit 6 a
 * vq_pop_burst() of up to 1 + op % 8; each chain popped is touched (and
 * with bit 5 the ring re-marked after it). Return: 0 if it took at least
 * one, else the error
 */
static int fz_pop(struct vq *vq, uint8_t opts, unsigned int op,
		  struct vq_chain *held, unsigned int *nheld)
{
	unsigned int want = 1, got, i;
	int ret;

	if (opts & 64) {
		want = MIN(1 + op % 8, FZ_HOLD - *nheld);
		got = vq_pop_burst(vq, &held[*nheld], want, &ret);
		if (got > want || (ret != 0) != (got < want) ||
		    (ret && ret != -EAGAIN && ret != -EBADMSG && ret != -ENOSPC))
			abort();	/* not what the API promises */
	} else {
		ret = vq_pop(vq, &held[*nheld]);
		got = !ret;
	}
	for (i = 0; i < got; i++) {
		fz_touch(&held[*nheld]);
		if (opts & 32)
			fz_remark(vq);
		(*nheld)++;
	}
	return got ? 0 : ret;
}

static void fz_device(struct vq *vq, uint8_t opts, unsigned int budget)
{
	static struct vq_chain held[FZ_HOLD];
	unsigned int nheld = 0, op;

	for (op = 0; op < budget; op++, fz_check(vq)) {
		int ret;

		if ((opts & 8) && op % 5 == 4 && nheld) {
			vq_discard(vq, held, nheld);
			nheld = 0;
			continue;
		}
		ret = fz_pop(vq, opts, op, held, &nheld);
		if (ret == -ENOSPC) {
			if (!nheld)
				abort();	/* our bug: spill held by nothing */
			fz_complete(vq, held, &nheld);
			continue;
		}
		if (ret)
			break;
		if (op % 5 == 4 && !(opts & 8)) {
			/* the latest pop goes back */
			vq_discard(vq, &held[nheld - 1], 1);
			nheld--;
		}
		if (nheld == FZ_HOLD || nheld >= vq->num || !(opts & 8))
			fz_complete(vq, held, &nheld);
		if (op % 7 == 0)
			vq_enable_notify(vq);
		else if (op % 7 == 3)
			vq_disable_notify(vq);
	}
	fz_complete(vq, held, &nheld);
	fz_check(vq);
	(void)vq_avail_pending(vq);
	(void)vq_get_base(vq);
	(void)vq_broken_reason(vq);
}

/* The driver side reading used entries the "device" (fuzz data) wrote */
static void fz_driver(enum vq_layout l, uint16_t num, uint64_t features,
		      uint8_t *desc, uint8_t *drv, uint8_t *dev,
		      uint8_t *image, size_t len)
{
	struct vq_buf b = { FZ_GPA + 0x8000, 64 };
	uint32_t tok, blen;
	struct vq_drv q;
	unsigned int i;

	if (vq_drv_init(&q, l, num, features))
		return;
	if (vq_drv_set_addr(&q, desc, drv, dev))
		goto out;
	for (i = 0; i < num; i++)
		if (vq_drv_add(&q, &b, 1, NULL, 0, i))
			break;
	vq_drv_kick_needed(&q);
	/* Now let the fuzz image play the device's used writes */
	memcpy(dev, image, MIN(len, (size_t)64));
	if (l == VQ_PACKED)
		memcpy(desc, image, MIN(len, (size_t)num * 16));
	for (i = 0; i < 2u * num; i++)
		if (vq_drv_get_used(&q, &tok, &blen))
			break;
	(void)vq_drv_enable_cb(&q);
out:
	vq_drv_cleanup(&q);
}

static int fz_run(enum vq_layout l, const uint8_t *data, size_t size)
{
	static struct gmem mem;
	uint64_t features = 0, dlen, drlen, dvlen, off;
	uint8_t *buf, opts;
	uint16_t num;
	uint32_t base;
	struct vq vq;

	if (size < FZ_HDR)
		return 0;
	opts = data[1];
	num = l == VQ_SPLIT ? (uint16_t)(1u << (data[0] % 8)) :
			      (uint16_t)(1 + data[0] % 128);
	if (opts & 1)
		features |= 1ULL << VIRTIO_RING_F_EVENT_IDX;
	if (opts & 2)
		features |= 1ULL << VIRTIO_RING_F_INDIRECT_DESC;
	if (opts & 4)
		features |= 1ULL << VIRTIO_F_IN_ORDER;
	base = (uint32_t)data[2] | (uint32_t)data[3] << 8 |
	       (uint32_t)data[4] << 16 | (uint32_t)data[5] << 24;

	buf = calloc(1, FZ_MEM);	/* exact size: ASan sees overruns */
	if (!buf)
		return 0;
	memcpy(buf, data + FZ_HDR, MIN(size - FZ_HDR, (size_t)FZ_MEM));
	gmem_init(&mem);
	if (gmem_add_region(&mem, FZ_GPA, FZ_MEM / 2, 0, buf) ||
	    gmem_add_region(&mem, FZ_GPA + FZ_MEM / 2, FZ_MEM / 2, FZ_MEM / 2,
			    buf + FZ_MEM / 2))
		abort();

	vq_ring_sizes(l, num, &dlen, &drlen, &dvlen);
	off = fz_align(dlen, 64);
	if (vq_init(&vq, l, num, features))
		abort();
	if (vq_set_addr(&vq, buf, buf + off, buf + fz_align(off + drlen, 64)))
		abort();
	vq_set_mem(&vq, &mem);
	if (base)
		vq_set_base(&vq, base);
	fz_device(&vq, opts, 1u + data[6]);
	vq_reset(&vq);
	fz_device(&vq, opts, 8);
	vq_cleanup(&vq);

	if (opts & 16)
		fz_driver(l, num, features, buf, buf + off,
			  buf + fz_align(off + drlen, 64), (uint8_t *)data,
			  size);
	gmem_cleanup(&mem);
	free(buf);
	return 0;
}

#ifdef FZ_STANDALONE
int main(int argc, char **argv)
{
	static uint8_t in[FZ_MEM + FZ_HDR];
	int i;

	for (i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		size_t n;

		if (!f)
			return 1;
		n = fread(in, 1, sizeof(in), f);
		fclose(f);
		LLVMFuzzerTestOneInput(in, n);
	}
	return 0;
}
#endif

#endif /* VNET_FUZZ_VRING_COMMON_H */
