/* SPDX-License-Identifier: MIT */
/*
 * vu_backend.h - the vhost-user device (backend side) of one port, one
 * connection at a time: create, connect, handle each message, disconnect,
 * and the state status reads. Implemented by vu_backend.c (the dispatcher)
 * on the vu_dev_* layers below it (vu_dev_core.h).
 *
 * Users: vnetd's port.c (one device per port) creates and destroys it,
 * hands it each accepted or dialled socket (vu_dev_connect()) framed
 * through the port's non-blocking struct vu_conn (vu_dev_set_conn()),
 * calls vu_dev_handle() when main.c's epoll loop finds the socket
 * readable, and vu_dev_disconnect() on an error or hangup; vnetd's
 * metrics.c reads the offered and acked features and the pairs' counters
 * and status. tests/unit/test_vu_backend.c drives vu_dev_handle() over a
 * socketpair with worker threads on a fake host; the fuzzer
 * (fuzz/fuzz_vu_dispatch.c) calls vu_dev_dispatch() directly on a device
 * made with no workers (struct vu_dev_cfg @no_workers).
 */
#ifndef VNET_VU_BACKEND_H
#define VNET_VU_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "pair.h"
#include "vu_dev_cfg.h"

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

uint64_t vu_dev_acked_features(const struct vu_dev *d);
bool vu_dev_log_state(const struct vu_dev *d, uint64_t *pages);

/* Below vu_dev_handle(): one message already received (tests, fuzzer) */
int vu_dev_dispatch(struct vu_dev *d, struct vu_msg *m);

#endif /* VNET_VU_BACKEND_H */
