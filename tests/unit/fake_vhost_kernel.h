/* SPDX-License-Identifier: MIT */
/*
 * fake_vhost_kernel.h - an in-memory /dev/vhost-net for unit tests: the
 * whole vhost_kernel.h API, defined in the test program itself so that the
 * linker takes it instead of libvnet.a's vhost_kernel.o. It keeps what the
 * kernel keeps per device (owner, per ring size, position, kick, backend)
 * and follows the kernel rules the offload relies on (drivers/vhost): one
 * owner (SET_OWNER twice is -EBUSY, nothing else before it is -EPERM), the
 * base cannot move under an attached backend (-EBUSY). While a ring is
 * attached the "kernel" moves fake_moved frames: its position advances by
 * that much when the TAP is detached.
 *
 * Include it in exactly one test program.
 */
#ifndef VNET_FAKE_VHOST_KERNEL_H
#define VNET_FAKE_VHOST_KERNEL_H

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "vhost_kernel.h"

#define FAKE_VK_DEVS		8
#define FAKE_VK_FEATURES	0x33d008000ULL	/* what Linux 6.1 reports */

/**
 * struct fake_vk - One open fake device
 * @fd:		Its descriptor (an eventfd, so that leaks show), -1: free
 * @owner:	SET_OWNER done
 * @num:	Per ring: SET_VRING_NUM
 * @base:	Per ring: the position (SET_VRING_BASE, moved while attached)
 * @kick:	Per ring: SET_VRING_KICK fd
 * @backend:	Per ring: attached TAP fd, -1: none
 */
struct fake_vk {
	int fd;
	bool owner;
	unsigned int num[2];
	unsigned int base[2];
	int kick[2];
	int backend[2];
};

static struct fake_vk fake_vk[FAKE_VK_DEVS];
static unsigned int fake_moved;		/* frames per ring per attached period */
static int fake_open_err;		/* next open fails with this */
static int fake_get_base_err;		/* next GET_VRING_BASE fails with this */
static unsigned int fake_opens;		/* devices opened so far */

static void fake_vk_reset(void)
{
	unsigned int i;

	/* before the first case: nothing open yet, every slot free */
	for (i = 0; i < FAKE_VK_DEVS; i++) {
		memset(&fake_vk[i], 0, sizeof(fake_vk[i]));
		fake_vk[i].fd = -1;
		fake_vk[i].backend[0] = fake_vk[i].backend[1] = -1;
	}
	fake_moved = 0;
	fake_open_err = fake_get_base_err = 0;
	fake_opens = 0;
}

/* The open device, or NULL */
static struct fake_vk *fake_vk_of(int fd)
{
	unsigned int i;

	for (i = 0; fd >= 0 && i < FAKE_VK_DEVS; i++)
		if (fake_vk[i].fd == fd)
			return &fake_vk[i];
	return NULL;
}

/* How many devices are open now */
static unsigned int fake_vk_open_count(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < FAKE_VK_DEVS; i++)
		n += fake_vk[i].fd >= 0;
	return n;
}

/* The one open device (the tests offload one pair), or NULL */
static struct fake_vk *fake_vk_only(void)
{
	unsigned int i;

	if (fake_vk_open_count() != 1)
		return NULL;
	for (i = 0; i < FAKE_VK_DEVS; i++)
		if (fake_vk[i].fd >= 0)
			return &fake_vk[i];
	return NULL;
}

/* The device of @fd if it has an owner, and a ring index in range */
static int fake_vk_ring(int fd, unsigned int idx, struct fake_vk **out)
{
	struct fake_vk *v = fake_vk_of(fd);

	if (!v)
		return -EBADF;
	if (!v->owner)
		return -EPERM;
	if (idx > 1)
		return -ENOBUFS;
	*out = v;
	return 0;
}

int vhost_kernel_open(const char *path)
{
	unsigned int i;
	int fd;

	(void)path;
	if (fake_open_err) {
		fd = fake_open_err;
		fake_open_err = 0;
		return fd;
	}
	for (i = 0; i < FAKE_VK_DEVS && fake_vk[i].fd >= 0; i++)
		;
	if (i == FAKE_VK_DEVS)
		return -EMFILE;
	fd = eventfd(0, EFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	memset(&fake_vk[i], 0, sizeof(fake_vk[i]));
	fake_vk[i].fd = fd;
	fake_vk[i].backend[0] = fake_vk[i].backend[1] = -1;
	fake_vk[i].kick[0] = fake_vk[i].kick[1] = -1;
	fake_opens++;
	return fd;
}

void vhost_kernel_close(int fd)
{
	struct fake_vk *v = fake_vk_of(fd);

	if (v)
		v->fd = -1;
	if (fd >= 0)
		close(fd);
}

int vhost_kernel_set_owner(int fd)
{
	struct fake_vk *v = fake_vk_of(fd);

	if (!v)
		return -EBADF;
	if (v->owner)
		return -EBUSY;
	v->owner = true;
	return 0;
}

int vhost_kernel_get_features(int fd, uint64_t *features)
{
	struct fake_vk *v;
	int ret = fake_vk_ring(fd, 0, &v);

	if (!ret)
		*features = FAKE_VK_FEATURES;
	return ret;
}

int vhost_kernel_set_features(int fd, uint64_t features)
{
	struct fake_vk *v;

	return features & ~FAKE_VK_FEATURES ? -EOPNOTSUPP :
	       fake_vk_ring(fd, 0, &v);
}

unsigned int vhost_kernel_max_mem_regions(const char *path)
{
	(void)path;
	return VHOST_KERNEL_DEFAULT_REGIONS;
}

int vhost_kernel_set_mem_table(int fd, const struct gmem *m,
			       unsigned int max_regions)
{
	struct fake_vk *v;

	return m->nregions > max_regions ? -E2BIG : fake_vk_ring(fd, 0, &v);
}

int vhost_kernel_set_vring_num(int fd, unsigned int idx, unsigned int num)
{
	struct fake_vk *v;
	int ret = fake_vk_ring(fd, idx, &v);

	if (!ret)
		v->num[idx] = num;
	return ret;
}

int vhost_kernel_set_vring_base(int fd, unsigned int idx, unsigned int base)
{
	struct fake_vk *v;
	int ret = fake_vk_ring(fd, idx, &v);

	if (ret)
		return ret;
	if (v->backend[idx] >= 0)
		return -EBUSY;
	v->base[idx] = base;
	return 0;
}

int vhost_kernel_get_vring_base(int fd, unsigned int idx, unsigned int *base)
{
	struct fake_vk *v;
	int ret = fake_vk_ring(fd, idx, &v);

	if (!ret && fake_get_base_err) {
		ret = fake_get_base_err;
		fake_get_base_err = 0;
	}
	if (!ret)
		*base = v->base[idx];
	return ret;
}

int vhost_kernel_set_vring_addr(int fd, unsigned int idx, const void *desc,
				const void *avail, const void *used,
				uint64_t log_used_gpa, bool log)
{
	struct fake_vk *v;

	(void)log_used_gpa;
	(void)log;
	return !desc || !avail || !used ? -EFAULT : fake_vk_ring(fd, idx, &v);
}

int vhost_kernel_set_vring_kick(int fd, unsigned int idx, int efd)
{
	struct fake_vk *v;
	int ret = fake_vk_ring(fd, idx, &v);

	if (!ret)
		v->kick[idx] = efd;
	return ret;
}

int vhost_kernel_set_vring_call(int fd, unsigned int idx, int efd)
{
	struct fake_vk *v;

	(void)efd;
	return fake_vk_ring(fd, idx, &v);
}

int vhost_kernel_set_vring_err(int fd, unsigned int idx, int efd)
{
	struct fake_vk *v;

	(void)efd;
	return fake_vk_ring(fd, idx, &v);
}

int vhost_kernel_net_set_backend(int fd, unsigned int idx, int tap_fd)
{
	struct fake_vk *v;
	int ret = fake_vk_ring(fd, idx, &v);

	if (ret)
		return ret;
	if (v->backend[idx] >= 0 && tap_fd < 0)	/* what it moved meanwhile */
		v->base[idx] = (v->base[idx] + fake_moved) & 0xffff;
	v->backend[idx] = tap_fd;
	return 0;
}

int vhost_kernel_set_log_base(int fd, const void *log)
{
	struct fake_vk *v;

	(void)log;
	return fake_vk_ring(fd, 0, &v);
}

int vhost_kernel_set_log_fd(int fd, int efd)
{
	struct fake_vk *v;

	(void)efd;
	return fake_vk_ring(fd, 0, &v);
}

#endif /* VNET_FAKE_VHOST_KERNEL_H */
