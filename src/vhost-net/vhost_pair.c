// SPDX-License-Identifier: MIT
/*
 * vhost_pair.c - run one queue pair on the kernel's vhost-net.
 *
 * What this layer does: the order of the vhost ioctls for a pair (owner,
 * features, memory table, log, then per ring num/base/addr/kick/call/err,
 * then the TAP as backend), stopping with the ring positions read back,
 * ring enable/disable, memory table and dirty log updates. Each failure
 * gives -errno and a one-line reason naming the step.
 *
 * What it leaves to others: whether to offload at all (vhost_mode.c), the
 * vhost-user protocol and the fallback to the userspace worker
 * (vu_backend.c), the TAP queue fd and its offloads (the tap backend),
 * logging (the caller logs o->why.msg once).
 *
 * Security model: the frontend's values reach us already checked by
 * vu_backend (ring size, ring addresses translated to our mapping with
 * their full length, memory regions mapped by gmem). What we add: only our
 * own mappings go into the kernel's table, within the module's region
 * limit; the dirty log must cover every region before the kernel may write
 * into it (it would otherwise set bits past our mapping); split rings only.
 * The kernel then validates every descriptor itself and signals the ring's
 * error eventfd on a bad guest, stopping that ring only.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/if_tun.h>
#include <linux/vhost.h>

#include "util.h"
#include "vhost_kernel.h"
#include "vhost_pair.h"
#include "vnet_hdr.h"

/* #syscalls: ioctl eventfd2 close */

#define VHOST_OFFLOAD_LOG_ALL	(1ULL << VHOST_F_LOG_ALL)

/* Record why @step failed; return @err for a one-line caller */
static int vhost_pair_fail(struct vhost_pair *o, const char *step,
			      int err)
{
	return reason_set(&o->why, err, "%s: %s", step, strerror(-err));
}

/**
 * vhost_pair_init() - Set up an idle offload slot
 * @o:		Slot, one per queue pair
 */
void vhost_pair_init(struct vhost_pair *o)
{
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->tap_fd = -1;
}

/**
 * vhost_pair_running() - Does the kernel own this pair's rings?
 * @o:		Slot
 *
 * Return: true between a successful vhost_pair_start() and
 *	   vhost_pair_stop()
 */
bool vhost_pair_running(const struct vhost_pair *o)
{
	return o->fd >= 0;
}

/* The ring at vhost-net index @ring of @p */
static struct vnet_ring *vhost_pair_ring(struct vnet_pair *p,
					    unsigned int ring)
{
	return ring == VHOST_OFFLOAD_RX ? &p->rx : &p->tx;
}

/* Can the kernel take this ring as it is? Only checks, no ioctl */
static int vhost_pair_ring_ok(struct vhost_pair *o,
				 const struct vnet_ring *r, const char *name)
{
	const struct vq *vq = &r->vq;

	if (vq->layout != VQ_SPLIT)
		return reason_set(&o->why, -EOPNOTSUPP, "%s ring is packed",
				  name);
	if (!vq->num || !vq->split.desc || !vq->split.avail ||
	    !vq->split.used)
		return reason_set(&o->why, -EINVAL, "%s ring not configured",
				  name);
	/* the kernel resumes at last_avail: popped, unfinished chains would
	 * never complete (the worker flushes before it pauses) */
	if (vq->inflight || vq->nbatch)
		return reason_set(&o->why, -EBUSY,
				  "%s ring has %u buffers in flight", name,
				  (unsigned int)vq->inflight + vq->nbatch);
	if (r->kick_fd < 0)
		return reason_set(&o->why, -EINVAL,
				  "%s ring has no kick eventfd (polled)", name);
	return 0;
}

/* Does @log cover every guest page of @m? The kernel trusts its size */
static int vhost_pair_log_covers(const struct gmem *m,
				    const struct gmem_log *log)
{
	uint64_t pages = log->size * 8, end;
	uint32_t i;

	if (!log->base || log->size > UINT64_MAX / 8)
		return 0;
	for (i = 0; i < m->nregions; i++) {
		end = m->regions[i].gpa + m->regions[i].size - 1;
		if (end / GMEM_LOG_PAGE >= pages)
			return 0;
	}
	return 1;
}

/* KICK, CALL, ERR of one ring: the frontend's eventfds, straight to the kernel */
static int vhost_pair_ring_fds(struct vhost_pair *o,
				  const struct vnet_ring *r, unsigned int ring)
{
	int ret;

	ret = vhost_kernel_set_vring_kick(o->fd, ring, r->kick_fd);
	if (ret)
		return vhost_pair_fail(o, "VHOST_SET_VRING_KICK", ret);
	ret = vhost_kernel_set_vring_call(o->fd, ring, r->call_fd);
	if (ret)
		return vhost_pair_fail(o, "VHOST_SET_VRING_CALL", ret);
	ret = vhost_kernel_set_vring_err(o->fd, ring, r->err_fd);
	return ret ? vhost_pair_fail(o, "VHOST_SET_VRING_ERR", ret) : 0;
}

/* NUM, BASE, ADDR, KICK, CALL, ERR of one ring; not yet attached */
static int vhost_pair_ring_setup(struct vhost_pair *o,
				    struct vnet_ring *r, unsigned int ring)
{
	const struct vq *vq = &r->vq;
	int ret;

	ret = vhost_kernel_set_vring_num(o->fd, ring, vq->num);
	if (ret)
		return vhost_pair_fail(o, "VHOST_SET_VRING_NUM", ret);
	ret = vhost_kernel_set_vring_base(o->fd, ring, vq_get_base(vq));
	if (ret)
		return vhost_pair_fail(o, "VHOST_SET_VRING_BASE", ret);
	ret = vhost_kernel_set_vring_addr(o->fd, ring, vq->split.desc,
					  vq->split.avail, vq->split.used,
					  vq->log_used_gpa, o->logging);
	if (ret)
		return vhost_pair_fail(o, "VHOST_SET_VRING_ADDR", ret);
	return vhost_pair_ring_fds(o, r, ring);
}

/* OWNER, FEATURES, MEM_TABLE, log: everything before the rings */
static int vhost_pair_dev_setup(struct vhost_pair *o,
				   const struct vnet_pair *p,
				   const struct gmem *m,
				   const struct gmem_log *log, int log_fd)
{
	uint64_t need;
	int ret;

	ret = vhost_kernel_set_owner(o->fd);
	if (ret)
		return vhost_pair_fail(o, "VHOST_SET_OWNER", ret);
	ret = vhost_kernel_get_features(o->fd, &o->kernel_features);
	if (ret)
		return vhost_pair_fail(o, "VHOST_GET_FEATURES", ret);
	need = p->features & vhost_mode_ring_bits() & ~VHOST_OFFLOAD_LOG_ALL;
	if (need & ~o->kernel_features)
		return reason_set(&o->why, -EOPNOTSUPP,
				  "kernel lacks negotiated features 0x%llx",
				  (unsigned long long)(need & ~o->kernel_features));
	o->acked = vhost_mode_kernel_features(p->features, o->kernel_features) &
		   ~VHOST_OFFLOAD_LOG_ALL;
	if (log && !(o->kernel_features & VHOST_OFFLOAD_LOG_ALL))
		return vhost_pair_fail(o, "dirty log", -EOPNOTSUPP);
	ret = vhost_kernel_set_mem_table(o->fd, m, o->max_regions);
	if (ret)
		return vhost_pair_fail(o, "VHOST_SET_MEM_TABLE", ret);
	if (log) {
		if (!vhost_pair_log_covers(m, log))
			return vhost_pair_fail(o, "dirty log too small",
						  -EINVAL);
		ret = vhost_kernel_set_log_base(o->fd, log->base);
		if (ret)
			return vhost_pair_fail(o, "VHOST_SET_LOG_BASE", ret);
		ret = vhost_kernel_set_log_fd(o->fd, log_fd);
		if (ret)
			return vhost_pair_fail(o, "VHOST_SET_LOG_FD", ret);
		o->logging = true;
	}
	ret = vhost_kernel_set_features(o->fd, o->acked |
					(o->logging ? VHOST_OFFLOAD_LOG_ALL : 0));
	if (ret)
		return vhost_pair_fail(o, "VHOST_SET_FEATURES", ret);
	return 0;
}

/**
 * vhost_pair_start() - Hand a queue pair's rings to the kernel
 * @o:		Idle slot: vhost_pair_init() once, or stopped
 * @dev:	Device, NULL for /dev/vhost-net
 * @p:		The pair: both rings split, sized, addressed (our addresses),
 *		with the frontend's kick eventfds, @p->features negotiated and
 *		@p->hdr_len the guest's vnet header size; rings whose @enabled
 *		is false are set up but not attached until enabled
 * @m:		Memory table (our mappings) the ring addresses and every
 *		descriptor resolve through
 * @max_regions: The module's max_mem_regions (struct vhost_decision)
 * @tap_fd:	The pair's TAP queue fd, opened with IFF_VNET_HDR
 * @log:	Dirty log (our mapping) when logging is on, else NULL
 * @log_fd:	eventfd the kernel signals after logging, or -1
 *
 * Sets the TAP's vnet header size to @p->hdr_len. On success the kernel
 * owns both rings: the worker must not touch them until
 * vhost_pair_stop(). On failure nothing stays attached, the fd is
 * closed and the rings are where they were (or, if one was attached before
 * a later step failed, where the kernel left it): the userspace path may
 * run them from their vq positions.
 *
 * Context: control thread, the pair paused on the userspace side.
 * Return: 0 or -errno with o->why naming the refused step (-EBUSY if @o
 *	   is running)
 */
int vhost_pair_start(struct vhost_pair *o, const char *dev,
			struct vnet_pair *p, const struct gmem *m,
			unsigned int max_regions, int tap_fd,
			const struct gmem_log *log, int log_fd)
{
	int hdr = (int)p->hdr_len, ret;
	unsigned int i;

	/* A second kernel worker on the same rings would corrupt them */
	if (o->fd >= 0)
		return vhost_pair_fail(o, "pair already offloaded", -EBUSY);
	vhost_pair_init(o);
	o->max_regions = max_regions ? max_regions : VHOST_KERNEL_DEFAULT_REGIONS;
	ret = vhost_pair_ring_ok(o, &p->rx, "RX");
	if (!ret)
		ret = vhost_pair_ring_ok(o, &p->tx, "TX");
	if (ret)
		return ret;
	if (!vnet_hdr_len_valid(p->hdr_len))
		return vhost_pair_fail(o, "vnet header size", -EINVAL);
	if (tap_fd < 0)
		return vhost_pair_fail(o, "no TAP queue fd", -EBADF);
	if (ioctl(tap_fd, TUNSETVNETHDRSZ, &hdr) < 0)
		return vhost_pair_fail(o, "TUNSETVNETHDRSZ", -errno);

	o->fd = vhost_kernel_open(dev);
	if (o->fd < 0) {
		ret = o->fd;
		o->fd = -1;
		return vhost_pair_fail(o, dev ? dev : VHOST_KERNEL_DEV, ret);
	}
	o->tap_fd = tap_fd;
	ret = vhost_pair_dev_setup(o, p, m, log, log_fd);
	for (i = 0; !ret && i < 2; i++)
		ret = vhost_pair_ring_setup(o, vhost_pair_ring(p, i), i);
	for (i = 0; !ret && i < 2; i++)
		if (vhost_pair_ring(p, i)->enabled)
			ret = vhost_pair_ring_enable(o, i, true);
	if (ret)
		goto err_close;
	/* What runs, in the same place a failure's reason goes (err 0) */
	return reason_set(&o->why, 0, "kernel vhost-net, features 0x%llx",
			  (unsigned long long)o->acked);

err_close:
	/* A ring attached before the failure may have moved: take it back at
	 * the kernel's position. A failed attach leaves no backend behind. */
	for (i = 0; i < 2; i++) {
		unsigned int b;

		if (o->attached[i] &&
		    !vhost_kernel_net_set_backend(o->fd, i, -1) &&
		    !vhost_kernel_get_vring_base(o->fd, i, &b))
			vq_set_base(&vhost_pair_ring(p, i)->vq, b);
	}
	vhost_kernel_close(o->fd);
	o->fd = -1;
	o->attached[0] = o->attached[1] = false;
	return ret;
}

/**
 * vhost_pair_ring_enable() - Attach or detach one ring's TAP
 *				 (SET_VRING_ENABLE)
 * @o:		Running slot
 * @ring:	VHOST_OFFLOAD_RX or VHOST_OFFLOAD_TX
 * @enable:	true: the kernel moves frames on that ring; false: it stops
 *		(frames for a disabled RX ring wait in the TAP)
 *
 * Return: 0 or -errno with o->why
 */
int vhost_pair_ring_enable(struct vhost_pair *o, unsigned int ring,
			      bool enable)
{
	int ret;

	if (ring > VHOST_OFFLOAD_TX || o->fd < 0)
		return -EINVAL;
	if (o->stopped[ring])
		return vhost_pair_fail(o, "ring already stopped", -EINVAL);
	if (o->attached[ring] == enable)
		return 0;
	ret = vhost_kernel_net_set_backend(o->fd, ring, enable ? o->tap_fd : -1);
	if (ret)
		return vhost_pair_fail(o, "VHOST_NET_SET_BACKEND", ret);
	o->attached[ring] = enable;
	return 0;
}

/**
 * vhost_pair_ring_stop() - Take one ring back from the kernel
 *			       (GET_VRING_BASE)
 * @o:		Running slot
 * @ring:	VHOST_OFFLOAD_RX or VHOST_OFFLOAD_TX
 * @base:	Output: the kernel's ring position (split: next avail index)
 *
 * Detaches the TAP from that ring first, which flushes the kernel worker,
 * so the position cannot move after it is read. The fd stays open for the
 * other ring; vhost_pair_stop() closes it.
 *
 * Return: 0 or -errno with o->why
 */
int vhost_pair_ring_stop(struct vhost_pair *o, unsigned int ring,
			    uint32_t *base)
{
	unsigned int b = 0;
	int ret;

	if (ring > VHOST_OFFLOAD_TX || o->fd < 0)
		return -EINVAL;
	ret = vhost_pair_ring_enable(o, ring, false);
	if (ret)
		return ret;
	ret = vhost_kernel_get_vring_base(o->fd, ring, &b);
	if (ret)
		return vhost_pair_fail(o, "VHOST_GET_VRING_BASE", ret);
	o->stopped[ring] = true;
	*base = b;
	return 0;
}

/**
 * vhost_pair_stop() - Take the pair back and release the kernel side
 * @o:		Slot; idle slots are left alone
 * @p:		The pair: each ring not yet stopped gets the kernel's position
 *		through vq_set_base(), ready for the userspace path or for
 *		GET_VRING_BASE's reply
 *
 * Return: 0, or the first -errno (the fd is closed anyway and o->why says
 *	   which step failed; that ring's position is then unknown)
 */
int vhost_pair_stop(struct vhost_pair *o, struct vnet_pair *p)
{
	uint32_t base;
	unsigned int i;
	int ret = 0, r;

	if (o->fd < 0)
		return 0;
	for (i = 0; i < 2; i++) {
		if (o->stopped[i])
			continue;
		r = vhost_pair_ring_stop(o, i, &base);
		if (r) {
			ret = ret ? ret : r;
			continue;
		}
		vq_set_base(&vhost_pair_ring(p, i)->vq, base);
	}
	vhost_kernel_close(o->fd);
	o->fd = -1;
	o->logging = false;
	return ret;
}

/* Re-send both rings' addresses (new mapping, logging on or off) */
static int vhost_pair_readdr(struct vhost_pair *o, struct vnet_pair *p)
{
	unsigned int i;
	int ret;

	for (i = 0; i < 2; i++) {
		const struct vq *vq = &vhost_pair_ring(p, i)->vq;

		if (o->stopped[i])
			continue;
		ret = vhost_kernel_set_vring_addr(o->fd, i, vq->split.desc,
						  vq->split.avail,
						  vq->split.used,
						  vq->log_used_gpa, o->logging);
		if (ret)
			return vhost_pair_fail(o, "VHOST_SET_VRING_ADDR",
						  ret);
	}
	return 0;
}

/**
 * vhost_pair_set_ring_addr() - Re-send the rings' addresses after
 *				   SET_VRING_ADDR on a running offloaded ring
 * @o:		Running slot
 * @p:		The pair, its rings' new addresses and used-ring guest
 *		addresses already set
 *
 * The kernel accepts new addresses under a running backend (it checks them
 * against its memory table first); QEMU re-sends them when migration
 * switches used-ring logging.
 *
 * Return: 0 or -errno with o->why
 */
int vhost_pair_set_ring_addr(struct vhost_pair *o, struct vnet_pair *p)
{
	if (o->fd < 0)
		return -EINVAL;
	return vhost_pair_readdr(o, p);
}

/**
 * vhost_pair_set_ring_fds() - Re-send a ring's eventfds (SET_VRING_KICK,
 *				  SET_VRING_CALL or SET_VRING_ERR while the
 *				  pair is offloaded, e.g. QEMU's call fd swap
 *				  when the guest masks an interrupt)
 * @o:		Running slot
 * @ring:	VHOST_OFFLOAD_RX or VHOST_OFFLOAD_TX
 * @r:		The ring with its new @kick_fd, @call_fd and @err_fd; the
 *		kernel takes its own references, the caller keeps the fds
 *
 * Return: 0 or -errno with o->why (-EINVAL for a ring left without kick)
 */
int vhost_pair_set_ring_fds(struct vhost_pair *o, unsigned int ring,
			       const struct vnet_ring *r)
{
	if (ring > VHOST_OFFLOAD_TX || o->fd < 0 || o->stopped[ring])
		return -EINVAL;
	if (r->kick_fd < 0)
		return vhost_pair_fail(o, "ring has no kick eventfd", -EINVAL);
	return vhost_pair_ring_fds(o, r, ring);
}

/**
 * vhost_pair_set_mem() - New memory table (SET_MEM_TABLE, ADD/REM_MEM_REG)
 * @o:		Running slot
 * @p:		The pair, its ring addresses already re-translated into @m
 * @m:		The new table, our mappings
 *
 * The kernel swaps tables atomically for its worker, then gets the rings'
 * new addresses. Call it before the old mappings are unmapped: for
 * REM_MEM_REG, with a copy of the table that lacks the region, before
 * gmem_remove_region().
 *
 * Return: 0 or -errno with o->why (-E2BIG over max_mem_regions)
 */
int vhost_pair_set_mem(struct vhost_pair *o, struct vnet_pair *p,
			  const struct gmem *m)
{
	int ret;

	if (o->fd < 0)
		return -EINVAL;
	ret = vhost_kernel_set_mem_table(o->fd, m, o->max_regions);
	if (ret)
		return vhost_pair_fail(o, "VHOST_SET_MEM_TABLE", ret);
	return vhost_pair_readdr(o, p);
}

/**
 * vhost_pair_set_log() - Start or stop dirty logging (SET_LOG_BASE and
 *			     the VHOST_F_LOG_ALL feature)
 * @o:		Running slot
 * @p:		The pair (ring addresses and used-ring guest addresses)
 * @m:		Current memory table: the log must cover all of it
 * @log:	The bitmap (our mapping), NULL to stop logging
 * @log_fd:	eventfd signalled after the kernel logged, or -1
 *
 * Return: 0 or -errno with o->why
 */
int vhost_pair_set_log(struct vhost_pair *o, struct vnet_pair *p,
			  const struct gmem *m, const struct gmem_log *log,
			  int log_fd)
{
	int ret;

	if (o->fd < 0)
		return -EINVAL;
	if (!log) {
		o->logging = false;
		ret = vhost_kernel_set_features(o->fd, o->acked);
		if (ret)
			return vhost_pair_fail(o, "VHOST_SET_FEATURES", ret);
		vhost_kernel_set_log_fd(o->fd, -1);
		return vhost_pair_readdr(o, p);
	}
	if (!(o->kernel_features & VHOST_OFFLOAD_LOG_ALL))
		return vhost_pair_fail(o, "dirty log", -EOPNOTSUPP);
	if (!vhost_pair_log_covers(m, log))
		return vhost_pair_fail(o, "dirty log too small", -EINVAL);
	ret = vhost_kernel_set_log_base(o->fd, log->base);
	if (ret)
		return vhost_pair_fail(o, "VHOST_SET_LOG_BASE", ret);
	ret = vhost_kernel_set_log_fd(o->fd, log_fd);
	if (ret)
		return vhost_pair_fail(o, "VHOST_SET_LOG_FD", ret);
	o->logging = true;
	ret = vhost_pair_readdr(o, p);
	if (ret)
		return ret;
	ret = vhost_kernel_set_features(o->fd, o->acked | VHOST_OFFLOAD_LOG_ALL);
	return ret ? vhost_pair_fail(o, "VHOST_SET_FEATURES", ret) : 0;
}
