/* SPDX-License-Identifier: MIT */
/*
 * sockets.h - where a port's socket comes from and who may use the control
 * socket (sockets.c)
 */
#ifndef VNETD_SOCKETS_H
#define VNETD_SOCKETS_H

#include <stdint.h>

#include "reason.h"

struct sockaddr_un;
struct vnetd_cfg;
struct vnetd_port_cfg;

int sock_unix_addr(const char *path, struct sockaddr_un *sa);
int sock_unix_listen(const char *path, struct reason *why);
int sock_port_open(const struct vnetd_port_cfg *cfg, int *listen_fd,
		   int *conn_fd, struct reason *why);
int sock_activation(struct vnetd_cfg *cfg, struct reason *why);
void sock_ctl_configure(int64_t gid);
int sock_ctl_perms(const char *path);
int sock_ctl_check(int fd, struct reason *why);
int sock_run_dir(const char *path);

#endif /* VNETD_SOCKETS_H */
