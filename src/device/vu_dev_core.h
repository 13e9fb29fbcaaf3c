/* SPDX-License-Identifier: MIT */
/*
 * vu_dev_core.h - the bottom layer of the vhost-user device (backend side):
 * the device state every layer above shares (struct vu_dev), the reason a
 * request is refused, ring lookup, quiescing the data path, stopping a ring
 * and what status shows for a pair. Layers, bottom-up: vu_dev_core,
 * vu_dev_mem (memory table, dirty log), vu_dev_ring (ring messages),
 * vu_dev_net (features, config space, RARP, MQ), vu_backend (the
 * dispatcher and the public API, vu_backend.h). Each includes only the
 * headers of its own layer and those below; none is part of the library API.
 */
#ifndef VNET_VU_DEV_CORE_H
#define VNET_VU_DEV_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include "gmem.h"
#include "reason.h"
#include "worker.h"
#include "util.h"
#include "vhost_port.h"
#include "vu_dev_cfg.h"
#include "vu_proto.h"

struct vu_msg;

#define VU_MAX_RINGS	(2 * VNET_MAX_PAIRS)

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
 * @fd:		The region's fd, kept for an upgrade to hand on, -1: none
 */
struct vu_mem_ref {
	uint64_t gpa;
	uint64_t size;
	uint64_t uva;
	uint32_t refs;
	int fd;
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
 * @rarp_pending: SEND_RARP came before SET_FEATURES (a migration
 *		destination announces before it starts the device): sent
 *		once the host side knows its vnet header (vu_dev_net.c)
 * @rarp_mac:	Its MAC
 * @proto:	Protocol features acked (SET_PROTOCOL_FEATURES)
 * @owner:	SET_OWNER seen
 * @status:	SET_STATUS value (virtio device status byte)
 * @mtu:	NET_SET_MTU value, 0: none
 * @mem:	Guest memory table (heap, replaced whole by SET_MEM_TABLE)
 * @mem_refs:	Per region of @mem: identity and ADD_MEM_REG count
 * @nmem_refs:	Entries in @mem_refs (== @mem->nregions)
 * @log:	Dirty log (SET_LOG_BASE)
 * @log_fd:	SET_LOG_FD eventfd, -1: none
 * @log_mem_fd:	The descriptor @log is mapped from (SET_LOG_BASE's), kept for
 *		an upgrade's hand-over (vu_dev_upgrade.c), -1: none
 * @log_req:	SET_LOG_BASE's size and offset in @log_mem_fd
 * @replaying:	vu_dev_upgrade.c replays requests: their replies go nowhere
 * @rings:	Per-ring frontend configuration
 * @pairs:	Queue pairs as the data path sees them
 * @wp:		Worker pool, NULL with @cfg.no_workers
 * @why:	Reason of the last refusal, for the dispatcher's one log line
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
	bool rarp_pending;
	uint8_t rarp_mac[6];
	uint64_t proto;
	bool owner;
	uint8_t status;
	uint16_t mtu;
	struct gmem *mem;
	struct vu_mem_ref mem_refs[GMEM_MAX_REGIONS];
	uint32_t nmem_refs;
	struct gmem_log log;
	uint64_t log_pages;
	int log_fd;
	int log_mem_fd;
	struct vu_log log_req;
	bool replaying;
	struct vu_ring rings[VU_MAX_RINGS];
	struct vnet_pair pairs[VNET_MAX_PAIRS];
	struct worker_port *wp;
	struct reason why;
	struct vhost_port vp;
};

/**
 * vu_fail() - Record why a request is refused, for the dispatcher's log line
 * @d:		Device
 * @err:	Negative errno to return
 * @...:	Reason, printf format and arguments
 *
 * Return: @err
 */
#define vu_fail(d, err, ...)	reason_set(&(d)->why, (err), __VA_ARGS__)

struct vnet_ring *vu_vring(struct vu_dev *d, unsigned int idx);
void vu_pause(struct vu_dev *d, unsigned int idx);
void vu_resume(struct vu_dev *d, unsigned int idx);
void vu_pause_all(struct vu_dev *d);
void vu_resume_all(struct vu_dev *d);
bool vu_packed(const struct vu_dev *d);
void vu_reply_u64(struct vu_msg *m, uint64_t v);
void vu_pair_status(struct vu_dev *d, unsigned int pair);
void vu_ring_stop(struct vu_dev *d, unsigned int idx);

#endif /* VNET_VU_DEV_CORE_H */
