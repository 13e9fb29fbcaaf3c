// SPDX-License-Identifier: MIT
/*
 * test_vhost_mode_root.c - the --vhost-net on refusal for the usual device
 * setup, root:kvm 0660, read as uid 65534: the advice then names group kvm
 * only. Root gives a stand-in file to group kvm and drops to 65534 in a
 * child. (The other decisions and messages: tests/unit/test_vhost_mode.c.)
 */
/* needs: root */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testlib.h"
#include "vhost_mode.h"
#include "vhost_mode_testutil.h"

/* The usual setup: root:kvm 0660; the advice then names kvm only */
static void test_permission_denied_kvm_group(void)
{
	char path[128], want[1024], user[64];
	struct vhost_decision d;
	struct passwd *pw;
	struct group *gr;
	int ret = 0;

	if (geteuid() != 0)
		SKIP("needs root to give a file to group kvm and drop to uid 65534");
	gr = getgrnam("kvm");
	if (!gr)
		SKIP("no group kvm on this host");
	CHECK(test_tmpdir_file("kvmdev", 0660, path, sizeof(path)));
	CHECK(chown(path, 0, gr->gr_gid) == 0);
	CHECK(chmod(test_tmpdir, 0755) == 0);
	CHECK_EQ(test_decide_as_nobody(path, &d, &ret), 0);
	pw = getpwuid(65534);
	snprintf(user, sizeof(user), "%s", pw ? pw->pw_name : "uid 65534");
	CHECK_EQ(ret, -EACCES);
	snprintf(want, sizeof(want),
		 "--vhost-net on: %s cannot be opened: Permission denied for "
		 "user %s; the device is root:kvm mode 0660. Add %s to group "
		 "kvm, or start with --vhost-net off.", path, user, user);
	if (strcmp(d.msg, want))
		fprintf(stderr, "  got:  %s\n  want: %s\n", d.msg, want);
	CHECK(!strcmp(d.msg, want));
}

int main(void)
{
	test_tmpdir_make();
	if (!test_tmpdir[0]) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_permission_denied_kvm_group);
	test_tmpdir_remove();
	return test_exit();
}
