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

/*
 * The ring counters, one line each: X(field, Prometheus family suffix,
 * help, Prometheus divisor). struct ring_counters, the worker's commit and
 * every status format (text, JSON: the field name and raw value;
 * Prometheus: vnetd_queue_<suffix>, the value divided by the divisor, so
 * that a time is exported in seconds, its base unit) are made from this
 * list, in this order, so a new counter is one line here.
 */
#define RING_COUNTERS(X)						\
	X(packets, "packets_total", "Frames moved by a virtqueue", 1)	\
	X(bytes, "bytes_total", "Frame bytes moved by a virtqueue", 1)	\
	X(kicks, "kicks_total", "Wakes by the guest's kick", 1)		\
	X(calls, "calls_total", "Notifications sent to the guest", 1)	\
	X(batches, "batches_total", "Used-ring flushes", 1)		\
	X(breaks, "breaks_total", "Times the ring broke on bad guest data", 1) \
	X(busy_ns, "busy_seconds_total",				\
	  "Worker time spent moving this ring's frames (idle polling excluded)", \
	  1000000000)

/*
 * Why a frame was dropped, one counter each: X(enum name, reason label).
 * The label is the status/JSON key and the Prometheus reason="" value.
 */
#define RING_DROPS(X)							\
	X(DROP_NO_RX_BUF, "no_rx_buf")	/* guest posted no (or too few) RX buffers */ \
	X(DROP_BAD_HDR, "bad_hdr")	/* invalid vnet header from the guest */ \
	X(DROP_TOO_SHORT, "too_short")	/* chain shorter than the vnet header */ \
	X(DROP_HOST, "host")		/* host side refused the frame */ \
	X(DROP_DISABLED, "disabled")	/* ring started but disabled: drained */ \
	X(DROP_TOO_BIG, "too_big")	/* frame larger than the buffers offered */ \
	X(DROP_SPOOF, "spoofed")	/* source MAC/IP not the port's (spoof.h) */

#define RING_DROP_ENUM(e, label)	e,
enum ring_drop {
	RING_DROPS(RING_DROP_ENUM)
	DROP_MAX
};
#undef RING_DROP_ENUM

/**
 * struct ring_counters - Per-ring statistics (relaxed atomics): the fields
 *			  of RING_COUNTERS(), then one drop counter per reason
 */
#define RING_COUNTER_FIELD(f, prom, help, div)	uint64_t f;
struct ring_counters {
	RING_COUNTERS(RING_COUNTER_FIELD)
	uint64_t drops[DROP_MAX];
};
#undef RING_COUNTER_FIELD

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
 * @datapath:	VNET_DP_USER, VNET_DP_KERNEL or VNET_DP_IDLE, for status;
 *		written only by vnet_pair_set_datapath()
 * @why:	One line: why that data path (same writer)
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

/* struct vnet_pair's @datapath values */
#define VNET_DP_KERNEL	"vhost-net"
#define VNET_DP_USER	"userspace"
#define VNET_DP_IDLE	"idle"

void vnet_pair_set_datapath(struct vnet_pair *p, const char *dp,
			    const char *fmt, ...) PRINTF_FMT(3, 4);

#endif /* VNET_PAIR_H */
