/* SPDX-License-Identifier: MIT */
/*
 * host_priv.h - the ops table of each host, for host.c's list only.
 * Everyone else reaches hosts through host_find().
 */
#ifndef VNET_HOST_PRIV_H
#define VNET_HOST_PRIV_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "host.h"

extern const struct host_ops host_null_ops;
extern const struct host_ops host_loop_ops;
extern const struct host_ops host_gen_ops;
extern const struct host_ops host_tap_ops;

unsigned int host_tap_offload_flags(uint64_t features);

/* Shared by the hosts that never reach a host stack (host_null.c) */
uint64_t host_any_offload(struct host *host);
ssize_t host_discard_tx(struct host *host, unsigned int pair,
		      const struct iovec *iov, unsigned int iovcnt);

#endif /* VNET_HOST_PRIV_H */
