/* SPDX-License-Identifier: MIT */
/*
 * vu_dev_net.h - the vhost-user device's virtio-net layer (vu_dev_net.c),
 * on vu_dev_mem: features, MQ, MTU, config space, RARP. Used by vu_backend
 * (the dispatcher) only; not library API.
 */
#ifndef VNET_VU_DEV_NET_H
#define VNET_VU_DEV_NET_H

#include "vu_dev_mem.h"

uint64_t vu_net_offer(const struct vu_dev_cfg *cfg);

/* Handlers, same signature as the dispatch table's (vu_backend.c) */
int vu_get_features(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_set_features(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_get_queue_num(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_send_rarp(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_net_set_mtu(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_get_config(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_set_config(struct vu_dev *d, struct vu_msg *m, unsigned int idx);

#endif /* VNET_VU_DEV_NET_H */
