/* SPDX-License-Identifier: MIT */
/*
 * metrics.h - status and metrics as text, JSON and Prometheus (metrics.c),
 * from what the caller passes
 */
#ifndef VNETD_METRICS_H
#define VNETD_METRICS_H

#include <stdint.h>

struct sbuf;
struct vnetd_port;
struct worker_pool;

void metrics_status_text(struct sbuf *b, struct vnetd_port *ports,
			 unsigned int nports);
void metrics_status_json(struct sbuf *b, struct vnetd_port *ports,
			 unsigned int nports);
void metrics_prometheus(struct sbuf *b, struct vnetd_port *ports,
			unsigned int nports, const struct worker_pool *group,
			const uint64_t *ctl_refusals);

#endif /* VNETD_METRICS_H */
