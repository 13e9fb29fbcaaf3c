/* SPDX-License-Identifier: MIT */
/*
 * xsk_ring.h - one AF_XDP socket's four rings and its UMEM, seen from the
 * worker thread that owns them: frames in and out by copy, descriptors the
 * kernel hands back checked once where they enter. No syscall, no libxdp:
 * host_afxdp.c makes the socket and does the wake-ups this file asks for;
 * tests/unit/test_xsk_ring.c plays the kernel on a fake UMEM.
 */
#ifndef VNET_XSK_RING_H
#define VNET_XSK_RING_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <linux/virtio_net.h>

#include "gro.h"

/* Held RX descriptors at most (one peek of the RX ring) */
#define XSK_RX_BATCH	64

/**
 * struct xsk_ring - Our view of one ring the kernel shares with us
 * @producer:	Producer index (ours for fill/TX, the kernel's for RX/comp)
 * @consumer:	Consumer index (the kernel's for fill/TX, ours for RX/comp)
 * @flags:	XDP_RING_NEED_WAKEUP lives here (fill, TX)
 * @desc:	The entries: uint64_t addresses (fill, comp) or struct
 *		xdp_desc (RX, TX)
 * @mask:	Entries - 1 (a power of two)
 * @prod:	Our copy of the producer index (the next one we write, or
 *		the last one we read)
 * @cons:	Our copy of the consumer index
 */
struct xsk_ring {
	uint32_t *producer;
	uint32_t *consumer;
	uint32_t *flags;
	void *desc;
	uint32_t mask;
	uint32_t prod;
	uint32_t cons;
};

/**
 * struct xsk_stats - What a queue refused or asked for (worker-owned, read
 *		      racily by the control thread for status)
 * @bad_rx:	RX descriptors out of the UMEM's RX area: refused, their
 *		memory not read
 * @bad_comp:	Completion addresses out of the TX area: refused
 * @rx_too_big:	Frames that did not fit the guest's buffers
 * @tx_too_big:	Guest frames larger than a chunk: dropped
 * @tx_full:	tx refused with -EAGAIN (no chunk or TX slot)
 * @tx_wakeups:	Kicks asked for the TX ring (one per burst at most)
 * @fill_wakeups: Kicks asked for the fill ring (one per refill at most)
 * @gro_frames:	GSO frames made of several wire frames (GRO) for the guest
 * @gro_segs:	Wire frames that went into them
 * @tx_csum_req: Frames sent with a checksum request in their TX metadata
 *		(the kernel or the NIC fills the checksum)
 */
struct xsk_stats {
	uint64_t bad_rx;
	uint64_t bad_comp;
	uint64_t rx_too_big;
	uint64_t tx_too_big;
	uint64_t tx_full;
	uint64_t tx_wakeups;
	uint64_t fill_wakeups;
	uint64_t gro_frames;
	uint64_t gro_segs;
	uint64_t tx_csum_req;
};

/**
 * struct xsk_queue - One queue pair's socket: rings, UMEM, free lists
 * @fill:	Fill ring (we produce RX chunks)
 * @comp:	Completion ring (the kernel gives TX chunks back)
 * @rx:		RX ring (the kernel produces frames)
 * @tx:		TX ring (we produce frames)
 * @umem:	The UMEM area
 * @chunk:	Chunk size, a power of two
 * @nrx:	Chunks [0, @nrx) are RX chunks (fill ring, held, recycle)
 * @ntx:	Chunks [@nrx, @nrx + @ntx) are TX chunks
 * @txmd:	TX metadata bytes at the start of each TX chunk (the UMEM's
 *		tx_metadata_len, xsk_txmd.h): a TX frame starts after them;
 *		0: none
 * @tx_free:	TX chunk addresses free to use (a stack, @ntx entries)
 * @ntx_free:	How many
 * @recycle:	RX chunk addresses done with, not yet in the fill ring
 *		(@nrx entries)
 * @nrecycle:	How many
 * @tx_pending:	TX descriptors written, not yet published (xsk_tx_submit())
 * @held_addr:	Held RX frames (checked copies of their descriptors)
 * @held_len:	Their lengths
 * @at:		Next held frame
 * @nheld:	Held frames
 * @fill_kick:	xsk_rx_peek() refilled and the kernel asks for a wake-up
 *		(the caller clears it once it did one)
 * @gro:	GRO_IPV4 | GRO_IPV6: held TCP segments of these families are
 *		merged for the guest (xsk_rx_gro()); 0: every frame alone
 * @gro_cap:	Merged frame bytes at most
 * @run:	Held frames the next frame for the guest is made of (from
 *		@at); 0: not looked at yet
 * @run_len:	That frame's bytes (after the vnet header)
 * @run_vh:	Its vnet header, when @run > 1
 * @run_gro:	Its merged headers, when @run > 1
 * @stats:	Counters
 */
struct xsk_queue {
	struct xsk_ring fill, comp, rx, tx;
	uint8_t *umem;
	uint32_t chunk;
	uint32_t nrx;
	uint32_t ntx;
	uint32_t txmd;
	uint64_t *tx_free;
	uint32_t ntx_free;
	uint64_t *recycle;
	uint32_t nrecycle;
	uint32_t tx_pending;
	uint64_t held_addr[XSK_RX_BATCH];
	uint32_t held_len[XSK_RX_BATCH];
	uint32_t at;
	uint32_t nheld;
	bool fill_kick;
	uint8_t gro;
	uint32_t gro_cap;
	uint32_t run;
	uint32_t run_len;
	struct virtio_net_hdr_v1 run_vh;
	struct gro run_gro;
	struct xsk_stats stats;
};

int xsk_queue_init(struct xsk_queue *q, uint8_t *umem, uint32_t chunk,
		   uint32_t nrx, uint32_t ntx);
int xsk_queue_adopt(struct xsk_queue *q, uint8_t *umem, uint32_t chunk,
		    uint32_t nrx, uint32_t ntx);
int xsk_queue_settle(struct xsk_queue *q, unsigned int *dropped);
void xsk_queue_cleanup(struct xsk_queue *q);
bool xsk_fill_refill(struct xsk_queue *q);
void xsk_rx_gro(struct xsk_queue *q, unsigned int families, uint32_t cap);
ssize_t xsk_rx_peek(struct xsk_queue *q, unsigned int hdr_len);
ssize_t xsk_rx_copy(struct xsk_queue *q, const struct iovec *iov,
		    unsigned int iovcnt, unsigned int hdr_len);
void xsk_rx_drop_held(struct xsk_queue *q);
unsigned int xsk_comp_reap(struct xsk_queue *q);
ssize_t xsk_tx_push(struct xsk_queue *q, const struct iovec *iov,
		    unsigned int iovcnt, unsigned int skip);
void xsk_tx_metadata(struct xsk_queue *q, uint32_t len);
uint32_t xsk_tx_room(const struct xsk_queue *q);
bool xsk_tx_reserve(struct xsk_queue *q, uint32_t n);
uint8_t *xsk_tx_chunk(const struct xsk_queue *q);
void xsk_tx_put(struct xsk_queue *q, uint32_t len);
void xsk_tx_put_csum(struct xsk_queue *q, uint32_t len, uint16_t start,
		     uint16_t offset);
bool xsk_tx_submit(struct xsk_queue *q);
bool xsk_tx_busy(const struct xsk_queue *q);

#endif /* VNET_XSK_RING_H */
