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
 * The tun driver cannot tell the length of the next frame, so without
 * frames held rx_peek_len() says -EOPNOTSUPP and net.c offers room for the
 * largest one plus a byte: a frame that fills the buffers completely was
 * truncated.
 *
 * RX through the worker's io_uring (rx_fill, "RX batch" below): one
 * io_uring_enter() reads up to RX_BATCH_MAX frames into this queue's own
 * buffers; rx_peek_len() then tells each one's length, so net.c pops the
 * guest buffers ahead and copies each frame into the chain that holds it.
 * One syscall a batch instead of one readv() a frame, for one copy of the
 * frame in our memory: small frames at high rates only. When to batch, and
 * how many reads a fill asks for, is rx_policy.h's (rx_batch_*()).
 * Adopted fds belong to the parent: close() leaves them open.
 *
 * A TAP this file creates gets its MAC from the guest's (mac_tap(): 0xfe
 * first, so that it never becomes a bridge's MAC) and is brought up (IFF_UP)
 * at once: a down TAP fails every write with EIO. One that existed already,
 * or came as fds, is left as the operator set it (MAC and link state); a write failing with EIO raises a flag (one store, no syscall)
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
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>

#include "host.h"
#include "host_priv.h"
#include "host_tap.h"
#include "mac.h"
#include "reason.h"
#include "rx_policy.h"
#include "tap_uring.h"
#include "util.h"
#include "vnet_hdr.h"

/* #syscalls: read write readv writev ioctl mmap munmap */

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

/*
 * RX batch buffers (when to batch and how many reads: rx_policy.h): each
 * buffer holds the largest frame with its header, and a byte to see a cut
 * one; their distance is not a multiple of 4 KiB, so the first cache lines
 * of the buffers do not all fall in one cache set.
 */
#define TAP_RX_SLOT		(VNET_FRAME_MAX + VNET_HDR_MAX + 1)
#define TAP_RX_STRIDE		((TAP_RX_SLOT + 4095) / 4096 * 4096 + 128)
_Static_assert(RX_BATCH_MAX <= TAP_URING_ENTRIES, "RX batch larger than the ring");

/**
 * struct tap_rxq - One queue's RX batch (worker thread of the pair only)
 * @buf:	RX_BATCH_MAX buffers, TAP_RX_STRIDE apart (reserved, pages
 *		committed as frames touch them)
 * @len:	Held frame k: its length, or -EMSGSIZE if it was cut
 * @slot:	Held frame k: the buffer it is in
 * @at:		Next held frame to give
 * @n:		Frames held
 * @pol:	When to batch and how many reads (rx_policy.h)
 */
struct tap_rxq {
	uint8_t *buf;
	int32_t len[RX_BATCH_MAX];
	uint8_t slot[RX_BATCH_MAX];
	unsigned int at;
	unsigned int n;
	struct rx_batch pol;
};

/**
 * struct tap_priv - The TAP queues of one port
 * @fds:	Queue fd of each pair
 * @adopted:	Fds came from the parent: not ours to close
 * @npairs:	Queues open
 * @name:	Interface name, for messages
 * @eio:	A write failed with EIO (link down) since host_tap_take_eio()
 * @rxq:	RX batch of each pair
 */
struct tap_priv {
	int fds[VNET_MAX_PAIRS];
	bool adopted;
	bool eio;
	unsigned int npairs;
	char name[IFNAMSIZ];
	struct tap_rxq rxq[VNET_MAX_PAIRS];
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
	for (i = 0; i < VNET_MAX_PAIRS; i++)
		if (p->rxq[i].buf)
			munmap(p->rxq[i].buf, (size_t)RX_BATCH_MAX * TAP_RX_STRIDE);
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

/* Reserve a queue's RX batch buffers: no page is committed until used */
static int host_tap_rxq_init(const struct tap_priv *p, struct tap_rxq *q,
			     struct reason *why)
{
	int ret;

	q->buf = mmap(NULL, (size_t)RX_BATCH_MAX * TAP_RX_STRIDE,
		      PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (q->buf == MAP_FAILED) {
		ret = -errno;
		q->buf = NULL;
		return reason_set(why, ret, "tap %s: RX buffers: %s", p->name,
				  strerror(-ret));
	}
	rx_batch_reset(&q->pol);
	return 0;
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
		ret = host_tap_rxq_init(p, &p->rxq[i], why);
		if (ret)
			goto err_close;
	}
	if (created) {
		ret = (cfg->mac ? mac_tap_set(p->fds[0], p->name, cfg->mac, why) : 0) ?:
		      host_tap_link_up(p->name, why);
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

/*
 * Read what waits on the queue into the batch buffers, one io_uring_enter()
 * for up to @q->pol.want reads (rx_batch_filled()). The reads run in order, so
 * the frames they got are in queue order by buffer even if a frame came in
 * just after a read found the queue empty.
 */
static int host_tap_rx_fill(struct host *host, unsigned int pair,
			    struct tap_uring *ring)
{
	struct tap_priv *p = host->priv;
	int res[RX_BATCH_MAX], err = 0, ret;
	struct tap_rxq *q;
	bool big = false;
	unsigned int k;

	if (!p || pair >= p->npairs || !p->rxq[pair].buf)
		return -EINVAL;
	q = &p->rxq[pair];
	if (q->at < q->n)
		return (int)(q->n - q->at);
	if (!rx_batch_on(&q->pol))
		return -EOPNOTSUPP;
	ret = tap_uring_read(ring, p->fds[pair], q->buf, TAP_RX_STRIDE,
			     TAP_RX_SLOT, q->pol.want, res);
	if (ret)
		return ret;
	q->at = q->n = 0;
	for (k = 0; k < q->pol.want; k++) {
		if (res[k] <= 0) {
			/* 0: no frame; EAGAIN: empty; else an error */
			if (res[k] < 0 && res[k] != -EAGAIN)
				err = res[k];
			continue;
		}
		big |= res[k] > RX_BATCH_COPY_MAX;
		q->slot[q->n] = (uint8_t)k;
		q->len[q->n++] = res[k] >= (int)TAP_RX_SLOT ? -EMSGSIZE : res[k];
	}
	rx_batch_filled(&q->pol, k, q->n, big);
	/* an error with nothing read: the per-frame read reports it */
	if (!q->n && err)
		return err;
	return (int)q->n;
}

/* Give the next held frame: copy it into @iov (it is consumed either way) */
static ssize_t host_tap_rx_held(struct tap_rxq *q, const struct iovec *iov,
				unsigned int iovcnt)
{
	const uint8_t *src = q->buf + (size_t)q->slot[q->at] * TAP_RX_STRIDE;
	int32_t len = q->len[q->at++];

	if (len < 0)
		return len;
	if (iov_fill(iov, iovcnt, src, (size_t)len))
		return -EMSGSIZE;
	return len;
}

static ssize_t host_tap_rx(struct host *host, unsigned int pair,
			 const struct iovec *iov, unsigned int iovcnt)
{
	struct tap_priv *p = host->priv;
	struct tap_rxq *q;
	size_t room = 0;
	unsigned int i;
	ssize_t n;

	if (!p || pair >= p->npairs)
		return -EINVAL;
	q = &p->rxq[pair];
	if (q->at < q->n)
		return host_tap_rx_held(q, iov, iovcnt);
	rx_batch_read_one(&q->pol);
	n = host_tap_iov(SYS_readv, p->fds[pair], iov, iovcnt);
	if (n <= 0 && (!n || errno == EWOULDBLOCK)) {
		rx_batch_empty(&q->pol);
		return -EAGAIN;
	}
	if (n < 0)
		return -errno;
	rx_batch_got_one(&q->pol);
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

/*
 * A held frame's length, or -EMSGSIZE for a cut one (which the tun
 * driver's 64 KiB frames never are): net.c then drops it with rx(),
 * counted as too big, instead of gathering buffers for it.
 */
static ssize_t host_tap_rx_peek_len(struct host *host, unsigned int pair)
{
	const struct tap_priv *p = host->priv;
	const struct tap_rxq *q;

	if (!p || pair >= p->npairs)
		return -EINVAL;
	q = &p->rxq[pair];
	if (q->at == q->n)
		return -EOPNOTSUPP;
	return q->len[q->at];
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
	.rx_fill = host_tap_rx_fill,
	.rx_fd = host_tap_fd,
	.queue_fd = host_tap_fd,
	.close = host_tap_close,
};
