// SPDX-License-Identifier: MIT
/*
 * port_spec.c - the one parser of a port's settings: --port groups, config
 * file lines and `vnetctl port add` requests ("key=val,key=val...", the
 * keys spelled as the long options), and the per-port options of the
 * command line (cli.c's getopt pass hands them to cli_set()). Every value
 * is checked here, once; a refusal is a one-line reason naming the key,
 * the value and what is allowed. Pure: no I/O, no process state.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cfg.h"
#include "ids.h"
#include "mac.h"
#include "net_features.h"
#include "host_switch.h"
#include "port_spec.h"
#include "spoof.h"
#include "vhost_port.h"

#define CLI_ERR_LEN	160
#define CLI_F_VERSION_1	32

const struct option cli_opts[] = {
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
	{ "gen-size",		required_argument, NULL, OPT_GEN_SIZE },
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
	{ "police-pps",		required_argument, NULL, OPT_POLICE_PPS },
	{ "police-bps",		required_argument, NULL, OPT_POLICE_BPS },
	{ "police-burst",	required_argument, NULL, OPT_POLICE_BURST },
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
 * cli_uint() - Parse an unsigned decimal (or 0x hex) number in [min, max]
 * @s:		Text
 * @min:	Smallest allowed
 * @max:	Largest allowed
 * @out:	Value (output)
 *
 * Return: 0, or -EINVAL if @s is not a number in range
 */
int cli_uint(const char *s, unsigned long long min,
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
	if (!strcasecmp(name, "ring_packed") || !strcasecmp(name, "packed_vq"))
		name = "packed";
	if (!strcasecmp(name, "indirect"))
		name = "indirect_desc";
	return net_feature_bit(name);
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


/**
 * cli_set() - Set one port setting
 * @pc:		Port configuration
 * @opt:	Its option (enum cli_opt)
 * @val:	Value as given
 * @sep:	Separator of list items in @val
 *
 * Return: NULL, or why @val is not allowed
 */
const char *cli_set(struct vnetd_port_cfg *pc, int opt,
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
	case OPT_GEN_SIZE:
		if (cli_uint(val, HOST_GEN_SIZE_MIN, HOST_GEN_SIZE_MAX, &v))
			return "must be 60..9000 (bytes)";
		pc->gen_size = (unsigned int)v;
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
	case OPT_POLICE_PPS:
		return switch_police_rate_parse(val, false, &pc->police.pps);
	case OPT_POLICE_BPS:
		return switch_police_rate_parse(val, true, &pc->police.bps);
	case OPT_POLICE_BURST:
		if (cli_uint(val, SW_POLICE_BURST_MIN, SW_POLICE_BURST_MAX, &v))
			return "must be 10..10000 (ms of the rate)";
		pc->police.burst_ms = (unsigned int)v;
		return NULL;
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
		case OPT_TAP_IO:
			continue;
		}
		if (!strcmp(o->name, key))
			return o->val;
	}
	return -1;
}


/**
 * cli_opt_name() - The long option of an option id
 * @opt:	Option id (enum cli_opt)
 *
 * Return: its name without "--", "?" if none
 */
const char *cli_opt_name(int opt)
{
	const struct option *o;

	for (o = cli_opts; o->name; o++)
		if (o->val == opt)
			return o->name;
	return "?";
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
			return reason_set(why, -EINVAL, " '%s': unknown key (keys: socket, socket-path, fd, socket-owner, socket-group, socket-mode, backend, tap, tap-fd, xdp-if, xdp-queue, xdp-mode, gen-size, queues, threads, mac, mtu, features, poll-us, budget-pkts, budget-bytes, client, vhost-net, name, config-space, mac-lock, allow-ip, switch, vlan, trunk, police-pps, police-bps, police-burst)",
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
		if (pc->police.pps || pc->police.bps || pc->police.burst_ms)
			return reason_set(why, -EINVAL, "port %s: police-%s=%llu: only with switch=NAME (the switch polices its ports' TX)",
					  pc->name, pc->police.pps ? "pps" :
					  pc->police.bps ? "bps" : "burst",
					  (unsigned long long)(pc->police.pps ? pc->police.pps :
					  pc->police.bps ? pc->police.bps : pc->police.burst_ms));
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
	if (pc->police.burst_ms && !pc->police.pps && !pc->police.bps)
		return reason_set(why, -EINVAL, "port %s: police-burst=%u: needs police-pps= or police-bps=",
				  pc->name, pc->police.burst_ms);
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
		pc->mac_derived = true;
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


/* The keys of the frontend side: socket, name, what the guest sees */
static bool cli_port_same_front(const struct vnetd_port_cfg *a,
				const struct vnetd_port_cfg *b)
{
	return !strcmp(a->name, b->name) && !strcmp(a->socket, b->socket) &&
	       a->fd == b->fd && a->client == b->client &&
	       a->sock_uid == b->sock_uid && a->sock_gid == b->sock_gid &&
	       a->sock_mode == b->sock_mode && a->queues == b->queues &&
	       !memcmp(a->mac, b->mac, 6) && a->mtu == b->mtu &&
	       a->features_mask == b->features_mask &&
	       a->config_space == b->config_space &&
	       a->vhost_net == b->vhost_net;
}

/* The keys of the host side: backend and its settings, the switch's */
static bool cli_port_same_host(const struct vnetd_port_cfg *a,
			       const struct vnetd_port_cfg *b)
{
	return !strcmp(a->backend, b->backend) && !strcmp(a->tap, b->tap) &&
	       a->ntap_fds == b->ntap_fds &&
	       !memcmp(a->tap_fds, b->tap_fds, a->ntap_fds * sizeof(int)) &&
	       !strcmp(a->xdp_if, b->xdp_if) && a->xdp_queue == b->xdp_queue &&
	       a->xdp_mode == b->xdp_mode && a->gen_size == b->gen_size &&
	       !strcmp(a->sw, b->sw) && a->vlan == b->vlan &&
	       a->trunk_set == b->trunk_set &&
	       !memcmp(&a->trunk, &b->trunk, sizeof(a->trunk)) &&
	       a->police.pps == b->police.pps && a->police.bps == b->police.bps &&
	       a->police.burst_ms == b->police.burst_ms;
}

/**
 * cli_port_same() - Do two checked ports have the same settings?
 * @a:		Port configuration, after cli_port_check()
 * @b:		Another
 *
 * Field by field (struct padding is not compared), one or more fields
 * for every key of the parser: a key left out here is one a SIGHUP
 * (reload.c) silently does not apply; test_port_spec_same fails for a
 * key it has no case for. Not compared: what no key sets (from_config,
 * mac_derived, the af_xdp descriptors and xdp_bound of `port add`,
 * wopts.pool). The anti-spoofing policy holds parts derived from the MAC
 * (spoof_finish()): two policies finished with the same MAC compare equal.
 *
 * Return: true if a port started from @a would run as one from @b
 */
bool cli_port_same(const struct vnetd_port_cfg *a,
		   const struct vnetd_port_cfg *b)
{
	return cli_port_same_front(a, b) && cli_port_same_host(a, b) &&
	       a->wopts.budget_pkts == b->wopts.budget_pkts &&
	       a->wopts.budget_bytes == b->wopts.budget_bytes &&
	       a->wopts.poll_us == b->wopts.poll_us &&
	       a->wopts.nthreads == b->wopts.nthreads &&
	       spoof_same(&a->wopts.spoof, &b->wopts.spoof);
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
