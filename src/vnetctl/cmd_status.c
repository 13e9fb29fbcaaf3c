// SPDX-License-Identifier: MIT
/*
 * cmd_status.c - `vnetctl status [--socket CTL] [--json] [--prometheus]`:
 * ask a running vnetd over its control socket (one request line, the reply,
 * then the daemon closes) and print the reply unchanged. The default socket
 * is the one vnetd uses without --ctl-socket: $XDG_RUNTIME_DIR/vnetd.ctl for
 * a non-root user that has one, /run/vnetd/vnetd.ctl otherwise.
 *
 * Exit status: 0 reply printed, 1 no daemon / error reply, 2 bad usage.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cmd_opts.h"
#include "cmds.h"
#include "ctl_query.h"
#include "ctl_path.h"

static void status_usage(FILE *f)
{
	fprintf(f,
"Usage: vnetctl status [--socket CTL] [--json | --prometheus]\n"
"Show every port and queue of a running vnetd: connection, negotiated\n"
"features, data path, and per-queue counters.\n"
"  -s, --socket CTL   vnetd control socket (default: %s); also --ctl-socket\n"
"  -j, --json         one JSON document\n"
"  -p, --prometheus   Prometheus text exposition\n"
"  -h, --help         this text\n", ctl_default_path());
}

/**
 * cmd_status() - vnetctl status
 * @argc:	Argument count (the arguments after "status")
 * @argv:	Arguments
 *
 * Return: exit status (cmds.h)
 */
int cmd_status(int argc, char **argv)
{
	const char *path = ctl_default_path(), *req = "status\n", *v;
	const char *format = NULL;	/* the --json/--prometheus flag given */
	bool missing;
	int i;

	for (i = 0; i < argc; i++) {
		if ((v = cmd_ctl_opt(argc, argv, &i, &missing))) {
			path = v;
		} else if (missing) {
			fprintf(stderr, "vnetctl status: %s: needs a value\n",
				argv[i]);
			return CMD_USAGE;
		} else if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j") ||
			   !strcmp(argv[i], "--prometheus") ||
			   !strcmp(argv[i], "-p")) {
			v = strstr(argv[i], "j") ? "status json\n" :
						    "metrics\n";
			if (format && strcmp(req, v)) {
				fprintf(stderr, "vnetctl status: %s and %s: give one output format, not both\n",
					format, argv[i]);
				return CMD_USAGE;
			}
			format = argv[i];
			req = v;
		} else if (cmd_is_help(argv[i])) {
			status_usage(stdout);
			return CMD_OK;
		} else {
			fprintf(stderr, "vnetctl status: %s: unknown option\n",
				argv[i]);
			status_usage(stderr);
			return CMD_USAGE;
		}
	}
	return ctl_query("vnetctl status", path, req);
}
