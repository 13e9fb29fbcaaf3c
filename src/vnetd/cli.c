// SPDX-License-Identifier: MIT
/*
 * cli.c - vnetd's command line, --port groups and config file: turns text
 * into struct vnetd_cfg. Every value is checked here, once; a bad one is
 * reported as "vnetd: OPTION VALUE: what is allowed" and cli_parse() returns
 * VNETD_EXIT_USAGE. Opening ports, sockets and backends is port.c's job.
 *
 * One setter (cli_set()) serves the three spellings of a port setting: the
 * option "--queues 2", the group key "queues=2" in --port, and the same key
 * on a config file line. Per-port options given outside --port are the
 * defaults for every --port group and config file line.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "vhost_port.h"
#include "ids.h"
#include "mac.h"
#include "spoof.h"
#include "host_switch.h"
#include "version.h"
#include "vnetd.h"

#define CLI_ERR_LEN	160
#define CLI_SPEC_MAX	2048	/* a --port group or config line */

/* virtio feature bits by name (virtio 1.2 spec, 5.1.3 and 6) */
static const struct {
	const char *name;
	unsigned int bit;
} cli_features[] = {
	{ "csum", 0 }, { "guest_csum", 1 }, { "ctrl_guest_offloads", 2 },
	{ "mtu", 3 }, { "mac", 5 }, { "guest_tso4", 7 }, { "guest_tso6", 8 },
	{ "guest_ecn", 9 }, { "guest_ufo", 10 }, { "host_tso4", 11 },
	{ "host_tso6", 12 }, { "host_ecn", 13 }, { "host_ufo", 14 },
	{ "mrg_rxbuf", 15 }, { "status", 16 }, { "ctrl_vq", 17 },
	{ "ctrl_rx", 18 }, { "ctrl_vlan", 19 }, { "guest_announce", 21 },
	{ "mq", 22 }, { "ctrl_mac_addr", 23 }, { "indirect_desc", 28 },
	{ "event_idx", 29 }, { "version_1", 32 }, { "access_platform", 33 },
	{ "packed", 34 }, { "in_order", 35 }, { "order_platform", 36 },
	{ "notification_data", 38 },
};

#define CLI_F_VERSION_1	32

/* Options: per-port ones have the same name as their group/file key */
enum {
	OPT_SOCKET = 's', OPT_BACKEND = 'b', OPT_QUEUES = 'q', OPT_HELP = 'h',
	OPT_TAP = 0x100, OPT_TAP_FD, OPT_THREADS, OPT_MAC, OPT_MTU,
	OPT_MAC_LOCK, OPT_ALLOW_IP,
	OPT_FEATURES, OPT_POLL_US, OPT_BUDGET_PKTS, OPT_BUDGET_BYTES,
	OPT_CLIENT, OPT_VHOST_NET, OPT_NAME, OPT_CTL, OPT_CONFIG, OPT_PORT,
	OPT_CAPS, OPT_LOG_LEVEL, OPT_VERSION, OPT_CONFIG_SPACE,
	OPT_FD, OPT_SOCKET_OWNER, OPT_SOCKET_GROUP, OPT_SOCKET_MODE,
	OPT_USER, OPT_CTL_GROUP, OPT_LOG_TARGET, OPT_SANDBOX,
	OPT_METRICS_LISTEN, OPT_WORKER_THREADS, OPT_TAP_IO, OPT_STALL_MS,
	OPT_XDP_IF, OPT_XDP_QUEUE, OPT_XDP_MODE,
	OPT_SWITCH, OPT_VLAN, OPT_TRUNK,
};

static const struct option cli_opts[] = {
	{ "socket",		required_argument, NULL, OPT_SOCKET },
	{ "socket-path",	required_argument, NULL, OPT_SOCKET },
	{ "fd",			required_argument, NULL, OPT_FD },
	{ "socket-owner",	required_argument, NULL, OPT_SOCKET_OWNER },
	{ "socket-group",	required_argument, NULL, OPT_SOCKET_GROUP },
	{ "socket-mode",	required_argument, NULL, OPT_SOCKET_MODE },
	{ "user",		required_argument, NULL, OPT_USER },
	{ "ctl-group",		required_argument, NULL, OPT_CTL_GROUP },
	{ "log-target",		required_argument, NULL, OPT_LOG_TARGET },
	{ "backend",		required_argument, NULL, OPT_BACKEND },
	{ "tap",		required_argument, NULL, OPT_TAP },
	{ "tap-fd",		required_argument, NULL, OPT_TAP_FD },
	{ "xdp-if",		required_argument, NULL, OPT_XDP_IF },
	{ "xdp-queue",		required_argument, NULL, OPT_XDP_QUEUE },
	{ "xdp-mode",		required_argument, NULL, OPT_XDP_MODE },
	{ "queues",		required_argument, NULL, OPT_QUEUES },
	{ "threads",		required_argument, NULL, OPT_THREADS },
	{ "mac",		required_argument, NULL, OPT_MAC },
	{ "mtu",		required_argument, NULL, OPT_MTU },
	{ "features",		required_argument, NULL, OPT_FEATURES },
	{ "poll-us",		required_argument, NULL, OPT_POLL_US },
	{ "budget-pkts",	required_argument, NULL, OPT_BUDGET_PKTS },
	{ "budget-bytes",	required_argument, NULL, OPT_BUDGET_BYTES },
	{ "client",		no_argument,	   NULL, OPT_CLIENT },
	{ "vhost-net",		required_argument, NULL, OPT_VHOST_NET },
	{ "name",		required_argument, NULL, OPT_NAME },
	{ "config-space",	required_argument, NULL, OPT_CONFIG_SPACE },
	{ "mac-lock",		no_argument,	   NULL, OPT_MAC_LOCK },
	{ "allow-ip",		required_argument, NULL, OPT_ALLOW_IP },
	{ "vlan",		required_argument, NULL, OPT_VLAN },
	{ "trunk",		required_argument, NULL, OPT_TRUNK },
	{ "switch",		required_argument, NULL, OPT_SWITCH },
	{ "ctl-socket",		required_argument, NULL, OPT_CTL },
	{ "config",		required_argument, NULL, OPT_CONFIG },
	{ "port",		required_argument, NULL, OPT_PORT },
	{ "print-capabilities",	no_argument,	   NULL, OPT_CAPS },
	{ "sandbox",		required_argument, NULL, OPT_SANDBOX },
	{ "metrics-listen",	required_argument, NULL, OPT_METRICS_LISTEN },
	{ "worker-threads",	required_argument, NULL, OPT_WORKER_THREADS },
	{ "tap-io",		required_argument, NULL, OPT_TAP_IO },
	{ "frontend-stall-ms",	required_argument, NULL, OPT_STALL_MS },
	{ "log-level",		required_argument, NULL, OPT_LOG_LEVEL },
	{ "help",		no_argument,	   NULL, OPT_HELP },
	{ "version",		no_argument,	   NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 }
};

/**
 * cli_usage() - Print --help: every option with its default
 * @f:		Stream
 */
void cli_usage(FILE *f)
{
	fprintf(f,
"Usage: vnetd --socket PATH [OPTION]...\n"
"       vnetd --port KEY=VAL,... [--port ...] [OPTION]...\n"
"       vnetd --config FILE [OPTION]...\n"
"vhost-user-net backend daemon: serves virtio-net frontends (VMMs) on UNIX sockets.\n"
"\n"
"Port options (outside --port: the defaults for every port):\n"
"  -s, --socket PATH        vhost-user socket (required unless --fd/--port/--config)\n"
"      --socket-path PATH   the same (vhost-user.rst backend program conventions)\n"
"      --fd N               an inherited socket instead of --socket: listening, or\n"
"                           already connected as QEMU passes it (default: none)\n"
"      --socket-owner USER  owner of the socket file (default: unchanged)\n"
"      --socket-group GROUP group of the socket file (default: kvm when root and the\n"
"                           group exists, for libvirt's QEMU; otherwise unchanged)\n"
"      --socket-mode MODE   socket file mode, octal 0000..0777 (default: 0660)\n"
"  -b, --backend NAME       host side: %s (default: tap)\n"
"      --tap NAME           tap: interface to create or attach to (default: kernel picks)\n"
"      --tap-fd N           tap: an open queue fd; repeat once per queue pair (default: none)\n"
"      --xdp-if IF          af_xdp: existing interface to attach to, one AF_XDP socket\n"
"                           per queue pair (required with --backend af_xdp)\n"
"      --xdp-queue N        af_xdp: IF's queue for pair 0, 0..1023; pair k uses N+k\n"
"                           (default: 0)\n"
"      --xdp-mode MODE      af_xdp: auto|copy|zerocopy; auto: zero-copy where the\n"
"                           driver has it, else copy (default: auto)\n"
"  -q, --queues N           queue pairs the frontend may use, 1..64 (default: 1)\n"
"      --threads N          threads of the port's own, 0..queues; 0: the shared pool\n"
"                           (--worker-threads), or one per pair without it (default: 0)\n"
"      --mac MAC            MAC in the config space (default: 02:xx derived from the socket path)\n"
"      --mtu N              MTU to advertise, 68..65535 (default: none)\n"
"      --features MASK      allowed virtio feature bits: a number (hex or decimal) or a\n"
"                           list like -mrg_rxbuf,-packed (default: all)\n"
"      --poll-us N          busy-poll a ring N us before sleeping, 0..1000000 (default: 0)\n"
"      --budget-pkts N      frames per ring per wake, 1..65536 (default: 256)\n"
"      --budget-bytes N     bytes per ring per wake, 1500..1073741824 (default: 1048576)\n"
"      --client             connect to the frontend's socket, reconnect with backoff\n"
"                           100 ms .. 5 s (default: listen)\n"
"      --vhost-net MODE     kernel vhost-net data path: auto|on|off (default: auto)\n"
"      --name NAME          port name in status and logs (default: port<N>)\n"
"      --config-space MODE  on|off: offer VHOST_USER_PROTOCOL_F_CONFIG (GET_CONFIG\n"
"                           reads the MAC, MTU, queue count) (default: off)\n"
"      --mac-lock           drop guest frames whose source MAC (or ARP sender) is not\n"
"                           the port's --mac (default: off)\n"
"      --allow-ip LIST      drop guest IPv4/IPv6/ARP frames from sources outside LIST:\n"
"                           addresses or CIDRs, ',' between items ([v6] in ':' lists);\n"
"                           0.0.0.0, :: and the MAC's fe80:: always pass (default: any)\n"
"      --vlan N             switch port: access VLAN, 1..4094, untagged at the guest\n"
"                           (default: 1)\n"
"      --trunk LIST         switch port: trunk of VLANs 1..4094, e.g. 10,20-30 (':'\n"
"                           between items in --port), 802.1Q-tagged at the guest\n"
"                           (default: none; not with --vlan)\n"
"\n"
"Process options:\n"
"      --switch NAME        declare a switch between ports, repeatable; a port joins\n"
"                           it with the --port key switch=NAME (default: none)\n"
"      --port KEY=VAL,...   one more port; keys are the port options above without\n"
"                           the dashes (socket=,backend=,tap=,queues=,...; client=1);\n"
"                           list values (features=, tap-fd=) use ':' between items\n"
"      --config FILE        ports from FILE, one per line, same KEY=VAL syntax\n"
"      --ctl-socket PATH    control socket (default: %s)\n"
"      --ctl-group GROUP    may use the control socket besides root (default: none)\n"
"      --metrics-listen ADDR:PORT  serve GET /metrics (Prometheus) over HTTP on\n"
"                           IPV4:PORT, [IPV6]:PORT or localhost:PORT, port 1..65535\n"
"                           (default: none)\n"
"      --worker-threads N   one pool of N threads, 1..256 or auto (= CPUs we may run\n"
"                           on), serves the pairs of all ports (but those with\n"
"                           --threads), spread evenly; 0: no pool, each port\n"
"                           runs a thread per pair (default: auto)\n"
"      --tap-io MODE        how frames cross TAPs, both ways: auto|uring|writev;\n"
"                           uring: a guest TX burst or a host RX batch per\n"
"                           io_uring_enter (fails start-up if refused), writev: a\n"
"                           writev/readv per frame, auto: uring if allowed (default: auto)\n"
"      --frontend-stall-ms N  a frontend that leaves a message half sent, or its\n"
"                           replies unread, this long is closed; a second frontend\n"
"                           waits for that instead of being refused, 100..60000\n"
"                           (default: 1000)\n"
"      --log-level LEVEL    error|warn|info|debug (default: info)\n"
"      --log-target T       auto|stderr|journal|syslog (default: auto: journal format\n"
"                           when stderr is the journal, else stderr)\n"
"      --user USER[:GROUP]  after opening TAPs and sockets, become USER with no\n"
"                           capabilities (default: stay)\n"
"      --print-capabilities print the vhost-user backend capabilities JSON and exit 0,\n"
"                           whatever else is on the command line\n"
"      --sandbox on|off     after setup: no capabilities, no_new_privs, Landlock,\n"
"                           seccomp filter (default: on)\n"
"  -h, --help               this text\n"
"      --version            print the version and exit\n"
"\n"
"SIGHUP re-reads --config and applies only the differences; vnetctl port\n"
"add|del|list changes ports at run time (docs/vnetd.md, \"Ports at run time\").\n"
"Exit status: 0 clean exit (SIGTERM/SIGINT), 1 runtime failure, 2 bad usage.\n",
		host_names(), ctl_default_path());
}

/**
 * cli_print_capabilities() - The spec's "Backend program conventions" JSON
 * @f:		Stream
 */
void cli_print_capabilities(FILE *f)
{
	fprintf(f, "{\n  \"type\": \"net\"\n}\n");
}

/**
 * cli_feature_name() - Name of a virtio feature bit, for status
 * @bit:	Bit number
 *
 * Return: name, or NULL if unknown
 */
const char *cli_feature_name(unsigned int bit)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cli_features); i++)
		if (cli_features[i].bit == bit)
			return cli_features[i].name;
	return NULL;
}

/* Parse an unsigned decimal (or 0x hex) number in [min, max] */
static int cli_uint(const char *s, unsigned long long min,
		    unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int cli_feature_bit(const char *name)
{
	size_t i;

	if (!strcasecmp(name, "ring_packed") || !strcasecmp(name, "packed_vq"))
		name = "packed";
	if (!strcasecmp(name, "indirect"))
		name = "indirect_desc";
	for (i = 0; i < ARRAY_SIZE(cli_features); i++)
		if (!strcasecmp(cli_features[i].name, name))
			return (int)cli_features[i].bit;
	return -1;
}

/*
 * --features: a number, or a list of names separated by @sep. A list whose
 * first item starts with '-' starts from "all allowed" and turns bits off;
 * otherwise it starts from nothing and turns on what it names ("+" optional).
 */
static const char *cli_features_parse(const char *val, char sep,
				      uint64_t *mask)
{
	char buf[512], *tok, *save = NULL, seps[2] = { sep, 0 };
	unsigned long long v;
	uint64_t m;

	if (!cli_uint(val, 0, UINT64_MAX, &v)) {
		m = v;
	} else {
		if (strlen(val) >= sizeof(buf) || !*val)
			return "must be a number or a list of feature names like -mrg_rxbuf,-packed";
		strcpy(buf, val);
		m = val[0] == '-' ? UINT64_MAX : 0;
		for (tok = strtok_r(buf, seps, &save); tok;
		     tok = strtok_r(NULL, seps, &save)) {
			bool off = *tok == '-';
			int bit;

			if (*tok == '-' || *tok == '+')
				tok++;
			bit = cli_feature_bit(tok);
			if (bit < 0)
				return "unknown feature name (known: csum, guest_csum, mtu, mac, guest_tso4/6, guest_ecn, guest_ufo, host_tso4/6, host_ecn, host_ufo, mrg_rxbuf, status, ctrl_vq, guest_announce, mq, indirect_desc, event_idx, version_1, packed, in_order, ...)";
			if (off)
				m &= ~(1ULL << bit);
			else
				m |= 1ULL << bit;
		}
	}
	if (!(m & (1ULL << CLI_F_VERSION_1)))
		return "must keep version_1 (bit 32): legacy virtio is not supported";
	*mask = m;
	return NULL;
}

static const char *cli_tap_fds_parse(struct vnetd_port_cfg *pc,
				     const char *val, char sep)
{
	char buf[512], *tok, *save = NULL, seps[2] = { sep, 0 };
	unsigned long long v;

	if (strlen(val) >= sizeof(buf))
		return "too long";
	strcpy(buf, val);
	for (tok = strtok_r(buf, seps, &save); tok;
	     tok = strtok_r(NULL, seps, &save)) {
		if (cli_uint(tok, 0, 1 << 20, &v))
			return "must be an open file descriptor number";
		if (pc->ntap_fds >= VNET_MAX_PAIRS)
			return "at most 64 fds (one per queue pair)";
		pc->tap_fds[pc->ntap_fds++] = (int)v;
	}
	return NULL;
}

static const char *cli_copy(char *dst, size_t len, const char *val,
			    const char *what)
{
	if (!*val || strlen(val) >= len)
		return what;
	strcpy(dst, val);
	return NULL;
}

static const char *cli_set_num(struct vnetd_port_cfg *pc, int opt,
			       const char *val)
{
	unsigned long long v;

	switch (opt) {
	case OPT_QUEUES:
		if (cli_uint(val, 1, VNET_MAX_PAIRS, &v))
			return "must be 1..64";
		pc->queues = (unsigned int)v;
		return NULL;
	case OPT_THREADS:
		if (cli_uint(val, 0, VNET_MAX_PAIRS, &v))
			return "must be 0..64 (0: one per queue pair)";
		pc->wopts.nthreads = (unsigned int)v;
		return NULL;
	case OPT_MTU:
		if (cli_uint(val, 68, 65535, &v))
			return "must be 68..65535";
		pc->mtu = (uint16_t)v;
		return NULL;
	case OPT_POLL_US:
		if (cli_uint(val, 0, 1000000, &v))
			return "must be 0..1000000";
		pc->wopts.poll_us = (unsigned int)v;
		return NULL;
	case OPT_BUDGET_PKTS:
		if (cli_uint(val, 1, 65536, &v))
			return "must be 1..65536";
		pc->wopts.budget_pkts = (unsigned int)v;
		return NULL;
	case OPT_BUDGET_BYTES:
		if (cli_uint(val, 1500, 1 << 30, &v))
			return "must be 1500..1073741824";
		pc->wopts.budget_bytes = (unsigned int)v;
		return NULL;
	}
	return "unknown option";
}

/* Socket settings: NULL, "" (not one of these), or why not */
static const char *cli_set_sock(struct vnetd_port_cfg *pc, int opt,
				const char *val)
{
	unsigned long long v;
	uid_t uid;
	gid_t gid;
	char *end;

	switch (opt) {
	case OPT_FD:
		if (cli_uint(val, 0, 1 << 20, &v))
			return "must be an open file descriptor number, 0..1048576";
		pc->fd = (int)v;
		return NULL;
	case OPT_SOCKET_OWNER:
		if (ids_uid(val, &uid))
			return "no such user (a name or uid; see getent passwd)";
		pc->sock_uid = uid;
		return NULL;
	case OPT_SOCKET_GROUP:
		if (ids_gid(val, &gid))
			return "no such group (a name or gid; see getent group)";
		pc->sock_gid = gid;
		return NULL;
	case OPT_SOCKET_MODE:
		errno = 0;
		v = strtoull(val, &end, 8);
		if (!*val || *val == '-' || *val == '+' || *end || errno ||
		    v > 0777)
			return "must be an octal mode 0000..0777, like 0660";
		pc->sock_mode = (unsigned int)v;
		return NULL;
	}
	return "";
}

/* Set one port setting; @sep separates list items. Return: NULL or why not */
static const char *cli_set(struct vnetd_port_cfg *pc, int opt,
			   const char *val, char sep)
{
	unsigned long long v;
	const char *sock_why;

	switch (opt) {
	case OPT_SOCKET:
		return cli_copy(pc->socket, sizeof(pc->socket), val,
				"must be a path of 1..107 bytes");
	case OPT_BACKEND:
		if (!host_find(val)) {
			static char why[CLI_ERR_LEN];

			if (!strcmp(val, "af_xdp"))
				snprintf(why, sizeof(why), "not built in: vnetd was "
					 "built without libxdp/libbpf (rebuild with "
					 "libxdp-dev and libbpf-dev); available: %s",
					 host_names());
			else
				snprintf(why, sizeof(why), "unknown backend, must be one of: %s",
					 host_names());
			return why;
		}
		return cli_copy(pc->backend, sizeof(pc->backend), val, "too long");
	case OPT_TAP:
		return cli_copy(pc->tap, 16, val,
				"must be an interface name of 1..15 bytes");
	case OPT_NAME:
		if (strpbrk(val, " \t\"\\{}=,"))
			return "must not contain spaces, quotes, braces, '=' or ','";
		return cli_copy(pc->name, sizeof(pc->name), val,
				"must be 1..31 bytes");
	case OPT_TAP_FD:
		return cli_tap_fds_parse(pc, val, sep);
	case OPT_XDP_IF:
		return cli_copy(pc->xdp_if, 16, val,
				"must be an interface name of 1..15 bytes");
	case OPT_XDP_QUEUE:
		if (cli_uint(val, 0, 1023, &v))
			return "must be 0..1023";
		pc->xdp_queue = (unsigned int)v;
		return NULL;
	case OPT_XDP_MODE:
		if (!strcmp(val, "auto"))
			pc->xdp_mode = HOST_XDP_AUTO;
		else if (!strcmp(val, "copy"))
			pc->xdp_mode = HOST_XDP_COPY;
		else if (!strcmp(val, "zerocopy"))
			pc->xdp_mode = HOST_XDP_ZEROCOPY;
		else
			return "must be auto, copy or zerocopy";
		return NULL;
	case OPT_MAC:
		return mac_parse(val, pc->mac);
	case OPT_FEATURES:
		return cli_features_parse(val, sep, &pc->features_mask);
	case OPT_CLIENT:
		if (cli_uint(val, 0, 1, &v))
			return "must be 0 or 1";
		pc->client = v;
		return NULL;
	case OPT_VHOST_NET:
		if (vhost_mode_parse(val, &pc->vhost_net))
			return "must be auto, on or off";
		return NULL;
	case OPT_CONFIG_SPACE:
		if (strcmp(val, "on") && strcmp(val, "off"))
			return "must be on or off";
		pc->config_space = !strcmp(val, "on");
		return NULL;
	case OPT_MAC_LOCK:
		if (cli_uint(val, 0, 1, &v))
			return "must be 0 or 1";
		pc->wopts.spoof.mac_lock = v;
		return NULL;
	case OPT_ALLOW_IP:
		return spoof_parse_list(&pc->wopts.spoof, val, sep);
	case OPT_SWITCH:
		if (!*val || strlen(val) >= SW_NAME_LEN)
			return "must be a switch name of 1..31 bytes (declared with --switch NAME)";
		strcpy(pc->sw, val);
		return NULL;
	case OPT_VLAN: {
		struct sw_vlans acc;
		const char *why = switch_vlans_parse(&acc, val, false, sep);

		if (!why)
			pc->vlan = acc.access;
		return why;
	}
	case OPT_TRUNK: {
		const char *why = switch_vlans_parse(&pc->trunk, val, true, sep);

		pc->trunk_set = !why;
		return why;
	}
	}
	sock_why = cli_set_sock(pc, opt, val);
	return sock_why && !*sock_why ? cli_set_num(pc, opt, val) : sock_why;
}

/* Option id for a --port / config key, -1 if none */
static int cli_key(const char *key)
{
	const struct option *o;

	for (o = cli_opts; o->name; o++) {
		switch (o->val) {
		case OPT_CTL: case OPT_CONFIG: case OPT_PORT: case OPT_CAPS:
		case OPT_SANDBOX: case OPT_METRICS_LISTEN: case OPT_WORKER_THREADS:
		case OPT_LOG_LEVEL: case OPT_HELP: case OPT_VERSION: case OPT_USER:
		case OPT_CTL_GROUP: case OPT_LOG_TARGET: case OPT_STALL_MS:
			continue;
		}
		if (!strcmp(o->name, key))
			return o->val;
	}
	return -1;
}

static const char *cli_opt_name(int opt)
{
	const struct option *o;

	for (o = cli_opts; o->name; o++)
		if (o->val == opt)
			return o->name;
	return "?";
}

static void cli_err(const char *fmt, ...) PRINTF_FMT(1, 2);
static void cli_err(const char *fmt, ...)
{
	va_list ap;

	fputs("vnetd: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * Parse "key=val<d>key=val..." (d: any of @delims) into @pc. On failure
 * @why gets the reason, written to follow the source's name ("--port",
 * "FILE:LINE:", "port add"): " 'key=val': what is allowed".
 */
static int cli_group(struct vnetd_port_cfg *pc, const char *text,
		     const char *delims, struct reason *why)
{
	char buf[CLI_SPEC_MAX], *tok, *save = NULL, *eq;
	const char *bad;
	int opt;

	if (strlen(text) >= sizeof(buf)) {
		return reason_set(why, -EINVAL, ": line too long (at most %zu bytes)",
				  sizeof(buf) - 1);
	}
	strcpy(buf, text);
	for (tok = strtok_r(buf, delims, &save); tok;
	     tok = strtok_r(NULL, delims, &save)) {
		eq = strchr(tok, '=');
		if (eq)
			*eq = '\0';
		opt = cli_key(tok);
		if (opt < 0) {
			return reason_set(why, -EINVAL, " '%s': unknown key (keys: socket, socket-path, fd, socket-owner, socket-group, socket-mode, backend, tap, tap-fd, xdp-if, xdp-queue, xdp-mode, queues, threads, mac, mtu, features, poll-us, budget-pkts, budget-bytes, client, vhost-net, name, config-space, mac-lock, allow-ip, switch, vlan, trunk)",
					  tok);
		}
		if (!eq && opt != OPT_CLIENT && opt != OPT_MAC_LOCK) {
			return reason_set(why, -EINVAL, " '%s': needs a value (%s=VALUE)",
					  tok, tok);
		}
		bad = cli_set(pc, opt, eq ? eq + 1 : "1", ':');
		if (bad) {
			return reason_set(why, -EINVAL, " '%s=%s': %s", tok,
					  eq ? eq + 1 : "", bad);
		}
	}
	return 0;
}

/**
 * cli_port_parse() - Parse one port spec ("key=val,key=val...")
 * @pc:		Port configuration (output)
 * @tmpl:	Defaults (the per-port options given outside --port)
 * @text:	The spec
 * @delims:	Characters between settings ("," for --port and port add;
 *		", \t" on config file lines)
 * @why:	On failure, the reason, written to follow the source's name
 *		(" 'queues=99': must be 1..64")
 *
 * The one parser of --port, config file lines and `vnetctl port add`.
 * Defaults that depend on the port's place (name, MAC) are left to
 * cli_port_check().
 *
 * Return: 0, or -EINVAL with @why set
 */
int cli_port_parse(struct vnetd_port_cfg *pc, const struct vnetd_port_cfg *tmpl,
		   const char *text, const char *delims, struct reason *why)
{
	*pc = *tmpl;
	pc->socket[0] = '\0';
	pc->name[0] = '\0';
	pc->fd = -1;
	if (cli_group(pc, text, delims, why))
		return -EINVAL;
	if (!pc->socket[0] && pc->fd < 0) {
		return reason_set(why, -EINVAL, " '%.64s': missing socket=PATH (or fd=N)",
				  text);
	}
	return 0;
}

static int cli_add_port(struct vnetd_cfg *cfg,
			const struct vnetd_port_cfg *tmpl, const char *text,
			const char *delims, const char *where, struct reason *why)
{
	struct reason inner = { 0 };

	if (cfg->nports >= VNETD_MAX_PORTS) {
		return reason_set(why, -EINVAL, "%s: too many ports (at most %d)", where,
				  VNETD_MAX_PORTS);
	}
	if (cli_port_parse(&cfg->ports[cfg->nports], tmpl, text, delims,
			   &inner)) {
		return reason_set(why, -EINVAL, "%s%s", where, inner.msg);
	}
	cfg->nports++;
	return 0;
}

/**
 * cli_config_read() - Add the ports of a config file to @cfg
 * @cfg:	Configuration: its ports grow by one per line
 * @tmpl:	Defaults for every line
 * @path:	The file: one port per line, KEY=VAL separated by ',', ' '
 *		or tabs; '#' starts a comment
 * @why:	On failure, "FILE:LINE: 'key=val': reason" (nothing printed)
 *
 * Used at start and by SIGHUP (reload.c). The ports it adds are marked
 * from_config and not yet given their defaults (cli_port_check()).
 *
 * Return: 0, or -EINVAL with @why set
 */
int cli_config_read(struct vnetd_cfg *cfg, const struct vnetd_port_cfg *tmpl,
		    const char *path, struct reason *why)
{
	char line[CLI_SPEC_MAX], where[VNETD_PATH_LEN + 16];
	unsigned int lineno = 0;
	struct stat st;
	int ret = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		return reason_set(why, -EINVAL, "--config %s: %s", path, strerror(errno));
	}
	/* fopen() opens a directory; only reading it fails, with EISDIR */
	if (!fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
		reason_set(why, -EINVAL, "--config %s: is a directory (give a file of port lines)",
			   path);
		fclose(f);
		return -EINVAL;
	}
	while (!ret && fgets(line, sizeof(line), f)) {
		char *p = line, *hash = strchr(line, '#');

		lineno++;
		if (hash)
			*hash = '\0';
		p[strcspn(p, "\r\n")] = '\0';
		p += strspn(p, " \t,");
		if (!*p)
			continue;
		snprintf(where, sizeof(where), "%s:%u:", path, lineno);
		ret = cli_add_port(cfg, tmpl, p, ", \t", where, why);
		if (!ret)
			cfg->ports[cfg->nports - 1].from_config = true;
	}
	fclose(f);
	return ret;
}

/*
 * A port's switch keys: switch= makes the switch its host side, refused
 * with backend=, tap=, tap-fd= or a switch not declared; vlan= and
 * trunk= only with switch=, and not both. Return: 0 or -EINVAL with @why
 */
static int cli_port_switch(struct vnetd_port_cfg *pc, struct reason *why)
{
	if (!pc->sw[0]) {
		if (!strcmp(pc->backend, "switch"))
			return reason_set(why, -EINVAL, "port %s: --backend switch: needs switch=NAME, the switch to join (declared: %s)",
					  pc->name, host_switch_names());
		if (pc->vlan || pc->trunk_set)
			return reason_set(why, -EINVAL, "port %s: %s: only with switch=NAME",
					  pc->name, pc->vlan ? "vlan=" : "trunk=");
		return 0;
	}
	if (!host_switch_find(pc->sw))
		return reason_set(why, -EINVAL, "port %s: switch=%s: no such switch (declared: %s; add --switch %s)",
				  pc->name, pc->sw, host_switch_names(), pc->sw);
	if (strcmp(pc->backend, "tap") && strcmp(pc->backend, "switch"))
		return reason_set(why, -EINVAL, "port %s: switch=%s: cannot be combined with backend=%s (the switch is the port's host side)",
				  pc->name, pc->sw, pc->backend);
	if (pc->tap[0] || pc->ntap_fds)
		return reason_set(why, -EINVAL, "port %s: switch=%s: cannot be combined with %s (the switch is the port's host side)",
				  pc->name, pc->sw, pc->tap[0] ? "tap=" : "tap-fd=");
	if (pc->vlan && pc->trunk_set)
		return reason_set(why, -EINVAL, "port %s: vlan=%u: cannot be combined with trunk=: give one or the other",
				  pc->name, pc->vlan);
	strcpy(pc->backend, "switch");
	if (!pc->trunk_set && !pc->vlan)
		pc->vlan = 1;
	return 0;
}

/**
 * cli_port_check() - Defaults that depend on the port's place, and the
 *		      checks across one port's settings
 * @pc:		Port configuration, from cli_port_parse()
 * @index:	Its slot: the default name is port<index>, and the default
 *		MAC (02:<index>:FNV-1a of the socket path) is stable across
 *		restarts
 * @why:	On failure, the reason ("port NAME: --flag VALUE: allowed")
 *
 * Return: 0, or -EINVAL with @why set
 */
int cli_port_check(struct vnetd_port_cfg *pc, unsigned int index, struct reason *why)
{
	uint32_t h = 2166136261u;
	const char *c;

	if (!pc->name[0])
		snprintf(pc->name, sizeof(pc->name), "port%u", index);
	if (!(pc->mac[0] | pc->mac[1] | pc->mac[2] | pc->mac[3] | pc->mac[4] |
	      pc->mac[5])) {
		for (c = pc->socket; *c; c++)
			h = (h ^ (uint8_t)*c) * 16777619u;
		pc->mac[0] = 0x02;	/* locally administered, unicast */
		pc->mac[1] = (uint8_t)index;
		memcpy(&pc->mac[2], &h, 4);
	}
	spoof_finish(&pc->wopts.spoof, pc->mac);	/* the MAC is final now */
	if (cli_port_switch(pc, why))
		return -EINVAL;
	if (pc->ntap_fds && strcmp(pc->backend, "tap"))
		reason_set(why, -EINVAL, "port %s: --tap-fd: only with --backend tap",
			   pc->name);
	else if (pc->ntap_fds && pc->ntap_fds != pc->queues)
		reason_set(why, -EINVAL, "port %s: --tap-fd: %u fds given, --queues is %u: must be one fd per queue pair",
			   pc->name, pc->ntap_fds, pc->queues);
	else if (!strcmp(pc->backend, "af_xdp") && !pc->xdp_if[0])
		reason_set(why, -EINVAL, "port %s: --backend af_xdp: needs --xdp-if IF, the interface to attach to",
			   pc->name);
	else if (strcmp(pc->backend, "af_xdp") && pc->xdp_if[0])
		reason_set(why, -EINVAL, "port %s: --xdp-if %s: only with --backend af_xdp",
			   pc->name, pc->xdp_if);
	else if (pc->xdp_queue + pc->queues > 1024)
		reason_set(why, -EINVAL, "port %s: --xdp-queue %u: with --queues %u the last queue is past 1023",
			   pc->name, pc->xdp_queue, pc->queues);
	else if (vhost_port_mode_check(pc->vhost_net, pc->backend))
		reason_set(why, -EINVAL, "port %s: --vhost-net on: needs --backend tap (the kernel moves frames to a TAP queue)",
			   pc->name);
	else if (pc->fd >= 0 && pc->socket[0])
		reason_set(why, -EINVAL, "port %s: --fd %d: cannot be combined with --socket-path %s: give one or the other",
			   pc->name, pc->fd, pc->socket);
	else if (pc->fd >= 0 && pc->client)
		reason_set(why, -EINVAL, "port %s: --fd %d: cannot be combined with --client (the socket is given, not dialled)",
			   pc->name, pc->fd);
	else if (pc->wopts.nthreads > pc->queues)
		reason_set(why, -EINVAL, "port %s: --threads %u: must be 0..%u (--queues)",
			   pc->name, pc->wopts.nthreads, pc->queues);
	else
		return 0;
	return -EINVAL;
}

/**
 * cli_port_clash() - Does @pc share a name, socket or fd with @other?
 * @pc:		New port
 * @other:	A port already configured
 * @why:	On a clash, the reason
 *
 * Return: 0, or -EEXIST with @why set
 */
int cli_port_clash(const struct vnetd_port_cfg *pc,
		   const struct vnetd_port_cfg *other, struct reason *why)
{
	if (pc->fd >= 0 && other->fd == pc->fd)
		reason_set(why, -EEXIST, "--fd %d: used by ports %s and %s", pc->fd,
			   other->name, pc->name);
	else if (!strcmp(other->name, pc->name))
		reason_set(why, -EEXIST, "port name %s: used twice", pc->name);
	else if (pc->socket[0] && !strcmp(other->socket, pc->socket))
		reason_set(why, -EEXIST, "socket %s: used by ports %s and %s",
			   pc->socket, other->name, pc->name);
	else
		return 0;
	return -EEXIST;
}

/* Defaults for anything not given, and checks across options and ports */
static int cli_finish_port(struct vnetd_cfg *cfg, unsigned int i)
{
	struct vnetd_port_cfg *pc = &cfg->ports[i];
	struct reason why = { 0 };
	unsigned int j;

	if (cli_port_check(pc, i, &why)) {
		cli_err("%s", why.msg);
		return -EINVAL;
	}
	for (j = 0; j < i; j++) {
		if (cli_port_clash(pc, &cfg->ports[j], &why)) {
			cli_err("%s", why.msg);
			return -EINVAL;
		}
	}
	return 0;
}

/* --worker-threads auto: the CPUs we may run on, 1..WORKER_GROUP_MAX */
static unsigned int cli_cpus(void)
{
	cpu_set_t cpus;
	int n;

	n = sched_getaffinity(0, sizeof(cpus), &cpus) ? 1 : CPU_COUNT(&cpus);
	return (unsigned int)MIN(MAX(n, 1), WORKER_GROUP_MAX);
}

/**
 * cli_port_defaults() - A port's settings before any option: the template
 * of every --port, config line and `port add` (cli_defaults() adds the
 * default socket group, which depends on the host)
 * @t:	Template (output)
 */
void cli_port_defaults(struct vnetd_port_cfg *t)
{
	memset(t, 0, sizeof(*t));
	strcpy(t->backend, "tap");
	t->queues = 1;
	t->features_mask = UINT64_MAX;
	t->vhost_net = VHOST_MODE_AUTO;
	t->wopts.budget_pkts = 256;
	t->wopts.budget_bytes = 1 << 20;
	t->fd = -1;
	t->sock_uid = -1;
	t->sock_gid = -1;
	t->sock_mode = SOCK_DEFAULT_MODE;
}

static void cli_defaults(struct vnetd_cfg *cfg, struct vnetd_port_cfg *t)
{
	gid_t gid;

	memset(cfg, 0, sizeof(*cfg));
	cfg->log_level = LOG_INFO;
	cfg->sandbox = true;
	cfg->worker_threads = cli_cpus();	/* --worker-threads auto */
	cfg->frontend_stall_ms = VNETD_STALL_MS_DEFAULT;
	snprintf(cfg->ctl_path, sizeof(cfg->ctl_path), "%s",
		 ctl_default_path());
	cli_port_defaults(t);
	cfg->ctl_gid = -1;
	/* libvirt's qemu:///system runs QEMU as libvirt-qemu, group kvm */
	if (geteuid() == 0 && !ids_gid(SOCK_DEFAULT_GROUP, &gid))
		t->sock_gid = gid;
}

static int cli_log_level(struct vnetd_cfg *cfg, const char *val)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (!strcmp(val, names[i])) {
			cfg->log_level = (int)i;
			return 0;
		}
	}
	cli_err("--log-level %s: must be error, warn, info or debug", val);
	return -EINVAL;
}

/* --worker-threads N|auto */
static int cli_worker_threads(struct vnetd_cfg *cfg, const char *val)
{
	unsigned long long v;

	if (!strcmp(val, "auto")) {
		cfg->worker_threads = cli_cpus();
		return 0;
	}
	if (cli_uint(val, 0, WORKER_GROUP_MAX, &v)) {
		cli_err("--worker-threads %s: must be 0..%d or auto (0: threads per port)",
			val, WORKER_GROUP_MAX);
		return -EINVAL;
	}
	cfg->worker_threads = (unsigned int)v;
	return 0;
}

/* --user, --ctl-group, --log-target, --worker-threads, --tap-io,
 * --frontend-stall-ms */
static int cli_process_opt(struct vnetd_cfg *cfg, int opt, const char *val)
{
	struct reason why = { 0 };
	unsigned long long v;
	gid_t gid;

	switch (opt) {
	case OPT_STALL_MS:
		if (cli_uint(val, VNETD_STALL_MS_MIN, VNETD_STALL_MS_MAX, &v)) {
			cli_err("--frontend-stall-ms %s: must be %u..%u (milliseconds)",
				val, VNETD_STALL_MS_MIN, VNETD_STALL_MS_MAX);
			return -EINVAL;
		}
		cfg->frontend_stall_ms = (unsigned int)v;
		return 0;
	case OPT_WORKER_THREADS:
		return cli_worker_threads(cfg, val);
	case OPT_USER:
		if (privdrop_lookup_user(val, &cfg->user_uid, &cfg->user_gid,
					 &why)) {
			cli_err("--user %s: %s", val, why.msg);
			return -EINVAL;
		}
		cfg->user_set = true;
		return 0;
	case OPT_CTL_GROUP:
		if (ids_gid(val, &gid)) {
			cli_err("--ctl-group %s: no such group (a name or gid; see getent group)",
				val);
			return -EINVAL;
		}
		cfg->ctl_gid = gid;
		return 0;
	case OPT_TAP_IO:
		if (tap_io_parse(val, &cfg->tap_io)) {
			cli_err("--tap-io %s: must be auto, uring or writev", val);
			return -EINVAL;
		}
		return 0;
	case OPT_LOG_TARGET:
		if (log_target_parse(val, &cfg->log_target)) {
			cli_err("--log-target %s: must be auto, stderr, journal or syslog",
				val);
			return -EINVAL;
		}
		return 0;
	}
	return -EINVAL;
}

/* The getopt pass: process options now, keep groups and files for later */
static int cli_options(struct vnetd_cfg *cfg, struct vnetd_port_cfg *tmpl,
		       int argc, char **argv, const char **groups,
		       unsigned int *ngroups, const char **config)
{
	struct reason rwhy = { 0 };
	const char *why;
	int opt;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":s:b:q:h", cli_opts,
				  NULL)) != -1) {
		switch (opt) {
		case OPT_HELP:
			cli_usage(stdout);
			exit(0);
		case OPT_VERSION:
			printf("vnetd %s\n", VNET_VERSION);
			exit(0);
		case OPT_CAPS:
			cfg->print_caps = true;
			break;
		case OPT_SANDBOX:
			if (strcmp(optarg, "on") && strcmp(optarg, "off")) {
				cli_err("--sandbox %s: must be on or off", optarg);
				return -EINVAL;
			}
			cfg->sandbox = !strcmp(optarg, "on");
			break;
		case OPT_CTL:
			if (strlen(optarg) >= sizeof(cfg->ctl_path)) {
				cli_err("--ctl-socket %s: must be at most %zu bytes",
					optarg, sizeof(cfg->ctl_path) - 1);
				return -EINVAL;
			}
			strcpy(cfg->ctl_path, optarg);
			break;
		case OPT_METRICS_LISTEN:
			if (strlen(optarg) >= sizeof(cfg->metrics_listen) ||
			    metrics_http_parse(optarg, &cfg->metrics_addr,
					       &cfg->metrics_addr_len)) {
				cli_err("--metrics-listen %s: must be IPV4:PORT, [IPV6]:PORT or localhost:PORT with PORT 1..65535 (e.g. 127.0.0.1:9464)",
					optarg);
				return -EINVAL;
			}
			strcpy(cfg->metrics_listen, optarg);
			break;
		case OPT_LOG_LEVEL:
			if (cli_log_level(cfg, optarg))
				return -EINVAL;
			break;
		case OPT_CONFIG:
			*config = optarg;
			break;
		case OPT_USER: case OPT_CTL_GROUP: case OPT_LOG_TARGET:
		case OPT_WORKER_THREADS: case OPT_TAP_IO: case OPT_STALL_MS:
			if (cli_process_opt(cfg, opt, optarg))
				return -EINVAL;
			break;
		case OPT_SWITCH:
			if (host_switch_declare(optarg, &rwhy)) {
				cli_err("--switch %s: %s", optarg, rwhy.msg);
				return -EINVAL;
			}
			break;
		case OPT_PORT:
			if (*ngroups >= VNETD_MAX_PORTS) {
				cli_err("--port: at most %d", VNETD_MAX_PORTS);
				return -EINVAL;
			}
			groups[(*ngroups)++] = optarg;
			break;
		case ':':
			cli_err("%s: needs a value (see --help)",
				argv[optind - 1]);
			return -EINVAL;
		case '?':
			cli_err("%s: unknown option (see --help)",
				argv[optind - 1]);
			return -EINVAL;
		default:
			why = cli_set(tmpl, opt, opt == OPT_CLIENT ||
				      opt == OPT_MAC_LOCK ? "1" : optarg, ',');
			if (why) {
				cli_err("--%s %s: %s", cli_opt_name(opt), optarg,
					why);
				return -EINVAL;
			}
		}
	}
	if (optind < argc) {
		cli_err("%s: unexpected argument (see --help)", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

/**
 * cli_parse() - Parse the command line (and config file) into @cfg
 * @cfg:	Configuration (output)
 * @argc:	Argument count
 * @argv:	Arguments
 *
 * Exits 0 for --help and --version. Messages go to stderr.
 *
 * Return: 0, or VNETD_EXIT_USAGE after printing what is wrong
 */
int cli_parse(struct vnetd_cfg *cfg, int argc, char **argv)
{
	const char *groups[VNETD_MAX_PORTS], *config = NULL;
	struct vnetd_port_cfg *tmpl = &cfg->defaults;
	struct reason why = { 0 };
	unsigned int ngroups = 0, i;

	cli_defaults(cfg, tmpl);
	/* vhost-user.rst: other options and arguments should be ignored */
	for (i = 1; i < (unsigned int)argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--print-capabilities")) {
			cfg->print_caps = true;
			return 0;
		}
	}
	if (cli_options(cfg, tmpl, argc, argv, groups, &ngroups, &config))
		return VNETD_EXIT_USAGE;
	if (cfg->print_caps)
		return 0;
	if (tmpl->socket[0] || tmpl->fd >= 0) {
		cfg->ports[0] = *tmpl;
		cfg->nports = 1;
	}
	for (i = 0; i < ngroups; i++) {
		if (cli_add_port(cfg, tmpl, groups[i], ",", "--port", &why)) {
			cli_err("%s", why.msg);
			return VNETD_EXIT_USAGE;
		}
	}
	cfg->config_path = config;
	if (config && cli_config_read(cfg, tmpl, config, &why)) {
		cli_err("%s", why.msg);
		return VNETD_EXIT_USAGE;
	}
	if (!cfg->nports) {
		cli_err("--socket: missing (give --socket PATH, --port or --config; see --help)");
		return VNETD_EXIT_USAGE;
	}
	for (i = 0; i < cfg->nports; i++)
		if (cli_finish_port(cfg, i))
			return VNETD_EXIT_USAGE;
	return 0;
}
