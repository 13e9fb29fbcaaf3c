/* SPDX-License-Identifier: MIT */
/*
 * antispoof.h - --mac-lock/--allow-ip on the kernel vhost-net path
 * (antispoof.c)
 */
#ifndef VNETD_ANTISPOOF_H
#define VNETD_ANTISPOOF_H

#include <stdint.h>

#include "reason.h"

struct vnetd_port;

int antispoof_setup(struct vnetd_port *p, struct reason *why);
void antispoof_tick(struct vnetd_port *p, unsigned int i, uint64_t now_s);

#endif /* VNETD_ANTISPOOF_H */
