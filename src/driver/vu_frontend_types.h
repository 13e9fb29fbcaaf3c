/* SPDX-License-Identifier: MIT */
/*
 * vu_frontend_types.h - the frontend library's types and limits, below
 * every layer of it (vu_frontend_core.h and up). The API is vu_frontend.h.
 */
#ifndef VNET_VU_FRONTEND_TYPES_H
#define VNET_VU_FRONTEND_TYPES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>
#include <linux/virtio_net.h>

#include "reason.h"
#include "vq_drv.h"

#define VU_FRONTEND_MAX_PAIRS	64
#define VU_FRONTEND_MAX_REGIONS	8	/* memory regions we announce */
#define VU_FRONTEND_ERR_LEN	REASON_LEN	/* vu_frontend_error() + NUL */
#define VU_FRONTEND_MAX_FRAME	(65536 + 14 + 4)	/* TSO frame + L2 */
#define VU_FRONTEND_HDR_LEN	((uint32_t)sizeof(struct virtio_net_hdr_v1))

/* vu_frontend_adopt() flags */
#define VU_FRONTEND_TAKE_FD	0x1	/* close the socket on disconnect */

/**
 * struct vu_frontend_region - Guest memory the caller provides
 * @fd:		File to map MAP_SHARED and pass to the backend (stays the
 *		caller's); must be mmap-able shared, e.g. a memfd
 * @offset:	Offset of the region's first byte in @fd
 * @gpa:	Guest physical address of that byte
 * @size:	Length in bytes
 *
 * The library places its rings and buffers inside these regions; the caller
 * should not use the memory for anything else while connected.
 */
struct vu_frontend_region {
	int fd;
	uint64_t offset;
	uint64_t gpa;
	uint64_t size;
};

/**
 * struct vu_frontend_opts - What the caller asks for
 * @pairs:	Queue pairs (0 means 1); more than one needs PROTOCOL_F_MQ
 *		and at most what GET_QUEUE_NUM reports
 * @ring_size:	Descriptors per ring (0 means 256); split: power of two
 * @packed:	Packed rings (needs VIRTIO_F_RING_PACKED from the backend)
 * @features:	virtio feature bits wanted (0 means every bit the library
 *		supports); filtered by what the backend offers
 * @mac:	MAC address; all-zero means the backend's config or a default
 * @mem_regions: Own memory: split it into this many memfd regions (0 = 1)
 * @regions:	Caller memory instead of own memory, or NULL
 * @nregions:	Entries in @regions
 * @kick_fds:	Caller eventfds, one per ring (2 * @pairs), -1 entries or a
 *		NULL array mean "the library makes one"; never closed by us
 * @call_fds:	Same for call (interrupt) eventfds
 * @max_frame:	Largest frame (without vnet header) the caller sends or
 *		expects; sizes buffers (0 means 1518, TSO needs 65536 + 18)
 * @no_reply_ack: Do not use REPLY_ACK even when offered
 * @no_mem_slots: Use SET_MEM_TABLE even when CONFIGURE_MEM_SLOTS is offered
 * @notify:	Keep used-buffer notifications on, for a caller that sleeps
 *		on the call eventfds itself (its own epoll). Default off: the
 *		caller polls, or sleeps in vu_frontend_wait(), which turns
 *		them on only while it sleeps (no backend eventfd write per
 *		burst)
 */
struct vu_frontend_opts {
	unsigned int pairs;
	unsigned int ring_size;
	bool packed;
	uint64_t features;
	uint8_t mac[6];
	unsigned int mem_regions;
	const struct vu_frontend_region *regions;
	unsigned int nregions;
	const int *kick_fds;
	const int *call_fds;
	uint32_t max_frame;
	bool no_reply_ack;
	bool no_mem_slots;
	bool notify;
};

/**
 * struct vu_frontend_mem - One memory region as we hold it (private)
 */
struct vu_frontend_mem {
	int fd;
	bool own_fd;
	uint64_t offset;		/* of the region in @fd */
	uint64_t gpa;
	uint64_t size;
	uint8_t *host;			/* our mapping of gpa */
	uint64_t used;			/* bytes handed out so far */
};

/**
 * struct vu_frontend_stats - Per ring counters, written by its data thread
 */
struct vu_frontend_stats {
	uint64_t frames;
	uint64_t bytes;
	uint64_t kicks;
	uint64_t full;		/* tx: ring full; rx: frames dropped (bad) */
};

/**
 * struct vu_frontend_queue - One ring with its buffers (private)
 */
struct vu_frontend_queue {
	struct vq_drv vq;
	unsigned int index;
	int kick_fd, call_fd;
	bool own_kick, own_call;
	uint8_t *ring_host[3];
	uint64_t ring_len[3];
	uint8_t *buf_host;		/* slot i at buf_host + i * buf_len;
					 * tx: slot = buffer id */
	uint64_t buf_gpa;
	uint32_t buf_len;
	void *indir_host;
	uint64_t indir_gpa;
	unsigned int tx_reclaim_at;	/* tx: reclaim below this many free */
	uint32_t tx_reserved;		/* tx: reserved frame length + 1, 0 none */
	unsigned int pending;		/* added since the last kick decision */
	uint32_t base;			/* position to resume at */
	bool have_base;
	struct iovec *rx_iov;		/* [ring size] merged frame pieces */
	uint32_t *rx_slots;		/* [ring size] slots of those pieces */
	unsigned int rx_nparts, rx_want;
	uint32_t rx_len;
	struct virtio_net_hdr_v1 rx_hdr;	/* host order, frame in progress */
	struct vu_frontend_stats st;
};

/**
 * struct vu_frontend - One virtio-net device driven over vhost-user
 *
 * Fields are private; use the functions below. The public read-only values:
 * @features (negotiated), @protocol_features, @pairs, @mac, @hdr_len.
 */
struct vu_frontend {
	struct vu_frontend_opts o;
	int sock;
	bool own_sock;
	bool connected, started, configured;
	uint64_t offered;		/* backend's GET_FEATURES */
	uint64_t features;		/* negotiated */
	uint64_t protocol_features;	/* negotiated */
	unsigned int backend_pairs;	/* GET_QUEUE_NUM, or 1 */
	unsigned int max_mem_slots;
	unsigned int pairs;
	uint16_t ring_size;
	uint8_t mac[6];
	uint32_t hdr_len;
	bool mrg_rxbuf;
	struct vu_frontend_mem mem[VU_FRONTEND_MAX_REGIONS];
	unsigned int nmem;
	struct vu_frontend_queue *q;	/* [2 * pairs] */
	struct reason err;		/* vu_frontend_error() */
};

#endif /* VNET_VU_FRONTEND_TYPES_H */
