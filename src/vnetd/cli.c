// SPDX-License-Identifier: MIT
/*
 * cli.c - vnetd's command line, --port groups and config file: turns text
 * into struct vnetd_cfg. Every value is checked here, once; a bad one is
 * reported as "vnetd: OPTION VALUE: what is allowed" and cli_parse() returns
 * VNETD_EXIT_USAGE. Opening ports, sockets and backends is port.c's job.
 *
 * One setter (cli_set(), port_spec.c) serves the three spellings of a port
 * setting: the option "--queues 2", the group key "queues=2" in --port, and
 * the same key on a config file line (config.c). Per-port options given
 * outside --port are the defaults for every --port group and config file
 * line.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfg.h"
#include "cli.h"
#include "config.h"
#include "ctl_path.h"
#include "host_switch.h"
#include "uplink.h"
#include "ids.h"
#include "log.h"
#include "metrics_http.h"
#include "port_spec.h"
#include "privdrop.h"
#include "version.h"

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
"      --gen-size BYTES     gen: the frame it puts in every RX buffer, 60..9000\n"
"                           (default: 64)\n"
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
"      --police-pps N       switch port: drop the guest's frames over N a second,\n"
"                           1..100000000 (default: no limit)\n"
"      --police-bps N       switch port: drop the guest's frames over N bits a\n"
"                           second, 8000..400G, k/M/G x1000 (default: no limit)\n"
"      --police-burst MS    switch port: the policer lets MS ms of its rate pass\n"
"                           at once, 10..10000 (default: 100)\n"
"\n"
"Process options:\n"
"      --switch NAME        declare a switch between ports, repeatable; a port joins\n"
"                           it with the --port key switch=NAME (default: none);\n"
"                           NAME,uplink=tap:IFNAME gives it an uplink to the host\n"
"                           (one per switch; uplink-vlan=N, default 1, or\n"
"                           uplink-trunk=LIST, ':' between items)\n"
"      --port KEY=VAL,...   one more port; keys are the port options above without\n"
"                           the dashes (socket=,backend=,tap=,queues=,...; client=1);\n"
"                           list values (features=, tap-fd=) use ':' between items\n"
"      --config FILE        ports from FILE, one per line, same KEY=VAL syntax;\n"
"                           a line \"--switch NAME\" declares a switch\n"
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

/* --worker-threads auto: the CPUs we may run on, 1..WORKER_POOL_MAX */
static unsigned int cli_cpus(void)
{
	cpu_set_t cpus;
	int n;

	n = sched_getaffinity(0, sizeof(cpus), &cpus) ? 1 : CPU_COUNT(&cpus);
	return (unsigned int)MIN(MAX(n, 1), WORKER_POOL_MAX);
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
	if (cli_uint(val, 0, WORKER_POOL_MAX, &v)) {
		cli_err("--worker-threads %s: must be 0..%d or auto (0: threads per port)",
			val, WORKER_POOL_MAX);
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
			if (uplink_declare(optarg, &rwhy)) {
				cli_err("--switch %s: %s", optarg, rwhy.msg);
				return -EINVAL;
			}
			if (cfg->nsw_cli < VNETD_MAX_SWITCHES)
				snprintf(cfg->sw_cli[cfg->nsw_cli++],
					 VNETD_NAME_LEN, "%s", optarg);
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
	for (i = 0; i < cfg->nsw_conf; i++) {
		if (host_switch_declare(cfg->sw_conf[i], &why)) {
			cli_err("--config %s: --switch %s: %s", config,
				cfg->sw_conf[i], why.msg);
			return VNETD_EXIT_USAGE;
		}
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
