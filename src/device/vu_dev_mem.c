// SPDX-License-Identifier: MIT
/*
 * vu_dev_mem.c - the vhost-user device's memory layer (vu_dev_mem.h), on
 * vu_dev_core: the memory table (SET_MEM_TABLE, ADD/REM_MEM_REG,
 * GET_MAX_MEM_SLOTS), the dirty log (SET_LOG_BASE, SET_LOG_FD, pointing
 * each ring's vq at the log) and where a ring's areas lie in that memory
 * (translation, re-translation after every memory change). Ring messages
 * are vu_dev_ring.c's; the dispatcher (vu_backend.c) has checked size,
 * descriptor count and ring index before any handler here runs.
 *
 * Security model: payloads come from the untrusted frontend. Each is copied
 * once into locals and only the copies are validated and used. Region
 * descriptors are checked with fstat() before mmap() (a truncated memfd
 * would SIGBUS the data path), sizes and offsets are overflow-checked,
 * regions may not overlap, and ring areas are checked for alignment and for
 * lying wholly inside mapped memory before a worker may touch them. The
 * data path is quiesced (worker_pause) around every change it could see,
 * and rings are re-translated after every memory-table change.
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
#include "vu_dev_mem.h"
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

/**
 * vu_ring_translate() - The three areas of ring @idx in guest memory
 * @d:		Device
 * @idx:	Ring index
 * @num:	Ring size the areas must hold
 * @uva:	Descriptor, driver and device areas, frontend addresses
 * @p:		Our addresses of the same (output)
 *
 * Return: 0, -EINVAL for a misaligned area, -EFAULT for one not wholly in
 *	   guest memory (reason recorded)
 */
int vu_ring_translate(struct vu_dev *d, unsigned int idx,
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

/**
 * vu_ring_uvas() - The frontend addresses SET_VRING_ADDR gave ring @r
 * @r:		Ring configuration
 * @uva:	Descriptor, driver and device areas (output)
 */
void vu_ring_uvas(const struct vu_ring *r, uint64_t uva[3])
{
	uva[0] = r->desc_uva;
	uva[1] = r->avail_uva;
	uva[2] = r->used_uva;
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
	if (!(d->features & BIT(VHOST_F_LOG_ALL_BIT)) || !d->log.base) {
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

/**
 * vu_offload_log() - Dirty logging changed (log mapped, LOG_ALL toggled):
 *		      tell the kernel for the pairs it runs
 * @d:		Device, every pair paused
 *
 * Return: 0, or under `--vhost-net on` -errno
 */
int vu_offload_log(struct vu_dev *d)
{
	bool on = (d->features & BIT(VHOST_F_LOG_ALL_BIT)) && d->log.base;
	int ret;

	ret = vhost_port_set_log(&d->vp, d->pairs, d->cfg.queues, d->mem,
				 on ? &d->log : NULL, d->log_fd);
	if (ret)
		return vu_fail(d, ret, "vhost-net refused the dirty log");
	return 0;
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
		log_warn("%s: ring %u stopped: %s", d->cfg.name, i, d->why.msg);
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

/* Keeps @fd (an upgrade hands it on, vu_dev_upgrade.c), closes it if full */
static void vu_mem_ref_add(struct vu_dev *d, const struct vu_mem_region *r,
			   int fd)
{
	struct vu_mem_ref *ref;

	if (d->nmem_refs >= GMEM_MAX_REGIONS) {	/* gmem refused it before */
		if (fd >= 0)
			close(fd);
		return;
	}
	ref = &d->mem_refs[d->nmem_refs++];
	ref->gpa = r->guest_phys_addr;
	ref->size = r->memory_size;
	ref->uva = r->userspace_addr;
	ref->refs = 1;
	ref->fd = fd;
}

static void vu_mem_refs_close(struct vu_dev *d)
{
	uint32_t i;

	for (i = 0; i < d->nmem_refs; i++)
		if (d->mem_refs[i].fd >= 0)
			close(d->mem_refs[i].fd);
	d->nmem_refs = 0;
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
	vu_mem_refs_close(d);
	for (i = 0; i < n; i++)
		vu_mem_ref_add(d, &reg[i], vu_msg_take_fd(m, i));
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
		vu_mem_ref_add(d, &r, vu_msg_take_fd(m, 0));
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
	if (ref->fd >= 0)
		close(ref->fd);
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
	nl.pages = &d->log_pages;	/* the port's count goes on across logs */
	vu_pause_all(d);
	old = d->log;
	d->log = nl;
	for (i = 0; i < 2 * d->cfg.queues; i++)
		vu_ring_update_log(d, i);
	/* The kernel switches to the new log before the old one goes */
	ret = vu_offload_log(d);
	vu_resume_all(d);
	gmem_log_unmap(&old);
	/* The mapping's descriptor goes on to a successor (vu_dev_upgrade.c) */
	if (d->log_mem_fd >= 0)
		close(d->log_mem_fd);
	d->log_mem_fd = vu_msg_take_fd(m, 0);
	d->log_req = l;
	if (ret)
		return ret;
	m->hdr.size = sizeof(uint64_t);
	m->payload.u64 = 0;
	return 0;
}

/**
 * vu_set_log_fd() - SET_LOG_FD: the eventfd for log-sync notifications
 * @d:		Device
 * @m:		Message: one fd, kept (a previous one is closed)
 * @idx:	Unused
 *
 * Return: 0
 */
int vu_set_log_fd(struct vu_dev *d, struct vu_msg *m, unsigned int idx UNUSED)
{
	if (d->log_fd >= 0)
		close(d->log_fd);
	d->log_fd = vu_msg_take_fd(m, 0);
	return 0;
}

/**
 * vu_get_max_mem_slots() - GET_MAX_MEM_SLOTS: how many regions we map
 * @d:		Device
 * @m:		Message; the u64 reply is built in it
 * @idx:	Unused
 *
 * Return: 0
 */
int vu_get_max_mem_slots(struct vu_dev *d, struct vu_msg *m,
			 unsigned int idx UNUSED)
{
	/* With vhost-net possible: the kernel's max_mem_regions if lower */
	vu_reply_u64(m, vhost_port_max_mem_slots(&d->vp, GMEM_MAX_REGIONS));
	return 0;
}

/**
 * vu_mem_reset() - Forget the connection's memory table and dirty log
 * @d:		Device, every pair paused, no ring running (vu_ring_reset())
 */
void vu_mem_reset(struct vu_dev *d)
{
	gmem_cleanup(d->mem);
	gmem_init(d->mem);
	vu_mem_refs_close(d);
	gmem_log_unmap(&d->log);
	memset(&d->log, 0, sizeof(d->log));
	if (d->log_mem_fd >= 0)
		close(d->log_mem_fd);
	d->log_mem_fd = -1;
	if (d->log_fd >= 0)
		close(d->log_fd);
	d->log_fd = -1;
}
