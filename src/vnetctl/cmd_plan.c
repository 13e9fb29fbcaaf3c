// SPDX-License-Identifier: MIT
/*
 * vnetctl plan - decide a VM NIC's queue pairs and print the VMM arguments.
 *
 * Parses flags, probes what the policy needs from the host (the QEMU
 * version, /dev/vhost-net for the TAP data path) and prints what plan.c
 * renders: QEMU, libvirt, cloud-hypervisor, vnetd, the host TAP, the guest
 * hint, or all of it as JSON. Notes and warnings go to stderr. With
 * --host af_xdp it reads the interface's queue count from sysfs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd_opts.h"
#include "cmd_plan_switch.h"
#include "cmds.h"
#include "mac.h"
#include "netif.h"
#include "plan.h"
#include "provision.h"
#include "switch.h"

#define PLAN_QEMU_DEFAULT	"qemu-system-x86_64"
#define PLAN_SYSFS_NET		"/sys/class/net"

/* --uplink-trunk's bitmap goes from vnetd's parser to the planner as is */
_Static_assert(sizeof(((struct sw_vlans *)0)->trunk) == PLAN_SWITCH_VLAN_BYTES,
	       "a VLAN bitmap is the same size on both sides");

static const char plan_usage[] =
	"usage: vnetctl plan --vcpus N [options]\n"
	"  --backend vhost-user|tap   data path (default vhost-user: QEMU <-> vnetd)\n"
	"  --socket PATH              vhost-user socket vnetd listens on\n"
	"  --tap NAME                 host TAP (default vnt-ID)\n"
	"  --tap-fds A:B:..           --backend tap: fds QEMU inherits, one per queue pair\n"
	"  --bridge BR                bridge for the TAP (libvirt type='bridge')\n"
	"  --queues N                 explicit queue pairs (1..max-queues)\n"
	"  --max-queues N             node cap (1..64, default $VNET_MAX_QUEUES or 16)\n"
	"  --vhost auto|on|off        node vhost setting (default $VNET_VHOST or auto)\n"
	"  --user U                   user QEMU runs as (vhost-net probe)\n"
	"  --vhost-net-dev PATH       default $VNET_VHOST_NET_DEV or /dev/vhost-net\n"
	"  --id ID --mac MAC --memory SIZE (default net0, none, 1G)\n"
	"  --qemu BIN | --qemu-version X.Y   how to spell the chardev reconnect option\n"
	"  --mtu N                    guest MTU, 68..65535 (VIRTIO_NET_F_MTU: vnetd --mtu and\n"
	"                             QEMU host_mtu= / libvirt <mtu>; default: none)\n"
	"  --underlay-mtu N           the guest is on a VXLAN overlay across hosts whose\n"
	"                             underlay MTU is N (118..65535): guest MTU N - 50\n"
	"  --ovs-bridge BR            Open vSwitch bridge for the TAP (ovs-vsctl add-port)\n"
	"  --ovs-datapath system|netdev  that bridge's datapath (default system); netdev\n"
	"                             (userspace) cannot tunnel checksum/TSO-offloaded\n"
	"                             frames: the vnetd line then withholds those offloads\n"
	"  --nic-only                 a VM's second and later NICs: leave out the VM's\n"
	"                             memory and vCPUs (QEMU, cloud-hypervisor)\n"
	"  --output all|qemu|libvirt|libvirt-memory|cloud-hypervisor|vnetd|hint\n"
	"                             (default all; libvirt: the <interface> alone,\n"
	"                             libvirt-memory: the domain's <memoryBacking>)\n"
	"  --host tap|af_xdp          vnetd's host side (default tap); af_xdp: the VM's\n"
	"                             frames go out --if IF, one NIC queue per queue pair\n"
	"  --if IF                    --host af_xdp: the existing interface (its queue\n"
	"                             count is read from --sysfs-net, default /sys/class/net)\n"
	"  --xdp-queue Q              --host af_xdp: the NIC queue of pair 0 (default 0,\n"
	"                             0..1023); the interface then needs Q + pairs queues\n"
	"  --json                     everything as one JSON object\n"
	"  --switch NAME --vms N [--vlan V]   N VMs (1..64) on one switch of vnetd:\n"
	"                             vnetd's line (ports vm1..vmN, sockets\n"
	"                             /run/vnetd/vmK.sock, access VLAN V), then each VM's\n"
	"                             QEMU and libvirt lines (MAC: --mac or\n"
	"                             52:54:00:00:00:01, plus K-1 for VM K)\n"
	"  --uplink tap:IF            --switch: the switch's uplink, a TAP vnetd creates\n"
	"                             (IF 1..15 bytes); --bridge BR: the host bridge it joins\n"
	"  --uplink-vlan N | --uplink-trunk LIST   the uplink's access VLAN (1..4094,\n"
	"                             default the VMs') or its tagged VLANs (e.g. 10,20-30);\n"
	"                             either must carry the VMs' VLAN\n";

struct plan_opts {
	struct plan_policy_in in;
	struct plan_vm vm;
	const char *vcpus, *max_queues, *backend, *vhost, *user, *dev;
	const char *max_queues_name, *vhost_name;	/* flag or node variable */
	const char *qemu_bin, *qemu_version, *output, *mtu, *underlay_mtu, *ovs_bridge,
		   *ovs_datapath, *host, *xdp_if, *sysfs_net, *xdp_queue;
	const char *sw, *vms, *vlan;	/* --switch NAME --vms N --vlan V */
	const char *uplink, *uplink_vlan, *uplink_trunk;	/* --uplink tap:IF ... */
	int nic_queues;
	bool json;
	char tap[32];
	char vhost_why[600];
	char warn_qemu[256];
};

static int plan_usage_err(const char *fmt, const char *a, const char *b)
{
	fputs("vnetctl plan: ", stderr);
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	return CMD_USAGE;
}

static int plan_one_of(const char *flag, const char *v, const char *const *allowed,
		       int *idx)
{
	char list[160] = "";
	int i;

	for (i = 0; allowed[i]; i++) {
		if (!strcmp(v, allowed[i])) {
			*idx = i;
			return 0;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 i ? ", " : "", allowed[i]);
	}
	fprintf(stderr, "vnetctl plan: %s '%s' is not one of %s\n", flag, v, list);
	return CMD_USAGE;
}

/* Every option the command knows, and where its value goes */
static int plan_parse_flags(int argc, char **argv, struct plan_opts *o)
{
	struct { const char *name; const char **val; } t[] = {
		{ "--vcpus", &o->vcpus }, { "--backend", &o->backend },
		{ "--socket", &o->vm.socket }, { "--tap", &o->vm.tap },
		{ "--tap-fds", &o->vm.tap_fds }, { "--bridge", &o->vm.bridge },
		{ "--queues", &o->in.queues }, { "--max-queues", &o->max_queues },
		{ "--vhost", &o->vhost }, { "--user", &o->user },
		{ "--vhost-net-dev", &o->dev }, { "--id", &o->vm.id },
		{ "--mac", &o->vm.mac }, { "--memory", &o->vm.memory },
		{ "--qemu", &o->qemu_bin }, { "--qemu-version", &o->qemu_version },
		{ "--output", &o->output }, { "--mtu", &o->mtu },
		{ "--underlay-mtu", &o->underlay_mtu }, { "--ovs-bridge", &o->ovs_bridge },
		{ "--ovs-datapath", &o->ovs_datapath }, { "--host", &o->host },
		{ "--if", &o->xdp_if }, { "--sysfs-net", &o->sysfs_net },
		{ "--xdp-queue", &o->xdp_queue },
		{ "--switch", &o->sw }, { "--vms", &o->vms }, { "--vlan", &o->vlan },
		{ "--uplink", &o->uplink }, { "--uplink-vlan", &o->uplink_vlan },
		{ "--uplink-trunk", &o->uplink_trunk },
	};
	bool missing;
	size_t k;
	int i;

	for (i = 0; i < argc; i++) {
		const char *v = NULL;

		if (cmd_is_help(argv[i])) {
			fputs(plan_usage, stdout);
			return -1;
		}
		if (!strcmp(argv[i], "--json")) {
			o->json = true;
			continue;
		}
		if (!strcmp(argv[i], "--nic-only")) {
			o->vm.nic_only = true;
			continue;
		}
		for (k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
			v = cmd_opt(argc, argv, &i, t[k].name, &missing);
			if (missing)
				return plan_usage_err("%s needs a value%s", t[k].name, "");
			if (v)
				break;
		}
		if (!v)
			return plan_usage_err("unknown option '%s'%s", argv[i],
					      " (see vnetctl plan --help)");
		*t[k].val = v;
	}
	return 0;
}

/* Node settings: a flag wins, else the node's environment, else the default */
static void plan_node_defaults(struct plan_opts *o)
{
	const char *v;

	o->max_queues_name = "--max-queues";
	o->vhost_name = "--vhost";
	v = getenv("VNET_MAX_QUEUES");
	if (!o->max_queues && v && *v) {
		o->max_queues = v;
		o->max_queues_name = "VNET_MAX_QUEUES";
	}
	v = getenv("VNET_VHOST");
	if (!o->vhost && v && *v) {
		o->vhost = v;
		o->vhost_name = "VNET_VHOST";
	}
}

/* A decimal size without a leading zero, with an optional K, M, G or T */
static bool plan_size_ok(const char *s)
{
	size_t n = strspn(s, "0123456789");

	if (!n || s[0] == '0')
		return false;
	return !s[n] || (strchr("KMGT", s[n]) && !s[n + 1]);
}

/* Values that are not numbers for the policy: names, sizes, choices */
static int plan_check_values(struct plan_opts *o)
{
	static const char *const backends[] = { "vhost-user", "tap", NULL };
	static const char *const vhosts[] = { "auto", "on", "off", NULL };
	static const char *const hosts[] = { "tap", "af_xdp", NULL };
	static const char *const outputs[] = { "all", "qemu", "libvirt",
		"libvirt-memory", "cloud-hypervisor", "vnetd", "hint", NULL };
	struct reason r = { 0 };
	const char *why;
	uint8_t mac[6];
	int idx = 0;

	if (!o->vcpus)
		return plan_usage_err("--vcpus is required (allowed 1..%s)%s",
				      "1024", "");
	if (plan_parse_uint("--vcpus", o->vcpus, 1, PLAN_MAX_VCPUS,
			    &o->in.vcpus, &r) ||
	    (o->max_queues && plan_parse_uint(o->max_queues_name, o->max_queues, 1,
					      PLAN_MAX_QUEUES_LIMIT,
					      &o->in.max_queues, &r)))
		return plan_usage_err("%s%s", r.msg, "");
	if (o->backend && plan_one_of("--backend", o->backend, backends, &idx))
		return CMD_USAGE;
	o->vm.backend = idx ? PLAN_BACKEND_TAP : PLAN_BACKEND_VHOST_USER;
	idx = 0;
	if (o->vhost && plan_one_of(o->vhost_name, o->vhost, vhosts, &idx))
		return CMD_USAGE;
	o->in.vhost = idx == 1 ? PLAN_VHOST_ON : idx == 2 ? PLAN_VHOST_OFF :
				 PLAN_VHOST_AUTO;
	idx = 0;
	if (o->host && plan_one_of("--host", o->host, hosts, &idx))
		return CMD_USAGE;
	if (idx && !o->xdp_if)
		return plan_usage_err("--host af_xdp needs --if IF, the interface the VM's frames go out%s%s", "", "");
	if (!idx && o->xdp_if)
		return plan_usage_err("--if %s: only with --host af_xdp%s", o->xdp_if, "");
	if (o->xdp_queue && !idx)
		return plan_usage_err("--xdp-queue %s: only with --host af_xdp%s",
				      o->xdp_queue, "");
	if (o->xdp_queue && plan_parse_uint("--xdp-queue", o->xdp_queue, 0, 1023,
					    &o->vm.xdp_queue, &r))
		return plan_usage_err("%s%s", r.msg, "");
	o->vm.xdp_if = o->xdp_if;
	if (o->output && plan_one_of("--output", o->output, outputs, &idx))
		return CMD_USAGE;
	if (o->vm.mac && (why = mac_parse(o->vm.mac, mac)))
		return plan_usage_err("--mac '%s': %s", o->vm.mac, why);
	if (!plan_size_ok(o->vm.memory))
		return plan_usage_err("--memory '%s' is not a size like %s",
				      o->vm.memory, "512M, 1G, 2048M");
	if (o->mtu && o->underlay_mtu)
		return plan_usage_err("--mtu and --underlay-mtu: give one%s%s "
				      "(--underlay-mtu N means --mtu N-50)", "", "");
	if (o->mtu && plan_parse_uint("--mtu", o->mtu, 68, 65535, &o->vm.mtu,
				      &r))
		return plan_usage_err("%s%s", r.msg, "");
	if (o->underlay_mtu) {
		if (plan_parse_uint("--underlay-mtu", o->underlay_mtu,
				    68 + PLAN_VXLAN_OVERHEAD, 65535, &o->vm.mtu,
				    &r))
			return plan_usage_err("%s%s", r.msg, "");
		o->vm.mtu -= PLAN_VXLAN_OVERHEAD;
	}
	if (o->ovs_datapath && strcmp(o->ovs_datapath, "system") &&
	    strcmp(o->ovs_datapath, "netdev"))
		return plan_usage_err("--ovs-datapath '%s': system or netdev%s",
				      o->ovs_datapath, "");
	if (o->ovs_datapath && !o->ovs_bridge)
		return plan_usage_err("--ovs-datapath %s: give --ovs-bridge BR too%s",
				      o->ovs_datapath, "");
	/* OVS 3.1 netdev: "Tunneling packets with HW offload flags is not supported" */
	o->vm.no_tx_offloads = o->ovs_datapath && !strcmp(o->ovs_datapath, "netdev");
	if (o->ovs_bridge && o->vm.bridge)
		return plan_usage_err("--bridge %s and --ovs-bridge %s: the TAP goes on one bridge",
				      o->vm.bridge, o->ovs_bridge);
	if (o->qemu_version &&
	    plan_qemu_version_parse(o->qemu_version, &o->vm.qemu_major,
				    &o->vm.qemu_minor))
		return plan_usage_err("--qemu-version '%s' is not a version like %s",
				      o->qemu_version, "7.2 or 9.2.0");
	return 0;
}

/*
 * --switch NAME --vms N [--vlan V] [--uplink tap:IF [--uplink-vlan N |
 * --uplink-trunk LIST] [--bridge BR]] into @sw: only with vhost-user to
 * vnetd and its TAP-less host side, the sockets the plan names (--bridge
 * is then the uplink's). Return: 0 or CMD_USAGE (printed)
 */
static int plan_switch_values(struct plan_opts *o, struct plan_switch *sw)
{
	static struct sw_vlans trunk;	/* 514 bytes: off the stack */
	struct reason r = { 0 };
	const char *w;

	if (!o->sw) {
		if (o->vms || o->vlan || o->uplink || o->uplink_vlan || o->uplink_trunk)
			return plan_usage_err("%s: only with --switch NAME%s",
					      o->vms ? "--vms" : o->vlan ? "--vlan" :
					      o->uplink ? "--uplink" : o->uplink_vlan ?
					      "--uplink-vlan" : "--uplink-trunk", "");
		return 0;
	}
	if (!o->vms)
		return plan_usage_err("--switch %s: give --vms N, the VMs on it (1..64)%s",
				      o->sw, "");
	if (o->vm.backend != PLAN_BACKEND_VHOST_USER || o->xdp_if || o->vm.socket ||
	    o->json || o->vm.tap || o->vm.tap_fds || o->ovs_bridge ||
	    o->vm.nic_only)
		return plan_usage_err("--switch %s: the VMs' NICs are vnetd's switch ports (vhost-user, sockets /run/vnetd/vmK.sock): not with --backend tap, --host af_xdp, --socket, --tap, --tap-fds, --ovs-bridge, --nic-only or --json%s",
				      o->sw, "");
	/* --bridge: the uplink's (plan_switch_check() wants --uplink for it) */
	sw->bridge = o->vm.bridge;
	o->vm.bridge = NULL;
	sw->uplink = o->uplink;
	if (o->uplink_vlan && plan_parse_uint("--uplink-vlan", o->uplink_vlan, 1,
					      PLAN_SWITCH_VLAN_MAX,
					      &sw->uplink_vlan, &r))
		return plan_usage_err("%s%s", r.msg, "");
	if (o->uplink_trunk) {
		/* vnetd's own parser: the planner takes what vnetd takes */
		w = switch_vlans_parse(&trunk, o->uplink_trunk, true, ':');
		if (w)
			return plan_usage_err("--uplink-trunk '%s': %s", o->uplink_trunk, w);
		sw->uplink_trunk = trunk.trunk;
	}
	if (strcmp(o->output, "all") && strcmp(o->output, "vnetd") &&
	    strcmp(o->output, "qemu") && strcmp(o->output, "libvirt"))
		return plan_usage_err("--output %s: with --switch one of all, vnetd, qemu, libvirt%s",
				      o->output, "");
	sw->name = o->sw;
	sw->mac = o->vm.mac;
	if (plan_parse_uint("--vms", o->vms, 1, PLAN_SWITCH_MAX_VMS, &sw->vms, &r) ||
	    (o->vlan && plan_parse_uint("--vlan", o->vlan, 1, PLAN_SWITCH_VLAN_MAX,
					&sw->vlan, &r)) ||
	    plan_switch_check(sw, &r))
		return plan_usage_err("%s%s", r.msg, "");
	o->vm.socket = "/run/vnetd/vm1.sock";	/* each VM's: plan_switch_vm() */
	return 0;
}

/* `BIN --version`, without a shell; 0 and the version, or -errno */
static int plan_qemu_detect(const char *bin, unsigned int *maj, unsigned int *min)
{
	char buf[256] = "";
	int pfd[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(pfd) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -EAGAIN;
	}
	if (pid == 0) {
		dup2(pfd[1], STDOUT_FILENO);
		close(pfd[0]);
		close(pfd[1]);
		execlp(bin, bin, "--version", (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	n = read(pfd[0], buf, sizeof(buf) - 1);
	close(pfd[0]);
	waitpid(pid, &status, 0);
	if (n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return -ENOENT;
	buf[n] = '\0';
	return plan_qemu_version_parse(buf, maj, min);
}

/* Host facts the policy and the generators need; defaults degrade with a warning */
static int plan_probe_host(struct plan_opts *o)
{
	struct provision_vhost_probe p;

	if (!o->qemu_version && o->vm.backend == PLAN_BACKEND_VHOST_USER &&
	    plan_qemu_detect(o->qemu_bin, &o->vm.qemu_major, &o->vm.qemu_minor)) {
		o->vm.qemu_major = 9;
		o->vm.qemu_minor = 2;
		snprintf(o->warn_qemu, sizeof(o->warn_qemu),
			 "could not run '%s --version': assuming QEMU 9.2 or later (reconnect-ms=1000); give --qemu-version to choose",
			 o->qemu_bin);
	}
	if (o->vm.xdp_if)
		o->nic_queues = netif_rx_queues(o->sysfs_net ? o->sysfs_net :
						PLAN_SYSFS_NET, o->vm.xdp_if);
	if (o->vm.backend == PLAN_BACKEND_VHOST_USER) {
		o->in.vhost_available = true;	/* vnetd is the vhost */
		return 0;
	}
	if (o->in.vhost == PLAN_VHOST_OFF)
		return 0;
	provision_vhost_probe(o->dev, o->user, &p);
	o->in.vhost_available = p.state == PROV_VHOST_USABLE;
	snprintf(o->vhost_why, sizeof(o->vhost_why), "%s", p.detail);
	o->in.vhost_why = o->vhost_why;
	return 0;
}

static void plan_print_args(const struct plan_args *a, const char *prefix,
			    bool one_line)
{
	char buf[PLAN_ARGS_BUF * 2];

	if (plan_shell_join(a, one_line ? " " : NULL, buf, sizeof(buf)))
		snprintf(buf, sizeof(buf), "# (too long to print)");
	printf("%s%s\n", prefix, buf);
}

/* The host-side command that makes the TAP this plan uses */
static void plan_tap_create_args(const struct plan_opts *o,
				 const struct plan_policy_out *pol,
				 struct plan_args *a)
{
	char q[16];
	int n = 0;

	memset(a, 0, sizeof(*a));
	snprintf(q, sizeof(q), "%u", pol->pairs);
	a->argv[n++] = "vnetctl";
	a->argv[n++] = "tap";
	a->argv[n++] = "create";
	a->argv[n++] = o->vm.tap;
	a->argv[n++] = "--queues";
	a->argv[n++] = a->buf;
	memcpy(a->buf, q, strlen(q) + 1);
	if (o->user) {
		a->argv[n++] = "--user";
		a->argv[n++] = o->user;
	}
	if (o->vm.bridge) {
		a->argv[n++] = "--bridge";
		a->argv[n++] = o->vm.bridge;
	}
	if (o->vm.mac) {
		a->argv[n++] = "--mac";
		a->argv[n++] = o->vm.mac;
	}
	a->argc = n;
}

/*
 * The command that pins the MAC of the bridge the plan names. A bridge
 * whose MAC was never set takes the lowest MAC of its ports, so a port that
 * leaves or joins (a VM stops, vnetd restarts) can change it, and every guest
 * on it then cannot reach the host until its ARP entry expires. Pinning it to
 * the MAC it has now changes nothing on the wire. "" when no bridge is named.
 */
static void plan_bridge_pin(const struct plan_opts *o, char *buf, size_t size)
{
	if (o->vm.bridge)
		snprintf(buf, size, "ip link set %s address \"$(cat /sys/class/net/%s/address)\"",
			 o->vm.bridge, o->vm.bridge);
	else if (o->ovs_bridge)
		snprintf(buf, size, "ovs-vsctl set bridge %s other-config:hwaddr=\"$(cat /sys/class/net/%s/address)\"",
			 o->ovs_bridge, o->ovs_bridge);
	else
		*buf = 0;
}

static void plan_print_msgs(const struct plan_opts *o,
			    const struct plan_policy_out *pol)
{
	unsigned int i;

	if (*o->warn_qemu)
		fprintf(stderr, "vnetctl plan: warning: %s\n", o->warn_qemu);
	for (i = 0; i < pol->nwarnings; i++)
		fprintf(stderr, "vnetctl plan: warning: %s\n", pol->warnings[i]);
	for (i = 0; i < pol->nnotes; i++)
		fprintf(stderr, "vnetctl plan: note: %s\n", pol->notes[i]);
}

/* Render every format once; the printers pick what they need */
struct plan_rendered {
	struct plan_args qemu, ch, vnetd, tapc;
	bool has_vnetd;
	char xml[2048];
	char xml_mem[512];
	char hint[64];
	char pin[160];
};

static int plan_render(const struct plan_opts *o, const struct plan_policy_out *pol,
		       struct plan_rendered *r)
{
	int ret;

	ret = plan_qemu_args(&o->vm, &o->in, pol, &r->qemu) ?:
	      plan_ch_args(&o->vm, &o->in, pol, &r->ch) ?:
	      plan_libvirt_xml(&o->vm, pol, r->xml, sizeof(r->xml)) ?:
	      plan_libvirt_memory_xml(&o->vm, r->xml_mem, sizeof(r->xml_mem)) ?:
	      plan_guest_hint(pol, r->hint, sizeof(r->hint));
	if (ret)
		return ret;
	ret = plan_vnetd_args(&o->vm, pol, &r->vnetd);
	r->has_vnetd = !ret;
	plan_tap_create_args(o, pol, &r->tapc);
	plan_bridge_pin(o, r->pin, sizeof(r->pin));
	return ret == -ENOENT ? 0 : ret;
}

static void plan_print_human(const struct plan_opts *o,
			     const struct plan_policy_out *pol,
			     const struct plan_rendered *r)
{
	bool all = !strcmp(o->output, "all");
	char mq[48] = "single pair: no queues=, mq= or vectors=";

	if (pol->pairs > 1)
		snprintf(mq, sizeof(mq), "mq=on, vectors=%u", pol->vectors);
	if (all)
		printf("# %u queue pair%s (%s) for %u vCPU%s; node cap max_queues=%u; backend %s; vhost %s\n\n# QEMU\n",
		       pol->pairs, pol->pairs > 1 ? "s" : "", mq, o->in.vcpus,
		       o->in.vcpus > 1 ? "s" : "",
		       o->in.max_queues,
		       o->vm.backend == PLAN_BACKEND_TAP ? "tap" : "vhost-user",
		       pol->vhost ? "on" : "off");
	if (all || !strcmp(o->output, "qemu"))
		plan_print_args(&r->qemu, "", false);
	if (all)
		printf("\n# libvirt: the NIC (virsh attach-device DOMAIN FILE --config)\n");
	if (all || !strcmp(o->output, "libvirt"))
		fputs(r->xml, stdout);
	if (all && *r->xml_mem)
		printf("\n# libvirt: the domain, once per VM\n");
	if (all || !strcmp(o->output, "libvirt-memory"))
		fputs(r->xml_mem, stdout);
	if (!strcmp(o->output, "libvirt-memory") && !*r->xml_mem)
		fprintf(stderr, "vnetctl plan: --backend tap needs no <memoryBacking>\n");
	if (all)
		printf("\n# cloud-hypervisor\n");
	if (all || !strcmp(o->output, "cloud-hypervisor"))
		plan_print_args(&r->ch, all ? "cloud-hypervisor " : "", false);
	if (all)
		printf("\n# host\n");
	if (all && !o->vm.xdp_if)
		plan_print_args(&r->tapc, "", true);
	if ((all || !strcmp(o->output, "vnetd")) && o->vm.xdp_if)
		printf("# %s: %d queue%s; the VM's %u queue pair%s use%s queues %u..%u (needs at least: ethtool -L %s combined %u)\n",
		       o->vm.xdp_if, o->nic_queues, o->nic_queues == 1 ? "" : "s",
		       pol->pairs, pol->pairs > 1 ? "s" : "", pol->pairs > 1 ? "" : "s",
		       o->vm.xdp_queue, o->vm.xdp_queue + pol->pairs - 1,
		       o->vm.xdp_if, o->vm.xdp_queue + pol->pairs);
	if (all && o->vm.no_tx_offloads)
		printf("# %s is a userspace (netdev) bridge: it cannot tunnel checksum/TSO-offloaded frames, so vnetd withholds those offloads (--features %s) and the guest segments itself\n",
		       o->ovs_bridge, PLAN_NO_TX_OFFLOADS);
	if (all && o->ovs_bridge)
		printf("ovs-vsctl add-port %s %s\n", o->ovs_bridge, o->vm.tap);
	if (all && *r->pin)
		printf("# once per bridge: pin its MAC, or a port leaving changes it and the guests lose the host\n%s\n",
		       r->pin);
	if ((all || !strcmp(o->output, "vnetd")) && r->has_vnetd)
		plan_print_args(&r->vnetd, "", true);
	else if (!strcmp(o->output, "vnetd"))
		printf("# no vnetd with --backend tap: QEMU opens the TAP itself\n");
	if (all)
		printf("\n# guest\n");
	if ((all || !strcmp(o->output, "hint")) && *r->hint)
		printf("%s\n", r->hint);
	else if (all || !strcmp(o->output, "hint"))
		printf("# single queue pair: nothing to do in the guest\n");
}

static void plan_json_str(const char *key, const char *v, const char *end)
{
	char buf[4096];

	if (!v || plan_json_string(v, buf, sizeof(buf)))
		snprintf(buf, sizeof(buf), "null");
	printf("  \"%s\": %s%s\n", key, buf, end);
}

static void plan_json_array(const char *key, int n, const char *const *v)
{
	char buf[2048];
	int i;

	printf("  \"%s\": [", key);
	for (i = 0; i < n; i++) {
		if (plan_json_string(v[i], buf, sizeof(buf)))
			snprintf(buf, sizeof(buf), "null");
		printf("%s%s", i ? ", " : "", buf);
	}
	printf("],\n");
}

static void plan_print_json(const struct plan_opts *o,
			    const struct plan_policy_out *pol,
			    const struct plan_rendered *r)
{
	const char *w[PLAN_MAX_MSGS + 1], *nt[PLAN_MAX_MSGS];
	unsigned int i, nw = 0;

	printf("{\n  \"vcpus\": %u,\n  \"max_queues\": %u,\n", o->in.vcpus,
	       o->in.max_queues);
	plan_json_str("backend", o->vm.backend == PLAN_BACKEND_TAP ? "tap" :
			"vhost-user", ",");
	printf("  \"vhost\": %s,\n  \"queue_pairs\": %u,\n  \"vectors\": %u,\n",
	       pol->vhost ? "true" : "false", pol->pairs, pol->vectors);
	if (*o->warn_qemu)
		w[nw++] = o->warn_qemu;
	for (i = 0; i < pol->nwarnings; i++)
		w[nw++] = pol->warnings[i];
	for (i = 0; i < pol->nnotes; i++)
		nt[i] = pol->notes[i];
	plan_json_array("warnings", (int)nw, w);
	plan_json_array("notes", (int)pol->nnotes, nt);
	plan_json_array("qemu", r->qemu.argc, r->qemu.argv);
	plan_json_str("libvirt", r->xml, ",");
	plan_json_str("libvirt_memory", *r->xml_mem ? r->xml_mem : NULL, ",");
	plan_json_array("cloud_hypervisor", r->ch.argc, r->ch.argv);
	if (o->vm.xdp_if) {
		printf("  \"tap_create\": null,\n");
		plan_json_str("xdp_if", o->vm.xdp_if, ",");
		printf("  \"nic_queues\": %d,\n  \"nic_queues_needed\": %u,\n",
		       o->nic_queues, o->vm.xdp_queue + pol->pairs);
	} else {
		plan_json_array("tap_create", r->tapc.argc, r->tapc.argv);
	}
	if (o->ovs_bridge) {
		const char *ov[] = { "ovs-vsctl", "add-port", o->ovs_bridge, o->vm.tap };

		plan_json_array("ovs_add_port", 4, ov);
	}
	plan_json_str("bridge_mac_pin", *r->pin ? r->pin : NULL, ",");
	if (r->has_vnetd)
		plan_json_array("vnetd", r->vnetd.argc, r->vnetd.argv);
	else
		printf("  \"vnetd\": null,\n");
	plan_json_str("guest_hint", *r->hint ? r->hint : NULL, "");
	printf("}\n");
}

static int plan_output(const struct plan_opts *o, const struct plan_policy_out *pol)
{
	static struct plan_rendered r;	/* big: keep it off the stack */

	memset(&r, 0, sizeof(r));
	if (plan_render(o, pol, &r)) {
		fprintf(stderr, "vnetctl plan: output too long (a path or name is too long)\n");
		return CMD_USAGE;
	}
	plan_print_msgs(o, pol);
	if (o->json)
		plan_print_json(o, pol, &r);
	else
		plan_print_human(o, pol, &r);
	return fflush(stdout) ? CMD_FAIL : CMD_OK;
}

/**
 * cmd_plan() - vnetctl plan
 * @argc:	Arguments after "plan"
 * @argv:	Arguments
 *
 * Return: 0, 1 if an explicit request cannot be met on this host (--vhost
 *	   on; --host af_xdp on a missing interface or one with too few
 *	   queues), 2 for a bad flag or a refused value
 */
int cmd_plan(int argc, char **argv)
{
	struct plan_opts o = {
		.in = { .max_queues = PLAN_MAX_QUEUES_DEFAULT },
		.vm = { .id = "net0", .memory = "1G" },
		.qemu_bin = PLAN_QEMU_DEFAULT,
		.output = "all",
	};
	struct plan_policy_out pol;
	struct plan_switch sw = { .sock_dir = "/run/vnetd" };
	struct reason why = { 0 };
	int ret;

	o.dev = getenv("VNET_VHOST_NET_DEV");
	if (!o.dev || !*o.dev)
		o.dev = PROV_VHOST_NET_DEV;
	ret = plan_parse_flags(argc, argv, &o);
	if (ret)
		return ret < 0 ? CMD_OK : ret;
	plan_node_defaults(&o);
	ret = plan_check_values(&o) ?: plan_switch_values(&o, &sw);
	if (ret)
		return ret;
	if (!o.vm.tap) {
		snprintf(o.tap, sizeof(o.tap), "vnt-%.11s", o.vm.id);
		o.vm.tap = o.tap;
	}
	plan_probe_host(&o);
	ret = plan_policy(&o.in, &pol, &why);
	if (ret == -ENODEV) {
		fprintf(stderr, "vnetctl plan: %s\n", why.msg);
		return CMD_FAIL;
	}
	if (ret)
		return plan_usage_err("%s%s", o.in.queues ? "--queues: " : "", why.msg);
	if (plan_check_vm(&o.vm, &pol, &why))
		return plan_usage_err("%s%s", why.msg, "");
	if (o.vm.xdp_if && plan_xdp_check(o.vm.xdp_if, o.nic_queues,
					  o.vm.xdp_queue, pol.pairs, &why)) {
		fprintf(stderr, "vnetctl plan: %s\n", why.msg);
		return CMD_FAIL;
	}
	if (o.sw)
		return plan_switch_print(&sw, &o.vm, &o.in, &pol, o.output);
	return plan_output(&o, &pol);
}
