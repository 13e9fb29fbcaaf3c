/* SPDX-License-Identifier: MIT */
/*
 * uplink.h - a switch's uplink: one member of a switch (switch.h) whose
 * far side is a host interface (a TAP today) instead of a guest, so that
 * the switch joins the host's bridge or fabric. Declared with the switch
 * (--switch NAME,uplink=tap:IFNAME); one per switch; served by a thread
 * of its own (uplink.c).
 */
#ifndef VNET_UPLINK_H
#define VNET_UPLINK_H

#include <net/if.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "host.h"
#include "reason.h"
#include "switch.h"

/**
 * struct uplink_stats - Frames through the uplink's interface (relaxed
 *			 atomics: its thread writes, status reads)
 * @from_host:	Frames read from the interface and handed to the switch
 * @to_host:	Frames the switch sent out through the interface
 * @host_drops:	Frames for the interface it refused (EIO: link down,
 *		or another write error)
 * @host_errors: Reads from the interface that failed or were cut (a
 *		frame longer than the interface's largest)
 */
struct uplink_stats {
	_Atomic uint64_t from_host;
	_Atomic uint64_t to_host;
	_Atomic uint64_t host_drops;
	_Atomic uint64_t host_errors;
};

/**
 * struct uplink - One switch's uplink
 * @sw:		Its switch
 * @kind:	"tap" (the only kind today)
 * @ifname:	The interface
 * @vlans:	The VLANs it carries (default: access VLAN 1)
 * @host:	The interface's host side (the tap host, one queue)
 * @m:		Its member of @sw, NULL until uplink_start()
 * @stop_fd:	eventfd that tells the thread to end
 * @thread:	The thread that reads and writes @host (valid if @running)
 * @running:	@thread was started
 * @buf:	The thread's frame buffers (UPLINK_BATCH for the interface,
 *		one from it), allocated by uplink_start()
 * @st:		Counters
 */
struct uplink {
	struct vswitch *sw;
	const char *kind;
	char ifname[IFNAMSIZ];
	struct sw_vlans vlans;
	struct host host;
	struct sw_member *m;
	int stop_fd;
	pthread_t thread;
	bool running;
	uint8_t *buf;
	struct uplink_stats st;
};

int uplink_declare(const char *spec, struct reason *why);
int uplink_start(struct reason *why);
void uplink_stop(void);
const struct uplink *uplink_at(unsigned int i);

#endif /* VNET_UPLINK_H */
