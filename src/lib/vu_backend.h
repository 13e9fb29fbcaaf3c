/* SPDX-License-Identifier: MIT */
/*
 * vu_backend.h - the vhost-user device (backend side) of one port: the
 * table-driven dispatcher and the device state machine. The daemon owns the
 * sockets and the event loop; this layer owns one connection's state.
 */
#ifndef VNET_VU_BACKEND_H
#define VNET_VU_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "host.h"
#include "worker.h"
#include "vhost_mode.h"

/**
 * struct vu_dev_cfg - A port's fixed configuration, decided at start
 * @name:		Port name for log lines and status
 * @queues:		Queue pairs the frontend may use (1..PORT_MAX_PAIRS)
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
};

struct vu_dev;
struct vu_msg;
struct vu_conn;

int vu_dev_create(struct vu_dev **d, const struct vu_dev_cfg *cfg);
void vu_dev_destroy(struct vu_dev *d);
void vu_dev_connect(struct vu_dev *d, int sock);
void vu_dev_set_conn(struct vu_dev *d, struct vu_conn *c);
int vu_dev_handle(struct vu_dev *d);
void vu_dev_disconnect(struct vu_dev *d);
bool vu_dev_connected(const struct vu_dev *d);
int vu_dev_sock(const struct vu_dev *d);
uint64_t vu_dev_offered_features(const struct vu_dev *d);
struct vnet_pair *vu_dev_pairs(struct vu_dev *d, unsigned int *npairs);

/* Internal entry points, for the unit tests and the fuzzer */
int vu_dev_dispatch(struct vu_dev *d, struct vu_msg *m);
uint64_t vu_dev_acked_features(const struct vu_dev *d);

#endif /* VNET_VU_BACKEND_H */
