/* SPDX-License-Identifier: MIT */
/*
 * cmd_opts.h - vnetctl's exit status and the option helpers every
 * subcommand uses (cmd_opts.c). Exit status: 0 success, 1 the operation
 * failed, 2 a usage error (a bad flag or value, named in the message).
 */
#ifndef VNETCTL_CMD_OPTS_H
#define VNETCTL_CMD_OPTS_H

#include <stdbool.h>

#define CMD_OK		0
#define CMD_FAIL	1
#define CMD_USAGE	2

const char *cmd_opt(int argc, char **argv, int *i, const char *name,
		    bool *missing);
const char *cmd_ctl_opt(int argc, char **argv, int *i, bool *missing);
bool cmd_is_help(const char *arg);
bool cmd_wants_help(int argc, char **argv);

#endif /* VNETCTL_CMD_OPTS_H */
