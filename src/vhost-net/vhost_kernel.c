// SPDX-License-Identifier: MIT
/*
 * vhost_kernel.c - the /dev/vhost-net ioctls, one checked wrapper each.
 *
 * What this layer does: turn our structures (struct gmem, our ring
 * pointers, eventfds, a TAP queue fd) into the kernel's vhost ABI
 * (linux/vhost.h) and report failures as -errno.
 *
 * What it leaves to others: deciding whether to use vhost-net at all
 * (vhost_mode.c), the order of the calls for a queue pair and the fallback
 * (vhost_pair.c), logging (the caller that decides logs once).
 *
 * Security model: nothing here reads guest memory. The kernel validates
 * every address it is given against the memory table; we only make sure
 * the table we hand over holds our own mappings and is within the module's
 * region limit, so a frontend cannot make the kernel touch memory outside
 * what it shared with us.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/vhost.h>

#include "util.h"
#include "vhost_kernel.h"

/* #syscalls: openat ioctl close read pread64 fstat newfstatat lseek */

/**
 * vhost_kernel_open() - Open the vhost-net character device
 * @path:	Device path, NULL for VHOST_KERNEL_DEV
 *
 * Return: the fd (close-on-exec, non-blocking) or -errno
 */
int vhost_kernel_open(const char *path)
{
	int fd = open(path ? path : VHOST_KERNEL_DEV, O_RDWR | O_CLOEXEC |
		      O_NONBLOCK);

	return fd < 0 ? -errno : fd;
}

/**
 * vhost_kernel_close() - Close a vhost-net fd; the kernel stops its worker
 *			  and drops the backend and every eventfd reference
 * @fd:		fd from vhost_kernel_open(), negative: nothing to do
 */
void vhost_kernel_close(int fd)
{
	if (fd >= 0)
		close(fd);
}

/* One place that turns an ioctl result into 0 / -errno */
static int vhost_kernel_ioctl(int fd, unsigned long req, void *arg)
{
	if (fd < 0)
		return -EBADF;
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

/**
 * vhost_kernel_set_owner() - Bind the device to the calling process (its mm)
 * @fd:		vhost-net fd
 *
 * Return: 0 or -errno (-EBUSY if already owned)
 */
int vhost_kernel_set_owner(int fd)
{
	return vhost_kernel_ioctl(fd, VHOST_SET_OWNER, NULL);
}

/**
 * vhost_kernel_get_features() - Feature bits the kernel's vhost-net supports
 * @fd:		vhost-net fd
 * @features:	Output
 *
 * Return: 0 or -errno
 */
int vhost_kernel_get_features(int fd, uint64_t *features)
{
	__u64 f = 0;
	int ret = vhost_kernel_ioctl(fd, VHOST_GET_FEATURES, &f);

	if (!ret)
		*features = f;
	return ret;
}

/**
 * vhost_kernel_set_features() - Acknowledge feature bits
 * @fd:		vhost-net fd
 * @features:	Must be a subset of what vhost_kernel_get_features() gave;
 *		without VHOST_NET_F_VIRTIO_NET_HDR the TAP owns the header
 *
 * Return: 0 or -errno (-EOPNOTSUPP for unknown bits)
 */
int vhost_kernel_set_features(int fd, uint64_t features)
{
	__u64 f = features;

	return vhost_kernel_ioctl(fd, VHOST_SET_FEATURES, &f);
}

/**
 * vhost_kernel_max_mem_regions() - The vhost module's memory region limit
 * @path:	Parameter file, NULL for VHOST_KERNEL_MAX_REGIONS_PATH
 *
 * Return: the value of the parameter when readable and sane, otherwise
 *	   VHOST_KERNEL_DEFAULT_REGIONS; never more than GMEM_MAX_REGIONS
 */
unsigned int vhost_kernel_max_mem_regions(const char *path)
{
	unsigned int v = VHOST_KERNEL_DEFAULT_REGIONS;
	FILE *f = fopen(path ? path : VHOST_KERNEL_MAX_REGIONS_PATH, "re");

	if (f) {
		if (fscanf(f, "%u", &v) != 1 || v == 0)
			v = VHOST_KERNEL_DEFAULT_REGIONS;
		fclose(f);
	}
	return v > GMEM_MAX_REGIONS ? GMEM_MAX_REGIONS : v;
}

/**
 * vhost_kernel_set_mem_table() - Hand our mapping of guest memory to the kernel
 * @fd:		vhost-net fd
 * @m:		Memory table; each region's @host (our address) becomes the
 *		kernel's userspace_addr
 * @max_regions: Limit from vhost_kernel_max_mem_regions()
 *
 * Context: control thread; allocates the ioctl argument.
 * Return: 0, -E2BIG if @m has more than @max_regions regions, -EINVAL if a
 *	   region is not mapped by us, -ENOMEM, or the kernel's -errno
 */
int vhost_kernel_set_mem_table(int fd, const struct gmem *m,
			       unsigned int max_regions)
{
	struct vhost_memory *vm;
	uint32_t i;
	int ret;

	if (m->nregions > max_regions || m->nregions > GMEM_MAX_REGIONS)
		return -E2BIG;
	vm = calloc(1, sizeof(*vm) + (size_t)m->nregions * sizeof(vm->regions[0]));
	if (!vm)
		return -ENOMEM;
	vm->nregions = m->nregions;
	for (i = 0; i < m->nregions; i++) {
		const struct gmem_region *r = &m->regions[i];

		if (!r->host || !r->size ||
		    add_overflows(r->gpa, r->size - 1) ||
		    add_overflows((uintptr_t)r->host, r->size - 1)) {
			ret = -EINVAL;
			goto out_free;
		}
		vm->regions[i].guest_phys_addr = r->gpa;
		vm->regions[i].memory_size = r->size;
		vm->regions[i].userspace_addr = (uintptr_t)r->host;
	}
	ret = vhost_kernel_ioctl(fd, VHOST_SET_MEM_TABLE, vm);
out_free:
	free(vm);
	return ret;
}

/**
 * vhost_kernel_set_vring_num() - Set a ring's size (ring not attached)
 * @fd:		vhost-net fd
 * @idx:	0 = RX, 1 = TX of this fd's queue pair
 * @num:	Ring size
 *
 * Return: 0 or -errno (-EBUSY while a backend is attached)
 */
int vhost_kernel_set_vring_num(int fd, unsigned int idx, unsigned int num)
{
	struct vhost_vring_state s = { .index = idx, .num = num };

	return vhost_kernel_ioctl(fd, VHOST_SET_VRING_NUM, &s);
}

/**
 * vhost_kernel_set_vring_base() - Set where the kernel resumes (split: the
 *				   next avail index it reads)
 * @fd:		vhost-net fd
 * @idx:	0 = RX, 1 = TX
 * @base:	Position
 *
 * Return: 0 or -errno (-EBUSY while a backend is attached)
 */
int vhost_kernel_set_vring_base(int fd, unsigned int idx, unsigned int base)
{
	struct vhost_vring_state s = { .index = idx, .num = base };

	return vhost_kernel_ioctl(fd, VHOST_SET_VRING_BASE, &s);
}

/**
 * vhost_kernel_get_vring_base() - Read the kernel's ring position
 * @fd:		vhost-net fd
 * @idx:	0 = RX, 1 = TX
 * @base:	Output
 *
 * Detach the ring first (vhost_kernel_net_set_backend(fd, idx, -1)) so the
 * position cannot move after it was read.
 *
 * Return: 0 or -errno
 */
int vhost_kernel_get_vring_base(int fd, unsigned int idx, unsigned int *base)
{
	struct vhost_vring_state s = { .index = idx };
	int ret = vhost_kernel_ioctl(fd, VHOST_GET_VRING_BASE, &s);

	if (!ret)
		*base = s.num;
	return ret;
}

/**
 * vhost_kernel_set_vring_addr() - Tell the kernel where a split ring lives
 * @fd:		vhost-net fd
 * @idx:	0 = RX, 1 = TX
 * @desc:	Our address of the descriptor table
 * @avail:	Our address of the avail ring
 * @used:	Our address of the used ring
 * @log_used_gpa: Guest physical address of the used ring (dirty log)
 * @log:	Log used-ring writes (VHOST_VRING_F_LOG); needs the log base set
 *
 * Return: 0 or -errno (-EINVAL if the kernel finds the ring inaccessible)
 */
int vhost_kernel_set_vring_addr(int fd, unsigned int idx, const void *desc,
				const void *avail, const void *used,
				uint64_t log_used_gpa, bool log)
{
	struct vhost_vring_addr a = {
		.index = idx,
		.flags = log ? 1U << VHOST_VRING_F_LOG : 0,
		.desc_user_addr = (uintptr_t)desc,
		.avail_user_addr = (uintptr_t)avail,
		.used_user_addr = (uintptr_t)used,
		.log_guest_addr = log_used_gpa,
	};

	if (!desc || !avail || !used)
		return -EINVAL;
	return vhost_kernel_ioctl(fd, VHOST_SET_VRING_ADDR, &a);
}

/* KICK, CALL and ERR take the same argument: an eventfd or -1 to unset */
static int vhost_kernel_set_vring_fd(int fd, unsigned long req,
				     unsigned int idx, int efd)
{
	struct vhost_vring_file f = { .index = idx, .fd = efd < 0 ? -1 : efd };

	return vhost_kernel_ioctl(fd, req, &f);
}

/**
 * vhost_kernel_set_vring_kick() - The eventfd the driver kicks; the kernel
 *				   polls it itself
 * @fd:		vhost-net fd
 * @idx:	0 = RX, 1 = TX
 * @efd:	eventfd (the frontend's, passed straight through), -1 to unset
 *
 * Return: 0 or -errno
 */
int vhost_kernel_set_vring_kick(int fd, unsigned int idx, int efd)
{
	return vhost_kernel_set_vring_fd(fd, VHOST_SET_VRING_KICK, idx, efd);
}

/**
 * vhost_kernel_set_vring_call() - The eventfd the kernel signals on used
 * @fd:		vhost-net fd
 * @idx:	0 = RX, 1 = TX
 * @efd:	eventfd, -1 to unset
 *
 * Return: 0 or -errno
 */
int vhost_kernel_set_vring_call(int fd, unsigned int idx, int efd)
{
	return vhost_kernel_set_vring_fd(fd, VHOST_SET_VRING_CALL, idx, efd);
}

/**
 * vhost_kernel_set_vring_err() - The eventfd the kernel signals when the
 *				  guest gave it a bad ring
 * @fd:		vhost-net fd
 * @idx:	0 = RX, 1 = TX
 * @efd:	eventfd, -1 to unset
 *
 * Return: 0 or -errno
 */
int vhost_kernel_set_vring_err(int fd, unsigned int idx, int efd)
{
	return vhost_kernel_set_vring_fd(fd, VHOST_SET_VRING_ERR, idx, efd);
}

/**
 * vhost_kernel_net_set_backend() - Attach a TAP queue to a ring, or detach
 * @fd:		vhost-net fd
 * @idx:	0 = RX, 1 = TX
 * @tap_fd:	TAP queue fd (IFF_TAP | IFF_NO_PI | IFF_VNET_HDR), -1 detaches
 *
 * Attaching starts the kernel's data path on that ring; detaching stops it
 * and flushes the worker, after which the ring position is stable.
 *
 * Return: 0 or -errno (-EFAULT if the ring is not accessible, -ENOTSOCK if
 *	   @tap_fd is no TAP)
 */
int vhost_kernel_net_set_backend(int fd, unsigned int idx, int tap_fd)
{
	struct vhost_vring_file f = { .index = idx, .fd = tap_fd < 0 ? -1 : tap_fd };

	return vhost_kernel_ioctl(fd, VHOST_NET_SET_BACKEND, &f);
}

/**
 * vhost_kernel_set_log_base() - Where the dirty page bitmap is (our mapping)
 * @fd:		vhost-net fd
 * @log:	Our address of the bitmap (bit N = guest page N)
 *
 * Return: 0 or -errno
 */
int vhost_kernel_set_log_base(int fd, const void *log)
{
	__u64 base = (uintptr_t)log;

	return vhost_kernel_ioctl(fd, VHOST_SET_LOG_BASE, &base);
}

/**
 * vhost_kernel_set_log_fd() - eventfd the kernel signals after logging
 * @fd:		vhost-net fd
 * @efd:	eventfd, -1 to unset
 *
 * Return: 0 or -errno
 */
int vhost_kernel_set_log_fd(int fd, int efd)
{
	int v = efd < 0 ? -1 : efd;

	return vhost_kernel_ioctl(fd, VHOST_SET_LOG_FD, &v);
}
