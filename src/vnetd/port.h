/* SPDX-License-Identifier: MIT */
/*
 * port.h - one port on the main thread (port.c): its host, device and socket
 */
#ifndef VNETD_PORT_H
#define VNETD_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "reason.h"
#include "vnetd.h"

struct worker_pool;

int port_init(struct vnetd_port *p, const struct vnetd_port_cfg *cfg, int epfd,
	      struct reason *why);
void port_cleanup(struct vnetd_port *p);
void port_set_stall_ms(unsigned int ms);
int port_pool_init(unsigned int nthreads);
void port_pool_cleanup(void);
const struct worker_pool *port_pool(void);
void port_event(struct vnetd_port *p, enum vnetd_ev_type type,
		uint32_t events);
int port_timeout_ms(const struct vnetd_port *p, uint64_t now_ms);
void port_tick(struct vnetd_port *p, uint64_t now_ms);
int port_adopt(struct vnetd_port *p, int fd);

#endif /* VNETD_PORT_H */
