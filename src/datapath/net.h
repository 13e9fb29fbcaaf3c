/* SPDX-License-Identifier: MIT */
/*
 * net.h - the virtio-net device data path of one queue pair: validation of
 * guest offload metadata (the header's length and feature rules are
 * vnet_hdr.h's), guest TX of one chain to the host side and host RX of one
 * frame into guest buffers (mergeable or not). Knows rings only through vq.h and the host only
 * through host.h; threads, epoll and notifications are worker_loop.c's.
 */
#ifndef VNET_NET_H
#define VNET_NET_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>
#include <linux/virtio_net.h>

#include "host.h"
#include "pair.h"
#include "spoof.h"
#include "vnet_hdr.h"
#include "vq.h"

#define NET_MAX_IOV		1024	/* UIO_MAXIOV: what one readv/writev takes */
#define NET_RX_MAX_CHAINS	64	/* mergeable buffers for one frame */
#define NET_TX_BURST		16	/* TX chains popped before the first send */
#define NET_RX_AHEAD		8	/* RX chains popped before their frames */
#define NET_BOUNCE_SIZE		(VNET_FRAME_MAX + VNET_HDR_MAX + 16)

/**
 * struct net_scratch - Per worker thread buffers, allocated once
 * @iov:	Flattened iovecs handed to the host side
 * @chains:	Chains popped for one frame (RX: up to NET_RX_MAX_CHAINS)
 * @bounce:	RX tail when the host side cannot tell the frame length
 *		(NET_BOUNCE_SIZE bytes)
 * @uring:	TX: the thread's io_uring (tap_uring.h) for hosts with
 *		tx_batch, NULL: one tx call per frame
 */
struct net_scratch {
	struct iovec iov[NET_MAX_IOV];
	struct vq_chain chains[NET_RX_MAX_CHAINS];
	uint8_t *bounce;
	struct tap_uring *uring;
};

/**
 * struct net_io - One ring direction of one pair, as net_tx/net_rx see it
 * @vq:		The ring (TX or RX), owned by the calling thread
 * @host:		Host side of the port
 * @pair:	Queue pair index (host queue)
 * @hdr_len:	vnet header length (vnet_hdr_len() of @features)
 * @features:	Negotiated virtio-net features
 * @s:		Scratch of the calling thread
 * @acc:	Local, non-atomic counter accumulators; the caller adds them
 *		to the shared counters once per batch
 * @rx_est:	RX ring, host that cannot tell a frame's length (tap):
 *		estimate of the next frame's bytes (header included), kept by
 *		net_rx_one() across calls. NULL: always offer the largest.
 * @spoof:	TX: anti-spoofing policy (spoof_active()), NULL: none
 */
struct net_io {
	struct vq *vq;
	struct host *host;
	unsigned int pair;
	unsigned int hdr_len;
	uint64_t features;
	struct net_scratch *s;
	struct ring_counters *acc;
	uint32_t *rx_est;
	const struct spoof_policy *spoof;
};

int net_scratch_init(struct net_scratch *s);
void net_scratch_cleanup(struct net_scratch *s);
int net_tx_one(const struct net_io *io);
unsigned int net_tx_burst(const struct net_io *io, unsigned int max,
			  uint64_t *bytes, int *err);
int net_tx_drop_one(const struct net_io *io);
int net_rx_one(const struct net_io *io);
unsigned int net_rx_burst(const struct net_io *io, unsigned int max,
			  uint64_t max_bytes, uint64_t *bytes, int *err);

#endif /* VNET_NET_H */
