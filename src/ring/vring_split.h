/* SPDX-License-Identifier: MIT */
/*
 * vring_split.h - the split layout's device side as vq.c calls it
 * (vring_split_dev.c), plus the event-field accessors both sides use.
 * Included by vq.c, vring_split_dev.c and, for the accessors only, the
 * driver side's split layout (src/driver/vring_split_drv.c).
 */
#ifndef VNET_VRING_SPLIT_H
#define VNET_VRING_SPLIT_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/virtio_config.h>

#include "util.h"
#include "vq_types.h"

/* avail->ring[num] is used_event, used->ring[num] avail_event (virtio 1.2,
 * "The Virtqueue Available Ring" / "The Virtqueue Used Ring") */
static inline uint16_t *vring_split_used_event(const struct vq_area *a)
{
	return &a->split.avail->ring[a->num];
}

static inline uint16_t *vring_split_avail_event(const struct vq_area *a)
{
	return (uint16_t *)&a->split.used->ring[a->num];
}

/* vring_split_dev.c */
int vring_split_pop(struct vq *vq, struct vq_chain *c);
unsigned int vring_split_pop_run(struct vq *vq, struct vq_chain *c,
				 unsigned int max);
bool vring_split_flush(struct vq *vq);
bool vring_split_avail_pending(struct vq *vq);
void vring_split_disable_notify(struct vq *vq);
bool vring_split_enable_notify(struct vq *vq);

#endif /* VNET_VRING_SPLIT_H */
