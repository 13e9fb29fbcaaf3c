/* SPDX-License-Identifier: MIT */
/*
 * cmd_opts.h - vnetctl's exit status and the option helpers every
 * subcommand uses (cmd_opts.c). Exit status: 0 success, 1 the operation
 * failed, 2 a usage error (a bad flag or value, named in the message).
 */
#ifndef VNETCTL_CMD_OPTS_H
#define VNETCTL_CMD_OPTS_H

#include <stdbool.h>
#include <stdio.h>

#define CMD_OK		0
#define CMD_FAIL	1
#define CMD_USAGE	2

/* one subcommand of a `vnetctl CMD VERB [OPERAND]` command */
struct cmd_verb {
	const char *name;	/* "list", "show", ... */
	bool operand;		/* takes one positional argument */
};

/* what cmd_verb_parse() found on the command line */
struct cmd_verb_args {
	const char *verb;	/* the subcommand, one of the table's */
	const char *operand;	/* its positional argument, or NULL */
	const char *path;	/* control socket (default: ctl_default_path()) */
	bool json;		/* -j or --json given (where allowed) */
};

const char *cmd_opt(int argc, char **argv, int *i, const char *name,
		    bool *missing);
const char *cmd_ctl_opt(int argc, char **argv, int *i, bool *missing);
bool cmd_is_help(const char *arg);
bool cmd_wants_help(int argc, char **argv);
int cmd_verb_parse(const char *cmd, int argc, char **argv,
		   const struct cmd_verb *verbs, size_t nverbs, bool json_ok,
		   void (*usage)(FILE *f), struct cmd_verb_args *a);

#endif /* VNETCTL_CMD_OPTS_H */
