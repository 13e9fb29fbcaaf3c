/* SPDX-License-Identifier: MIT */
/*
 * plan_switch.h - the planner for N VMs on one vnetd switch
 * (plan_switch.c): vnetd's command line with the switch and one port per
 * VM, and each VM's socket and MAC. Pure functions, like plan.h.
 */
#ifndef VNET_PLAN_SWITCH_H
#define VNET_PLAN_SWITCH_H

#include <stddef.h>

#include "plan.h"
#include "reason.h"

#define PLAN_SWITCH_MAX_VMS	64	/* ports one vnetd switch takes */
#define PLAN_SWITCH_VLAN_MAX	4094

/**
 * struct plan_switch - N VMs on one switch of one vnetd
 * @name:	The switch (vnetd --switch NAME)
 * @vms:	VMs, 1..PLAN_SWITCH_MAX_VMS: ports vm1..vmN
 * @vlan:	Access VLAN of every port, 1..4094; 0: none given (vnetd's
 *		default, 1)
 * @sock_dir:	Directory of the ports' sockets (vmK.sock)
 * @mac:	First VM's MAC ("52:54:00:00:00:01" if NULL); VM K gets it
 *		plus K-1
 *
 * The uplink (a host side on the switch for what is for no VM) is the
 * one member that is not a VM: its option goes here and its port after
 * the VMs' in plan_switch_vnetd().
 */
struct plan_switch {
	const char *name;
	unsigned int vms;
	unsigned int vlan;
	const char *sock_dir;
	const char *mac;
};

int plan_switch_check(const struct plan_switch *s, struct reason *why);
int plan_switch_vnetd(const struct plan_switch *s,
		      const struct plan_policy_out *pol, char *buf, size_t len);
int plan_switch_vm(const struct plan_switch *s, unsigned int k, char *sock,
		   size_t sock_len, char *mac, size_t mac_len);

#endif /* VNET_PLAN_SWITCH_H */
