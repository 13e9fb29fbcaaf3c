// SPDX-License-Identifier: MIT
/*
 * net.c - the virtio-net device data path of one queue pair: vnet header
 * validation (its length and gso rules are vnet_hdr.c's), guest TX of one
 * chain to the host side, host RX of one frame into one (or, with
 * MRG_RXBUF, several) guest chains.
 *
 * Security model: everything in a TX chain is guest-controlled and may
 * change while we look at it. The vnet header is copied once into a local
 * (it may span descriptors), validated there (flags, gso type against the
 * negotiated HOST_* offloads, csum_start/csum_offset/hdr_len against the
 * frame length), and the host side is handed that validated copy followed by
 * the guest's frame iovecs: the frame itself is never copied in userspace
 * and never re-read by us. With anti-spoofing on, the frame's first bytes
 * (at most SPOOF_HDR_MAX) are copied once, checked there (spoof.c) and that
 * copy is what is sent. A chain shorter than header + Ethernet header, an
 * invalid header or a chain with too many segments is dropped, counted and
 * returned to the guest. Descriptor walking and address translation are the
 * ring engine's (vq.h); RX writes only into writable iovecs it returned.
 *
 * Allocation: none after net_scratch_init(); no locks, no logging. What is
 * dropped is counted in the caller's local accumulators (struct net_io).
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/virtio_config.h>

#include "iov.h"
#include "net.h"
#include "net_tx.h"
#include "rx_policy.h"
#include "util.h"
#include "vnet_hdr.h"

/**
 * net_scratch_init() - Allocate a worker thread's data path buffers
 * @s:		Scratch to set up
 *
 * Return: 0 or -ENOMEM
 */
int net_scratch_init(struct net_scratch *s)
{
	memset(s, 0, sizeof(*s));
	s->bounce = malloc(NET_BOUNCE_SIZE);
	return s->bounce ? 0 : -ENOMEM;
}

/**
 * net_scratch_cleanup() - Free what net_scratch_init() allocated
 * @s:		Scratch
 */
void net_scratch_cleanup(struct net_scratch *s)
{
	free(s->bounce);
	s->bounce = NULL;
}

/*
 * Anti-spoofing (spoof.h): copy the frame's first bytes (they may span
 * iovecs) into @head, check that copy, and send it in place of the guest's
 * bytes, so a guest rewriting its buffer after the check cannot change what
 * was checked. @out[1..n) are the frame iovecs. Return: the new entry
 * count, -EPERM to drop the frame, -E2BIG if @out has no room.
 */
static int net_tx_spoof(const struct spoof_policy *p, struct iovec *out,
			unsigned int n, unsigned int max,
			uint8_t head[static SPOOF_HDR_MAX])
{
	size_t k = iov_to_buf(out + 1, n - 1, 0, head, SPOOF_HDR_MAX);
	size_t skip = k;
	unsigned int i = 1, rest;

	if (!spoof_frame_ok(p, head, k))
		return -EPERM;
	while (i < n && skip >= out[i].iov_len) {
		skip -= out[i].iov_len;
		i++;
	}
	rest = n - i;	/* out[i] on, the first less @skip bytes */
	if (2 + rest > max)
		return -E2BIG;
	memmove(&out[2], &out[i], rest * sizeof(*out));
	if (rest) {
		out[2].iov_base = (uint8_t *)out[2].iov_base + skip;
		out[2].iov_len -= skip;
	}
	out[1].iov_base = head;
	out[1].iov_len = k;
	return (int)(2 + rest);
}

static enum ring_drop net_tx_drop_reason(int err)
{
	switch (err) {
	case -EMSGSIZE:
		return DROP_TOO_SHORT;
	case -E2BIG:
		return DROP_TOO_BIG;
	case -EPERM:
		return DROP_SPOOF;
	default:
		return DROP_BAD_HDR;
	}
}

/*
 * Check chain @c into @out (@max entries): its header copied into @hdr,
 * with anti-spoofing its first bytes into @head. Return: the iovecs for the
 * host side, or -errno (drop it: net_tx_drop_reason())
 */
static ALWAYS_INLINE int net_tx_check(const struct net_io *io,
				       const struct vq_chain *c,
				       struct virtio_net_hdr_v1 *hdr, uint8_t *head,
				       struct iovec *out, unsigned int max)
{
	int n = net_tx_prepare(c->iov, c->nout, io->hdr_len, io->features, hdr,
			      out, max);

	/* off (NULL): this one branch is all anti-spoofing costs */
	if (unlikely(io->spoof != NULL) && n > 0)
		n = net_tx_spoof(io->spoof, out, (unsigned int)n, max, head);
	return n;
}

/* Count what the host side did with chain @c (@sent: bytes or -errno);
 * Return: the frame bytes sent */
static inline unsigned int net_tx_count(const struct net_io *io,
					const struct vq_chain *c, ssize_t sent)
{
	if (sent < 0) {
		io->acc->drops[DROP_HOST]++;
		return 0;
	}
	io->acc->packets++;
	io->acc->bytes += c->out_len - io->hdr_len;
	return c->out_len - io->hdr_len;
}

/*
 * Send one popped TX chain @c to the host side and complete it (vq_push,
 * length 0), whether sent or dropped. Return: frame bytes sent (0 if
 * dropped), or -EBUSY if the host side is full: @c is then neither sent
 * nor completed, the caller gives it back (vq_discard()).
 */
static int net_tx_send(const struct net_io *io, struct vq_chain *c)
{
	uint8_t head[SPOOF_HDR_MAX];
	struct virtio_net_hdr_v1 hdr;
	ssize_t sent;
	int n;

	n = net_tx_check(io, c, &hdr, head, io->s->iov, NET_MAX_IOV);
	if (n < 0) {
		io->acc->drops[net_tx_drop_reason(n)]++;
		vq_push(io->vq, c, 0);
		return 0;
	}
	sent = io->host->ops->tx(io->host, io->pair, io->s->iov, (unsigned int)n);
	if (sent == -EAGAIN)
		return -EBUSY;
	vq_push(io->vq, c, 0);
	return (int)net_tx_count(io, c, sent);
}

/*
 * Batched TX (host tx_batch, the thread's io_uring): each chain is checked
 * as net_tx_send() checks it, into its own header copy, anti-spoofing head
 * copy and run of io->s->iov, and the burst goes to the host in one call.
 * Frames are written independently, so a refusal is never retried (a later
 * frame may be on the wire already: a retry would reorder or duplicate): it
 * is dropped as DROP_HOST. Chains are completed only after the host call
 * returned, when the kernel is done reading guest memory.
 */
struct net_tx_batch {
	struct virtio_net_hdr_v1 hdr[NET_TX_BURST];
	uint8_t head[NET_TX_BURST][SPOOF_HDR_MAX];
	struct iovec *iov[NET_TX_BURST];
	unsigned int cnt[NET_TX_BURST];
	int r[NET_TX_BURST];	/* per chain: iovecs, or -errno (dropped) */
	int res[NET_TX_BURST];	/* per frame sent: host result */
	unsigned int k;		/* frames in @iov */
	unsigned int off;	/* io->s->iov entries used */
};

/* Send what @b holds (chains @c[@from..@to)), complete them; frame bytes sent */
static uint64_t net_tx_batch_flush(const struct net_io *io, struct vq_chain *c,
				   unsigned int from, unsigned int to,
				   struct net_tx_batch *b)
{
	unsigned int i, j = 0;
	uint64_t bytes = 0;

	if (b->k && io->host->ops->tx_batch(io->host, io->pair, io->s->uring,
					    b->iov, b->cnt, b->k, b->res)) {
		for (i = 0; i < b->k; i++)
			b->res[i] = -EIO;
	}
	for (i = from; i < to; i++) {
		if (b->r[i] < 0)
			io->acc->drops[net_tx_drop_reason(b->r[i])]++;
		else
			bytes += net_tx_count(io, &c[i], b->res[j++]);
		vq_push(io->vq, &c[i], 0);
	}
	b->k = 0;
	b->off = 0;
	return bytes;
}

/* Check chain @i of @c into @b; -E2BIG: no room left in io->s->iov */
static int net_tx_batch_add(const struct net_io *io, const struct vq_chain *c,
			    unsigned int i, struct net_tx_batch *b)
{
	struct iovec *out = io->s->iov + b->off;
	unsigned int max = NET_MAX_IOV - b->off;
	int n;

	n = net_tx_check(io, c, &b->hdr[i], b->head[i], out, max);
	b->r[i] = n;
	if (n < 0)
		return n;
	b->iov[b->k] = out;
	b->cnt[b->k++] = (unsigned int)n;
	b->off += (unsigned int)n;
	return 0;
}

/* The burst @c[0..@n) through the host's tx_batch; all are consumed */
static uint64_t net_tx_batch(const struct net_io *io, struct vq_chain *c,
			     unsigned int n)
{
	struct net_tx_batch b;
	unsigned int i, first = 0;
	uint64_t bytes = 0;

	b.k = 0;
	b.off = 0;
	for (i = 0; i < n; i++) {
		/*
		 * Out of iovecs with frames pending: send those first, then
		 * retry this chain with the whole array (it may be legal:
		 * net_tx_send() would take up to NET_MAX_IOV).
		 */
		if (net_tx_batch_add(io, &c[i], i, &b) == -E2BIG && b.off) {
			bytes += net_tx_batch_flush(io, c, first, i, &b);
			first = i;
			net_tx_batch_add(io, &c[i], i, &b);
		}
	}
	return bytes + net_tx_batch_flush(io, c, first, n, &b);
}

/* The burst is over: a host that queues (af_xdp) sends it now */
static inline void net_tx_flush(const struct net_io *io)
{
	if (io->host->ops->tx_flush)
		io->host->ops->tx_flush(io->host, io->pair);
}

/**
 * net_tx_burst() - Send up to @max guest TX chains to the host side
 * @io:		TX ring of the pair
 * @max:	Chains to take at most, 1..NET_TX_BURST
 * @bytes:	Output: frame bytes sent
 * @err:	Output: why it stopped short of @max, as net_tx_one() returns
 *		it (-EAGAIN, -EBADMSG, -ENOSPC, -EBUSY), 0 if it did not
 *
 * Pops the chains first, then sends them one by one: the host side copies
 * each frame out of guest memory inside its syscall, where a cache miss on
 * a frame the guest's CPU just wrote costs its whole latency. Touching
 * every frame's first bytes before the first send lets those misses
 * overlap (measured: bench/vnetd-vs-dpdk.sh taptx, docs/performance.md).
 * Each chain is completed as by net_tx_one(); on -EBUSY the rest are given
 * back unused, in order. With the thread's io_uring (io->s->uring) and a
 * host that batches (tx_batch), a burst of two or more goes to the host in
 * one call instead and is consumed whole: a frame the host refuses is
 * dropped (DROP_HOST), never -EBUSY.
 *
 * Return: chains consumed (sent or dropped)
 */
unsigned int net_tx_burst(const struct net_io *io, unsigned int max,
			  uint64_t *bytes, int *err)
{
	struct vq_chain *c = io->s->chains;
	unsigned int n, i;
	int ret = 0;

	*bytes = 0;
	max = MIN(max, (unsigned int)NET_TX_BURST);
	n = vq_pop_burst(io->vq, c, max, &ret);
	for (i = 0; i < n; i++) {
		const uint8_t *p = c[i].iov[0].iov_base;

		if (!c[i].nout)
			continue;
		__builtin_prefetch(p);
		if (c[i].iov[0].iov_len > 64)
			__builtin_prefetch(p + 64);
	}
	if (io->s->uring && io->host->ops->tx_batch && n > 1) {
		*bytes = net_tx_batch(io, c, n);
		*err = ret;
		return n;
	}
	for (i = 0; i < n; i++) {
		int sent = net_tx_send(io, &c[i]);

		if (sent == -EBUSY) {
			vq_discard(io->vq, &c[i], n - i);
			net_tx_flush(io);
			*err = -EBUSY;
			return i;
		}
		*bytes += (unsigned int)sent;
	}
	net_tx_flush(io);
	*err = ret;
	return n;
}

/**
 * net_tx_one() - Send the next guest TX chain to the host side
 * @io:		TX ring of the pair
 *
 * The chain is completed (vq_push, length 0) whether it was sent or
 * dropped; the caller flushes once per batch.
 *
 * Return: frame bytes sent (0 if dropped), -EAGAIN if the ring is empty,
 *	   -EBADMSG if it is broken, -ENOSPC if the caller must flush first,
 *	   -EBUSY if the host side is full (the chain stays in the ring)
 */
int net_tx_one(const struct net_io *io)
{
	uint64_t bytes;
	int err;

	if (net_tx_burst(io, 1, &bytes, &err))
		return (int)bytes;
	return err;
}

/**
 * net_tx_drop_one() - Consume and drop the next TX chain (disabled ring)
 * @io:		TX ring of the pair
 *
 * Return: 0 if a chain was dropped, else as vq_pop()
 */
int net_tx_drop_one(const struct net_io *io)
{
	struct vq_chain *c = &io->s->chains[0];
	int ret;

	ret = vq_pop(io->vq, c);
	if (ret)
		return ret;
	vq_push(io->vq, c, 0);
	io->acc->drops[DROP_DISABLED]++;
	return 0;
}

/**
 * struct net_rx_bufs - Guest buffers gathered for one frame
 * @nc:		Chains popped (in io->s->chains)
 * @niov:	Writable iovecs of those chains, flattened in io->s->iov
 * @total:	Bytes they hold
 * @capped:	Stopped at a limit (chains/iovecs), not for want of buffers
 */
struct net_rx_bufs {
	unsigned int nc;
	unsigned int niov;
	size_t total;
	bool capped;
};

/*
 * Add the chain just popped into io->s->chains[@b->nc] to @b. A chain whose
 * iovecs can never fit (keeping one for the bounce tail) is completed empty
 * if it is the first; after others it is given back and @b is capped.
 * Return: 0 (go on), 1 (capped: stop gathering)
 */
static int net_rx_take(const struct net_io *io, struct net_rx_bufs *b,
		       struct vq_chain *c)
{
	if (b->niov + c->nin > NET_MAX_IOV - 1) {
		if (!b->nc) {
			/* never usable: complete it empty, go on */
			vq_push(io->vq, c, 0);
			io->acc->drops[DROP_NO_RX_BUF]++;
			return 0;
		}
		vq_discard(io->vq, c, 1);
		b->capped = true;
		return 1;
	}
	memcpy(&io->s->iov[b->niov], &c->iov[c->nout],
	       c->nin * sizeof(struct iovec));
	b->niov += c->nin;
	b->total += c->in_len;
	b->nc++;
	return 0;
}

/*
 * Pop chains until @need bytes are covered, appending to what @b already
 * holds (zero it for a new frame); 0 or a vq_pop() error. On an error
 * every chain in @b is given back.
 */
static int net_rx_gather(const struct net_io *io, size_t need, bool mrg,
			 struct net_rx_bufs *b)
{
	unsigned int max_chains = mrg ? NET_RX_MAX_CHAINS : 1;
	struct vq_chain *c;
	int ret = 0;

	b->capped = false;
	while (b->total < need) {
		if (b->nc >= max_chains) {
			b->capped = true;
			break;
		}
		c = &io->s->chains[b->nc];
		ret = vq_pop(io->vq, c);
		if (ret)
			break;
		if (net_rx_take(io, b, c))
			break;
	}
	/* out of buffers, or our own chains fill the spill area: use these */
	if (ret == -EAGAIN || (ret == -ENOSPC && b->nc)) {
		b->capped |= ret == -ENOSPC;
		ret = 0;
	}
	if (ret && b->nc) {
		vq_discard(io->vq, io->s->chains, b->nc);
		b->nc = 0;
	}
	return ret;
}

/* Drop the frame waiting on the host side (read it into the bounce buffer) */
static void net_rx_drop_frame(const struct net_io *io, enum ring_drop why)
{
	struct iovec iov = { io->s->bounce, NET_BOUNCE_SIZE };

	io->host->ops->rx(io->host, io->pair, &iov, 1);
	io->acc->drops[why]++;
}

/* 5.1.6.4: num_buffers, 1 without MRG_RXBUF, in the frame's header */
static inline void net_rx_set_nbuf(const struct net_io *io,
				   const struct iovec *iov, unsigned int niov,
				   unsigned int used)
{
	uint16_t nbuf = htole16((uint16_t)used);

	if (io->hdr_len != VNET_HDR_MAX)
		return;
	if (niov && iov[0].iov_len >= VNET_HDR_MAX)
		memcpy((uint8_t *)iov[0].iov_base +
		       offsetof(struct virtio_net_hdr_v1, num_buffers),
		       &nbuf, sizeof(nbuf));
	else
		iov_from_buf(iov, niov,
				 offsetof(struct virtio_net_hdr_v1, num_buffers),
				 &nbuf, sizeof(nbuf));
}

/* Complete the chains the frame of @len bytes filled, give back the rest */
static void net_rx_complete(const struct net_io *io,
			    const struct net_rx_bufs *b, size_t len)
{
	size_t left = len, n;
	unsigned int used = 0;

	while (used < b->nc && (left || !used)) {
		n = MIN(left, (size_t)io->s->chains[used].in_len);
		left -= n;
		used++;
	}
	net_rx_set_nbuf(io, io->s->iov, b->niov, used);
	left = len;
	for (unsigned int i = 0; i < used; i++) {
		n = MIN(left, (size_t)io->s->chains[i].in_len);
		vq_push(io->vq, &io->s->chains[i], (uint32_t)n);
		left -= n;
	}
	if (used < b->nc)
		vq_discard(io->vq, &io->s->chains[used], b->nc - used);
}

/*
 * Give back the @nc chains from @c on (the latest pops, in pop order) of a
 * frame that does not fit. Mergeable: unused, they pop again. One chain
 * (no MRG_RXBUF): completed empty, or a buffer too small for every frame
 * would stall the ring; the driver reposts it (Linux counts an rx length
 * error).
 */
static void net_rx_giveback(const struct net_io *io, struct vq_chain *c,
			    unsigned int nc, bool mrg)
{
	if (mrg || !nc)
		vq_discard(io->vq, c, nc);
	else
		vq_push(io->vq, c, 0);
}

/* The frame is longer than the guest offered: wait for buffers or drop */
static int net_rx_short(const struct net_io *io, struct net_rx_bufs *b,
			bool mrg)
{
	net_rx_giveback(io, io->s->chains, b->nc, mrg);
	/* Mergeable: more buffers may come; one chain never grows */
	if (mrg && !b->capped)
		return -ENOBUFS;
	net_rx_drop_frame(io, DROP_TOO_BIG);
	return 0;
}

/*
 * Bytes to offer a host that cannot tell the frame's length (tap), with
 * mergeable buffers: the size estimate (rx_policy.h)
 */
static size_t net_rx_want(const struct net_io *io, size_t max, bool mrg)
{
	if (!mrg || !io->rx_est)
		return max;
	return rx_est_want(*io->rx_est, max);
}

/*
 * The frame of @len bytes overflowed the @b chains into the bounce tail:
 * pop more chains and copy the tail there. If the guest has too few
 * buffers, @b stays short of @len and the caller drops the frame.
 */
static void net_rx_extend(const struct net_io *io, struct net_rx_bufs *b,
			  size_t len)
{
	size_t tail = len - b->total;
	unsigned int niov = b->niov;

	if (net_rx_gather(io, len, true, b) || b->total < len)
		return;
	iov_from_buf(&io->s->iov[niov], b->niov - niov, 0, io->s->bounce,
			 tail);
}

/* Count a frame the host side failed (@len < 0), cut short of a vnet
 * header, or made longer than the @total bytes the guest offered */
static void net_rx_count_bad(const struct net_io *io, ssize_t len,
			     size_t total, bool mrg)
{
	if (len >= 0 && (size_t)len > total)
		io->acc->drops[mrg ? DROP_NO_RX_BUF : DROP_TOO_BIG]++;
	else
		io->acc->drops[len == -EMSGSIZE ? DROP_TOO_BIG : DROP_HOST]++;
}

/*
 * The common frame: its length is known and the one chain @c just popped
 * holds all of it. The host side writes straight into the chain's iovecs:
 * none of the gathering, flattening or bounce tail of net_rx_gathered().
 * @ahead: chains popped after @c (net_rx_frame()); when @c goes back
 * unused they go back with it (vq_discard() takes the latest pops) and
 * *@ahead becomes 0.
 */
static inline int net_rx_fit(const struct net_io *io, struct vq_chain *c,
			     unsigned int *ahead)
{
	bool mrg = io->features & BIT(VIRTIO_NET_F_MRG_RXBUF);
	const struct iovec *iov = &c->iov[c->nout];
	ssize_t len;

	len = io->host->ops->rx(io->host, io->pair, iov, c->nin);
	if (len == -EAGAIN) {
		vq_discard(io->vq, c, 1 + *ahead);
		*ahead = 0;
		return -EAGAIN;
	}
	/* no estimate to keep: this host side tells each frame's length */
	if (len < (ssize_t)io->hdr_len || (size_t)len > c->in_len) {
		/* mergeable: @c goes back, and the later pops with it */
		net_rx_giveback(io, c, mrg ? 1 + *ahead : 1, mrg);
		if (mrg)
			*ahead = 0;
		net_rx_count_bad(io, len, c->in_len, mrg);
		return 0;
	}
	net_rx_set_nbuf(io, iov, c->nin, 1);
	vq_push(io->vq, c, (uint32_t)len);
	io->acc->packets++;
	io->acc->bytes += (uint64_t)len - io->hdr_len;
	return (int)(len - io->hdr_len);
}

/*
 * Every frame but the common one: chain @c (io->s->chains[0], just popped)
 * is too small for the @peek bytes announced, or the host side cannot tell
 * (@peek < 0), or it says the frame was cut (-EMSGSIZE: dropped as too
 * big, @c given back). Out of line, so that net_rx_frame() stays small.
 */
static NOINLINE int net_rx_gathered(const struct net_io *io,
				    struct vq_chain *c, ssize_t peek)
{
	bool mrg = io->features & BIT(VIRTIO_NET_F_MRG_RXBUF);
	struct net_rx_bufs b = { 0 };
	size_t need, want;
	ssize_t len;
	int ret = 0;

	if (peek == -EMSGSIZE) {
		/* cut by the host side: too large for any guest buffers */
		vq_discard(io->vq, c, 1);
		net_rx_drop_frame(io, DROP_TOO_BIG);
		return 0;
	}
	need = peek > 0 ? (size_t)peek : VNET_FRAME_MAX + io->hdr_len;
	want = peek > 0 ? need : net_rx_want(io, need, mrg);
	if (!net_rx_take(io, &b, c))
		ret = net_rx_gather(io, want, mrg, &b);
	if (ret)
		return ret;
	if (!b.nc)
		return -ENOBUFS;
	if (b.total < need && peek > 0)
		return net_rx_short(io, &b, mrg);
	if (b.total < need) {
		/* tail for what the guest buffers cannot hold */
		io->s->iov[b.niov].iov_base = io->s->bounce;
		/* + 1: a host that fills every byte had to cut the frame */
		io->s->iov[b.niov].iov_len = need - b.total + 1;
	}
	len = io->host->ops->rx(io->host, io->pair, io->s->iov,
			      b.niov + (b.total < need));
	if (len == -EAGAIN) {
		vq_discard(io->vq, io->s->chains, b.nc);
		return -EAGAIN;
	}
	if (len > 0 && io->rx_est)
		rx_est_update(io->rx_est, (size_t)len);
	/* under the estimate: the rest of the frame is in the bounce tail */
	if (mrg && len >= (ssize_t)io->hdr_len && (size_t)len > b.total &&
	    (size_t)len <= need && !b.capped)
		net_rx_extend(io, &b, (size_t)len);	/* else dropped below */
	if (len < (ssize_t)io->hdr_len || (size_t)len > b.total) {
		net_rx_giveback(io, io->s->chains, b.nc, mrg);
		net_rx_count_bad(io, len, b.total, mrg);
		return 0;
	}
	net_rx_complete(io, &b, (size_t)len);
	io->acc->packets++;
	io->acc->bytes += (uint64_t)len - io->hdr_len;
	return (int)(len - io->hdr_len);
}

/**
 * struct net_rx_ahead - RX chains popped before their frames
 * @at:		Next one to use, io->s->chains[at]
 * @have:	Chains popped, io->s->chains[0 .. have)
 * @off:	A frame needed more than its one chain: one at a time from
 *		now on
 */
struct net_rx_ahead {
	unsigned int at;
	unsigned int have;
	bool off;
};

/*
 * net_rx_frame() - Receive one frame from the host side into guest RX buffers
 * @io:		RX ring of the pair
 * @a:		Chains popped ahead (net_rx_burst()'s)
 * @peek:	What rx_peek_len() said of the frame: its length, or < 0 if
 *		the host side cannot tell (never 0)
 * @left:	Frames the burst may still take
 *
 * With a known frame length, chains come NET_RX_AHEAD at a time
 * (vq_pop_burst(): a packed ring's cache line at once), and a frame the
 * next one holds is written straight into it (net_rx_fit(): the common
 * frame). Any other frame gets the chains it needs from net_rx_gathered(),
 * after those popped ahead went back. A longer frame of known length gets
 * exactly enough chains. Without a length (tap), with MRG_RXBUF, the
 * chains offered cover the ring's size estimate (the recent frames'
 * sizes), followed by a bounce tail for the rest of a maximal frame: a
 * frame longer than the estimate has its tail copied from the bounce
 * buffer into more chains popped after the read (net_rx_extend()), and is
 * dropped as no_rx_buf only if the guest has too few of them. Without
 * MRG_RXBUF one chain must hold the whole frame (5.1.6.3.1): what
 * overflows it into the bounce tail is dropped as too_big.
 *
 * Return: as net_rx_one()
 */
static inline int net_rx_frame(const struct net_io *io, struct net_rx_ahead *a,
			       ssize_t peek, unsigned int left)
{
	struct vq_chain *c;
	unsigned int after;
	int ret;

	if (a->at == a->have) {
		a->at = 0;
		a->have = vq_pop_burst(io->vq, io->s->chains,
				       peek > 0 && !a->off ?
				       MIN(left, (unsigned int)NET_RX_AHEAD) : 1,
				       &ret);
		if (!a->have)
			return ret == -EAGAIN ? -ENOBUFS : ret;
	}
	c = &io->s->chains[a->at];
	if (peek > 0 && c->in_len >= (size_t)peek) {
		after = a->have - ++a->at;
		ret = net_rx_fit(io, c, &after);
		a->have = a->at + after;
		return ret;
	}
	/* net_rx_gathered() takes chains[0], the latest pop, and pops on */
	ret = 0;
	if (a->have > 1 || a->at) {
		vq_discard(io->vq, c, a->have - a->at);
		a->off = true;
		c = &io->s->chains[0];
		ret = vq_pop(io->vq, c);
	}
	a->at = a->have = 0;
	if (ret)
		return ret == -EAGAIN ? -ENOBUFS : ret;
	return net_rx_gathered(io, c, peek);
}

/*
 * The next frame's length, as rx_peek_len() says. A host side that holds
 * nothing and can read a batch into its own buffers (tap with the
 * thread's io_uring: rx_fill) reads one first, so that its frames, too,
 * come with their lengths (NET_RX_AHEAD pops, net_rx_fit()).
 */
static inline ssize_t net_rx_peek(const struct net_io *io)
{
	const struct host_ops *ops = io->host->ops;
	ssize_t peek = ops->rx_peek_len(io->host, io->pair);
	int got;

	if (peek >= 0 || !io->s->uring || !ops->rx_fill)
		return peek;
	got = ops->rx_fill(io->host, io->pair, io->s->uring);
	if (got < 0)
		return peek;
	return got ? ops->rx_peek_len(io->host, io->pair) : 0;
}

/**
 * net_rx_one() - Receive one frame from the host side into guest RX buffers
 * @io:		RX ring of the pair
 *
 * net_rx_burst() of one frame; how buffers are chosen: net_rx_frame().
 *
 * Return: frame bytes delivered (0 if dropped), -EAGAIN if the host side has
 *	   nothing, -ENOBUFS if the guest has too few buffers (the frame
 *	   waits), -EBADMSG if the ring is broken, -ENOSPC if the caller must
 *	   flush first
 */
int net_rx_one(const struct net_io *io)
{
	uint64_t bytes;
	int err;

	return net_rx_burst(io, 1, UINT64_MAX, &bytes, &err) ? (int)bytes : err;
}

/**
 * net_rx_burst() - Receive frames until a budget or the first refusal
 * @io:		RX ring of the pair
 * @max:	Frames at most
 * @max_bytes:	Stop once this many frame bytes were delivered
 * @bytes:	Frame bytes delivered (out)
 * @err:	Why it stopped (out): 0 (a budget ran out) or a frame's
 *		negative return (see net_rx_one())
 *
 * The worker's per-frame loop, here so that the frame path (net_rx_frame())
 * is inlined into it: no call and no reload of @io's fields per frame.
 *
 * Return: frames received or dropped
 */
unsigned int net_rx_burst(const struct net_io *io, unsigned int max,
			  uint64_t max_bytes, uint64_t *bytes, int *err)
{
	struct net_rx_ahead a = { 0 };
	unsigned int n = 0;
	ssize_t peek;
	int ret = 0;

	*bytes = 0;
	while (n < max && *bytes < max_bytes) {
		peek = net_rx_peek(io);
		if (!peek) {
			ret = -EAGAIN;
			break;
		}
		ret = net_rx_frame(io, &a, peek, max - n);
		if (ret < 0)
			break;
		n++;
		*bytes += (unsigned int)ret;
	}
	/* popped ahead, no frame came for them */
	vq_discard(io->vq, &io->s->chains[a.at], a.have - a.at);
	*err = ret < 0 ? ret : 0;
	return n;
}
