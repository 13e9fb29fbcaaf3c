// SPDX-License-Identifier: MIT
/*
 * vnet-bench - act as one or more VMs against a vhost-user-net backend
 * (vnetd, DPDK net_vhost, anything speaking the protocol) through the
 * frontend library, and measure: tx-only, rx-only, bidirectional, ping-pong.
 * `vnet-bench --spawn` starts vnetd with the loop backend and shows the data
 * plane end to end; `vnet-bench ring` is the ring micro-benchmark (ring.c).
 *
 * This file: options, the run's phases (connect, run, optional backend
 * restart and resume, report), exit status.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "mac.h"
#include "version.h"

static const char usage_text[] =
"Usage: vnet-bench [--socket PATH]... [OPTION]...\n"
"       vnet-bench --spawn [OPTION]...     start vnetd (loop backend) and run against it\n"
"       vnet-bench ring [ARGS]             ring micro-benchmark\n"
"\n"
"Acts as one or more VMs (a userspace virtio-net driver over vhost-user).\n"
"  -s, --socket PATH      backend socket; repeat once per VM with --vms\n"
"      --spawn            start vnetd (next to vnet-bench, or $VNETD) on a temp socket;\n"
"                         with no other option: bidirectional, 1 pair, 64 B, 3 s,\n"
"                         sequence numbers checked\n"
"      --spawn-backend B  the backend vnetd uses for --spawn (default: loop)\n"
"  -m, --mode MODE        tx-only | rx-only | bidirectional | ping-pong (default: bidirectional)\n"
"  -l, --size BYTES       frame size, 60..65536; above 9018 sent as TSO frames (default: 64)\n"
"  -q, --pairs N          queue pairs per VM, one thread each (default: 1)\n"
"      --vms N            VMs, each its own connection and memory (default: 1)\n"
"  -d, --duration SECS    measured window (default: 3); SIGINT/SIGTERM end it early\n"
"      --poll             busy-poll the rings (default: sleep on the call eventfd)\n"
"      --packed           packed rings (default: split)\n"
"      --no-drain         stop at the window's end: count no frame after it (rx-only\n"
"                         from a sender that keeps sending; default: drain what is in flight)\n"
"      --ring N           ring size (default: 256)\n"
"      --batch N          frames per TX burst (default: 32)\n"
"      --mem-regions N    split guest memory into N memfd regions (default: 1)\n"
"      --features MASK    virtio features to ask for (default: all the library supports)\n"
"      --check-seq        fail unless every frame comes back once, in order, on its queue\n"
"                         (default with --spawn); --no-check-seq turns it off\n"
"      --restart-at SECS  with --spawn: stop the rings, restart vnetd, reconnect and\n"
"                         resume at the saved ring positions after SECS\n"
"      --no-reply-ack     do not use REPLY_ACK even when the backend offers it\n"
"      --no-mem-slots     announce memory with SET_MEM_TABLE even when ADD_MEM_REG is offered\n"
"      --caller-mem       give the library our own memfd region and eventfds (borrowed)\n"
"                         instead of letting it make its own\n"
"      --sessions N       N short sessions one after the other, each a fresh connection:\n"
"                         set up, send --session-frames frames on pair 0, take every one\n"
"                         back (loop backend), disconnect; fail unless each session gets\n"
"                         exactly its own frames (1..1000000)\n"
"      --session-frames N frames per session (default: 32, 1..4096)\n"
"      --ctl-soak N       while the traffic runs, N rounds of ADD_MEM_REG + REM_MEM_REG,\n"
"                         SET_LOG_BASE + LOG_ALL on and off, a TX ring disabled and\n"
"                         enabled; the window ends when they are done (1..1000000)\n"
"      --ctl-soak-ops L   what each round sends: a comma list of mem, log, enable\n"
"                         (default: mem,log,enable; a disabled TX ring discards)\n"
"      --rx-hang          with --mode tx-only: never take a received frame (a guest whose\n"
"                         receive path hangs: its RX buffers fill and stay full)\n"
"      --src-mac MAC      source MAC of the frames we send (default: the backend's,\n"
"                         from its config space); to test anti-spoofing\n"
"      --dst-mac MAC      destination MAC of the frames we send (default: broadcast);\n"
"                         with an rx-only VM on another port of a vnetd switch, that\n"
"                         VM checks the sequence of our frames (same VM index and pair)\n"
"      --frames N         send at most N frames per queue pair, 1..2^32 (default: no limit)\n"
"      --pps N            send at most N frames a second per queue pair, 1..100000000\n"
"                         (default: no limit)\n"
"      --flows N          send IPv4/UDP frames of N flows (source ports 10000..,\n"
"                         one per frame in turn), 1..65536; needs --size 78..9018\n"
"                         (default: raw Ethernet frames, one flow)\n"
"      --csum             send IPv4/TCP frames asking the backend for their TCP\n"
"                         checksum (NEEDS_CSUM, no TSO); needs --size 78..9018\n"
"      --rand-src-mac     a new random source MAC on every frame (a VM flooding a\n"
"                         switch's MAC table)\n"
"      --announce         before the window, send one broadcast frame from each VM's\n"
"                         MAC on pair 0, as a guest announces itself after link-up (a\n"
"                         learning switch then knows where an rx-only VM is)\n"
"      --json             one JSON object instead of the table\n"
"  -h, --help             this text\n"
"      --version          print the version and exit\n"
"Exit status: 0 ok, 1 a check failed, 2 usage or setup error.\n";

enum {
	OPT_SPAWN = 256, OPT_SPAWN_BACKEND, OPT_VMS, OPT_POLL, OPT_PACKED,
	OPT_NO_DRAIN,
	OPT_RING, OPT_BATCH, OPT_MEM_REGIONS, OPT_FEATURES, OPT_CHECK,
	OPT_NO_CHECK, OPT_RESTART, OPT_JSON, OPT_NO_REPLY_ACK, OPT_NO_MEM_SLOTS,
	OPT_CALLER_MEM, OPT_VERSION, OPT_SESSIONS, OPT_SESSION_FRAMES,
	OPT_CTL_SOAK, OPT_CTL_SOAK_OPS, OPT_SRC_MAC, OPT_RX_HANG,
	OPT_DST_MAC, OPT_FRAMES, OPT_PPS, OPT_FLOWS, OPT_RAND_SRC_MAC, OPT_CSUM,
	OPT_ANNOUNCE,
};

static const struct option opts[] = {
	{ "socket", required_argument, NULL, 's' },
	{ "spawn", no_argument, NULL, OPT_SPAWN },
	{ "spawn-backend", required_argument, NULL, OPT_SPAWN_BACKEND },
	{ "mode", required_argument, NULL, 'm' },
	{ "size", required_argument, NULL, 'l' },
	{ "pairs", required_argument, NULL, 'q' },
	{ "vms", required_argument, NULL, OPT_VMS },
	{ "duration", required_argument, NULL, 'd' },
	{ "poll", no_argument, NULL, OPT_POLL },
	{ "packed", no_argument, NULL, OPT_PACKED },
	{ "no-drain", no_argument, NULL, OPT_NO_DRAIN },
	{ "ring", required_argument, NULL, OPT_RING },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "mem-regions", required_argument, NULL, OPT_MEM_REGIONS },
	{ "features", required_argument, NULL, OPT_FEATURES },
	{ "check-seq", no_argument, NULL, OPT_CHECK },
	{ "no-check-seq", no_argument, NULL, OPT_NO_CHECK },
	{ "restart-at", required_argument, NULL, OPT_RESTART },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "no-reply-ack", no_argument, NULL, OPT_NO_REPLY_ACK },
	{ "no-mem-slots", no_argument, NULL, OPT_NO_MEM_SLOTS },
	{ "caller-mem", no_argument, NULL, OPT_CALLER_MEM },
	{ "sessions", required_argument, NULL, OPT_SESSIONS },
	{ "ctl-soak", required_argument, NULL, OPT_CTL_SOAK },
	{ "ctl-soak-ops", required_argument, NULL, OPT_CTL_SOAK_OPS },
	{ "src-mac", required_argument, NULL, OPT_SRC_MAC },
	{ "rx-hang", no_argument, NULL, OPT_RX_HANG },
	{ "dst-mac", required_argument, NULL, OPT_DST_MAC },
	{ "frames", required_argument, NULL, OPT_FRAMES },
	{ "pps", required_argument, NULL, OPT_PPS },
	{ "flows", required_argument, NULL, OPT_FLOWS },
	{ "rand-src-mac", no_argument, NULL, OPT_RAND_SRC_MAC },
	{ "csum", no_argument, NULL, OPT_CSUM },
	{ "announce", no_argument, NULL, OPT_ANNOUNCE },
	{ "session-frames", required_argument, NULL, OPT_SESSION_FRAMES },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

static struct bench_vm vms[BENCH_MAX_VMS];
static const char *sockets[BENCH_MAX_VMS];
static unsigned int nsockets;

static int usage_err(const char *fmt, const char *arg)
{
	fprintf(stderr, "vnet-bench: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see --help)\n");
	return 2;
}

static int parse_uint(const char *s, unsigned long lo, unsigned long hi,
		      unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 0);
	return errno || end == s || *end || *v < lo || *v > hi ? -EINVAL : 0;
}

static int parse_mode(const char *s, enum bench_mode *m)
{
	static const char *const alias[][2] = {
		{ "tx", "tx-only" }, { "rx", "rx-only" }, { "bidir", "bidirectional" },
		{ "pingpong", "ping-pong" }, { "latency", "ping-pong" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(alias); i++)
		if (!strcmp(s, alias[i][0]))
			s = alias[i][1];
	for (i = BENCH_TX; i <= BENCH_PINGPONG; i++)
		if (!strcmp(s, bench_mode_name((enum bench_mode)i))) {
			*m = (enum bench_mode)i;
			return 0;
		}
	return -EINVAL;
}

/* --ctl-soak-ops: "mem,log,enable" or a subset; 0 or the exit status */
static int parse_soak_ops(const char *arg, unsigned int *ops)
{
	static const struct { const char *name; unsigned int bit; } names[] = {
		{ "mem", BENCH_SOAK_MEM }, { "log", BENCH_SOAK_LOG },
		{ "enable", BENCH_SOAK_ENABLE },
	};
	const char *p = arg;
	unsigned int i;

	*ops = 0;
	while (*p) {
		size_t n = strcspn(p, ",");

		for (i = 0; i < ARRAY_SIZE(names); i++)
			if (strlen(names[i].name) == n && !strncmp(p, names[i].name, n))
				break;
		if (i == ARRAY_SIZE(names))
			return usage_err("--ctl-soak-ops '%s': a comma list of mem, log, enable", arg);
		*ops |= names[i].bit;
		p += n + (p[n] == ',');
	}
	return *ops ? 0 : usage_err("--ctl-soak-ops '%s': a comma list of mem, log, enable", arg);
}

/* One option; 0, or the exit status for a bad one */
static int parse_opt(struct bench_cfg *c, int o, const char *arg, int *check)
{
	unsigned long v;
	double d;
	char *end;

	switch (o) {
	case 's':
		if (nsockets == BENCH_MAX_VMS)
			return usage_err("at most %s sockets (one per VM)", "64");
		sockets[nsockets++] = arg;
		return 0;
	case OPT_SPAWN: c->spawn = true; return 0;
	case OPT_RX_HANG: c->rx_hang = true; return 0;
	case OPT_RAND_SRC_MAC: c->rand_src_mac = true; return 0;
	case OPT_CSUM: c->csum = true; return 0;
	case OPT_ANNOUNCE: c->announce = true; return 0;
	case OPT_SPAWN_BACKEND: c->spawn_backend = arg; return 0;
	case 'm':
		return parse_mode(arg, &c->mode) ?
		       usage_err("--mode '%s': tx-only, rx-only, bidirectional or ping-pong", arg) : 0;
	case 'l':
		if (parse_uint(arg, 60, 65536, &v))
			return usage_err("--size '%s': 60..65536", arg);
		c->size = (uint32_t)v;
		return 0;
	case 'q':
		if (parse_uint(arg, 1, VU_FRONTEND_MAX_PAIRS, &v))
			return usage_err("--pairs '%s': 1..64", arg);
		c->pairs = (unsigned int)v;
		return 0;
	case OPT_VMS:
		if (parse_uint(arg, 1, BENCH_MAX_VMS, &v))
			return usage_err("--vms '%s': 1..64", arg);
		c->vms = (unsigned int)v;
		return 0;
	case 'd':
	case OPT_RESTART:
		d = strtod(arg, &end);
		if (end == arg || *end || d <= 0 || d > 86400)
			return usage_err(o == 'd' ?
					 "--duration '%s': seconds, > 0 and <= 86400" :
					 "--restart-at '%s': seconds, > 0 and <= 86400", arg);
		*(o == 'd' ? &c->duration : &c->restart_at) = d;
		return 0;
	case OPT_POLL: c->poll = true; return 0;
	case OPT_PACKED: c->packed = true; return 0;
	case OPT_NO_DRAIN: c->no_drain = true; return 0;
	case OPT_RING:
		if (parse_uint(arg, 2, VQ_MAX_SIZE, &v))
			return usage_err("--ring '%s': 2..32768", arg);
		c->ring = (unsigned int)v;
		return 0;
	case OPT_BATCH:
		if (parse_uint(arg, 1, 4096, &v))
			return usage_err("--batch '%s': 1..4096", arg);
		c->batch = (unsigned int)v;
		return 0;
	case OPT_MEM_REGIONS:
		if (parse_uint(arg, 1, VU_FRONTEND_MAX_REGIONS, &v))
			return usage_err("--mem-regions '%s': 1..8", arg);
		c->mem_regions = (unsigned int)v;
		return 0;
	case OPT_FEATURES:
		errno = 0;
		c->features = strtoull(arg, &end, 0);
		return errno || end == arg || *end ?
		       usage_err("--features '%s': a number", arg) : 0;
	case OPT_CHECK: *check = 1; return 0;
	case OPT_NO_CHECK: *check = 0; return 0;
	case OPT_JSON: c->json = true; return 0;
	case OPT_NO_REPLY_ACK: c->no_reply_ack = true; return 0;
	case OPT_NO_MEM_SLOTS: c->no_mem_slots = true; return 0;
	case OPT_CALLER_MEM: c->caller_mem = true; return 0;
	case OPT_SESSIONS:
		if (parse_uint(arg, 1, 1000000, &v))
			return usage_err("--sessions '%s': 1..1000000", arg);
		c->sessions = (unsigned int)v;
		return 0;
	case OPT_CTL_SOAK:
		if (parse_uint(arg, 1, 1000000, &v))
			return usage_err("--ctl-soak '%s': 1..1000000", arg);
		c->ctl_soak = (unsigned int)v;
		return 0;
	case OPT_SRC_MAC: {
		const char *why = mac_parse(arg, c->src_mac);
		char msg[128];

		if (why) {
			snprintf(msg, sizeof(msg), "--src-mac '%.24s': %s", arg, why);
			return usage_err("%s", msg);
		}
		c->have_src_mac = true;
		return 0;
	}
	case OPT_DST_MAC: {
		const char *why = mac_parse(arg, c->dst_mac);
		char msg[128];

		if (why) {
			snprintf(msg, sizeof(msg), "--dst-mac '%.24s': %s", arg, why);
			return usage_err("%s", msg);
		}
		c->have_dst_mac = true;
		return 0;
	}
	case OPT_FRAMES:
		if (parse_uint(arg, 1, 1ULL << 32, &v))
			return usage_err("--frames '%s': 1..4294967296", arg);
		c->frames = v;
		return 0;
	case OPT_PPS:
		if (parse_uint(arg, 1, 100000000, &v))
			return usage_err("--pps '%s': 1..100000000", arg);
		c->pps = v;
		return 0;
	case OPT_FLOWS:
		if (parse_uint(arg, 1, 65536, &v))
			return usage_err("--flows '%s': 1..65536", arg);
		c->flows = (unsigned int)v;
		return 0;
	case OPT_CTL_SOAK_OPS:
		return parse_soak_ops(arg, &c->ctl_soak_ops);
	case OPT_SESSION_FRAMES:
		if (parse_uint(arg, 1, 4096, &v))
			return usage_err("--session-frames '%s': 1..4096", arg);
		c->session_frames = (unsigned int)v;
		return 0;
	case 'h': fputs(usage_text, stdout); exit(0);
	case OPT_VERSION: printf("vnet-bench %s\n", VNET_VERSION); exit(0);
	default: return 2;
	}
}

static int parse_args(struct bench_cfg *c, int argc, char **argv)
{
	int o, ret, check = -1;

	*c = (struct bench_cfg){
		.spawn_backend = "loop", .mode = BENCH_BIDIR, .size = 64,
		.pairs = 1, .vms = 1, .duration = 3, .ring = 256, .batch = 32,
		.mem_regions = 1, .session_frames = 32,
		.ctl_soak_ops = BENCH_SOAK_MEM | BENCH_SOAK_LOG | BENCH_SOAK_ENABLE,
	};
	while ((o = getopt_long(argc, argv, "s:m:l:q:d:h", opts, NULL)) != -1) {
		ret = parse_opt(c, o, optarg, &check);
		if (ret)
			return ret;
	}
	if (optind < argc)
		return usage_err("unexpected argument '%s'", argv[optind]);
	if (!c->spawn && nsockets < c->vms)
		return usage_err("%s", nsockets ? "one --socket per VM (--vms)" :
				 "give --socket PATH, or --spawn to start vnetd");
	if (c->spawn && nsockets)
		return usage_err("%s", "--spawn and --socket exclude each other");
	if (c->csum && (c->flows || c->size < 78 || c->size > 9018))
		return usage_err("%s", "--csum: needs --size 78..9018 (an IPv4/TCP header and the marker), not --flows");
	if (c->flows && (c->size < 78 || c->size > 9018))
		return usage_err("%s", "--flows: needs --size 78..9018 (an IPv4/UDP header and the marker)");
	if (c->rx_hang && c->mode != BENCH_TX)
		return usage_err("%s", "--rx-hang needs --mode tx-only");
	if (c->restart_at && (!c->spawn || c->restart_at >= c->duration))
		return usage_err("%s", "--restart-at needs --spawn and a time inside --duration");
	if (c->sessions && (c->vms > 1 || c->pairs > 1 || c->restart_at ||
			    c->caller_mem))
		return usage_err("%s", "--sessions: one VM, one pair, no --restart-at or --caller-mem");
	if (!c->packed && (c->ring & (c->ring - 1)))
		return usage_err("%s", "--ring: split rings need a power of two");
	c->check_seq = check < 0 ? c->spawn && !strcmp(c->spawn_backend, "loop") :
		       check;
	c->progress = !c->json && isatty(STDOUT_FILENO);
	return 0;
}

/* First signal: end the window (in-flight frames still drain); second: quit */
static void on_signal(int sig)
{
	(void)sig;
	if (bench_interrupted++)
		bench_quit = 1;
	bench_stop = 1;
}

/* Stop the rings, restart vnetd, reconnect: the rings resume where they were */
static int bench_restart(unsigned int nvms)
{
	unsigned int v;
	int ret;

	for (v = 0; v < nvms; v++) {
		struct bench_vm *vm = &vms[v];

		ret = vu_frontend_stop(&vm->fe);
		if (ret) {
			fprintf(stderr, "vnet-bench: vm %u: stop: %s\n", v,
				vu_frontend_error(&vm->fe));
			return ret;
		}
		vu_frontend_disconnect(&vm->fe);
		bench_spawn_stop(vm, false);
		ret = bench_spawn(vm);
		if (ret)
			return ret;
		ret = vu_frontend_connect(&vm->fe, vm->socket);
		if (ret) {
			fprintf(stderr, "vnet-bench: vm %u: reconnect: %s\n", v,
				vu_frontend_error(&vm->fe));
			return ret;
		}
	}
	if (!vms[0].cfg->json)
		printf("backend restarted, rings resumed (vm0 ring0 base %u, ring1 base %u)\n",
		       vu_frontend_ring_base(&vms[0].fe, 0),
		       vu_frontend_ring_base(&vms[0].fe, 1));
	return 0;
}

static int bench_main(struct bench_cfg *c)
{
	unsigned int v, n = c->vms;
	int ret = 0, status = 2;
	double secs = 0;
	bool failed = true;

	for (v = 0; v < n; v++) {	/* no fd of ours yet: nothing to close */
		unsigned int i;

		vms[v].region.fd = -1;
		vms[v].soak.reg.fd = -1;
		vms[v].soak.log_fd = -1;
		for (i = 0; i < ARRAY_SIZE(vms[v].efd); i++)
			vms[v].efd[i] = -1;
	}
	if (c->sessions) {
		vms[0].cfg = c;
		ret = c->spawn ? bench_spawn(&vms[0]) : 0;
		if (!c->spawn)
			snprintf(vms[0].socket, sizeof(vms[0].socket), "%s",
				 sockets[0]);
		status = ret ? 2 : bench_sessions(c, vms[0].socket);
		if (c->spawn && !ret)
			bench_spawn_stop(&vms[0], status != 0);
		return status;
	}
	for (v = 0; v < n && !ret; v++) {
		vms[v].cfg = c;
		vms[v].id = v;
		if (c->spawn)
			ret = bench_spawn(&vms[v]);
		else
			snprintf(vms[v].socket, sizeof(vms[v].socket), "%s",
				 sockets[v]);
		if (!ret)
			ret = bench_vm_start(&vms[v]);
	}
	if (!ret && c->restart_at) {
		ret = bench_run_workers(vms, n, c->restart_at, &secs);
		if (!ret && !bench_interrupted)
			ret = bench_restart(n);
		if (!ret && !bench_interrupted)
			ret = bench_run_workers(vms, n, c->duration - c->restart_at,
						&secs);
	} else if (!ret) {
		ret = bench_run_workers(vms, n, c->duration, &secs);
	}
	if (!ret) {
		status = bench_report(c, vms, n, secs > 0 ? secs : c->duration);
		if (c->ctl_soak && bench_ctl_soak_finish(vms, n))
			status = 1;
		failed = status != 0;
	}
	for (v = 0; v < n; v++) {
		bench_vm_finish(&vms[v]);
		if (c->spawn)
			bench_spawn_stop(&vms[v], failed);
	}
	return status;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct bench_cfg cfg;
	int ret;

	if (argc > 1 && !strcmp(argv[1], "ring")) {
		if (!bench_ring_main) {
			fprintf(stderr, "vnet-bench ring: not built into this binary yet\n");
			return 2;
		}
		return bench_ring_main(argc - 1, argv + 1);
	}
	ret = parse_args(&cfg, argc, argv);
	if (ret)
		return ret;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return bench_main(&cfg);
}
