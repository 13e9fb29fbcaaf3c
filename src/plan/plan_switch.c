// SPDX-License-Identifier: MIT
/*
 * plan_switch.c - the planner for N VMs on one vnetd switch (vnetctl plan
 * --switch NAME --vms N [--vlan V] [--uplink tap:IF [--uplink-vlan N |
 * --uplink-trunk LIST] [--bridge BR]]): vnetd's command line declaring
 * the switch, with its uplink if it has one (the --switch value vnetd's
 * uplink_declare() reads), and one port per VM on it (name vmK, socket
 * DIR/vmK.sock, the queue pairs the policy chose), and each VM's socket
 * and MAC for its QEMU / libvirt lines (plan.c renders those as for one
 * VM). Every VM gets its own MAC: a switch forwards by MAC, and QEMU's
 * default is the same for every VM. An uplink that would carry none of
 * the VMs' VLAN is refused: it could reach none of them.
 *
 * The trunk list arrives parsed (a bitmap, by vnetd's own parser in the
 * caller); this layer checks it against the VMs' VLAN and writes it back
 * in the --switch syntax.
 */
#include <errno.h>
#include <stdbool.h>
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

/* An interface name the kernel takes: 1..15 bytes, no '/', ':' or space */
static bool plan_switch_ifname_ok(const char *n)
{
	return *n && strlen(n) < 16 && !strpbrk(n, "/: \t\n");
}

/* Is VLAN @v in the bitmap @t? */
static bool plan_switch_has_vlan(const uint8_t *t, unsigned int v)
{
	return t[v / 8] & (1u << (v % 8));
}

/**
 * plan_switch_uplink_if() - The uplink's interface name
 * @s:		The plan
 *
 * Return: IFNAME of @s->uplink "tap:IFNAME", or NULL (no uplink, or
 *	   not of that form)
 */
const char *plan_switch_uplink_if(const struct plan_switch *s)
{
	if (!s->uplink || strncmp(s->uplink, "tap:", 4))
		return NULL;
	return s->uplink + 4;
}

/**
 * plan_switch_trunk_format() - A trunk's VLANs as a list with ranges
 * @trunk:	PLAN_SWITCH_VLAN_BYTES bytes, bit N = VLAN N (1..4094)
 * @sep:	Between items: ':' inside vnetd's --switch, ',' for a person
 * @buf:	Output: e.g. "10:20-30" ("" for no VLAN)
 * @len:	Bytes of @buf
 *
 * Return: 0, -ENOSPC if @buf is too small (@buf then holds what fitted)
 */
int plan_switch_trunk_format(const uint8_t *trunk, char sep, char *buf,
			     size_t len)
{
	const char sep_s[2] = { sep, '\0' };
	unsigned int a, b;
	size_t off = 0;
	int n;

	if (!len)
		return -ENOSPC;
	*buf = '\0';
	for (a = 1; a <= PLAN_SWITCH_VLAN_MAX; a = b + 1) {
		b = a;
		if (!plan_switch_has_vlan(trunk, a))
			continue;
		while (b < PLAN_SWITCH_VLAN_MAX && plan_switch_has_vlan(trunk, b + 1))
			b++;
		if (b == a)
			n = snprintf(buf + off, len - off, "%s%u", off ? sep_s : "", a);
		else
			n = snprintf(buf + off, len - off, "%s%u-%u", off ? sep_s : "", a, b);
		if (n < 0 || (size_t)n >= len - off)
			return -ENOSPC;
		off += (size_t)n;
	}
	return 0;
}

/**
 * plan_switch_spec() - vnetd's --switch value for the plan: the name, and
 *			the uplink's keys if it has one
 * @s:		The plan (its uplink's values checked)
 * @buf:	Output, e.g. "s0,uplink=tap:s0up,uplink-vlan=10"
 * @len:	Bytes of @buf
 *
 * An uplink without a VLAN of its own is given the VMs' (--vlan V), so
 * that it joins them; with neither, both are vnetd's default, 1.
 *
 * Return: 0, -ENOSPC if @buf is too small
 */
int plan_switch_spec(const struct plan_switch *s, char *buf, size_t len)
{
	unsigned int uv = s->uplink_vlan ? s->uplink_vlan : s->vlan;
	size_t off;
	int n;

	n = snprintf(buf, len, "%s", s->name);
	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	if (!s->uplink)
		return 0;
	off = (size_t)n;
	n = snprintf(buf + off, len - off, ",uplink=%s", s->uplink);
	if (n < 0 || (size_t)n >= len - off)
		return -ENOSPC;
	off += (size_t)n;
	if (s->uplink_trunk) {
		n = snprintf(buf + off, len - off, ",uplink-trunk=");
		if (n < 0 || (size_t)n >= len - off)
			return -ENOSPC;
		off += (size_t)n;
		return plan_switch_trunk_format(s->uplink_trunk, ':', buf + off,
						len - off);
	}
	if (!uv)
		return 0;
	n = snprintf(buf + off, len - off, ",uplink-vlan=%u", uv);
	return n < 0 || (size_t)n >= len - off ? -ENOSPC : 0;
}

/*
 * The uplink's values: its name, its bridge's, its VLANs (one kind, in
 * range, carrying the VMs' VLAN) and the --switch value's length.
 */
static int plan_switch_check_uplink(const struct plan_switch *s,
				    struct reason *why)
{
	const char *ifn = plan_switch_uplink_if(s), *vm_flag;
	char spec[PLAN_SWITCH_SPEC_MAX + 1], list[PLAN_SWITCH_SPEC_MAX + 1];
	unsigned int vm_vlan = s->vlan ? s->vlan : 1;

	if (!s->uplink) {
		if (s->uplink_vlan)
			return reason_set(why, -EINVAL, "--uplink-vlan %u: only with --uplink tap:IFNAME (the switch's uplink)",
					  s->uplink_vlan);
		if (s->uplink_trunk)
			return reason_set(why, -EINVAL, "--uplink-trunk: only with --uplink tap:IFNAME (the switch's uplink)");
		if (s->bridge)
			return reason_set(why, -EINVAL, "--bridge %s: with --switch, the bridge of the switch's uplink: give --uplink tap:IFNAME too",
					  s->bridge);
		return 0;
	}
	if (!ifn || !plan_switch_ifname_ok(ifn))
		return reason_set(why, -EINVAL, "--uplink '%s': must be tap:IFNAME with IFNAME 1..15 bytes, no '/', ':' or space",
				  s->uplink);
	if (s->bridge && !plan_switch_ifname_ok(s->bridge))
		return reason_set(why, -EINVAL, "--bridge '%s': must be an interface name of 1..15 bytes, no '/', ':' or space",
				  s->bridge);
	if (s->bridge && !strcmp(s->bridge, ifn))
		return reason_set(why, -EINVAL, "--bridge %s: the uplink's TAP joins the bridge, it cannot be it",
				  s->bridge);
	if (s->uplink_vlan > PLAN_SWITCH_VLAN_MAX)
		return reason_set(why, -EINVAL, "--uplink-vlan %u: allowed 1..%d",
				  s->uplink_vlan, PLAN_SWITCH_VLAN_MAX);
	if (s->uplink_trunk && (plan_switch_has_vlan(s->uplink_trunk, 0) ||
				plan_switch_has_vlan(s->uplink_trunk, 4095)))
		return reason_set(why, -EINVAL, "--uplink-trunk: VLANs allowed 1..%d",
				  PLAN_SWITCH_VLAN_MAX);
	if (plan_switch_spec(s, spec, sizeof(spec)))
		return reason_set(why, -EINVAL, "%s: vnetd's --switch value would be over %d bytes (its limit): fewer VLAN ranges",
				  s->uplink_trunk ? "--uplink-trunk" : "--uplink",
				  PLAN_SWITCH_SPEC_MAX);
	vm_flag = s->vlan ? "--vlan" : "no --vlan: vnetd's default";
	if (s->uplink_trunk) {
		plan_switch_trunk_format(s->uplink_trunk, ',', list, sizeof(list));
		if (s->uplink_vlan)
			return reason_set(why, -EINVAL, "--uplink-vlan %u and --uplink-trunk %s: give one (the uplink is an access port or a trunk)",
					  s->uplink_vlan, list);
		if (!plan_switch_has_vlan(s->uplink_trunk, vm_vlan))
			return reason_set(why, -EINVAL, "--uplink-trunk %s: does not carry VLAN %u, the VMs' (%s): the uplink would reach none of them",
					  list, vm_vlan, vm_flag);
	} else if (s->uplink_vlan && s->uplink_vlan != vm_vlan) {
		return reason_set(why, -EINVAL, "--uplink-vlan %u: the VMs are on VLAN %u (%s): the uplink would reach none of them",
				  s->uplink_vlan, vm_vlan, vm_flag);
	}
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
	return plan_switch_check_uplink(s, why);
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
	char vlan[24] = "", queues[24] = "", spec[PLAN_SWITCH_SPEC_MAX + 1];
	size_t off;
	unsigned int k;
	int n;

	if (s->vlan)
		snprintf(vlan, sizeof(vlan), ",vlan=%u", s->vlan);
	if (pol->pairs > 1)
		snprintf(queues, sizeof(queues), ",queues=%u", pol->pairs);
	if (plan_switch_spec(s, spec, sizeof(spec)))
		return -ENOSPC;
	n = snprintf(buf, len, "vnetd --switch %s", spec);
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
	return 0;
}
