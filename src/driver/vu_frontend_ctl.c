// SPDX-License-Identifier: MIT
/*
 * vu_frontend_ctl.c - the driver side of vhost-user-net, top layer: messages
 * to the backend, negotiation, the control API (connect, share memory,
 * set up rings, stop, resume).
 *
 * Layers below, each calling only down: vu_frontend_data.c (per-packet
 * path, first RX buffers), vu_frontend_mem.c (memory and ring layout),
 * vu_frontend_core.h (the reason, shared sizes); the ring formats
 * themselves are vq.h's business.
 *
 * Message order follows QEMU (docs/vhost-user-net.md "Order QEMU sends
 * them"): GET_FEATURES, GET/SET_PROTOCOL_FEATURES, GET_QUEUE_NUM,
 * GET_MAX_MEM_SLOTS, SET_OWNER, GET_CONFIG, SET_FEATURES, SET_MEM_TABLE or
 * ADD_MEM_REG, then per ring SET_VRING_NUM, SET_VRING_BASE, SET_VRING_ADDR,
 * SET_VRING_KICK, SET_VRING_CALL, SET_VRING_ENABLE, and without REPLY_ACK a
 * GET_FEATURES round trip as the barrier before any traffic.
 *
 * Security model: the backend is a separate process we do not trust with
 * our control flow. Every reply is checked for request code, REPLY flag and
 * exact size before its payload is used; descriptors a reply carries are
 * closed; a bad reply fails the call with -EPROTO and the caller disconnects.
 * The backend can of course scribble over the shared memory: the data path
 * (vu_frontend_data.c) bounds every length and index it reads from there.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <endian.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <linux/virtio_config.h>

#include "util.h"
#include "vu_msg.h"
#include "vu_frontend.h"
#include "vu_frontend_data.h"
#include "vu_frontend_mem.h"
#include "vu_frontend_ctl.h"
#include "vnet_hdr.h"

/* virtio-net feature bits the library drives (VIRTIO 1.2, 5.1.3) */
#define FE_SUPPORTED_FEATURES						\
	((1ULL << VIRTIO_NET_F_CSUM) | (1ULL << VIRTIO_NET_F_GUEST_CSUM) | \
	 (1ULL << VIRTIO_NET_F_MAC) | (1ULL << VIRTIO_NET_F_GUEST_TSO4) | \
	 (1ULL << VIRTIO_NET_F_GUEST_TSO6) |				\
	 (1ULL << VIRTIO_NET_F_HOST_TSO4) |				\
	 (1ULL << VIRTIO_NET_F_HOST_TSO6) |				\
	 (1ULL << VIRTIO_NET_F_MRG_RXBUF) | (1ULL << VIRTIO_NET_F_STATUS) | \
	 (1ULL << VIRTIO_NET_F_MQ) | (1ULL << VIRTIO_RING_F_INDIRECT_DESC) | \
	 (1ULL << VIRTIO_RING_F_EVENT_IDX) | (1ULL << VIRTIO_F_VERSION_1) | \
	 (1ULL << VIRTIO_F_RING_PACKED))

#define FE_SUPPORTED_PROTOCOL						\
	((1ULL << VHOST_USER_PROTOCOL_F_MQ) |				\
	 (1ULL << VHOST_USER_PROTOCOL_F_REPLY_ACK) |			\
	 (1ULL << VHOST_USER_PROTOCOL_F_CONFIG) |			\
	 (1ULL << VHOST_USER_PROTOCOL_F_CONFIGURE_MEM_SLOTS) |		\
	 (1ULL << VHOST_USER_PROTOCOL_F_LOG_SHMFD))

/* How long we wait for any single reply before calling the backend dead */
#define FE_REPLY_TIMEOUT_MS	10000

/**
 * vu_frontend_error() - Reason for the last failure
 * @f:	Frontend
 *
 * Return: one line, "" if nothing failed yet
 */
const char *vu_frontend_error(const struct vu_frontend *f)
{
	return f->err.msg;
}

/**
 * vu_frontend_has_proto() - Was a protocol feature negotiated?
 * @f:		Frontend
 * @bit:	VHOST_USER_PROTOCOL_F_*
 *
 * Return: true if the backend acked it
 */
bool vu_frontend_has_proto(const struct vu_frontend *f, unsigned int bit)
{
	return f->protocol_features & (1ULL << bit);
}

/* Wait for the reply to arrive, so a silent backend cannot hang us */
static int fe_wait_readable(int sock)
{
	struct pollfd p = { .fd = sock, .events = POLLIN };
	int n;

	do {
		n = poll(&p, 1, FE_REPLY_TIMEOUT_MS);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n ? 0 : -ETIMEDOUT;
}

/**
 * vu_frontend_recv_reply() - Receive and check the reply to @req
 * @f:		Frontend, connected
 * @req:	Request the reply must answer
 * @r:		Reply, filled in; descriptors it carries are closed
 * @size:	Payload bytes the reply must have (at most, with @size_max)
 * @size_max:	@size is a bound, not the exact size
 *
 * Return: 0, -ETIMEDOUT, -EPROTO for a bad reply, other -errno
 */
int vu_frontend_recv_reply(struct vu_frontend *f, uint32_t req,
			   struct vu_msg *r, uint32_t size, bool size_max)
{
	int ret;

	ret = fe_wait_readable(f->sock);
	if (!ret)
		ret = vu_msg_recv(f->sock, r);
	if (ret)
		return vu_frontend_set_err(f, ret, "%s: no reply from the backend: %s",
			      vu_request_name(req), strerror(-ret));
	vu_msg_close_fds(r);	/* no reply we use carries descriptors */
	if (r->hdr.request != req ||
	    (r->hdr.flags & (VHOST_USER_REPLY | VHOST_USER_VERSION_MASK)) !=
	    (VHOST_USER_REPLY | VHOST_USER_VERSION) ||
	    (size_max ? r->hdr.size > size : r->hdr.size != size))
		return vu_frontend_set_err(f, -EPROTO,
			      "%s: bad reply (request %u, flags 0x%x, size %u)",
			      vu_request_name(req), r->hdr.request,
			      r->hdr.flags, r->hdr.size);
	return 0;
}

/**
 * vu_frontend_send() - Send a request that has no reply of its own
 * @f:		Frontend, connected
 * @req:	Request code
 * @payload:	Payload, or NULL
 * @size:	Payload bytes
 * @fds:	Descriptors to pass (stay ours), or NULL
 * @nfds:	How many
 *
 * With REPLY_ACK negotiated the request asks for an ack and a non-zero ack
 * fails it (spec "REPLY_ACK").
 *
 * Return: 0, -EIO if the backend refused, other -errno
 */
int vu_frontend_send(struct vu_frontend *f, uint32_t req, const void *payload,
		     uint32_t size, const int *fds, unsigned int nfds)
{
	bool ack = vu_frontend_has_proto(f, VHOST_USER_PROTOCOL_F_REPLY_ACK) &&
		   req != VHOST_USER_SET_PROTOCOL_FEATURES;
	struct vu_msg m = { .hdr = { .request = req,
				     .flags = VHOST_USER_VERSION,
				     .size = size } };
	int ret;

	if (ack)
		m.hdr.flags |= VHOST_USER_NEED_REPLY;
	if (size)
		memcpy(&m.payload, payload, size);
	if (nfds)
		memcpy(m.fds, fds, nfds * sizeof(int));
	m.nfds = nfds;
	ret = vu_msg_send(f->sock, &m);
	if (ret)
		return vu_frontend_set_err(f, ret, "%s: send: %s", vu_request_name(req),
			      strerror(-ret));
	if (!ack)
		return 0;
	ret = vu_frontend_recv_reply(f, req, &m, sizeof(uint64_t), false);
	if (ret)
		return ret;
	if (m.payload.u64)
		return vu_frontend_set_err(f, -EIO, "%s: backend refused (ack %llu)",
			      vu_request_name(req),
			      (unsigned long long)m.payload.u64);
	return 0;
}

/* A request with a reply: GET_* (spec "Message types", "reply:" lines) */
static int fe_call(struct vu_frontend *f, uint32_t req, const void *payload,
		   uint32_t size, struct vu_msg *r, uint32_t rsize)
{
	struct vu_msg m = { .hdr = { .request = req,
				     .flags = VHOST_USER_VERSION,
				     .size = size } };
	int ret;

	if (size)
		memcpy(&m.payload, payload, size);
	ret = vu_msg_send(f->sock, &m);
	if (ret)
		return vu_frontend_set_err(f, ret, "%s: send: %s", vu_request_name(req),
			      strerror(-ret));
	return vu_frontend_recv_reply(f, req, r, rsize, false);
}

static int fe_get_u64(struct vu_frontend *f, uint32_t req, uint64_t *v)
{
	struct vu_msg r;
	int ret;

	ret = fe_call(f, req, NULL, 0, &r, sizeof(uint64_t));
	if (!ret)
		*v = r.payload.u64;
	return ret;
}

/**
 * vu_frontend_init() - Validate options and prepare an unconnected frontend
 * @f:	Frontend to initialise (caller's storage)
 * @o:	Options, copied; arrays it points to must outlive @f
 *
 * Return: 0, -EINVAL for a bad option (reason in vu_frontend_error())
 */
int vu_frontend_init(struct vu_frontend *f, const struct vu_frontend_opts *o)
{
	unsigned int i;

	memset(f, 0, sizeof(*f));
	f->sock = -1;
	f->o = *o;
	if (!f->o.pairs)
		f->o.pairs = 1;
	if (!f->o.ring_size)
		f->o.ring_size = 256;
	if (!f->o.max_frame)
		f->o.max_frame = 1518;
	if (!f->o.mem_regions)
		f->o.mem_regions = 1;
	for (i = 0; i < VU_FRONTEND_MAX_REGIONS; i++)
		f->mem[i].fd = -1;

	if (f->o.pairs > VU_FRONTEND_MAX_PAIRS)
		return vu_frontend_set_err(f, -EINVAL, "%u queue pairs: at most %u",
			      f->o.pairs, VU_FRONTEND_MAX_PAIRS);
	if (f->o.ring_size > VQ_MAX_SIZE)
		return vu_frontend_set_err(f, -EINVAL, "ring size %u: at most %u",
			      f->o.ring_size, VQ_MAX_SIZE);
	/* VIRTIO 1.2 2.7: split Queue Size is a power of 2 */
	if (!f->o.packed && (f->o.ring_size & (f->o.ring_size - 1)))
		return vu_frontend_set_err(f, -EINVAL,
			      "ring size %u is not a power of two (split ring)",
			      f->o.ring_size);
	if (f->o.max_frame > VU_FRONTEND_MAX_FRAME)
		return vu_frontend_set_err(f, -EINVAL, "frame size %u: at most %u",
			      f->o.max_frame, VU_FRONTEND_MAX_FRAME);
	if (f->o.max_frame < 60)
		return vu_frontend_set_err(f, -EINVAL, "frame size %u: at least 60",
			      f->o.max_frame);
	if (f->o.mem_regions > VU_FRONTEND_MAX_REGIONS ||
	    f->o.nregions > VU_FRONTEND_MAX_REGIONS)
		return vu_frontend_set_err(f, -EINVAL, "at most %u memory regions",
			      VU_FRONTEND_MAX_REGIONS);
	if (f->o.regions && !f->o.nregions)
		return vu_frontend_set_err(f, -EINVAL, "caller memory with no region");
	f->ring_size = (uint16_t)f->o.ring_size;
	return 0;
}

/* Pick the feature set (spec "Feature negotiation"; VIRTIO 1.2 6.1) */
static int fe_pick_features(struct vu_frontend *f)
{
	uint64_t want = f->o.features ? f->o.features : FE_SUPPORTED_FEATURES;
	uint64_t feat = f->offered & want & FE_SUPPORTED_FEATURES;

	if (!(f->offered & (1ULL << VIRTIO_F_VERSION_1)))
		return vu_frontend_set_err(f, -ENOTSUP,
			      "backend does not offer VIRTIO_F_VERSION_1 (legacy virtio is not supported)");
	if (!(feat & (1ULL << VIRTIO_F_VERSION_1)))
		return vu_frontend_set_err(f, -ENOTSUP,
			      "VIRTIO_F_VERSION_1 masked out by the caller: legacy virtio is not supported");
	if (f->o.packed && !(feat & (1ULL << VIRTIO_F_RING_PACKED)))
		return vu_frontend_set_err(f, -ENOTSUP,
			      "packed ring asked for, backend does not offer VIRTIO_F_RING_PACKED");
	if (!f->o.packed)
		feat &= ~(1ULL << VIRTIO_F_RING_PACKED);
	if (f->o.pairs == 1)
		feat &= ~(1ULL << VIRTIO_NET_F_MQ);
	if (f->configured && feat != f->features)
		return vu_frontend_set_err(f, -EPROTO,
			      "backend now offers features 0x%llx, we run with 0x%llx",
			      (unsigned long long)f->offered,
			      (unsigned long long)f->features);
	f->features = feat;
	return 0;
}

/* Protocol features, queue count, slots (spec "Protocol features") */
static int fe_negotiate_protocol(struct vu_frontend *f)
{
	uint64_t pf, v;
	int ret;

	f->protocol_features = 0;
	f->backend_pairs = 1;
	f->max_mem_slots = VHOST_USER_MEM_REGIONS_MAX;
	if (!(f->offered & (1ULL << VHOST_USER_F_PROTOCOL_FEATURES)))
		return 0;
	ret = fe_get_u64(f, VHOST_USER_GET_PROTOCOL_FEATURES, &pf);
	if (ret)
		return ret;
	pf &= FE_SUPPORTED_PROTOCOL;
	if (f->o.no_reply_ack)
		pf &= ~(1ULL << VHOST_USER_PROTOCOL_F_REPLY_ACK);
	if (f->o.no_mem_slots)
		pf &= ~(1ULL << VHOST_USER_PROTOCOL_F_CONFIGURE_MEM_SLOTS);
	ret = vu_frontend_send(f, VHOST_USER_SET_PROTOCOL_FEATURES, &pf, sizeof(pf),
		      NULL, 0);
	if (ret)
		return ret;
	f->protocol_features = pf;

	if (vu_frontend_has_proto(f, VHOST_USER_PROTOCOL_F_MQ)) {
		ret = fe_get_u64(f, VHOST_USER_GET_QUEUE_NUM, &v);
		if (ret)
			return ret;
		/* GET_QUEUE_NUM counts queue pairs for virtio-net backends */
		f->backend_pairs = v ? (unsigned int)MIN(v, 0x8000) : 1;
	}
	if (vu_frontend_has_proto(f, VHOST_USER_PROTOCOL_F_CONFIGURE_MEM_SLOTS)) {
		ret = fe_get_u64(f, VHOST_USER_GET_MAX_MEM_SLOTS, &v);
		if (ret)
			return ret;
		f->max_mem_slots = (unsigned int)MIN(v, 4096);
	}
	return 0;
}

/* Refuse more pairs than the backend can carry */
static int fe_check_pairs(struct vu_frontend *f)
{
	if (f->o.pairs > 1 && !vu_frontend_has_proto(f, VHOST_USER_PROTOCOL_F_MQ))
		return vu_frontend_set_err(f, -ENOTSUP,
			      "%u queue pairs asked for, backend does not negotiate PROTOCOL_F_MQ (one pair only)",
			      f->o.pairs);
	if (f->o.pairs > f->backend_pairs)
		return vu_frontend_set_err(f, -ERANGE,
			      "%u queue pairs asked for, backend reports %u",
			      f->o.pairs, f->backend_pairs);
	f->pairs = f->o.pairs;
	return 0;
}

/* MAC: the caller's, else config space (only with PROTOCOL_F_CONFIG) */
static int fe_get_mac(struct vu_frontend *f)
{
	static const uint8_t zero[6];
	struct vu_config c = { .offset = 0, .size = 10, .flags = 0 };
	struct vu_msg r;
	int ret;

	if (memcmp(f->o.mac, zero, 6)) {
		memcpy(f->mac, f->o.mac, 6);
		return 0;
	}
	if (!memcmp(f->mac, zero, 6)) {	/* locally administered default */
		static const uint8_t def[6] = { 0x52, 0x54, 0x00, 0x12,
						0x34, 0x56 };

		memcpy(f->mac, def, 6);
	}
	if (!vu_frontend_has_proto(f, VHOST_USER_PROTOCOL_F_CONFIG) ||
	    !(f->features & (1ULL << VIRTIO_NET_F_MAC)))
		return 0;
	ret = fe_call(f, VHOST_USER_GET_CONFIG, &c, VU_CONFIG_HDR_SIZE + c.size,
		      &r, VU_CONFIG_HDR_SIZE + c.size);
	if (ret)
		return ret;
	memcpy(f->mac, r.payload.config.region, 6);
	return 0;
}

static int fe_negotiate(struct vu_frontend *f)
{
	uint64_t feat;
	int ret;

	ret = fe_get_u64(f, VHOST_USER_GET_FEATURES, &f->offered);
	if (!ret)
		ret = fe_pick_features(f);
	if (!ret)
		ret = fe_negotiate_protocol(f);
	if (!ret)
		ret = fe_check_pairs(f);
	if (!ret)
		ret = vu_frontend_send(f, VHOST_USER_SET_OWNER, NULL, 0, NULL, 0);
	if (!ret)
		ret = fe_get_mac(f);
	if (ret)
		return ret;
	/* Bit 30 is acked back whenever offered (spec "Feature negotiation") */
	feat = f->features |
	       (f->offered & (1ULL << VHOST_USER_F_PROTOCOL_FEATURES));
	ret = vu_frontend_send(f, VHOST_USER_SET_FEATURES, &feat, sizeof(feat), NULL, 0);
	if (ret)
		return ret;
	f->hdr_len = vnet_hdr_len(f->features);	/* VERSION_1: always 12 */
	f->mrg_rxbuf = f->features & (1ULL << VIRTIO_NET_F_MRG_RXBUF);
	return 0;
}

/* SET_MEM_TABLE, or one ADD_MEM_REG per region with CONFIGURE_MEM_SLOTS */
static int fe_announce_mem(struct vu_frontend *f)
{
	struct vu_mem_table t = { .nregions = f->nmem };
	unsigned int i;
	int fds[VU_FRONTEND_MAX_REGIONS];
	int ret;

	for (i = 0; i < f->nmem; i++) {
		const struct vu_frontend_mem *m = &f->mem[i];

		t.regions[i].guest_phys_addr = m->gpa;
		t.regions[i].memory_size = m->size;
		t.regions[i].userspace_addr = (uint64_t)(uintptr_t)m->host;
		t.regions[i].mmap_offset = m->offset;
		fds[i] = m->fd;
	}
	if (!vu_frontend_has_proto(f, VHOST_USER_PROTOCOL_F_CONFIGURE_MEM_SLOTS))
		return vu_frontend_send(f, VHOST_USER_SET_MEM_TABLE, &t,
			       (uint32_t)(offsetof(struct vu_mem_table, regions) +
			       f->nmem * sizeof(t.regions[0])), fds, f->nmem);
	if (f->nmem > f->max_mem_slots)
		return vu_frontend_set_err(f, -ENOSPC, "%u memory regions, backend has %u slots",
			      f->nmem, f->max_mem_slots);
	for (i = 0; i < f->nmem; i++) {
		struct vu_mem_single s = { .region = t.regions[i] };

		ret = vu_frontend_send(f, VHOST_USER_ADD_MEM_REG, &s, sizeof(s),
			      &fds[i], 1);
		if (ret)
			return ret;
	}
	return 0;
}

/* Where a ring starts again: saved by stop, else derived from the ring */
static uint32_t fe_resume_base(const struct vu_frontend *f,
			       const struct vu_frontend_queue *q)
{
	if (q->have_base)
		return q->base;
	if (!f->started && !q->vq.stats.chains)
		return f->o.packed ? 1u << 15 : 0;	/* fresh ring */
	return vu_frontend_data_ring_position(&q->vq);
}

static int fe_setup_ring(struct vu_frontend *f, struct vu_frontend_queue *q)
{
	struct vu_vring_state s = { .index = q->index, .num = f->ring_size };
	struct vu_vring_addr a = {
		.index = q->index,
		.desc_user_addr = (uint64_t)(uintptr_t)q->ring_host[0],
		.avail_user_addr = (uint64_t)(uintptr_t)q->ring_host[1],
		.used_user_addr = (uint64_t)(uintptr_t)q->ring_host[2],
	};
	uint64_t idx = q->index;
	int ret;

	ret = vu_frontend_send(f, VHOST_USER_SET_VRING_NUM, &s, sizeof(s), NULL, 0);
	if (ret)
		return ret;
	s.num = fe_resume_base(f, q);
	ret = vu_frontend_send(f, VHOST_USER_SET_VRING_BASE, &s, sizeof(s), NULL, 0);
	if (!ret)
		ret = vu_frontend_send(f, VHOST_USER_SET_VRING_ADDR, &a, sizeof(a),
			      NULL, 0);
	if (!ret)
		ret = vu_frontend_send(f, VHOST_USER_SET_VRING_KICK, &idx, sizeof(idx),
			      &q->kick_fd, 1);
	if (!ret)
		ret = vu_frontend_send(f, VHOST_USER_SET_VRING_CALL, &idx, sizeof(idx),
			      &q->call_fd, 1);
	if (!ret)
		q->have_base = false;
	return ret;
}

static int fe_enable_rings(struct vu_frontend *f, unsigned int on)
{
	unsigned int i;
	int ret;

	/* Without protocol features rings start enabled (spec "Ring states") */
	if (!(f->offered & (1ULL << VHOST_USER_F_PROTOCOL_FEATURES)))
		return 0;
	for (i = 0; i < 2 * f->pairs; i++) {
		struct vu_vring_state s = { .index = i, .num = on };

		ret = vu_frontend_send(f, VHOST_USER_SET_VRING_ENABLE, &s, sizeof(s),
			      NULL, 0);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Without REPLY_ACK nothing tells us the backend has handled the ring setup
 * (a TX ring started but not yet enabled drops what it consumes). A request
 * with a reply, answered in order, does: QEMU uses GET_FEATURES the same way
 * (docs/vhost-user-net.md, gotcha 4).
 */
static int fe_barrier(struct vu_frontend *f)
{
	uint64_t v;
	int ret;

	if (vu_frontend_has_proto(f, VHOST_USER_PROTOCOL_F_REPLY_ACK))
		return 0;
	ret = fe_get_u64(f, VHOST_USER_GET_FEATURES, &v);
	if (!ret && v != f->offered)
		return vu_frontend_set_err(f, -EPROTO,
					   "backend changed its features from 0x%llx to 0x%llx",
					   (unsigned long long)f->offered,
					   (unsigned long long)v);
	return ret;
}

/* Everything after the socket is connected */
static int fe_start(struct vu_frontend *f)
{
	unsigned int i;
	int ret;

	ret = fe_negotiate(f);
	if (ret)
		return ret;
	if (!f->configured) {
		ret = vu_frontend_mem_setup(f);
		if (!ret)
			ret = vu_frontend_mem_rings_setup(f);
		if (!ret)
			ret = vu_frontend_data_setup(f);
		if (ret) {
			vu_frontend_mem_rings_cleanup(f);
			vu_frontend_mem_cleanup(f);
			return ret;
		}
		f->configured = true;
	}
	ret = fe_announce_mem(f);
	for (i = 0; !ret && i < 2 * f->pairs; i++)
		ret = fe_setup_ring(f, &f->q[i]);
	if (!ret)
		ret = fe_enable_rings(f, 1);
	if (!ret)
		ret = fe_barrier(f);
	if (ret)
		return ret;
	f->started = true;
	/* The backend may have missed kicks while away: kick every ring once */
	for (i = 0; i < 2 * f->pairs; i++)
		vu_frontend_data_kick(&f->q[i]);
	return 0;
}

static int fe_started(struct vu_frontend *f, int ret)
{
	if (ret) {
		vu_frontend_disconnect(f);
		return ret;
	}
	reason_clear(&f->err);
	return 0;
}

/**
 * vu_frontend_connect() - Connect to a backend socket and start the device
 * @f:		Frontend from vu_frontend_init(), not connected
 * @path:	UNIX socket path the backend listens on
 *
 * On a frontend that ran before (stopped or not), resumes every ring at its
 * saved position: the backend may be a restarted process.
 *
 * Return: 0, or -errno with the reason in vu_frontend_error()
 */
int vu_frontend_connect(struct vu_frontend *f, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, ret;

	if (f->connected)
		return vu_frontend_set_err(f, -EISCONN, "already connected");
	if (strlen(path) >= sizeof(sa.sun_path))
		return vu_frontend_set_err(f, -ENAMETOOLONG, "socket path too long: %s",
			      path);
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return vu_frontend_set_err(f, -errno, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ret = -errno;
		close(fd);
		return vu_frontend_set_err(f, ret, "connect %s: %s", path, strerror(-ret));
	}
	f->sock = fd;
	f->own_sock = true;
	f->connected = true;
	return fe_started(f, fe_start(f));
}

/**
 * vu_frontend_adopt() - Start the device over a socket the caller connected
 * @f:		Frontend from vu_frontend_init(), not connected
 * @sock:	Connected UNIX stream socket; borrowed unless @flags says
 *		otherwise
 * @flags:	VU_FRONTEND_TAKE_FD: the library closes @sock on disconnect
 *		(also when the handshake fails)
 *
 * Return: 0, or -errno with the reason in vu_frontend_error()
 */
int vu_frontend_adopt(struct vu_frontend *f, int sock, unsigned int flags)
{
	if (f->connected)
		return vu_frontend_set_err(f, -EISCONN, "already connected");
	if (sock < 0 || fcntl(sock, F_GETFD) < 0)
		return vu_frontend_set_err(f, -EBADF, "socket fd %d is not open", sock);
	f->sock = sock;
	f->own_sock = flags & VU_FRONTEND_TAKE_FD;
	f->connected = true;
	return fe_started(f, fe_start(f));
}

/**
 * vu_frontend_stop() - Stop every ring and save where it stands
 * @f:	Frontend, connected
 *
 * SET_VRING_ENABLE(0), then GET_VRING_BASE per ring (spec "Stopping
 * rings"); the returned positions are what the next connect resumes at.
 *
 * Return: 0, or -errno (the backend may be gone: resume then derives the
 *	   positions from the rings)
 */
int vu_frontend_stop(struct vu_frontend *f)
{
	unsigned int i;
	int ret;

	if (!f->connected || !f->started)
		return vu_frontend_set_err(f, -ENOTCONN, "not started");
	ret = fe_enable_rings(f, 0);
	for (i = 0; !ret && i < 2 * f->pairs; i++) {
		struct vu_vring_state s = { .index = i };
		struct vu_msg r;

		ret = fe_call(f, VHOST_USER_GET_VRING_BASE, &s, sizeof(s), &r,
			      sizeof(s));
		if (!ret && r.payload.state.index != i)
			ret = vu_frontend_set_err(f, -EPROTO, "GET_VRING_BASE: ring %u answered for %u",
				     i, r.payload.state.index);
		if (!ret) {
			f->q[i].base = r.payload.state.num;
			f->q[i].have_base = true;
		}
	}
	f->started = false;
	return ret;
}

/**
 * vu_frontend_ring_base() - Position a ring resumes at
 * @f:		Frontend
 * @ring:	Ring index (2 * pair, +1 for TX)
 *
 * Return: the base saved by vu_frontend_stop(), else the one derived from
 *	   the ring; 0 for a ring that does not exist
 */
uint32_t vu_frontend_ring_base(const struct vu_frontend *f, unsigned int ring)
{
	if (!f->q || ring >= 2 * f->pairs)
		return 0;
	return fe_resume_base(f, &f->q[ring]);
}

/**
 * vu_frontend_disconnect() - Drop the connection, keep memory and rings
 * @f:	Frontend
 *
 * Closes the socket only if the library owns it (vu_frontend_connect(), or
 * VU_FRONTEND_TAKE_FD); a borrowed socket stays open and the caller's.
 */
void vu_frontend_disconnect(struct vu_frontend *f)
{
	if (f->connected && f->own_sock && f->sock >= 0)
		close(f->sock);
	f->sock = -1;
	f->own_sock = false;
	f->connected = false;
	f->started = false;
}

/**
 * vu_frontend_cleanup() - Disconnect and free everything the library made
 * @f:	Frontend (init'ed, possibly failed); reusable after vu_frontend_init()
 */
void vu_frontend_cleanup(struct vu_frontend *f)
{
	vu_frontend_disconnect(f);
	vu_frontend_mem_rings_cleanup(f);
	vu_frontend_mem_cleanup(f);
	f->configured = false;
}
