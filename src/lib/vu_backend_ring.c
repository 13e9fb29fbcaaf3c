// SPDX-License-Identifier: MIT
/*
 * vu_backend_ring.c - vhost-user memory-table, dirty-log and ring messages
 * (backend side): SET_MEM_TABLE, ADD/REM_MEM_REG, SET_LOG_BASE and
 * SET_VRING_*, GET_VRING_BASE. The dispatcher (vu_backend.c) has checked
 * size, descriptor count and ring index before any function here runs.
 *
 * Security model: payloads come from the untrusted frontend. Each is copied
 * once into locals and only the copies are validated and used. Region
 * descriptors are checked with fstat() before mmap() (a truncated memfd
 * would SIGBUS the data path), sizes and offsets are overflow-checked,
 * regions may not overlap, and ring areas are checked for alignment and for
 * lying wholly inside mapped memory before a worker may touch them. The
 * data path is quiesced (worker_pause) around every change it could see,
 * and rings are re-translated after every memory-table change. A ring is
 * (re)built from the values kept in struct vu_ring only when everything it
 * needs has arrived, so messages may come in any order the spec allows.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/vhost_types.h>
#include <linux/virtio_config.h>

#include "log.h"
#include "vu_backend_int.h"
#include "vu_msg.h"

/* #syscalls: close eventfd2 write */

static const char *const vu_area_name[3] = { "descriptor", "driver", "device" };

/* vhost-user "Memory regions": the fd must hold offset + size bytes */
static int vu_fd_covers(struct vu_dev *d, int fd, uint64_t offset,
			uint64_t size, const char *what)
{
	struct stat st;

	if (add_overflows(offset, size))
		return vu_fail(d, -EINVAL, "%s offset %#llx + size %#llx overflows",
			       what, (unsigned long long)offset,
			       (unsigned long long)size);
	if (fstat(fd, &st) < 0)
		return vu_fail(d, -errno, "%s fd: fstat failed", what);
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size < offset + size)
		return vu_fail(d, -EINVAL, "%s fd holds %lld bytes, needs %llu",
			       what, (long long)st.st_size,
			       (unsigned long long)(offset + size));
	return 0;
}

static bool vu_ranges_overlap(uint64_t a, uint64_t alen, uint64_t b,
			      uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

/* One region's own fields: non-empty, no wrap in either address space */
static int vu_region_check(struct vu_dev *d, const struct vu_mem_region *r,
			   unsigned int i)
{
	if (!r->memory_size)
		return vu_fail(d, -EINVAL, "region %u is empty", i);
	if (add_overflows(r->guest_phys_addr, r->memory_size) ||
	    add_overflows(r->userspace_addr, r->memory_size))
		return vu_fail(d, -EINVAL, "region %u wraps around", i);
	return 0;
}

/* @r against the regions of @m: no guest-physical overlap */
static int vu_region_overlaps(struct vu_dev *d, const struct gmem *m,
			      const struct vu_mem_region *r)
{
	uint32_t i;

	for (i = 0; i < m->nregions; i++)
		if (vu_ranges_overlap(r->guest_phys_addr, r->memory_size,
				      m->regions[i].gpa, m->regions[i].size))
			return vu_fail(d, -EINVAL,
				       "region at %#llx overlaps the one at %#llx",
				       (unsigned long long)r->guest_phys_addr,
				       (unsigned long long)m->regions[i].gpa);
	return 0;
}

static int vu_region_map(struct vu_dev *d, struct gmem *m,
			 const struct vu_mem_region *r, int fd, unsigned int i)
{
	int ret;

	ret = vu_region_check(d, r, i);
	if (!ret)
		ret = vu_region_overlaps(d, m, r);
	if (!ret)
		ret = vu_fd_covers(d, fd, r->mmap_offset, r->memory_size,
				   "region");
	if (ret)
		return ret;
	ret = gmem_map_region(m, fd, r->guest_phys_addr, r->memory_size,
			      r->userspace_addr, r->mmap_offset);
	if (ret)
		return vu_fail(d, ret, "region %u: mapping failed: %s", i,
			       strerror(-ret));
	return 0;
}

/* The three ring areas of @idx translated for @num entries, or -errno */
static int vu_ring_translate(struct vu_dev *d, unsigned int idx,
			     uint32_t num, const uint64_t uva[3], void *p[3])
{
	static const uint64_t align_split[3] = { 16, 2, 4 };
	static const uint64_t align_packed[3] = { 16, 4, 4 };
	const uint64_t *align = vu_packed(d) ? align_packed : align_split;
	uint64_t len[3];
	unsigned int i;

	/* virtio 2.7.2 / 2.8.10.1: area sizes and alignment per layout */
	vq_ring_sizes(vu_packed(d) ? VQ_PACKED : VQ_SPLIT, (uint16_t)num,
		      &len[0], &len[1], &len[2]);
	for (i = 0; i < 3; i++) {
		if (uva[i] & (align[i] - 1))
			return vu_fail(d, -EINVAL,
				       "ring %u %s area %#llx not %llu-aligned",
				       idx, vu_area_name[i],
				       (unsigned long long)uva[i],
				       (unsigned long long)align[i]);
		p[i] = gmem_uva_ptr(d->mem, uva[i], len[i]);
		if (!p[i])
			return vu_fail(d, -EFAULT,
				       "ring %u %s area %#llx+%llu not in guest memory",
				       idx, vu_area_name[i],
				       (unsigned long long)uva[i],
				       (unsigned long long)len[i]);
	}
	return 0;
}

static void vu_ring_uvas(const struct vu_ring *r, uint64_t uva[3])
{
	uva[0] = r->desc_uva;
	uva[1] = r->avail_uva;
	uva[2] = r->used_uva;
}

/* Packed base: avail idx bits 0-14, used idx bits 16-30 (vhost-user) */
static int vu_base_check(struct vu_dev *d, unsigned int idx, uint32_t base,
			 uint32_t num)
{
	if (!vu_packed(d)) {
		if (base > UINT16_MAX)
			return vu_fail(d, -EINVAL, "ring %u base %#x > 16 bits",
				       idx, base);
		return 0;
	}
	if (num && ((base & 0x7fff) >= num || ((base >> 16) & 0x7fff) >= num))
		return vu_fail(d, -EINVAL, "ring %u packed base %#x beyond size %u",
			       idx, base, num);
	return 0;
}

/**
 * vu_ring_update_log() - Point ring @idx's vq at the dirty log, or not
 * @d:		Device
 * @idx:	Ring index, its pair paused
 *
 * Logging is on while VHOST_F_LOG_ALL is acked and a log is mapped
 * (vhost-user "Migration"). Split: the used ring's guest address comes
 * from SET_VRING_ADDR's log_guest_addr when the frontend flagged it, else
 * from the memory table; packed: the descriptor ring's.
 */
void vu_ring_update_log(struct vu_dev *d, unsigned int idx)
{
	struct vnet_ring *vr = vu_vring(d, idx);
	struct vu_ring *r = &d->rings[idx];
	uint64_t gpa = r->log_gpa;

	if (!r->vq_ready)
		return;
	if (!(d->features & (1ULL << VHOST_F_LOG_ALL_BIT)) || !d->log.base) {
		vq_set_log(&vr->vq, NULL, 0);
		return;
	}
	/* Packed rings write used descriptors into the descriptor ring */
	if (vu_packed(d)) {
		if (gmem_uva_to_gpa(d->mem, r->desc_uva, &gpa))
			gpa = 0;
	} else if (!(r->addr_flags & (1u << VHOST_VRING_F_LOG)) &&
		   gmem_uva_to_gpa(d->mem, r->used_uva, &gpa)) {
		gpa = 0;
	}
	vq_set_log(&vr->vq, &d->log, gpa);
}

static void vu_vq_release(struct vu_dev *d, unsigned int idx)
{
	struct vnet_ring *vr = vu_vring(d, idx);

	if (d->rings[idx].vq_ready)
		vq_cleanup(&vr->vq);
	memset(&vr->vq, 0, sizeof(vr->vq));
	d->rings[idx].vq_ready = false;
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
	const char *dp = "idle";

	if (vhost_port_offloaded(&d->vp, pair))
		return;		/* vhost_port keeps "vhost-net" and its why */
	if (p->rx.started || p->tx.started) {
		dp = "userspace";
		snprintf(p->why, sizeof(p->why),
			 "%s rings served by vnetd's worker (RX %s, TX %s)",
			 vu_packed(d) ? "packed" : "split",
			 p->rx.started ? "started" : "stopped",
			 p->tx.started ? "started" : "stopped");
	} else {
		snprintf(p->why, sizeof(p->why), "%s",
			 d->sock >= 0 ? "rings not started by the frontend" :
					"no frontend connected");
	}
	__atomic_store_n(&p->datapath, dp, __ATOMIC_RELAXED);
}

/**
 * vu_pair_offload() - A ring of @pair started: hand the pair to the kernel
 *		       once both run (docs/vhost-net.md)
 * @d:		Device
 * @pair:	Pair index, paused
 *
 * The TAP queue is the backend's queue_fd(); the dirty log goes along
 * while VHOST_F_LOG_ALL is acked and a log is mapped. Under `auto` a
 * kernel refusal was logged once and the pair stays on the userspace path.
 *
 * Return: 0, or under `--vhost-net on` the kernel's -errno (the caller
 *	   closes the connection)
 */
int vu_pair_offload(struct vu_dev *d, unsigned int pair)
{
	struct vnet_pair *p = &d->pairs[pair];
	struct host *host = d->cfg.host;
	bool log = (d->features & (1ULL << VHOST_F_LOG_ALL_BIT)) && d->log.base;
	int fd = -1, ret;

	if (host && host->ops->queue_fd)
		fd = host->ops->queue_fd(host, pair);
	ret = vhost_port_pair_start(&d->vp, p, d->mem, fd,
				    log ? &d->log : NULL, d->log_fd);
	if (ret)
		return vu_fail(d, ret, "pair %u: %s", pair, p->why);
	return 0;
}

/**
 * vu_offload_log() - Dirty logging changed (log mapped, LOG_ALL toggled):
 *		      tell the kernel for the pairs it runs
 * @d:		Device, every pair paused
 *
 * Return: 0, or under `--vhost-net on` -errno
 */
int vu_offload_log(struct vu_dev *d)
{
	bool on = (d->features & (1ULL << VHOST_F_LOG_ALL_BIT)) && d->log.base;
	int ret;

	ret = vhost_port_set_log(&d->vp, d->pairs, d->cfg.queues, d->mem,
				 on ? &d->log : NULL, d->log_fd);
	if (ret)
		return vu_fail(d, ret, "vhost-net refused the dirty log");
	return 0;
}

/*
 * vhost-user "Ring states": a ring starts once its kick arrived and its
 * size and addresses are known. Called with the pair paused; 0 if the ring
 * runs or still waits for something, -errno if its values do not hold up.
 */
static int vu_ring_try_start(struct vu_dev *d, unsigned int idx)
{
	struct vnet_ring *vr = vu_vring(d, idx);
	struct vu_ring *r = &d->rings[idx];
	uint64_t uva[3];
	void *p[3];
	int ret;

	if (vr->started || !r->kicked || !r->num || !r->addr_set)
		return 0;
	vu_ring_uvas(r, uva);
	ret = vu_ring_translate(d, idx, r->num, uva, p);
	if (!ret)
		ret = vu_base_check(d, idx, r->base, r->num);
	if (ret)
		return ret;
	vu_vq_release(d, idx);
	ret = vq_init(&vr->vq, vu_packed(d) ? VQ_PACKED : VQ_SPLIT,
		      (uint16_t)r->num, d->features, false);
	if (ret)
		return vu_fail(d, ret, "ring %u: vq_init failed", idx);
	r->vq_ready = true;
	vq_set_mem(&vr->vq, d->mem);
	ret = vq_set_addr(&vr->vq, p[0], p[1], p[2]);
	if (ret) {
		vu_vq_release(d, idx);
		return vu_fail(d, ret, "ring %u: addresses refused", idx);
	}
	vq_set_base(&vr->vq, r->base);
	vu_ring_update_log(d, idx);
	vr->started = true;
	vu_pair_status(d, idx / 2);
	return vu_pair_offload(d, idx / 2);
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

static void vu_close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/**
 * vu_ring_reset() - Ring @idx back to its state before any connection
 * @d:		Device
 * @idx:	Ring index, its pair paused
 */
void vu_ring_reset(struct vu_dev *d, unsigned int idx)
{
	struct vnet_ring *vr = vu_vring(d, idx);

	vu_ring_stop(d, idx);
	vu_vq_release(d, idx);
	vu_close_fd(&vr->call_fd);
	vu_close_fd(&vr->err_fd);
	vr->enabled = false;
	memset(&d->rings[idx], 0, sizeof(d->rings[idx]));
}

/* After a memory change: re-translate every running ring (pairs paused) */
static void vu_rings_remap(struct vu_dev *d)
{
	unsigned int i;

	for (i = 0; i < 2 * d->cfg.queues; i++) {
		struct vnet_ring *vr = vu_vring(d, i);
		struct vu_ring *r = &d->rings[i];
		uint64_t uva[3];
		void *p[3];

		if (!vr->started)
			continue;
		vq_set_mem(&vr->vq, d->mem);
		vu_ring_uvas(r, uva);
		if (!vu_ring_translate(d, i, r->num, uva, p) &&
		    !vq_set_addr(&vr->vq, p[0], p[1], p[2])) {
			vu_ring_update_log(d, i);
			continue;
		}
		log_warn("%s: ring %u stopped: %s", d->cfg.name, i, d->why);
		vu_ring_stop(d, i);
	}
}

static struct vu_mem_ref *vu_mem_ref_find(struct vu_dev *d,
					   const struct vu_mem_region *r)
{
	uint32_t i;

	for (i = 0; i < d->nmem_refs; i++) {
		struct vu_mem_ref *ref = &d->mem_refs[i];

		if (ref->gpa == r->guest_phys_addr &&
		    ref->size == r->memory_size && ref->uva == r->userspace_addr)
			return ref;
	}
	return NULL;
}

static void vu_mem_ref_add(struct vu_dev *d, const struct vu_mem_region *r)
{
	struct vu_mem_ref *ref;

	if (d->nmem_refs >= GMEM_MAX_REGIONS)	/* gmem refused it before */
		return;
	ref = &d->mem_refs[d->nmem_refs++];
	ref->gpa = r->guest_phys_addr;
	ref->size = r->memory_size;
	ref->uva = r->userspace_addr;
	ref->refs = 1;
}

/**
 * vu_set_mem_table() - SET_MEM_TABLE: replace the whole memory table
 * @d:		Device
 * @m:		Message: up to 8 regions, one fd each
 * @idx:	Unused
 *
 * The new table is mapped aside; the data path is paused only for the
 * swap and the ring re-translation.
 *
 * Return: 0 or -errno (the old table stays in place)
 */
int vu_set_mem_table(struct vu_dev *d, struct vu_msg *m,
		     unsigned int idx UNUSED)
{
	struct vu_mem_region reg[VHOST_USER_MEM_REGIONS_MAX];
	uint32_t n = m->payload.mem.nregions, i;
	struct gmem *nm, *old;
	int ret = 0;

	if (!n || n > VHOST_USER_MEM_REGIONS_MAX)
		return vu_fail(d, -EINVAL, "%u regions (1..8)", n);
	if (m->hdr.size != 2 * sizeof(uint32_t) + n * sizeof(reg[0]))
		return vu_fail(d, -EBADMSG, "payload %u bytes for %u regions",
			       m->hdr.size, n);
	if (m->nfds != n)
		return vu_fail(d, -EBADMSG, "%u descriptors for %u regions",
			       m->nfds, n);
	memcpy(reg, m->payload.mem.regions, n * sizeof(reg[0]));
	nm = calloc(1, sizeof(*nm));
	if (!nm)
		return vu_fail(d, -ENOMEM, "no memory for the table");
	gmem_init(nm);
	for (i = 0; i < n && !ret; i++)
		ret = vu_region_map(d, nm, &reg[i], m->fds[i], i);
	if (ret) {
		gmem_cleanup(nm);
		free(nm);
		return ret;
	}
	vu_pause_all(d);
	old = d->mem;
	d->mem = nm;
	d->nmem_refs = 0;
	for (i = 0; i < n; i++)
		vu_mem_ref_add(d, &reg[i]);
	vu_rings_remap(d);
	/* The kernel's table changes before the old mappings go */
	ret = vhost_port_set_mem(&d->vp, d->pairs, d->cfg.queues, d->mem);
	vu_resume_all(d);
	gmem_cleanup(old);
	free(old);
	if (ret)
		return vu_fail(d, ret, "vhost-net refused the memory table");
	return 0;
}

/**
 * vu_add_mem_reg() - ADD_MEM_REG: map one more region (memory hotplug)
 * @d:		Device
 * @m:		Message: one region, one fd
 * @idx:	Unused
 *
 * Adding a region identical (gpa, size, uva) to one we have only counts
 * it: QEMU sends every region once per queue pair over one connection.
 *
 * Return: 0 or -errno
 */
int vu_add_mem_reg(struct vu_dev *d, struct vu_msg *m, unsigned int idx UNUSED)
{
	struct vu_mem_region r = m->payload.mem_reg.region;
	struct vu_mem_ref *ref = vu_mem_ref_find(d, &r);
	int ret;

	/* The same region again (another queue pair's vhost device): count */
	if (ref) {
		ref->refs++;
		return 0;
	}
	if (d->mem->nregions >= GMEM_MAX_REGIONS)
		return vu_fail(d, -ENOSPC, "all %u memory slots used",
			       GMEM_MAX_REGIONS);
	vu_pause_all(d);
	ret = vu_region_map(d, d->mem, &r, m->fds[0], d->mem->nregions);
	if (!ret) {
		vu_mem_ref_add(d, &r);
		ret = vhost_port_set_mem(&d->vp, d->pairs, d->cfg.queues,
					 d->mem);
		if (ret)
			vu_fail(d, ret, "vhost-net refused the memory table");
	}
	vu_resume_all(d);
	return ret;
}

/*
 * REM_MEM_REG under offloaded pairs: the kernel gets the table without
 * the region while it is still mapped. A refusal gives pairs back to the
 * userspace path (auto) or is logged (on: the region goes regardless).
 */
static void vu_offload_rem_mem(struct vu_dev *d, const struct vu_mem_region *r)
{
	struct gmem *cp;
	uint32_t i;

	for (i = 0; i < d->cfg.queues; i++)
		if (vhost_port_offloaded(&d->vp, i))
			break;
	if (i == d->cfg.queues)
		return;
	cp = malloc(sizeof(*cp));
	if (!cp) {
		log_warn("%s: REM_MEM_REG: no memory for the kernel's table",
			 d->cfg.name);
		return;
	}
	memcpy(cp, d->mem, sizeof(*cp));
	for (i = 0; i < cp->nregions; i++)
		cp->regions[i].map_base = NULL;	/* a view: unmap nothing */
	if (!gmem_remove_region(cp, r->guest_phys_addr, r->memory_size,
				r->userspace_addr) &&
	    vhost_port_set_mem(&d->vp, d->pairs, d->cfg.queues, cp))
		log_warn("%s: REM_MEM_REG: vhost-net refused the new table",
			 d->cfg.name);
	free(cp);
}

/**
 * vu_rem_mem_reg() - REM_MEM_REG: unmap one region
 * @d:		Device
 * @m:		Message: the region, identified by gpa, size and uva; an fd,
 *		if any, is closed unused (vhost-user "REM_MEM_REG")
 * @idx:	Unused
 *
 * A region added N times is unmapped by the Nth removal.
 *
 * Return: 0, -ENOENT for a region we do not have
 */
int vu_rem_mem_reg(struct vu_dev *d, struct vu_msg *m, unsigned int idx UNUSED)
{
	struct vu_mem_region r = m->payload.mem_reg.region;
	struct vu_mem_ref *ref = vu_mem_ref_find(d, &r);
	int ret;

	if (!ref)
		return vu_fail(d, -ENOENT, "no region %#llx+%#llx at uva %#llx",
			       (unsigned long long)r.guest_phys_addr,
			       (unsigned long long)r.memory_size,
			       (unsigned long long)r.userspace_addr);
	if (--ref->refs)
		return 0;	/* another vhost device still uses it */
	*ref = d->mem_refs[--d->nmem_refs];
	vu_pause_all(d);
	vu_offload_rem_mem(d, &r);	/* the kernel first: before the unmap */
	ret = gmem_remove_region(d->mem, r.guest_phys_addr, r.memory_size,
				 r.userspace_addr);
	vu_rings_remap(d);
	vu_resume_all(d);
	if (ret)
		return vu_fail(d, ret, "region removal failed");
	return 0;
}

/**
 * vu_set_log_base() - SET_LOG_BASE with LOG_SHMFD: map the dirty log
 * @d:		Device
 * @m:		Message: size and offset, one fd; answered with u64 0
 * @idx:	Unused
 *
 * Return: 0 or -errno (the previous log stays)
 */
int vu_set_log_base(struct vu_dev *d, struct vu_msg *m, unsigned int idx UNUSED)
{
	struct vu_log l = m->payload.log;
	struct gmem_log nl = { 0 }, old;
	unsigned int i;
	int ret;

	if (!l.mmap_size)
		return vu_fail(d, -EINVAL, "empty log");
	ret = vu_fd_covers(d, m->fds[0], l.mmap_offset, l.mmap_size, "log");
	if (ret)
		return ret;
	ret = gmem_log_map(&nl, m->fds[0], l.mmap_size, l.mmap_offset);
	if (ret)
		return vu_fail(d, ret, "log mapping failed: %s", strerror(-ret));
	vu_pause_all(d);
	old = d->log;
	d->log = nl;
	for (i = 0; i < 2 * d->cfg.queues; i++)
		vu_ring_update_log(d, i);
	/* The kernel switches to the new log before the old one goes */
	ret = vu_offload_log(d);
	vu_resume_all(d);
	gmem_log_unmap(&old);
	if (ret)
		return ret;
	m->hdr.size = sizeof(uint64_t);
	m->payload.u64 = 0;
	return 0;
}

/**
 * vu_set_vring_num() - SET_VRING_NUM: the ring's size
 * @d:		Device
 * @m:		Message
 * @idx:	Ring index
 *
 * Return: 0, -EINVAL for 0, > 32768 or (split) not a power of two,
 *	   -EBUSY while the ring runs
 */
int vu_set_vring_num(struct vu_dev *d, struct vu_msg *m, unsigned int idx)
{
	uint32_t num = m->payload.state.num;

	/* virtio 2.7 / 2.8: Queue Size <= 32768; split needs a power of 2 */
	if (!num || num > VQ_MAX_SIZE ||
	    (!vu_packed(d) && (num & (num - 1))))
		return vu_fail(d, -EINVAL, "ring %u size %u", idx, num);
	if (vu_vring(d, idx)->started)
		return vu_fail(d, -EBUSY, "ring %u resized while running", idx);
	d->rings[idx].num = num;
	return 0;
}

/**
 * vu_set_vring_addr() - SET_VRING_ADDR: where the ring's areas are
 * @d:		Device
 * @m:		Message, frontend virtual addresses
 * @idx:	Ring index
 *
 * Accepted on a running ring too: QEMU re-sends it to switch used-ring
 * logging on for migration. A pair the kernel's vhost-net runs gets the
 * new addresses and log flag passed on (vhost_port_ring_addr()).
 *
 * Return: 0 or -errno: before SET_VRING_NUM or SET_MEM_TABLE, unknown
 *	   flags, unaligned or unmapped areas
 */
int vu_set_vring_addr(struct vu_dev *d, struct vu_msg *m, unsigned int idx)
{
	struct vu_vring_addr a = m->payload.addr;
	struct vnet_ring *vr = vu_vring(d, idx);
	struct vu_ring *r = &d->rings[idx];
	uint64_t uva[3] = { a.desc_user_addr, a.avail_user_addr,
			    a.used_user_addr };
	bool running = vr->started;
	void *p[3];
	int ret;

	if (a.flags & ~(1u << VHOST_VRING_F_LOG))
		return vu_fail(d, -EINVAL, "ring %u: flags %#x", idx, a.flags);
	if (!r->num)
		return vu_fail(d, -EINVAL, "ring %u: addresses before its size",
			       idx);
	if (!d->mem->nregions)
		return vu_fail(d, -EINVAL, "ring %u: addresses before memory",
			       idx);
	ret = vu_ring_translate(d, idx, r->num, uva, p);
	if (ret)
		return ret;
	vu_pause(d, idx);
	r->desc_uva = a.desc_user_addr;
	r->avail_uva = a.avail_user_addr;
	r->used_uva = a.used_user_addr;
	r->log_gpa = a.log_guest_addr;
	r->addr_flags = a.flags;
	r->addr_set = true;
	if (running)
		ret = vq_set_addr(&vr->vq, p[0], p[1], p[2]);
	else
		ret = vu_ring_try_start(d, idx);
	vu_ring_update_log(d, idx);
	/* an offloaded ring: the kernel follows (new areas, log flag) */
	if (!ret && running &&
	    vhost_port_ring_addr(&d->vp, &d->pairs[idx / 2]))
		ret = vu_fail(d, -EIO, "ring %u: vhost-net refused the new ring "
			      "addresses: %s", idx,
			      d->pairs[idx / 2].why);
	vu_resume(d, idx);
	return ret;
}

/**
 * vu_set_vring_base() - SET_VRING_BASE: where the ring resumes
 * @d:		Device
 * @m:		Message: split avail idx, or the packed encoding
 * @idx:	Ring index
 *
 * Return: 0, -EBUSY while the ring runs, -EINVAL for a bad base
 */
int vu_set_vring_base(struct vu_dev *d, struct vu_msg *m, unsigned int idx)
{
	uint32_t base = m->payload.state.num;
	int ret;

	if (vu_vring(d, idx)->started)
		return vu_fail(d, -EBUSY, "ring %u: base set while running",
			       idx);
	ret = vu_base_check(d, idx, base, d->rings[idx].num);
	if (ret)
		return ret;
	d->rings[idx].base = base;
	return 0;
}

/**
 * vu_get_vring_base() - GET_VRING_BASE: stop the ring, report where
 * @d:		Device
 * @m:		Message; the reply is built in it
 * @idx:	Ring index
 *
 * vhost-user "GET_VRING_BASE": the ring stops and is not reset. Split:
 * the next avail index; packed: avail idx/wrap in bits 0-15, used idx/wrap
 * in bits 16-31.
 *
 * Return: 0
 */
int vu_get_vring_base(struct vu_dev *d, struct vu_msg *m, unsigned int idx)
{
	vu_pause(d, idx);
	/* The kernel's position first: vu_ring_stop() reads it from the vq */
	vhost_port_ring_stop(&d->vp, &d->pairs[idx / 2], idx);
	vu_ring_stop(d, idx);
	vu_resume(d, idx);
	m->payload.state.index = idx;
	m->payload.state.num = d->rings[idx].base;
	m->hdr.size = sizeof(m->payload.state);
	return 0;
}

/* A running ring's kick/call/err fd changed: the kernel takes the new one */
static int vu_ring_fds_changed(struct vu_dev *d, unsigned int idx)
{
	int ret;

	if (!vu_vring(d, idx)->started)
		return 0;
	ret = vhost_port_ring_fds(&d->vp, &d->pairs[idx / 2], idx);
	if (ret)
		return vu_fail(d, ret, "ring %u: vhost-net refused the new fds",
			       idx);
	return 0;
}

/**
 * vu_set_vring_kick() - SET_VRING_KICK: the guest's kick eventfd
 * @d:		Device
 * @m:		Message: ring index, bit 8 for "no fd: poll"
 * @idx:	Ring index
 *
 * Replaces (and closes) a previous kick fd and starts the ring if its size
 * and addresses are known; otherwise it starts when they arrive.
 *
 * Return: 0 or -errno if the ring's values do not hold up
 */
int vu_set_vring_kick(struct vu_dev *d, struct vu_msg *m, unsigned int idx)
{
	struct vnet_ring *vr = vu_vring(d, idx);
	int fd = vu_msg_take_fd(m, 0), ret;
	bool running;

	vu_pause(d, idx);
	running = vr->started;
	vu_close_fd(&vr->kick_fd);
	vr->kick_fd = fd;
	d->rings[idx].kicked = true;
	if (running)
		ret = vu_ring_fds_changed(d, idx);
	else
		ret = vu_ring_try_start(d, idx);
	vu_resume(d, idx);
	return ret;
}

/* Replace one of a ring's eventfds (call or err) with the pair paused */
static int vu_swap_ring_fd(struct vu_dev *d, unsigned int idx, int *slot,
			   int fd)
{
	int ret;

	vu_pause(d, idx);
	vu_close_fd(slot);
	*slot = fd;
	ret = vu_ring_fds_changed(d, idx);
	vu_resume(d, idx);
	return ret;
}

/**
 * vu_set_vring_call() - SET_VRING_CALL: our notification eventfd
 * @d:		Device
 * @m:		Message: ring index, bit 8 for "no fd"
 * @idx:	Ring index
 *
 * May come while the ring runs: the swap happens with the pair paused.
 *
 * Return: 0
 */
int vu_set_vring_call(struct vu_dev *d, struct vu_msg *m, unsigned int idx)
{
	return vu_swap_ring_fd(d, idx, &vu_vring(d, idx)->call_fd,
			       vu_msg_take_fd(m, 0));
}

/**
 * vu_set_vring_err() - SET_VRING_ERR: eventfd signalled when the ring breaks
 * @d:		Device
 * @m:		Message: ring index, bit 8 for "no fd"
 * @idx:	Ring index
 *
 * Return: 0
 */
int vu_set_vring_err(struct vu_dev *d, struct vu_msg *m, unsigned int idx)
{
	return vu_swap_ring_fd(d, idx, &vu_vring(d, idx)->err_fd,
			       vu_msg_take_fd(m, 0));
}

/**
 * vu_set_vring_enable() - SET_VRING_ENABLE: ring enabled (1) or not (0)
 * @d:		Device
 * @m:		Message
 * @idx:	Ring index
 *
 * vhost-user "Ring states": a started, disabled ring drains TX and leaves
 * RX alone; the worker reads the flag after resuming.
 *
 * Return: 0, -EINVAL for a value other than 0 or 1
 */
int vu_set_vring_enable(struct vu_dev *d, struct vu_msg *m, unsigned int idx)
{
	uint32_t on = m->payload.state.num;
	int ret;

	if (on > 1)
		return vu_fail(d, -EINVAL, "ring %u: enable value %u", idx, on);
	vu_pause(d, idx);
	vu_vring(d, idx)->enabled = on;
	ret = vhost_port_ring_enable(&d->vp, &d->pairs[idx / 2], idx, on);
	vu_resume(d, idx);
	if (ret)
		return vu_fail(d, ret, "ring %u: vhost-net refused %s", idx,
			       on ? "enable" : "disable");
	return 0;
}
