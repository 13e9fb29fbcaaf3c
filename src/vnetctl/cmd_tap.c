// SPDX-License-Identifier: MIT
/*
 * vnetctl tap create|delete, vnetctl probe vhost-net - the host side of a
 * VM NIC. Flag parsing and messages here; the work is in provision.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_opts.h"
#include "cmds.h"
#include "ids.h"
#include "mac.h"
#include "plan.h"
#include "provision.h"

static const char tap_usage[] =
	"usage: vnetctl tap create NAME [--queues N] [--user U] [--group G] [--bridge BR]\n"
	"                          [--mac MAC]\n"
	"       vnetctl tap create NAME --macvtap-parent DEV [--mode bridge|passthru]\n"
	"                          [--filtered yes|no] [--queues N] [--user U] [--group G]\n"
	"       vnetctl tap delete NAME [--force]\n"
	"  --queues N      queues to provision and check (1..256, default 1)\n"
	"  --user/--group  owner, so vnetd or QEMU can open the queues unprivileged\n"
	"  --bridge BR     enslave the TAP to bridge BR\n"
	"  --mac MAC       the guest's MAC: a new TAP gets fe: and its last five bytes\n"
	"                  (default: fe: and five random bytes), so it never becomes\n"
	"                  a bridge's MAC\n"
	"  --filtered      the node filters VM traffic (default yes): refuses a\n"
	"                  passthru macvtap on a parent that is a bridge port\n"
	"  --force         delete a TAP even while a VM or vnetd has queues attached\n";

static const char probe_usage[] =
	"usage: vnetctl probe vhost-net [--user U] [--dev PATH]\n"
	"  --user U    the user QEMU or vnetd runs as (default: you)\n"
	"  --dev PATH  default $VNET_VHOST_NET_DEV or /dev/vhost-net\n"
	"Exit status: 0 usable, 1 not usable, 2 usage error.\n";

struct tap_opts {
	const char *name, *queues, *user, *group, *bridge, *parent, *mode;
	const char *filtered, *mac;
	uint8_t guest_mac[6];
};

static int tap_usage_err(const char *cmd, const char *fmt, const char *a,
			 const char *b)
{
	fprintf(stderr, "vnetctl %s: ", cmd);
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	return CMD_USAGE;
}

static int tap_parse(int argc, char **argv, struct tap_opts *o)
{
	struct { const char *name; const char **val; } t[] = {
		{ "--queues", &o->queues }, { "--user", &o->user },
		{ "--group", &o->group }, { "--bridge", &o->bridge },
		{ "--macvtap-parent", &o->parent }, { "--mode", &o->mode },
		{ "--filtered", &o->filtered }, { "--mac", &o->mac },
	};
	bool missing;
	size_t k;
	int i;

	for (i = 0; i < argc; i++) {
		const char *v = NULL;

		if (argv[i][0] != '-' && !o->name) {
			o->name = argv[i];
			continue;
		}
		for (k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
			v = cmd_opt(argc, argv, &i, t[k].name, &missing);
			if (missing)
				return tap_usage_err("tap create", "%s needs a value%s",
						     t[k].name, "");
			if (v)
				break;
		}
		if (!v)
			return tap_usage_err("tap create", "unknown argument '%s'%s",
					     argv[i], " (see vnetctl tap --help)");
		*t[k].val = v;
	}
	if (!o->name)
		return tap_usage_err("tap create", "needs an interface NAME%s%s",
				     "", "");
	return 0;
}

/* Flags to a request: every bad value is named with what is allowed */
static int tap_build_req(struct tap_opts *o, struct provision_tap_req *r)
{
	struct reason why = { 0 };
	const char *bad;

	r->name = o->name;
	if (strlen(o->name) > 15 || strchr(o->name, '/') || strchr(o->name, '%'))
		return tap_usage_err("tap create",
				     "'%s' is not a usable interface name (%s)",
				     o->name, "1..15 characters, no '/' or '%'");
	r->queues = 1;
	if (o->queues && plan_parse_uint("--queues", o->queues, 1, PROV_MAX_QUEUES,
					 &r->queues, &why))
		return tap_usage_err("tap create", "%s%s", why.msg, "");
	if (o->user && ids_uid(o->user, &r->uid))
		return tap_usage_err("tap create", "--user '%s': no such user%s",
				     o->user, "");
	r->set_uid = o->user;
	if (o->group && ids_gid(o->group, &r->gid))
		return tap_usage_err("tap create", "--group '%s': no such group%s",
				     o->group, "");
	r->set_gid = o->group;
	r->bridge = o->bridge;
	r->parent = o->parent;
	if ((o->mode || o->filtered) && !o->parent)
		return tap_usage_err("tap create", "%s applies only with --macvtap-parent%s",
				     o->mode ? "--mode" : "--filtered", "");
	if (o->mode && strcmp(o->mode, "bridge") && strcmp(o->mode, "passthru"))
		return tap_usage_err("tap create", "--mode '%s' is not one of %s",
				     o->mode, "bridge, passthru");
	r->mode = o->mode && !strcmp(o->mode, "passthru") ? PROV_MACVTAP_PASSTHRU :
							    PROV_MACVTAP_BRIDGE;
	if (o->filtered && strcmp(o->filtered, "yes") && strcmp(o->filtered, "no"))
		return tap_usage_err("tap create", "--filtered '%s' is not one of %s",
				     o->filtered, "yes, no");
	r->filtered_node = !o->filtered || !strcmp(o->filtered, "yes");
	if (o->mac && o->parent)
		return tap_usage_err("tap create", "--mac %s: only for a TAP; a macvtap%s",
				     o->mac, " is the guest's NIC and QEMU gives it the guest's MAC");
	if (o->mac && (bad = mac_parse(o->mac, o->guest_mac)))
		return tap_usage_err("tap create", "--mac '%s': %s", o->mac, bad);
	r->mac = o->mac ? o->guest_mac : NULL;
	return 0;
}

static int tap_create(int argc, char **argv)
{
	struct tap_opts o = { 0 };
	struct provision_tap_req req = { 0 };
	struct provision_tap_res res;
	struct reason why = { 0 };
	int ret;

	if (cmd_wants_help(argc, argv)) {
		fputs(tap_usage, stdout);
		return CMD_OK;
	}
	ret = tap_parse(argc, argv, &o) ?: tap_build_req(&o, &req);
	if (ret)
		return ret;
	ret = provision_tap_create(&req, &res, &why);
	if (ret) {
		fprintf(stderr, "vnetctl tap create: %s\n", why.msg);
		return CMD_FAIL;
	}
	printf("%s %s %s%s%s: %u queue%s%s%s%s%s%s%s%s\n",
	       res.existed ? "kept" : "created", req.parent ? "macvtap" : "TAP",
	       req.name, req.parent ? " on " : "", req.parent ? req.parent : "",
	       req.queues, req.queues > 1 ? "s" : "",
	       res.existed ? " (already there; settings applied again)" : "",
	       o.user ? ", owner " : "", o.user ? o.user : "",
	       o.group ? ", group " : "", o.group ? o.group : "",
	       req.bridge ? ", in bridge " : "", req.bridge ? req.bridge : "");
	if (*res.devnode)
		printf("queues: open %s once per queue\n", res.devnode);
	return CMD_OK;
}

static int tap_delete(int argc, char **argv)
{
	const char *name = NULL;
	struct reason why = { 0 };
	bool existed, force = false;
	int i, ret;

	if (cmd_wants_help(argc, argv)) {
		fputs(tap_usage, stdout);
		return CMD_OK;
	}
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--force"))
			force = true;
		else if (argv[i][0] != '-' && !name)
			name = argv[i];
		else
			return tap_usage_err("tap delete", "unexpected argument '%s'%s",
					     argv[i], " (usage: tap delete NAME [--force])");
	}
	if (!name)
		return tap_usage_err("tap delete", "needs an interface NAME%s%s", "", "");
	ret = provision_tap_delete(name, force, &existed, &why);
	if (ret) {
		fprintf(stderr, "vnetctl tap delete: %s\n", why.msg);
		return CMD_FAIL;
	}
	if (existed)
		printf("deleted %s\n", name);
	else
		printf("%s does not exist: nothing to delete\n", name);
	return CMD_OK;
}

/**
 * cmd_tap() - vnetctl tap create|delete
 * @argc:	Arguments after "tap"
 * @argv:	Arguments
 *
 * Return: 0, 1 if the kernel refused (nothing is left behind), 2 usage error
 */
int cmd_tap(int argc, char **argv)
{
	if (argc < 1 || cmd_is_help(argv[0])) {
		fputs(tap_usage, argc < 1 ? stderr : stdout);
		return argc < 1 ? CMD_USAGE : CMD_OK;
	}
	if (!strcmp(argv[0], "create"))
		return tap_create(argc - 1, argv + 1);
	if (!strcmp(argv[0], "delete"))
		return tap_delete(argc - 1, argv + 1);
	return tap_usage_err("tap", "unknown subcommand '%s' (%s)", argv[0],
			     "create, delete");
}

static const char *probe_state_name(enum provision_vhost_state s)
{
	switch (s) {
	case PROV_VHOST_USABLE:		return "usable";
	case PROV_VHOST_ABSENT:		return "absent";
	case PROV_VHOST_NOT_CHARDEV:	return "not a character device";
	case PROV_VHOST_DENIED:		return "present but not accessible";
	case PROV_VHOST_UNKNOWN_USER:	return "unknown user";
	case PROV_VHOST_ERROR:		return "error";
	}
	return "?";
}

/**
 * cmd_probe() - vnetctl probe vhost-net
 * @argc:	Arguments after "probe"
 * @argv:	Arguments
 *
 * Return: 0 usable, 1 not usable, 2 usage error
 */
int cmd_probe(int argc, char **argv)
{
	const char *user = NULL, *dev = getenv("VNET_VHOST_NET_DEV"), *v;
	struct provision_vhost_probe p;
	bool missing;
	int i;

	if (argc < 1 || cmd_is_help(argv[0]) || strcmp(argv[0], "vhost-net")) {
		fputs(probe_usage, argc >= 1 && cmd_is_help(argv[0]) ? stdout : stderr);
		return argc >= 1 && cmd_is_help(argv[0]) ? CMD_OK : CMD_USAGE;
	}
	if (cmd_wants_help(argc - 1, argv + 1)) {
		fputs(probe_usage, stdout);
		return CMD_OK;
	}
	for (i = 1; i < argc; i++) {
		if ((v = cmd_opt(argc, argv, &i, "--user", &missing)))
			user = v;
		else if ((v = cmd_opt(argc, argv, &i, "--dev", &missing)))
			dev = v;
		else
			return tap_usage_err("probe", missing ? "%s needs a value%s" :
					     "unknown argument '%s'%s", argv[i], "");
	}
	if (!dev || !*dev)
		dev = PROV_VHOST_NET_DEV;
	provision_vhost_probe(dev, user, &p);
	if (p.state == PROV_VHOST_UNKNOWN_USER)
		return tap_usage_err("probe", "--user '%s': no such user%s", user, "");
	printf("vhost-net: %s: %s\n", probe_state_name(p.state), p.detail);
	if (p.state == PROV_VHOST_USABLE) {
		printf("plan: --backend tap gets vhost=on; default queue pairs min(vCPUs, 16, max_queues)\n");
		return CMD_OK;
	}
	printf("plan: --vhost auto falls back to vhost=off with 1 queue pair by default (a warning); --vhost on fails\n");
	return CMD_FAIL;
}
