/* SPDX-License-Identifier: MIT */
/*
 * cmds.h - vnetctl's subcommands and the small option helpers they share.
 * Each cmd_*() gets the arguments after its own name and returns the exit
 * status: 0 success, 1 the operation failed, 2 a usage error (a bad flag
 * or value, named in the message).
 */
#ifndef VNETCTL_CMDS_H
#define VNETCTL_CMDS_H

#include <stdbool.h>

#define CMD_OK		0
#define CMD_FAIL	1
#define CMD_USAGE	2

int cmd_plan(int argc, char **argv);
int cmd_tap(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_status(int argc, char **argv);	/* src/vnetctl/cmd_status.c */
int cmd_port(int argc, char **argv);	/* src/vnetctl/cmd_port.c */
int cmd_upgrade(int argc, char **argv);	/* src/vnetctl/cmd_upgrade.c */
int ctl_query(const char *who, const char *path, const char *req);	/* ctl_query.c */

const char *cmd_opt(int argc, char **argv, int *i, const char *name,
		    bool *missing);
const char *cmd_ctl_opt(int argc, char **argv, int *i, bool *missing);
bool cmd_is_help(const char *arg);
bool cmd_wants_help(int argc, char **argv);

#endif /* VNETCTL_CMDS_H */
