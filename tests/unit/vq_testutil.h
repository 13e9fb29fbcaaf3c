/* SPDX-License-Identifier: MIT */
/*
 * vq_testutil.h - fake guest memory and a device/driver queue pair over the
 * same ring, for the ring unit tests (test_vring_*.c, test_vq_*.c).
 *
 * Guest memory is one plain buffer registered as two adjacent regions
 * (so buffers can straddle a region boundary). Rings, indirect tables and
 * data buffers all live inside it, at known guest-physical addresses.
 * The address one-liners stay inline here; the rest is vq_testutil.c.
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

int tenv_init(struct tenv *t, enum vq_layout l, uint16_t num,
	      uint64_t features);
void tenv_cleanup(struct tenv *t);

/* ---- raw guest-side writes for the malicious cases ---- */
void tsplit_desc(struct tenv *t, uint16_t i, uint64_t addr, uint32_t len,
		 uint16_t flags, uint16_t next);
void tsplit_avail(struct tenv *t, uint16_t head);
/* packed; @wrap = driver's avail wrap */
void tpacked_desc(struct tenv *t, uint16_t i, uint64_t addr, uint32_t len,
		  uint16_t id, uint16_t flags, int wrap);

#endif /* VNET_VQ_TESTUTIL_H */
