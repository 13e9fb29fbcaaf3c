/* SPDX-License-Identifier: MIT */
/*
 * vu_frontend_core.h - the bottom layer of the vhost-user frontend: how
 * every layer records the reason of a failure (a struct reason in struct
 * vu_frontend, read by vu_frontend_error()) and the buffer sizes memory
 * and data agree on. Layers, bottom-up: vu_frontend_core.h,
 * vu_frontend_mem.c (guest memory, ring placement), vu_frontend_data.c
 * (per-packet path, first RX buffers), vu_frontend_ctl.c (messages,
 * negotiation, the control API). Each includes only the headers of its
 * own layer and those below; none is part of the library API.
 */
#ifndef VNET_VU_FRONTEND_CORE_H
#define VNET_VU_FRONTEND_CORE_H

#include "reason.h"
#include "vu_frontend_types.h"
#include "util.h"

/* TX frames longer than this are split into descriptors of this size */
#define FE_TX_SEG	4096
/* Most descriptors one TX frame takes (vnet header + TSO frame) */
#define FE_TX_MAX_SEGS	((VU_FRONTEND_HDR_LEN + VU_FRONTEND_MAX_FRAME + \
			  FE_TX_SEG - 1) / FE_TX_SEG)
/* RX buffer size with mergeable RX buffers */
#define FE_RX_MRG_BUF	2048

/**
 * vu_frontend_set_err() - Record a one-line reason, pass an error code through
 * @f:		Frontend
 * @ret:	-errno to return
 * @...:	printf format of the reason and its arguments
 *
 * Return: @ret
 */
#define vu_frontend_set_err(f, ret, ...) \
	reason_set(&(f)->err, (ret), __VA_ARGS__)

#endif /* VNET_VU_FRONTEND_CORE_H */
