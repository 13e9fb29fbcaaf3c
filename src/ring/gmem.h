/* SPDX-License-Identifier: MIT */
/*
 * gmem.h - guest memory: a table of regions and address translation with
 * length. Knows nothing of rings or sockets.
 */
#ifndef VNET_GMEM_H
#define VNET_GMEM_H

#include <stdint.h>
#include <sys/uio.h>

/* What vhost-user's CONFIGURE_MEM_SLOTS allows at most */
#define GMEM_MAX_REGIONS	509
/* Dirty log granularity: one bit per 4 KiB page (vhost-user spec, "Migration") */
#define GMEM_LOG_PAGE		4096

/**
 * struct gmem_region - One guest memory region
 * @gpa:	Guest physical address of the first byte
 * @size:	Length in bytes (never 0)
 * @uva:	Frontend (VMM) virtual address of the first byte
 * @mmap_offset: Offset of @gpa within the fd the region was mapped from
 * @host:	Our address of @gpa
 * @map_base:	What to munmap() on removal, NULL if the memory is not ours
 * @map_len:	Length of the mapping at @map_base
 */
struct gmem_region {
	uint64_t gpa;
	uint64_t size;
	uint64_t uva;
	uint64_t mmap_offset;
	uint8_t *host;
	void *map_base;
	uint64_t map_len;
};

/**
 * struct gmem - Guest memory table, sorted by @gpa, no overlaps
 * @nregions:	Regions in use
 * @regions:	The regions
 *
 * Written by the control thread while every data path user is quiesced;
 * read without locks by the data path.
 */
struct gmem {
	uint32_t nregions;
	struct gmem_region regions[GMEM_MAX_REGIONS];
};

/**
 * struct gmem_log - Dirty page bitmap shared with the frontend (live migration)
 * @base:	Start of the bitmap (bit N = guest page N)
 * @size:	Bitmap size in bytes
 * @map_base:	What to munmap(), NULL if not ours
 * @map_len:	Length of that mapping
 * @pages:	Pages newly marked dirty are added here (relaxed atomic, one
 *		add per gmem_log_write()), NULL: not counted; the caller's,
 *		it outlives the mapping
 */
struct gmem_log {
	uint8_t *base;
	uint64_t size;
	void *map_base;
	uint64_t map_len;
	uint64_t *pages;
};

void gmem_init(struct gmem *m);
int gmem_add_region(struct gmem *m, uint64_t gpa, uint64_t size, uint64_t uva,
		    void *host);
int gmem_map_region(struct gmem *m, int fd, uint64_t gpa, uint64_t size,
		    uint64_t uva, uint64_t mmap_offset);
int gmem_remove_region(struct gmem *m, uint64_t gpa, uint64_t size,
		       uint64_t uva);
void gmem_cleanup(struct gmem *m);

int gmem_translate(const struct gmem *m, uint64_t gpa, uint64_t len,
		   struct iovec *iov, unsigned int max_iov);
void *gmem_gpa_ptr(const struct gmem *m, uint64_t gpa, uint64_t len);
void *gmem_uva_ptr(const struct gmem *m, uint64_t uva, uint64_t len);
int gmem_uva_to_gpa(const struct gmem *m, uint64_t uva, uint64_t *gpa);
int gmem_read(const struct gmem *m, uint64_t gpa, void *dst, uint64_t len);
int gmem_region_index(const struct gmem *m, uint64_t gpa);

int gmem_log_map(struct gmem_log *log, int fd, uint64_t size, uint64_t offset);
void gmem_log_unmap(struct gmem_log *log);
void gmem_log_write(struct gmem_log *log, uint64_t gpa, uint64_t len);

#endif /* VNET_GMEM_H */
