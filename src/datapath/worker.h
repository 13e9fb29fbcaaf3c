/* SPDX-License-Identifier: MIT */
/*
 * worker.h - the data plane threads: a port's pool of workers, each
 * serving some of the port's queue pairs (pair.h) between their rings and
 * the host side (host.h), either threads of its own or threads of a
 * worker_pool that many ports share. The control thread pauses a pair's
 * worker before it changes anything of that pair and resumes it after.
 */
#ifndef VNET_WORKER_H
#define VNET_WORKER_H

#include "host.h"
#include "pair.h"
#include "worker_types.h"

struct worker_port;

int worker_pool_create(struct worker_pool **poolp, unsigned int nthreads);
void worker_pool_destroy(struct worker_pool *g);
unsigned int worker_pool_threads(const struct worker_pool *g);
unsigned int worker_pool_pairs(const struct worker_pool *g, unsigned int i);

int worker_port_create(struct worker_port **wportp, const char *port_name,
		       struct vnet_pair *pairs, unsigned int npairs,
		       struct host *host, const struct worker_opts *o);
void worker_port_destroy(struct worker_port *wport);
void worker_pause(struct worker_port *wport, unsigned int pair);
void worker_resume(struct worker_port *wport, unsigned int pair);
void worker_pause_all(struct worker_port *wport);
void worker_resume_all(struct worker_port *wport);
void worker_port_set_conn(struct worker_port *wport, int fd);
void worker_unpause_all(struct worker_port *wport);

#endif /* VNET_WORKER_H */
