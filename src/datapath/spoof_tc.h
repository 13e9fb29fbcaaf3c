/* SPDX-License-Identifier: MIT */
/*
 * spoof_tc.h - a port's anti-spoofing policy (spoof.h) for frames that do
 * not cross vnetd (the kernel's vhost-net writes them to the TAP): the same
 * checks as a classic BPF program for a tc ingress filter on the TAP.
 */
#ifndef VNET_SPOOF_TC_H
#define VNET_SPOOF_TC_H

#include <stddef.h>
#include <linux/filter.h>

#include "reason.h"
#include "spoof.h"

#define SPOOF_TC_MAX_INSNS	BPF_MAXINSNS
#define SPOOF_TC_PREF		7	/* the filter's tc priority on the TAP */

int spoof_tc_prog(const struct spoof_policy *p, struct sock_filter *prog,
		  unsigned int max);
int spoof_tc_bytecode(const struct sock_filter *prog, unsigned int n,
		      char *buf, size_t len);
int spoof_tc_install(const char *dev, const struct spoof_policy *p,
		     struct reason *why);

#endif /* VNET_SPOOF_TC_H */
