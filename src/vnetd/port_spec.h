/* SPDX-License-Identifier: MIT */
/*
 * port_spec.h - the parser of a port's settings (port_spec.c), shared by
 * the command line (cli.c), SIGHUP and `port add` (reload.c) and the fuzzer
 */
#ifndef VNETD_PORT_SPEC_H
#define VNETD_PORT_SPEC_H

#include <getopt.h>

#include "cfg.h"
#include "reason.h"

#define CLI_SPEC_MAX	2048	/* a --port group or config line */

/* Options: per-port ones have the same name as their group/file key */
enum cli_opt {
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
	OPT_SWITCH, OPT_VLAN, OPT_TRUNK, OPT_GEN_SIZE,
	OPT_POLICE_PPS, OPT_POLICE_BPS, OPT_POLICE_BURST,
};

/* The long options, process-wide and per-port; per-port ones are the keys */
extern const struct option cli_opts[];

int cli_uint(const char *s, unsigned long long min, unsigned long long max,
	     unsigned long long *out);
const char *cli_set(struct vnetd_port_cfg *pc, int opt, const char *val,
		    char sep);
const char *cli_opt_name(int opt);
int cli_port_parse(struct vnetd_port_cfg *pc, const struct vnetd_port_cfg *tmpl,
		   const char *text, const char *delims, struct reason *why);
void cli_port_defaults(struct vnetd_port_cfg *t);
int cli_port_check(struct vnetd_port_cfg *pc, unsigned int index,
		   struct reason *why);
int cli_port_clash(const struct vnetd_port_cfg *pc,
		   const struct vnetd_port_cfg *other, struct reason *why);
bool cli_port_same(const struct vnetd_port_cfg *a,
		   const struct vnetd_port_cfg *b);

#endif /* VNETD_PORT_SPEC_H */
