/* SPDX-License-Identifier: MIT */
/*
 * vu_frontend_ctl.h - the message primitives of vu_frontend_ctl.c, for the
 * layer above it (vu_frontend_live.c: requests sent while rings run). Not
 * part of the library API.
 */
#ifndef VNET_VU_FRONTEND_CTL_H
#define VNET_VU_FRONTEND_CTL_H

#include <stdbool.h>
#include <stdint.h>

#include "vu_msg.h"
#include "vu_frontend_types.h"

bool vu_frontend_has_proto(const struct vu_frontend *f, unsigned int bit);
int vu_frontend_send(struct vu_frontend *f, uint32_t req, const void *payload,
		     uint32_t size, const int *fds, unsigned int nfds);
int vu_frontend_recv_reply(struct vu_frontend *f, uint32_t req,
			   struct vu_msg *r, uint32_t size, bool size_max);

#endif /* VNET_VU_FRONTEND_CTL_H */
