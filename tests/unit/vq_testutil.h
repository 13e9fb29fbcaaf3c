/* SPDX-License-Identifier: MIT */
/*
 * vq_testutil.h - fake guest memory and a device/driver queue pair over the
 * same ring, for the ring unit tests (test_vring_*.c, test_vq_*.c).
 *
 * Guest memory is one plain buffer registered as two adjacent regions
 * (so buffers can straddle a region boundary). Rings, indirect tables and
 * data buffers all live inside it, at known guest-physical addresses.
 */
#ifndef VNET_VQ_TESTUTIL_H
#define VNET_VQ_TESTUTIL_H

#include <endian.h>
#include <linux/virtio_config.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gmem.h"
#include "vq.h"
#include "vq_drv.h"

#define TM_GPA		0x40000000ULL	/* guest address of the buffer */
#define TM_UVA		0x7f0000000000ULL
#define TM_SIZE		(16u << 20)	/* two 8 MiB regions */
#define TM_HALF		(TM_SIZE / 2)
#define TM_RING_OFF	0		/* desc, driver, device areas */
#define TM_INDIR_OFF	(4u << 20)	/* driver-side indirect tables */
#define TM_DATA_OFF	(9u << 20)	/* data buffers (second region) */
#define TM_INDIR_PER	32		/* descriptors per indirect table */

#define F_EVENT_IDX	(1ULL << VIRTIO_RING_F_EVENT_IDX)
#define F_INDIRECT	(1ULL << VIRTIO_RING_F_INDIRECT_DESC)
#define F_IN_ORDER	(1ULL << VIRTIO_F_IN_ORDER)

struct tenv {
	struct gmem mem;
	uint8_t *buf;
	struct vq dev;
	struct vq_drv drv;
	uint8_t *desc, *drva, *deva;
	uint64_t desc_gpa, drva_gpa, deva_gpa;
};

static inline uint64_t tgpa(const struct tenv *t, const void *p)
{
	return TM_GPA + (uint64_t)((const uint8_t *)p - t->buf);
}

static inline void *thost(const struct tenv *t, uint64_t gpa)
{
	return t->buf + (gpa - TM_GPA);
}

/* Data buffer @i (4 KiB each) in guest address terms */
static inline uint64_t tdata(unsigned int i)
{
	return TM_GPA + TM_DATA_OFF + (uint64_t)i * 4096;
}

static inline uint64_t talign(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* Set up memory and both ends of one ring; returns 0 or -errno */
static inline int tenv_init(struct tenv *t, enum vq_layout l, uint16_t num,
			    uint64_t features)
{
	uint64_t dlen, drlen, dvlen, off;
	int ret;

	memset(t, 0, sizeof(*t));
	t->buf = aligned_alloc(4096, TM_SIZE);
	if (!t->buf)
		return -1;
	memset(t->buf, 0, TM_SIZE);
	gmem_init(&t->mem);
	ret = gmem_add_region(&t->mem, TM_GPA, TM_HALF, TM_UVA, t->buf);
	if (!ret)
		ret = gmem_add_region(&t->mem, TM_GPA + TM_HALF, TM_HALF,
				      TM_UVA + TM_HALF, t->buf + TM_HALF);
	if (ret)
		return ret;

	vq_ring_sizes(l, num, &dlen, &drlen, &dvlen);
	off = TM_RING_OFF;
	t->desc = t->buf + off;
	off = talign(off + dlen, 64);
	t->drva = t->buf + off;
	off = talign(off + drlen, 64);
	t->deva = t->buf + off;
	t->desc_gpa = tgpa(t, t->desc);
	t->drva_gpa = tgpa(t, t->drva);
	t->deva_gpa = tgpa(t, t->deva);

	ret = vq_drv_init(&t->drv, l, num, features);
	if (ret)
		return ret;
	ret = vq_init(&t->dev, l, num, features);
	if (ret)
		return ret;
	ret = vq_drv_set_addr(&t->drv, t->desc, t->drva, t->deva);
	if (!ret)
		ret = vq_set_addr(&t->dev, t->desc, t->drva, t->deva);
	if (ret)
		return ret;
	vq_set_mem(&t->dev, &t->mem);
	if (features & F_INDIRECT)
		vq_drv_set_indirect(&t->drv, t->buf + TM_INDIR_OFF,
				    TM_GPA + TM_INDIR_OFF, TM_INDIR_PER);
	return 0;
}

static inline void tenv_cleanup(struct tenv *t)
{
	vq_cleanup(&t->dev);
	vq_drv_cleanup(&t->drv);
	free(t->buf);
	t->buf = NULL;
}

/* ---- raw guest-side writes for the malicious cases (split) ---- */

static inline void tsplit_desc(struct tenv *t, uint16_t i, uint64_t addr,
			       uint32_t len, uint16_t flags, uint16_t next)
{
	struct vring_desc *d = (struct vring_desc *)t->desc + i;

	d->addr = htole64(addr);
	d->len = htole32(len);
	d->flags = htole16(flags);
	d->next = htole16(next);
}

/* Put @head in the avail ring and bump avail->idx by one */
static inline void tsplit_avail(struct tenv *t, uint16_t head)
{
	struct vring_avail *a = (struct vring_avail *)t->drva;
	uint16_t idx = le16toh(a->idx);

	a->ring[idx & (t->dev.num - 1)] = htole16(head);
	a->idx = htole16((uint16_t)(idx + 1));
}

/* ---- raw guest-side writes (packed); wrap = driver's avail wrap ---- */

static inline void tpacked_desc(struct tenv *t, uint16_t i, uint64_t addr,
				uint32_t len, uint16_t id, uint16_t flags,
				int wrap)
{
	struct vring_packed_desc *d = (struct vring_packed_desc *)t->desc + i;

	d->addr = htole64(addr);
	d->len = htole32(len);
	d->id = htole16(id);
	if (wrap >= 0)
		flags |= wrap ? (1u << VRING_PACKED_DESC_F_AVAIL) :
				(1u << VRING_PACKED_DESC_F_USED);
	d->flags = htole16(flags);
}

#endif /* VNET_VQ_TESTUTIL_H */
