// SPDX-License-Identifier: MIT
/*
 * vq_testutil.c - fake guest memory and a device/driver queue pair over the
 * same ring (vq_testutil.h), built once into build/libvnet-test.a.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "vq_testutil.h"

/**
 * tenv_init() - Set up guest memory and both ends of one ring
 * @t:		Environment, filled in
 * @l:		Ring layout
 * @num:	Ring size
 * @features:	Negotiated features (F_INDIRECT gives the driver tables)
 *
 * Return: 0, or -errno (-1 when the buffer cannot be allocated)
 */
int tenv_init(struct tenv *t, enum vq_layout l, uint16_t num,
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

/**
 * tenv_cleanup() - Free what tenv_init() set up
 * @t:		Environment
 */
void tenv_cleanup(struct tenv *t)
{
	vq_cleanup(&t->dev);
	vq_drv_cleanup(&t->drv);
	free(t->buf);
	t->buf = NULL;
}

/* ---- raw guest-side writes for the malicious cases (split) ---- */

/**
 * tsplit_desc() - Write split descriptor @i as a guest would, unchecked
 * @t:		Environment
 * @i:		Descriptor index
 * @addr:	Guest address
 * @len:	Length
 * @flags:	VRING_DESC_F_*
 * @next:	Next index
 */
void tsplit_desc(struct tenv *t, uint16_t i, uint64_t addr, uint32_t len,
		 uint16_t flags, uint16_t next)
{
	struct vring_desc *d = (struct vring_desc *)t->desc + i;

	d->addr = htole64(addr);
	d->len = htole32(len);
	d->flags = htole16(flags);
	d->next = htole16(next);
}

/**
 * tsplit_avail() - Put @head in the avail ring and bump avail->idx by one
 * @t:		Environment
 * @head:	Descriptor index
 */
void tsplit_avail(struct tenv *t, uint16_t head)
{
	struct vring_avail *a = (struct vring_avail *)t->drva;
	uint16_t idx = le16toh(a->idx);

	a->ring[idx & (t->dev.num - 1)] = htole16(head);
	a->idx = htole16((uint16_t)(idx + 1));
}

/* ---- raw guest-side writes (packed); wrap = driver's avail wrap ---- */

/**
 * tpacked_desc() - Write packed descriptor @i as a guest would, unchecked
 * @t:		Environment
 * @i:		Descriptor index
 * @addr:	Guest address
 * @len:	Length
 * @id:		Buffer id
 * @flags:	VRING_DESC_F_* (AVAIL/USED added from @wrap)
 * @wrap:	Driver avail wrap counter: 1 or 0 sets AVAIL/USED, -1 leaves @flags
 */
void tpacked_desc(struct tenv *t, uint16_t i, uint64_t addr, uint32_t len,
		  uint16_t id, uint16_t flags, int wrap)
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
