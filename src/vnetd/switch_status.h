/* SPDX-License-Identifier: MIT */
/*
 * switch_status.h - the switches as the control socket shows them:
 * switch list, switch show NAME (text and JSON) and their Prometheus
 * families (switch_status.c)
 */
#ifndef VNETD_SWITCH_STATUS_H
#define VNETD_SWITCH_STATUS_H

#include <stdbool.h>

struct sbuf;
struct vnetd_port;

void switch_status_list(struct sbuf *b, struct vnetd_port *ports,
			unsigned int nports, bool json);
int switch_status_show(struct sbuf *b, struct vnetd_port *ports,
		       unsigned int nports, const char *name, bool json);
void switch_status_prometheus(struct sbuf *b, struct vnetd_port *ports,
			      unsigned int nports);

#endif /* VNETD_SWITCH_STATUS_H */
