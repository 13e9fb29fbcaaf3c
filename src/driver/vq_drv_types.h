/* SPDX-License-Identifier: MIT */
/*
 * vq_drv_types.h - the driver side's types: a buffer as the driver adds
 * it, the per-buffer bookkeeping and struct vq_drv, a ring we own and add
 * buffers to (the frontend's, the benchmark's, the tests'). The bottom of
 * the driver's ring layers: vq_drv.h (the API) and vring_drv.h (the
 * layouts) include it. It starts with the ring-area head of the device
 * side's struct vq (vq_types.h), the one thing both sides share.
 */
#ifndef VNET_VQ_DRV_TYPES_H
#define VNET_VQ_DRV_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "reason.h"
#include "vq_types.h"

/**
 * struct vq_buf - A buffer the driver side adds, in guest-physical terms
 * @gpa:	Guest physical address
 * @len:	Length in bytes
 */
struct vq_buf {
	uint64_t gpa;
	uint32_t len;
};

/**
 * struct vq_drv_id - Driver-side bookkeeping per buffer id
 * @token:	Caller's cookie, returned by vq_drv_get_used()
 * @ndesc:	Descriptors (split) or ring slots (packed) the buffer took
 * @last:	Split: index of the chain's last descriptor (free-list splice)
 * @next_free:	Split: next free descriptor; packed: next free buffer id
 */
struct vq_drv_id {
	uint32_t token;
	uint16_t ndesc;
	uint16_t last;
	uint16_t next_free;
};

/**
 * struct vq_drv - One virtqueue, driver side, either layout
 *
 * The ring-area head (as in struct vq: @area, and its members by name),
 * then the driver state (vring_*_drv.c), counters and the reason of a
 * break. Fields are private to vq_drv.c and vring_*_drv.c except the
 * head's, public and read-only; users call the functions in vq_drv.h.
 */
struct vq_drv {
	/* ---- ring-area head: configuration (public, read-only for users) ---- */
	union {
		struct vq_area area;
		struct {
			VQ_AREA_MEMBERS
		};
	};

	/* ---- our own rings, vring_*_drv.c ---- */
	uint16_t drv_free_head;		/* split: first free descriptor */
	uint16_t drv_free_tail;		/* split: last free descriptor */
	uint16_t drv_num_free;
	uint16_t drv_avail_idx;		/* split: shadow avail idx; packed: slot */
	bool drv_avail_wrap;		/* packed */
	uint16_t drv_last_used;		/* split: free-running; packed: slot */
	bool drv_used_wrap;		/* packed */
	uint16_t drv_kicked_avail;	/* avail idx at the last kick */
	uint16_t drv_free_id;		/* packed: first free buffer id */
	uint16_t drv_inorder_next;	/* IN_ORDER: next id to complete */
	struct vq_drv_id *drv_ids;	/* [num] */
	void *drv_indirect;		/* caller's indirect tables, or NULL */
	uint64_t drv_indirect_gpa;
	uint16_t drv_indirect_max;	/* descriptors per indirect table */
	uint16_t drv_num_added;		/* packed: slots added since kick */
	bool drv_cb_disabled;		/* vq_drv_disable_cb() in force */
	bool drv_inorder_batch;		/* packed IN_ORDER: in a batch */
	uint16_t drv_inorder_last;	/* ... whose last buffer id is this */
	uint32_t drv_inorder_len;	/* ... and whose last length is this */

	/* ---- written by the owning thread ---- */
	struct vq_stats stats;		/* chains: added, used: collected */
	struct reason reason;		/* why it broke (vring_drv_break()) */
};

#endif /* VNET_VQ_DRV_TYPES_H */
