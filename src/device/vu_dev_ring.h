/* SPDX-License-Identifier: MIT */
/*
 * vu_dev_ring.h - the vhost-user device's ring layer (vu_dev_ring.c), on
 * vu_dev_mem: the ring messages and a ring's reset. Used by vu_backend
 * (the dispatcher) only; not library API.
 */
#ifndef VNET_VU_DEV_RING_H
#define VNET_VU_DEV_RING_H

#include "vu_dev_mem.h"

/* Handlers, same signature as the dispatch table's (vu_backend.c) */
int vu_set_vring_num(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_set_vring_addr(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_set_vring_base(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_get_vring_base(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_set_vring_kick(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_set_vring_call(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_set_vring_err(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_set_vring_enable(struct vu_dev *d, struct vu_msg *m, unsigned int idx);

/* Ring lifetime, called with the ring's pair paused */
void vu_ring_reset(struct vu_dev *d, unsigned int idx);

#endif /* VNET_VU_DEV_RING_H */
