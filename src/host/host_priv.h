/* SPDX-License-Identifier: MIT */
/*
 * host_priv.h - what the host_*.c files share below host.h: each host's
 * ops table (for host.c's list and the unit test of the hosts), the tap
 * host's offload mapping (tested on its own), and the two ops of a host
 * that never reaches a host stack, defined in host_null.c and reused by
 * host_gen.c (tx) and host_loop.c (host_features). A host that holds a
 * frame in its own memory (gen, loop, a tap RX batch) copies it out with
 * iov.h. Not library API: the
 * rest of libvnet and the programs reach hosts through host_find().
 */
#ifndef VNET_HOST_PRIV_H
#define VNET_HOST_PRIV_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "host.h"
#include "iov.h"

extern const struct host_ops host_null_ops;
extern const struct host_ops host_loop_ops;
extern const struct host_ops host_gen_ops;
extern const struct host_ops host_tap_ops;
extern const struct host_ops host_switch_ops;
#ifdef VNET_HAVE_LIBXDP
extern const struct host_ops host_afxdp_ops;
#endif

unsigned int host_tap_offload_flags(uint64_t features);

/* Hosts that never reach a host stack: null, gen, loop (host_null.c) */
uint64_t host_any_offload(struct host *host);
ssize_t host_discard_tx(struct host *host, unsigned int pair,
		      const struct iovec *iov, unsigned int iovcnt);

#endif /* VNET_HOST_PRIV_H */
