/* SPDX-License-Identifier: MIT */
/*
 * plan_switch.h - the planner for N VMs on one vnetd switch
 * (plan_switch.c): vnetd's command line with the switch (and its uplink)
 * and one port per VM, and each VM's socket and MAC. Pure functions, like
 * plan.h.
 */
#ifndef VNET_PLAN_SWITCH_H
#define VNET_PLAN_SWITCH_H

#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "reason.h"

#define PLAN_SWITCH_MAX_VMS	64	/* ports one vnetd switch takes */
#define PLAN_SWITCH_VLAN_MAX	4094
#define PLAN_SWITCH_VLAN_BYTES	(4096 / 8)	/* a VLAN bitmap, bit N = VLAN N */
#define PLAN_SWITCH_SPEC_MAX	255	/* vnetd's longest --switch value */

/**
 * struct plan_switch - N VMs on one switch of one vnetd
 * @name:	The switch (vnetd --switch NAME)
 * @vms:	VMs, 1..PLAN_SWITCH_MAX_VMS: ports vm1..vmN
 * @vlan:	Access VLAN of every port, 1..4094; 0: none given (vnetd's
 *		default, 1)
 * @sock_dir:	Directory of the ports' sockets (vmK.sock)
 * @mac:	First VM's MAC ("52:54:00:00:00:01" if NULL); VM K gets it
 *		plus K-1
 * @uplink:	The switch's uplink as typed, "tap:IFNAME" (vnetd --switch
 *		NAME,uplink=tap:IFNAME); NULL: none
 * @uplink_vlan: The uplink's access VLAN, 1..4094; 0: none given (it
 *		takes the VMs' VLAN)
 * @uplink_trunk: The uplink's trunk VLANs, PLAN_SWITCH_VLAN_BYTES bytes,
 *		bit N = VLAN N (as vnetd's switch_vlans_parse() fills
 *		them); NULL: not a trunk
 * @bridge:	Host bridge the uplink's TAP joins; NULL: none given
 *
 * The uplink is the one member of the switch that is not a VM: a TAP on
 * the host that vnetd creates, declared with the switch.
 */
struct plan_switch {
	const char *name;
	unsigned int vms;
	unsigned int vlan;
	const char *sock_dir;
	const char *mac;
	const char *uplink;
	unsigned int uplink_vlan;
	const uint8_t *uplink_trunk;
	const char *bridge;
};

int plan_switch_check(const struct plan_switch *s, struct reason *why);
const char *plan_switch_uplink_if(const struct plan_switch *s);
int plan_switch_trunk_format(const uint8_t *trunk, char sep, char *buf,
			     size_t len);
int plan_switch_spec(const struct plan_switch *s, char *buf, size_t len);
int plan_switch_vnetd(const struct plan_switch *s,
		      const struct plan_policy_out *pol, char *buf, size_t len);
int plan_switch_vm(const struct plan_switch *s, unsigned int k, char *sock,
		   size_t sock_len, char *mac, size_t mac_len);

#endif /* VNET_PLAN_SWITCH_H */
