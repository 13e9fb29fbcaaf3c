/* SPDX-License-Identifier: MIT */
/*
 * svc.h - vnetd as a host service: socket files, permissions, inherited
 * sockets and socket activation (sockets.c), the privilege drop
 * (privdrop.c), systemd notification (sd_notify.c) and the control
 * thread's once-a-second housekeeping (svc.c). Included by vnetd.h.
 */
#ifndef VNETD_SVC_H
#define VNETD_SVC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "reason.h"

struct vnetd_cfg;
struct vnetd_port_cfg;
struct vnetd_port;
struct sockaddr_un;

#define SOCK_DEFAULT_MODE	0660
#define SOCK_DEFAULT_GROUP	"kvm"	/* libvirt's QEMU: libvirt-qemu:kvm */
#define SOCK_RUN_DIR		"/run/vnetd"

/* sockets.c */
int sock_unix_addr(const char *path, struct sockaddr_un *sa);
int sock_unix_listen(const char *path, struct reason *why);
int sock_port_open(const struct vnetd_port_cfg *cfg, int *listen_fd,
		   int *conn_fd, struct reason *why);
int sock_activation(struct vnetd_cfg *cfg, struct reason *why);
void sock_ctl_configure(int64_t gid);
int sock_ctl_perms(const char *path);
int sock_ctl_check(int fd, struct reason *why);
int sock_run_dir(const char *path);

/* privdrop.c */
int privdrop_lookup_user(const char *spec, uid_t *uid, gid_t *gid,
			 struct reason *why);
int privdrop_apply(uid_t uid, gid_t gid, struct reason *why);
int privdrop_join_group(gid_t gid);

/* sd_notify.c */
int sdn_init(void);
int sdn_send(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* svc.c */
int svc_start(struct vnetd_cfg *cfg);
int svc_ready(const struct vnetd_cfg *cfg);
void svc_tick(struct vnetd_port *ports, unsigned int nports);

#endif /* VNETD_SVC_H */
