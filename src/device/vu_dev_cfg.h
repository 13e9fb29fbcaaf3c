/* SPDX-License-Identifier: MIT */
/*
 * vu_dev_cfg.h - a vhost-user port's fixed device configuration, decided
 * at start. Below every layer of the device (vu_dev_core.h and up) and
 * part of the public API through vu_backend.h.
 */
#ifndef VNET_VU_DEV_CFG_H
#define VNET_VU_DEV_CFG_H

#include <stdbool.h>
#include <stdint.h>

#include "host.h"
#include "worker.h"
#include "vhost_mode.h"

/**
 * struct vu_dev_cfg - A port's fixed configuration, decided at start
 * @name:		Port name for log lines and status
 * @queues:		Queue pairs the frontend may use (1..VNET_MAX_PAIRS)
 * @features_mask:	virtio feature bits the operator allows (--features)
 * @mac:		MAC for the config space
 * @mtu:		MTU for the config space and NET_SET_MTU checks (0: none)
 * @host:		Opened host side
 * @wopts:		Data path options
 * @no_workers:		Start no worker threads (tests, fuzzer): the device
 *			state machine runs, no ring is ever served
 * @vhost:		The port's --vhost-net decision (vhost_mode_decide(),
 *			made once before the device exists; must outlive it),
 *			NULL: userspace data path only
 * @config_space:	Offer VHOST_USER_PROTOCOL_F_CONFIG (GET/SET_CONFIG).
 *			Off by default: QEMU's vhost-user-net does not use
 *			it and warns once per queue pair when it is offered
 */
struct vu_dev_cfg {
	const char *name;
	unsigned int queues;
	uint64_t features_mask;
	uint8_t mac[6];
	uint16_t mtu;
	struct host *host;
	struct worker_opts wopts;
	bool no_workers;
	const struct vhost_decision *vhost;
	bool config_space;
};

#endif /* VNET_VU_DEV_CFG_H */
