// SPDX-License-Identifier: MIT
/*
 * gmem.c - guest memory: the region table, mapping the frontend's fds, and
 * translation of guest-physical / frontend-virtual ranges to our addresses.
 *
 * Leaves to others: which addresses to translate (rings, vhost-user) and
 * what to do on failure (the caller breaks a queue or fails a message).
 *
 * Security model: every address and length given to the translation
 * functions comes from a guest (descriptors) or a frontend (vhost-user
 * messages) and is untrusted. Arithmetic is overflow-checked, a range is
 * accepted only if every byte lies inside a region, and the answer always
 * carries its length: a bad range yields an error, never a pointer outside
 * our mappings. The region table itself is written only by the control
 * thread from validated messages (no overlaps, no wrap-around).
 *
 * The files behind the mappings stay the frontend's: it may shrink one at
 * any time after we mapped it, and our next access past the new end raises
 * SIGBUS. A file sealed with F_SEAL_SHRINK (QEMU's memfds) cannot shrink;
 * every other mapping is registered with guard.c, whose handler turns such
 * a fault into a jump back to the accessing thread's recovery point.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gmem.h"
#include "guard.h"
#include "util.h"

/* #syscalls: mmap munmap fstat newfstatat fcntl */

/**
 * gmem_init() - Start with an empty memory table
 * @m:		Table to initialise
 */
void gmem_init(struct gmem *m)
{
	m->nregions = 0;
}

/* Index of the first region whose end is above @gpa (binary search) */
static uint32_t gmem_lower_bound(const struct gmem *m, uint64_t gpa)
{
	uint32_t lo = 0, hi = m->nregions;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct gmem_region *r = &m->regions[mid];

		if (gpa - r->gpa >= r->size && gpa >= r->gpa)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Region holding @gpa, or NULL */
static const struct gmem_region *gmem_find(const struct gmem *m, uint64_t gpa)
{
	const struct gmem_region *r;
	uint32_t i;

	/* Fast path: most VMs have one or two regions */
	if (m->nregions && gpa - m->regions[0].gpa < m->regions[0].size)
		return &m->regions[0];

	i = gmem_lower_bound(m, gpa);
	if (i >= m->nregions)
		return NULL;
	r = &m->regions[i];
	if (gpa < r->gpa || gpa - r->gpa >= r->size)
		return NULL;
	return r;
}

static int gmem_insert(struct gmem *m, const struct gmem_region *nr)
{
	uint32_t i;

	if (!nr->size || add_overflows(nr->gpa, nr->size - 1) ||
	    add_overflows(nr->uva, nr->size - 1))
		return -EINVAL;
	if (m->nregions >= GMEM_MAX_REGIONS)
		return -ENOSPC;

	i = gmem_lower_bound(m, nr->gpa);
	/* Overlap with the region at i (ends above gpa) or the one before? */
	if (i < m->nregions && m->regions[i].gpa <= nr->gpa + (nr->size - 1))
		return -EEXIST;

	memmove(&m->regions[i + 1], &m->regions[i],
		(m->nregions - i) * sizeof(m->regions[0]));
	m->regions[i] = *nr;
	m->nregions++;
	return 0;
}

/**
 * gmem_add_region() - Add a region we already have a mapping for
 * @m:		Memory table
 * @gpa:	Guest physical address of the first byte
 * @size:	Length in bytes, not 0
 * @uva:	Frontend virtual address of the first byte
 * @host:	Our address of the first byte (not unmapped on removal)
 *
 * Context: control thread, data path quiesced
 * Return: 0, -EINVAL (empty or wrapping range), -EEXIST (overlap),
 *	   -ENOSPC (table full)
 */
int gmem_add_region(struct gmem *m, uint64_t gpa, uint64_t size, uint64_t uva,
		    void *host)
{
	struct gmem_region r = {
		.gpa = gpa, .size = size, .uva = uva, .host = host,
	};

	if (!host)
		return -EINVAL;
	return gmem_insert(m, &r);
}

/*
 * A regular file (memfd, hugetlbfs, tmpfs) must hold @offset + @size bytes:
 * a mapping past its end would SIGBUS on the first access (vhost-user
 * "Memory regions"). Other fd types are left to mmap() to judge.
 */
static int gmem_fd_covers(int fd, uint64_t offset, uint64_t size)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISREG(st.st_mode) && (st.st_size < 0 ||
				    (uint64_t)st.st_size < offset + size))
		return -EINVAL;
	return 0;
}

/*
 * A file that carries F_SEAL_SHRINK cannot shrink: nothing to guard. Any
 * other (no seals, sealing not supported, not a memfd) is registered with
 * guard.c so a shrink costs the connection, not the process.
 */
static int gmem_guard(int fd, void *host, uint64_t size, enum guard_kind kind,
		      uint64_t gpa)
{
	int seals = fcntl(fd, F_GET_SEALS);

	if (seals >= 0 && (seals & F_SEAL_SHRINK))
		return 0;
	return guard_register(host, size, kind, gpa);
}

/*
 * Map @size bytes at @offset of @fd shared and writable, after checking the
 * range (overflow, @fd long enough). mmap() wants a page-aligned offset, so
 * the mapping starts at the page holding @offset: *@base and *@map_len are
 * what to munmap(), *@host is our address of byte @offset.
 */
static int gmem_mmap_fd(int fd, uint64_t offset, uint64_t size, void **base,
			uint64_t *map_len, uint8_t **host, enum guard_kind kind,
			uint64_t gpa)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t delta = offset & (page - 1);
	void *p;
	int ret;

	if (!size || add_overflows(size, delta) || size + delta > SIZE_MAX ||
	    add_overflows(offset, size))
		return -EINVAL;
	ret = gmem_fd_covers(fd, offset, size);
	if (ret)
		return ret;
	p = mmap(NULL, size + delta, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)(offset - delta));
	if (p == MAP_FAILED)
		return -errno;
	ret = gmem_guard(fd, (uint8_t *)p + delta, size, kind, gpa);
	if (ret) {
		munmap(p, size + delta);
		return ret;
	}
	*base = p;
	*map_len = size + delta;
	*host = (uint8_t *)p + delta;
	return 0;
}

/* Undo gmem_mmap_fd(): out of the guard registry first, then unmapped */
static void gmem_munmap(void *base, uint64_t map_len, void *host)
{
	guard_unregister(host);
	munmap(base, map_len);
}

/**
 * gmem_map_region() - mmap() a region from a frontend's fd and add it
 * @m:		Memory table
 * @fd:		File descriptor (not closed here: the caller owns it)
 * @gpa:	Guest physical address of the first byte
 * @size:	Length in bytes, not 0
 * @uva:	Frontend virtual address of the first byte
 * @mmap_offset: Offset of @gpa within @fd
 *
 * Context: control thread, data path quiesced
 * Return: 0 or -errno (-EINVAL bad range or @fd shorter than
 *	   @mmap_offset + @size, -EEXIST overlap, fstat()/mmap() errors)
 */
int gmem_map_region(struct gmem *m, int fd, uint64_t gpa, uint64_t size,
		    uint64_t uva, uint64_t mmap_offset)
{
	struct gmem_region r = {
		.gpa = gpa, .size = size, .uva = uva,
		.mmap_offset = mmap_offset,
	};
	int ret;

	ret = gmem_mmap_fd(fd, mmap_offset, size, &r.map_base, &r.map_len,
			   &r.host, GUARD_REGION, gpa);
	if (ret)
		return ret;

	ret = gmem_insert(m, &r);
	if (ret)
		goto err_unmap;
	return 0;

err_unmap:
	gmem_munmap(r.map_base, r.map_len, r.host);
	return ret;
}

/**
 * gmem_remove_region() - Remove (and unmap, if ours) one region
 * @m:		Memory table
 * @gpa:	Guest physical address the region was added with
 * @size:	Its size
 * @uva:	Its frontend virtual address
 *
 * Context: control thread, data path quiesced
 * Return: 0, or -ENOENT if no region matches all three
 */
int gmem_remove_region(struct gmem *m, uint64_t gpa, uint64_t size,
		       uint64_t uva)
{
	uint32_t i;

	for (i = 0; i < m->nregions; i++) {
		struct gmem_region *r = &m->regions[i];

		if (r->gpa != gpa || r->size != size || r->uva != uva)
			continue;
		if (r->map_base)
			gmem_munmap(r->map_base, r->map_len, r->host);
		memmove(r, r + 1, (m->nregions - i - 1) * sizeof(*r));
		m->nregions--;
		return 0;
	}
	return -ENOENT;
}

/**
 * gmem_cleanup() - Unmap every region we mapped and empty the table
 * @m:		Memory table
 *
 * Context: control thread, data path quiesced
 */
void gmem_cleanup(struct gmem *m)
{
	uint32_t i;

	for (i = 0; i < m->nregions; i++) {
		if (m->regions[i].map_base)
			gmem_munmap(m->regions[i].map_base,
				    m->regions[i].map_len, m->regions[i].host);
	}
	m->nregions = 0;
}

/**
 * gmem_translate() - Translate a guest-physical range into our addresses
 * @m:		Memory table
 * @gpa:	Guest physical address (untrusted)
 * @len:	Length in bytes (untrusted); 0 yields no iovec
 * @iov:	Output: one entry per region the range touches
 * @max_iov:	Room in @iov
 *
 * A range spanning adjacent regions yields one iovec per region, in order.
 *
 * Context: data path, lock-free (the table changes only while quiesced)
 * Return: number of iovecs written, -EFAULT if any byte is outside every
 *	   region (or the range wraps), -ENOBUFS if @max_iov is too small
 */
int gmem_translate(const struct gmem *m, uint64_t gpa, uint64_t len,
		   struct iovec *iov, unsigned int max_iov)
{
	unsigned int n = 0;

	if (len && add_overflows(gpa, len - 1))
		return -EFAULT;

	while (len) {
		const struct gmem_region *r = gmem_find(m, gpa);
		uint64_t off, chunk;

		if (!r)
			return -EFAULT;
		if (n >= max_iov)
			return -ENOBUFS;
		off = gpa - r->gpa;
		chunk = MIN(len, r->size - off);
		iov[n].iov_base = r->host + off;
		iov[n].iov_len = chunk;
		n++;
		gpa += chunk;
		len -= chunk;
	}
	return (int)n;
}

/**
 * gmem_region_index() - Which region holds a guest physical address
 * @m:		Memory table
 * @gpa:	Guest physical address (untrusted)
 *
 * Return: index into @m->regions, or -1 if no region holds @gpa
 */
int gmem_region_index(const struct gmem *m, uint64_t gpa)
{
	const struct gmem_region *r = gmem_find(m, gpa);

	return r ? (int)(r - m->regions) : -1;
}

/**
 * gmem_gpa_ptr() - Our address of a guest-physical range inside one region
 * @m:		Memory table
 * @gpa:	Guest physical address (untrusted)
 * @len:	Length that must be contiguous in our mapping (untrusted)
 *
 * Return: pointer valid for @len bytes, or NULL if the range is not wholly
 *	   inside a single region
 */
void *gmem_gpa_ptr(const struct gmem *m, uint64_t gpa, uint64_t len)
{
	const struct gmem_region *r = gmem_find(m, gpa);

	if (!r || len > r->size - (gpa - r->gpa))
		return NULL;
	return r->host + (gpa - r->gpa);
}

/**
 * gmem_uva_ptr() - Our address of a frontend-virtual range inside one region
 * @m:		Memory table
 * @uva:	Frontend virtual address (untrusted, e.g. SET_VRING_ADDR)
 * @len:	Length that must lie inside the region (untrusted)
 *
 * Context: control thread (linear search)
 * Return: pointer valid for @len bytes, or NULL
 */
void *gmem_uva_ptr(const struct gmem *m, uint64_t uva, uint64_t len)
{
	uint32_t i;

	for (i = 0; i < m->nregions; i++) {
		const struct gmem_region *r = &m->regions[i];

		if (uva < r->uva || uva - r->uva >= r->size)
			continue;
		if (len > r->size - (uva - r->uva))
			return NULL;
		return r->host + (uva - r->uva);
	}
	return NULL;
}

/**
 * gmem_uva_to_gpa() - Guest physical address of a frontend virtual address
 * @m:		Memory table
 * @uva:	Frontend virtual address (untrusted)
 * @gpa:	Output
 *
 * Context: control thread (linear search)
 * Return: 0, or -EFAULT if @uva is in no region
 */
int gmem_uva_to_gpa(const struct gmem *m, uint64_t uva, uint64_t *gpa)
{
	uint32_t i;

	for (i = 0; i < m->nregions; i++) {
		const struct gmem_region *r = &m->regions[i];

		if (uva >= r->uva && uva - r->uva < r->size) {
			*gpa = r->gpa + (uva - r->uva);
			return 0;
		}
	}
	return -EFAULT;
}

/**
 * gmem_read() - Copy a guest-physical range (possibly spanning regions) out
 * @m:		Memory table
 * @gpa:	Guest physical address (untrusted)
 * @dst:	Destination, @len bytes
 * @len:	Bytes to copy
 *
 * Used for small structures that must be read as a whole even when the
 * guest placed them across a region boundary (indirect tables).
 *
 * Return: 0, or -EFAULT if any byte is outside guest memory
 */
int gmem_read(const struct gmem *m, uint64_t gpa, void *dst, uint64_t len)
{
	uint8_t *out = dst;

	if (len && add_overflows(gpa, len - 1))
		return -EFAULT;
	while (len) {
		const struct gmem_region *r = gmem_find(m, gpa);
		uint64_t off, chunk;

		if (!r)
			return -EFAULT;
		off = gpa - r->gpa;
		chunk = MIN(len, r->size - off);
		memcpy(out, r->host + off, chunk);
		out += chunk;
		gpa += chunk;
		len -= chunk;
	}
	return 0;
}

/**
 * gmem_log_map() - Map the frontend's dirty log (SET_LOG_BASE)
 * @log:	Log to fill; a previous mapping is unmapped on success
 * @fd:		File descriptor (not closed here: the caller owns it)
 * @size:	Bitmap size in bytes
 * @offset:	Offset of the bitmap in @fd
 *
 * Context: control thread, data path quiesced
 * Return: 0 or -errno (-EINVAL bad range or @fd shorter than @offset +
 *	   @size)
 */
int gmem_log_map(struct gmem_log *log, int fd, uint64_t size, uint64_t offset)
{
	uint64_t map_len;
	uint8_t *host;
	void *base;
	int ret;

	ret = gmem_mmap_fd(fd, offset, size, &base, &map_len, &host, GUARD_LOG,
			   0);
	if (ret)
		return ret;

	gmem_log_unmap(log);
	log->map_base = base;
	log->map_len = map_len;
	log->base = host;
	log->size = size;
	return 0;
}

/**
 * gmem_log_unmap() - Drop the dirty log mapping (if ours)
 * @log:	Log
 *
 * Context: control thread, data path quiesced
 */
void gmem_log_unmap(struct gmem_log *log)
{
	if (log->map_base)
		gmem_munmap(log->map_base, log->map_len, log->base);
	memset(log, 0, sizeof(*log));
}

/**
 * gmem_log_write() - Mark the pages of a guest range dirty
 * @log:	Log (ignored if it has no bitmap)
 * @gpa:	First byte written
 * @len:	Bytes written (0: nothing)
 *
 * Pages beyond the bitmap are ignored: the frontend sized it. Pages whose
 * bit was clear are counted in @log->pages (for status): the count of one
 * call is added once, and only if it is not zero, so a batch of frames
 * into pages already dirty costs no shared write.
 *
 * Context: data path; atomic OR, the frontend reads the bitmap concurrently
 */
void gmem_log_write(struct gmem_log *log, uint64_t gpa, uint64_t len)
{
	uint64_t page, last, fresh = 0;
	uint8_t bit, old;

	if (!log || !log->base || !len)
		return;
	page = gpa / GMEM_LOG_PAGE;
	last = add_overflows(gpa, len - 1) ? UINT64_MAX / GMEM_LOG_PAGE :
					     (gpa + len - 1) / GMEM_LOG_PAGE;
	for (; page <= last && page / 8 < log->size; page++) {
		bit = (uint8_t)(1u << (page % 8));
		old = __atomic_fetch_or(&log->base[page / 8], bit,
					__ATOMIC_RELAXED);
		fresh += !(old & bit);
	}
	if (fresh && log->pages)
		__atomic_fetch_add(log->pages, fresh, __ATOMIC_RELAXED);
}
