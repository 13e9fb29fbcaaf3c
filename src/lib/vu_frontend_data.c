// SPDX-License-Identifier: MIT
/*
 * vu_frontend_data.c - the frontend's per-packet path: send frames with a
 * virtio-net header, receive (mergeable) frames, reclaim, kick, wait.
 *
 * No allocation, no locks, no syscall but the eventfd kick (only when the
 * ring asks for one: EVENT_IDX / NO_NOTIFY decide) and the wait itself.
 * Every buffer is a fixed slot in shared memory chosen at setup; the token a
 * buffer is added with is its slot number.
 *
 * Security model: the backend writes used lengths and the RX headers into
 * shared memory at will. Lengths are bounded by the slot size, num_buffers
 * by the ring size and each header is read once into a host-order copy; a
 * frame that breaks those bounds is dropped and counted, never followed.
 */
#include <errno.h>
#include <endian.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "vu_frontend_int.h"

/**
 * vu_frontend_data_kick() - Notify the backend on @q's kick eventfd
 * @q:	Queue
 */
void vu_frontend_data_kick(struct vu_frontend_queue *q)
{
	uint64_t one = 1;

	if (write(q->kick_fd, &one, sizeof(one)) == sizeof(one))
		q->st.kicks++;
}

/**
 * vu_frontend_data_ring_position() - The base a restarted backend should resume at
 * @vq:	Driver-side ring
 *
 * Used when no GET_VRING_BASE answer was saved (the backend died): every
 * buffer after the last one the device completed is processed again, as QEMU
 * does after a backend crash.
 *
 * Return: split: the used index; packed: used slot | wrap << 15
 */
uint32_t vu_frontend_data_ring_position(const struct vq *vq)
{
	if (vq->layout == VQ_SPLIT)
		return le16toh(LOAD_ACQUIRE(vq->split.used->idx));
	return (uint32_t)vq->drv_last_used | ((uint32_t)vq->drv_used_wrap << 15);
}

static int fe_rx_post(struct vu_frontend_queue *q, uint32_t slot)
{
	struct vq_buf b = {
		.gpa = q->buf_gpa + (uint64_t)slot * q->buf_len,
		.len = q->buf_len,
	};

	return vq_drv_add(&q->vq, NULL, 0, &b, 1, slot);
}

/**
 * vu_frontend_data_rx_post_all() - Fill an empty RX ring with every buffer
 * @q:	RX queue, just initialised
 *
 * Return: 0 or -errno from vq_drv_add()
 */
int vu_frontend_data_rx_post_all(struct vu_frontend_queue *q)
{
	uint32_t i;
	int ret;

	for (i = 0; i < q->vq.num; i++) {
		ret = fe_rx_post(q, i);
		if (ret)
			return ret;
	}
	vq_drv_kick_needed(&q->vq);	/* publishes; nobody listens yet */
	return 0;
}

static void fe_flush(struct vu_frontend_queue *q)
{
	if (!q->pending)
		return;
	q->pending = 0;
	if (vq_drv_kick_needed(&q->vq))
		vu_frontend_data_kick(q);
}

static struct vu_frontend_queue *fe_q(struct vu_frontend *f,
				      unsigned int pair, bool tx)
{
	if (unlikely(!f->started || pair >= f->pairs))
		return NULL;
	return &f->q[2 * pair + tx];
}

/**
 * vu_frontend_tx_reclaim() - Take back TX buffers the backend is done with
 * @f:		Frontend
 * @pair:	Queue pair
 *
 * Return: buffers reclaimed
 */
unsigned int vu_frontend_tx_reclaim(struct vu_frontend *f, unsigned int pair)
{
	struct vu_frontend_queue *q = fe_q(f, pair, true);
	unsigned int n = 0;
	uint32_t slot, len;

	if (!q)
		return 0;
	while (!vq_drv_get_used(&q->vq, &slot, &len)) {
		if (slot < q->vq.num && q->nfree < q->vq.num)
			q->free_slots[q->nfree++] = (uint16_t)slot;
		n++;
	}
	return n;
}

static void fe_hdr_to_le(struct virtio_net_hdr_v1 *d,
			 const struct virtio_net_hdr_v1 *s)
{
	d->flags = s->flags;
	d->gso_type = s->gso_type;
	d->hdr_len = htole16(s->hdr_len);
	d->gso_size = htole16(s->gso_size);
	d->csum_start = htole16(s->csum_start);
	d->csum_offset = htole16(s->csum_offset);
	d->num_buffers = 0;
}

/* Offloads in a TX header need the matching feature (VIRTIO 1.2 5.1.6.2) */
static bool fe_tx_hdr_ok(const struct vu_frontend *f,
			 const struct virtio_net_hdr_v1 *h)
{
	uint64_t need = 0;

	if (h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
		need |= 1ULL << VIRTIO_NET_F_CSUM;
	switch (h->gso_type) {
	case VIRTIO_NET_HDR_GSO_NONE:
		break;
	case VIRTIO_NET_HDR_GSO_TCPV4:
		need |= 1ULL << VIRTIO_NET_F_HOST_TSO4;
		break;
	case VIRTIO_NET_HDR_GSO_TCPV6:
		need |= 1ULL << VIRTIO_NET_F_HOST_TSO6;
		break;
	default:
		return false;	/* UFO, ECN: never negotiated by us */
	}
	return (f->features & need) == need;
}

/**
 * vu_frontend_tx() - Queue one frame for the backend (no kick yet)
 * @f:		Frontend, started
 * @pair:	Queue pair
 * @hdr:	virtio-net header in host order (GSO/csum fields for TSO
 *		frames), NULL for a plain frame
 * @frame:	Ethernet frame, copied into shared memory
 * @len:	Its length, at most the max_frame option
 *
 * Call vu_frontend_tx_flush() after a batch. Reclaims completed buffers by
 * itself when the ring is full.
 *
 * Context: the thread that owns @pair
 * Return: 0, -EAGAIN if the ring is full, -EMSGSIZE for a frame that is too
 *	   long, -EOPNOTSUPP for an offload in @hdr that was not negotiated
 *	   (e.g. GSO_TCPV4 without HOST_TSO4), -ENOTCONN if not started,
 *	   -errno from the ring
 */
int vu_frontend_tx(struct vu_frontend *f, unsigned int pair,
		   const struct virtio_net_hdr_v1 *hdr, const void *frame,
		   uint32_t len)
{
	struct vu_frontend_queue *q = fe_q(f, pair, true);
	struct vq_buf b[FE_TX_MAX_SEGS];
	uint32_t total, off, slot;
	unsigned int nseg, i;
	uint8_t *p;
	int ret;

	if (unlikely(!q))
		return -ENOTCONN;
	if (unlikely(len > f->o.max_frame))
		return -EMSGSIZE;
	if (hdr && unlikely(!fe_tx_hdr_ok(f, hdr)))
		return -EOPNOTSUPP;
	total = f->hdr_len + len;
	nseg = (total + FE_TX_SEG - 1) / FE_TX_SEG;
	if (unlikely(!q->nfree ||
		     (!q->indir_host && vq_drv_num_free(&q->vq) < nseg)))
		vu_frontend_tx_reclaim(f, pair);
	if (unlikely(!q->nfree ||
		     vq_drv_num_free(&q->vq) < (q->indir_host ? 1 : nseg))) {
		q->st.full++;
		return -EAGAIN;
	}
	slot = q->free_slots[--q->nfree];
	p = q->buf_host + (uint64_t)slot * q->buf_len;
	if (hdr)
		fe_hdr_to_le((struct virtio_net_hdr_v1 *)p, hdr);
	else	/* a 12-byte store, not a memset() call */
		*(struct virtio_net_hdr_v1 *)p = (struct virtio_net_hdr_v1){ 0 };
	memcpy(p + f->hdr_len, frame, len);
	for (i = 0, off = 0; i < nseg; i++, off += FE_TX_SEG) {
		b[i].gpa = q->buf_gpa + (uint64_t)slot * q->buf_len + off;
		b[i].len = MIN(FE_TX_SEG, total - off);
	}
	ret = vq_drv_add(&q->vq, b, nseg, NULL, 0, slot);
	if (unlikely(ret)) {
		q->free_slots[q->nfree++] = (uint16_t)slot;
		return ret;
	}
	q->pending++;
	q->st.frames++;
	q->st.bytes += len;
	return 0;
}

/**
 * vu_frontend_tx_flush() - Publish queued frames, kick if the backend wants
 * @f:		Frontend
 * @pair:	Queue pair
 *
 * Return: 0, -ENOTCONN if not started
 */
int vu_frontend_tx_flush(struct vu_frontend *f, unsigned int pair)
{
	struct vu_frontend_queue *q = fe_q(f, pair, true);

	if (!q)
		return -ENOTCONN;
	fe_flush(q);
	return 0;
}

static void fe_hdr_from_le(struct virtio_net_hdr_v1 *d, const uint8_t *p)
{
	struct virtio_net_hdr_v1 s;

	memcpy(&s, p, sizeof(s));	/* one read of the shared header */
	d->flags = s.flags;
	d->gso_type = s.gso_type;
	d->hdr_len = le16toh(s.hdr_len);
	d->gso_size = le16toh(s.gso_size);
	d->csum_start = le16toh(s.csum_start);
	d->csum_offset = le16toh(s.csum_offset);
	d->num_buffers = le16toh(s.num_buffers);
}

/* Give back the pieces of the frame in progress */
static void fe_rx_repost(struct vu_frontend_queue *q)
{
	unsigned int i;

	for (i = 0; i < q->rx_nparts; i++)
		if (!fe_rx_post(q, q->rx_slots[i]))
			q->pending++;
	q->rx_nparts = 0;
	q->rx_want = 0;
	q->rx_len = 0;
}

/* Add one used buffer to the frame in progress; false: drop the frame */
static bool fe_rx_piece(struct vu_frontend *f, struct vu_frontend_queue *q,
			uint32_t slot, uint32_t len)
{
	uint8_t *p = q->buf_host + (uint64_t)slot * q->buf_len;
	uint32_t skip = 0;

	q->rx_slots[q->rx_nparts] = slot;
	q->rx_nparts++;
	if (len > q->buf_len)
		return false;
	if (!q->rx_want) {
		if (len < f->hdr_len)
			return false;
		fe_hdr_from_le(&q->rx_hdr, p);
		q->rx_want = f->mrg_rxbuf ? q->rx_hdr.num_buffers : 1;
		if (!q->rx_want || q->rx_want > q->vq.num)
			return false;
		skip = f->hdr_len;
	}
	q->rx_iov[q->rx_nparts - 1].iov_base = p + skip;
	q->rx_iov[q->rx_nparts - 1].iov_len = len - skip;
	q->rx_len += len - skip;
	return true;
}

/**
 * vu_frontend_rx() - Deliver received frames to @cb, give the buffers back
 * @f:		Frontend, started
 * @pair:	Queue pair
 * @cb:		Called once per frame, with the frame still in shared memory
 * @opaque:	Passed to @cb
 * @budget:	At most this many frames
 *
 * Merged frames (MRG_RXBUF) arrive as several iovecs. A frame whose pieces
 * are not all used yet waits in the queue for the next call.
 *
 * Context: the thread that owns @pair
 * Return: frames delivered, -ENOTCONN if not started
 */
int vu_frontend_rx(struct vu_frontend *f, unsigned int pair,
		   vu_frontend_rx_cb cb, void *opaque, unsigned int budget)
{
	struct vu_frontend_queue *q = fe_q(f, pair, false);
	unsigned int n = 0;
	uint32_t slot, len;

	if (unlikely(!q))
		return -ENOTCONN;
	while (n < budget && !vq_drv_get_used(&q->vq, &slot, &len)) {
		if (unlikely(slot >= q->vq.num))
			continue;	/* not ours: vq bug, never re-post */
		if (unlikely(!fe_rx_piece(f, q, slot, len))) {
			q->st.full++;
			fe_rx_repost(q);
			continue;
		}
		if (q->rx_nparts < q->rx_want)
			continue;
		cb(opaque, &q->rx_hdr, q->rx_iov, q->rx_nparts, q->rx_len);
		q->st.frames++;
		q->st.bytes += q->rx_len;
		n++;
		fe_rx_repost(q);
	}
	fe_flush(q);
	return (int)n;
}

static void fe_drain_eventfd(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) < 0)
		return;		/* EAGAIN: nothing was signalled */
}

/**
 * vu_frontend_wait() - Sleep until @pair's RX or TX ring has completions
 * @f:		Frontend, started
 * @pair:	Queue pair
 * @timeout_ms:	poll() timeout, -1 for none
 *
 * Enables used-buffer notifications on both rings, rechecks them (so a
 * completion between the check and the sleep is not lost), sleeps on the
 * call eventfds, then disables notifications again for polling.
 *
 * Return: 1 if there is work, 0 on timeout, -errno
 */
int vu_frontend_wait(struct vu_frontend *f, unsigned int pair, int timeout_ms)
{
	struct vu_frontend_queue *rx = fe_q(f, pair, false);
	struct vu_frontend_queue *tx = fe_q(f, pair, true);
	struct pollfd p[2];
	bool pending;
	int n;

	if (!rx || !tx)
		return -ENOTCONN;
	/* enable_cb rechecks the ring after enabling: nothing slips between.
	 * Both rings must be enabled, so no short-circuit. */
	pending = vq_drv_enable_cb(&rx->vq);
	pending = vq_drv_enable_cb(&tx->vq) || pending;
	if (pending) {
		n = 1;
		goto out;
	}
	p[0] = (struct pollfd){ .fd = rx->call_fd, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = tx->call_fd, .events = POLLIN };
	n = poll(p, 2, timeout_ms);
	if (n < 0) {
		n = errno == EINTR ? 0 : -errno;
		goto out;
	}
	if (p[0].revents & POLLIN)
		fe_drain_eventfd(rx->call_fd);
	if (p[1].revents & POLLIN)
		fe_drain_eventfd(tx->call_fd);
	n = n > 0;
out:
	vq_drv_disable_cb(&rx->vq);
	vq_drv_disable_cb(&tx->vq);
	return n;
}

/**
 * vu_frontend_stats() - Counters of one ring
 * @f:		Frontend
 * @ring:	Ring index (2 * pair, +1 for TX)
 *
 * Return: the counters, NULL for a ring that does not exist
 */
const struct vu_frontend_stats *vu_frontend_stats(const struct vu_frontend *f,
						  unsigned int ring)
{
	if (!f->q || ring >= 2 * f->pairs)
		return NULL;
	return &f->q[ring].st;
}
