// SPDX-License-Identifier: MIT
/*
 * vu_dev_core.c - the vhost-user device's bottom layer (vu_dev_core.h):
 * which data-path ring a vhost-user ring index names, quiescing the
 * workers around a change, stopping a ring, and the data-path status of a
 * pair. Every layer above (vu_dev_mem, vu_dev_ring, vu_dev_net, vu_backend)
 * calls these; nothing here calls up. Reasons are recorded with vu_fail()
 * (a struct reason in the device, vu_dev_core.h).
 *
 * Security model: no frontend value is read here; callers pass ring
 * indices the dispatcher (vu_backend.c) has checked < 2 * queues.
 */
#include <stdio.h>
#include <unistd.h>
#include <linux/virtio_config.h>

#include "vu_dev_core.h"
#include "vu_msg.h"

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

/**
 * vu_reply_u64() - Make @m the u64 reply of its request
 * @m:		Message whose payload becomes the reply
 * @v:		Value
 */
void vu_reply_u64(struct vu_msg *m, uint64_t v)
{
	m->hdr.size = sizeof(uint64_t);
	m->payload.u64 = v;
}

/**
 * vu_pair_status() - Update what status shows for a pair: which data path
 *		      serves it, and why
 * @d:		Device
 * @pair:	Pair index
 *
 * Context: control thread (status readers run on it too)
 */
void vu_pair_status(struct vu_dev *d, unsigned int pair)
{
	struct vnet_pair *p = &d->pairs[pair];

	if (vhost_port_offloaded(&d->vp, pair))
		return;		/* vhost_port keeps "vhost-net" and its why */
	if (p->rx.started || p->tx.started)
		vnet_pair_set_datapath(p, VNET_DP_USER,
				       "%s rings served by vnetd's worker (RX %s, TX %s)",
				       vu_packed(d) ? "packed" : "split",
				       p->rx.started ? "started" : "stopped",
				       p->tx.started ? "started" : "stopped");
	else
		vnet_pair_set_datapath(p, VNET_DP_IDLE, "%s",
				       d->sock >= 0 ? "rings not started by the frontend" :
						      "no frontend connected");
}

/**
 * vu_ring_stop() - Stop ring @idx, keeping where it stopped in its base
 * @d:		Device
 * @idx:	Ring index, its pair paused
 *
 * The vq is not reset (vhost-user "GET_VRING_BASE"); the kick fd is
 * closed, a restart comes with a new SET_VRING_KICK.
 */
void vu_ring_stop(struct vu_dev *d, unsigned int idx)
{
	struct vnet_ring *vr = vu_vring(d, idx);
	struct vu_ring *r = &d->rings[idx];

	if (vr->started)
		r->base = vq_get_base(&vr->vq);
	vr->started = false;
	r->kicked = false;
	if (vr->kick_fd >= 0)
		close(vr->kick_fd);
	vr->kick_fd = -1;
	vu_pair_status(d, idx / 2);
}
