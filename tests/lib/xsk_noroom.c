// SPDX-License-Identifier: MIT
/*
 * xsk_noroom.c - LD_PRELOAD shim for tests: the kernel's answer to a UMEM
 * registered with TX metadata room before 6.11. Those kernels know no
 * XDP_UMEM_TX_METADATA_LEN flag (struct xdp_umem_reg.flags, bit 2) and
 * refuse it with EINVAL; every other registration passes to the kernel.
 * vnetd-afxdp.sh runs vnetd and vnetctl with it to test their fallback to
 * sockets without the room (software checksums) on this 6.18 kernel.
 *
 * cc -shared -fPIC -o xsk_noroom.so tests/lib/xsk_noroom.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if_xdp.h>

#define NOROOM_FLAGS_OFF	24	/* struct xdp_umem_reg.flags */
#define NOROOM_TX_MD_LEN	(1u << 2)	/* XDP_UMEM_TX_METADATA_LEN */

typedef int (*setsockopt_fn)(int, int, int, const void *, socklen_t);

/**
 * setsockopt() - The libc call, but XDP_UMEM_REG with the metadata flag
 *		  fails as a kernel before 6.11 fails it
 * @fd:		Socket
 * @level:	Option level
 * @name:	Option
 * @val:	Value
 * @len:	Value bytes
 *
 * Return: -1 with errno EINVAL for a registration with the flag, else
 *	   what libc's setsockopt() returns
 */
int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	static setsockopt_fn real;
	uint32_t flags;

	if (!real)
		real = (setsockopt_fn)dlsym(RTLD_NEXT, "setsockopt");
	if (level == SOL_XDP && name == XDP_UMEM_REG && val &&
	    len >= NOROOM_FLAGS_OFF + sizeof(flags)) {
		memcpy(&flags, (const char *)val + NOROOM_FLAGS_OFF, sizeof(flags));
		if (flags & NOROOM_TX_MD_LEN) {
			errno = EINVAL;
			return -1;
		}
	}
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(fd, level, name, val, len);
}
