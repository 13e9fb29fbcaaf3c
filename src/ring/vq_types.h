/* SPDX-License-Identifier: MIT */
/*
 * vq_types.h - the virtqueue's data types: the chain a pop fills, the
 * completion batch, the ring-area head and struct vq itself (the device
 * side). The bottom of the ring layers: vq.h (the API), the layouts
 * (vring_split.h, vring_packed.h) and the chain helpers (vq_chain.h) all
 * include it, it includes none of them. The driver side's own type,
 * struct vq_drv, starts with the same head (src/driver/vq_drv_types.h).
 */
#ifndef VNET_VQ_TYPES_H
#define VNET_VQ_TYPES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>
#include <linux/virtio_ring.h>

#include "gmem.h"
#include "reason.h"

#define VQ_MAX_SIZE	32768	/* virtio 1.x: Queue Size <= 32768 */
#define VQ_INLINE_IOV	4	/* iovecs a chain holds without spilling */

enum vq_layout {
	VQ_SPLIT = 0,
	VQ_PACKED = 1,
};

/**
 * struct vq_chain - One descriptor chain popped by the device side
 * @id:		What vq_push() gives back: split head index, packed buffer id
 * @ndesc:	Ring slots the chain took (packed: how far used skips)
 * @nout:	Device-readable iovecs, iov[0 .. nout)
 * @nin:	Device-writable iovecs, iov[nout .. nout + nin)
 * @out_len:	Bytes in the readable part
 * @in_len:	Bytes in the writable part
 * @iov:	Translated buffers (our addresses), points at @iov_inline or
 *		into the queue's spill area: never copy a chain by value
 * @gpa:	Guest-physical address of each iov entry (dirty logging)
 * @iov_inline:	Inline storage for the common 1-2 descriptor chains
 * @gpa_inline:	Inline storage for @gpa
 */
struct vq_chain {
	uint16_t id;
	uint16_t ndesc;
	uint16_t nout;
	uint16_t nin;
	uint32_t out_len;
	uint32_t in_len;
	struct iovec *iov;
	uint64_t *gpa;
	struct iovec iov_inline[VQ_INLINE_IOV];
	uint64_t gpa_inline[VQ_INLINE_IOV];
};

/**
 * struct vq_used_elem - A completion waiting for vq_flush()
 * @id:		Buffer id (split: head index)
 * @ndesc:	Ring slots of that buffer (packed)
 * @len:	Bytes the device wrote
 */
struct vq_used_elem {
	uint16_t id;
	uint16_t ndesc;
	uint32_t len;
};

/**
 * struct vq_stats - Counters, written by the owning thread only
 */
struct vq_stats {
	uint64_t chains;	/* popped (device) / added (driver) */
	uint64_t used;		/* pushed (device) / collected (driver) */
	uint64_t flushes;	/* batches written to the used ring */
	uint64_t notifies;	/* flushes that asked for a notification */
	uint64_t spills;	/* chains that needed the spill area */
	uint64_t breaks;	/* times the queue broke */
	uint64_t discards;	/* popped chains given back unused */
};

/*
 * The ring-area head both sides of a ring start with: configuration and
 * our addresses of the three areas. struct vq (device) and struct vq_drv
 * (driver) each hold it twice over in one union: as @area, a struct
 * vq_area for the code both sides share (vq_area_init(), the layouts'
 * inline helpers), and as the same members directly (vq->num), so that
 * a field keeps its name. One member list, so the two views are the same
 * bytes (a common initial sequence, C11 6.5.2.3).
 */
#define VQ_AREA_MEMBERS							\
	enum vq_layout layout;						\
	uint16_t num;			/* ring size; 0 = not configured */ \
	uint64_t features;		/* negotiated virtio feature bits */ \
	bool event_idx;			/* VIRTIO_RING_F_EVENT_IDX */	\
	bool indirect;			/* VIRTIO_RING_F_INDIRECT_DESC */ \
	bool in_order;			/* VIRTIO_F_IN_ORDER */		\
	bool broken;			/* a guest (or device) fault stopped it */ \
	/* ring areas: our addresses, validated for their full length */ \
	union {								\
		struct {						\
			struct vring_desc *desc;			\
			struct vring_avail *avail;			\
			struct vring_used *used;			\
		} split;						\
		struct {						\
			struct vring_packed_desc *desc;			\
			struct vring_packed_desc_event *driver;	/* driver area */ \
			struct vring_packed_desc_event *device;	/* device area */ \
		} packed;						\
	};

/**
 * struct vq_area - A ring's layout, size, ring features and areas
 *
 * Public, read-only for users once set (vq_area_init(), vq_area_set_addr()).
 */
struct vq_area {
	VQ_AREA_MEMBERS
};

/**
 * struct vq - One virtqueue, device side, either layout
 *
 * The ring-area head (configuration and ring areas), then the device part
 * (guest rings we pop from: vring_*_dev.c), then counters and the reason
 * of a break. The parts are anonymous so that a field keeps its name; the
 * order keeps the hot fields in the first three cache lines. The driver
 * side (our own rings we add to) is struct vq_drv, in src/driver.
 *
 * Fields are private to vq.c, vq_chain.c and vring_*.c except where noted;
 * upper layers use the functions in vq.h.
 */
struct vq {
	/* ---- ring-area head: configuration (public, read-only for users) ---- */
	union {
		struct vq_area area;
		struct {
			VQ_AREA_MEMBERS
		};
	};

	/* ---- device part: the guest's rings, vring_*_dev.c, vq_chain.c ---- */
	struct {
		const struct gmem *mem;		/* where descriptors point */
		uint32_t mem_hint;		/* region of the last buffer */

		/* dirty logging, set by the control thread */
		struct gmem_log *log;		/* NULL: logging off */
		uint64_t log_used_gpa;		/* split: used ring gpa;
						 * packed: desc ring */

		uint16_t last_avail;		/* split: free-running; packed: slot */
		bool avail_wrap;		/* packed avail wrap counter */
		uint16_t used_idx;		/* split: free-running; packed: slot */
		bool used_wrap;			/* packed used wrap counter */
		uint16_t signalled_used;	/* split EVENT_IDX: last signalled */
		bool signalled_used_valid;
		uint16_t inflight;		/* popped, not yet pushed */
		struct vq_used_elem *batch;	/* [num] completions not flushed */
		uint16_t nbatch;
		struct iovec *spill_iov;	/* [spill_cap] */
		uint64_t *spill_gpa;		/* [spill_cap] */
		uint32_t spill_cap;
		uint32_t spill_used;
		void *indir_scratch;		/* [num] descriptors: indirect copy */
		uint16_t avail_shadow;		/* split: avail idx last read */
	};

	/* ---- written by the owning thread ---- */
	struct vq_stats stats;
	struct reason reason;		/* why it broke (vq_break()), cold */
};

#endif /* VNET_VQ_TYPES_H */
