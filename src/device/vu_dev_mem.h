/* SPDX-License-Identifier: MIT */
/*
 * vu_dev_mem.h - the vhost-user device's memory layer (vu_dev_mem.c): the
 * memory table, the dirty log and ring translation, on vu_dev_core. Used
 * by vu_dev_ring, vu_dev_net and vu_backend above it; not library API.
 */
#ifndef VNET_VU_DEV_MEM_H
#define VNET_VU_DEV_MEM_H

#include "vu_dev_core.h"

/* Handlers, same signature as the dispatch table's (vu_backend.c) */
int vu_set_mem_table(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_add_mem_reg(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_rem_mem_reg(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_get_max_mem_slots(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_set_log_base(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_set_log_fd(struct vu_dev *d, struct vu_msg *m, unsigned int idx);

/* Rings in guest memory, called with the ring's pair paused */
int vu_ring_translate(struct vu_dev *d, unsigned int idx, uint32_t num,
		      const uint64_t uva[3], void *p[3]);
void vu_ring_uvas(const struct vu_ring *r, uint64_t uva[3]);
void vu_ring_update_log(struct vu_dev *d, unsigned int idx);
int vu_offload_log(struct vu_dev *d);
void vu_mem_reset(struct vu_dev *d);

#endif /* VNET_VU_DEV_MEM_H */
