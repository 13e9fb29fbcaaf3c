// SPDX-License-Identifier: MIT
/*
 * host_tap.c - the tap host: one IFF_MULTI_QUEUE TAP queue fd per pair,
 * IFF_VNET_HDR so the virtio-net header (and with it checksum and TSO
 * offloads) crosses into the host stack untouched. Queues are opened by
 * interface name (created, or attached to a persistent TAP, which works
 * unprivileged when the TAP is owned by our user) or adopted from the
 * parent (--tap-fd).
 *
 * Frames move with one readv/writev syscall straight from and to guest memory;
 * guest TX bursts may instead go through the worker's io_uring (tx_batch,
 * tap_uring.c): one syscall for the burst.
 * The tun driver cannot tell the length of the next frame, so
 * rx_peek_len() says -EOPNOTSUPP and net.c offers room for the largest one
 * plus a byte: a frame that fills the buffers completely was truncated.
 * Adopted fds belong to the parent: close() leaves them open.
 *
 * A TAP this file creates is brought up (IFF_UP) at once: a down TAP fails
 * every write with EIO. One that existed already is left as the operator
 * set it; a write failing with EIO raises a flag (one store, no syscall)
 * that host_tap_take_eio() lets the control thread turn into a log line.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>

#include "host.h"
#include "host_priv.h"
#include "host_tap.h"
#include "reason.h"
#include "tap_uring.h"
#include "util.h"

/* #syscalls: read write readv writev ioctl */

/*
 * readv()/writev() through syscall(): glibc's wrappers are cancellation
 * points and switch the thread's cancel type around every call (about 4 %
 * of vnetd's CPU at 200 kpps from a TAP). Nothing cancels a worker.
 */
static ssize_t host_tap_iov(long nr, int fd, const struct iovec *iov,
			    unsigned int iovcnt)
{
	return syscall(nr, fd, iov, iovcnt);
}

#define TAP_OFFLOADS	(TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN)

/**
 * struct tap_priv - The TAP queues of one port
 * @fds:	Queue fd of each pair
 * @adopted:	Fds came from the parent: not ours to close
 * @npairs:	Queues open
 * @name:	Interface name, for messages
 * @eio:	A write failed with EIO (link down) since host_tap_take_eio()
 */
struct tap_priv {
	int fds[VNET_MAX_PAIRS];
	bool adopted;
	bool eio;
	unsigned int npairs;
	char name[IFNAMSIZ];
};

static void host_tap_close(struct host *host)
{
	struct tap_priv *p = host->priv;
	unsigned int i;

	if (!p)
		return;
	for (i = 0; i < p->npairs; i++)
		if (!p->adopted && p->fds[i] >= 0)
			close(p->fds[i]);
	free(p);
	host->priv = NULL;
	host->npairs = 0;
}

/* What an operator can do about a TUNSETIFF failure */
static const char *host_tap_hint(int err)
{
	switch (err) {
	case EPERM:
	case EACCES:
		return "run as root or pre-create a persistent TAP owned by "
		       "this user (ip tuntap add dev NAME mode tap multi_queue "
		       "user USER)";
	case EBUSY:
	case EINVAL:
		return "the interface exists with other flags or is in use: "
		       "it must be a TAP created with multi_queue (ip tuntap "
		       "add dev NAME mode tap multi_queue)";
	default:
		return "check the interface name and /dev/net/tun";
	}
}

/* Open one queue of @p->name (empty: let the kernel pick and remember it) */
static int host_tap_open_queue(struct tap_priv *p, struct reason *why)
{
	struct ifreq ifr;
	int fd, ret;

	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR | IFF_MULTI_QUEUE;
	memcpy(ifr.ifr_name, p->name, sizeof(ifr.ifr_name));
	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		return reason_set(why, ret, "tap %s: open /dev/net/tun: %s: load the "
				  "tun module (modprobe tun) and check the device node "
				  "permissions", p->name[0] ? p->name : "(new)",
				  strerror(-ret));
	}
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		ret = -errno;
		close(fd);
		return reason_set(why, ret, "tap %s: TUNSETIFF: %s: %s",
				  p->name[0] ? p->name : "(new)", strerror(-ret),
				  host_tap_hint(-ret));
	}
	memcpy(p->name, ifr.ifr_name, sizeof(p->name));
	p->name[sizeof(p->name) - 1] = '\0';
	return fd;
}

/* Check that a parent's fd is a TAP queue with a vnet header */
static int host_tap_adopt(struct tap_priv *p, int fd, struct reason *why)
{
	struct ifreq ifr;
	int fl, ret;

	memset(&ifr, 0, sizeof(ifr));
	if (ioctl(fd, TUNGETIFF, &ifr) < 0) {
		ret = -errno;
		return reason_set(why, ret, "tap fd %d: TUNGETIFF: %s: --tap-fd must "
				  "be an open /dev/net/tun fd attached to a TAP", fd,
				  strerror(-ret));
	}
	ifr.ifr_name[IFNAMSIZ - 1] = '\0';
	if ((ifr.ifr_flags & (IFF_TUN | IFF_TAP)) != IFF_TAP)
		return reason_set(why, -EINVAL, "tap fd %d (%s): a TUN device, not a TAP: "
				  "open it with IFF_TAP", fd, ifr.ifr_name);
	if (!(ifr.ifr_flags & IFF_VNET_HDR))
		return reason_set(why, -EINVAL, "tap fd %d (%s): no IFF_VNET_HDR: open "
				  "the TAP with IFF_VNET_HDR (QEMU: vnet_hdr=on)", fd,
				  ifr.ifr_name);
	if (!(ifr.ifr_flags & IFF_NO_PI))
		return reason_set(why, -EINVAL, "tap fd %d (%s): packet information "
				  "header on: open the TAP with IFF_NO_PI", fd,
				  ifr.ifr_name);
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		ret = -errno;
		return reason_set(why, ret, "tap fd %d (%s): O_NONBLOCK: %s", fd,
				  ifr.ifr_name, strerror(-ret));
	}
	memcpy(p->name, ifr.ifr_name, sizeof(p->name));
	return 0;
}

/* Set IFF_UP on @name, as `ip link set NAME up` does */
static int host_tap_link_up(const char *name, struct reason *why)
{
	struct ifreq ifr;
	int s, ret = 0;

	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		goto err;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, name, IFNAMSIZ - 1);
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		goto err;
	if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
			goto err;
	}
	close(s);
	return 0;
err:
	ret = -errno;
	if (s >= 0)
		close(s);
	return reason_set(why, ret, "tap %s: cannot bring the link up: %s (needs CAP_NET_ADMIN)",
			  name, strerror(-ret));
}

static int host_tap_open(struct host *host, const struct host_cfg *cfg,
		       struct reason *why)
{
	bool created;
	struct tap_priv *p;
	unsigned int i;
	int ret;

	if (!cfg->npairs || cfg->npairs > VNET_MAX_PAIRS)
		return reason_set(why, -EINVAL, "tap: %u queue pairs: use 1..%u",
				  cfg->npairs, (unsigned int)VNET_MAX_PAIRS);
	if (cfg->ntap_fds && cfg->ntap_fds != cfg->npairs)
		return reason_set(why, -EINVAL, "tap: %u --tap-fd given for %u queue "
				  "pairs: give one fd per queue pair", cfg->ntap_fds,
				  cfg->npairs);
	if (cfg->tap_name && strlen(cfg->tap_name) >= IFNAMSIZ)
		return reason_set(why, -ENAMETOOLONG, "tap %s: name longer than %d characters",
				  cfg->tap_name, IFNAMSIZ - 1);
	p = calloc(1, sizeof(*p));
	if (!p)
		return reason_set(why, -ENOMEM, "tap: out of memory");
	host->priv = p;
	p->adopted = cfg->ntap_fds && cfg->tap_fds;
	if (cfg->tap_name)
		memcpy(p->name, cfg->tap_name, strlen(cfg->tap_name) + 1);
	created = !p->adopted && (!p->name[0] || !if_nametoindex(p->name));
	for (i = 0; i < cfg->npairs; i++) {
		if (p->adopted) {
			ret = host_tap_adopt(p, cfg->tap_fds[i], why);
			p->fds[i] = cfg->tap_fds[i];
		} else {
			ret = p->fds[i] = host_tap_open_queue(p, why);
		}
		if (ret < 0)
			goto err_close;
		p->npairs = i + 1;
	}
	if (created) {
		ret = host_tap_link_up(p->name, why);
		if (ret)
			goto err_close;
	}
	host->npairs = cfg->npairs;
	return 0;

err_close:
	host_tap_close(host);
	return ret;
}

/* Offloads the tun driver takes: try them on the first queue */
static uint64_t host_tap_host_features(struct host *host)
{
	struct tap_priv *p = host->priv;
	uint64_t f;

	if (!p || !p->npairs || ioctl(p->fds[0], TUNSETOFFLOAD, TAP_OFFLOADS) < 0)
		return 0;
	/* writes with any gso type are taken with IFF_VNET_HDR */
	f = BIT(VIRTIO_NET_F_CSUM) | BIT(VIRTIO_NET_F_HOST_TSO4) |
	    BIT(VIRTIO_NET_F_HOST_TSO6) | BIT(VIRTIO_NET_F_HOST_ECN) |
	    BIT(VIRTIO_NET_F_GUEST_CSUM) | BIT(VIRTIO_NET_F_GUEST_TSO4) |
	    BIT(VIRTIO_NET_F_GUEST_TSO6) | BIT(VIRTIO_NET_F_GUEST_ECN);
	if (ioctl(p->fds[0], TUNSETOFFLOAD, TAP_OFFLOADS | TUN_F_UFO) == 0)
		f |= BIT(VIRTIO_NET_F_HOST_UFO) | BIT(VIRTIO_NET_F_GUEST_UFO);
	/* until configure() says what the guest acked */
	if (ioctl(p->fds[0], TUNSETOFFLOAD, 0) < 0)
		return 0;
	return f;
}

/**
 * host_tap_offload_flags() - TUNSETOFFLOAD bits for guest-acked features
 * @features:	Negotiated virtio-net features
 *
 * The TAP may hand us what the guest can take on RX: GUEST_CSUM ->
 * TUN_F_CSUM, GUEST_TSO4/6 -> TUN_F_TSO4/6, GUEST_ECN -> TUN_F_TSO_ECN,
 * GUEST_UFO -> TUN_F_UFO. The tun driver ignores TSO without CSUM.
 *
 * Return: TUN_F_* flags
 */
unsigned int host_tap_offload_flags(uint64_t features)
{
	unsigned int fl = 0;

	if (!(features & BIT(VIRTIO_NET_F_GUEST_CSUM)))
		return 0;
	fl |= TUN_F_CSUM;
	if (features & BIT(VIRTIO_NET_F_GUEST_TSO4))
		fl |= TUN_F_TSO4;
	if (features & BIT(VIRTIO_NET_F_GUEST_TSO6))
		fl |= TUN_F_TSO6;
	if ((features & BIT(VIRTIO_NET_F_GUEST_ECN)) && (fl & (TUN_F_TSO4 | TUN_F_TSO6)))
		fl |= TUN_F_TSO_ECN;
	if (features & BIT(VIRTIO_NET_F_GUEST_UFO))
		fl |= TUN_F_UFO;
	return fl;
}

static int host_tap_configure(struct host *host, uint64_t features,
			    unsigned int hdr_len)
{
	struct tap_priv *p = host->priv;
	unsigned int fl = host_tap_offload_flags(features), i;
	int sz = (int)hdr_len;

	if (!p)
		return -EINVAL;
	for (i = 0; i < p->npairs; i++) {
		if (ioctl(p->fds[i], TUNSETVNETHDRSZ, &sz) < 0 ||
		    ioctl(p->fds[i], TUNSETOFFLOAD, fl) < 0)
			return -errno;
	}
	host->features = features;
	host->hdr_len = hdr_len;
	return 0;
}

/* A write ended with @res (bytes or -errno): -EIO means the link is down,
 * which the control thread is told (host_tap_take_eio()); never log here */
static inline void host_tap_write_failed(struct tap_priv *p, long res)
{
	if (res == -EIO && !__atomic_load_n(&p->eio, __ATOMIC_RELAXED))
		__atomic_store_n(&p->eio, true, __ATOMIC_RELAXED);
}

static ssize_t host_tap_tx(struct host *host, unsigned int pair,
			 const struct iovec *iov, unsigned int iovcnt)
{
	struct tap_priv *p = host->priv;
	ssize_t n;

	if (!p || pair >= p->npairs)
		return -EINVAL;
	n = host_tap_iov(SYS_writev, p->fds[pair], iov, iovcnt);
	if (n < 0) {
		host_tap_write_failed(p, -errno);
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	}
	return n;
}

/*
 * A burst through the thread's io_uring (tap_uring.c): independent writes,
 * so a refused frame is final. A tun queue's send buffer is INT_MAX
 * (tun_chr_open() sets sk_sndbuf), so a refusal is an error, not a full
 * queue: the frame is dropped, as any other failed write.
 */
static int host_tap_tx_batch(struct host *host, unsigned int pair,
			     struct tap_uring *ring, struct iovec *const *iov,
			     const unsigned int *cnt, unsigned int n, int *res)
{
	struct tap_priv *p = host->priv;
	unsigned int k;
	int ret;

	if (!p || pair >= p->npairs)
		return -EINVAL;
	ret = tap_uring_writev(ring, p->fds[pair], iov, cnt, n, res);
	if (ret)
		return ret;
	for (k = 0; k < n; k++)
		host_tap_write_failed(p, res[k]);
	return 0;
}

/**
 * host_tap_take_eio() - Has a write to the TAP failed with EIO (link down)?
 * @host:	Any host; only a tap host ever answers
 *
 * Clears the flag, so one episode gives one answer per call.
 *
 * Context: control (main) thread; the workers only set the flag
 * Return: the interface name if a write failed with EIO since the last
 *	   call, NULL otherwise
 */
const char *host_tap_take_eio(struct host *host)
{
	struct tap_priv *p = host->priv;

	if (host->ops != &host_tap_ops || !p)
		return NULL;
	if (!__atomic_exchange_n(&p->eio, false, __ATOMIC_RELAXED))
		return NULL;
	return p->name;
}

static ssize_t host_tap_rx(struct host *host, unsigned int pair,
			 const struct iovec *iov, unsigned int iovcnt)
{
	struct tap_priv *p = host->priv;
	size_t room = 0;
	unsigned int i;
	ssize_t n;

	if (!p || pair >= p->npairs)
		return -EINVAL;
	n = host_tap_iov(SYS_readv, p->fds[pair], iov, iovcnt);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	if (n == 0)
		return -EAGAIN;
	/*
	 * A frame that did not fit is cut: older kernels report its full
	 * length, newer ones what they copied. Callers offer one byte more
	 * than the largest frame they take, so a full buffer means "cut".
	 */
	for (i = 0; i < iovcnt; i++)
		room += iov[i].iov_len;
	if ((size_t)n >= room)
		return -EMSGSIZE;
	return n;
}

static ssize_t host_tap_rx_peek_len(struct host *host, unsigned int pair)
{
	(void)host;
	(void)pair;
	return -EOPNOTSUPP;
}

static int host_tap_fd(struct host *host, unsigned int pair)
{
	struct tap_priv *p = host->priv;

	if (!p || pair >= p->npairs)
		return -1;
	return p->fds[pair];
}

const struct host_ops host_tap_ops = {
	.name = "tap",
	.open = host_tap_open,
	.host_features = host_tap_host_features,
	.configure = host_tap_configure,
	.tx = host_tap_tx,
	.tx_batch = host_tap_tx_batch,
	.rx = host_tap_rx,
	.rx_peek_len = host_tap_rx_peek_len,
	.rx_fd = host_tap_fd,
	.queue_fd = host_tap_fd,
	.close = host_tap_close,
};
