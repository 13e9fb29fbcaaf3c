/* SPDX-License-Identifier: MIT */
/*
 * cli.h - the command line (cli.c): argv, with the --port groups and the
 * config file it names, into struct vnetd_cfg
 */
#ifndef VNETD_CLI_H
#define VNETD_CLI_H

#include <stdio.h>

#include "cfg.h"

int cli_parse(struct vnetd_cfg *cfg, int argc, char **argv);
void cli_usage(FILE *f);
void cli_print_capabilities(FILE *f);

#endif /* VNETD_CLI_H */
