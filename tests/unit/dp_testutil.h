/* SPDX-License-Identifier: MIT */
/*
 * dp_testutil.h - a port's data plane without vhost-user, for
 * test_worker.c and test_dp_noalloc.c: fake guest memory, the device side
 * of every ring in struct vnet_pair (what vu_backend would set up), the
 * driver side of the same rings driven by the test thread (the "guest"),
 * eventfds for kick/call/err, and a worker pool over a backend. A
 * template, not part of build/libvnet-test.a: struct dp_env is sized by
 * the includer's DP_RING (test_tap_uring.c wants 2048), so its functions
 * stay here, compiled into each program that includes it.
 */
#ifndef VNET_DP_TESTUTIL_H
#define VNET_DP_TESTUTIL_H

#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <linux/virtio_config.h>
#include <linux/virtio_net.h>

#include "gmem.h"
#include "net.h"
#include "worker.h"
#include "vq.h"
#include "vq_drv.h"

#define DP_GPA		0x100000000ULL
#define DP_MAX_PAIRS	4
#ifndef DP_RING
#define DP_RING		256	/* a test that needs more defines it first */
#endif
#define DP_SLOT		2048	/* TX and RX buffer size */
#define DP_RING_AREA	(64u << 10)	/* per ring: desc + driver + device */
#define DP_MEM_SIZE	(DP_MAX_PAIRS * 2 * (DP_RING_AREA + DP_RING * DP_SLOT))

/**
 * struct dp_drv - The guest's side of one ring
 * @vq:		Driver-side queue over the same ring memory
 * @base:	Guest address of this ring's data slots
 * @busy:	Slot is posted (owned by the device)
 * @kicks:	Kicks we sent
 */
struct dp_drv {
	struct vq_drv vq;
	uint64_t base;
	bool busy[DP_RING];
	unsigned long kicks;
};

struct dp_env {
	struct gmem mem;
	uint8_t *buf;
	enum vq_layout layout;
	uint64_t features;
	unsigned int hdr_len;
	unsigned int npairs;
	struct vnet_pair pairs[DP_MAX_PAIRS];
	struct dp_drv rx[DP_MAX_PAIRS];
	struct dp_drv tx[DP_MAX_PAIRS];
	struct host host;
	struct worker_port *wp;
};

static inline void *dp_host(struct dp_env *e, uint64_t gpa)
{
	return e->buf + (gpa - DP_GPA);
}

static inline uint64_t dp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Both sides of ring @q (0 = RX of pair 0, 1 = TX of pair 0, ...) */
static inline int dp_ring_init(struct dp_env *e, struct vnet_ring *r,
			       struct dp_drv *d, unsigned int q)
{
	uint64_t dl, drl, dvl, off = (uint64_t)q * DP_RING_AREA;
	uint8_t *desc, *drv, *dev;
	int ret;

	vq_ring_sizes(e->layout, DP_RING, &dl, &drl, &dvl);
	desc = e->buf + off;
	drv = desc + ((dl + 63) & ~63ull);
	dev = drv + ((drl + 63) & ~63ull);
	ret = vq_init(&r->vq, e->layout, DP_RING, e->features);
	if (!ret)
		ret = vq_drv_init(&d->vq, e->layout, DP_RING, e->features);
	if (!ret)
		ret = vq_drv_set_addr(&d->vq, desc, drv, dev);
	if (!ret)
		ret = vq_set_addr(&r->vq, desc, drv, dev);
	if (ret)
		return ret;
	vq_set_mem(&r->vq, &e->mem);
	d->base = DP_GPA + (uint64_t)DP_MAX_PAIRS * 2 * DP_RING_AREA +
		  (uint64_t)q * DP_RING * DP_SLOT;
	r->kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	r->call_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	r->err_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	r->started = true;
	r->enabled = true;
	return r->kick_fd < 0 || r->call_fd < 0 || r->err_fd < 0 ? -EMFILE : 0;
}

/* Set up @npairs pairs over backend @ops; the pool is not started yet */
static inline int dp_init_cfg(struct dp_env *e, enum vq_layout l,
			      uint64_t features, unsigned int npairs,
			      const char *backend, const char *tap_name)
{
	struct host_cfg cfg = { .npairs = npairs, .tap_name = tap_name };
	unsigned int i;
	struct reason why = { 0 };
	int ret;

	memset(e, 0, sizeof(*e));
	e->layout = l;
	e->features = features;
	e->hdr_len = vnet_hdr_len(features);
	e->npairs = npairs;
	e->buf = aligned_alloc(4096, DP_MEM_SIZE);
	if (!e->buf)
		return -ENOMEM;
	memset(e->buf, 0, DP_MEM_SIZE);
	gmem_init(&e->mem);
	ret = gmem_add_region(&e->mem, DP_GPA, DP_MEM_SIZE, 0x7e0000000000ull,
			      e->buf);
	if (ret)
		return ret;
	e->host.ops = host_find(backend);
	if (!e->host.ops)
		return -ENOENT;
	ret = e->host.ops->open(&e->host, &cfg, &why);
	if (!ret)
		ret = e->host.ops->configure(&e->host, features, e->hdr_len);
	for (i = 0; !ret && i < npairs; i++) {
		struct vnet_pair *p = &e->pairs[i];

		p->index = i;
		p->features = features;
		p->hdr_len = e->hdr_len;
		ret = dp_ring_init(e, &p->rx, &e->rx[i], 2 * i);
		if (!ret)
			ret = dp_ring_init(e, &p->tx, &e->tx[i], 2 * i + 1);
	}
	return ret;
}

static inline int dp_init(struct dp_env *e, enum vq_layout l, uint64_t features,
			  unsigned int npairs, const char *backend)
{
	return dp_init_cfg(e, l, features, npairs, backend, NULL);
}

static inline int dp_start(struct dp_env *e, const struct worker_opts *o)
{
	return worker_port_create(&e->wp, "test", e->pairs, e->npairs, &e->host, o);
}

static inline void dp_close_ring(struct vnet_ring *r, struct dp_drv *d)
{
	vq_cleanup(&r->vq);
	vq_drv_cleanup(&d->vq);
	close(r->kick_fd);
	close(r->call_fd);
	close(r->err_fd);
}

static inline void dp_cleanup(struct dp_env *e)
{
	unsigned int i;

	worker_port_destroy(e->wp);
	e->wp = NULL;
	for (i = 0; i < e->npairs; i++) {
		dp_close_ring(&e->pairs[i].rx, &e->rx[i]);
		dp_close_ring(&e->pairs[i].tx, &e->tx[i]);
	}
	if (e->host.ops)
		e->host.ops->close(&e->host);
	free(e->buf);
	e->buf = NULL;
}

static inline void dp_kick(struct vnet_ring *r, struct dp_drv *d)
{
	static const uint64_t one = 1;

	if (vq_drv_kick_needed(&d->vq)) {
		d->kicks++;
		if (write(r->kick_fd, &one, sizeof(one)) < 0)
			return;
	}
}

/* Collect TX completions of pair @i; returns how many */
static inline unsigned int dp_reap_tx(struct dp_env *e, unsigned int i)
{
	uint32_t token, len;
	unsigned int n = 0;

	while (vq_drv_get_used(&e->tx[i].vq, &token, &len) == 0) {
		if (token < DP_RING)
			e->tx[i].busy[token] = false;
		n++;
	}
	return n;
}

/* Queue one frame of @len bytes (pattern from @seed) on pair @i's TX */
static inline int dp_send(struct dp_env *e, unsigned int i, uint32_t len,
			  uint8_t seed, bool kick)
{
	struct dp_drv *d = &e->tx[i];
	struct vq_buf b;
	unsigned int s;
	uint8_t *p;
	uint32_t k;

	for (s = 0; s < DP_RING && d->busy[s]; s++)
		;
	if (s == DP_RING || len + e->hdr_len > DP_SLOT)
		return -ENOSPC;
	b.gpa = d->base + (uint64_t)s * DP_SLOT;
	b.len = e->hdr_len + len;
	p = dp_host(e, b.gpa);
	memset(p, 0, e->hdr_len);
	for (k = 0; k < len; k++)
		p[e->hdr_len + k] = (uint8_t)(seed + k);
	if (vq_drv_add(&d->vq, &b, 1, NULL, 0, s))
		return -ENOSPC;
	d->busy[s] = true;
	if (kick)
		dp_kick(&e->pairs[i].tx, d);
	return 0;
}

/* Post every free RX slot of pair @i */
static inline unsigned int dp_post_rx(struct dp_env *e, unsigned int i)
{
	struct dp_drv *d = &e->rx[i];
	unsigned int s, n = 0;
	struct vq_buf b;

	for (s = 0; s < DP_RING; s++) {
		if (d->busy[s])
			continue;
		b.gpa = d->base + (uint64_t)s * DP_SLOT;
		b.len = DP_SLOT;
		if (vq_drv_add(&d->vq, NULL, 0, &b, 1, s))
			break;
		d->busy[s] = true;
		n++;
	}
	if (n)
		dp_kick(&e->pairs[i].rx, d);
	return n;
}

/*
 * Take one received frame from pair @i's RX (all its mergeable buffers,
 * which must be contiguous slots for this simple check: frames <= a slot).
 * Returns the frame length after the header, -EAGAIN if none, -EBADMSG if
 * the header is wrong; *@first gets the first byte of the frame.
 */
static inline int dp_recv(struct dp_env *e, unsigned int i, uint8_t *first,
			  uint32_t *seed_ok_len)
{
	struct dp_drv *d = &e->rx[i];
	uint32_t token, len;
	uint8_t *p;

	if (vq_drv_get_used(&d->vq, &token, &len))
		return -EAGAIN;
	if (token >= DP_RING || len < e->hdr_len)
		return -EBADMSG;
	d->busy[token] = false;
	p = dp_host(e, d->base + (uint64_t)token * DP_SLOT);
	if (e->hdr_len == 12 &&
	    le16toh(((struct virtio_net_hdr_v1 *)p)->num_buffers) != 1)
		return -EBADMSG;
	if (first)
		*first = len > e->hdr_len ? p[e->hdr_len] : 0;
	if (seed_ok_len) {
		uint32_t k;

		for (k = 1; k < len - e->hdr_len; k++)
			if (p[e->hdr_len + k] != (uint8_t)(p[e->hdr_len] + k))
				break;
		*seed_ok_len = k;
	}
	return (int)(len - e->hdr_len);
}

static inline uint64_t dp_ctr(uint64_t *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

/*
 * Wait, up to @timeout_ns, for counter @c to reach @want: a worker commits
 * its counters when a pass finds nothing, not per frame, so a test that
 * has seen its last frame may read them a moment early. Returns the value.
 */
static inline uint64_t dp_wait_ctr(uint64_t *c, uint64_t want,
				   uint64_t timeout_ns)
{
	uint64_t deadline = dp_now_ns() + timeout_ns;

	while (dp_ctr(c) < want && dp_now_ns() < deadline)
		usleep(1000);
	return dp_ctr(c);
}

#endif /* VNET_DP_TESTUTIL_H */
