/* SPDX-License-Identifier: MIT */
/*
 * netif.h - facts about a host network interface read from sysfs, for the
 * host sides that attach to one (af_xdp) and the planner that sizes it.
 */
#ifndef VNET_NETIF_H
#define VNET_NETIF_H

#define NETIF_SYSFS	"/sys/class/net"

int netif_rx_queues(const char *sysfs_net, const char *ifname);

#endif /* VNET_NETIF_H */
