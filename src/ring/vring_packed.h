/* SPDX-License-Identifier: MIT */
/*
 * vring_packed.h - the packed layout's device side as vq.c calls it
 * (vring_packed_dev.c), plus the flag bits and ring arithmetic both sides
 * use. Included by vq.c, vring_packed_dev.c and, for the bits and the
 * arithmetic only, the driver side's packed layout
 * (src/driver/vring_packed_drv.c).
 */
#ifndef VNET_VRING_PACKED_H
#define VNET_VRING_PACKED_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/virtio_config.h>

#include "util.h"
#include "vq_types.h"

/* Packed descriptor flag bits (virtio 1.2, "Packed Virtqueues") */
#define VRING_PACKED_F_AVAIL	(1u << VRING_PACKED_DESC_F_AVAIL)
#define VRING_PACKED_F_USED	(1u << VRING_PACKED_DESC_F_USED)
#define VRING_PACKED_WRAP	(1u << VRING_PACKED_EVENT_F_WRAP_CTR)

/* Advance a (slot, wrap) position by @n slots, n <= num ("Driver and
 * Device Ring Wrap Counters") */
static inline void vring_packed_advance(const struct vq_area *a,
					uint16_t *slot, bool *wrap, uint16_t n)
{
	uint32_t s = (uint32_t)*slot + n;

	if (s >= a->num) {
		s -= a->num;
		*wrap = !*wrap;
	}
	*slot = (uint16_t)s;
}

/* vring_packed_dev.c */
int vring_packed_pop(struct vq *vq, struct vq_chain *c);
unsigned int vring_packed_pop_run(struct vq *vq, struct vq_chain *c,
				  unsigned int max);
void vring_packed_unpop(struct vq *vq, uint32_t slots);
bool vring_packed_flush(struct vq *vq);
bool vring_packed_avail_pending(struct vq *vq);
void vring_packed_disable_notify(struct vq *vq);
bool vring_packed_enable_notify(struct vq *vq);

#endif /* VNET_VRING_PACKED_H */
