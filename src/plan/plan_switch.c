// SPDX-License-Identifier: MIT
/*
 * plan_switch.c - the planner for N VMs on one vnetd switch (vnetctl plan
 * --switch NAME --vms N [--vlan V]): vnetd's command line declaring the
 * switch with one port per VM on it (name vmK, socket DIR/vmK.sock, the
 * queue pairs the policy chose), and each VM's socket and MAC for its
 * QEMU / libvirt lines (plan.c renders those as for one VM). Every VM
 * gets its own MAC: a switch forwards by MAC, and QEMU's default is the
 * same for every VM.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "plan.h"
#include "plan_switch.h"
#include "reason.h"

#define PLAN_SWITCH_MAC	"52:54:00:00:00:01"

/* "aa:bb:cc:dd:ee:ff" into @m. Return: 0 or -EINVAL */
static int plan_switch_mac_parse(const char *s, uint8_t m[6])
{
	unsigned int v[6], i;
	char end;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &end) != 6 || strlen(s) != 17)
		return -EINVAL;
	for (i = 0; i < 6; i++)
		m[i] = (uint8_t)v[i];
	return 0;
}

/**
 * plan_switch_check() - Check a switch plan's values
 * @s:		The plan
 * @why:	On failure, the reason naming the flag, the value and what is
 *		allowed
 *
 * Return: 0, or -EINVAL with @why set
 */
int plan_switch_check(const struct plan_switch *s, struct reason *why)
{
	uint8_t m[6];
	const char *c;
	uint32_t last;

	if (!*s->name || strlen(s->name) > 31)
		return reason_set(why, -EINVAL, "--switch '%s': must be a name of 1..31 bytes",
				  s->name);
	for (c = s->name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '-' || *c == '_' ||
		      *c == '.'))
			return reason_set(why, -EINVAL, "--switch '%s': must be letters, digits, '-', '_' or '.'",
					  s->name);
	if (!s->vms || s->vms > PLAN_SWITCH_MAX_VMS)
		return reason_set(why, -EINVAL, "--vms %u: allowed 1..%d (ports on one switch)",
				  s->vms, PLAN_SWITCH_MAX_VMS);
	if (s->vlan > PLAN_SWITCH_VLAN_MAX)
		return reason_set(why, -EINVAL, "--vlan %u: allowed 1..%d",
				  s->vlan, PLAN_SWITCH_VLAN_MAX);
	if (plan_switch_mac_parse(s->mac ? s->mac : PLAN_SWITCH_MAC, m))
		return reason_set(why, -EINVAL, "--mac '%s': must be a MAC like %s",
				  s->mac, PLAN_SWITCH_MAC);
	if (m[0] & 1)
		return reason_set(why, -EINVAL, "--mac '%s': a multicast address cannot be a VM's",
				  s->mac);
	last = (uint32_t)m[3] << 16 | (uint32_t)m[4] << 8 | m[5];
	if (last + s->vms - 1 > 0xffffff)
		return reason_set(why, -EINVAL, "--mac '%s': %u VMs would run past its last octets (VM K gets it plus K-1)",
				  s->mac, s->vms);
	return 0;
}

/**
 * plan_switch_vm() - VM @k's socket and MAC
 * @s:		The plan (plan_switch_check() passed)
 * @k:		VM, 1..@s->vms
 * @sock:	Output: its socket path
 * @sock_len:	Bytes of @sock
 * @mac:	Output: its MAC
 * @mac_len:	Bytes of @mac (18)
 *
 * Return: 0, -ENOSPC if a buffer is too small
 */
int plan_switch_vm(const struct plan_switch *s, unsigned int k, char *sock,
		   size_t sock_len, char *mac, size_t mac_len)
{
	uint8_t m[6];
	uint32_t last;
	int n;

	if (plan_switch_mac_parse(s->mac ? s->mac : PLAN_SWITCH_MAC, m))
		return -EINVAL;
	last = ((uint32_t)m[3] << 16 | (uint32_t)m[4] << 8 | m[5]) + k - 1;
	n = snprintf(mac, mac_len, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1],
		     m[2], (last >> 16) & 0xff, (last >> 8) & 0xff, last & 0xff);
	if (n < 0 || (size_t)n >= mac_len)
		return -ENOSPC;
	n = snprintf(sock, sock_len, "%s/vm%u.sock", s->sock_dir, k);
	return n < 0 || (size_t)n >= sock_len ? -ENOSPC : 0;
}

/**
 * plan_switch_vnetd() - vnetd's command line for the plan, one --port per
 *			 line (shell continuation lines)
 * @s:		The plan (plan_switch_check() passed)
 * @pol:	The queue policy's decision (queue pairs of every VM)
 * @buf:	Output
 * @len:	Bytes of @buf
 *
 * Return: 0, -ENOSPC if @buf is too small
 */
int plan_switch_vnetd(const struct plan_switch *s,
		      const struct plan_policy_out *pol, char *buf, size_t len)
{
	char vlan[24] = "", queues[24] = "";
	size_t off;
	unsigned int k;
	int n;

	if (s->vlan)
		snprintf(vlan, sizeof(vlan), ",vlan=%u", s->vlan);
	if (pol->pairs > 1)
		snprintf(queues, sizeof(queues), ",queues=%u", pol->pairs);
	n = snprintf(buf, len, "vnetd --switch %s", s->name);
	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	off = (size_t)n;
	for (k = 1; k <= s->vms; k++) {
		n = snprintf(buf + off, len - off,
			     " \\\n  --port name=vm%u,socket=%s/vm%u.sock,switch=%s%s%s",
			     k, s->sock_dir, k, s->name, vlan, queues);
		if (n < 0 || (size_t)n >= len - off)
			return -ENOSPC;
		off += (size_t)n;
	}
	/* the uplink's --port (a host side on the switch) goes here */
	return 0;
}
