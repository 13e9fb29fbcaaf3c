/* SPDX-License-Identifier: MIT */
/*
 * vu_frontend.h - the driver side of vhost-user-net: a userspace virtio-net
 * driver that talks to any vhost-user-net backend (vnetd, DPDK net_vhost, ...)
 * the way a VMM does. For VMMs that want a vhost-user NIC, and for our own
 * tests and benchmarks (vnet-bench) that act as a VM without a VM.
 *
 * Lifetime:
 *
 *	struct vu_frontend f;
 *	vu_frontend_init(&f, &opts);		validate options, no I/O
 *	vu_frontend_connect(&f, path);		or vu_frontend_adopt(&f, fd, flags)
 *	...vu_frontend_tx() / vu_frontend_rx() / vu_frontend_wait()...
 *	vu_frontend_stop(&f);			GET_VRING_BASE: positions saved
 *	vu_frontend_disconnect(&f);		socket closed if owned
 *	vu_frontend_connect(&f, path);		resume at the saved positions
 *	vu_frontend_cleanup(&f);		unmap, close what we own
 *
 * Queue numbering follows virtio-net: pair i is RX ring 2i and TX ring 2i+1.
 *
 * Ownership: a socket given to vu_frontend_adopt() stays the caller's unless
 * VU_FRONTEND_TAKE_FD is passed. Eventfds and memory fds the caller puts in
 * struct vu_frontend_opts are never closed by the library. Everything the
 * library creates itself (memfds, eventfds, sockets from connect) it closes.
 *
 * Errors: every fallible function returns 0 or -errno and leaves a one-line
 * reason in vu_frontend_error().
 *
 * Implemented bottom-up by vu_frontend_core.h, vu_frontend_mem.c,
 * vu_frontend_data.c (the data path below) and vu_frontend_ctl.c (the
 * control functions below).
 *
 * Threading: control functions (init, connect, adopt, stop, disconnect,
 * cleanup) from one thread while no data path call runs; the live control
 * functions (memory hotplug, dirty log, ring enable) from that thread while
 * the data path runs. The data path
 * functions for pair P may run on one thread per pair, concurrently with the
 * data path of other pairs.
 */
#ifndef VNET_VU_FRONTEND_H
#define VNET_VU_FRONTEND_H

#include "vu_frontend_types.h"

/* Control (one thread) */
int vu_frontend_init(struct vu_frontend *f, const struct vu_frontend_opts *o);
int vu_frontend_connect(struct vu_frontend *f, const char *path);
int vu_frontend_adopt(struct vu_frontend *f, int sock, unsigned int flags);
int vu_frontend_stop(struct vu_frontend *f);
void vu_frontend_disconnect(struct vu_frontend *f);
void vu_frontend_cleanup(struct vu_frontend *f);
const char *vu_frontend_error(const struct vu_frontend *f);
uint32_t vu_frontend_ring_base(const struct vu_frontend *f, unsigned int ring);

/* Control while the rings run (vu_frontend_live.c), same thread as above */
int vu_frontend_mem_add(struct vu_frontend *f, const struct vu_frontend_region *r,
			void *host);
int vu_frontend_mem_remove(struct vu_frontend *f,
			   const struct vu_frontend_region *r, void *host);
uint64_t vu_frontend_mem_end(const struct vu_frontend *f);
uint64_t vu_frontend_log_size(const struct vu_frontend *f);
int vu_frontend_log_start(struct vu_frontend *f, int fd, uint64_t size);
int vu_frontend_log_stop(struct vu_frontend *f);
int vu_frontend_ring_enable(struct vu_frontend *f, unsigned int ring, bool on);

/**
 * typedef vu_frontend_rx_cb - Called once per received frame
 * @opaque:	Caller's pointer
 * @hdr:	The frame's virtio-net header (host-order copy)
 * @iov:	The frame (without header), in shared memory: valid only
 *		during the call
 * @niov:	Entries in @iov
 * @len:	Frame length in bytes
 */
typedef void (*vu_frontend_rx_cb)(void *opaque,
				  const struct virtio_net_hdr_v1 *hdr,
				  const struct iovec *iov, unsigned int niov,
				  uint32_t len);

/* Data path (the thread that owns the pair) */
int vu_frontend_tx(struct vu_frontend *f, unsigned int pair,
		   const struct virtio_net_hdr_v1 *hdr, const void *frame,
		   uint32_t len);
int vu_frontend_tx_reserve(struct vu_frontend *f, unsigned int pair,
			   uint32_t len, void **frame, uint32_t *slot);
int vu_frontend_tx_commit(struct vu_frontend *f, unsigned int pair,
			  const struct virtio_net_hdr_v1 *hdr);
int vu_frontend_tx_flush(struct vu_frontend *f, unsigned int pair);
unsigned int vu_frontend_tx_reclaim(struct vu_frontend *f, unsigned int pair);
int vu_frontend_rx(struct vu_frontend *f, unsigned int pair,
		   vu_frontend_rx_cb cb, void *opaque, unsigned int budget);
int vu_frontend_wait(struct vu_frontend *f, unsigned int pair,
		     int timeout_ms);
const struct vu_frontend_stats *vu_frontend_stats(const struct vu_frontend *f,
						  unsigned int ring);

#endif /* VNET_VU_FRONTEND_H */
