/* SPDX-License-Identifier: MIT */
/*
 * sandbox.h - least privilege after setup: no_new_privs, no capabilities,
 * a Landlock filesystem view, a seccomp filter from the #syscalls: tags.
 */
#ifndef VNETD_SANDBOX_H
#define VNETD_SANDBOX_H

#include <stdbool.h>

struct vnetd_cfg;

int sandbox_enter(const struct vnetd_cfg *cfg);
bool sandbox_entered(void);
int sandbox_seccomp(void);

#endif /* VNETD_SANDBOX_H */
