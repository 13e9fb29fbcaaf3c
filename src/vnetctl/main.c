// SPDX-License-Identifier: MIT
/*
 * vnetctl - operator tool: plan a VM NIC's queues and VMM arguments,
 * create the host devices it needs, probe vhost-net, ask vnetd for status.
 *
 * This file only dispatches to the subcommands (cmd_*.c; the option
 * helpers they share are cmd_opts.c's); the decisions live in the library
 * (plan.c, provision.c).
 */
#include <stdio.h>
#include <string.h>

#include "cmd_opts.h"
#include "cmds.h"
#include "version.h"

static const char vnetctl_usage[] =
	"usage: vnetctl COMMAND [ARGS]\n"
	"\n"
	"  plan --vcpus N [--backend vhost-user|tap] [--socket PATH] [--queues N] ...\n"
	"                       queue pairs and QEMU/libvirt/cloud-hypervisor/vnetd arguments\n"
	"  tap create NAME --queues N [--user U] [--group G] [--bridge BR] [--mac MAC]\n"
	"  tap create NAME --macvtap-parent DEV [--mode bridge|passthru] --queues N ...\n"
	"  tap delete NAME      create or delete a multi-queue TAP or a macvtap (root)\n"
	"  probe vhost-net [--user U] [--dev PATH]\n"
	"                       can this user open /dev/vhost-net, and what the plan does if not\n"
	"  status ...           ask a running vnetd\n"
	"  port add KEY=VAL,... | port del NAME | port list\n"
	"                       ports of a running vnetd, without a restart\n"
	"  switch list | switch show NAME [--json]\n"
	"                       switches of a running vnetd: ports, counters, MAC table\n"
	"  upgrade [--binary PATH] [--socket CTL]\n"
	"                       replace the running vnetd by a new binary; VMs stay connected\n"
	"  --version            print the version and exit\n"
	"\n"
	"Exit status: 0 success, 1 the operation failed, 2 usage error.\n"
	"See docs/vnetctl.md.\n";

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd) {
		fputs(vnetctl_usage, stderr);
		return CMD_USAGE;
	}
	if (cmd_is_help(cmd)) {
		fputs(vnetctl_usage, stdout);
		return CMD_OK;
	}
	if (!strcmp(cmd, "--version")) {
		printf("vnetctl %s\n", VNET_VERSION);
		return CMD_OK;
	}
	if (!strcmp(cmd, "plan"))
		return cmd_plan(argc - 2, argv + 2);
	if (!strcmp(cmd, "tap"))
		return cmd_tap(argc - 2, argv + 2);
	if (!strcmp(cmd, "probe"))
		return cmd_probe(argc - 2, argv + 2);
	if (!strcmp(cmd, "status"))
		return cmd_status(argc - 2, argv + 2);
	if (!strcmp(cmd, "port"))
		return cmd_port(argc - 2, argv + 2);
	if (!strcmp(cmd, "switch"))
		return cmd_switch(argc - 2, argv + 2);
	if (!strcmp(cmd, "upgrade"))
		return cmd_upgrade(argc - 2, argv + 2);
	fprintf(stderr, "vnetctl: unknown command '%s' (plan, tap, probe, status, port, switch, upgrade)\n%s",
		cmd, vnetctl_usage);
	return CMD_USAGE;
}
