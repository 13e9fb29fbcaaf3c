/* SPDX-License-Identifier: MIT */
/*
 * vring_drv.h - the driver side's two layouts as vq_drv.c calls them
 * (vring_split_drv.c, vring_packed_drv.c) and what both share, breaking
 * the queue (vring_drv.c). Only vq_drv.c and those files include it.
 */
#ifndef VNET_VRING_DRV_H
#define VNET_VRING_DRV_H

#include <stdbool.h>
#include <stdint.h>

#include "util.h"
#include "vq_drv_types.h"

/* vring_drv.c */
int vring_drv_break(struct vq_drv *vq, const char *fmt, ...) PRINTF_FMT(2, 3);

/* vring_split_drv.c */
void vring_split_drv_setup(struct vq_drv *vq);
int vring_split_drv_add(struct vq_drv *vq, const struct vq_buf *out,
			unsigned int nout, const struct vq_buf *in,
			unsigned int nin, uint32_t token);
bool vring_split_drv_kick_needed(struct vq_drv *vq);
int vring_split_drv_get_used(struct vq_drv *vq, uint32_t *token,
			     uint32_t *len);
int vring_split_drv_get_used_burst(struct vq_drv *vq, uint32_t *tokens,
				   uint32_t *lens, unsigned int max);
void vring_split_drv_disable_cb(struct vq_drv *vq);
bool vring_split_drv_enable_cb(struct vq_drv *vq);

/* vring_packed_drv.c */
void vring_packed_drv_setup(struct vq_drv *vq);
int vring_packed_drv_add(struct vq_drv *vq, const struct vq_buf *out,
			 unsigned int nout, const struct vq_buf *in,
			 unsigned int nin, uint32_t token);
bool vring_packed_drv_kick_needed(struct vq_drv *vq);
int vring_packed_drv_get_used(struct vq_drv *vq, uint32_t *token,
			      uint32_t *len);
void vring_packed_drv_disable_cb(struct vq_drv *vq);
bool vring_packed_drv_enable_cb(struct vq_drv *vq);

#endif /* VNET_VRING_DRV_H */
