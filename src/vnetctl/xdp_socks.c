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
 * 2. makes one AF_XDP socket per queue pair and sends them with the
 *    request (SCM_RIGHTS, ctl_query_fds());
 * 3. vnetd registers its UMEM on each, maps the rings, binds queue
 *    xdp-queue + pair and answers;
 * 4. on "ok", vnetctl puts each socket (still open here: the same socket)
 *    in the XSKMAP at its queue id and closes its copies. Until then the
 *    interface's frames go to the kernel stack (the program's fallback).
 *
 * queues= and xdp-queue= are added to the spec when absent (1 and 0), so
 * vnetctl and vnetd agree on how many sockets and which queues.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/socket.h>
#ifdef VNET_HAVE_LIBXDP
#include <bpf/bpf.h>
#include <xdp/xsk.h>
#endif

#include "xdp_socks.h"

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

/**
 * xdp_socks_make() - Load the program, make the sockets @spec needs
 * @spec:	The port spec; queues= and xdp-queue= are appended to @out
 *		when absent
 * @out:	The spec to send (@outlen bytes)
 * @outlen:	Its size
 * @xs:		Filled: one socket per queue pair, the XSKMAP
 * @err:	Why not, for the user (@errlen bytes)
 * @errlen:	Its size
 *
 * Return: 0, or -errno with @err set (nothing left open)
 */
int xdp_socks_make(const char *spec, char *out, size_t outlen,
		   struct xdp_socks *xs, char *err, size_t errlen)
{
	char v[64];
	int n;

	memset(xs, 0, sizeof(*xs));
	xs->map_fd = -1;
	xs->npairs = 1;
	if (xdp_socks_key(spec, "queues", v, sizeof(v)) &&
	    !xdp_socks_num(v, 1, XDP_SOCKS_MAX, &xs->npairs)) {
		snprintf(err, errlen, "queues=%s: use 1..%u", v, XDP_SOCKS_MAX);
		return -EINVAL;
	}
	if (xdp_socks_key(spec, "xdp-queue", v, sizeof(v)) &&
	    !xdp_socks_num(v, 0, 1023, &xs->first)) {
		snprintf(err, errlen, "xdp-queue=%s: use 0..1023", v);
		return -EINVAL;
	}
	if (!xdp_socks_key(spec, "xdp-if", xs->ifname, sizeof(xs->ifname)) ||
	    !xs->ifname[0]) {
		snprintf(err, errlen, "backend=af_xdp needs xdp-if=IF, the interface to attach to");
		return -EINVAL;
	}
	n = snprintf(out, outlen, "%s%s%s", spec,
		     xdp_socks_key(spec, "queues", v, sizeof(v)) ? "" : ",queues=1",
		     xdp_socks_key(spec, "xdp-queue", v, sizeof(v)) ? "" : ",xdp-queue=0");
	if (n < 0 || (size_t)n >= outlen) {
		snprintf(err, errlen, "spec too long");
		return -E2BIG;
	}
#ifdef VNET_HAVE_LIBXDP
	{
		unsigned int ifindex = if_nametoindex(xs->ifname);
		int ret;

		if (!ifindex) {
			snprintf(err, errlen, "xdp-if=%s: no such interface (ip link)",
				 xs->ifname);
			return -ENODEV;
		}
		ret = xsk_setup_xdp_prog((int)ifindex, &xs->map_fd);
		if (ret) {
			xs->map_fd = -1;
			snprintf(err, errlen, "af_xdp %s: loading the XDP redirect program: %s%s",
				 xs->ifname, strerror(ret < 0 ? -ret : EINVAL),
				 ret == -EPERM ? " (run vnetctl as root: CAP_BPF, CAP_NET_ADMIN)" : "");
			return ret < 0 ? ret : -EINVAL;
		}
		for (xs->n = 0; xs->n < xs->npairs; xs->n++) {
			xs->fds[xs->n] = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
			if (xs->fds[xs->n] < 0) {
				ret = -errno;
				snprintf(err, errlen, "socket(AF_XDP): %s%s", strerror(-ret),
					 ret == -EPERM ? " (run vnetctl as root: CAP_NET_RAW)" : "");
				xdp_socks_close(xs);
				return ret;
			}
		}
		return 0;
	}
#else
	snprintf(err, errlen, "vnetctl built without libxdp/libbpf: it cannot make AF_XDP sockets (apt-get install libxdp-dev libbpf-dev; make)");
	return -EOPNOTSUPP;
#endif
}

/**
 * xdp_socks_insert() - Put the sockets vnetd bound in the XSKMAP
 * @xs:		From xdp_socks_make()
 * @err:	Why not (@errlen bytes)
 * @errlen:	Its size
 *
 * Return: 0 or -errno with @err set
 */
int xdp_socks_insert(struct xdp_socks *xs, char *err, size_t errlen)
{
#ifdef VNET_HAVE_LIBXDP
	unsigned int i;
	uint32_t key;

	for (i = 0; i < xs->n; i++) {
		key = xs->first + i;
		if (bpf_map_update_elem(xs->map_fd, &key, &xs->fds[i], 0)) {
			snprintf(err, errlen, "af_xdp %s queue %u: adding the socket to the XSKMAP: %s",
				 xs->ifname, key, strerror(errno));
			return -errno;
		}
	}
	return 0;
#else
	(void)xs;
	snprintf(err, errlen, "built without libxdp");
	return -EOPNOTSUPP;
#endif
}
