/* SPDX-License-Identifier: MIT */
/*
 * vhost_mode.h - the `--vhost-net auto|on|off` decision for a port, made
 * once at port start before any feature is offered, and the feature rules
 * that follow from it. Pure logic plus one probe of the device; no state
 * beyond the struct vhost_decision the caller keeps.
 */
#ifndef VNET_VHOST_MODE_H
#define VNET_VHOST_MODE_H

#include <stdbool.h>
#include <stdint.h>

enum vhost_mode {
	VHOST_MODE_AUTO = 0,	/* use vhost-net when it works, else userspace */
	VHOST_MODE_ON,		/* require it: the port refuses to start without */
	VHOST_MODE_OFF,		/* never touch the device */
};

#define VHOST_MODE_REASON_LEN	96	/* fits struct vnet_pair's @why */
#define VHOST_MODE_MSG_LEN	512

/**
 * struct vhost_decision - What vhost_mode_decide() found, kept for the port's
 *			   lifetime and never recomputed
 * @mode:	What the operator asked for
 * @use:	true: offer the offload-compatible features and offload each
 *		queue pair at ring start (it may still fall back per connection)
 * @err:	-errno of the failed probe step, 0 if none failed
 * @kernel_features: VHOST_GET_FEATURES of the probe (0 unless @use)
 * @max_regions: the vhost module's max_mem_regions (0 unless @use)
 * @dev:	Device path probed
 * @reason:	One line for logs and status: why this data path
 * @msg:	Operator message when @mode is on and the device is unusable
 *		(names the device, the error and what to do), else ""
 */
struct vhost_decision {
	enum vhost_mode mode;
	bool use;
	int err;
	uint64_t kernel_features;
	unsigned int max_regions;
	char dev[64];
	char reason[VHOST_MODE_REASON_LEN];
	char msg[VHOST_MODE_MSG_LEN];
};

int vhost_mode_parse(const char *s, enum vhost_mode *mode);
const char *vhost_mode_name(enum vhost_mode mode);
int vhost_mode_decide(struct vhost_decision *d, enum vhost_mode mode,
		      const char *dev, const char *max_regions_path);
uint64_t vhost_mode_ring_bits(void);
uint64_t vhost_mode_features(uint64_t offered, uint64_t kernel);
uint64_t vhost_mode_kernel_features(uint64_t negotiated, uint64_t kernel);
unsigned int vhost_mode_max_mem_slots(const struct vhost_decision *d,
				      unsigned int userspace_max);

#endif /* VNET_VHOST_MODE_H */
