// SPDX-License-Identifier: MIT
/*
 * devperm.c - a device node's owner, group and mode in words, and a user's
 * name, for the permission diagnoses of vhost_mode.c and provision.c. The
 * reentrant passwd/group calls: vnetd's worker threads may be running.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <sys/stat.h>

#include "devperm.h"

/**
 * devperm_user() - A user's name, or its uid in decimal
 * @uid:	User
 * @buf:	Output
 * @len:	Size of @buf
 */
void devperm_user(uid_t uid, char *buf, size_t len)
{
	struct passwd pw, *res = NULL;
	char tmp[1024];

	if (!getpwuid_r(uid, &pw, tmp, sizeof(tmp), &res) && res)
		snprintf(buf, len, "%s", res->pw_name);
	else
		snprintf(buf, len, "%u", (unsigned int)uid);
}

/* A group's name, or its gid in decimal */
static void devperm_group(gid_t gid, char *buf, size_t len)
{
	struct group gr, *res = NULL;
	char tmp[1024];

	if (!getgrgid_r(gid, &gr, tmp, sizeof(tmp), &res) && res)
		snprintf(buf, len, "%s", res->gr_name);
	else
		snprintf(buf, len, "%u", (unsigned int)gid);
}

/**
 * devperm_stat() - Who owns @path, with which mode
 * @path:	Device node (followed if a symlink, as open() would)
 * @p:		Output
 *
 * Return: 0, or the -errno of stat()
 */
int devperm_stat(const char *path, struct devperm *p)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	p->mode = st.st_mode;
	p->uid = st.st_uid;
	p->gid = st.st_gid;
	devperm_user(st.st_uid, p->owner, sizeof(p->owner));
	devperm_group(st.st_gid, p->group, sizeof(p->group));
	return 0;
}
