/* SPDX-License-Identifier: MIT */
/*
 * be_priv.h - the ops table of each backend, for backend.c's list only.
 * Everyone else reaches backends through backend_find().
 */
#ifndef VNET_BE_PRIV_H
#define VNET_BE_PRIV_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "backend.h"

extern const struct backend_ops be_null_ops;
extern const struct backend_ops be_loop_ops;
extern const struct backend_ops be_gen_ops;
extern const struct backend_ops be_tap_ops;

unsigned int be_tap_offload_flags(uint64_t features);

/* Shared by the backends that never reach a host stack (be_null.c) */
uint64_t be_any_offload(struct backend *be);
ssize_t be_discard_tx(struct backend *be, unsigned int pair,
		      const struct iovec *iov, unsigned int iovcnt);

#endif /* VNET_BE_PRIV_H */
