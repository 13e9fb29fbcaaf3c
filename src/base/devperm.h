/* SPDX-License-Identifier: MIT */
/*
 * devperm.h - who owns a device node and who is asking, in words: the one
 * description of /dev/vhost-net's permissions that vnetd's `--vhost-net`
 * diagnosis (vhost_mode.c) and `vnetctl probe vhost-net` (provision.c)
 * both print. Only stat() and the passwd/group databases; no opening.
 */
#ifndef VNET_DEVPERM_H
#define VNET_DEVPERM_H

#include <stddef.h>
#include <sys/types.h>

/**
 * struct devperm - A device node's owner and mode, as devperm_stat() found
 * @mode:	st_mode (file type and permission bits)
 * @uid:	Owner
 * @gid:	Group
 * @owner:	Owner's user name, or its uid in decimal
 * @group:	Group name, or its gid in decimal
 */
struct devperm {
	mode_t mode;
	uid_t uid;
	gid_t gid;
	char owner[64];
	char group[64];
};

int devperm_stat(const char *path, struct devperm *p);
void devperm_user(uid_t uid, char *buf, size_t len);

#endif /* VNET_DEVPERM_H */
