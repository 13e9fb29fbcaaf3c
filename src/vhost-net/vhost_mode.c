// SPDX-License-Identifier: MIT
/*
 * vhost_mode.c - decide, once per port and before any feature is offered,
 * whether its queue pairs run on the kernel's vhost-net or on vnetd's own
 * userspace data path, and what that means for the feature bits.
 *
 * What this layer does: parse `--vhost-net auto|on|off`; probe the device
 * (open, VHOST_SET_OWNER, VHOST_GET_FEATURES) at an injectable path; record
 * the decision with a one-line reason and, for `on`, an operator message
 * that names the device, the error and the fix; compute the offered and the
 * kernel-acked feature sets as pure functions.
 *
 * What it leaves to others: logging (the port logs d->reason once),
 * offloading the rings (vhost_pair.c), the ioctls (vhost_kernel.c).
 *
 * Nothing here reads guest or frontend data.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/vhost.h>
#include <linux/virtio_config.h>
#include <linux/virtio_net.h>
#include <linux/virtio_ring.h>

#include "devperm.h"
#include "util.h"
#include "vhost_kernel.h"
#include "vhost_mode.h"

#ifndef VIRTIO_F_NOTIFICATION_DATA
#define VIRTIO_F_NOTIFICATION_DATA	38
#endif

/*
 * Ring-level bits the kernel's vhost-net implements itself: offered only if
 * VHOST_GET_FEATURES has them (the same list QEMU's vhost-net keeps as its
 * kernel_feature_bits). Every other device bit (checksum and segmentation
 * offloads, MAC, STATUS, MQ, CTRL_VQ, MTU) is done by the TAP or by vnetd's
 * control plane and passes through.
 */
static const uint64_t vhost_mode_kernel_ring_bits =
	BIT(VIRTIO_F_NOTIFY_ON_EMPTY) | BIT(VIRTIO_F_ANY_LAYOUT) |
	BIT(VIRTIO_RING_F_INDIRECT_DESC) | BIT(VIRTIO_RING_F_EVENT_IDX) |
	BIT(VIRTIO_F_VERSION_1) | BIT(VIRTIO_NET_F_MRG_RXBUF) |
	BIT(VHOST_F_LOG_ALL);

/*
 * Never offered while offloading: packed ring and IN_ORDER (vnetd's rings
 * and the kernel's must agree on one layout for reconnect and fallback, and
 * we only translate split rings for it), ACCESS_PLATFORM (would need IOTLB
 * messages we do not relay), NOTIFICATION_DATA and RING_RESET (the kernel
 * does not take them through this interface), hash report / RSS (vhost-net
 * neither fills the hash nor steers).
 */
static const uint64_t vhost_mode_never_bits =
	BIT(VIRTIO_F_RING_PACKED) | BIT(VIRTIO_F_IN_ORDER) |
	BIT(VIRTIO_F_ACCESS_PLATFORM) | BIT(VIRTIO_F_NOTIFICATION_DATA) |
	BIT(VIRTIO_F_RING_RESET) | BIT(VIRTIO_NET_F_HASH_REPORT) |
	BIT(VIRTIO_NET_F_RSS);

/**
 * vhost_mode_parse() - Parse the argument of --vhost-net
 * @s:		"auto", "on" or "off" (case-insensitive)
 * @mode:	Output
 *
 * Return: 0 or -EINVAL
 */
int vhost_mode_parse(const char *s, enum vhost_mode *mode)
{
	if (!s)
		return -EINVAL;
	if (!strcasecmp(s, "auto"))
		*mode = VHOST_MODE_AUTO;
	else if (!strcasecmp(s, "on"))
		*mode = VHOST_MODE_ON;
	else if (!strcasecmp(s, "off"))
		*mode = VHOST_MODE_OFF;
	else
		return -EINVAL;
	return 0;
}

/**
 * vhost_mode_name() - The option value for a mode
 * @mode:	Mode
 *
 * Return: "auto", "on", "off" or "?"
 */
const char *vhost_mode_name(enum vhost_mode mode)
{
	switch (mode) {
	case VHOST_MODE_AUTO:
		return "auto";
	case VHOST_MODE_ON:
		return "on";
	case VHOST_MODE_OFF:
		return "off";
	}
	return "?";
}

/*
 * Texts may be cut at the buffer's end; that is fine for a log line, and
 * going through a va_list keeps -Wformat-truncation from flagging it.
 */
static void PRINTF_FMT(3, 4) vhost_mode_say(char *buf, size_t len,
					    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* The device could not be opened: missing, permission, or other */
static void vhost_mode_open_failed(struct vhost_decision *d, int err)
{
	struct devperm dp;
	char user[64];

	if (err == -ENOENT || err == -ENXIO || err == -ENODEV) {
		vhost_mode_say(d->reason, sizeof(d->reason), "%s missing (%s)",
			 d->dev, strerror(-err));
		vhost_mode_say(d->msg, sizeof(d->msg),
			 "--vhost-net on: %s is missing (%s). Load the module "
			 "with `modprobe vhost_net`, or start with "
			 "--vhost-net off.", d->dev, strerror(-err));
		return;
	}
	if (err != -EACCES && err != -EPERM) {
		vhost_mode_say(d->reason, sizeof(d->reason), "%s: open failed: %s",
			 d->dev, strerror(-err));
		vhost_mode_say(d->msg, sizeof(d->msg),
			 "--vhost-net on: %s cannot be opened: %s. Check the "
			 "device and `modprobe vhost_net`, or start with "
			 "--vhost-net off.", d->dev, strerror(-err));
		return;
	}
	devperm_user(geteuid(), user, sizeof(user));
	vhost_mode_say(d->reason, sizeof(d->reason), "%s: %s for user %s",
		 d->dev, strerror(-err), user);
	if (devperm_stat(d->dev, &dp)) {
		vhost_mode_say(d->msg, sizeof(d->msg),
			 "--vhost-net on: %s cannot be opened: %s for user %s. "
			 "Add %s to group kvm, or start with --vhost-net off.",
			 d->dev, strerror(-err), user, user);
		return;
	}
	vhost_mode_say(d->msg, sizeof(d->msg),
		 "--vhost-net on: %s cannot be opened: %s for user %s; the "
		 "device is %s:%s mode %04o. Add %s to group kvm%s%s%s, or "
		 "start with --vhost-net off.",
		 d->dev, strerror(-err), user, dp.owner, dp.group,
		 (unsigned int)(dp.mode & 07777), user,
		 strcmp(dp.group, "kvm") ? " (or to the device's group " : "",
		 strcmp(dp.group, "kvm") ? dp.group : "",
		 strcmp(dp.group, "kvm") ? ")" : "");
}

/* An ioctl on the opened device failed */
static void vhost_mode_ioctl_failed(struct vhost_decision *d, int fd,
				    const char *what, int err)
{
	const char *hint = "";
	struct stat st;

	if (!fstat(fd, &st) && !S_ISCHR(st.st_mode))
		hint = S_ISREG(st.st_mode) ?
		       " (it is a regular file, not the vhost-net device)" :
		       " (it is not a character device)";
	vhost_mode_say(d->reason, sizeof(d->reason), "%s: %s failed: %s",
		 d->dev, what, strerror(-err));
	vhost_mode_say(d->msg, sizeof(d->msg),
		 "--vhost-net on: %s is unusable: %s failed: %s%s. Check that "
		 "it is the vhost-net device (char 10:238, `modprobe "
		 "vhost_net`), or start with --vhost-net off.",
		 d->dev, what, strerror(-err), hint);
}

/* open, VHOST_SET_OWNER, VHOST_GET_FEATURES; fills d->err and the texts */
static void vhost_mode_probe(struct vhost_decision *d)
{
	uint64_t features = 0;
	int fd, ret;

	fd = vhost_kernel_open(d->dev);
	if (fd < 0) {
		d->err = fd;
		vhost_mode_open_failed(d, fd);
		return;
	}
	ret = vhost_kernel_set_owner(fd);
	if (ret) {
		d->err = ret;
		vhost_mode_ioctl_failed(d, fd, "VHOST_SET_OWNER", ret);
		goto out_close;
	}
	ret = vhost_kernel_get_features(fd, &features);
	if (ret) {
		d->err = ret;
		vhost_mode_ioctl_failed(d, fd, "VHOST_GET_FEATURES", ret);
		goto out_close;
	}
	d->use = true;
	d->kernel_features = features;
	vhost_mode_say(d->reason, sizeof(d->reason),
		 "%s ready, kernel features 0x%llx", d->dev,
		 (unsigned long long)features);
out_close:
	vhost_kernel_close(fd);
}

/**
 * vhost_mode_decide() - Decide a port's data path, once, at port start
 * @d:		Decision to fill (kept by the port, never recomputed)
 * @mode:	--vhost-net value
 * @dev:	Device to probe, NULL for VHOST_KERNEL_DEV (tests inject one)
 * @max_regions_path: max_mem_regions parameter file, NULL for the default
 *
 * off never touches the device. auto and on probe it with open,
 * VHOST_SET_OWNER and VHOST_GET_FEATURES, then close it (each queue pair
 * opens its own fd at ring start).
 *
 * Context: control thread, before any feature is offered to a frontend.
 * Return: 0 if the port may start (d->use says which data path), or, for
 *	   on only, the probe's -errno with d->msg for the operator
 */
int vhost_mode_decide(struct vhost_decision *d, enum vhost_mode mode,
		      const char *dev, const char *max_regions_path)
{
	memset(d, 0, sizeof(*d));
	d->mode = mode;
	snprintf(d->dev, sizeof(d->dev), "%s", dev ? dev : VHOST_KERNEL_DEV);
	if (mode == VHOST_MODE_OFF) {
		vhost_mode_say(d->reason, sizeof(d->reason), "--vhost-net off");
		return 0;
	}
	vhost_mode_probe(d);
	if (d->use) {
		d->max_regions = vhost_kernel_max_mem_regions(max_regions_path);
		return 0;
	}
	if (mode == VHOST_MODE_ON)
		return d->err ? d->err : -ENODEV;
	d->msg[0] = '\0';
	return 0;
}

/**
 * vhost_mode_ring_bits() - Feature bits the kernel must implement itself
 *
 * Return: the mask; negotiated bits in it that VHOST_GET_FEATURES lacks
 *	   make an offload impossible
 */
uint64_t vhost_mode_ring_bits(void)
{
	return vhost_mode_kernel_ring_bits;
}

/**
 * vhost_mode_features() - Features to offer a frontend when offloading
 * @offered:	What vnetd offers on the userspace path (after --features)
 * @kernel:	VHOST_GET_FEATURES
 *
 * Return: @offered without the ring bits the kernel lacks and without the
 *	   bits never offered while offloading (packed ring, IN_ORDER, ...)
 */
uint64_t vhost_mode_features(uint64_t offered, uint64_t kernel)
{
	uint64_t missing = vhost_mode_kernel_ring_bits & ~kernel;

	return offered & ~missing & ~vhost_mode_never_bits;
}

/**
 * vhost_mode_kernel_features() - What to VHOST_SET_FEATURES for a pair
 * @negotiated:	What the frontend acked (SET_FEATURES)
 * @kernel:	VHOST_GET_FEATURES of that pair's fd
 *
 * Device bits are the TAP's business and vhost-user bits are ours, so only
 * the kernel's own bits are passed, and never VHOST_NET_F_VIRTIO_NET_HDR:
 * the TAP (IFF_VNET_HDR) carries the header, the kernel must not add one.
 *
 * Return: the bits to acknowledge to the kernel
 */
uint64_t vhost_mode_kernel_features(uint64_t negotiated, uint64_t kernel)
{
	uint64_t f = negotiated & kernel;

	/* VIRTIO_F_ANY_LAYOUT shares bit 27; VERSION_1 implies it anyway */
	return f & ~BIT(VHOST_NET_F_VIRTIO_NET_HDR);
}

/**
 * vhost_mode_max_mem_slots() - What GET_MAX_MEM_SLOTS should report
 * @d:		The port's decision
 * @userspace_max: The userspace path's limit
 *
 * Return: the smaller of @userspace_max and the kernel's max_mem_regions
 *	   when offload is possible, else @userspace_max
 */
unsigned int vhost_mode_max_mem_slots(const struct vhost_decision *d,
				      unsigned int userspace_max)
{
	if (!d->use || !d->max_regions)
		return userspace_max;
	return d->max_regions < userspace_max ? d->max_regions : userspace_max;
}
