/* SPDX-License-Identifier: MIT */
/*
 * vu_backend_int.h - private to vu_backend.c (dispatcher, device state,
 * features, config) and vu_backend_ring.c (memory table and ring messages).
 * Nothing outside those two files includes it.
 */
#ifndef VNET_VU_BACKEND_INT_H
#define VNET_VU_BACKEND_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "gmem.h"
#include "worker.h"
#include "util.h"
#include "vhost_port.h"
#include "vu_backend.h"
#include "vu_proto.h"

#define VU_MAX_RINGS	(2 * PORT_MAX_PAIRS)

/**
 * struct vu_ring - What the frontend told us about one ring, kept apart
 * from the running vq so the ring can be (re)built in any message order
 * @num:	SET_VRING_NUM, 0: not set
 * @base:	SET_VRING_BASE, or where GET_VRING_BASE stopped the ring
 * @addr_set:	SET_VRING_ADDR accepted
 * @kicked:	SET_VRING_KICK (fd or no-fd bit) since the last stop
 * @vq_ready:	vq_init() done on the pair's vq (vq_cleanup() owed)
 * @addr_flags:	SET_VRING_ADDR flags (bit 0: VHOST_VRING_F_LOG)
 * @desc_uva:	Descriptor area, frontend virtual address
 * @avail_uva:	Split: avail ring; packed: driver event area
 * @used_uva:	Split: used ring; packed: device event area
 * @log_gpa:	Guest physical address of the used area, for the dirty log
 */
struct vu_ring {
	uint32_t num;
	uint32_t base;
	bool addr_set;
	bool kicked;
	bool vq_ready;
	uint32_t addr_flags;
	uint64_t desc_uva;
	uint64_t avail_uva;
	uint64_t used_uva;
	uint64_t log_gpa;
};

/**
 * struct vu_mem_ref - How many times the frontend added one region
 * @gpa:	Guest physical address
 * @size:	Size
 * @uva:	Frontend virtual address
 * @refs:	ADD_MEM_REG count: QEMU sends each region once per queue
 *		pair's vhost device over the same connection, and a REM_MEM_REG
 *		from one of them must not unmap what the others still use
 */
struct vu_mem_ref {
	uint64_t gpa;
	uint64_t size;
	uint64_t uva;
	uint32_t refs;
};

/**
 * struct vu_dev - One port's vhost-user device, one connection at a time
 * @cfg:	Fixed configuration (copied at create)
 * @sock:	Connected frontend, -1: none
 * @conn:	Buffered framing of @sock (vu_dev_set_conn()), NULL: blocking
 * @offered:	virtio features offered, fixed for the life of the port
 * @offered_proto: Protocol features offered
 * @features:	Features the frontend acked (SET_FEATURES)
 * @features_set: SET_FEATURES seen on this connection
 * @proto:	Protocol features acked (SET_PROTOCOL_FEATURES)
 * @owner:	SET_OWNER seen
 * @status:	SET_STATUS value (virtio device status byte)
 * @mtu:	NET_SET_MTU value, 0: none
 * @mem:	Guest memory table (heap, replaced whole by SET_MEM_TABLE)
 * @mem_refs:	Per region of @mem: identity and ADD_MEM_REG count
 * @nmem_refs:	Entries in @mem_refs (== @mem->nregions)
 * @log:	Dirty log (SET_LOG_BASE)
 * @log_fd:	SET_LOG_FD eventfd, -1: none
 * @rings:	Per-ring frontend configuration
 * @pairs:	Queue pairs as the data path sees them
 * @wp:		Worker pool, NULL with @cfg.no_workers
 * @why:	Reason of the last refusal, for the one log line
 * @vp:		Kernel vhost-net offload of the port's pairs (docs/vhost-net.md)
 */
struct vu_dev {
	struct vu_dev_cfg cfg;
	int sock;
	struct vu_conn *conn;
	uint64_t offered;
	uint64_t offered_proto;
	uint64_t features;
	bool features_set;
	uint64_t proto;
	bool owner;
	uint8_t status;
	uint16_t mtu;
	struct gmem *mem;
	struct vu_mem_ref mem_refs[GMEM_MAX_REGIONS];
	uint32_t nmem_refs;
	struct gmem_log log;
	int log_fd;
	struct vu_ring rings[VU_MAX_RINGS];
	struct vnet_pair pairs[PORT_MAX_PAIRS];
	struct worker_pool *wp;
	char why[160];
	struct vhost_port vp;
};

int vu_fail(struct vu_dev *d, int err, const char *fmt, ...) PRINTF_FMT(3, 4);
struct vnet_ring *vu_vring(struct vu_dev *d, unsigned int idx);
void vu_pause(struct vu_dev *d, unsigned int idx);
void vu_resume(struct vu_dev *d, unsigned int idx);
void vu_pause_all(struct vu_dev *d);
void vu_resume_all(struct vu_dev *d);
bool vu_packed(const struct vu_dev *d);

/* vu_backend_ring.c: handlers, same signature as the dispatch table's */
int vu_set_mem_table(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_add_mem_reg(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_rem_mem_reg(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_set_vring_num(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_set_vring_addr(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_set_vring_base(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_get_vring_base(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_set_vring_kick(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_set_vring_call(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_set_vring_err(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_set_vring_enable(struct vu_dev *d, struct vu_msg *m, unsigned int idx);
int vu_set_log_base(struct vu_dev *d, struct vu_msg *m, unsigned int idx);

/* vu_backend_ring.c: ring lifetime, called with the ring's pair paused */
void vu_ring_update_log(struct vu_dev *d, unsigned int idx);
void vu_ring_stop(struct vu_dev *d, unsigned int idx);
void vu_ring_reset(struct vu_dev *d, unsigned int idx);
void vu_pair_status(struct vu_dev *d, unsigned int pair);
int vu_pair_offload(struct vu_dev *d, unsigned int pair);
int vu_offload_log(struct vu_dev *d);

#endif /* VNET_VU_BACKEND_INT_H */
