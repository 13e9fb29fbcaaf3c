/* SPDX-License-Identifier: MIT */
/*
 * vhost_port.h - the kernel vhost-net offload as one port's control plane
 * sees it: the decision made once at port start, and per connection which
 * queue pairs the kernel runs, with the fallback to the userspace path.
 * vu_backend calls one function per vhost-user event (docs/vhost-net.md);
 * everything else (ioctl order, feature rules) lives in vhost_pair and
 * vhost_mode.
 *
 * Context: control thread only, each pair paused on the userspace side
 * while its functions run.
 */
#ifndef VNET_VHOST_PORT_H
#define VNET_VHOST_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "gmem.h"
#include "pair.h"
#include "vhost_mode.h"
#include "vhost_pair.h"

/**
 * struct vhost_port - One port's offload state
 * @name:	Port name for log lines
 * @dev:	Device path (tests inject one), NULL for /dev/vhost-net
 * @vk:		The decision, made by vhost_port_init() and never recomputed
 * @fallback:	The kernel refused something on this connection: every pair
 *		runs on the userspace path until the frontend disconnects
 * @hold:	A hand-over to or from another vnetd is under way
 *		(vhost_port_hold()): no pair is given to the kernel until
 *		vhost_port_unhold()
 * @pending:	Pairs vhost_port_unhold() gives to the kernel, bit i: pair i
 * @o:		Per queue pair offload
 */
struct vhost_port {
	const char *name;
	const char *dev;
	struct vhost_decision vk;
	bool fallback;
	bool hold;
	uint64_t pending;
	struct vhost_pair o[VNET_MAX_PAIRS];
};

int vhost_port_mode_check(enum vhost_mode mode, const char *backend);
int vhost_port_decide(struct vhost_decision *d, enum vhost_mode mode,
		      const char *dev, const char *backend, bool have_queue_fd);
int vhost_port_init(struct vhost_port *vp, const char *name,
		    enum vhost_mode mode, const char *dev, bool have_queue_fd);
void vhost_port_adopt(struct vhost_port *vp, const char *name,
		      const struct vhost_decision *d, const char *dev);
uint64_t vhost_port_features(const struct vhost_port *vp, uint64_t offered);
unsigned int vhost_port_max_mem_slots(const struct vhost_port *vp,
				      unsigned int userspace_max);
bool vhost_port_offloaded(const struct vhost_port *vp, unsigned int pair);
int vhost_port_pair_start(struct vhost_port *vp, struct vnet_pair *p,
			  const struct gmem *m, int tap_fd,
			  const struct gmem_log *log, int log_fd);
int vhost_port_ring_stop(struct vhost_port *vp, struct vnet_pair *p,
			 unsigned int idx);
int vhost_port_ring_enable(struct vhost_port *vp, struct vnet_pair *p,
			   unsigned int idx, bool enable);
int vhost_port_ring_addr(struct vhost_port *vp, struct vnet_pair *p);
int vhost_port_ring_fds(struct vhost_port *vp, struct vnet_pair *p,
			unsigned int idx);
int vhost_port_set_mem(struct vhost_port *vp, struct vnet_pair *pairs,
		       unsigned int npairs, const struct gmem *m);
int vhost_port_set_log(struct vhost_port *vp, struct vnet_pair *pairs,
		       unsigned int npairs, const struct gmem *m,
		       const struct gmem_log *log, int log_fd);
void vhost_port_hold(struct vhost_port *vp);
int vhost_port_stop_all(struct vhost_port *vp, struct vnet_pair *pairs,
			unsigned int npairs, struct reason *why);
unsigned int vhost_port_unhold(struct vhost_port *vp, struct vnet_pair *pairs,
			       unsigned int npairs, const struct gmem *m,
			       const int *tap_fds, const struct gmem_log *log,
			       int log_fd);
void vhost_port_disconnect(struct vhost_port *vp, struct vnet_pair *pairs,
			   unsigned int npairs);

#endif /* VNET_VHOST_PORT_H */
