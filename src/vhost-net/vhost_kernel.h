/* SPDX-License-Identifier: MIT */
/*
 * vhost_kernel.h - thin, checked wrappers around the Linux /dev/vhost-net
 * ioctls. Every function returns 0 (or an fd) or -errno and never logs.
 * Addresses handed to the kernel are always OUR addresses (vnetd's mapping
 * of guest memory, vnetd's ring pointers), never the frontend's.
 *
 * Users: vhost_mode.c (probe), vhost_pair.c (per queue pair offload).
 */
#ifndef VNET_VHOST_KERNEL_H
#define VNET_VHOST_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "gmem.h"

#define VHOST_KERNEL_DEV		"/dev/vhost-net"
#define VHOST_KERNEL_MAX_REGIONS_PATH	"/sys/module/vhost/parameters/max_mem_regions"
/* drivers/vhost/vhost.c: max_mem_regions defaults to 64 */
#define VHOST_KERNEL_DEFAULT_REGIONS	64

int vhost_kernel_open(const char *path);
void vhost_kernel_close(int fd);
int vhost_kernel_set_owner(int fd);
int vhost_kernel_get_features(int fd, uint64_t *features);
int vhost_kernel_set_features(int fd, uint64_t features);
unsigned int vhost_kernel_max_mem_regions(const char *path);
int vhost_kernel_set_mem_table(int fd, const struct gmem *m,
			       unsigned int max_regions);
int vhost_kernel_set_vring_num(int fd, unsigned int idx, unsigned int num);
int vhost_kernel_set_vring_base(int fd, unsigned int idx, unsigned int base);
int vhost_kernel_get_vring_base(int fd, unsigned int idx, unsigned int *base);
int vhost_kernel_set_vring_addr(int fd, unsigned int idx, const void *desc,
				const void *avail, const void *used,
				uint64_t log_used_gpa, bool log);
int vhost_kernel_set_vring_kick(int fd, unsigned int idx, int efd);
int vhost_kernel_set_vring_call(int fd, unsigned int idx, int efd);
int vhost_kernel_set_vring_err(int fd, unsigned int idx, int efd);
int vhost_kernel_net_set_backend(int fd, unsigned int idx, int tap_fd);
int vhost_kernel_set_log_base(int fd, const void *log);
int vhost_kernel_set_log_fd(int fd, int efd);

#endif /* VNET_VHOST_KERNEL_H */
