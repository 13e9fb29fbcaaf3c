/* SPDX-License-Identifier: MIT */
/*
 * worker.h - the data plane threads: a port's pool of workers, each
 * serving some of the port's queue pairs (pair.h) between their rings and
 * the host side (host.h), either threads of its own or threads of a
 * worker_group that many ports share. The control thread pauses a pair's
 * worker before it changes anything of that pair and resumes it after.
 */
#ifndef VNET_WORKER_H
#define VNET_WORKER_H

#include <signal.h>

#include "host.h"
#include "pair.h"
#include "spoof.h"

/* Threads of one worker_group at most (vnetd --worker-threads) */
#define WORKER_GROUP_MAX	256

/*
 * Frames a ring moves in one turn of its pair's pass while both directions
 * have frames: TX and RX take turns, each ending in a used-ring flush
 * (worker.c, worker_serve_pair()). One TX turn is one burst (NET_TX_BURST).
 * The kernel's vhost-net publishes every 64 frames (VHOST_NET_BATCH),
 * DPDK's vhost every burst of 32; 16 measured best here for a guest whose
 * frames come back through vnetd (docs/performance.md, "The loop case").
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
 * @group:		Shared threads to hand the pairs to instead of threads
 *			of the port's own (@nthreads then unused), NULL: none
 */
struct worker_opts {
	unsigned int budget_pkts;
	unsigned int budget_bytes;
	unsigned int poll_us;
	unsigned int nthreads;
	struct spoof_policy spoof;
	struct worker_group *group;
};

struct worker_pool;
struct worker_group;

int worker_group_create(struct worker_group **gp, unsigned int nthreads);
void worker_group_destroy(struct worker_group *g);
unsigned int worker_group_threads(const struct worker_group *g);
unsigned int worker_group_pairs(const struct worker_group *g, unsigned int i);

int worker_pool_create(struct worker_pool **poolp, const char *port_name,
		       struct vnet_pair *pairs, unsigned int npairs,
		       struct host *host, const struct worker_opts *o);
void worker_pool_destroy(struct worker_pool *pool);
void worker_pause(struct worker_pool *pool, unsigned int pair);
void worker_resume(struct worker_pool *pool, unsigned int pair);
void worker_pause_all(struct worker_pool *pool);
void worker_resume_all(struct worker_pool *pool);
void worker_pool_set_conn(struct worker_pool *pool, int fd);
void worker_unpause_all(struct worker_pool *pool);

#endif /* VNET_WORKER_H */
