// SPDX-License-Identifier: MIT
/*
 * xsk_ring.c - the data path of one AF_XDP socket (kernel
 * Documentation/networking/af_xdp.rst): the fill, completion, RX and TX
 * rings and the UMEM they point into, by copy. host_afxdp.c makes the
 * socket (libxdp) and turns the wake-ups this file asks for into sendto()
 * or recvfrom(); nothing here makes a syscall, allocates or locks after
 * xsk_queue_init().
 *
 * The UMEM of a queue is split once: chunks [0, nrx) are for RX (they go
 * round fill ring -> kernel -> RX ring -> held here -> recycle stash -> fill
 * ring), chunks [nrx, nrx + ntx) for TX (free stack -> TX ring -> kernel ->
 * completion ring -> free stack). The fill ring holds nrx entries and the
 * completion ring ntx or more, so neither can overflow.
 *
 * TX metadata (xsk_tx_metadata(), a UMEM registered with tx_metadata_len):
 * every TX frame starts q->txmd bytes into its chunk, the descriptor and
 * the completion carry that address; a frame sent with xsk_tx_put_csum()
 * has its struct xsk_tx_metadata in those bytes and XDP_TX_METADATA in its
 * descriptor's options, asking the kernel (copy mode) or the NIC to fill
 * its checksum.
 *
 * GRO (xsk_rx_gro(), for a guest that acked GUEST_CSUM and GUEST_TSO4/6):
 * the frames held from one RX batch are looked at in order, and a run of
 * consecutive TCP segments of one flow (gro.c's rules, checksums verified)
 * becomes one GSO frame: xsk_rx_peek() says its length, xsk_rx_copy()
 * writes its vnet header, the first segment's rewritten headers and every
 * segment's payload straight from the UMEM into the guest's buffers (one
 * copy, as for a single frame) and recycles every chunk of the run. A run
 * never reaches past the batch: nothing is held back for a later one, so
 * there is no timer. A frame that starts no run goes as before, alone,
 * with an all-zero vnet header.
 *
 * Security model: the kernel is trusted not to scribble, but what it hands
 * back is still checked once, where it enters, on a local copy: an RX
 * descriptor must lie inside one RX chunk (address in the RX area, length
 * not past the end of its chunk, not 0, no multi-buffer continuation), a
 * completion address must be the start of a TX chunk, and no more TX
 * chunks may come back than are out. A descriptor that fails is refused
 * and counted (xsk_stats); its memory is not read and, unless its address
 * names a chunk that is ours, nothing is recycled for it. Producer indices
 * that claim more entries than the ring has are clamped to the ring size.
 *
 * Ring ordering (kernel net/xdp/xsk_queue.h): a producer writes entries,
 * then stores the producer index with release; a consumer loads the
 * producer index with acquire, reads the entries, then stores the consumer
 * index with release.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if_xdp.h>

#include "gro.h"
#include "util.h"
#include "vnet_hdr.h"
#include "xsk_ring.h"
#include "xsk_txmd.h"

#ifndef XDP_PKT_CONTD
#define XDP_PKT_CONTD	(1 << 0)
#endif

static inline uint32_t xsk_ring_size(const struct xsk_ring *r)
{
	return r->mask + 1;
}

/* Entries a producer may still write (refreshes the consumer index) */
static uint32_t xsk_prod_free(struct xsk_ring *r)
{
	uint32_t used = r->prod - r->cons;

	if (used < xsk_ring_size(r))
		return xsk_ring_size(r) - used;
	/* Pairs with the kernel's release store of the consumer index */
	r->cons = LOAD_ACQUIRE(*r->consumer);
	used = r->prod - r->cons;
	return used < xsk_ring_size(r) ? xsk_ring_size(r) - used : 0;
}

/* Entries a consumer may read, at most the ring's size */
static uint32_t xsk_cons_avail(struct xsk_ring *r)
{
	uint32_t n;

	/* Pairs with the kernel's release store of the producer index */
	r->prod = LOAD_ACQUIRE(*r->producer);
	n = r->prod - r->cons;
	return MIN(n, xsk_ring_size(r));
}

/* Publish what a producer wrote up to r->prod */
static inline void xsk_prod_publish(struct xsk_ring *r)
{
	/* Orders the entries' stores before the index; pairs with the
	 * kernel's acquire load of the producer index */
	STORE_RELEASE(*r->producer, r->prod);
}

/* Give @n read entries back to the kernel */
static inline void xsk_cons_release(struct xsk_ring *r, uint32_t n)
{
	r->cons += n;
	/* Orders our reads of the entries before the kernel reuses them */
	STORE_RELEASE(*r->consumer, r->cons);
}

/* Does the kernel ask to be woken for @r (after we published)? */
static inline bool xsk_needs_wakeup(const struct xsk_ring *r)
{
	/* Orders our producer store before the flag load; pairs with the
	 * kernel setting the flag and then re-checking the ring */
	smp_mb();
	return READ_ONCE(*r->flags) & XDP_RING_NEED_WAKEUP;
}

static int xsk_queue_setup(struct xsk_queue *q, uint8_t *umem, uint32_t chunk,
			   uint32_t nrx, uint32_t ntx);

/**
 * xsk_queue_init() - Take a socket's rings and UMEM into use
 * @q:		Queue; its four struct xsk_ring must be filled in (pointers
 *		and mask), everything else is set here
 * @umem:	UMEM area, (@nrx + @ntx) * @chunk bytes
 * @chunk:	Chunk size, a power of two
 * @nrx:	RX chunks (at most the fill ring's size)
 * @ntx:	TX chunks (at most the completion ring's size)
 *
 * Every RX chunk goes into the fill ring at once.
 *
 * Context: control thread, before any worker uses @q
 * Return: 0, -EINVAL for sizes that do not fit, -ENOMEM
 */
int xsk_queue_init(struct xsk_queue *q, uint8_t *umem, uint32_t chunk,
		   uint32_t nrx, uint32_t ntx)
{
	uint32_t i;
	int ret = xsk_queue_setup(q, umem, chunk, nrx, ntx);

	if (ret)
		return ret;
	for (i = 0; i < nrx; i++)
		q->recycle[i] = (uint64_t)i * chunk;
	q->nrecycle = nrx;
	xsk_fill_refill(q);
	return 0;
}

/**
 * xsk_queue_adopt() - Take a socket another process settled into use
 * @q:		Queue; its four struct xsk_ring must be filled in (pointers
 *		and mask) with the rings of the socket as it was handed over
 * @umem:	UMEM area, (@nrx + @ntx) * @chunk bytes
 * @chunk:	Chunk size, a power of two
 * @nrx:	RX chunks
 * @ntx:	TX chunks
 *
 * The previous owner settled the socket (xsk_queue_settle()): every TX
 * chunk is free and every RX chunk is in the fill ring, the RX ring, or in
 * the kernel between them. So our state is rebuilt from the rings' indices
 * alone: all TX chunks free, nothing to recycle, nothing held. A TX or
 * completion ring that still holds entries, or a fill ring claiming more
 * entries than RX chunks, means it was not settled: refused, since a chunk
 * could then be in two places.
 *
 * Context: control thread, before any worker uses @q
 * Return: 0, -EINVAL for sizes that do not fit, -EBUSY if not settled,
 *	   -ENOMEM
 */
int xsk_queue_adopt(struct xsk_queue *q, uint8_t *umem, uint32_t chunk,
		    uint32_t nrx, uint32_t ntx)
{
	int ret = xsk_queue_setup(q, umem, chunk, nrx, ntx);

	if (ret)
		return ret;
	if (q->tx.prod != q->tx.cons ||
	    LOAD_ACQUIRE(*q->comp.producer) != q->comp.cons ||
	    q->fill.prod - q->fill.cons > nrx) {
		xsk_queue_cleanup(q);
		return -EBUSY;
	}
	/* a wake-up costs nothing: the driver may wait for one */
	q->fill_kick = true;
	return 0;
}

/* What xsk_queue_init() and xsk_queue_adopt() share: sizes, free lists,
 * our copies of the indices, every TX chunk free, nothing recycled */
static int xsk_queue_setup(struct xsk_queue *q, uint8_t *umem, uint32_t chunk,
			   uint32_t nrx, uint32_t ntx)
{
	uint32_t i;

	if (!chunk || (chunk & (chunk - 1)) || !nrx || !ntx ||
	    nrx > xsk_ring_size(&q->fill) || ntx > xsk_ring_size(&q->comp))
		return -EINVAL;
	q->umem = umem;
	q->chunk = chunk;
	q->nrx = nrx;
	q->ntx = ntx;
	q->tx_free = calloc(ntx, sizeof(*q->tx_free));
	q->recycle = calloc(nrx, sizeof(*q->recycle));
	if (!q->tx_free || !q->recycle) {
		xsk_queue_cleanup(q);
		return -ENOMEM;
	}
	q->fill.prod = LOAD_ACQUIRE(*q->fill.producer);
	q->fill.cons = LOAD_ACQUIRE(*q->fill.consumer);
	q->tx.prod = LOAD_ACQUIRE(*q->tx.producer);
	q->tx.cons = LOAD_ACQUIRE(*q->tx.consumer);
	q->rx.cons = LOAD_ACQUIRE(*q->rx.consumer);
	q->rx.prod = q->rx.cons;
	q->comp.cons = LOAD_ACQUIRE(*q->comp.consumer);
	q->comp.prod = q->comp.cons;
	for (i = 0; i < ntx; i++)
		q->tx_free[i] = (uint64_t)(nrx + ntx - 1 - i) * chunk;
	q->ntx_free = ntx;
	q->nrecycle = 0;
	q->tx_pending = 0;
	q->at = q->nheld = 0;
	q->fill_kick = false;
	q->txmd = 0;
	q->gro = 0;
	q->gro_cap = 0;
	q->run = 0;
	memset(&q->stats, 0, sizeof(q->stats));
	return 0;
}

/**
 * xsk_queue_cleanup() - Free what xsk_queue_init() allocated
 * @q:		Queue (the rings and UMEM belong to the caller)
 */
void xsk_queue_cleanup(struct xsk_queue *q)
{
	free(q->tx_free);
	free(q->recycle);
	q->tx_free = NULL;
	q->recycle = NULL;
	q->ntx_free = q->nrecycle = 0;
	q->at = q->nheld = 0;
	q->run = 0;
}

/**
 * xsk_fill_refill() - Give the recycled RX chunks back to the kernel
 * @q:		Queue
 *
 * One publish for all of them.
 *
 * Context: the worker thread that owns @q
 * Return: true if the kernel asks for a wake-up (recvfrom()/poll())
 */
bool xsk_fill_refill(struct xsk_queue *q)
{
	/* once: MIN() evaluates an argument twice, and the kernel moves the
	 * index between two reads (a second, larger room ran the stash
	 * below zero) */
	uint32_t room = xsk_prod_free(&q->fill), n = MIN(q->nrecycle, room), i;
	uint64_t *ring = q->fill.desc;

	if (!n)
		return false;
	for (i = 0; i < n; i++)
		ring[(q->fill.prod + i) & q->fill.mask] = q->recycle[--q->nrecycle];
	q->fill.prod += n;
	xsk_prod_publish(&q->fill);
	if (!xsk_needs_wakeup(&q->fill))
		return false;
	q->stats.fill_wakeups++;
	return true;
}

/* An RX chunk is done with: into the stash for the next refill */
static inline void xsk_rx_recycle(struct xsk_queue *q, uint64_t addr)
{
	/* never more than nrx: each RX chunk is in one place at a time */
	if (q->nrecycle < q->nrx)
		q->recycle[q->nrecycle++] = addr & ~(uint64_t)(q->chunk - 1);
}

/*
 * Check the copy @d of an RX descriptor: 0 (hold it), 1 (refused, its
 * chunk is ours: recycle it), -1 (refused, not ours: touch nothing)
 */
static int xsk_rx_check(const struct xsk_queue *q, const struct xdp_desc *d)
{
	uint64_t off = d->addr & (q->chunk - 1);

	if (d->addr >= (uint64_t)q->nrx * q->chunk)
		return -1;
	if (!d->len || d->len > q->chunk - off || (d->options & XDP_PKT_CONTD))
		return 1;
	return 0;
}

/* Take up to XSK_RX_BATCH descriptors off the RX ring; Return: held */
static uint32_t xsk_rx_take(struct xsk_queue *q)
{
	const struct xdp_desc *ring = q->rx.desc;
	/* once, as in xsk_fill_refill(): a second read could pass the batch */
	uint32_t avail = xsk_cons_avail(&q->rx), i;
	uint32_t n = MIN(avail, (uint32_t)XSK_RX_BATCH);
	struct xdp_desc d;
	int bad;

	q->at = q->nheld = 0;
	q->run = 0;
	for (i = 0; i < n; i++) {
		memcpy(&d, &ring[(q->rx.cons + i) & q->rx.mask], sizeof(d));
		bad = xsk_rx_check(q, &d);
		if (bad) {
			q->stats.bad_rx++;
			if (bad > 0)
				xsk_rx_recycle(q, d.addr);
			continue;
		}
		/*
		 * The kernel wrote the frame on another CPU: its first line
		 * is a cache miss for whoever reads it first (GRO's parse, the
		 * copy). Asking for all of the batch's first lines now overlaps
		 * those misses (perf: that one load was a quarter of the RX path)
		 */
		__builtin_prefetch(q->umem + d.addr);
		q->held_addr[q->nheld] = d.addr;
		q->held_len[q->nheld++] = d.len;
	}
	if (n)
		xsk_cons_release(&q->rx, n);
	return q->nheld;
}

/**
 * xsk_rx_gro() - Merge held TCP segments into GSO frames for the guest, or not
 * @q:		Queue
 * @families:	GRO_IPV4 and/or GRO_IPV6: the families whose TSO the guest
 *		acked (with GUEST_CSUM); 0 turns GRO off
 * @cap:	Merged frame bytes at most (after the vnet header)
 *
 * Context: control thread, the owning worker paused (the host side's
 *	    configure())
 */
void xsk_rx_gro(struct xsk_queue *q, unsigned int families, uint32_t cap)
{
	q->gro = (uint8_t)(families & (GRO_IPV4 | GRO_IPV6));
	q->gro_cap = cap;
	q->run = 0;
}

/*
 * Find the run of held frames from q->at that make the next frame for the
 * guest: one frame, or with GRO the segments gro.c merges (a vnet header
 * of at least the legacy 10 bytes says so). Sets q->run, q->run_len and,
 * for a run of several, q->run_vh and q->run_gro.
 */
static void xsk_rx_run(struct xsk_queue *q, unsigned int hdr_len)
{
	struct gro *g = &q->run_gro;
	uint32_t i = q->at;

	q->run = 1;
	q->run_len = q->held_len[i];
	if (hdr_len < VNET_HDR_LEGACY || hdr_len > sizeof(q->run_vh) ||
	    i + 1 == q->nheld ||
	    gro_start(g, q->umem + q->held_addr[i], q->held_len[i], q->gro,
		      q->gro_cap))
		return;
	while (++i < q->nheld &&
	       gro_add(g, q->umem + q->held_addr[i], q->held_len[i]))
		;
	if (g->count > 1) {
		q->run = g->count;
		q->run_len = gro_finish(g, &q->run_vh);
	}
}

/* Length of the next frame for the guest, frames held: @hdr_len + bytes */
static inline ssize_t xsk_rx_len(struct xsk_queue *q, unsigned int hdr_len)
{
	if (!q->gro)
		return (ssize_t)q->held_len[q->at] + hdr_len;
	if (!q->run)
		xsk_rx_run(q, hdr_len);
	return (ssize_t)q->run_len + hdr_len;
}

/**
 * xsk_rx_peek() - Length of the next frame for the guest
 * @q:		Queue
 * @hdr_len:	vnet header bytes the guest gets in front of it
 *
 * When nothing is held: first gives the RX chunks done with back to the
 * fill ring (one publish; q->fill_kick says whether the kernel wants a
 * wake-up), then takes a batch of descriptors off the RX ring, each checked.
 * With GRO on, the next frame may be several held TCP segments merged
 * (xsk_rx_run()); the answer stands until xsk_rx_copy() takes that frame.
 *
 * Context: the worker thread that owns @q
 * Return: @hdr_len + frame length, 0 if no frame waits
 */
ssize_t xsk_rx_peek(struct xsk_queue *q, unsigned int hdr_len)
{
	unsigned int tries = xsk_ring_size(&q->rx) / XSK_RX_BATCH + 1;

	if (q->at < q->nheld)
		return xsk_rx_len(q, hdr_len);
	q->fill_kick |= xsk_fill_refill(q);
	/* a batch of refused descriptors only: look again, bounded */
	while (tries-- && !xsk_rx_take(q) && q->rx.prod != q->rx.cons)
		;
	return q->nheld ? xsk_rx_len(q, hdr_len) : 0;
}

/* Copy @len bytes of @src into @iov from byte @off; Return: bytes that did
 * not fit */
static size_t xsk_iov_put(const struct iovec *iov, unsigned int iovcnt,
			  size_t off, const uint8_t *src, size_t len)
{
	unsigned int i;
	size_t n;

	for (i = 0; i < iovcnt && len; i++) {
		if (off >= iov[i].iov_len) {
			off -= iov[i].iov_len;
			continue;
		}
		n = MIN(iov[i].iov_len - off, len);
		memcpy((uint8_t *)iov[i].iov_base + off, src, n);
		src += n;
		len -= n;
		off = 0;
	}
	return len;
}

/**
 * struct xsk_iov_cur - Where the next byte goes in a guest's iovec
 * @iov:	Current entry
 * @n:		Entries from @iov on
 * @off:	Bytes of @iov already written
 */
struct xsk_iov_cur {
	const struct iovec *iov;
	unsigned int n;
	size_t off;
};

/* Append @len bytes of @src at @c; Return: bytes that did not fit */
static size_t xsk_cur_put(struct xsk_iov_cur *c, const uint8_t *src, size_t len)
{
	size_t k;

	while (len && c->n) {
		k = MIN(c->iov->iov_len - c->off, len);
		if (k)
			memcpy((uint8_t *)c->iov->iov_base + c->off, src, k);
		src += k;
		len -= k;
		c->off += k;
		if (c->off == c->iov->iov_len) {
			c->iov++;
			c->n--;
			c->off = 0;
		}
	}
	return len;
}

/*
 * The next frame is a merged run (q->run > 1): its vnet header, the
 * rewritten headers, then each segment's payload from its chunk; every
 * chunk recycled. Return: as xsk_rx_copy()
 */
static ssize_t xsk_rx_copy_run(struct xsk_queue *q, const struct iovec *iov,
			       unsigned int iovcnt, unsigned int hdr_len)
{
	struct xsk_iov_cur c = { iov, iovcnt, 0 };
	const struct gro *g = &q->run_gro;
	uint32_t n = q->run, i;
	uint64_t addr;
	size_t left;

	left = xsk_cur_put(&c, (const uint8_t *)&q->run_vh, hdr_len);
	if (!left)
		left = xsk_cur_put(&c, g->hdr, g->hlen);
	for (i = q->at; i < q->at + n; i++) {
		addr = q->held_addr[i];
		/* every segment's headers are g->hlen bytes (gro_add()) */
		if (!left)
			left = xsk_cur_put(&c, q->umem + addr + g->hlen,
					   q->held_len[i] - g->hlen);
		xsk_rx_recycle(q, addr);
	}
	q->at += n;
	q->run = 0;
	if (left) {
		q->stats.rx_too_big++;
		return -EMSGSIZE;
	}
	q->stats.gro_frames++;
	q->stats.gro_segs += n;
	return (ssize_t)hdr_len + q->run_len;
}

/**
 * xsk_rx_copy() - Give the next held frame to the guest
 * @q:		Queue
 * @iov:	Guest buffers
 * @iovcnt:	Entries in @iov
 * @hdr_len:	vnet header bytes to write first (all zero: no offload, the
 *		guest checks the checksums; a merged run's GSO header;
 *		net.c sets num_buffers)
 *
 * The frame xsk_rx_peek() announced: one held frame, or a run of merged
 * segments. It is consumed either way, its chunks recycled.
 *
 * Context: the worker thread that owns @q
 * Return: @hdr_len + frame length, -EAGAIN if none waits, -EMSGSIZE if
 *	   it did not fit (dropped)
 */
ssize_t xsk_rx_copy(struct xsk_queue *q, const struct iovec *iov,
		    unsigned int iovcnt, unsigned int hdr_len)
{
	static const uint8_t zero[16];
	uint64_t addr;
	uint32_t len;
	size_t left;

	if (q->at == q->nheld && !xsk_rx_peek(q, hdr_len))
		return -EAGAIN;
	if (q->run > 1)
		return xsk_rx_copy_run(q, iov, iovcnt, hdr_len);
	q->run = 0;
	addr = q->held_addr[q->at];
	len = q->held_len[q->at++];
	left = xsk_iov_put(iov, iovcnt, 0, zero, MIN(hdr_len, sizeof(zero)));
	if (!left)
		left = xsk_iov_put(iov, iovcnt, hdr_len, q->umem + addr, len);
	xsk_rx_recycle(q, addr);
	if (left || hdr_len > sizeof(zero)) {
		q->stats.rx_too_big++;
		return -EMSGSIZE;
	}
	return (ssize_t)hdr_len + len;
}

/**
 * xsk_rx_drop_held() - Forget the held frames (a session ended)
 * @q:		Queue
 *
 * Context: control thread, the owning worker paused
 */
void xsk_rx_drop_held(struct xsk_queue *q)
{
	while (q->at < q->nheld)
		xsk_rx_recycle(q, q->held_addr[q->at++]);
	q->run = 0;
}

/**
 * xsk_comp_reap() - Take finished TX chunks back from the completion ring
 * @q:		Queue
 *
 * A completion must name the frame start of a TX chunk (q->txmd bytes in).
 *
 * Context: the worker thread that owns @q
 * Return: chunks taken back (refused addresses not counted)
 */
unsigned int xsk_comp_reap(struct xsk_queue *q)
{
	const uint64_t *ring = q->comp.desc;
	uint64_t lo = (uint64_t)q->nrx * q->chunk;
	uint64_t hi = lo + (uint64_t)q->ntx * q->chunk;
	uint32_t n = xsk_cons_avail(&q->comp), i, got = 0;
	uint64_t addr;

	for (i = 0; i < n; i++) {
		addr = READ_ONCE(ring[(q->comp.cons + i) & q->comp.mask]);
		/* the address the descriptor had: q->txmd into a chunk */
		if (addr < lo || addr >= hi ||
		    (addr & (q->chunk - 1)) != q->txmd ||
		    q->ntx_free >= q->ntx) {
			q->stats.bad_comp++;
			continue;
		}
		q->tx_free[q->ntx_free++] = addr - q->txmd;
		got++;
	}
	if (n)
		xsk_cons_release(&q->comp, n);
	return got;
}

/**
 * xsk_tx_push() - Copy one guest frame into a TX chunk and queue it
 * @q:		Queue
 * @iov:	The frame, a vnet header of @skip bytes first
 * @iovcnt:	Entries in @iov
 * @skip:	vnet header bytes, not sent (no offload was offered)
 *
 * The descriptor is written, not published: xsk_tx_submit() publishes a
 * burst at once.
 *
 * Context: the worker thread that owns @q
 * Return: bytes taken (with the header), -EAGAIN if no chunk or TX slot is
 *	   free (retry later), -EMSGSIZE if the frame is larger than a chunk
 *	   (less its metadata room, xsk_tx_room()) or empty (dropped)
 */
ssize_t xsk_tx_push(struct xsk_queue *q, const struct iovec *iov,
		    unsigned int iovcnt, unsigned int skip)
{
	struct xdp_desc *ring = q->tx.desc, *d;
	size_t total = 0, len, off = skip, n;
	uint8_t *dst;
	unsigned int i;
	uint64_t addr;

	for (i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	if (total <= skip || total - skip > xsk_tx_room(q)) {
		q->stats.tx_too_big++;
		return -EMSGSIZE;
	}
	len = total - skip;
	if ((!q->ntx_free && !xsk_comp_reap(q)) || !xsk_prod_free(&q->tx)) {
		q->stats.tx_full++;
		return -EAGAIN;
	}
	addr = q->tx_free[--q->ntx_free] + q->txmd;
	dst = q->umem + addr;
	for (i = 0; i < iovcnt; i++) {
		if (off >= iov[i].iov_len) {
			off -= iov[i].iov_len;
			continue;
		}
		n = iov[i].iov_len - off;
		memcpy(dst, (const uint8_t *)iov[i].iov_base + off, n);
		dst += n;
		off = 0;
	}
	d = &ring[q->tx.prod++ & q->tx.mask];
	d->addr = addr;
	d->len = (uint32_t)len;
	d->options = 0;
	q->tx_pending++;
	return (ssize_t)total;
}

/**
 * xsk_tx_reserve() - Make sure @n frames can be queued with xsk_tx_put()
 * @q:		Queue
 * @n:		Frames (the segments of one guest frame: all or none go)
 *
 * Takes finished chunks back from the completion ring when the free ones
 * do not suffice.
 *
 * Context: the worker thread that owns @q
 * Return: true if @n chunks and @n TX slots are free, false (counted as
 *	   tx_full) if not: retry after a submit
 */
bool xsk_tx_reserve(struct xsk_queue *q, uint32_t n)
{
	if (q->ntx_free < n)
		xsk_comp_reap(q);
	/* xsk_prod_free() refreshes the consumer index only on a full ring */
	if (q->ntx_free >= n && xsk_prod_free(&q->tx) < n)
		q->tx.cons = LOAD_ACQUIRE(*q->tx.consumer);	/* as there */
	if (q->ntx_free >= n && xsk_prod_free(&q->tx) >= n)
		return true;
	q->stats.tx_full++;
	return false;
}

/**
 * xsk_tx_metadata() - Say that each TX chunk starts with metadata room
 * @q:		Queue, no TX frame out (just after xsk_queue_init() or
 *		xsk_queue_adopt())
 * @len:	The UMEM's tx_metadata_len: 0, or XSK_TXMD_LEN or more, a
 *		multiple of 8 smaller than a chunk
 */
void xsk_tx_metadata(struct xsk_queue *q, uint32_t len)
{
	q->txmd = len;
}

/**
 * xsk_tx_room() - The largest TX frame: a chunk less its metadata room
 * @q:		Queue
 *
 * Return: bytes
 */
uint32_t xsk_tx_room(const struct xsk_queue *q)
{
	return q->chunk - q->txmd;
}

/**
 * xsk_tx_chunk() - Where the next xsk_tx_put() frame goes, to write it in
 * @q:		Queue, with a chunk reserved (xsk_tx_reserve())
 *
 * Return: xsk_tx_room() bytes of UMEM, after the chunk's metadata room
 */
uint8_t *xsk_tx_chunk(const struct xsk_queue *q)
{
	return q->umem + q->tx_free[q->ntx_free - 1] + q->txmd;
}

/* Queue the frame in xsk_tx_chunk(), @options in its descriptor; Return:
 * the chunk's start (its metadata room) */
static uint8_t *xsk_tx_queue(struct xsk_queue *q, uint32_t len,
			     uint32_t options)
{
	struct xdp_desc *d = &((struct xdp_desc *)q->tx.desc)[q->tx.prod++ & q->tx.mask];
	uint64_t addr = q->tx_free[--q->ntx_free];

	d->addr = addr + q->txmd;
	d->len = len;
	d->options = options;
	q->tx_pending++;
	return q->umem + addr;
}

/**
 * xsk_tx_put() - Queue the frame written into xsk_tx_chunk()
 * @q:		Queue, with a chunk and a TX slot reserved (xsk_tx_reserve())
 * @len:	Frame bytes, 1..xsk_tx_room()
 *
 * Written, not published, as xsk_tx_push() does.
 *
 * Context: the worker thread that owns @q
 */
void xsk_tx_put(struct xsk_queue *q, uint32_t len)
{
	xsk_tx_queue(q, len, 0);
}

/**
 * xsk_tx_put_csum() - Queue the frame written into xsk_tx_chunk(), asking
 *		       for its checksum to be filled on the way out
 * @q:		Queue with metadata room (xsk_tx_metadata()), a chunk and a
 *		TX slot reserved (xsk_tx_reserve())
 * @len:	Frame bytes, 1..xsk_tx_room()
 * @start:	First byte the checksum covers (the transport header)
 * @offset:	The checksum field, from @start; the field holds the
 *		pseudo-header sum (the caller checked @start + @offset + 2
 *		<= @len)
 *
 * The metadata goes into the chunk's room, XDP_TX_METADATA into the
 * descriptor. Without room the frame goes as xsk_tx_put() sends it: the
 * caller must not ask then (its checksum would stay partial).
 *
 * Context: the worker thread that owns @q
 */
void xsk_tx_put_csum(struct xsk_queue *q, uint32_t len, uint16_t start,
		     uint16_t offset)
{
	struct xsk_tx_metadata md = { .flags = XDP_TXMD_FLAGS_CHECKSUM };
	uint8_t *room;

	if (q->txmd < XSK_TXMD_LEN) {
		xsk_tx_put(q, len);
		return;
	}
	md.request.csum_start = start;
	md.request.csum_offset = offset;
	room = xsk_tx_queue(q, len, XDP_TX_METADATA);
	/* the kernel reads it tx_metadata_len bytes before the frame: at
	 * the chunk's start; only our XSK_TXMD_LEN bytes (a newer header's
	 * struct is longer) */
	memcpy(room, &md, XSK_TXMD_LEN);
	q->stats.tx_csum_req++;
}

/**
 * xsk_tx_submit() - Publish the frames xsk_tx_push() queued
 * @q:		Queue
 *
 * Context: the worker thread that owns @q
 * Return: true if the kernel asks for a wake-up (sendto()) to send them
 */
bool xsk_tx_submit(struct xsk_queue *q)
{
	if (q->tx_pending) {
		xsk_prod_publish(&q->tx);
		q->tx_pending = 0;
	}
	if (!xsk_tx_busy(q) || !xsk_needs_wakeup(&q->tx))
		return false;
	q->stats.tx_wakeups++;
	return true;
}

/**
 * xsk_tx_busy() - Are published TX frames still waiting for the kernel?
 * @q:		Queue
 *
 * Return: true if the kernel has not consumed every published descriptor
 */
bool xsk_tx_busy(const struct xsk_queue *q)
{
	return LOAD_ACQUIRE(*q->tx.consumer) != q->tx.prod - q->tx_pending;
}

/**
 * xsk_queue_settle() - Leave the socket so that its rings alone say where
 *			every chunk is (the next process adopts it)
 * @q:		Queue, its worker parked
 * @dropped:	Held frames no guest took, dropped here (output)
 *
 * Held RX frames were taken off the RX ring already: what the caller did
 * not deliver first is dropped (their chunks recycled) and counted in
 * @dropped. Then the whole recycle stash goes into the fill ring (it
 * always fits: the ring has an entry per RX chunk) and the completions are
 * reaped. Published TX frames the kernel has not sent yet keep their
 * chunks: the caller kicks the kernel and calls again until it returns 0.
 *
 * Context: control thread, the owning worker parked
 * Return: 0 once every TX chunk is free and nothing is stashed, -EBUSY
 *	   while TX frames are still out (call again after a kick), -EAGAIN
 *	   if the fill ring took less than the stash (it cannot happen unless
 *	   the kernel holds more fill entries than it was given)
 */
int xsk_queue_settle(struct xsk_queue *q, unsigned int *dropped)
{
	*dropped = q->nheld - q->at;
	xsk_rx_drop_held(q);
	q->at = q->nheld = 0;
	if (q->tx_pending) {
		xsk_prod_publish(&q->tx);
		q->tx_pending = 0;
	}
	/* xsk_prod_free() looks at the kernel's index only on a full ring */
	q->fill.cons = LOAD_ACQUIRE(*q->fill.consumer);
	xsk_fill_refill(q);
	xsk_comp_reap(q);
	if (q->nrecycle)
		return -EAGAIN;
	return q->ntx_free == q->ntx && !xsk_tx_busy(q) ? 0 : -EBUSY;
}
