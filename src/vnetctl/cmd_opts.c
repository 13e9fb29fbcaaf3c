// SPDX-License-Identifier: MIT
/*
 * cmd_opts.c - the option helpers vnetctl's subcommands share: one option
 * as "--name VALUE" or "--name=VALUE", the control socket's three
 * spellings, what asks for help, and the shape `vnetctl CMD VERB
 * [OPERAND] [--json] [--socket CTL]` that switch and port share.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd_opts.h"
#include "ctl_path.h"

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

/* The verbs of @verbs as "a, b, c" into @buf (@size bytes) */
static void cmd_verb_list(char *buf, size_t size,
			  const struct cmd_verb *verbs, size_t nverbs)
{
	size_t k, n = 0;

	buf[0] = '\0';
	for (k = 0; k < nverbs && n < size; k++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", k ? ", " : "",
				      verbs[k].name);
}

/* Index of @name in @verbs, or @nverbs if it is none of them */
static size_t cmd_verb_find(const char *name, const struct cmd_verb *verbs,
			    size_t nverbs)
{
	size_t k;

	for (k = 0; k < nverbs && strcmp(name, verbs[k].name); k++)
		;
	return k;
}

/**
 * cmd_verb_parse() - Parse `vnetctl CMD VERB [OPERAND] [--json] [--socket CTL]`
 * @cmd:	The command's name, for messages ("switch")
 * @argc:	Argument count (the arguments after @cmd)
 * @argv:	Arguments
 * @verbs:	The subcommands @cmd has
 * @nverbs:	How many
 * @json_ok:	Whether -j/--json is an option of @cmd
 * @usage:	Prints @cmd's usage on the given stream
 * @a:		What the command line holds (output)
 *
 * No argument prints the usage on stderr, -h/--help (anywhere) or a first
 * argument "help" on stdout. After the verb: the control socket option,
 * --json where @json_ok, and one operand for a verb that takes one;
 * whether a verb's operand is there and well formed is left to @cmd.
 *
 * Return: -1 to go on with @a filled in, else the exit status to return:
 *	   CMD_OK after help, CMD_USAGE after a message on stderr naming the
 *	   argument
 */
int cmd_verb_parse(const char *cmd, int argc, char **argv,
		   const struct cmd_verb *verbs, size_t nverbs, bool json_ok,
		   void (*usage)(FILE *f), struct cmd_verb_args *a)
{
	char list[128];
	const char *v;
	bool missing;
	size_t k;
	int i;

	if (argc < 1 || cmd_wants_help(argc, argv) || cmd_is_help(argv[0])) {
		usage(argc < 1 ? stderr : stdout);
		return argc < 1 ? CMD_USAGE : CMD_OK;
	}
	memset(a, 0, sizeof(*a));
	a->path = ctl_default_path();
	a->verb = argv[0];
	k = cmd_verb_find(a->verb, verbs, nverbs);
	if (k == nverbs) {
		cmd_verb_list(list, sizeof(list), verbs, nverbs);
		fprintf(stderr, "vnetctl %s %s: unknown subcommand (%s)\n",
			cmd, a->verb, list);
		return CMD_USAGE;
	}
	for (i = 1; i < argc; i++) {
		if ((v = cmd_ctl_opt(argc, argv, &i, &missing))) {
			a->path = v;
		} else if (missing) {
			fprintf(stderr, "vnetctl %s: %s: needs a value (the control socket path)\n",
				cmd, argv[i]);
			return CMD_USAGE;
		} else if (json_ok && (!strcmp(argv[i], "--json") ||
				       !strcmp(argv[i], "-j"))) {
			a->json = true;
		} else if (argv[i][0] == '-' || a->operand || !verbs[k].operand) {
			fprintf(stderr, "vnetctl %s %s: %s: unexpected argument (see vnetctl %s --help)\n",
				cmd, a->verb, argv[i], cmd);
			return CMD_USAGE;
		} else {
			a->operand = argv[i];
		}
	}
	return -1;
}
