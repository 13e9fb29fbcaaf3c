// SPDX-License-Identifier: MIT
/*
 * cmd_opts.c - the option helpers vnetctl's subcommands share: one option
 * as "--name VALUE" or "--name=VALUE", the control socket's three
 * spellings, and what asks for help.
 */
#include <stdbool.h>
#include <string.h>

#include "cmd_opts.h"

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
