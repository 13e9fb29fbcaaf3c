/* SPDX-License-Identifier: MIT */
/*
 * host_tap.h - what the tap host offers beyond struct host_ops (host.h):
 * the control thread's view of a TAP whose link is down. Only a caller
 * that knows a port may be a TAP needs this; every other host answers
 * "no" through the same call.
 */
#ifndef VNET_HOST_TAP_H
#define VNET_HOST_TAP_H

#include "host.h"

const char *host_tap_take_eio(struct host *host);

#endif /* VNET_HOST_TAP_H */
