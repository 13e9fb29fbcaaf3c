/* SPDX-License-Identifier: MIT */
/*
 * ports.h - the table of ports at run time (ports.c): the fixed array of
 * VNETD_MAX_PORTS slots and how many are in use or were
 */
#ifndef VNETD_PORTS_H
#define VNETD_PORTS_H

struct vnetd_port;

struct vnetd_port *ports_init(const unsigned int *nports);
struct vnetd_port *ports_get(unsigned int *nports);
unsigned int ports_slot(const struct vnetd_port *p);

#endif /* VNETD_PORTS_H */
