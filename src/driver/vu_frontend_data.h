/* SPDX-License-Identifier: MIT */
/*
 * vu_frontend_data.h - what the frontend's data layer (vu_frontend_data.c,
 * on vu_frontend_core) gives the control path above it: kicks, a ring's
 * resume position, the first RX buffers. The per-packet API itself is
 * public (vu_frontend.h). Not library API.
 */
#ifndef VNET_VU_FRONTEND_DATA_H
#define VNET_VU_FRONTEND_DATA_H

#include "vu_frontend_core.h"

void vu_frontend_data_kick(struct vu_frontend_queue *q);
uint32_t vu_frontend_data_ring_position(const struct vq_drv *vq);
int vu_frontend_data_setup(struct vu_frontend *f);

#endif /* VNET_VU_FRONTEND_DATA_H */
