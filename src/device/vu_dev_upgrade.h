/* SPDX-License-Identifier: MIT */
/*
 * vu_dev_upgrade.h - a vhost-user device handed from one vnetd process to
 * the next (docs/vnetd.md "Upgrading without downtime"): quiesce, export
 * the connection's state into a struct upgrade_dev (upgrade_state.h) and,
 * in the new process, import it into a fresh device. Implemented by
 * vu_dev_upgrade.c on the device layers (vu_dev_core.h); used by vnetd's
 * upgrade.c only.
 */
#ifndef VNET_VU_DEV_UPGRADE_H
#define VNET_VU_DEV_UPGRADE_H

#include "reason.h"
#include "upgrade_state.h"

struct host;
struct net_scratch;
struct vnet_pair;
struct vu_dev;

void vu_dev_quiesce(struct vu_dev *d);
void vu_dev_unquiesce(struct vu_dev *d);
unsigned int vu_dev_drain_host(struct vu_dev *d, struct net_scratch *s);
int vu_dev_drain_pair(struct vnet_pair *p, struct host *host,
		    struct net_scratch *s);
int vu_dev_export(struct vu_dev *d, struct upgrade_state *st,
		  struct upgrade_dev *out, struct reason *why);
int vu_dev_import(struct vu_dev *d, struct upgrade_state *st,
		  const struct upgrade_dev *in, struct reason *why);

#endif /* VNET_VU_DEV_UPGRADE_H */
