// SPDX-License-Identifier: MIT
/*
 * host_loop.c - the loop host: each frame the guest sends on pair i comes
 * back, vnet header included, on pair i's RX. For tests and benchmarks of
 * the whole userspace path without a host network.
 *
 * Each pair has a bounded FIFO of LOOP_SLOTS preallocated slots (allocated
 * at open, never after). TX and RX of a pair run on the thread that owns
 * the pair, so the FIFO needs no locks or atomics, and no descriptor: a
 * frame only enters through the pair's own TX, in the same pass as the RX
 * that rx_peek_len() sends to it (rx_fd() is -1). No syscall per frame or
 * per batch, as in DPDK's testpmd forwarding that the loop case is
 * measured against.
 *
 * A session ends with its frames: reset() (a frontend disconnected or
 * reset the device, workers paused) empties every FIFO, so the next
 * connection neither receives the last one's frames nor finds its TX
 * blocked behind them.
 *
 * A frame whose offloads (NEEDS_CSUM, a gso type) the guest did not ack on
 * its RX side (GUEST_CSUM, GUEST_TSO4/6, GUEST_UFO, GUEST_ECN) cannot be
 * reflected as is: it is dropped and counted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/virtio_net.h>

#include "host.h"
#include "host_priv.h"
#include "reason.h"
#include "util.h"
#include "vnet_hdr.h"

#define LOOP_SLOTS	256
#define LOOP_SLOT_SIZE	(VNET_FRAME_MAX + VNET_HDR_MAX)

/**
 * struct loop_q - One pair's FIFO
 * @buf:	LOOP_SLOTS slots of LOOP_SLOT_SIZE bytes
 * @len:	Frame length in each slot
 * @head:	Next slot to fill (free-running)
 * @tail:	Next slot to read (free-running)
 * @full:	Frames refused because the FIFO was full (-EAGAIN)
 * @dropped:	Frames dropped: offloads the guest cannot take, too big
 */
struct loop_q {
	uint8_t *buf;
	uint32_t len[LOOP_SLOTS];
	uint32_t head;
	uint32_t tail;
	uint64_t full;
	uint64_t dropped;
};

struct loop_priv {
	unsigned int npairs;
	struct loop_q q[];
};

static void host_loop_close(struct host *host)
{
	struct loop_priv *p = host->priv;
	unsigned int i;

	if (!p)
		return;
	for (i = 0; i < p->npairs; i++) {
		if (p->q[i].buf)
			munmap(p->q[i].buf, (size_t)LOOP_SLOTS * LOOP_SLOT_SIZE);
	}
	free(p);
	host->priv = NULL;
	host->npairs = 0;
}

static int host_loop_open(struct host *host, const struct host_cfg *cfg,
			struct reason *why)
{
	struct loop_priv *p;
	unsigned int i;
	int ret;

	if (!cfg->npairs || cfg->npairs > VNET_MAX_PAIRS)
		return reason_set(why, -EINVAL, "loop: %u queue pairs: use 1..%u",
				  cfg->npairs, (unsigned int)VNET_MAX_PAIRS);
	p = calloc(1, sizeof(*p) + cfg->npairs * sizeof(p->q[0]));
	if (!p)
		goto err_nomem;
	p->npairs = cfg->npairs;
	host->priv = p;
	host->npairs = cfg->npairs;
	for (i = 0; i < cfg->npairs; i++) {
		/* untouched pages cost nothing: reserve, do not commit */
		p->q[i].buf = mmap(NULL, (size_t)LOOP_SLOTS * LOOP_SLOT_SIZE,
				   PROT_READ | PROT_WRITE, MAP_PRIVATE |
				   MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p->q[i].buf == MAP_FAILED) {
			p->q[i].buf = NULL;
			goto err_close;
		}
	}
	return 0;

err_close:
	ret = -errno;
	host_loop_close(host);
	return reason_set(why, ret, "loop: %u queues of %u x %u bytes: %s",
			  cfg->npairs, (unsigned int)LOOP_SLOTS,
			  (unsigned int)LOOP_SLOT_SIZE, strerror(-ret));
err_nomem:
	return reason_set(why, -ENOMEM, "loop: out of memory");
}

static int host_loop_configure(struct host *host, uint64_t features,
			     unsigned int hdr_len)
{
	if (hdr_len > VNET_HDR_MAX)
		return -EINVAL;
	host->features = features;
	host->hdr_len = hdr_len;
	return 0;
}

/* Can the guest take this header's offloads on RX? */
static bool host_loop_rx_ok(const struct host *host, const uint8_t *slot)
{
	struct virtio_net_hdr h;
	uint8_t gso;
	int feat;

	if (host->hdr_len < sizeof(h))
		return true;
	memcpy(&h, slot, sizeof(h));
	if ((h.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) &&
	    !(host->features & BIT(VIRTIO_NET_F_GUEST_CSUM)))
		return false;
	if ((h.gso_type & VIRTIO_NET_HDR_GSO_ECN) &&
	    !(host->features & BIT(VIRTIO_NET_F_GUEST_ECN)))
		return false;
	gso = h.gso_type & (uint8_t)~VIRTIO_NET_HDR_GSO_ECN;
	if (gso == VIRTIO_NET_HDR_GSO_NONE)
		return true;
	feat = vnet_hdr_gso_feature(gso, VNET_HDR_RX);
	return feat >= 0 && (host->features & BIT(feat));
}

static ssize_t host_loop_tx(struct host *host, unsigned int pair,
			  const struct iovec *iov, unsigned int iovcnt)
{
	struct loop_priv *p = host->priv;
	struct loop_q *q;
	uint8_t *slot;
	size_t n = 0;
	unsigned int i;

	if (!p || pair >= p->npairs)
		return -EINVAL;
	q = &p->q[pair];
	if (q->head - q->tail >= LOOP_SLOTS) {
		q->full++;
		return -EAGAIN;
	}
	slot = q->buf + (size_t)(q->head % LOOP_SLOTS) * LOOP_SLOT_SIZE;
	for (i = 0; i < iovcnt; i++) {
		if (iov[i].iov_len > LOOP_SLOT_SIZE - n) {
			q->dropped++;
			return -EMSGSIZE;
		}
		memcpy(slot + n, iov[i].iov_base, iov[i].iov_len);
		n += iov[i].iov_len;
	}
	if (n < host->hdr_len || !host_loop_rx_ok(host, slot)) {
		q->dropped++;
		return -EPROTONOSUPPORT;
	}
	q->len[q->head % LOOP_SLOTS] = (uint32_t)n;
	q->head++;
	return (ssize_t)n;
}

static ssize_t host_loop_rx(struct host *host, unsigned int pair,
			  const struct iovec *iov, unsigned int iovcnt)
{
	struct loop_priv *p = host->priv;
	const uint8_t *slot;
	struct loop_q *q;
	size_t len;

	if (!p || pair >= p->npairs)
		return -EINVAL;
	q = &p->q[pair];
	if (q->head == q->tail)
		return -EAGAIN;
	slot = q->buf + (size_t)(q->tail % LOOP_SLOTS) * LOOP_SLOT_SIZE;
	len = q->len[q->tail % LOOP_SLOTS];
	q->tail++;
	if (iov_fill(iov, iovcnt, slot, len)) {
		q->dropped++;
		return -EMSGSIZE;
	}
	return (ssize_t)len;
}

static ssize_t host_loop_rx_peek_len(struct host *host, unsigned int pair)
{
	struct loop_priv *p = host->priv;
	struct loop_q *q;

	if (!p || pair >= p->npairs)
		return -EINVAL;
	q = &p->q[pair];
	if (q->head == q->tail)
		return 0;
	return q->len[q->tail % LOOP_SLOTS];
}

static void host_loop_reset(struct host *host)
{
	struct loop_priv *p = host->priv;
	unsigned int i;

	if (!p)
		return;
	for (i = 0; i < p->npairs; i++)
		p->q[i].head = p->q[i].tail = 0;
}

/* No descriptor: frames come only from the pair's own TX (see the top) */
static int host_loop_rx_fd(struct host *host, unsigned int pair)
{
	(void)host;
	(void)pair;
	return -1;
}

static int host_loop_queue_fd(struct host *host, unsigned int pair)
{
	(void)host;
	(void)pair;
	return -1;
}

const struct host_ops host_loop_ops = {
	.name = "loop",
	.open = host_loop_open,
	.host_features = host_any_offload,
	.configure = host_loop_configure,
	.tx = host_loop_tx,
	.rx = host_loop_rx,
	.rx_peek_len = host_loop_rx_peek_len,
	.rx_fd = host_loop_rx_fd,
	.queue_fd = host_loop_queue_fd,
	.reset = host_loop_reset,
	.close = host_loop_close,
};
