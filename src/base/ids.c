// SPDX-License-Identifier: MIT
/*
 * ids.c - user and group names or numbers to ids (ids.h). Reentrant
 * lookups (getpwnam_r and friends): vnetd looks names up while its worker
 * threads run.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>

#include "ids.h"

#define IDS_BUF		4096
#define IDS_MAX		0x7ffffffeUL	/* -1 means "unchanged" to chown */

/* A decimal number in 0..IDS_MAX, nothing else: 0 or -EINVAL */
static int ids_number(const char *s, unsigned long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoul(s, &end, 10);
	if (errno || *end || *v > IDS_MAX)
		return -EINVAL;
	return 0;
}

/**
 * ids_uid() - A user name or number to a uid
 * @name:	"nobody" or "65534"; a name that is all digits is a name if
 *		passwd has it
 * @uid:	Output
 *
 * Return: 0 or -ENOENT
 */
int ids_uid(const char *name, uid_t *uid)
{
	struct passwd pw, *res = NULL;
	char buf[IDS_BUF];
	unsigned long v;

	if (!getpwnam_r(name, &pw, buf, sizeof(buf), &res) && res) {
		*uid = pw.pw_uid;
		return 0;
	}
	if (ids_number(name, &v))
		return -ENOENT;
	*uid = (uid_t)v;
	return 0;
}

/**
 * ids_gid() - A group name or number to a gid
 * @name:	"kvm" or "108"; a name that is all digits is a name if the
 *		group database has it
 * @gid:	Output
 *
 * Return: 0 or -ENOENT
 */
int ids_gid(const char *name, gid_t *gid)
{
	struct group gr, *res = NULL;
	char buf[IDS_BUF];
	unsigned long v;

	if (!getgrnam_r(name, &gr, buf, sizeof(buf), &res) && res) {
		*gid = gr.gr_gid;
		return 0;
	}
	if (ids_number(name, &v))
		return -ENOENT;
	*gid = (gid_t)v;
	return 0;
}

/**
 * ids_user_gid() - The primary group of @uid, from passwd
 * @uid:	User id
 * @gid:	Output
 *
 * Return: 0 or -ENOENT if passwd has no entry for @uid
 */
int ids_user_gid(uid_t uid, gid_t *gid)
{
	struct passwd pw, *res = NULL;
	char buf[IDS_BUF];

	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) || !res)
		return -ENOENT;
	*gid = pw.pw_gid;
	return 0;
}
