/* SPDX-License-Identifier: MIT */
/*
 * vring.h - private interface between vq.c (dispatch, shared helpers) and
 * the two layouts, vring_split.c and vring_packed.c. Nothing outside these
 * three files includes it.
 */
#ifndef VNET_VRING_H
#define VNET_VRING_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/virtio_config.h>

#include "util.h"
#include "vq.h"

/* Packed descriptor flag bits (virtio 1.2, "Packed Virtqueues") */
#define VRING_PACKED_F_AVAIL	(1u << VRING_PACKED_DESC_F_AVAIL)
#define VRING_PACKED_F_USED	(1u << VRING_PACKED_DESC_F_USED)
#define VRING_PACKED_WRAP	(1u << VRING_PACKED_EVENT_F_WRAP_CTR)

int vq_break(struct vq *vq, const char *fmt, ...) PRINTF_FMT(2, 3);
void vq_chain_start(struct vq_chain *c);
int vq_chain_add(struct vq *vq, struct vq_chain *c, uint64_t addr,
		 uint32_t len, bool write);
void vq_chain_commit(struct vq *vq, struct vq_chain *c);
const void *vq_indirect_table(struct vq *vq, uint64_t addr, uint32_t len);

/* vring_split.c */
void vring_split_setup(struct vq *vq);
int vring_split_pop(struct vq *vq, struct vq_chain *c);
bool vring_split_flush(struct vq *vq);
bool vring_split_avail_pending(struct vq *vq);
void vring_split_disable_notify(struct vq *vq);
bool vring_split_enable_notify(struct vq *vq);
int vring_split_drv_add(struct vq *vq, const struct vq_buf *out,
			unsigned int nout, const struct vq_buf *in,
			unsigned int nin, uint32_t token);
bool vring_split_drv_kick_needed(struct vq *vq);
int vring_split_drv_get_used(struct vq *vq, uint32_t *token, uint32_t *len);
int vring_split_drv_get_used_burst(struct vq *vq, uint32_t *tokens,
				   uint32_t *lens, unsigned int max);
void vring_split_drv_disable_cb(struct vq *vq);
bool vring_split_drv_enable_cb(struct vq *vq);

/* vring_packed.c */
void vring_packed_setup(struct vq *vq);
int vring_packed_pop(struct vq *vq, struct vq_chain *c);
void vring_packed_unpop(struct vq *vq, uint32_t slots);
bool vring_packed_flush(struct vq *vq);
bool vring_packed_avail_pending(struct vq *vq);
void vring_packed_disable_notify(struct vq *vq);
bool vring_packed_enable_notify(struct vq *vq);
int vring_packed_drv_add(struct vq *vq, const struct vq_buf *out,
			 unsigned int nout, const struct vq_buf *in,
			 unsigned int nin, uint32_t token);
bool vring_packed_drv_kick_needed(struct vq *vq);
int vring_packed_drv_get_used(struct vq *vq, uint32_t *token, uint32_t *len);
void vring_packed_drv_disable_cb(struct vq *vq);
bool vring_packed_drv_enable_cb(struct vq *vq);

#endif /* VNET_VRING_H */
