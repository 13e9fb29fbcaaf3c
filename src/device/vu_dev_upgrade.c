// SPDX-License-Identifier: MIT
/*
 * vu_dev_upgrade.c - a vhost-user device's connection handed from one
 * process to the next (vu_dev_upgrade.h), on every device layer below
 * vu_backend. The old process quiesces the device (every worker parked
 * between two passes: each batch it popped is pushed and flushed, the used
 * index published, nothing in flight) and exports what the frontend set up
 * plus where each ring stopped. The new process imports it by replaying
 * the same vhost-user requests the frontend sent (SET_OWNER, ...FEATURES,
 * memory, the dirty log, then per ring NUM, BASE at the stopped position,
 * ADDR, CALL, ERR, ENABLE, KICK) through vu_dev_dispatch(), so every value
 * is checked by the code that checks a frontend's, then kicks each started
 * ring once (a kick the old worker drained but had not served yet is not
 * lost).
 *
 * During a live migration (docs/migration.md "Upgrading during a
 * migration") the dirty log goes along: the descriptor, size and offset
 * SET_LOG_BASE gave (the device keeps the descriptor for this), and the
 * SET_LOG_FD eventfd; VHOST_F_LOG_ALL is in the features. The replay sends
 * SET_FEATURES with LOG_ALL, then SET_LOG_BASE with the same memory (its
 * reply, which the frontend never asked this process for, goes nowhere)
 * before any ring starts, so the new process logs every page from its
 * first frame on; what the old one logged is in that shared bitmap
 * already. A split ring's log_guest_addr comes back with SET_VRING_ADDR.
 *
 * Security model: the exported state crossed a socket from another binary;
 * upgrade_state.c checked its framing and indices, the replay checks the
 * rest exactly as for an untrusted frontend. Every descriptor is taken
 * from the state's table once and then owned by the device (or closed by
 * the dispatcher on a refusal).
 *
 * Pairs the kernel's vhost-net runs (docs/vhost-net.md): a /dev/vhost-net
 * fd obeys only the process that became its owner (drivers/vhost/vhost.c:
 * vhost_dev_set_owner() binds it to that mm, vhost_dev_check_owner()
 * answers -EPERM to every other one) and its worker is a thread of that
 * process (vhost_task, Linux >= 6.4), gone when it exits; passing the fd
 * on would hand over a dead ring. So the port is held (vu_dev_quiesce()),
 * the export stops each such pair as GET_VRING_BASE does (detached from
 * the TAP, the kernel's positions into the vqs) and exports it as a
 * userspace ring; the new process's replay starts it on its own
 * /dev/vhost-net, but only at vu_dev_unquiesce() after the commit, when
 * the old one has let go. If the hand-over fails, the old process's
 * vu_dev_unquiesce() starts every stopped pair again at the same
 * positions with the same memory table, TAP queue and log.
 *
 * Not handed over (refused with a reason, the old process keeps serving):
 * a ring broken by its guest, replies the frontend has not read yet.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <linux/virtio_config.h>

#include "net.h"
#include "vu_backend.h"
#include "vu_dev_core.h"
#include "vu_dev_upgrade.h"
#include "vu_msg.h"

/* #syscalls: write dup */

/**
 * vu_dev_quiesce() - Park every worker of the device at a ring boundary
 * @d:		Device
 *
 * Context: control thread; undone by vu_dev_unquiesce() (nests with the
 *	    handlers' own pauses)
 */
void vu_dev_quiesce(struct vu_dev *d)
{
	vu_pause_all(d);
	vhost_port_hold(&d->vp);
}

/**
 * vu_dev_unquiesce() - Let the workers run again
 * @d:		Device
 *
 * Pairs held back from the kernel's vhost-net meanwhile (stopped by
 * vu_dev_export() in the old process, started by the replay in the new
 * one) are given to the kernel first, each at its ring positions: after a
 * failed hand-over the old process runs them as before, after a committed
 * one the new process runs them on its own /dev/vhost-net.
 */
void vu_dev_unquiesce(struct vu_dev *d)
{
	bool log = (d->features & BIT(VHOST_F_LOG_ALL_BIT)) && d->log.base;
	struct host *host = d->cfg.host;
	int fds[VNET_MAX_PAIRS];
	unsigned int i;

	for (i = 0; i < d->cfg.queues; i++)
		fds[i] = host && host->ops->queue_fd ?
			 host->ops->queue_fd(host, i) : -1;
	vhost_port_unhold(&d->vp, d->pairs, d->cfg.queues, d->mem, fds,
			  log ? &d->log : NULL, d->log_fd);
	vu_resume_all(d);
}

#define VU_UP_DRAIN_MAX	4096	/* frames per call: the loop FIFO holds 256 */

/* Publish the batch; a call if the ring asks for one */
static void vu_up_flush(struct vnet_ring *r)
{
	uint64_t one = 1;

	if (vq_flush(&r->vq) && r->call_fd >= 0 &&
	    write(r->call_fd, &one, sizeof(one)) < 0)
		return;		/* a full counter is a pending call too */
}

/**
 * vu_dev_drain_pair() - Deliver what @host holds for pair @p into its RX ring
 * @p:		Pair, its RX ring started and enabled, no worker on it
 * @host:	The pair's host side
 * @s:		Scratch for the frames
 *
 * Each frame goes into the guest's RX buffers as a worker would put it
 * (net_rx_one()), in order; the used ring is published and the guest
 * called if it asks to be, also when it runs out of buffers (so that it
 * reads what it got and posts more).
 *
 * Return: 0 once the host side holds nothing more for the pair, -ENOBUFS
 *	   if frames still wait for guest buffers or VU_UP_DRAIN_MAX were
 *	   delivered (call again), -EBADMSG if the ring is broken (as
 *	   net_rx_one())
 */
int vu_dev_drain_pair(struct vnet_pair *p, struct host *host,
		    struct net_scratch *s)
{
	struct ring_counters acc = { 0 };
	struct net_io io = { &p->rx.vq, host, p->index, p->hdr_len,
			     p->features, s, &acc, NULL, NULL };
	unsigned int n;
	int ret = -ENOBUFS;

	for (n = 0; n < VU_UP_DRAIN_MAX; n++) {
		/* what it holds, not what waits in a kernel queue (tap) */
		if (host->ops->rx_peek_len(host, p->index) <= 0) {
			ret = -EAGAIN;
			break;
		}
		ret = net_rx_one(&io);
		if (ret == -ENOSPC)
			vu_up_flush(&p->rx);	/* chains in flight hold scratch */
		else if (ret < 0)
			break;
	}
	vu_up_flush(&p->rx);
	__atomic_fetch_add(&p->rx.ctr.packets, acc.packets, __ATOMIC_RELAXED);
	__atomic_fetch_add(&p->rx.ctr.bytes, acc.bytes, __ATOMIC_RELAXED);
	if (n == VU_UP_DRAIN_MAX)
		return -ENOBUFS;
	return ret == -EAGAIN ? 0 : ret;
}

/**
 * vu_dev_drain_host() - Deliver what the host side holds in this
 *			 process's memory (the loop backend's FIFOs) to the
 *			 guest's RX rings before the hand-over
 * @d:		Device, quiesced
 * @s:		Scratch for the frames (net_scratch_init()), the caller's:
 *		one for every call of a drain, not one per call
 *
 * A host whose queues are kernel objects (TAP: handed over as fds) keeps
 * its frames across the hand-over by itself; a generator's frames are made
 * up. A host that holds frames in our memory (it has a reset(), host.h:
 * loop; or an rx_fill(): the frames a TAP batch read and no guest buffer
 * took yet; or a hand_over(): af_xdp's frames taken off its RX ring)
 * would lose them with this process: each started, enabled RX
 * ring takes what it has buffers for (vu_dev_drain_pair()). Does
 * not wait: the caller calls again while the result is not 0, as long as
 * it may keep the workers parked (vnetd's upgrade.c).
 *
 * Context: control thread, every worker parked: the rings are ours
 * Return: pairs whose frames still wait for guest buffers
 */
unsigned int vu_dev_drain_host(struct vu_dev *d, struct net_scratch *s)
{
	struct host *host = d->cfg.host;
	unsigned int i, left = 0;

	if (!host || (!host->ops->reset && !host->ops->rx_fill &&
		      !host->ops->hand_over) || !host->ops->rx_peek_len)
		return 0;
	for (i = 0; i < d->cfg.queues; i++) {
		struct vnet_pair *p = &d->pairs[i];

		if (p->kernel || !p->rx.started || !p->rx.enabled ||
		    vq_is_broken(&p->rx.vq) ||
		    host->ops->rx_peek_len(host, p->index) <= 0)
			continue;
		left += vu_dev_drain_pair(p, host, s) == -ENOBUFS;
	}
	return left;
}

static int vu_up_fd(struct upgrade_state *st, int fd, struct reason *why)
{
	int idx = upgrade_state_add_fd(st, fd);

	if (idx == -EMFILE)
		return reason_set(why, -EMFILE, "more than %u descriptors to hand over",
				  UPGRADE_MAX_FDS);
	return idx;
}

static int vu_up_export_ring(struct vu_dev *d, unsigned int idx,
			     struct upgrade_state *st, struct upgrade_ring *o,
			     struct reason *why)
{
	const struct vu_ring *r = &d->rings[idx];
	struct vnet_ring *vr = vu_vring(d, idx);

	if (vr->started && vq_is_broken(&vr->vq))
		return reason_set(why, -EIO, "ring %u is broken (%s): reconnect the frontend instead",
				  idx, vq_broken_reason(&vr->vq));
	/* Our bug if a parked worker left a batch in flight */
	if (vr->started && (vr->vq.inflight || vr->vq.nbatch))
		return reason_set(why, -EBUSY, "ring %u has %u chains in flight while parked",
				  idx, vr->vq.inflight);
	o->num = r->num;
	o->base = vr->started ? vq_get_base(&vr->vq) : r->base;
	o->addr_flags = r->addr_flags;
	o->addr_set = r->addr_set;
	o->kicked = r->kicked;
	o->enabled = vr->enabled;
	o->started = vr->started;
	o->desc = r->desc_uva;
	o->avail = r->avail_uva;
	o->used = r->used_uva;
	o->log_gpa = r->log_gpa;
	o->kick_fd = vu_up_fd(st, vr->kick_fd, why);
	o->call_fd = vu_up_fd(st, vr->call_fd, why);
	o->err_fd = vu_up_fd(st, vr->err_fd, why);
	if (o->kick_fd == -EMFILE || o->call_fd == -EMFILE || o->err_fd == -EMFILE)
		return -EMFILE;
	return 0;
}

static int vu_up_export_mem(struct vu_dev *d, struct upgrade_state *st,
			    struct upgrade_dev *o, struct reason *why)
{
	uint32_t i;
	int ri;

	o->nregions = d->nmem_refs;
	for (i = 0; i < d->nmem_refs; i++) {
		const struct vu_mem_ref *ref = &d->mem_refs[i];
		struct upgrade_region *r = &o->regions[i];

		ri = gmem_region_index(d->mem, ref->gpa);
		if (ref->fd < 0 || ri < 0)
			return reason_set(why, -ENOENT, "memory region %#llx has no descriptor to hand over",
					  (unsigned long long)ref->gpa);
		r->gpa = ref->gpa;
		r->size = ref->size;
		r->uva = ref->uva;
		r->mmap_offset = d->mem->regions[ri].mmap_offset;
		r->refs = ref->refs;
		r->fd = vu_up_fd(st, ref->fd, why);
		if (r->fd < 0)
			return r->fd;
	}
	return 0;
}

/* The dirty log, if a migration runs: the same shared bitmap goes on */
static int vu_up_export_log(struct vu_dev *d, struct upgrade_state *st,
			    struct upgrade_dev *o, struct reason *why)
{
	o->log_fd = -1;
	if (d->log.base) {
		if (d->log_mem_fd < 0)
			return reason_set(why, -ENOENT, "the dirty log has no descriptor to hand over");
		o->log_fd = vu_up_fd(st, d->log_mem_fd, why);
		if (o->log_fd < 0)
			return o->log_fd;
		o->log_size = d->log_req.mmap_size;
		o->log_offset = d->log_req.mmap_offset;
	}
	o->log_notify_fd = vu_up_fd(st, d->log_fd, why);
	return o->log_notify_fd == -EMFILE ? -EMFILE : 0;
}

static int vu_up_export_rx(struct vu_dev *d, struct upgrade_state *st,
			   struct upgrade_dev *o, struct reason *why)
{
	const struct vu_conn *c = d->conn;
	size_t hdr = sizeof(c->rx.hdr);
	unsigned int i;

	if (!c)
		return 0;
	if (vu_conn_tx_pending(c))
		return reason_set(why, -EBUSY, "the frontend has not read %zu reply bytes yet: try again",
				  vu_conn_tx_pending(c));
	if (c->rx_got > UPGRADE_RX_MAX)
		return reason_set(why, -EBUSY, "half-received message of %zu bytes",
				  c->rx_got);
	o->rx_got = (uint32_t)c->rx_got;
	memcpy(o->rx, &c->rx.hdr, c->rx_got < hdr ? c->rx_got : hdr);
	if (c->rx_got > hdr)
		memcpy(o->rx + hdr, &c->rx.payload, c->rx_got - hdr);
	o->rx_nfds = c->rx.nfds;
	for (i = 0; i < c->rx.nfds && i < UPGRADE_RX_FDS; i++) {
		o->rx_fds[i] = vu_up_fd(st, c->rx.fds[i], why);
		if (o->rx_fds[i] < 0)
			return -EMFILE;
	}
	return 0;
}

/**
 * vu_dev_export() - Describe the connection for the next process
 * @d:		Connected device, quiesced (vu_dev_quiesce())
 * @st:		State whose descriptor table gets the device's descriptors
 *		(borrowed: the device keeps them until the process exits)
 * @out:	Device state (output)
 * @why:	Reason on refusal
 *
 * Pairs the kernel's vhost-net runs are stopped first and exported at the
 * kernel's positions (the device stays held: vu_dev_unquiesce() restarts
 * them if the hand-over fails).
 *
 * Return: 0, or -errno: something that cannot be handed over (a pair the
 *	   kernel would not give back, a broken ring, unread replies)
 */
int vu_dev_export(struct vu_dev *d, struct upgrade_state *st,
		  struct upgrade_dev *out, struct reason *why)
{
	unsigned int i;
	int ret;

	memset(out, 0, sizeof(*out));
	/* the kernel cannot run a pair for the next process (top of file) */
	ret = vhost_port_stop_all(&d->vp, d->pairs, d->cfg.queues, why);
	if (ret)
		return ret;
	ret = vu_up_export_log(d, st, out, why);
	if (ret)
		return ret;
	out->features = d->features;
	out->proto = d->proto;
	out->features_set = d->features_set;
	out->owner = d->owner;
	out->status = d->status;
	out->mtu = d->mtu;
	ret = vu_up_export_mem(d, st, out, why);
	if (ret)
		return ret;
	out->nrings = 2 * d->cfg.queues;
	for (i = 0; i < out->nrings; i++) {
		ret = vu_up_export_ring(d, i, st, &out->rings[i], why);
		if (ret)
			return ret;
	}
	return vu_up_export_rx(d, st, out, why);
}

/* One replayed request, as a frontend would have sent it */
static int vu_up_send(struct vu_dev *d, uint32_t req, const void *payload,
		      uint32_t size, const int *fds, unsigned int nfds,
		      struct reason *why)
{
	struct vu_msg m;
	unsigned int i;
	int ret;

	memset(&m, 0, sizeof(m));
	m.hdr.request = req;
	m.hdr.flags = VHOST_USER_VERSION;
	m.hdr.size = size;
	if (size)
		memcpy(&m.payload, payload, size);
	for (i = 0; i < nfds; i++)
		m.fds[i] = fds[i];
	m.nfds = nfds;
	d->replaying = true;
	ret = vu_dev_dispatch(d, &m);
	d->replaying = false;
	if (ret)
		return reason_set(why, ret, "replaying %s: %s", vu_request_name(req),
				  d->why.msg[0] ? d->why.msg : strerror(-ret));
	return 0;
}

static int vu_up_u64(struct vu_dev *d, uint32_t req, uint64_t v, int fd,
		     struct reason *why)
{
	return vu_up_send(d, req, &v, sizeof(v), &fd, fd >= 0, why);
}

static int vu_up_import_mem(struct vu_dev *d, struct upgrade_state *st,
			    const struct upgrade_dev *in, struct reason *why)
{
	struct vu_mem_table t = { .nregions = in->nregions };
	int fds[VHOST_USER_MEM_REGIONS_MAX];
	bool table = in->nregions <= VHOST_USER_MEM_REGIONS_MAX;
	uint32_t i, k;
	int ret;

	for (i = 0; i < in->nregions; i++)
		table &= in->regions[i].refs == 1;
	for (i = 0; table && i < in->nregions; i++) {
		t.regions[i] = (struct vu_mem_region){
			in->regions[i].gpa, in->regions[i].size,
			in->regions[i].uva, in->regions[i].mmap_offset };
		fds[i] = upgrade_state_take_fd(st, in->regions[i].fd);
	}
	if (table)
		return in->nregions ?
			vu_up_send(d, VHOST_USER_SET_MEM_TABLE, &t,
				   2 * sizeof(uint32_t) + in->nregions * sizeof(t.regions[0]),
				   fds, in->nregions, why) : 0;
	/* More than 8 regions or counted ones: ADD_MEM_REG, once per count */
	for (i = 0; i < in->nregions; i++) {
		struct vu_mem_single one = { 0, { in->regions[i].gpa,
			in->regions[i].size, in->regions[i].uva,
			in->regions[i].mmap_offset } };
		int fd = upgrade_state_take_fd(st, in->regions[i].fd);

		for (k = 0, ret = 0; k < in->regions[i].refs && !ret; k++) {
			int use = k + 1 < in->regions[i].refs ? dup(fd) : fd;

			if (use < 0) {
				close(fd);
				return reason_set(why, -errno, "dup: %s", strerror(errno));
			}
			ret = vu_up_send(d, VHOST_USER_ADD_MEM_REG, &one,
					 sizeof(one), &use, 1, why);
		}
		if (ret) {
			if (k < in->regions[i].refs)
				close(fd);
			return ret;
		}
	}
	return 0;
}

/* SET_LOG_BASE (and SET_LOG_FD): before any ring starts */
static int vu_up_import_log(struct vu_dev *d, struct upgrade_state *st,
			    const struct upgrade_dev *in, struct reason *why)
{
	struct vu_log l = { in->log_size, in->log_offset };
	int fd, ret = 0;

	if (in->log_fd >= 0) {
		fd = upgrade_state_take_fd(st, in->log_fd);
		ret = vu_up_send(d, VHOST_USER_SET_LOG_BASE, &l, sizeof(l),
				 &fd, fd >= 0, why);
	}
	if (!ret && in->log_notify_fd >= 0) {
		fd = upgrade_state_take_fd(st, in->log_notify_fd);
		ret = vu_up_send(d, VHOST_USER_SET_LOG_FD, NULL, 0, &fd,
				 fd >= 0, why);
	}
	return ret;
}

static int vu_up_ring_fd(struct vu_dev *d, uint32_t req, unsigned int idx,
			 struct upgrade_state *st, int32_t fdi,
			 struct reason *why)
{
	int fd = upgrade_state_take_fd(st, fdi);

	return vu_up_u64(d, req, idx | (fd < 0 ? VHOST_USER_VRING_NOFD_MASK : 0),
			 fd, why);
}

static int vu_up_import_ring(struct vu_dev *d, struct upgrade_state *st,
			     const struct upgrade_dev *in, unsigned int idx,
			     struct reason *why)
{
	const struct upgrade_ring *r = &in->rings[idx];
	struct vu_vring_state s = { idx, r->num };
	struct vu_vring_addr a = { idx, r->addr_flags, r->desc, r->used,
				   r->avail, r->log_gpa };
	int ret = 0;

	if (r->num)
		ret = vu_up_send(d, VHOST_USER_SET_VRING_NUM, &s, sizeof(s),
				 NULL, 0, why);
	s.num = r->base;
	if (!ret && (r->num || r->base))
		ret = vu_up_send(d, VHOST_USER_SET_VRING_BASE, &s, sizeof(s),
				 NULL, 0, why);
	if (!ret && r->addr_set)
		ret = vu_up_send(d, VHOST_USER_SET_VRING_ADDR, &a, sizeof(a),
				 NULL, 0, why);
	if (!ret && r->call_fd >= 0)
		ret = vu_up_ring_fd(d, VHOST_USER_SET_VRING_CALL, idx, st,
				    r->call_fd, why);
	if (!ret && r->err_fd >= 0)
		ret = vu_up_ring_fd(d, VHOST_USER_SET_VRING_ERR, idx, st,
				    r->err_fd, why);
	s.num = r->enabled;
	if (!ret && (in->features & BIT(VHOST_USER_F_PROTOCOL_FEATURES)))
		ret = vu_up_send(d, VHOST_USER_SET_VRING_ENABLE, &s, sizeof(s),
				 NULL, 0, why);
	if (!ret && r->kicked)
		ret = vu_up_ring_fd(d, VHOST_USER_SET_VRING_KICK, idx, st,
				    r->kick_fd, why);
	if (!ret && vu_vring(d, idx)->started != r->started)
		ret = reason_set(why, -EINVAL, "ring %u: %s after the replay, was %s",
				 idx, r->started ? "stopped" : "started",
				 r->started ? "started" : "stopped");
	return ret;
}

/* A kick the old worker drained but never served would be lost: repeat */
static void vu_up_kick(struct vu_dev *d)
{
	uint64_t one = 1;
	unsigned int i;

	for (i = 0; i < 2 * d->cfg.queues; i++) {
		struct vnet_ring *vr = vu_vring(d, i);

		if (vr->started && vr->kick_fd >= 0 &&
		    write(vr->kick_fd, &one, sizeof(one)) < 0)
			continue;	/* a full counter is a pending kick too */
	}
}

/**
 * vu_dev_import() - Take over a connection another process exported
 * @d:		Device, vu_dev_connect()ed to the handed-over socket and
 *		quiesced; its workers start on vu_dev_unquiesce()
 * @st:		Received state: the device's descriptors are taken from
 *		its table
 * @in:		Device state (decoded by upgrade_state_decode())
 * @why:	Reason on failure (the caller drops the port: the old
 *		process keeps serving it)
 *
 * Return: 0 or -errno from the replayed request that was refused
 */
int vu_dev_import(struct vu_dev *d, struct upgrade_state *st,
		  const struct upgrade_dev *in, struct reason *why)
{
	unsigned int i;
	int ret = 0;

	if (in->nrings != 2 * d->cfg.queues)
		return reason_set(why, -EINVAL, "%u rings handed over, this port has %u",
				  in->nrings, 2 * d->cfg.queues);
	if (in->owner)
		ret = vu_up_send(d, VHOST_USER_SET_OWNER, NULL, 0, NULL, 0, why);
	if (!ret && in->proto)
		ret = vu_up_u64(d, VHOST_USER_SET_PROTOCOL_FEATURES, in->proto,
				-1, why);
	if (!ret && in->features_set)
		ret = vu_up_u64(d, VHOST_USER_SET_FEATURES, in->features, -1,
				why);
	if (!ret && in->status &&
	    (in->proto & BIT(VHOST_USER_PROTOCOL_F_STATUS)))
		ret = vu_up_u64(d, VHOST_USER_SET_STATUS, in->status, -1, why);
	if (!ret && in->mtu)
		ret = vu_up_u64(d, VHOST_USER_NET_SET_MTU, in->mtu, -1, why);
	if (!ret)
		ret = vu_up_import_mem(d, st, in, why);
	if (!ret)
		ret = vu_up_import_log(d, st, in, why);
	for (i = 0; !ret && i < in->nrings; i++)
		ret = vu_up_import_ring(d, st, in, i, why);
	if (!ret)
		vu_up_kick(d);
	return ret;
}
