/* SPDX-License-Identifier: MIT */
/*
 * vq_chain.h - helpers the layouts' device sides share to turn descriptors
 * (read-once copies of guest data) into a chain of translated iovecs, and
 * to break a queue. Below the layouts, above gmem: included by
 * vring_split_dev.c, vring_packed_dev.c, the driver sides (vq_break()
 * only) and vq.c; it calls nothing above it.
 */
#ifndef VNET_VQ_CHAIN_H
#define VNET_VQ_CHAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "util.h"
#include "vq_types.h"

int vq_break(struct vq *vq, const char *fmt, ...) PRINTF_FMT(2, 3);
void vq_chain_start(struct vq_chain *c);
int vq_chain_add(struct vq *vq, struct vq_chain *c, uint64_t addr,
		 uint32_t len, bool write);
void vq_chain_commit(struct vq *vq, struct vq_chain *c);
const void *vq_chain_indirect(struct vq *vq, uint64_t addr, uint32_t len);

#endif /* VNET_VQ_CHAIN_H */
