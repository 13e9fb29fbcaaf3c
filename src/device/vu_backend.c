// SPDX-License-Identifier: MIT
/*
 * vu_backend.c - the vhost-user device, backend side, top layer: one
 * table-driven dispatcher, the generic negotiation (owner, protocol
 * features, status), device lifetime and the public API (vu_backend.h).
 * Layers below, each calling only down (vu_dev_core.h): vu_dev_net.c
 * (features, config space, RARP, MQ), vu_dev_ring.c (ring messages),
 * vu_dev_mem.c (memory table, dirty log), vu_dev_core.c (device state,
 * pause/resume, ring lookup). Framing is vu_msg.c's; serving the rings is
 * the worker's (worker.h).
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
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guard.h"
#include "log.h"
#include "vu_backend.h"
#include "vu_dev_net.h"
#include "vu_dev_ring.h"
#include "vu_msg.h"

/* #syscalls: close fcntl brk mmap munmap madvise mprotect */
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

static vu_handler_fn vu_set_owner, vu_reset_owner, vu_get_protocol_features,
	vu_set_protocol_features, vu_set_status, vu_get_status;

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

/* -------- generic negotiation: owner, protocol features, status -------- */

static bool vu_has_proto(const struct vu_dev *d, unsigned int bit)
{
	return d->proto & BIT(bit);
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
	vu_mem_reset(d);
	d->features = 0;
	d->features_set = false;
	d->rarp_pending = false;	/* an announcement ends with its session */
	d->status = 0;
	d->mtu = 0;
	for (i = 0; i < d->cfg.queues; i++) {
		d->pairs[i].features = 0;
		d->pairs[i].hdr_len = 0;
	}
	/* A session ends with its frames (host.h @reset); workers paused */
	if (d->cfg.host && d->cfg.host->ops->reset)
		d->cfg.host->ops->reset(d->cfg.host);
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

	if (d->replaying)	/* the frontend asked the previous process */
		return 0;
	m->hdr.flags = VHOST_USER_VERSION | VHOST_USER_REPLY;
	m->nfds = 0;
	ret = d->conn ? vu_conn_send(d->conn, m) : vu_msg_send(d->sock, m);
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

	reason_clear(&d->why);
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
			 vu_request_name(req), d->why.msg);
		return 0;
	}
	log_err("%s: %s (%u): %s, closing the connection", d->cfg.name,
		vu_request_name(req), req, why ? why : d->why.msg);
	return ret;
}

/* -------- device lifetime -------- */

static void vu_pairs_init(struct vu_dev *d)
{
	unsigned int i;

	for (i = 0; i < VNET_MAX_PAIRS; i++) {
		struct vnet_pair *p = &d->pairs[i];

		p->index = i;
		p->rx.kick_fd = p->rx.call_fd = p->rx.err_fd = -1;
		p->tx.kick_fd = p->tx.call_fd = p->tx.err_fd = -1;
		vnet_pair_set_datapath(p, VNET_DP_IDLE, "no frontend connected");
	}
}

/**
 * vu_dev_create() - Make a port's device, waiting for a connection
 * @d:		Result
 * @cfg:	Configuration, copied; @cfg->name, @cfg->host and @cfg->vhost
 *		must outlive the device
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

	if (!cfg->queues || cfg->queues > VNET_MAX_PAIRS ||
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
	n->log_fd = n->log_mem_fd = -1;
	/* The decision was made once, before this first offer: adopt it */
	vhost_port_adopt(&n->vp, n->cfg.name, cfg->vhost, NULL);
	n->offered = vhost_port_features(&n->vp, vu_net_offer(cfg));
	n->offered_proto = VU_PROTO_FEATURES &
		~(cfg->config_space ? 0 : BIT(VHOST_USER_PROTOCOL_F_CONFIG));
	vu_pairs_init(n);
	if (!cfg->no_workers) {
		ret = worker_port_create(&n->wp, n->cfg.name, n->pairs,
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
		worker_port_destroy(d->wp);
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
	d->conn = NULL;
	worker_port_set_conn(d->wp, sock);
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
 * vu_dev_set_conn() - Frame the connection through a non-blocking buffer
 * @d:		Connected device
 * @c:		vu_conn_init()ed on the device's socket; the caller's, used
 *		until vu_dev_disconnect()
 *
 * vu_dev_handle() then returns 0 on a partial message and replies that
 * the socket does not take are queued in @c (the caller flushes it).
 */
void vu_dev_set_conn(struct vu_dev *d, struct vu_conn *c)
{
	d->conn = c;
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
	ret = d->conn ? vu_conn_recv(d->conn, &m) : vu_msg_recv(d->sock, &m);
	if (ret == -EAGAIN && d->conn)
		return 0;	/* partial message kept by the conn */
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
	worker_port_set_conn(d->wp, -1);
	if (d->sock >= 0)
		close(d->sock);
	d->sock = -1;
	d->conn = NULL;
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
 * vu_dev_log_state() - Migration state: is dirty logging on?
 * @d:		Device
 * @pages:	Pages vnetd's own data path has newly marked dirty since the
 *		port started (a kernel vhost-net pair's writes are the
 *		kernel's, not counted) (output)
 *
 * Context: control thread (the flag); @pages is read with a relaxed load
 * Return: true while VHOST_F_LOG_ALL is acked and a log is mapped
 *	   (vhost-user "Migration")
 */
bool vu_dev_log_state(const struct vu_dev *d, uint64_t *pages)
{
	*pages = __atomic_load_n(&d->log_pages, __ATOMIC_RELAXED);
	return (d->features & BIT(VHOST_F_LOG_ALL_BIT)) && d->log.base;
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
