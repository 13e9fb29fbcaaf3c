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
	const char *path = ctl_default_path(), *verb, *name = NULL, *v;
	char req[64];
	bool missing, json = false;
	int i;

	if (argc < 1 || cmd_wants_help(argc, argv) || cmd_is_help(argv[0])) {
		switch_usage(argc < 1 ? stderr : stdout);
		return argc < 1 ? CMD_USAGE : CMD_OK;
	}
	verb = argv[0];
	if (strcmp(verb, "list") && strcmp(verb, "show")) {
		fprintf(stderr, "vnetctl switch %s: unknown subcommand (list, show)\n",
			verb);
		return CMD_USAGE;
	}
	for (i = 1; i < argc; i++) {
		if ((v = cmd_ctl_opt(argc, argv, &i, &missing))) {
			path = v;
		} else if (missing) {
			fprintf(stderr, "vnetctl switch: %s: needs a value (the control socket path)\n",
				argv[i]);
			return CMD_USAGE;
		} else if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j")) {
			json = true;
		} else if (argv[i][0] == '-' || name || !strcmp(verb, "list")) {
			fprintf(stderr, "vnetctl switch %s: %s: unexpected argument (see vnetctl switch --help)\n",
				verb, argv[i]);
			return CMD_USAGE;
		} else {
			name = argv[i];
		}
	}
	if (!strcmp(verb, "show") && !name) {
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
			 json ? " json" : "");
	else
		snprintf(req, sizeof(req), "switch list%s\n", json ? " json" : "");
	return ctl_query("vnetctl switch", path, req);
}
