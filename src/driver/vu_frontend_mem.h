/* SPDX-License-Identifier: MIT */
/*
 * vu_frontend_mem.h - the frontend's memory layer (vu_frontend_mem.c), on
 * vu_frontend_core: guest memory and where each ring and buffer lies in it.
 * Used by vu_frontend_ctl.c only; not library API.
 */
#ifndef VNET_VU_FRONTEND_MEM_H
#define VNET_VU_FRONTEND_MEM_H

#include "vu_frontend_core.h"

int vu_frontend_mem_setup(struct vu_frontend *f);
void vu_frontend_mem_cleanup(struct vu_frontend *f);
int vu_frontend_mem_rings_setup(struct vu_frontend *f);
void vu_frontend_mem_rings_cleanup(struct vu_frontend *f);

#endif /* VNET_VU_FRONTEND_MEM_H */
