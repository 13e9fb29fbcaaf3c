/* SPDX-License-Identifier: MIT */
/*
 * vq.h - the layout-neutral virtqueue API, device side and driver side.
 *
 * Upper layers (net, worker, vu_backend, vu_frontend) use only this header;
 * vring_split.c and vring_packed.c implement the two layouts behind it and
 * vq.c dispatches. Nothing here knows of sockets, TAP or vhost-user.
 *
 * Threading: one thread owns a struct vq at a time. The control thread
 * configures it (vq_init, vq_set_addr, vq_set_base, vq_reset) only while the
 * data path thread is quiesced.
 *
 * Allocation: vq_init() sizes every per-queue scratch buffer from the ring
 * size; nothing after it allocates.
 */
#ifndef VNET_VQ_H
#define VNET_VQ_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>
#include <linux/virtio_ring.h>

#include "gmem.h"

#define VQ_MAX_SIZE	32768	/* virtio 1.x: Queue Size <= 32768 */
#define VQ_INLINE_IOV	4	/* iovecs a chain holds without spilling */
#define VQ_BROKEN_LEN	160	/* room for the one-line reason */

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

/**
 * struct vq - One virtqueue, either layout, either side
 *
 * Fields are private to vq.c / vring_split.c / vring_packed.c except where
 * noted; upper layers use the functions below.
 */
struct vq {
	/* configuration (public, read-only for users) */
	enum vq_layout layout;
	bool driver_side;
	uint16_t num;			/* ring size; 0 = not configured */
	uint64_t features;		/* negotiated virtio feature bits */
	bool event_idx;			/* VIRTIO_RING_F_EVENT_IDX */
	bool indirect;			/* VIRTIO_RING_F_INDIRECT_DESC */
	bool in_order;			/* VIRTIO_F_IN_ORDER */
	const struct gmem *mem;		/* device side: where descriptors point */
	uint32_t mem_hint;		/* region index the last buffer was in */

	/* dirty logging (device side), set by the control thread */
	struct gmem_log *log;		/* NULL: logging off */
	uint64_t log_used_gpa;		/* split: used ring gpa; packed: desc ring */

	/* ring areas: our addresses, validated for their full length */
	union {
		struct {
			struct vring_desc *desc;
			struct vring_avail *avail;
			struct vring_used *used;
		} split;
		struct {
			struct vring_packed_desc *desc;
			struct vring_packed_desc_event *driver;	/* driver area */
			struct vring_packed_desc_event *device;	/* device area */
		} packed;
	};

	/* device-side state */
	uint16_t last_avail;		/* split: free-running; packed: slot */
	bool avail_wrap;		/* packed avail wrap counter */
	uint16_t used_idx;		/* split: free-running; packed: slot */
	bool used_wrap;			/* packed used wrap counter */
	uint16_t signalled_used;	/* split EVENT_IDX: used idx last signalled */
	bool signalled_used_valid;
	uint16_t inflight;		/* popped, not yet pushed */
	struct vq_used_elem *batch;	/* [num] completions not yet flushed */
	uint16_t nbatch;
	struct iovec *spill_iov;	/* [spill_cap] */
	uint64_t *spill_gpa;		/* [spill_cap] */
	uint32_t spill_cap;
	uint32_t spill_used;
	void *indir_scratch;		/* [num] descriptors: indirect table copy */
	uint16_t avail_shadow;		/* split: avail idx last read */

	/* driver-side state */
	uint16_t drv_free_head;		/* split: first free descriptor */
	uint16_t drv_free_tail;		/* split: last free descriptor (FIFO) */
	uint16_t drv_num_free;
	uint16_t drv_avail_idx;		/* split: shadow avail idx; packed: slot */
	bool drv_avail_wrap;		/* packed */
	uint16_t drv_last_used;		/* split: free-running; packed: slot */
	bool drv_used_wrap;		/* packed */
	uint16_t drv_kicked_avail;	/* avail idx at the last kick decision */
	uint16_t drv_free_id;		/* packed: first free buffer id */
	uint16_t drv_inorder_next;	/* IN_ORDER: next id expected to complete */
	struct vq_drv_id *drv_ids;	/* [num] */
	void *drv_indirect;		/* caller's indirect tables, or NULL */
	uint64_t drv_indirect_gpa;
	uint16_t drv_indirect_max;	/* descriptors per indirect table */
	uint16_t drv_num_added;		/* packed: slots added since last kick */
	bool drv_cb_disabled;		/* vq_drv_disable_cb() in force */
	bool drv_inorder_batch;		/* packed IN_ORDER: completing a batch */
	uint16_t drv_inorder_last;	/* ... whose last buffer id is this */
	uint32_t drv_inorder_len;	/* ... and whose last length is this */

	/* failure */
	bool broken;
	char broken_reason[VQ_BROKEN_LEN];

	struct vq_stats stats;
};

/* -------- both sides: lifetime and configuration (control thread) -------- */

int vq_init(struct vq *vq, enum vq_layout layout, uint16_t num,
	    uint64_t features, bool driver_side);
void vq_cleanup(struct vq *vq);
void vq_ring_sizes(enum vq_layout layout, uint16_t num, uint64_t *desc_len,
		   uint64_t *driver_len, uint64_t *device_len);
int vq_set_addr(struct vq *vq, void *desc, void *driver_area,
		void *device_area);
void vq_set_mem(struct vq *vq, const struct gmem *mem);
void vq_set_log(struct vq *vq, struct gmem_log *log, uint64_t used_gpa);
void vq_set_base(struct vq *vq, uint32_t base);
uint32_t vq_get_base(const struct vq *vq);
void vq_reset(struct vq *vq);
bool vq_is_broken(const struct vq *vq);
const char *vq_broken_reason(const struct vq *vq);

/* -------- device side (data path thread) -------- */

int vq_pop(struct vq *vq, struct vq_chain *c);
void vq_discard(struct vq *vq, const struct vq_chain *c, unsigned int n);
void vq_push(struct vq *vq, const struct vq_chain *c, uint32_t len);
bool vq_flush(struct vq *vq);
bool vq_avail_pending(struct vq *vq);
void vq_disable_notify(struct vq *vq);
bool vq_enable_notify(struct vq *vq);

/* -------- driver side -------- */

void vq_drv_set_indirect(struct vq *vq, void *tables, uint64_t gpa,
			 uint16_t per_chain);
int vq_drv_add(struct vq *vq, const struct vq_buf *out, unsigned int nout,
	       const struct vq_buf *in, unsigned int nin, uint32_t token);
bool vq_drv_kick_needed(struct vq *vq);
int vq_drv_get_used(struct vq *vq, uint32_t *token, uint32_t *len);
int vq_drv_get_used_burst(struct vq *vq, uint32_t *tokens, uint32_t *lens,
			  unsigned int max);
uint16_t vq_drv_next_id(const struct vq *vq);
void vq_drv_disable_cb(struct vq *vq);
bool vq_drv_enable_cb(struct vq *vq);
unsigned int vq_drv_num_free(const struct vq *vq);

#endif /* VNET_VQ_H */
