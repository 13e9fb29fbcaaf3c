/* SPDX-License-Identifier: MIT */
/*
 * vq.h - the layout-neutral virtqueue API of the device side.
 *
 * Upper layers (net, worker, vu_backend) use only this header; vq.c
 * dispatches to the two layouts behind it (vring_split_dev.c,
 * vring_packed_dev.c: the code a guest attacks), which fill chains through
 * vq_chain.c. Dependencies point one way: vq -> vring_* -> vq_chain ->
 * gmem; the types live in vq_types.h below all of them. Nothing here knows
 * of sockets, TAP or vhost-user. The driver side (our own rings: the
 * frontend, the benchmark, the tests) is apart, src/driver/vq_drv.h; it
 * shares only the ring-area head (vq_area_init(), vq_area_set_addr(),
 * vq_ring_sizes()) and the layouts' inline helpers.
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

#include "util.h"
#include "vq_types.h"

/* -------- the ring-area head, both sides -------- */

int vq_area_init(struct vq_area *a, enum vq_layout layout, uint16_t num,
		 uint64_t features);
int vq_area_set_addr(struct vq_area *a, void *desc, void *driver_area,
		     void *device_area);
void vq_ring_sizes(enum vq_layout layout, uint16_t num, uint64_t *desc_len,
		   uint64_t *driver_len, uint64_t *device_len);

/* -------- lifetime and configuration (control thread) -------- */

int vq_init(struct vq *vq, enum vq_layout layout, uint16_t num,
	    uint64_t features);
void vq_cleanup(struct vq *vq);
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
unsigned int vq_pop_burst(struct vq *vq, struct vq_chain *c, unsigned int max,
			  int *err);
void vq_discard(struct vq *vq, const struct vq_chain *c, unsigned int n);
void vq_push_slow(struct vq *vq, const struct vq_chain *c, uint32_t len);
bool vq_flush(struct vq *vq);
bool vq_avail_pending(struct vq *vq);
void vq_disable_notify(struct vq *vq);
bool vq_enable_notify(struct vq *vq);

/* Queue the completion of @c (vq_push() checked that it may) */
static inline void vq_push_elem(struct vq *vq, const struct vq_chain *c,
				uint32_t len)
{
	struct vq_used_elem *e = &vq->batch[vq->nbatch++];

	e->id = c->id;
	e->ndesc = c->ndesc;
	e->len = len;
	if (!--vq->inflight)
		vq->spill_used = 0;
	vq->stats.used++;
}

/**
 * vq_push() - Queue a completion for the next vq_flush()
 * @vq:		Virtqueue (device side)
 * @c:		Chain popped earlier (its iovecs are dead afterwards)
 * @len:	Bytes the device wrote into the chain's writable part
 *
 * Inline: once per frame. More completions than pops (our bug) aborts and
 * dirty logging marks the written bytes, both in vq_push_slow().
 */
static inline void vq_push(struct vq *vq, const struct vq_chain *c,
			   uint32_t len)
{
	if (unlikely(!vq->inflight || vq->nbatch >= vq->num || vq->log)) {
		vq_push_slow(vq, c, len);
		return;
	}
	vq_push_elem(vq, c, len);
}

#endif /* VNET_VQ_H */
