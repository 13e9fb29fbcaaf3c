/* SPDX-License-Identifier: MIT */
/*
 * afxdp_room.h - how `vnetctl port add ...backend=af_xdp` tells vnetd that
 * the UMEMs it passes have TX metadata room (xsk_txmd.h): the request key
 * xdp-txmd=BYTES, which vnetctl adds and vnetd takes off the request
 * before parsing the port spec (afxdp_room.c). It is no port spec key:
 * --port, config lines and SIGHUP cannot claim room for sockets vnetd
 * makes itself, and a vnetd older than it refuses the request as an
 * unknown key (a UMEM with room makes the kernel refuse every TX frame of
 * a vnetd that does not start frames after it), which vnetctl recognises
 * (afxdp_room_refused()) and answers by passing sockets without room.
 *
 * Both makers of such UMEMs, vnetd for its own sockets and vnetctl for the
 * ones it passes, register them with afxdp_room_reg().
 */
#ifndef VNET_AFXDP_ROOM_H
#define VNET_AFXDP_ROOM_H

#include <stdbool.h>

#include "reason.h"

#define AFXDP_ROOM_KEY	"xdp-txmd"

bool afxdp_room_sw_csum(void);
int afxdp_room_reg(int sock, void *area, bool sw_csum);
int afxdp_room_take(char *spec, unsigned int *room, struct reason *why);
bool afxdp_room_refused(const char *reply);

#endif /* VNET_AFXDP_ROOM_H */
