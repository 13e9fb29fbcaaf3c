// SPDX-License-Identifier: MIT
/*
 * vu_frontend_data.c - the frontend's data layer, on vu_frontend_core:
 * the per-packet path (send frames with a virtio-net header, receive
 * (mergeable) frames, reclaim, kick, wait) and the first RX buffers of
 * rings the memory layer has placed (vu_frontend_data_setup()).
 *
 * No allocation, no locks, no syscall but the eventfd kick (only when the
 * ring asks for one: EVENT_IDX / NO_NOTIFY decide) and the wait itself.
 * Every buffer is a fixed slot in shared memory chosen at setup; the token a
 * buffer is added with is its slot number. A TX slot is the buffer id the
 * ring gives the frame, so a slot always goes with the same descriptor;
 * used-buffer notifications stay off except inside vu_frontend_wait().
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

#include "vu_frontend.h"
#include "vu_frontend_data.h"
#include "vnet_hdr.h"

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
uint32_t vu_frontend_data_ring_position(const struct vq_drv *vq)
{
	if (vq->layout == VQ_SPLIT)
		return le16toh(LOAD_ACQUIRE(vq->split.used->idx));
	return (uint32_t)vq->drv_last_used | ((uint32_t)vq->drv_used_wrap << 15);
}

/* Our address of buffer slot @slot of @q */
static uint8_t *fe_slot(const struct vu_frontend_queue *q, uint32_t slot)
{
	return q->buf_host + (uint64_t)slot * q->buf_len;
}

static int fe_rx_post(struct vu_frontend_queue *q, uint32_t slot)
{
	struct vq_buf b = {
		.gpa = q->buf_gpa + (uint64_t)slot * q->buf_len,
		.len = q->buf_len,
	};

	return vq_drv_add(&q->vq, NULL, 0, &b, 1, slot);
}

/* Fill an empty RX ring with every buffer; 0 or -errno from vq_drv_add() */
static int fe_rx_post_all(struct vu_frontend_queue *q)
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

/**
 * vu_frontend_data_setup() - Post every RX buffer, set notifications
 * @f:	Frontend whose rings vu_frontend_mem_rings_setup() placed (first
 *	start only), before the backend sees them
 *
 * Return: 0 or -errno (reason recorded)
 */
int vu_frontend_data_setup(struct vu_frontend *f)
{
	unsigned int i;
	int ret;

	for (i = 0; i < 2 * f->pairs; i++) {
		struct vu_frontend_queue *q = &f->q[i];

		if (!(i & 1)) {
			ret = fe_rx_post_all(q);
			if (ret)
				return vu_frontend_set_err(f, ret, "ring %u: posting RX buffers: %s",
					      i, strerror(-ret));
		}
		/* Polled by default: no used-buffer notification (a syscall
		 * in the backend per burst) unless vu_frontend_wait() sleeps */
		if (!f->o.notify)
			vq_drv_disable_cb(&q->vq);
	}
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

/* Reclaimed buffer ids collected per vq_drv_get_used_burst() call */
#define FE_RECLAIM_BURST	64

/*
 * Ask for the cache line at @p with intent to write. The backend read it
 * last, so our copy is shared; the store that refills it would otherwise
 * wait, in order, for the other core to give the line up (one such round
 * trip per frame bounds the send rate). Prefetched right when the buffer
 * comes back, those round trips overlap.
 */
static inline void fe_prefetch_w(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
	/* PREFETCHW: the plain builtin emits PREFETCHT0 without -mprfchw;
	 * CPUs without it treat the opcode as a NOP */
	__asm__ __volatile__("prefetchw %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p, 1, 3);
#endif
}

/*
 * Collect every completed TX buffer, a burst at a time. Buffers are keyed
 * by id (slot = id), so there is nothing to do per buffer but give its
 * descriptors back and prefetch the first line of its slot for the frame
 * that will be written there.
 */
static unsigned int fe_tx_reclaim(struct vu_frontend_queue *q)
{
	uint32_t ids[FE_RECLAIM_BURST];
	unsigned int n = 0;
	int got, i;

	while ((got = vq_drv_get_used_burst(&q->vq, ids, NULL,
					    FE_RECLAIM_BURST)) > 0) {
		for (i = 0; i < got; i++)
			fe_prefetch_w(fe_slot(q, ids[i]));
		n += (unsigned int)got;
	}
	return n;
}

/**
 * vu_frontend_tx_reclaim() - Take back TX buffers the backend is done with
 * @f:		Frontend
 * @pair:	Queue pair
 *
 * vu_frontend_tx() reclaims by itself, in bursts, when the ring runs low;
 * calling this is only needed to see the count.
 *
 * Return: buffers reclaimed
 */
unsigned int vu_frontend_tx_reclaim(struct vu_frontend *f, unsigned int pair)
{
	struct vu_frontend_queue *q = fe_q(f, pair, true);

	return q ? fe_tx_reclaim(q) : 0;
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

/*
 * Write the TX header of a slot, only if it differs from what the slot
 * already holds (the header of the last frame sent from it): an unchanged
 * header leaves its cache line shared with the backend, which reads it.
 */
static void fe_tx_hdr_store(uint8_t *p, const struct virtio_net_hdr_v1 *hdr)
{
	struct virtio_net_hdr_v1 le = { 0 };

	if (hdr)
		fe_hdr_to_le(&le, hdr);
	if (memcmp(p, &le, sizeof(le)))
		memcpy(p, &le, sizeof(le));
}

/* Offloads in a TX header need the matching feature (VIRTIO 1.2 5.1.6.2) */
static bool fe_tx_hdr_ok(const struct vu_frontend *f,
			 const struct virtio_net_hdr_v1 *h)
{
	uint64_t need = 0;
	int feat;

	if (h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
		need |= BIT(VIRTIO_NET_F_CSUM);
	if (h->gso_type != VIRTIO_NET_HDR_GSO_NONE) {
		/* ECN is no type; UFO maps to HOST_UFO, never negotiated by us */
		feat = vnet_hdr_gso_feature(h->gso_type, VNET_HDR_TX);
		if (feat < 0)
			return false;
		need |= BIT(feat);
	}
	return (f->features & need) == need;
}

/*
 * Room for a frame of @len bytes: reclaims lazily, a burst at a time, once
 * fewer than tx_reclaim_at descriptors (beyond what the frame needs) are
 * free. Return: descriptors the frame takes, or -EAGAIN (ring full)
 */
static int fe_tx_room(struct vu_frontend *f, struct vu_frontend_queue *q,
		      uint32_t len)
{
	unsigned int nseg = (f->hdr_len + len + FE_TX_SEG - 1) / FE_TX_SEG;
	unsigned int need = q->indir_host ? 1 : nseg;

	if (unlikely(vq_drv_num_free(&q->vq) < need + q->tx_reclaim_at))
		fe_tx_reclaim(q);
	if (unlikely(vq_drv_num_free(&q->vq) < need)) {
		q->st.full++;
		return -EAGAIN;
	}
	return (int)nseg;
}

/* Add slot @slot holding the header and @len frame bytes to the ring */
static int fe_tx_add(struct vu_frontend *f, struct vu_frontend_queue *q,
		     uint32_t slot, uint32_t len)
{
	uint32_t total = f->hdr_len + len, off;
	struct vq_buf b[FE_TX_MAX_SEGS];
	unsigned int i;
	int ret;

	for (i = 0, off = 0; off < total; i++, off += FE_TX_SEG) {
		b[i].gpa = q->buf_gpa + (uint64_t)slot * q->buf_len + off;
		b[i].len = MIN(FE_TX_SEG, total - off);
	}
	ret = vq_drv_add(&q->vq, b, i, NULL, 0, slot);
	if (unlikely(ret))
		return ret;
	q->pending++;
	q->st.frames++;
	q->st.bytes += len;
	return 0;
}

/* The checks vu_frontend_tx() and vu_frontend_tx_reserve() share */
static struct vu_frontend_queue *fe_tx_q(struct vu_frontend *f,
					 unsigned int pair, uint32_t len,
					 int *err)
{
	struct vu_frontend_queue *q = fe_q(f, pair, true);

	*err = 0;
	if (unlikely(!q))
		*err = -ENOTCONN;
	else if (unlikely(len > f->o.max_frame))
		*err = -EMSGSIZE;
	return *err ? NULL : q;
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
 * itself, all that are done at once, when fewer than an eighth of the ring
 * (beyond what this frame needs) is free. The frame goes into the shared
 * memory slot of the buffer id it is added with.
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
	struct vu_frontend_queue *q;
	uint32_t slot;
	void *p;
	int ret;

	q = fe_tx_q(f, pair, len, &ret);
	if (unlikely(!q))
		return ret;
	if (hdr && unlikely(!fe_tx_hdr_ok(f, hdr)))
		return -EOPNOTSUPP;
	q->tx_reserved = 0;	/* a plain send cancels a reservation */
	ret = vu_frontend_tx_reserve(f, pair, len, &p, &slot);
	if (unlikely(ret))
		return ret;
	memcpy(p, frame, len);
	return vu_frontend_tx_commit(f, pair, hdr);
}

/**
 * vu_frontend_tx_reserve() - The next TX buffer, to build a frame in place
 * @f:		Frontend, started
 * @pair:	Queue pair
 * @len:	Length of the frame that will be committed
 * @frame:	Output: where the frame goes (@len bytes of shared memory)
 * @slot:	Output: the buffer's slot, below the ring size
 *
 * The zero-copy form of vu_frontend_tx(): write the frame at *@frame, then
 * call vu_frontend_tx_commit(). A slot keeps its bytes between uses (the
 * backend only reads TX buffers), so a caller that sends similar frames
 * can fill each slot once and afterwards rewrite only what changes, the
 * way DPDK's txonly re-sends its mbufs. Reserving again before a commit
 * returns the same slot.
 *
 * Context: the thread that owns @pair
 * Return: 0, -EAGAIN if the ring is full, -EMSGSIZE, -ENOTCONN
 */
int vu_frontend_tx_reserve(struct vu_frontend *f, unsigned int pair,
			   uint32_t len, void **frame, uint32_t *slot)
{
	struct vu_frontend_queue *q;
	int ret;

	q = fe_tx_q(f, pair, len, &ret);
	if (unlikely(!q))
		return ret;
	ret = fe_tx_room(f, q, len);
	if (unlikely(ret < 0))
		return ret;
	*slot = vq_drv_next_id(&q->vq);
	*frame = fe_slot(q, *slot) + f->hdr_len;
	q->tx_reserved = len + 1;
	return 0;
}

/**
 * vu_frontend_tx_commit() - Queue the frame built by vu_frontend_tx_reserve()
 * @f:		Frontend, started
 * @pair:	Queue pair
 * @hdr:	virtio-net header in host order, NULL for a plain frame
 *
 * Call vu_frontend_tx_flush() after a batch, as with vu_frontend_tx().
 *
 * Context: the thread that owns @pair
 * Return: 0, -EINVAL without a reservation, -EOPNOTSUPP for an offload in
 *	   @hdr that was not negotiated (the reservation stays),
 *	   -ENOTCONN, -errno from the ring
 */
int vu_frontend_tx_commit(struct vu_frontend *f, unsigned int pair,
			  const struct virtio_net_hdr_v1 *hdr)
{
	struct vu_frontend_queue *q = fe_q(f, pair, true);
	uint32_t slot, len;

	if (unlikely(!q))
		return -ENOTCONN;
	if (unlikely(!q->tx_reserved))
		return -EINVAL;
	if (hdr && unlikely(!fe_tx_hdr_ok(f, hdr)))
		return -EOPNOTSUPP;
	len = q->tx_reserved - 1;
	q->tx_reserved = 0;
	slot = vq_drv_next_id(&q->vq);
	fe_tx_hdr_store(fe_slot(q, slot), hdr);
	return fe_tx_add(f, q, slot, len);
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
	uint8_t *p = fe_slot(q, slot);
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
 * call eventfds, then disables notifications again for polling (unless
 * opts.notify keeps them on).
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
	if (!f->o.notify) {
		vq_drv_disable_cb(&rx->vq);
		vq_drv_disable_cb(&tx->vq);
	}
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
