/* SPDX-License-Identifier: MIT */
/*
 * worker_types.h - what a port tells its data plane threads (worker.h),
 * and the constants their users share: types only, so that the serving
 * loop (worker_loop.h) and the threads' lifecycle (worker.h) both build on
 * it without depending on each other.
 */
#ifndef VNET_WORKER_TYPES_H
#define VNET_WORKER_TYPES_H

#include <signal.h>

#include "spoof.h"

struct worker_pool;

/* Threads of one worker_pool at most (vnetd --worker-threads) */
#define WORKER_POOL_MAX	256

/*
 * Frames a ring moves in one turn of its pair's pass while both directions
 * have frames: TX and RX take turns, each ending in a used-ring flush
 * (worker_loop.c, worker_serve_pair()). One TX turn is one burst (NET_TX_BURST).
 * The kernel's vhost-net publishes every 64 frames (VHOST_NET_BATCH),
 * DPDK's vhost every burst of 32; 16 measured best here for a guest whose
 * frames come back through vnetd (docs/performance.md, "The worker's pass: the loop case").
 * Overridable at build time (-DWORKER_TURN=N) to measure another value.
 */
#ifndef WORKER_TURN
#define WORKER_TURN		16
#endif

/*
 * Left unblocked in worker threads (which block every other signal but
 * SIGBUS): the daemon's sandbox uses it to apply per-thread changes
 * (capabilities, no_new_privs, Landlock) to threads already running
 */
#define WORKER_SIG_SANDBOX	(SIGRTMIN + 2)

/**
 * struct worker_opts - Data path tuning
 * @budget_pkts:	Frames per ring per wake before yielding (default 256)
 * @budget_bytes:	Bytes per ring per wake before yielding (default 1 MiB)
 * @poll_us:		Busy-poll this long before sleeping (0: never)
 * @nthreads:		Threads for the port's pairs (0: one per pair)
 * @spoof:		Anti-spoofing of guest TX (spoof.h), all zero: off
 * @pool:		Shared threads to hand the pairs to instead of threads
 *			of the port's own (@nthreads then unused), NULL: none
 */
struct worker_opts {
	unsigned int budget_pkts;
	unsigned int budget_bytes;
	unsigned int poll_us;
	unsigned int nthreads;
	struct spoof_policy spoof;
	struct worker_pool *pool;
};

#endif /* VNET_WORKER_TYPES_H */
