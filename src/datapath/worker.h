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

#include "host.h"
#include "pair.h"
#include "worker_types.h"

struct worker_pool;

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
