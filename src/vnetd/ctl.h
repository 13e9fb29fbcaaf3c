/* SPDX-License-Identifier: MIT */
/*
 * ctl.h - the control socket (ctl.c)
 */
#ifndef VNETD_CTL_H
#define VNETD_CTL_H

#include <stdint.h>

#include "vnetd.h"

int ctl_open(const char *path);
void ctl_close(int fd, const char *path);
void ctl_serve(int fd, int epfd, struct vnetd_port *ports,
	       unsigned int nports);
void ctl_client_event(const struct vnetd_ev *ev, uint32_t events);
int ctl_timeout_ms(uint64_t now_ms);
void ctl_tick(uint64_t now_ms);
uint64_t ctl_refused(enum ctl_refuse why);

#endif /* VNETD_CTL_H */
