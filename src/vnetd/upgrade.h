/* SPDX-License-Identifier: MIT */
/*
 * upgrade.h - hand every port to a new binary: vnetctl upgrade (upgrade.c)
 */
#ifndef VNETD_UPGRADE_H
#define VNETD_UPGRADE_H

#include <stdbool.h>

struct sbuf;
struct vnetd_cfg;
struct vnetd_port;

void upgrade_init(int argc, char **argv, int ctl_fd, int http_fd);
void upgrade_serve(int fd, struct sbuf *b);
int upgrade_begin(int *argc, char ***argv);
bool upgrade_active(void);
int upgrade_take(struct vnetd_cfg *cfg, struct vnetd_port *ports, int epfd,
		 int *ctl_fd, int *http_fd);
int upgrade_commit(struct vnetd_port *ports, unsigned int nports);

#endif /* VNETD_UPGRADE_H */
