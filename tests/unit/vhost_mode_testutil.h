/* SPDX-License-Identifier: MIT */
/*
 * vhost_mode_testutil.h - stand-ins for /dev/vhost-net (files with a mode
 * in a private temporary directory) and the `on` decision taken as uid
 * 65534, for test_vhost_mode (tests/unit) and its root-only case
 * (tests/system/test_vhost_mode_root.c). Bodies: vhost_mode_testutil.c.
 */
#ifndef VNET_VHOST_MODE_TESTUTIL_H
#define VNET_VHOST_MODE_TESTUTIL_H

#include <stddef.h>
#include <sys/types.h>

#include "vhost_mode.h"

/* the directory test_tmpdir_make() made, "" when none */
extern char test_tmpdir[64];

void test_tmpdir_make(void);
void test_tmpdir_remove(void);
const char *test_tmpdir_file(const char *name, mode_t mode, char *path,
			     size_t len);
int test_decide_as_nobody(const char *path, struct vhost_decision *d,
			  int *ret);

#endif /* VNET_VHOST_MODE_TESTUTIL_H */
