// SPDX-License-Identifier: MIT
/*
 * vnetctl - operator tool: plan a VM NIC's queues and VMM arguments,
 * create the host devices it needs, probe vhost-net, ask vnetd for status.
 *
 * This file only dispatches to the subcommands (cmd_*.c) and holds the
 * option helpers they share; the decisions live in the library (plan.c,
 * provision.c).
 */
#include <stdio.h>
#include <string.h>

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
	"  upgrade [--binary PATH] [--socket CTL]\n"
	"                       replace the running vnetd by a new binary; VMs stay connected\n"
	"  --version            print the version and exit\n"
	"\n"
	"Exit status: 0 success, 1 the operation failed, 2 usage error.\n"
	"See docs/vnetctl.md.\n";

/**
 * cmd_opt() - Match one option at argv[*i], as "--name VALUE" or "--name=VALUE"
 * @argc:	Argument count
 * @argv:	Arguments
 * @i:		Index of the argument to look at; advanced past a separate value
 * @name:	Option name with its dashes, e.g. "--vcpus"
 * @missing:	Set when the option matched but has no value
 *
 * Return: the value, or NULL if argv[*i] is not @name (or has no value)
 */
const char *cmd_opt(int argc, char **argv, int *i, const char *name,
		    bool *missing)
{
	const char *a = argv[*i];
	size_t n = strlen(name);

	*missing = false;
	if (strncmp(a, name, n))
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n])
		return NULL;
	if (*i + 1 >= argc) {
		*missing = true;
		return NULL;
	}
	return argv[++*i];
}

/**
 * cmd_ctl_opt() - Match the control socket option at argv[*i]: --socket,
 *		   -s, or --ctl-socket (vnetd's name for the same socket)
 * @argc:	Argument count
 * @argv:	Arguments
 * @i:		As cmd_opt()
 * @missing:	As cmd_opt()
 *
 * Return: the path, or NULL as cmd_opt()
 */
const char *cmd_ctl_opt(int argc, char **argv, int *i, bool *missing)
{
	static const char *const names[] = { "--socket", "-s", "--ctl-socket" };
	const char *v = NULL;
	size_t k;

	for (k = 0; k < sizeof(names) / sizeof(names[0]) && !v; k++) {
		v = cmd_opt(argc, argv, i, names[k], missing);
		if (*missing)
			return NULL;
	}
	return v;
}

/**
 * cmd_is_help() - Is @arg a request for help?
 * @arg:	An argument
 *
 * Return: true for -h, --help and help
 */
bool cmd_is_help(const char *arg)
{
	return !strcmp(arg, "-h") || !strcmp(arg, "--help") ||
	       !strcmp(arg, "help");
}

/**
 * cmd_wants_help() - Does any argument ask for help?
 * @argc:	Argument count
 * @argv:	Arguments (a subcommand's, after its name)
 *
 * Only -h and --help count here, so that a positional NAME "help" stays a
 * name.
 *
 * Return: true if one of @argv is -h or --help
 */
bool cmd_wants_help(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	return false;
}

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
	if (!strcmp(cmd, "upgrade"))
		return cmd_upgrade(argc - 2, argv + 2);
	fprintf(stderr, "vnetctl: unknown command '%s' (plan, tap, probe, status, port, upgrade)\n%s",
		cmd, vnetctl_usage);
	return CMD_USAGE;
}
