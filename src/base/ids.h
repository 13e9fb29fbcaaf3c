/* SPDX-License-Identifier: MIT */
/*
 * ids.h - the one lookup of a user or group an operator names (vnetd
 * --user, --socket-owner, --socket-group, --ctl-group; vnetctl tap create
 * --user/--group, probe vhost-net --user): a name first, as chown(1) takes
 * it, then a decimal number in 0..2^31-2.
 */
#ifndef VNET_IDS_H
#define VNET_IDS_H

#include <sys/types.h>

int ids_uid(const char *name, uid_t *uid);
int ids_gid(const char *name, gid_t *gid);
int ids_user_gid(uid_t uid, gid_t *gid);

#endif /* VNET_IDS_H */
