// SPDX-License-Identifier: MIT
/*
 * cmd_switch.c - `vnetctl switch list [--json]` and `vnetctl switch show
 * NAME [--json]`: a running vnetd's switches, over its control socket (one
 * request line, the reply, then vnetd closes). vnetd renders the reply
 * (members, VLANs, counters, the MAC table) and refuses an unknown switch
 * naming the declared ones; this file checks the command line's shape.
 *
 * Exit status: 0 reply printed, 1 vnetd refused or is not reachable,
 * 2 bad usage.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd_opts.h"
#include "cmds.h"
#include "ctl_path.h"
#include "ctl_query.h"
#include "util.h"

#define SWITCH_NAME_MAX	31	/* vnetd's switch names: 1..31 bytes */

static void switch_usage(FILE *f)
{
	fprintf(f,
"Usage: vnetctl switch list [--json] [--socket CTL]\n"
"       vnetctl switch show NAME [--json] [--socket CTL]\n"
"The switches of a running vnetd (vnetd --switch NAME).\n"
"  list               one line per switch: its ports and MACs\n"
"  show NAME          its ports (VLANs, up or down, counters: macs, learned,\n"
"                     mac_limit, flooded, drops queue_full/vlan/bad/police) and its\n"
"                     MAC table (MAC, VLAN, port, age in seconds)\n"
"  -j, --json         one JSON document\n"
"  -s, --socket CTL   vnetd control socket (default: %s); also --ctl-socket\n"
"  -h, --help         this text\n", ctl_default_path());
}

/**
 * cmd_switch() - vnetctl switch list|show
 * @argc:	Argument count (the arguments after "switch")
 * @argv:	Arguments
 *
 * Return: exit status (cmds.h)
 */
int cmd_switch(int argc, char **argv)
{
	static const struct cmd_verb verbs[] = {
		{ "list", false }, { "show", true },
	};
	struct cmd_verb_args a;
	const char *name;
	char req[64];
	int ret;

	ret = cmd_verb_parse("switch", argc, argv, verbs, ARRAY_SIZE(verbs),
			     true, switch_usage, &a);
	if (ret >= 0)
		return ret;
	name = a.operand;
	if (!strcmp(a.verb, "show") && !name) {
		fprintf(stderr, "vnetctl switch show: missing NAME (see vnetctl switch list)\n");
		return CMD_USAGE;
	}
	if (name && (!*name || strlen(name) > SWITCH_NAME_MAX ||
		     strpbrk(name, " \t\r\n"))) {
		fprintf(stderr, "vnetctl switch show: '%s': must be a switch name of 1..%d bytes without spaces\n",
			name, SWITCH_NAME_MAX);
		return CMD_USAGE;
	}
	if (name)
		snprintf(req, sizeof(req), "switch show %s%s\n", name,
			 a.json ? " json" : "");
	else
		snprintf(req, sizeof(req), "switch list%s\n", a.json ? " json" : "");
	return ctl_query("vnetctl switch", a.path, req);
}
