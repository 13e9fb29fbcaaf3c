/* SPDX-License-Identifier: MIT */
/*
 * config.h - the ports of a config file and of --port groups (config.c)
 */
#ifndef VNETD_CONFIG_H
#define VNETD_CONFIG_H

#include "cfg.h"
#include "reason.h"

int cli_add_port(struct vnetd_cfg *cfg, const struct vnetd_port_cfg *tmpl,
		 const char *text, const char *delims, const char *where,
		 struct reason *why);
int cli_config_read(struct vnetd_cfg *cfg, const struct vnetd_port_cfg *tmpl,
		    const char *path, struct reason *why);

#endif /* VNETD_CONFIG_H */
