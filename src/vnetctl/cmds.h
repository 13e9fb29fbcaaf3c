/* SPDX-License-Identifier: MIT */
/*
 * cmds.h - vnetctl's subcommands, one file each, called by main.c. Each
 * cmd_*() gets the arguments after its own name and returns the exit
 * status (cmd_opts.h: CMD_OK, CMD_FAIL, CMD_USAGE).
 */
#ifndef VNETCTL_CMDS_H
#define VNETCTL_CMDS_H

int cmd_plan(int argc, char **argv);
int cmd_tap(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_status(int argc, char **argv);	/* src/vnetctl/cmd_status.c */
int cmd_port(int argc, char **argv);	/* src/vnetctl/cmd_port.c */
int cmd_upgrade(int argc, char **argv);	/* src/vnetctl/cmd_upgrade.c */
int cmd_switch(int argc, char **argv);	/* src/vnetctl/cmd_switch.c */

#endif /* VNETCTL_CMDS_H */
