/* SPDX-License-Identifier: MIT */
/*
 * pair.h - a queue pair as the control plane (vu_backend) and the data plane
 * (worker, net) share it: its two rings with their eventfds and counters.
 * The threads that serve pairs are worker.h's.
 *
 * Ownership: the control thread writes a pair's fields only while that pair
 * is paused (worker_pause()); the worker thread reads them after
 * worker_resume(). Counters are written by the worker only, with relaxed
 * atomics, and read by anyone.
 */
#ifndef VNET_PAIR_H
#define VNET_PAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "util.h"
#include "vq.h"

/* The old name, until vu_backend*.c and worker.c say VNET_MAX_PAIRS */
#define PORT_MAX_PAIRS	VNET_MAX_PAIRS

/* Why a frame was dropped, one counter each */
enum ring_drop {
	DROP_NO_RX_BUF,		/* guest posted no (or too few) RX buffers */
	DROP_BAD_HDR,		/* invalid vnet header from the guest */
	DROP_TOO_SHORT,		/* chain shorter than the vnet header */
	DROP_HOST,		/* host side refused the frame */
	DROP_DISABLED,		/* ring started but disabled: drained */
	DROP_TOO_BIG,		/* frame larger than the buffers offered */
	DROP_MAX
};

/**
 * struct ring_counters - Per-ring statistics (relaxed atomics)
 */
struct ring_counters {
	uint64_t packets;
	uint64_t bytes;
	uint64_t drops[DROP_MAX];
	uint64_t kicks;		/* wakes by the guest's kick */
	uint64_t calls;		/* notifications we sent */
	uint64_t batches;	/* used-ring flushes */
	uint64_t breaks;	/* times the ring broke */
	uint64_t busy_ns;	/* worker time spent moving this ring's frames */
};

/**
 * struct vnet_ring - One virtqueue as the data plane sees it
 * @vq:		Ring state (vq.h)
 * @kick_fd:	Guest kick eventfd, -1: none (the worker polls)
 * @call_fd:	Our notification eventfd, -1: none
 * @err_fd:	Error eventfd, signalled when the ring breaks, -1: none
 * @started:	Kick fd received and addresses set: the worker may touch it
 * @enabled:	SET_VRING_ENABLE state: disabled rings drain TX, skip RX
 * @ctr:	Counters
 */
struct vnet_ring {
	struct vq vq;
	int kick_fd;
	int call_fd;
	int err_fd;
	bool started;
	bool enabled;
	struct ring_counters ctr;
};

/**
 * struct vnet_pair - A queue pair: RX is virtqueue 2i, TX is 2i + 1
 * @rx:		Host to guest
 * @tx:		Guest to host
 * @index:	i
 * @features:	Negotiated virtio-net features (MRG_RXBUF, offloads)
 * @hdr_len:	vnet header length in guest buffers (10 or 12)
 * @datapath:	"userspace", "vhost-net" or "idle", for status
 * @why:	One line: why that data path
 * @kernel:	The kernel's vhost-net runs this pair: the worker leaves its
 *		rings, kick fds and host queue alone (set by vu_backend with
 *		the pair paused, read by the worker after worker_resume())
 */
struct vnet_pair {
	struct vnet_ring rx;
	struct vnet_ring tx;
	unsigned int index;
	uint64_t features;
	unsigned int hdr_len;
	const char *datapath;
	char why[96];
	bool kernel;
};

#endif /* VNET_PAIR_H */
