// SPDX-License-Identifier: MIT
/*
 * privdrop.c - --user USER[:GROUP]: once the TAPs are open and the sockets
 * bound, become USER with no capabilities left. Setup is the only part of
 * vnetd that may need privilege:
 *
 *	CAP_NET_ADMIN	TUNSETIFF creating a TAP, or attaching to one owned
 *			by another user; SIOCSIFFLAGS bringing it up. Not
 *			needed for a persistent TAP owned by our user (ip
 *			tuntap add ... user USER) nor for --tap-fd.
 *	CAP_CHOWN	--socket-owner/--socket-group (the default group kvm
 *			included) and --ctl-group, unless we are the owner
 *			and a member of the group.
 *	CAP_DAC_OVERRIDE creating sockets in a directory we cannot write
 *			(a root-owned /run/vnetd).
 *	CAP_SETUID, CAP_SETGID	this drop itself.
 *
 * Serving frontends needs none: the data path reads and writes open fds
 * and guest memory mapped from fds the frontend passes. The order is the
 * one that cannot be undone halfway: supplementary groups, then the gid
 * (while we may still change it), then the uid; then check that root
 * cannot be regained and that the permitted and effective sets are empty.
 * The seccomp sandbox (sandbox.c) comes after this.
 */
#include <errno.h>
#include <limits.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include "ids.h"
#include "privdrop.h"

/**
 * privdrop_lookup_user() - Parse --user USER[:GROUP]
 * @spec:	"nobody", "nobody:nogroup", "65534:65534"
 * @uid:	Output
 * @gid:	Output: GROUP, or USER's primary group
 * @why:	What is wrong (output)
 *
 * Return: 0 or -EINVAL
 */
int privdrop_lookup_user(const char *spec, uid_t *uid, gid_t *gid,
			 struct reason *why)
{
	char user[256], *colon;

	if (!*spec || strlen(spec) >= sizeof(user)) {
		return reason_set(why, -EINVAL, "must be USER or USER:GROUP");
	}
	strcpy(user, spec);
	colon = strchr(user, ':');
	if (colon)
		*colon++ = '\0';
	if (ids_uid(user, uid)) {
		return reason_set(why, -EINVAL, "no such user (see getent passwd)");
	}
	if (colon) {
		if (ids_gid(colon, gid)) {
			return reason_set(why, -EINVAL, "no such group %s (see getent group)",
					  colon);
		}
		return 0;
	}
	if (ids_user_gid(*uid, gid)) {
		return reason_set(why, -EINVAL, "uid %u has no passwd entry: give the group too (USER:GROUP)",
				  (unsigned int)*uid);
	}
	return 0;
}

/* Are the permitted and effective capability sets empty? */
static int privdrop_caps_empty(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	unsigned int i;

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	for (i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (data[i].permitted || data[i].effective)
			return -EPERM;
	return 0;
}

/**
 * privdrop_join_group() - Add @gid to our supplementary groups
 * @gid:	Group (the default socket group, kvm)
 *
 * A process may give a file it owns to any group it is a member of without
 * CAP_CHOWN. Joining the default socket group before the sandbox drops the
 * capabilities lets ports added at run time (`vnetctl port add`) get the
 * same socket group as those given at start. Root only; a no-op when we
 * are already a member.
 *
 * Context: main thread, before the sandbox, without --user
 * Return: 0 or -errno (the caller warns: run-time ports keep our group)
 */
int privdrop_join_group(gid_t gid)
{
	gid_t groups[NGROUPS_MAX + 1];
	int i, n;

	if (getegid() == gid)
		return 0;
	n = getgroups(NGROUPS_MAX, groups);
	if (n < 0)
		return -errno;
	for (i = 0; i < n; i++)
		if (groups[i] == gid)
			return 0;
	groups[n++] = gid;
	return setgroups((size_t)n, groups) ? -errno : 0;
}

/**
 * privdrop_apply() - Become @uid:@gid for good, with no capabilities
 * @uid:	Target user
 * @gid:	Target group, also the only supplementary group
 * @why:	One sentence for the operator on failure
 *
 * Already @uid:@gid (started unprivileged): only the checks run.
 *
 * Context: main thread, after setup; workers (if any) follow through
 *	    glibc's setxid broadcast
 * Return: 0 or -errno; on failure the caller must exit
 */
int privdrop_apply(uid_t uid, gid_t gid, struct reason *why)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg;
	int ret;

	if (getuid() != uid || geteuid() != uid || getgid() != gid) {
		if (setgroups(1, &gid)) {
			ret = -errno;
			return reason_set(why, ret, "--user: setgroups: %s%s",
					  strerror(-ret),
					  ret == -EPERM ? " (needs CAP_SETGID: start as root)" : "");
		}
		if (setresgid(gid, gid, gid) || setresuid(uid, uid, uid)) {
			ret = -errno;
			return reason_set(why, ret, "--user %u:%u: %s", (unsigned int)uid,
					  (unsigned int)gid, strerror(-ret));
		}
	}
	if (getresuid(&ru, &eu, &su) || getresgid(&rg, &eg, &sg) ||
	    ru != uid || eu != uid || su != uid || rg != gid || eg != gid ||
	    sg != gid) {
		return reason_set(why, -EPERM, "--user %u:%u: ids did not change as asked",
				  (unsigned int)uid, (unsigned int)gid);
	}
	if (uid != 0 && (!setuid(0) || !seteuid(0))) {
		return reason_set(why, -EPERM, "--user %u: could become root again",
				  (unsigned int)uid);
	}
	/* no ambient set: a later execve() would not regain anything either */
	(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (uid != 0 && privdrop_caps_empty()) {
		return reason_set(why, -EPERM, "--user %u: capabilities left after the switch (file capabilities or SECBIT_KEEP_CAPS?)",
				  (unsigned int)uid);
	}
	return 0;
}
