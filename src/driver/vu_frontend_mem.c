// SPDX-License-Identifier: MIT
/*
 * vu_frontend_mem.c - the frontend's memory layer (vu_frontend_mem.h), on
 * vu_frontend_core: guest memory and ring placement. The first RX buffers
 * are posted by the data layer above (vu_frontend_data_setup()).
 *
 * Guest memory is either our own (memfds sealed against shrinking and
 * growing, so neither side can SIGBUS the other by truncating) or regions
 * the caller hands us (fd + offset + gpa + size). Either way we map it
 * MAP_SHARED ourselves and carve, with a bump allocator, every ring area,
 * every packet buffer and the indirect tables out of it: the backend sees
 * only what lies inside the announced regions. We map nothing the backend
 * controls (no dirty log, no backend fd), so no SIGBUS guard is needed
 * here; caller memory that is not sealed is the caller's risk.
 *
 * Queue i is placed in region i % nregions when it fits, so several regions
 * really carry traffic.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/virtio_config.h>

#include "vq.h"
#include "vu_frontend.h"
#include "vu_frontend_mem.h"

#define FE_ALIGN	4096ULL
#define FE_REGION_ALIGN	(2ULL << 20)
#define FE_GPA_STRIDE	(1ULL << 32)	/* own regions: one per 4 GiB */

static uint64_t fe_round(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static bool fe_is_tx(unsigned int ring)
{
	return ring & 1;
}

/* Buffer bytes per slot of @ring */
static uint32_t fe_buf_len(const struct vu_frontend *f, unsigned int ring)
{
	uint32_t frame = f->o.max_frame;

	if (!fe_is_tx(ring)) {
		if (f->mrg_rxbuf)
			return FE_RX_MRG_BUF;
		/* Without mergeable buffers a GSO frame needs one big buffer */
		if (f->features & ((1ULL << VIRTIO_NET_F_GUEST_TSO4) |
				   (1ULL << VIRTIO_NET_F_GUEST_TSO6)))
			frame = VU_FRONTEND_MAX_FRAME;
	}
	return (uint32_t)fe_round(VU_FRONTEND_HDR_LEN + frame, 64);
}

/* Descriptors one TX frame may take; indirect tables hold that many */
static uint16_t fe_tx_segs(const struct vu_frontend *f)
{
	return (uint16_t)((VU_FRONTEND_HDR_LEN + f->o.max_frame + FE_TX_SEG - 1) /
			  FE_TX_SEG);
}

static bool fe_use_indirect(const struct vu_frontend *f, unsigned int ring)
{
	return fe_is_tx(ring) && fe_tx_segs(f) > 1 &&
	       (f->features & (1ULL << VIRTIO_RING_F_INDIRECT_DESC));
}

/* The pieces of one ring, in placement order */
static void fe_ring_pieces(const struct vu_frontend *f, unsigned int ring,
			   uint64_t len[5])
{
	vq_ring_sizes(f->o.packed ? VQ_PACKED : VQ_SPLIT, f->ring_size,
		      &len[0], &len[1], &len[2]);
	len[3] = (uint64_t)f->ring_size * fe_buf_len(f, ring);
	len[4] = fe_use_indirect(f, ring) ?
		 (uint64_t)f->ring_size * fe_tx_segs(f) * 16 : 0;
}

static uint64_t fe_ring_need(const struct vu_frontend *f, unsigned int ring)
{
	uint64_t len[5], need = 0;
	unsigned int i;

	fe_ring_pieces(f, ring, len);
	for (i = 0; i < 5; i++)
		need += fe_round(len[i], FE_ALIGN);
	return need;
}

/* Bump-allocate @len bytes, region @hint first */
static int fe_alloc(struct vu_frontend *f, unsigned int hint, uint64_t len,
		    uint8_t **host, uint64_t *gpa)
{
	unsigned int k;

	len = fe_round(len, FE_ALIGN);
	for (k = 0; k < f->nmem; k++) {
		struct vu_frontend_mem *m = &f->mem[(hint + k) % f->nmem];

		if (m->size - m->used < len)
			continue;
		*host = m->host + m->used;
		*gpa = m->gpa + m->used;
		m->used += len;
		return 0;
	}
	return -ENOSPC;
}

/* Own memory: one sealed memfd per region, sized for its queues */
static int fe_mem_own(struct vu_frontend *f)
{
	uint64_t need[VU_FRONTEND_MAX_REGIONS] = { 0 };
	unsigned int i, n = f->o.mem_regions;

	for (i = 0; i < 2 * f->pairs; i++)
		need[i % n] += fe_ring_need(f, i);
	for (i = 0; i < n; i++) {
		struct vu_frontend_mem *m = &f->mem[i];
		uint64_t size = fe_round(need[i] + FE_ALIGN, FE_REGION_ALIGN);
		void *p;

		m->fd = memfd_create("vnet-guest-mem",
				     MFD_CLOEXEC | MFD_ALLOW_SEALING);
		if (m->fd < 0)
			return vu_frontend_set_err(f, -errno, "memfd_create: %s",
				      strerror(errno));
		m->own_fd = true;
		f->nmem = i + 1;
		if (ftruncate(m->fd, (off_t)size) < 0 ||
		    fcntl(m->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0)
			return vu_frontend_set_err(f, -errno, "memfd size/seal: %s",
				      strerror(errno));
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			 m->fd, 0);
		if (p == MAP_FAILED)
			return vu_frontend_set_err(f, -errno, "mmap %llu bytes: %s",
				      (unsigned long long)size, strerror(errno));
		m->host = p;
		m->size = size;
		m->gpa = i * FE_GPA_STRIDE;
		m->offset = 0;
	}
	return 0;
}

/* Refuse a caller region that cannot be shared with another process */
static int fe_mem_check_region(struct vu_frontend *f, unsigned int i,
			       const struct vu_frontend_region *r)
{
	struct stat st;
	unsigned int j;

	if (r->fd < 0)
		return vu_frontend_set_err(f, -EBADF,
			      "memory region %u: no fd, memory that is not fd-backed cannot be shared",
			      i);
	if (fstat(r->fd, &st) < 0)
		return vu_frontend_set_err(f, -errno, "memory region %u: fd %d: %s", i,
			      r->fd, strerror(errno));
	if (!r->size || add_overflows(r->offset, r->size) ||
	    add_overflows(r->gpa, r->size))
		return vu_frontend_set_err(f, -EINVAL, "memory region %u: bad size/offset", i);
	if (r->offset % (uint64_t)sysconf(_SC_PAGESIZE))
		return vu_frontend_set_err(f, -EINVAL, "memory region %u: offset not page aligned", i);
	/* A mapping past the end of the file would SIGBUS either side */
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size < r->offset + r->size)
		return vu_frontend_set_err(f, -EINVAL,
			      "memory region %u: file has %lld bytes, region needs %llu",
			      i, (long long)st.st_size,
			      (unsigned long long)(r->offset + r->size));
	for (j = 0; j < i; j++) {
		const struct vu_frontend_region *o = &f->o.regions[j];

		if (r->gpa < o->gpa + o->size && o->gpa < r->gpa + r->size)
			return vu_frontend_set_err(f, -EINVAL,
				      "memory regions %u and %u overlap", j, i);
	}
	return 0;
}

static int fe_mem_caller(struct vu_frontend *f)
{
	unsigned int i;
	int ret;

	for (i = 0; i < f->o.nregions; i++) {
		const struct vu_frontend_region *r = &f->o.regions[i];
		struct vu_frontend_mem *m = &f->mem[i];
		void *p;

		ret = fe_mem_check_region(f, i, r);
		if (ret)
			return ret;
		p = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED,
			 r->fd, (off_t)r->offset);
		if (p == MAP_FAILED)
			return vu_frontend_set_err(f, -errno,
				      "memory region %u cannot be shared (mmap MAP_SHARED of fd %d: %s)",
				      i, r->fd, strerror(errno));
		m->fd = r->fd;
		m->own_fd = false;
		m->host = p;
		m->size = r->size;
		m->gpa = r->gpa;
		m->offset = r->offset;
		f->nmem = i + 1;
	}
	return 0;
}

/**
 * vu_frontend_mem_setup() - Create or map guest memory (first start only)
 * @f:	Frontend, features and pairs negotiated
 *
 * Return: 0 or -errno (reason recorded); partial state is undone by
 *	   vu_frontend_mem_cleanup()
 */
int vu_frontend_mem_setup(struct vu_frontend *f)
{
	if (f->o.regions)
		return fe_mem_caller(f);
	return fe_mem_own(f);
}

/**
 * vu_frontend_mem_cleanup() - Unmap guest memory, close the memfds we made
 * @f:	Frontend
 */
void vu_frontend_mem_cleanup(struct vu_frontend *f)
{
	unsigned int i;

	for (i = 0; i < f->nmem; i++) {
		struct vu_frontend_mem *m = &f->mem[i];

		if (m->host)
			munmap(m->host, m->size);
		if (m->own_fd && m->fd >= 0)
			close(m->fd);
		memset(m, 0, sizeof(*m));
		m->fd = -1;
	}
	f->nmem = 0;
}

static int fe_eventfd(struct vu_frontend *f, const int *given, unsigned int i,
		      int *fd, bool *own)
{
	if (given && given[i] >= 0) {
		*fd = given[i];
		*own = false;
		return 0;
	}
	*fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (*fd < 0)
		return vu_frontend_set_err(f, -errno, "eventfd: %s", strerror(errno));
	*own = true;
	return 0;
}

/* Place one ring's areas and buffers, initialise its vq */
static int fe_ring_place(struct vu_frontend *f, struct vu_frontend_queue *q)
{
	unsigned int i, hint = q->index % f->nmem;
	uint64_t len[5], gpa[5];
	uint8_t *host[5];
	int ret;

	fe_ring_pieces(f, q->index, len);
	for (i = 0; i < 5; i++) {
		host[i] = NULL;
		gpa[i] = 0;
		if (len[i] && fe_alloc(f, hint, len[i], &host[i], &gpa[i]))
			return vu_frontend_set_err(f, -ENOSPC,
				      "guest memory too small for ring %u",
				      q->index);
	}
	for (i = 0; i < 3; i++) {
		memset(host[i], 0, len[i]);
		q->ring_host[i] = host[i];
		q->ring_len[i] = len[i];
	}
	q->buf_host = host[3];
	q->buf_gpa = gpa[3];
	q->buf_len = fe_buf_len(f, q->index);

	ret = vq_drv_init(&q->vq, f->o.packed ? VQ_PACKED : VQ_SPLIT,
			  f->ring_size, f->features);
	if (ret)
		return vu_frontend_set_err(f, ret, "ring %u: vq_drv_init: %s", q->index,
			      strerror(-ret));
	ret = vq_drv_set_addr(&q->vq, host[0], host[1], host[2]);
	if (ret)
		return vu_frontend_set_err(f, ret, "ring %u: vq_drv_set_addr: %s", q->index,
			      strerror(-ret));
	if (len[4]) {
		q->indir_host = host[4];
		q->indir_gpa = gpa[4];
		vq_drv_set_indirect(&q->vq, host[4], gpa[4], fe_tx_segs(f));
	}
	return 0;
}

static int fe_ring_alloc(struct vu_frontend *f, struct vu_frontend_queue *q)
{
	unsigned int n = f->ring_size;

	q->rx_iov = calloc(n, sizeof(*q->rx_iov));
	q->rx_slots = calloc(n, sizeof(*q->rx_slots));
	if (!q->rx_iov || !q->rx_slots)
		return vu_frontend_set_err(f, -ENOMEM, "out of memory");
	/* TX reclaims in bursts: once fewer than an eighth are free */
	q->tx_reclaim_at = fe_is_tx(q->index) ? n / 8 : 0;
	return 0;
}

/**
 * vu_frontend_mem_rings_setup() - Place and initialise every ring (first start only)
 * @f:	Frontend with guest memory
 *
 * The rings are empty; vu_frontend_data_setup() posts the RX buffers next,
 * before the backend sees them.
 *
 * Return: 0 or -errno (reason recorded)
 */
int vu_frontend_mem_rings_setup(struct vu_frontend *f)
{
	unsigned int i, n = 2 * f->pairs;
	int ret;

	f->q = calloc(n, sizeof(*f->q));
	if (!f->q)
		return vu_frontend_set_err(f, -ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		struct vu_frontend_queue *q = &f->q[i];

		q->index = i;
		q->kick_fd = q->call_fd = -1;
	}
	for (i = 0; i < n; i++) {
		struct vu_frontend_queue *q = &f->q[i];

		ret = fe_eventfd(f, f->o.kick_fds, i, &q->kick_fd, &q->own_kick);
		if (!ret)
			ret = fe_eventfd(f, f->o.call_fds, i, &q->call_fd,
					 &q->own_call);
		if (!ret)
			ret = fe_ring_alloc(f, q);
		if (!ret)
			ret = fe_ring_place(f, q);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * vu_frontend_mem_rings_cleanup() - Free ring bookkeeping and close our eventfds
 * @f:	Frontend
 */
void vu_frontend_mem_rings_cleanup(struct vu_frontend *f)
{
	unsigned int i;

	if (!f->q)
		return;
	for (i = 0; i < 2 * f->pairs; i++) {
		struct vu_frontend_queue *q = &f->q[i];

		if (q->vq.num)
			vq_drv_cleanup(&q->vq);
		if (q->own_kick && q->kick_fd >= 0)
			close(q->kick_fd);
		if (q->own_call && q->call_fd >= 0)
			close(q->call_fd);
		free(q->rx_iov);
		free(q->rx_slots);
	}
	free(f->q);
	f->q = NULL;
}
