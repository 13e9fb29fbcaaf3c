/* SPDX-License-Identifier: MIT */
/*
 * vring_split.h - the split layout as vq.c calls it: the device side
 * (vring_split_dev.c) and the driver side (vring_split_drv.c), plus the
 * event-field accessors both sides use. Only vq.c and those two files
 * include it.
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
static inline uint16_t *vring_split_used_event(const struct vq *vq)
{
	return &vq->split.avail->ring[vq->num];
}

static inline uint16_t *vring_split_avail_event(const struct vq *vq)
{
	return (uint16_t *)&vq->split.used->ring[vq->num];
}

/* vring_split_dev.c */
int vring_split_pop(struct vq *vq, struct vq_chain *c);
unsigned int vring_split_pop_run(struct vq *vq, struct vq_chain *c,
				 unsigned int max);
bool vring_split_flush(struct vq *vq);
bool vring_split_avail_pending(struct vq *vq);
void vring_split_disable_notify(struct vq *vq);
bool vring_split_enable_notify(struct vq *vq);

/* vring_split_drv.c */
void vring_split_drv_setup(struct vq *vq);
int vring_split_drv_add(struct vq *vq, const struct vq_buf *out,
			unsigned int nout, const struct vq_buf *in,
			unsigned int nin, uint32_t token);
bool vring_split_drv_kick_needed(struct vq *vq);
int vring_split_drv_get_used(struct vq *vq, uint32_t *token, uint32_t *len);
int vring_split_drv_get_used_burst(struct vq *vq, uint32_t *tokens,
				   uint32_t *lens, unsigned int max);
void vring_split_drv_disable_cb(struct vq *vq);
bool vring_split_drv_enable_cb(struct vq *vq);

#endif /* VNET_VRING_SPLIT_H */
