// SPDX-License-Identifier: MIT
/*
 * vu_backend.c - the vhost-user device, backend side: one table-driven
 * dispatcher, feature negotiation, the config space, device lifetime.
 * Memory-table and ring messages live in vu_backend_ring.c. Framing is
 * vu_msg.c's; serving the rings is the worker's (worker.h).
 *
 * Spec references are to QEMU docs/interop/vhost-user.rst ("vhost-user")
 * and the virtio 1.2 specification ("virtio").
 *
 * Security model: the frontend (the VMM) is untrusted. Every message goes
 * through vu_dev_dispatch(), which checks, before any handler runs, that the
 * request is known and implemented, the header version, the payload size
 * (exact, or a minimum for variable payloads whose handler checks the
 * rest), the number of descriptors, the ring index (< 2 * queues) and the
 * negotiation state the request needs. Handlers read every payload field
 * once into a local and validate the local. Each received descriptor has
 * one owner: a handler takes the ones it keeps, the dispatcher closes the
 * rest on every path. A malformed or refused message yields -errno and one
 * log line naming the port, the request and the reason; the caller closes
 * the connection. Only a refusal the frontend explicitly asked to hear
 * about (REPLY_ACK with need_reply) is answered instead and the connection
 * kept. Nothing the frontend sends reaches assert(), abort() or exit(), and
 * nothing it sends makes us allocate more than one memory table at a time.
 */
#include <endian.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/virtio_config.h>
#include <linux/virtio_net.h>
#include <linux/virtio_ring.h>

#include "guard.h"
#include "log.h"
#include "vu_backend_int.h"
#include "vu_msg.h"

/* #syscalls: close fcntl brk mmap munmap madvise mprotect */

#define BIT(n)		(1ULL << (n))

/* Offloads offered only where the backend's host side honours them */
#define VU_OFFLOAD_FEATURES						\
	(BIT(VIRTIO_NET_F_CSUM) | BIT(VIRTIO_NET_F_GUEST_CSUM) |	\
	 BIT(VIRTIO_NET_F_HOST_TSO4) | BIT(VIRTIO_NET_F_HOST_TSO6) |	\
	 BIT(VIRTIO_NET_F_GUEST_TSO4) | BIT(VIRTIO_NET_F_GUEST_TSO6) |	\
	 BIT(VIRTIO_NET_F_HOST_ECN) | BIT(VIRTIO_NET_F_GUEST_ECN) |	\
	 BIT(VIRTIO_NET_F_HOST_UFO) | BIT(VIRTIO_NET_F_GUEST_UFO))

/*
 * Always offered. Not offered: CTRL_VQ (no control queue here; QEMU runs
 * its own) and so GUEST_ANNOUNCE, which needs CTRL_VQ (virtio 5.1.3.1):
 * without it QEMU announces a migrated guest with SEND_RARP instead.
 */
#define VU_BASE_FEATURES						\
	(BIT(VIRTIO_F_VERSION_1) | BIT(VIRTIO_NET_F_MRG_RXBUF) |	\
	 BIT(VIRTIO_RING_F_EVENT_IDX) | BIT(VIRTIO_RING_F_INDIRECT_DESC) | \
	 BIT(VIRTIO_F_RING_PACKED) | BIT(VIRTIO_F_IN_ORDER) |		\
	 BIT(VIRTIO_NET_F_MAC) | BIT(VIRTIO_NET_F_STATUS) |		\
	 BIT(VHOST_F_LOG_ALL_BIT) | BIT(VHOST_USER_F_PROTOCOL_FEATURES))

#define VU_PROTO_FEATURES						\
	(BIT(VHOST_USER_PROTOCOL_F_MQ) | BIT(VHOST_USER_PROTOCOL_F_REPLY_ACK) | \
	 BIT(VHOST_USER_PROTOCOL_F_LOG_SHMFD) |				\
	 BIT(VHOST_USER_PROTOCOL_F_CONFIGURE_MEM_SLOTS) |		\
	 BIT(VHOST_USER_PROTOCOL_F_RARP) | BIT(VHOST_USER_PROTOCOL_F_NET_MTU) | \
	 BIT(VHOST_USER_PROTOCOL_F_CONFIG) | BIT(VHOST_USER_PROTOCOL_F_STATUS))

/* Descriptors a request carries (vhost-user "Front-end message types") */
enum vu_fds {
	VU_FD_NONE = 0,		/* none */
	VU_FD_ONE,		/* exactly one */
	VU_FD_NOFD_BIT,		/* one unless bit 8 of the u64 payload is set */
	VU_FD_OPT,		/* zero or one (REM_MEM_REG compatibility) */
	VU_FD_REGIONS,		/* one per region, checked by the handler */
};

/* Where a request carries its ring index */
enum vu_ring_arg {
	VU_RING_NONE = 0,
	VU_RING_STATE,		/* struct vu_vring_state .index */
	VU_RING_ADDR,		/* struct vu_vring_addr .index */
	VU_RING_U64,		/* u64 bits 0-7, bit 8 "no fd" */
};

#define VU_F_MIN_SIZE	0x1	/* @size is a minimum: handler checks the rest */
#define VU_F_REPLIES	0x2	/* always answered with a payload of its own */
#define VU_F_OWNER	0x4	/* only after SET_OWNER */
#define VU_F_PFEAT	0x8	/* only if bit 30 PROTOCOL_FEATURES is offered */

typedef int vu_handler_fn(struct vu_dev *d, struct vu_msg *m, unsigned int idx);

/**
 * struct vu_rule - What the dispatcher checks before a handler runs
 * @fn:		Handler; NULL: request not implemented (refused)
 * @size:	Payload size, exact or minimum (VU_F_MIN_SIZE)
 * @fds:	enum vu_fds
 * @ring:	enum vu_ring_arg
 * @flags:	VU_F_*
 * @proto_bit:	Protocol feature that must have been negotiated, -1: none
 */
struct vu_rule {
	vu_handler_fn *fn;
	uint16_t size;
	uint8_t fds;
	uint8_t ring;
	uint8_t flags;
	int8_t proto_bit;
};

static vu_handler_fn vu_get_features, vu_set_features, vu_set_owner,
	vu_reset_owner, vu_get_protocol_features, vu_set_protocol_features,
	vu_get_queue_num, vu_get_max_mem_slots, vu_set_log_fd, vu_send_rarp,
	vu_net_set_mtu, vu_get_config, vu_set_config, vu_set_status,
	vu_get_status;

#define RULE(req, fn_, size_, fds_, ring_, flags_, bit_)		\
	[VHOST_USER_##req] = { .fn = fn_, .size = size_, .fds = fds_,	\
			       .ring = ring_, .flags = flags_,		\
			       .proto_bit = bit_ }
#define PF(b)	VHOST_USER_PROTOCOL_F_##b
#define SZ_U64	sizeof(uint64_t)
#define SZ_ST	sizeof(struct vu_vring_state)

/* One table, one check: handlers may rely on size, fd count and ring index */
static const struct vu_rule vu_rules[VHOST_USER_MAX] = {
	RULE(GET_FEATURES, vu_get_features, 0, VU_FD_NONE, VU_RING_NONE,
	     VU_F_REPLIES, -1),
	RULE(SET_FEATURES, vu_set_features, SZ_U64, VU_FD_NONE, VU_RING_NONE,
	     0, -1),
	RULE(SET_OWNER, vu_set_owner, 0, VU_FD_NONE, VU_RING_NONE, 0, -1),
	RULE(RESET_OWNER, vu_reset_owner, 0, VU_FD_NONE, VU_RING_NONE, 0, -1),
	RULE(SET_MEM_TABLE, vu_set_mem_table, 2 * sizeof(uint32_t),
	     VU_FD_REGIONS, VU_RING_NONE, VU_F_MIN_SIZE | VU_F_OWNER, -1),
	RULE(SET_LOG_BASE, vu_set_log_base, sizeof(struct vu_log), VU_FD_ONE,
	     VU_RING_NONE, VU_F_REPLIES | VU_F_OWNER, PF(LOG_SHMFD)),
	RULE(SET_LOG_FD, vu_set_log_fd, 0, VU_FD_ONE, VU_RING_NONE,
	     VU_F_OWNER, PF(LOG_SHMFD)),
	RULE(SET_VRING_NUM, vu_set_vring_num, SZ_ST, VU_FD_NONE,
	     VU_RING_STATE, VU_F_OWNER, -1),
	RULE(SET_VRING_ADDR, vu_set_vring_addr, sizeof(struct vu_vring_addr),
	     VU_FD_NONE, VU_RING_ADDR, VU_F_OWNER, -1),
	RULE(SET_VRING_BASE, vu_set_vring_base, SZ_ST, VU_FD_NONE,
	     VU_RING_STATE, VU_F_OWNER, -1),
	RULE(GET_VRING_BASE, vu_get_vring_base, SZ_ST, VU_FD_NONE,
	     VU_RING_STATE, VU_F_REPLIES | VU_F_OWNER, -1),
	RULE(SET_VRING_KICK, vu_set_vring_kick, SZ_U64, VU_FD_NOFD_BIT,
	     VU_RING_U64, VU_F_OWNER, -1),
	RULE(SET_VRING_CALL, vu_set_vring_call, SZ_U64, VU_FD_NOFD_BIT,
	     VU_RING_U64, VU_F_OWNER, -1),
	RULE(SET_VRING_ERR, vu_set_vring_err, SZ_U64, VU_FD_NOFD_BIT,
	     VU_RING_U64, VU_F_OWNER, -1),
	RULE(GET_PROTOCOL_FEATURES, vu_get_protocol_features, 0, VU_FD_NONE,
	     VU_RING_NONE, VU_F_REPLIES | VU_F_PFEAT, -1),
	RULE(SET_PROTOCOL_FEATURES, vu_set_protocol_features, SZ_U64,
	     VU_FD_NONE, VU_RING_NONE, VU_F_PFEAT, -1),
	RULE(GET_QUEUE_NUM, vu_get_queue_num, 0, VU_FD_NONE, VU_RING_NONE,
	     VU_F_REPLIES, PF(MQ)),
	RULE(SET_VRING_ENABLE, vu_set_vring_enable, SZ_ST, VU_FD_NONE,
	     VU_RING_STATE, VU_F_PFEAT, -1),
	RULE(SEND_RARP, vu_send_rarp, SZ_U64, VU_FD_NONE, VU_RING_NONE, 0,
	     PF(RARP)),
	RULE(NET_SET_MTU, vu_net_set_mtu, SZ_U64, VU_FD_NONE, VU_RING_NONE,
	     0, PF(NET_MTU)),
	RULE(GET_CONFIG, vu_get_config, VU_CONFIG_HDR_SIZE, VU_FD_NONE,
	     VU_RING_NONE, VU_F_MIN_SIZE | VU_F_REPLIES, PF(CONFIG)),
	RULE(SET_CONFIG, vu_set_config, VU_CONFIG_HDR_SIZE, VU_FD_NONE,
	     VU_RING_NONE, VU_F_MIN_SIZE, PF(CONFIG)),
	RULE(GET_MAX_MEM_SLOTS, vu_get_max_mem_slots, 0, VU_FD_NONE,
	     VU_RING_NONE, VU_F_REPLIES, PF(CONFIGURE_MEM_SLOTS)),
	RULE(ADD_MEM_REG, vu_add_mem_reg, sizeof(struct vu_mem_single),
	     VU_FD_ONE, VU_RING_NONE, VU_F_OWNER, PF(CONFIGURE_MEM_SLOTS)),
	RULE(REM_MEM_REG, vu_rem_mem_reg, sizeof(struct vu_mem_single),
	     VU_FD_OPT, VU_RING_NONE, VU_F_OWNER, PF(CONFIGURE_MEM_SLOTS)),
	RULE(SET_STATUS, vu_set_status, SZ_U64, VU_FD_NONE, VU_RING_NONE, 0,
	     PF(STATUS)),
	RULE(GET_STATUS, vu_get_status, 0, VU_FD_NONE, VU_RING_NONE,
	     VU_F_REPLIES, PF(STATUS)),
};

/* -------- helpers shared with vu_backend_ring.c -------- */

/**
 * vu_fail() - Record why a request is refused, for the dispatcher's log line
 * @d:		Device
 * @err:	Negative errno to return
 * @fmt:	Reason, printf format
 *
 * Return: @err
 */
int vu_fail(struct vu_dev *d, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->why, sizeof(d->why), fmt, ap);
	va_end(ap);
	return err;
}

/**
 * vu_vring() - The data-path ring of a vhost-user ring index
 * @d:		Device
 * @idx:	Ring index, already checked < 2 * queues
 *
 * Return: RX (even index) or TX (odd) ring of pair @idx / 2
 */
struct vnet_ring *vu_vring(struct vu_dev *d, unsigned int idx)
{
	struct vnet_pair *p = &d->pairs[idx / 2];

	return (idx & 1) ? &p->tx : &p->rx;
}

/**
 * vu_pause() - Quiesce the worker serving ring @idx's pair
 * @d:		Device
 * @idx:	Ring index
 */
void vu_pause(struct vu_dev *d, unsigned int idx)
{
	if (d->wp)
		worker_pause(d->wp, idx / 2);
}

/**
 * vu_resume() - Let the worker serving ring @idx's pair run again
 * @d:		Device
 * @idx:	Ring index
 */
void vu_resume(struct vu_dev *d, unsigned int idx)
{
	struct vnet_pair *p = &d->pairs[idx / 2];

	/* Tell the worker whether the kernel runs the pair (pair.h) */
	p->kernel = vhost_port_offloaded(&d->vp, idx / 2);
	if (d->wp)
		worker_resume(d->wp, idx / 2);
}

/**
 * vu_pause_all() - Quiesce every worker of the device (memory changes)
 * @d:		Device
 */
void vu_pause_all(struct vu_dev *d)
{
	if (d->wp)
		worker_pause_all(d->wp);
}

/**
 * vu_resume_all() - Undo vu_pause_all()
 * @d:		Device
 */
void vu_resume_all(struct vu_dev *d)
{
	unsigned int i;

	for (i = 0; i < d->cfg.queues; i++)
		d->pairs[i].kernel = vhost_port_offloaded(&d->vp, i);
	if (d->wp)
		worker_resume_all(d->wp);
}

/**
 * vu_packed() - Do the rings use the packed layout?
 * @d:		Device
 *
 * Return: true if VIRTIO_F_RING_PACKED was acked
 */
bool vu_packed(const struct vu_dev *d)
{
	return d->features & BIT(VIRTIO_F_RING_PACKED);
}

static bool vu_has_proto(const struct vu_dev *d, unsigned int bit)
{
	return d->proto & BIT(bit);
}

static void vu_reply_u64(struct vu_msg *m, uint64_t v)
{
	m->hdr.size = sizeof(uint64_t);
	m->payload.u64 = v;
}

/* -------- features and owner (vhost-user "Feature negotiation") -------- */

static int vu_get_features(struct vu_dev *d, struct vu_msg *m,
			   unsigned int idx UNUSED)
{
	vu_reply_u64(m, d->offered);
	return 0;
}

/* virtio 5.1.6: 12-byte header with VERSION_1 or MRG_RXBUF, else 10 */
static unsigned int vu_hdr_len(uint64_t features)
{
	if (features & (BIT(VIRTIO_F_VERSION_1) | BIT(VIRTIO_NET_F_MRG_RXBUF)))
		return sizeof(struct virtio_net_hdr_mrg_rxbuf);
	return sizeof(struct virtio_net_hdr);
}

static int vu_apply_features(struct vu_dev *d, uint64_t f)
{
	uint64_t changed = (f ^ d->features) & ~BIT(VHOST_F_LOG_ALL_BIT);
	unsigned int i, hdr_len = vu_hdr_len(f);
	struct host *host = d->cfg.host;
	int ret;

	if (host && host->ops->configure && (changed || !d->features_set)) {
		ret = host->ops->configure(host, f, hdr_len);
		if (ret)
			return vu_fail(d, ret, "backend refused features %#llx",
				       (unsigned long long)f);
	}
	d->features = f;
	d->features_set = true;
	for (i = 0; i < d->cfg.queues; i++) {
		d->pairs[i].features = f;
		d->pairs[i].hdr_len = hdr_len;
	}
	/* vhost-user "Ring states": no PROTOCOL_FEATURES, rings enabled now */
	if (!(f & BIT(VHOST_USER_F_PROTOCOL_FEATURES)))
		for (i = 0; i < 2 * d->cfg.queues; i++)
			vu_vring(d, i)->enabled = true;
	for (i = 0; i < 2 * d->cfg.queues; i++)
		vu_ring_update_log(d, i);
	return 0;
}

static int vu_set_features(struct vu_dev *d, struct vu_msg *m,
			   unsigned int idx UNUSED)
{
	uint64_t f = m->payload.u64, changed, was_log;
	unsigned int i;
	int ret;

	if (f & ~d->offered)
		return vu_fail(d, -EINVAL, "features %#llx not offered",
			       (unsigned long long)(f & ~d->offered));
	/* Only LOG_ALL may change under running rings (migration) */
	changed = (f ^ d->features) & ~BIT(VHOST_F_LOG_ALL_BIT);
	for (i = 0; changed && d->features_set && i < 2 * d->cfg.queues; i++)
		if (vu_vring(d, i)->started)
			return vu_fail(d, -EBUSY,
				       "features %#llx changed while ring %u runs",
				       (unsigned long long)changed, i);
	vu_pause_all(d);
	was_log = d->features & BIT(VHOST_F_LOG_ALL_BIT);
	ret = vu_apply_features(d, f);
	/* Dirty logging switched on or off under offloaded pairs */
	if (!ret && was_log != (f & BIT(VHOST_F_LOG_ALL_BIT)))
		ret = vu_offload_log(d);
	vu_resume_all(d);
	return ret;
}

static int vu_set_owner(struct vu_dev *d, struct vu_msg *m UNUSED,
			unsigned int idx UNUSED)
{
	/* Repeated SET_OWNER on one connection is harmless: accept it */
	d->owner = true;
	return 0;
}

/* Everything a connection set up, undone; offered features stay */
static void vu_dev_reset(struct vu_dev *d)
{
	unsigned int i;

	vu_pause_all(d);
	/* The kernel lets go first: before fds close and memory goes */
	vhost_port_disconnect(&d->vp, d->pairs, d->cfg.queues);
	for (i = 0; i < 2 * d->cfg.queues; i++)
		vu_ring_reset(d, i);
	gmem_cleanup(d->mem);
	gmem_init(d->mem);
	d->nmem_refs = 0;
	gmem_log_unmap(&d->log);
	memset(&d->log, 0, sizeof(d->log));
	if (d->log_fd >= 0)
		close(d->log_fd);
	d->log_fd = -1;
	d->features = 0;
	d->features_set = false;
	d->status = 0;
	d->mtu = 0;
	for (i = 0; i < d->cfg.queues; i++) {
		d->pairs[i].features = 0;
		d->pairs[i].hdr_len = 0;
	}
	vu_resume_all(d);
}

/*
 * vhost-user "RESET_OWNER": deprecated, treated as a device reset. The
 * connection keeps its owner and protocol features: frontends go on to set
 * the device up again without repeating those.
 */
static int vu_reset_owner(struct vu_dev *d, struct vu_msg *m UNUSED,
			  unsigned int idx UNUSED)
{
	vu_dev_reset(d);
	return 0;
}

static int vu_get_protocol_features(struct vu_dev *d, struct vu_msg *m,
				    unsigned int idx UNUSED)
{
	vu_reply_u64(m, d->offered_proto);
	return 0;
}

static int vu_set_protocol_features(struct vu_dev *d, struct vu_msg *m,
				    unsigned int idx UNUSED)
{
	uint64_t f = m->payload.u64;

	if (f & ~d->offered_proto)
		return vu_fail(d, -EINVAL, "protocol features %#llx not offered",
			       (unsigned long long)(f & ~d->offered_proto));
	d->proto = f;
	return 0;
}

static int vu_get_queue_num(struct vu_dev *d, struct vu_msg *m,
			    unsigned int idx UNUSED)
{
	vu_reply_u64(m, d->cfg.queues);
	return 0;
}

static int vu_get_max_mem_slots(struct vu_dev *d, struct vu_msg *m,
				unsigned int idx UNUSED)
{
	/* With vhost-net possible: the kernel's max_mem_regions if lower */
	vu_reply_u64(m, vhost_port_max_mem_slots(&d->vp, GMEM_MAX_REGIONS));
	return 0;
}

/* vhost-user "SET_LOG_FD": the eventfd for log-sync notifications; kept */
static int vu_set_log_fd(struct vu_dev *d, struct vu_msg *m,
			 unsigned int idx UNUSED)
{
	if (d->log_fd >= 0)
		close(d->log_fd);
	d->log_fd = vu_msg_take_fd(m, 0);
	return 0;
}

/* -------- net specifics: RARP, MTU, config space, status -------- */

/* An RFC 903 reverse ARP request for @mac, as QEMU's announce sends */
static size_t vu_rarp_frame(uint8_t *f, const uint8_t mac[6])
{
	static const uint8_t hdr[] = {
		0x80, 0x35,		/* ethertype RARP */
		0x00, 0x01, 0x08, 0x00,	/* htype Ethernet, ptype IPv4 */
		6, 4, 0x00, 0x03,	/* hlen, plen, op: request reverse */
	};

	memset(f, 0, 60);
	memset(f, 0xff, 6);
	memcpy(f + 6, mac, 6);
	memcpy(f + 12, hdr, sizeof(hdr));
	memcpy(f + 22, mac, 6);		/* sender hardware address */
	memcpy(f + 32, mac, 6);		/* target hardware address */
	return 60;			/* padded to the Ethernet minimum */
}

/*
 * vhost-user "SEND_RARP": the guest moved; announce its MAC on the host
 * side. The frame goes out through pair 0's host queue with the pair
 * paused (backend tx is the pair worker's call otherwise).
 */
static int vu_send_rarp(struct vu_dev *d, struct vu_msg *m,
			unsigned int idx UNUSED)
{
	uint8_t hdr[sizeof(struct virtio_net_hdr_mrg_rxbuf)] = { 0 };
	struct host *host = d->cfg.host;
	uint8_t mac[6], frame[60];
	struct iovec iov[2];
	ssize_t n;

	memcpy(mac, m->payload.raw, sizeof(mac));
	if (!host || !host->ops->tx || !d->features_set) {
		log_info("%s: SEND_RARP for %02x:%02x:%02x:%02x:%02x:%02x accepted, no host queue to send it on",
			 d->cfg.name, mac[0], mac[1], mac[2], mac[3], mac[4],
			 mac[5]);
		return 0;
	}
	iov[0].iov_base = hdr;
	iov[0].iov_len = d->pairs[0].hdr_len;
	iov[1].iov_base = frame;
	iov[1].iov_len = vu_rarp_frame(frame, mac);
	vu_pause(d, 0);
	n = host->ops->tx(host, 0, iov, 2);
	vu_resume(d, 0);
	if (n < 0)	/* host side trouble, not the frontend's fault */
		log_warn("%s: SEND_RARP: backend tx failed: %s", d->cfg.name,
			 strerror((int)-n));
	return 0;
}

static int vu_net_set_mtu(struct vu_dev *d, struct vu_msg *m,
			  unsigned int idx UNUSED)
{
	uint64_t mtu = m->payload.u64;

	/* virtio 5.1.4.1: the device offers the maximum; 68 is IPv4's minimum */
	if (mtu < 68 || mtu > 65535 || (d->cfg.mtu && mtu > d->cfg.mtu))
		return vu_fail(d, -EINVAL, "MTU %llu outside 68..%u",
			       (unsigned long long)mtu,
			       d->cfg.mtu ? d->cfg.mtu : 65535);
	d->mtu = (uint16_t)mtu;
	return 0;
}

static void vu_fill_config(const struct vu_dev *d, struct virtio_net_config *c)
{
	memset(c, 0, sizeof(*c));
	memcpy(c->mac, d->cfg.mac, sizeof(c->mac));
	/* virtio 1.x config space is little endian */
	c->status = htole16(VIRTIO_NET_S_LINK_UP);
	c->max_virtqueue_pairs = htole16((uint16_t)d->cfg.queues);
	c->mtu = htole16(d->mtu ? d->mtu : d->cfg.mtu);
	c->speed = htole32(UINT32_MAX);		/* unknown */
	c->duplex = 0xff;			/* unknown */
}

/* vhost-user "GET_CONFIG": reply with the same header and the bytes asked */
static int vu_get_config(struct vu_dev *d, struct vu_msg *m,
			 unsigned int idx UNUSED)
{
	uint32_t off = m->payload.config.offset, len = m->payload.config.size;
	struct virtio_net_config c;

	if (len > VHOST_USER_CONFIG_SPACE_MAX ||
	    m->hdr.size != VU_CONFIG_HDR_SIZE + len)
		return vu_fail(d, -EINVAL, "config size %u, payload %u", len,
			       m->hdr.size);
	if (off > sizeof(c) || len > sizeof(c) - off)
		return vu_fail(d, -EINVAL, "config bytes %u+%u beyond %zu",
			       off, len, sizeof(c));
	vu_fill_config(d, &c);
	memcpy(m->payload.config.region, (const uint8_t *)&c + off, len);
	return 0;
}

/* The net config space is read-only to a virtio 1.x driver (virtio 5.1.4) */
static int vu_set_config(struct vu_dev *d, struct vu_msg *m UNUSED,
			 unsigned int idx UNUSED)
{
	return vu_fail(d, -EPERM, "config space is read-only");
}

static int vu_set_status(struct vu_dev *d, struct vu_msg *m,
			 unsigned int idx UNUSED)
{
	uint64_t s = m->payload.u64;

	if (s > UINT8_MAX)
		return vu_fail(d, -EINVAL, "status %#llx wider than 8 bits",
			       (unsigned long long)s);
	d->status = (uint8_t)s;
	return 0;
}

static int vu_get_status(struct vu_dev *d, struct vu_msg *m,
			 unsigned int idx UNUSED)
{
	vu_reply_u64(m, d->status);
	return 0;
}

/* -------- the dispatcher -------- */

static int vu_check_fds(const struct vu_rule *r, const struct vu_msg *m,
			const char **why)
{
	unsigned int want;

	switch (r->fds) {
	case VU_FD_NONE:
		want = 0;
		break;
	case VU_FD_ONE:
		want = 1;
		break;
	case VU_FD_NOFD_BIT:
		/* vhost-user "SET_VRING_KICK": fd present iff bit 8 clear */
		want = (m->payload.u64 & VHOST_USER_VRING_NOFD_MASK) ? 0 : 1;
		break;
	case VU_FD_OPT:
		want = m->nfds ? 1 : 0;
		break;
	default:	/* VU_FD_REGIONS: up to 8, the handler matches them */
		return 0;
	}
	if (m->nfds == want)
		return 0;
	*why = m->nfds > want ? "unexpected descriptors" : "descriptor missing";
	return -EBADMSG;
}

static int vu_check_ring(const struct vu_dev *d, const struct vu_rule *r,
			 const struct vu_msg *m, unsigned int *idx,
			 const char **why)
{
	uint64_t v;

	switch (r->ring) {
	case VU_RING_STATE:
		v = m->payload.state.index;
		break;
	case VU_RING_ADDR:
		v = m->payload.addr.index;
		break;
	case VU_RING_U64:
		v = m->payload.u64;
		if (v & ~(uint64_t)(VHOST_USER_VRING_IDX_MASK |
				    VHOST_USER_VRING_NOFD_MASK)) {
			*why = "reserved bits set in ring index";
			return -EINVAL;
		}
		v &= VHOST_USER_VRING_IDX_MASK;
		break;
	default:
		return 0;
	}
	/* vhost-user "Multiple queue support": rings 0 .. 2 * queues - 1 */
	if (v >= 2ULL * d->cfg.queues) {
		*why = "ring index out of range";
		return -ERANGE;
	}
	*idx = (unsigned int)v;
	return 0;
}

/* Every check the table describes; handlers run only if this passes */
static int vu_check(const struct vu_dev *d, const struct vu_msg *m,
		    const struct vu_rule **rp, unsigned int *idx,
		    const char **why)
{
	uint32_t req = m->hdr.request;
	const struct vu_rule *r;
	int ret;

	if (req >= VHOST_USER_MAX || !vu_rules[req].fn) {
		*why = "request unknown or not supported";
		return -EOPNOTSUPP;
	}
	r = &vu_rules[req];
	*rp = r;
	if ((m->hdr.flags & VHOST_USER_VERSION_MASK) != VHOST_USER_VERSION) {
		*why = "bad protocol version in flags";
		return -EPROTO;
	}
	if ((r->flags & VU_F_MIN_SIZE) ? m->hdr.size < r->size :
					 m->hdr.size != r->size) {
		*why = "wrong payload size";
		return -EBADMSG;
	}
	ret = vu_check_fds(r, m, why);
	if (!ret)
		ret = vu_check_ring(d, r, m, idx, why);
	if (ret)
		return ret;
	if ((r->flags & VU_F_PFEAT) &&
	    !(d->offered & BIT(VHOST_USER_F_PROTOCOL_FEATURES))) {
		*why = "PROTOCOL_FEATURES not offered";
		return -EPROTO;
	}
	if (r->proto_bit >= 0 && !vu_has_proto(d, (unsigned int)r->proto_bit)) {
		*why = "needs a protocol feature not negotiated";
		return -EPROTO;
	}
	if ((r->flags & VU_F_OWNER) && !d->owner) {
		*why = "before SET_OWNER";
		return -EPROTO;
	}
	return 0;
}

static int vu_send_reply(struct vu_dev *d, struct vu_msg *m)
{
	int ret;

	m->hdr.flags = VHOST_USER_VERSION | VHOST_USER_REPLY;
	m->nfds = 0;
	ret = vu_msg_send(d->sock, m);
	if (ret)
		log_err("%s: %s: reply not sent: %s", d->cfg.name,
			vu_request_name(m->hdr.request), strerror(-ret));
	return ret;
}

/**
 * vu_dev_dispatch() - Check one received message and run its handler
 * @d:		Device
 * @m:		Message as received; its descriptors are taken or closed and
 *		its payload is reused for the reply
 *
 * Context: control thread
 * Return: 0 if the connection may go on, -errno if it must be closed (one
 *	   log line has then named the port, the request and the reason)
 */
int vu_dev_dispatch(struct vu_dev *d, struct vu_msg *m)
{
	bool ack = (m->hdr.flags & VHOST_USER_NEED_REPLY) &&
		   vu_has_proto(d, VHOST_USER_PROTOCOL_F_REPLY_ACK);
	uint32_t req = m->hdr.request;
	const struct vu_rule *r = NULL;
	const char *why = NULL;
	unsigned int idx = 0;
	int ret;

	d->why[0] = '\0';
	ret = vu_check(d, m, &r, &idx, &why);
	if (!ret) {
		log_debug("%s: %s (ring %u, %u bytes, u64 %#llx, %u fds)",
			  d->cfg.name, vu_request_name(req), idx, m->hdr.size,
			  m->hdr.size >= sizeof(uint64_t) ?
			  (unsigned long long)m->payload.u64 : 0ULL, m->nfds);
		ret = r->fn(d, m, idx);
	}
	vu_msg_close_fds(m);
	if (!ret && (r->flags & VU_F_REPLIES))
		return vu_send_reply(d, m);
	/* vhost-user "REPLY_ACK": u64 0 on success, non-zero on failure */
	if (ack && !(r && (r->flags & VU_F_REPLIES))) {
		vu_reply_u64(m, ret ? 1 : 0);
		if (vu_send_reply(d, m))
			return -EIO;
	}
	if (!ret)
		return 0;
	if (ack && !why) {	/* a refusal the frontend asked to hear of */
		log_warn("%s: %s refused: %s", d->cfg.name,
			 vu_request_name(req), d->why);
		return 0;
	}
	log_err("%s: %s (%u): %s, closing the connection", d->cfg.name,
		vu_request_name(req), req, why ? why : d->why);
	return ret;
}

/* -------- device lifetime -------- */

static uint64_t vu_offer(const struct vu_dev_cfg *cfg)
{
	uint64_t f = VU_BASE_FEATURES;

	if (cfg->host && cfg->host->ops->host_features)
		f |= cfg->host->ops->host_features(cfg->host) & VU_OFFLOAD_FEATURES;
	if (cfg->queues > 1)
		f |= BIT(VIRTIO_NET_F_MQ);
	if (cfg->mtu)
		f |= BIT(VIRTIO_NET_F_MTU);
	return f & cfg->features_mask;
}

static void vu_pairs_init(struct vu_dev *d)
{
	unsigned int i;

	for (i = 0; i < PORT_MAX_PAIRS; i++) {
		struct vnet_pair *p = &d->pairs[i];

		p->index = i;
		p->rx.kick_fd = p->rx.call_fd = p->rx.err_fd = -1;
		p->tx.kick_fd = p->tx.call_fd = p->tx.err_fd = -1;
		p->datapath = "idle";
		snprintf(p->why, sizeof(p->why), "no frontend connected");
	}
}

/**
 * vu_dev_create() - Make a port's device, waiting for a connection
 * @d:		Result
 * @cfg:	Configuration, copied; @cfg->name and @cfg->be must outlive
 *		the device
 *
 * Decides the offered feature set, fixed from now on so that a frontend
 * reconnecting sees the same one (vhost-user "Feature negotiation"):
 * with a "vhost-net" decision (@cfg->vhost) only what the kernel can run
 * (no packed ring, no IN_ORDER...). Starts the port's worker pool unless
 * @cfg->no_workers.
 *
 * Return: 0 or -EINVAL (queues outside 1..64, no backend but workers),
 *	   -ENOMEM, -errno from the pool
 */
int vu_dev_create(struct vu_dev **d, const struct vu_dev_cfg *cfg)
{
	struct vu_dev *n;
	int ret;

	if (!cfg->queues || cfg->queues > PORT_MAX_PAIRS ||
	    (!cfg->host && !cfg->no_workers))	/* workers need a host side */
		return -EINVAL;
	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->mem = calloc(1, sizeof(*n->mem));
	if (!n->mem) {
		ret = -ENOMEM;
		goto err_free;
	}
	gmem_init(n->mem);
	n->cfg = *cfg;
	if (!n->cfg.name)
		n->cfg.name = "vnet";
	n->sock = -1;
	n->log_fd = -1;
	/* The decision was made once, before this first offer: adopt it */
	vhost_port_adopt(&n->vp, n->cfg.name, cfg->vhost, NULL);
	n->offered = vhost_port_features(&n->vp, vu_offer(cfg));
	n->offered_proto = VU_PROTO_FEATURES;
	vu_pairs_init(n);
	if (!cfg->no_workers) {
		ret = worker_pool_create(&n->wp, n->cfg.name, n->pairs,
					 cfg->queues, cfg->host, &cfg->wopts);
		if (ret)
			goto err_mem;
	}
	*d = n;
	return 0;

err_mem:
	free(n->mem);
err_free:
	free(n);
	return ret;
}

/**
 * vu_dev_destroy() - Disconnect if needed, stop the workers, free
 * @d:		Device, or NULL
 */
void vu_dev_destroy(struct vu_dev *d)
{
	if (!d)
		return;
	vu_dev_disconnect(d);
	if (d->wp)
		worker_pool_destroy(d->wp);
	gmem_cleanup(d->mem);
	free(d->mem);
	free(d);
}

/**
 * vu_dev_connect() - Serve a newly connected frontend
 * @d:		Device; a previous connection is dropped first
 * @sock:	Connected socket, owned by the device from now on
 */
void vu_dev_connect(struct vu_dev *d, int sock)
{
	if (d->sock >= 0)
		vu_dev_disconnect(d);
	d->sock = sock;
	worker_pool_set_conn(d->wp, sock);
	d->owner = false;
	d->proto = 0;
}

/*
 * Handlers read rings (setup, GET_VRING_BASE) and write the dirty log: a
 * frontend that shrank that memory makes them fault (guard.h). The fault
 * ends the message and the connection; fds the message carried are lost
 * to the jump only if a handler had not yet taken them (one connection's
 * worth, closed with it at worst never). Workers the handler paused are
 * let go: the disconnect that follows pauses them again.
 */
static int vu_dev_dispatch_guarded(struct vu_dev *d, struct vu_msg *m)
{
	sigjmp_buf jb;
	char what[160];
	int ret;

	if (sigsetjmp(jb, 0)) {
		worker_unpause_all(d->wp);
		guard_describe(what, sizeof(what));
		log_err("port %s: guest %s: closing the connection",
			d->cfg.name, what);
		return -EFAULT;
	}
	guard_arm(&jb);
	ret = vu_dev_dispatch(d, m);
	guard_disarm();
	return ret;
}

/**
 * vu_dev_handle() - Read one message from the frontend and act on it
 * @d:		Connected device
 *
 * Context: control thread, when the socket polls readable
 * Return: 0, or -errno: the connection is over (peer gone, framing error
 *	   or refused message) and the caller calls vu_dev_disconnect()
 */
int vu_dev_handle(struct vu_dev *d)
{
	struct vu_msg m;
	int ret;

	if (d->sock < 0)
		return -ENOTCONN;
	ret = vu_msg_recv(d->sock, &m);
	if (ret) {
		if (ret != -ECONNRESET)
			log_err("%s: bad message framing: %s, closing the connection",
				d->cfg.name, strerror(-ret));
		return ret;
	}
	return vu_dev_dispatch_guarded(d, &m);
}

/**
 * vu_dev_disconnect() - Forget the connection: rings stopped, memory
 *			 unmapped, every fd closed; ready for the next one
 * @d:		Device
 */
void vu_dev_disconnect(struct vu_dev *d)
{
	unsigned int i;

	vu_dev_reset(d);
	worker_pool_set_conn(d->wp, -1);
	if (d->sock >= 0)
		close(d->sock);
	d->sock = -1;
	d->owner = false;
	d->proto = 0;
	for (i = 0; i < d->cfg.queues; i++)
		vu_pair_status(d, i);
}

/**
 * vu_dev_connected() - Is a frontend connected?
 * @d:		Device
 *
 * Return: true while a socket is held
 */
bool vu_dev_connected(const struct vu_dev *d)
{
	return d->sock >= 0;
}

/**
 * vu_dev_sock() - The connected socket, for the caller's poll set
 * @d:		Device
 *
 * Return: socket, -1 if none
 */
int vu_dev_sock(const struct vu_dev *d)
{
	return d->sock;
}

/**
 * vu_dev_offered_features() - Features offered to every frontend of the port
 * @d:		Device
 *
 * Return: the GET_FEATURES answer
 */
uint64_t vu_dev_offered_features(const struct vu_dev *d)
{
	return d->offered;
}

/**
 * vu_dev_acked_features() - Features the current frontend acked
 * @d:		Device
 *
 * Return: the last SET_FEATURES value, 0 before it
 */
uint64_t vu_dev_acked_features(const struct vu_dev *d)
{
	return d->features;
}

/**
 * vu_dev_pairs() - The queue pairs, for status and counters
 * @d:		Device
 * @npairs:	Set to the number of pairs (cfg->queues)
 *
 * Context: fields other than counters change on the control thread only
 * Return: array of @npairs pairs
 */
struct vnet_pair *vu_dev_pairs(struct vu_dev *d, unsigned int *npairs)
{
	*npairs = d->cfg.queues;
	return d->pairs;
}
