/* SPDX-License-Identifier: MIT */
/*
 * svc.h - vnetd as a host service (svc.c): start, ready, the control
 * thread's once-a-second housekeeping
 */
#ifndef VNETD_SVC_H
#define VNETD_SVC_H

struct vnetd_cfg;
struct vnetd_port;

int svc_start(struct vnetd_cfg *cfg);
int svc_ready(const struct vnetd_cfg *cfg);
void svc_tick(struct vnetd_port *ports, unsigned int nports);

#endif /* VNETD_SVC_H */
