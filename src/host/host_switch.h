/* SPDX-License-Identifier: MIT */
/*
 * host_switch.h - what the switch host offers beyond struct host_ops
 * (host.h): the process's switches by name (--switch NAME declares one,
 * a port's switch=NAME joins it) and a member port's view of them for
 * status. The switch itself is switch.h.
 */
#ifndef VNET_HOST_SWITCH_H
#define VNET_HOST_SWITCH_H

#include <stdbool.h>

#include "host.h"
#include "reason.h"
#include "switch.h"

#define HOST_SWITCH_MAX		16	/* switches per process */

int host_switch_declare(const char *name, struct reason *why);
int host_switch_name_check(const char *name, struct reason *why);
int host_switch_remove(const char *name);
struct vswitch *host_switch_find(const char *name);
struct vswitch *host_switch_at(unsigned int i);
const char *host_switch_names(void);
const struct sw_member *host_switch_member(const struct host *host);

#endif /* VNET_HOST_SWITCH_H */
