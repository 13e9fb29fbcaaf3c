// SPDX-License-Identifier: MIT
/*
 * vhost_port.c - one port's use of the kernel vhost-net offload, event by
 * event, so that vu_backend needs one call per vhost-user event.
 *
 * What this layer does: make the `--vhost-net` decision once at port start
 * (the one place that knows it needs a TAP queue); hand a queue pair to the kernel when both its rings
 * have started; give the rings back with the kernel's positions on
 * GET_VRING_BASE and disconnect; hold every pair across a hand-over to
 * another vnetd (stopped in the old process, started again there if it
 * fails, started in the new one once it commits); forward ring enable,
 * eventfd, memory table
 * and dirty log changes; on a kernel refusal under `auto`, log once and
 * keep the connection on the userspace path; under `on`, return the error
 * so the connection is closed. It records each pair's data path and the
 * reason in struct vnet_pair for `vnetctl status`.
 *
 * What it leaves to others: the ioctls and their order (vhost_pair.c,
 * vhost_kernel.c), the feature rules (vhost_mode.c), pausing the worker and
 * telling it which pairs it serves (vu_backend.c, pair.h).
 *
 * Security model: no guest or frontend value is read here; vu_backend has
 * validated ring sizes, addresses and memory regions before calling.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "vhost_kernel.h"
#include "vhost_port.h"

/* The one host side whose queues the kernel can run (a TAP queue fd each) */
#define VHOST_PORT_BACKEND	"tap"

/**
 * vhost_port_mode_check() - Can --vhost-net @mode work with @backend at all?
 * @mode:	--vhost-net value
 * @backend:	Host side name (--backend)
 *
 * For option parsing, before anything is opened: only "tap" ever has a TAP
 * queue for vhost-net to attach to. vhost_port_decide() applies the same
 * rule to the opened host side.
 *
 * Return: 0, or -EINVAL for `on` with any other backend
 */
int vhost_port_mode_check(enum vhost_mode mode, const char *backend)
{
	if (mode == VHOST_MODE_ON && (!backend ||
				      strcmp(backend, VHOST_PORT_BACKEND)))
		return -EINVAL;
	return 0;
}

/**
 * vhost_port_decide() - Decide a port's data path, once, at port start
 * @d:		Decision to fill (kept by the port, never recomputed)
 * @mode:	--vhost-net value
 * @dev:	Device path, NULL for /dev/vhost-net
 * @backend:	Host side name for the reason, NULL if not known
 * @have_queue_fd: The host side has a TAP queue fd per pair (queue_fd() >= 0)
 *
 * The one owner of "vhost-net needs a TAP queue": without one nothing is
 * probed; `auto` and `off` run userspace only, `on` refuses the port. With
 * one, vhost_mode_decide() probes the device. Logs nothing: the caller logs
 * d->reason (or, on failure, d->msg) once, naming the port.
 *
 * Return: 0 (the port may start; d->use says which data path), or for `on`
 *	   -errno with d->msg for the operator: the port must not start
 */
int vhost_port_decide(struct vhost_decision *d, enum vhost_mode mode,
		      const char *dev, const char *backend, bool have_queue_fd)
{
	if (have_queue_fd)
		return vhost_mode_decide(d, mode, dev, NULL);
	/* nothing for the kernel to attach to: do not even probe */
	memset(d, 0, sizeof(*d));
	d->mode = mode;
	snprintf(d->dev, sizeof(d->dev), "%s", dev ? dev : VHOST_KERNEL_DEV);
	snprintf(d->reason, sizeof(d->reason),
		 "%s%s has no kernel queue: userspace only",
		 backend ? "backend " : "the backend", backend ? backend : "");
	if (mode != VHOST_MODE_ON)
		return 0;
	d->err = -ENODEV;
	snprintf(d->msg, sizeof(d->msg),
		 "--vhost-net on: the port's backend has no TAP queue for "
		 "vhost-net to attach to. Use --backend tap, or start with "
		 "--vhost-net off.");
	return -ENODEV;
}

/**
 * vhost_port_init() - Decide the port's data path and take it over: for
 *		       users that decide when the device is made (the
 *		       guest tests); vnetd decides first and adopts
 * @vp:		Port state to initialise
 * @name:	Port name for log lines (must outlive @vp)
 * @mode:	--vhost-net value
 * @dev:	Device path, NULL for /dev/vhost-net (must outlive @vp)
 * @have_queue_fd: The host side has a TAP queue fd per pair (queue_fd() >= 0)
 *
 * vhost_port_decide(), then vhost_port_adopt(); logs the decision once.
 * Call before the port offers any feature.
 *
 * Return: as vhost_port_decide()
 */
int vhost_port_init(struct vhost_port *vp, const char *name,
		    enum vhost_mode mode, const char *dev, bool have_queue_fd)
{
	struct vhost_decision d;
	int ret;

	ret = vhost_port_decide(&d, mode, dev, NULL, have_queue_fd);
	vhost_port_adopt(vp, name, &d, dev);
	if (ret) {
		log_err("%s: %s", vp->name, d.msg);
		return ret;
	}
	log_info("%s: %s data path: %s", vp->name,
		 d.use ? VNET_DP_KERNEL : VNET_DP_USER, d.reason);
	return 0;
}

/**
 * vhost_port_adopt() - Take over a decision made elsewhere (vnetd's port.c
 *			decides before the device exists)
 * @vp:		Port state to initialise
 * @name:	Port name for log lines (must outlive @vp)
 * @d:		The decision (vhost_mode_decide()), or NULL: userspace only
 * @dev:	Device path the pairs open, NULL for /dev/vhost-net
 *
 * Nothing is probed or logged again: the decision is made once per port.
 */
void vhost_port_adopt(struct vhost_port *vp, const char *name,
		      const struct vhost_decision *d, const char *dev)
{
	unsigned int i;

	memset(vp, 0, sizeof(*vp));
	vp->name = name ? name : "vnet";
	vp->dev = dev;
	for (i = 0; i < VNET_MAX_PAIRS; i++)
		vhost_pair_init(&vp->o[i]);
	if (d) {
		vp->vk = *d;
	} else {
		vp->vk.mode = VHOST_MODE_OFF;
		snprintf(vp->vk.reason, sizeof(vp->vk.reason),
			 "no vhost-net decision: userspace only");
	}
}

/**
 * vhost_port_features() - Features the port offers to every frontend
 * @vp:		Port state
 * @offered:	What the userspace path would offer
 *
 * Return: @offered, or its offload-compatible subset if vhost-net is used
 */
uint64_t vhost_port_features(const struct vhost_port *vp, uint64_t offered)
{
	if (!vp->vk.use)
		return offered;
	return vhost_mode_features(offered, vp->vk.kernel_features);
}

/**
 * vhost_port_max_mem_slots() - The GET_MAX_MEM_SLOTS answer
 * @vp:		Port state
 * @userspace_max: The userspace path's limit
 *
 * Return: the kernel's max_mem_regions if lower and vhost-net is used
 */
unsigned int vhost_port_max_mem_slots(const struct vhost_port *vp,
				      unsigned int userspace_max)
{
	return vhost_mode_max_mem_slots(&vp->vk, userspace_max);
}

/**
 * vhost_port_offloaded() - Does the kernel run this pair now?
 * @vp:		Port state
 * @pair:	Pair index
 *
 * Return: true if the worker must leave the pair (its rings, its TAP
 *	   queue, its kick fds) alone
 */
bool vhost_port_offloaded(const struct vhost_port *vp, unsigned int pair)
{
	return pair < VNET_MAX_PAIRS && vhost_pair_running(&vp->o[pair]);
}

/*
 * The kernel refused @err for @p. Under `on` the connection must end;
 * under `auto` this connection continues on the userspace path (pairs the
 * kernel already runs keep running there).
 */
static int vhost_port_refused(struct vhost_port *vp, struct vnet_pair *p,
			      int err)
{
	const char *why = vp->o[p->index].why.msg;

	if (vp->vk.mode == VHOST_MODE_ON) {
		log_err("%s: pair %u: vhost-net refused: %s (--vhost-net on: "
			"closing the connection)", vp->name, p->index, why);
		vnet_pair_set_datapath(p, VNET_DP_IDLE, "vhost-net refused: %s",
				       why);
		return err;
	}
	log_warn("%s: pair %u: vhost-net refused: %s; userspace data path for "
		 "this connection", vp->name, p->index, why);
	vp->fallback = true;
	vnet_pair_set_datapath(p, VNET_DP_USER, "vhost-net refused: %s", why);
	return 0;
}

/* The kernel runs @p now: status and one log line */
static void vhost_port_started(struct vhost_port *vp, struct vnet_pair *p)
{
	const char *what = vp->o[p->index].why.msg;

	vnet_pair_set_datapath(p, VNET_DP_KERNEL, "%s", what);
	log_info("%s: pair %u: %s", vp->name, p->index, what);
}

/**
 * vhost_port_pair_start() - A ring of @p started (its kick arrived): hand
 *			     the pair to the kernel once both rings run
 * @vp:		Port state
 * @p:		The pair, paused; @p->index < VNET_MAX_PAIRS
 * @m:		Memory table (our mappings)
 * @tap_fd:	The pair's TAP queue fd (the host's queue_fd())
 * @log:	Dirty log if logging is on (VHOST_F_LOG_ALL acked), else NULL
 * @log_fd:	SET_LOG_FD eventfd, or -1
 *
 * Until both rings have started the worker serves the one that has; the
 * kernel then resumes from the worker's positions (the worker must leave
 * no buffer in flight when paused). While the port is held for a
 * hand-over (vhost_port_hold()) the pair is only marked: vhost_port_unhold()
 * starts it.
 *
 * Return: 0 (p->datapath says who runs the pair), or under `on` the
 *	   kernel's -errno: close the connection
 */
int vhost_port_pair_start(struct vhost_port *vp, struct vnet_pair *p,
			  const struct gmem *m, int tap_fd,
			  const struct gmem_log *log, int log_fd)
{
	struct vhost_pair *o;
	int ret;

	if (p->index >= VNET_MAX_PAIRS)
		return -EINVAL;
	o = &vp->o[p->index];
	if (!vp->vk.use) {
		vnet_pair_set_datapath(p, VNET_DP_USER, "%s", vp->vk.reason);
		return 0;
	}
	if (vhost_pair_running(o))
		return 0;
	if (vp->fallback) {
		vnet_pair_set_datapath(p, VNET_DP_USER, "vhost-net refused "
				       "earlier on this connection");
		return 0;
	}
	if (!p->rx.started || !p->tx.started)
		return 0;
	if (vp->hold) {
		/* another process may still run these rings: not before commit */
		vp->pending |= BIT(p->index);
		vnet_pair_set_datapath(p, VNET_DP_IDLE, "held for an upgrade: "
				       "vhost-net once it commits");
		return 0;
	}
	ret = vhost_pair_start(o, vp->dev, p, m, vp->vk.max_regions, tap_fd,
				  log, log_fd);
	if (ret)
		return vhost_port_refused(vp, p, ret);
	vhost_port_started(vp, p);
	return 0;
}

/* Give the whole pair back after a failure; positions into the vqs */
static int vhost_port_pair_fail(struct vhost_port *vp, struct vnet_pair *p,
				int err)
{
	struct vhost_pair *o = &vp->o[p->index];
	struct reason why = o->why;	/* vhost_pair_stop() may overwrite it */

	vhost_pair_stop(o, p);
	o->why = why;
	return vhost_port_refused(vp, p, err);
}

/**
 * vhost_port_ring_stop() - GET_VRING_BASE for ring @idx of an offloaded pair
 * @vp:		Port state
 * @p:		The ring's pair, paused
 * @idx:	vhost-user ring index (2 * pair for RX, 2 * pair + 1 for TX)
 *
 * Detaches the ring from the TAP and stores the kernel's position in the
 * ring's vq (vq_set_base()), where the caller reads it for the reply. When
 * both rings are back, the pair's vhost-net fd is closed. Nothing to do for
 * a pair the kernel does not run.
 *
 * Return: 0, or -errno (the position is then the vq's last known one; the
 *	   pair is given back whole)
 */
int vhost_port_ring_stop(struct vhost_port *vp, struct vnet_pair *p,
			 unsigned int idx)
{
	struct vhost_pair *o;
	unsigned int ring = idx & 1;
	uint32_t base;
	int ret;

	if (!vhost_port_offloaded(vp, p->index))
		return 0;
	o = &vp->o[p->index];
	ret = vhost_pair_ring_stop(o, ring, &base);
	if (ret) {
		log_warn("%s: ring %u: %s", vp->name, idx, o->why.msg);
		vhost_pair_stop(o, p);
	} else {
		vq_set_base(ring ? &p->tx.vq : &p->rx.vq, base);
		if (o->stopped[0] && o->stopped[1])
			vhost_pair_stop(o, p);
	}
	if (!vhost_pair_running(o))
		vnet_pair_set_datapath(p, VNET_DP_IDLE, "rings stopped");
	return ret;
}

/**
 * vhost_port_ring_enable() - SET_VRING_ENABLE for ring @idx
 * @vp:		Port state
 * @p:		The ring's pair, paused
 * @idx:	vhost-user ring index
 * @enable:	New state
 *
 * Return: 0, or under `on` -errno (close the connection); under `auto` a
 *	   refusal gives the pair back to the userspace path
 */
int vhost_port_ring_enable(struct vhost_port *vp, struct vnet_pair *p,
			   unsigned int idx, bool enable)
{
	int ret;

	if (!vhost_port_offloaded(vp, p->index))
		return 0;
	ret = vhost_pair_ring_enable(&vp->o[p->index], idx & 1, enable);
	return ret ? vhost_port_pair_fail(vp, p, ret) : 0;
}

/**
 * vhost_port_ring_fds() - SET_VRING_KICK/CALL/ERR for ring @idx arrived
 * @vp:		Port state
 * @p:		The ring's pair, paused, the ring's new fds stored
 * @idx:	vhost-user ring index
 *
 * Return: as vhost_port_ring_enable()
 */
int vhost_port_ring_fds(struct vhost_port *vp, struct vnet_pair *p,
			unsigned int idx)
{
	int ret;

	if (!vhost_port_offloaded(vp, p->index))
		return 0;
	ret = vhost_pair_set_ring_fds(&vp->o[p->index], idx & 1,
					 (idx & 1) ? &p->tx : &p->rx);
	return ret ? vhost_port_pair_fail(vp, p, ret) : 0;
}

/**
 * vhost_port_ring_addr() - SET_VRING_ADDR for a running ring of @p arrived
 * @vp:		Port state
 * @p:		The pair, paused, the ring's new addresses set
 *
 * Return: as vhost_port_ring_enable()
 */
int vhost_port_ring_addr(struct vhost_port *vp, struct vnet_pair *p)
{
	int ret;

	if (!vhost_port_offloaded(vp, p->index))
		return 0;
	ret = vhost_pair_set_ring_addr(&vp->o[p->index], p);
	return ret ? vhost_port_pair_fail(vp, p, ret) : 0;
}

/**
 * vhost_port_set_mem() - The memory table changed (SET_MEM_TABLE,
 *			  ADD_MEM_REG; REM_MEM_REG with the table that lacks
 *			  the region, before it is unmapped)
 * @vp:		Port state
 * @pairs:	All pairs, paused, ring addresses re-translated into @m
 * @npairs:	How many
 * @m:		The new table
 *
 * Return: 0, or under `on` the first -errno; under `auto` pairs the kernel
 *	   refuses go back to the userspace path
 */
int vhost_port_set_mem(struct vhost_port *vp, struct vnet_pair *pairs,
		       unsigned int npairs, const struct gmem *m)
{
	unsigned int i;
	int ret, first = 0;

	for (i = 0; i < npairs && i < VNET_MAX_PAIRS; i++) {
		if (!vhost_port_offloaded(vp, i))
			continue;
		ret = vhost_pair_set_mem(&vp->o[i], &pairs[i], m);
		if (ret)
			ret = vhost_port_pair_fail(vp, &pairs[i], ret);
		if (ret && !first)
			first = ret;
	}
	return first;
}

/**
 * vhost_port_set_log() - Dirty logging starts (new log) or stops
 * @vp:		Port state
 * @pairs:	All pairs, paused
 * @npairs:	How many
 * @m:		Current memory table (the log must cover it)
 * @log:	The log (our mapping), NULL to stop logging
 * @log_fd:	SET_LOG_FD eventfd, or -1
 *
 * Call with the new log mapped and before the old one is unmapped.
 *
 * Return: as vhost_port_set_mem()
 */
int vhost_port_set_log(struct vhost_port *vp, struct vnet_pair *pairs,
		       unsigned int npairs, const struct gmem *m,
		       const struct gmem_log *log, int log_fd)
{
	unsigned int i;
	int ret, first = 0;

	for (i = 0; i < npairs && i < VNET_MAX_PAIRS; i++) {
		if (!vhost_port_offloaded(vp, i))
			continue;
		ret = vhost_pair_set_log(&vp->o[i], &pairs[i], m, log, log_fd);
		if (ret)
			ret = vhost_port_pair_fail(vp, &pairs[i], ret);
		if (ret && !first)
			first = ret;
	}
	return first;
}

/**
 * vhost_port_hold() - A hand-over to or from another vnetd begins: give no
 *		       pair to the kernel until vhost_port_unhold()
 * @vp:		Port state, its pairs quiesced
 *
 * A /dev/vhost-net fd works only for the process that set its owner
 * (drivers/vhost/vhost.c: vhost_dev_check_owner() is -EPERM for any other
 * mm, and the worker is a thread of the owner), so a pair cannot stay in
 * the kernel across processes: the old one stops it (vhost_port_stop_all()),
 * the new one starts it on its own fd when it serves, i.e. after the old
 * one let go. Until then both must keep their hands off the rings.
 */
void vhost_port_hold(struct vhost_port *vp)
{
	vp->hold = true;
}

/**
 * vhost_port_stop_all() - Take every pair the kernel runs back for a
 *			   hand-over, as GET_VRING_BASE does for each ring
 * @vp:		Port state; held from now on (vhost_port_hold())
 * @pairs:	All pairs, quiesced; their vqs get the kernel's positions
 *		(vq_set_base()), from where the userspace ring is exported
 * @npairs:	How many
 * @why:	Reason of the first failure
 *
 * Each pair stopped is remembered: vhost_port_unhold() gives it to the
 * kernel again at the same position if the hand-over fails.
 *
 * Return: 0, or the first -errno (that pair is back anyway, at its vq's
 *	   last known position: do not hand it over)
 */
int vhost_port_stop_all(struct vhost_port *vp, struct vnet_pair *pairs,
			unsigned int npairs, struct reason *why)
{
	unsigned int i, r;
	int ret, first = 0;

	vp->hold = true;
	for (i = 0; i < npairs && i < VNET_MAX_PAIRS; i++) {
		if (!vhost_port_offloaded(vp, i))
			continue;
		vp->pending |= BIT(i);
		for (r = 0; r < 2; r++) {
			ret = vhost_port_ring_stop(vp, &pairs[i], 2 * i + r);
			if (ret && !first)
				first = reason_set(why, ret, "pair %u: vhost-net did not give ring %u back: %s",
						   i, 2 * i + r, vp->o[i].why.msg);
		}
		vnet_pair_set_datapath(&pairs[i], VNET_DP_IDLE,
				       "held for an upgrade: rings stopped");
	}
	return first;
}

/**
 * vhost_port_unhold() - The hand-over is over: give the held pairs to the
 *			 kernel (again, after a failed one; for the first
 *			 time in this process, after a committed one)
 * @vp:		Port state, held
 * @pairs:	All pairs, quiesced; each held one resumes at its vq's position
 * @npairs:	How many
 * @m:		Memory table (our mappings)
 * @tap_fds:	Per pair its TAP queue fd (the host's queue_fd())
 * @log:	Dirty log if logging is on, else NULL
 * @log_fd:	SET_LOG_FD eventfd, or -1
 *
 * The frontend saw nothing of the hand-over, so a kernel refusal here does
 * not close its connection even under `on`: that pair goes on on the
 * userspace path for the rest of the connection, logged once.
 *
 * Return: how many pairs the kernel runs again
 */
unsigned int vhost_port_unhold(struct vhost_port *vp, struct vnet_pair *pairs,
			       unsigned int npairs, const struct gmem *m,
			       const int *tap_fds, const struct gmem_log *log,
			       int log_fd)
{
	unsigned int i, n = 0;
	struct vhost_pair *o;

	vp->hold = false;
	for (i = 0; i < npairs && i < VNET_MAX_PAIRS; i++) {
		if (!(vp->pending & BIT(i)))
			continue;
		o = &vp->o[i];
		if (!pairs[i].rx.started || !pairs[i].tx.started ||
		    vhost_pair_running(o))
			continue;
		if (vhost_pair_start(o, vp->dev, &pairs[i], m, vp->vk.max_regions,
				     tap_fds[i], log, log_fd)) {
			log_warn("%s: pair %u: vhost-net refused to resume it: %s; "
				 "userspace data path for this connection",
				 vp->name, i, o->why.msg);
			vp->fallback = true;
			vnet_pair_set_datapath(&pairs[i], VNET_DP_USER,
					       "vhost-net refused to resume: %s",
					       o->why.msg);
			continue;
		}
		vhost_port_started(vp, &pairs[i]);
		n++;
	}
	vp->pending = 0;
	return n;
}

/**
 * vhost_port_disconnect() - The frontend is gone: take every pair back
 * @vp:		Port state; the decision stays, the fallback is forgotten
 * @pairs:	All pairs, paused; their vqs get the kernel's positions
 * @npairs:	How many
 *
 * Call before the kick/call fds are closed and the memory is unmapped.
 */
void vhost_port_disconnect(struct vhost_port *vp, struct vnet_pair *pairs,
			   unsigned int npairs)
{
	unsigned int i;

	for (i = 0; i < npairs && i < VNET_MAX_PAIRS; i++) {
		if (vhost_port_offloaded(vp, i) &&
		    vhost_pair_stop(&vp->o[i], &pairs[i]))
			log_warn("%s: pair %u: %s", vp->name, i, vp->o[i].why.msg);
		if (pairs[i].datapath)
			vnet_pair_set_datapath(&pairs[i], VNET_DP_IDLE,
					       "no frontend");
	}
	vp->fallback = false;
	vp->pending = 0;	/* nothing left to resume */
}
