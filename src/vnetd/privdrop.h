/* SPDX-License-Identifier: MIT */
/*
 * privdrop.h - --user: the privilege drop after setup (privdrop.c)
 */
#ifndef VNETD_PRIVDROP_H
#define VNETD_PRIVDROP_H

#include <sys/types.h>

#include "reason.h"

int privdrop_lookup_user(const char *spec, uid_t *uid, gid_t *gid,
			 struct reason *why);
int privdrop_apply(uid_t uid, gid_t gid, struct reason *why);
int privdrop_join_group(gid_t gid);

#endif /* VNETD_PRIVDROP_H */
