/* SPDX-License-Identifier: MIT */
/*
 * vu_frontend_int.h - what the vu_frontend*.c files share among themselves:
 * not part of the library API. Each helper carries its file's prefix.
 */
#ifndef VNET_VU_FRONTEND_INT_H
#define VNET_VU_FRONTEND_INT_H

#include "vu_frontend.h"
#include "util.h"

/* TX frames longer than this are split into descriptors of this size */
#define FE_TX_SEG	4096
/* Most descriptors one TX frame takes (vnet header + TSO frame) */
#define FE_TX_MAX_SEGS	((VU_FRONTEND_HDR_LEN + VU_FRONTEND_MAX_FRAME + \
			  FE_TX_SEG - 1) / FE_TX_SEG)
/* RX buffer size with mergeable RX buffers */
#define FE_RX_MRG_BUF	2048

int vu_frontend_set_err(struct vu_frontend *f, int ret, const char *fmt, ...)
	PRINTF_FMT(3, 4);
int vu_frontend_send(struct vu_frontend *f, uint32_t req, const void *payload,
	    uint32_t size, const int *fds, unsigned int nfds);

/* vu_frontend_mem.c */
int vu_frontend_mem_setup(struct vu_frontend *f);
void vu_frontend_mem_cleanup(struct vu_frontend *f);
int vu_frontend_mem_rings_setup(struct vu_frontend *f);
void vu_frontend_mem_rings_cleanup(struct vu_frontend *f);

/* vu_frontend_data.c */
void vu_frontend_data_kick(struct vu_frontend_queue *q);
uint32_t vu_frontend_data_ring_position(const struct vq *vq);
int vu_frontend_data_rx_post_all(struct vu_frontend_queue *q);

#endif /* VNET_VU_FRONTEND_INT_H */
