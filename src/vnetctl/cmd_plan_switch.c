// SPDX-License-Identifier: MIT
/*
 * cmd_plan_switch.c - what `vnetctl plan --switch NAME --vms N [--vlan V]
 * [--uplink tap:IF ...]` prints: vnetd's command line with the switch
 * (and its uplink) and one port per VM (plan_switch.c); with an uplink,
 * the host commands that put its TAP on the host's bridge; then for each
 * VM the QEMU arguments and the libvirt <interface> the planner prints
 * for one VM (plan.c), with that VM's socket and MAC.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd_opts.h"
#include "cmd_plan_switch.h"
#include "plan.h"
#include "plan_switch.h"

/* The uplink's VLANs for a person: "vlan N" or "trunk 10,20-30" */
static void plan_switch_uplink_vlans(const struct plan_switch *s, char *buf,
				     size_t len)
{
	size_t n;

	if (!s->uplink_trunk) {
		snprintf(buf, len, "vlan %u", s->uplink_vlan ? s->uplink_vlan :
			 s->vlan ? s->vlan : 1);
		return;
	}
	n = (size_t)snprintf(buf, len, "trunk ");
	if (n < len)
		plan_switch_trunk_format(s->uplink_trunk, ',', buf + n, len - n);
}

/*
 * The host side of the uplink: vnetd creates its TAP at start; then it
 * joins --bridge (and the bridge's MAC is pinned, as for a VM's TAP), or
 * the operator is told to attach it.
 */
static void plan_switch_print_host(const struct plan_switch *s)
{
	const char *ifn = plan_switch_uplink_if(s);
	char vlans[PLAN_SWITCH_SPEC_MAX + 8];

	plan_switch_uplink_vlans(s, vlans, sizeof(vlans));
	printf("\n# host: vnetd creates the uplink's TAP %s (%s: %s on the TAP) if it is missing and brings it up; once vnetd runs:\n",
	       ifn, vlans, s->uplink_trunk ? "802.1Q-tagged" : "untagged");
	if (!s->bridge) {
		printf("# attach it to the host's network: ip link set %s master BRIDGE (or give %s an address)\n",
		       ifn, ifn);
		return;
	}
	printf("ip link set %s master %s\n", ifn, s->bridge);
	if (s->uplink_trunk)
		printf("# %s with vlan_filtering 1 passes tagged VLANs on %s only once added: bridge vlan add dev %s vid N, for each of %s\n",
		       s->bridge, ifn, ifn, vlans + strlen("trunk "));
	printf("# once per bridge: pin its MAC, or a port leaving changes it and the hosts behind it lose the VMs\n"
	       "ip link set %s address \"$(cat /sys/class/net/%s/address)\"\n",
	       s->bridge, s->bridge);
}

/**
 * plan_switch_print() - Print the plan for N VMs on one switch
 * @s:		The switch plan (plan_switch_check() passed)
 * @vm:		The one-VM settings every VM shares (socket and MAC are
 *		set per VM here)
 * @in:		Queue policy inputs
 * @pol:	Its decision
 * @output:	all, vnetd, qemu or libvirt
 *
 * Return: exit status (cmd_opts.h)
 */
int plan_switch_print(const struct plan_switch *s, const struct plan_vm *vm,
		      const struct plan_policy_in *in,
		      const struct plan_policy_out *pol, const char *output)
{
	static char vnetd[PLAN_SWITCH_MAX_VMS * 160 + 64];
	static struct plan_args qemu;
	static char xml[4096], mem[512], line[PLAN_ARGS_BUF * 2];
	bool all = !strcmp(output, "all");
	struct plan_vm v = *vm;
	char sock[160], mac[18], vlan[24] = "", up[PLAN_SWITCH_SPEC_MAX + 32] = "";
	unsigned int k;

	if (plan_switch_vnetd(s, pol, vnetd, sizeof(vnetd)) ||
	    plan_libvirt_memory_xml(vm, mem, sizeof(mem))) {
		fprintf(stderr, "vnetctl plan: output too long (a path or name is too long)\n");
		return CMD_USAGE;
	}
	if (s->vlan)
		snprintf(vlan, sizeof(vlan), ", vlan %u", s->vlan);
	if (s->uplink) {
		snprintf(up, sizeof(up), "; uplink %s, ", s->uplink);
		plan_switch_uplink_vlans(s, up + strlen(up), sizeof(up) - strlen(up));
	}
	if (all)
		printf("# switch %s: %u VM%s%s, %u queue pair%s each for %u vCPU%s; node cap max_queues=%u%s\n\n# vnetd\n",
		       s->name, s->vms, s->vms > 1 ? "s" : "", vlan, pol->pairs,
		       pol->pairs > 1 ? "s" : "", in->vcpus,
		       in->vcpus > 1 ? "s" : "", in->max_queues, up);
	if (all || !strcmp(output, "vnetd"))
		printf("%s\n", vnetd);
	if (all && s->uplink)
		plan_switch_print_host(s);
	for (k = 1; k <= s->vms && strcmp(output, "vnetd"); k++) {
		if (plan_switch_vm(s, k, sock, sizeof(sock), mac, sizeof(mac)))
			return CMD_USAGE;
		v.socket = sock;
		v.mac = mac;
		memset(&qemu, 0, sizeof(qemu));
		if (plan_qemu_args(&v, in, pol, &qemu) ||
		    plan_libvirt_xml(&v, pol, xml, sizeof(xml)) ||
		    plan_shell_join(&qemu, NULL, line, sizeof(line))) {
			fprintf(stderr, "vnetctl plan: output too long (a path or name is too long)\n");
			return CMD_USAGE;
		}
		if (all || !strcmp(output, "qemu"))
			printf("%s# VM %u, port vm%u: QEMU\n%s\n", all || k > 1 ? "\n" : "",
			       k, k, line);
		if (all || !strcmp(output, "libvirt"))
			printf("%s# VM %u, port vm%u: libvirt, the NIC (virsh attach-device DOMAIN FILE --config)\n%s",
			       all || k > 1 ? "\n" : "", k, k, xml);
	}
	if (all && *mem)
		printf("\n# libvirt: each VM's domain, once per VM\n%s", mem);
	return fflush(stdout) ? CMD_FAIL : CMD_OK;
}
