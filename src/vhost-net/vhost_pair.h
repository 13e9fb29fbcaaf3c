/* SPDX-License-Identifier: MIT */
/*
 * vhost_pair.h - hand one queue pair's rings to the kernel's vhost-net:
 * one /dev/vhost-net fd per pair, bound to that pair's TAP queue. The
 * frontend's kick and call eventfds go straight to the kernel, so vnetd's
 * worker never sees the pair's traffic.
 *
 * Called by the control thread (vu_backend) only, with the pair paused on
 * the userspace side. Every failure returns -errno and leaves a one-line
 * reason in o->why (a struct reason), so the caller can fall back to the
 * userspace path for that connection (under --vhost-net auto) or refuse
 * (under on).
 */
#ifndef VNET_VHOST_PAIR_H
#define VNET_VHOST_PAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "gmem.h"
#include "pair.h"
#include "reason.h"
#include "vhost_mode.h"

#define VHOST_OFFLOAD_RX	0	/* vhost-net's ring index of vq 2i */
#define VHOST_OFFLOAD_TX	1	/* ... and of vq 2i + 1 */

/**
 * struct vhost_pair - One queue pair running on the kernel's vhost-net
 * @fd:		/dev/vhost-net fd, -1 when not running
 * @tap_fd:	The pair's TAP queue fd (not ours: never closed here)
 * @kernel_features: VHOST_GET_FEATURES of @fd
 * @acked:	What VHOST_SET_FEATURES was given (without VHOST_F_LOG_ALL)
 * @attached:	Per ring: TAP attached, the kernel moves frames
 * @stopped:	Per ring: position read back, the ring is the caller's again
 * @logging:	Dirty logging on
 * @max_regions: The module's max_mem_regions
 * @why:	Why the last call failed (@why.err its -errno), or what runs
 *		(@why.err 0)
 */
struct vhost_pair {
	int fd;
	int tap_fd;
	uint64_t kernel_features;
	uint64_t acked;
	bool attached[2];
	bool stopped[2];
	bool logging;
	unsigned int max_regions;
	struct reason why;
};

void vhost_pair_init(struct vhost_pair *o);
bool vhost_pair_running(const struct vhost_pair *o);
int vhost_pair_start(struct vhost_pair *o, const char *dev,
			struct vnet_pair *p, const struct gmem *m,
			unsigned int max_regions, int tap_fd,
			const struct gmem_log *log, int log_fd);
int vhost_pair_ring_stop(struct vhost_pair *o, unsigned int ring,
			    uint32_t *base);
int vhost_pair_ring_enable(struct vhost_pair *o, unsigned int ring,
			      bool enable);
int vhost_pair_stop(struct vhost_pair *o, struct vnet_pair *p);
int vhost_pair_set_ring_fds(struct vhost_pair *o, unsigned int ring,
			       const struct vnet_ring *r);
int vhost_pair_set_ring_addr(struct vhost_pair *o, struct vnet_pair *p);
int vhost_pair_set_mem(struct vhost_pair *o, struct vnet_pair *p,
			  const struct gmem *m);
int vhost_pair_set_log(struct vhost_pair *o, struct vnet_pair *p,
			  const struct gmem *m, const struct gmem_log *log,
			  int log_fd);

#endif /* VNET_VHOST_PAIR_H */
