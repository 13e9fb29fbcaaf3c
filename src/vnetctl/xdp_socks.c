// SPDX-License-Identifier: MIT
/*
 * xdp_socks.c - the privileged half of `vnetctl port add ...backend=af_xdp`.
 * A sandboxed vnetd has no capability left: it cannot make an AF_XDP
 * socket (CAP_NET_RAW), load the redirect program or update its XSKMAP
 * (bpf(): CAP_BPF where unprivileged BPF is off, and its seccomp list has
 * no bpf). So vnetctl, run as root:
 *
 * 1. loads libxdp's redirect program on the interface, or finds the one
 *    there (the same program vnetd loads at start), and keeps its XSKMAP;
 * 2. makes one AF_XDP socket per queue pair and registers on it a UMEM
 *    (afxdp_layout.h) in a memfd: the pages are pinned and charged to us
 *    (CAP_IPC_LOCK), not to vnetd's RLIMIT_MEMLOCK; the UMEM has
 *    XSK_TXMD_LEN bytes of TX metadata room where the kernel takes it
 *    (6.11), so that vnetd can ask the kernel for TX checksums, and
 *    XDP_UMEM_TX_SW_CSUM when VNETD_XDP_TX_SW_CSUM is set (vnetd's test
 *    switch); sends both per pair with the request (SCM_RIGHTS), which
 *    says xdp-txmd=16 when the UMEMs have the room (afxdp_room.h:
 *    cmd_port.c asks again without the room a vnetd that does not know
 *    the key);
 * 3. vnetd maps the memfd, sizes and maps the rings, binds queue
 *    xdp-queue + pair and answers;
 * 4. on "ok", vnetctl puts each socket (still open here: the same socket)
 *    in the XSKMAP at its queue id and closes its copies. Until then the
 *    interface's frames go to the kernel stack (the program's fallback).
 *
 * queues= and xdp-queue= are added to the spec when absent (1 and 0), so
 * vnetctl and vnetd agree on how many sockets and which queues.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/mman.h>
#include <sys/socket.h>
#ifdef VNET_HAVE_LIBXDP
#include <linux/if_xdp.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include <xdp/xsk.h>
#endif

#include "afxdp_layout.h"
#include "afxdp_room.h"
#include "reason.h"
#include "xdp_socks.h"
#include "xsk_txmd.h"

#ifndef AF_XDP
#define AF_XDP	44
#endif

/*
 * The value of @key in the comma-separated @spec into @out (@len bytes).
 * Return: true if the key is there
 */
static bool xdp_socks_key(const char *spec, const char *key, char *out,
			  size_t len)
{
	size_t klen = strlen(key), n;
	const char *s = spec, *end;

	while (*s) {
		end = strchr(s, ',');
		n = end ? (size_t)(end - s) : strlen(s);
		if (n > klen && !strncmp(s, key, klen) && s[klen] == '=') {
			n -= klen + 1;
			if (n >= len)
				n = len - 1;
			memcpy(out, s + klen + 1, n);
			out[n] = '\0';
			return true;
		}
		if (!end)
			break;
		s = end + 1;
	}
	return false;
}

/* @v as an unsigned in @lo..@hi into @out. Return: true if it is one */
static bool xdp_socks_num(const char *v, unsigned long lo, unsigned long hi,
			  unsigned int *out)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || end == v || *end || n < lo || n > hi || v[0] == '-')
		return false;
	*out = (unsigned int)n;
	return true;
}

/**
 * xdp_socks_wanted() - Does @spec ask for an af_xdp port?
 * @spec:	The port spec (KEY=VAL,...)
 *
 * Return: true for backend=af_xdp
 */
bool xdp_socks_wanted(const char *spec)
{
	char b[32];

	return xdp_socks_key(spec, "backend", b, sizeof(b)) && !strcmp(b, "af_xdp");
}

/**
 * xdp_socks_close() - Close what xdp_socks_make() opened
 * @xs:		Sockets and map (closed ones are -1)
 */
void xdp_socks_close(struct xdp_socks *xs)
{
	while (xs->n)
		close(xs->fds[--xs->n]);
	if (xs->map_fd >= 0)
		close(xs->map_fd);
	xs->map_fd = -1;
}

#ifdef VNET_HAVE_LIBXDP
/* libxdp's and libbpf's chatter (bpffs fallbacks): our errors say what failed */
static int xdp_socks_quiet(enum libxdp_print_level level, const char *fmt,
			   va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static int xdp_socks_bpf_quiet(enum libbpf_print_level level, const char *fmt,
			       va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/*
 * Register the UMEM at @m on @sock, with TX metadata room while @xs->room
 * asks for it and the kernel takes it (afxdp_room_reg(): 6.11). Return: 0
 * or -errno
 */
static int xdp_socks_reg(struct xdp_socks *xs, int sock, void *m,
			 struct reason *why)
{
	struct xdp_umem_reg mr = { .addr = (uint64_t)(uintptr_t)m,
				   .len = AFXDP_UMEM, .chunk_size = AFXDP_CHUNK };
	int ret;

	if (xs->room) {
		ret = afxdp_room_reg(sock, m, afxdp_room_sw_csum());
		if (ret != -EINVAL)
			return ret;
		if (xs->n > 2)	/* an earlier pair has the room: they would differ */
			return reason_set(why, -EINVAL, "af_xdp %s: the kernel took TX metadata room for the first queue pair, refused it for pair %u (EINVAL)",
					  xs->ifname, xs->n / 2 - 1);
		xs->room = 0;
		fprintf(stderr, "vnetctl port add: af_xdp %s: the kernel refused a UMEM with TX metadata room (EINVAL, it needs 6.11): registered without, vnetd sums checksums in software\n",
			xs->ifname);
	}
	return setsockopt(sock, SOL_XDP, XDP_UMEM_REG, &mr, sizeof(mr)) ? -errno : 0;
}

/*
 * One pair's socket and UMEM memfd, appended to @xs->fds.
 * Return: 0 or -errno with @why set
 */
static int xdp_socks_pair(struct xdp_socks *xs, struct reason *why)
{
	int sock, mfd, ret;
	void *m;

	sock = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (sock < 0) {
		ret = -errno;
		reason_set(why, ret, "socket(AF_XDP): %s%s", strerror(-ret),
			 ret == -EPERM ? " (run vnetctl as root: CAP_NET_RAW)" : "");
		return ret;
	}
	xs->fds[xs->n++] = sock;
	mfd = memfd_create("vnetd-umem", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	/* vnetd maps it only sealed: its size cannot change under it */
	if (mfd < 0 || ftruncate(mfd, (off_t)AFXDP_UMEM) ||
	    fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) {
		ret = -errno;
		reason_set(why, -EINVAL, "UMEM memfd of %zu bytes: %s", AFXDP_UMEM,
			 strerror(-ret));
		if (mfd >= 0)
			close(mfd);
		return ret;
	}
	xs->fds[xs->n++] = mfd;
	m = mmap(NULL, AFXDP_UMEM, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_POPULATE, mfd, 0);
	if (m == MAP_FAILED) {
		ret = -errno;
		reason_set(why, ret, "mapping the UMEM: %s", strerror(-ret));
		return ret;
	}
	/* the socket pins the pages; our mapping is no longer needed */
	reason_clear(why);
	ret = xdp_socks_reg(xs, sock, m, why);
	munmap(m, AFXDP_UMEM);
	if (ret && !why->msg[0])
		reason_set(why, ret, "registering the UMEM: %s%s", strerror(-ret),
			 ret == -ENOBUFS ? " (locked memory: run vnetctl as root, CAP_IPC_LOCK, or raise RLIMIT_MEMLOCK)" : "");
	return ret;
}
#endif

/**
 * xdp_socks_make() - Load the program, make the sockets @spec needs
 * @spec:	The port spec; queues= and xdp-queue= are appended to @out
 *		when absent
 * @out:	The spec to send (@outlen bytes)
 * @outlen:	Its size
 * @room:	Register the UMEMs with TX metadata room (@xs->room says
 *		whether the kernel took it; a refusal is one line on stderr)
 * @xs:		Filled: one socket per queue pair, the XSKMAP
 * @why:	Why not, for the user
 *
 * Return: 0, or -errno with @why set (nothing left open)
 */
int xdp_socks_make(const char *spec, char *out, size_t outlen, bool room,
		   struct xdp_socks *xs, struct reason *why)
{
	char v[64];
	int n;

	memset(xs, 0, sizeof(*xs));
	xs->map_fd = -1;
	xs->npairs = 1;
	xs->room = room ? XSK_TXMD_LEN : 0;
	if (xdp_socks_key(spec, "queues", v, sizeof(v)) &&
	    !xdp_socks_num(v, 1, XDP_SOCKS_MAX, &xs->npairs)) {
		reason_set(why, -EINVAL, "queues=%s: use 1..%u", v, XDP_SOCKS_MAX);
		return -EINVAL;
	}
	if (xdp_socks_key(spec, "xdp-queue", v, sizeof(v)) &&
	    !xdp_socks_num(v, 0, 1023, &xs->first)) {
		reason_set(why, -EINVAL, "xdp-queue=%s: use 0..1023", v);
		return -EINVAL;
	}
	if (!xdp_socks_key(spec, "xdp-if", xs->ifname, sizeof(xs->ifname)) ||
	    !xs->ifname[0]) {
		reason_set(why, -EINVAL, "backend=af_xdp needs xdp-if=IF, the interface to attach to");
		return -EINVAL;
	}
	n = snprintf(out, outlen, "%s%s%s", spec,
		     xdp_socks_key(spec, "queues", v, sizeof(v)) ? "" : ",queues=1",
		     xdp_socks_key(spec, "xdp-queue", v, sizeof(v)) ? "" : ",xdp-queue=0");
	if (n < 0 || (size_t)n >= outlen) {
		reason_set(why, -EINVAL, "spec too long");
		return -E2BIG;
	}
#ifdef VNET_HAVE_LIBXDP
	{
		unsigned int ifindex = if_nametoindex(xs->ifname), i;
		int ret;

		if (!ifindex) {
			reason_set(why, -ENODEV, "xdp-if=%s: no such interface (ip link)",
				 xs->ifname);
			return -ENODEV;
		}
		libxdp_set_print(xdp_socks_quiet);
		libbpf_set_print(xdp_socks_bpf_quiet);
		ret = xsk_setup_xdp_prog((int)ifindex, &xs->map_fd);
		if (ret) {
			xs->map_fd = -1;
			reason_set(why, -EINVAL, "af_xdp %s: loading the XDP redirect program: %s%s",
				 xs->ifname, strerror(ret < 0 ? -ret : EINVAL),
				 ret == -EPERM ? " (run vnetctl as root: CAP_BPF, CAP_NET_ADMIN)" : "");
			return ret < 0 ? ret : -EINVAL;
		}
		for (i = 0; i < xs->npairs; i++) {
			ret = xdp_socks_pair(xs, why);
			if (ret) {
				xdp_socks_close(xs);
				return ret;
			}
		}
		return 0;
	}
#else
	reason_set(why, -EOPNOTSUPP, "vnetctl built without libxdp/libbpf: it cannot make AF_XDP sockets (apt-get install libxdp-dev libbpf-dev; make)");
	return -EOPNOTSUPP;
#endif
}

/**
 * xdp_socks_insert() - Put the sockets vnetd bound in the XSKMAP
 * @xs:		From xdp_socks_make()
 * @why:	Why not
 *
 * Return: 0 or -errno with @why set
 */
int xdp_socks_insert(struct xdp_socks *xs, struct reason *why)
{
#ifdef VNET_HAVE_LIBXDP
	unsigned int i;
	uint32_t key;

	for (i = 0; i < xs->npairs; i++) {
		key = xs->first + i;
		if (bpf_map_update_elem(xs->map_fd, &key, &xs->fds[2 * i], 0)) {
			reason_set(why, -EINVAL, "af_xdp %s queue %u: adding the socket to the XSKMAP: %s",
				 xs->ifname, key, strerror(errno));
			return -errno;
		}
	}
	return 0;
#else
	(void)xs;
	reason_set(why, -EOPNOTSUPP, "built without libxdp");
	return -EOPNOTSUPP;
#endif
}
