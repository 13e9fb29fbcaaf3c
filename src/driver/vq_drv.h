/* SPDX-License-Identifier: MIT */
/*
 * vq_drv.h - the layout-neutral virtqueue API of the driver side: rings we
 * own and add buffers to, for the frontend (vu_frontend), the benchmark
 * and the tests. vnetd does not link it.
 *
 * vq_drv.c dispatches to the two layouts behind it (vring_split_drv.c,
 * vring_packed_drv.c, through vring_drv.h). Dependencies point one way:
 * vq_drv -> vring_*_drv -> vring_drv, the types in vq_drv_types.h below
 * them; from the device side only the ring-area head (vq.h: vq_area_*(),
 * vq_ring_sizes()) and the layouts' inline helpers.
 *
 * Threading: one thread owns a struct vq_drv at a time.
 *
 * Allocation: vq_drv_init() sizes the per-buffer bookkeeping from the ring
 * size; nothing after it allocates.
 */
#ifndef VNET_VQ_DRV_H
#define VNET_VQ_DRV_H

#include <stdbool.h>
#include <stdint.h>

#include "vq_drv_types.h"

/* -------- lifetime and configuration -------- */

int vq_drv_init(struct vq_drv *vq, enum vq_layout layout, uint16_t num,
		uint64_t features);
void vq_drv_cleanup(struct vq_drv *vq);
int vq_drv_set_addr(struct vq_drv *vq, void *desc, void *driver_area,
		    void *device_area);
void vq_drv_reset(struct vq_drv *vq);
bool vq_drv_is_broken(const struct vq_drv *vq);
const char *vq_drv_broken_reason(const struct vq_drv *vq);
void vq_drv_set_indirect(struct vq_drv *vq, void *tables, uint64_t gpa,
			 uint16_t per_chain);

/* -------- adding and collecting buffers -------- */

int vq_drv_add(struct vq_drv *vq, const struct vq_buf *out, unsigned int nout,
	       const struct vq_buf *in, unsigned int nin, uint32_t token);
bool vq_drv_kick_needed(struct vq_drv *vq);
int vq_drv_get_used(struct vq_drv *vq, uint32_t *token, uint32_t *len);
int vq_drv_get_used_burst(struct vq_drv *vq, uint32_t *tokens, uint32_t *lens,
			  unsigned int max);
uint16_t vq_drv_next_id(const struct vq_drv *vq);
void vq_drv_disable_cb(struct vq_drv *vq);
bool vq_drv_enable_cb(struct vq_drv *vq);
unsigned int vq_drv_num_free(const struct vq_drv *vq);

#endif /* VNET_VQ_DRV_H */
