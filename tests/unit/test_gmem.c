// SPDX-License-Identifier: MIT
/*
 * test_gmem.c - guest memory table: region insertion rules, translation
 * with length (one piece, adjacent regions, holes, wrap-around), frontend
 * virtual addresses, mapping from a memfd, and the dirty log.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gmem.h"
#include "testlib.h"

static struct gmem M;
static uint8_t buf[3 * 65536] __attribute__((aligned(4096)));

static void test_add_rules(void)
{
	gmem_init(&M);
	CHECK_EQ(gmem_add_region(&M, 0x10000, 0x1000, 0xa0000, buf), 0);
	CHECK_EQ(gmem_add_region(&M, 0x10000, 0, 0, buf), -EINVAL);
	CHECK_EQ(gmem_add_region(&M, UINT64_MAX - 10, 100, 0, buf), -EINVAL);
	CHECK_EQ(gmem_add_region(&M, 0x0, 100, UINT64_MAX - 5, buf), -EINVAL);
	CHECK_EQ(gmem_add_region(&M, 0x10fff, 0x10, 0, buf), -EEXIST);
	CHECK_EQ(gmem_add_region(&M, 0xf000, 0x1001, 0, buf), -EEXIST);
	CHECK_EQ(gmem_add_region(&M, 0x0, 0x100000, 0, buf), -EEXIST);
	CHECK_EQ(gmem_add_region(&M, 0x20000, 0x10, 0, NULL), -EINVAL);
	CHECK_EQ(gmem_add_region(&M, 0xf000, 0x1000, 0xb0000, buf + 4096), 0);
	CHECK_EQ(gmem_add_region(&M, 0x11000, 0x1000, 0xc0000, buf + 8192), 0);
	CHECK_EQ(M.nregions, 3);
	CHECK_EQ(M.regions[0].gpa, 0xf000);
	CHECK_EQ(M.regions[1].gpa, 0x10000);
	CHECK_EQ(M.regions[2].gpa, 0x11000);
	CHECK_EQ(gmem_remove_region(&M, 0x10000, 0x1000, 0x1), -ENOENT);
	CHECK_EQ(gmem_remove_region(&M, 0x10000, 0x1000, 0xa0000), 0);
	CHECK_EQ(M.nregions, 2);
	CHECK_EQ(M.regions[1].gpa, 0x11000);
	gmem_cleanup(&M);
	CHECK_EQ(M.nregions, 0);
}

static void test_table_full(void)
{
	uint32_t i;

	gmem_init(&M);
	/* Inserted in reverse order: every insertion shifts the table */
	for (i = GMEM_MAX_REGIONS; i > 0; i--)
		CHECK_EQ(gmem_add_region(&M, (uint64_t)i * 0x10000, 0x100,
					 (uint64_t)i << 32, buf), 0);
	CHECK_EQ(gmem_add_region(&M, 0x1000000000ULL, 0x100, 0, buf), -ENOSPC);
	for (i = 1; i < M.nregions; i++)
		CHECK(M.regions[i - 1].gpa < M.regions[i].gpa);
	/* Every region found by the binary search, holes rejected */
	for (i = 1; i <= GMEM_MAX_REGIONS; i++) {
		CHECK(gmem_gpa_ptr(&M, (uint64_t)i * 0x10000 + 0xff, 1) ==
		      buf + 0xff);
		CHECK(!gmem_gpa_ptr(&M, (uint64_t)i * 0x10000 + 0x100, 1));
		CHECK(!gmem_gpa_ptr(&M, (uint64_t)i * 0x10000 - 1, 1));
	}
	gmem_cleanup(&M);
}

static void test_translate(void)
{
	struct iovec iov[4];

	gmem_init(&M);
	/* Two adjacent regions backed by non-adjacent host memory, a hole,
	 * then a third */
	CHECK_EQ(gmem_add_region(&M, 0x100000, 0x10000, 0x5000000, buf + 0x10000), 0);
	CHECK_EQ(gmem_add_region(&M, 0x110000, 0x10000, 0x6000000, buf), 0);
	CHECK_EQ(gmem_add_region(&M, 0x130000, 0x10000, 0x7000000, buf + 0x20000), 0);

	CHECK_EQ(gmem_translate(&M, 0x100010, 0x20, iov, 4), 1);
	CHECK(iov[0].iov_base == buf + 0x10010);
	CHECK_EQ(iov[0].iov_len, 0x20);

	CHECK_EQ(gmem_translate(&M, 0x10fff0, 0x20, iov, 4), 2);
	CHECK(iov[0].iov_base == buf + 0x1fff0);
	CHECK_EQ(iov[0].iov_len, 0x10);
	CHECK(iov[1].iov_base == buf);
	CHECK_EQ(iov[1].iov_len, 0x10);
	CHECK_EQ(gmem_translate(&M, 0x10fff0, 0x20, iov, 1), -ENOBUFS);

	CHECK_EQ(gmem_translate(&M, 0x11fff0, 0x20, iov, 4), -EFAULT);	/* hole */
	CHECK_EQ(gmem_translate(&M, 0x120000, 0x1, iov, 4), -EFAULT);
	CHECK_EQ(gmem_translate(&M, 0x0, 0x1, iov, 4), -EFAULT);
	CHECK_EQ(gmem_translate(&M, 0x13ffff, 0x2, iov, 4), -EFAULT);	/* end */
	CHECK_EQ(gmem_translate(&M, UINT64_MAX, 0x2, iov, 4), -EFAULT);	/* wraps */
	CHECK_EQ(gmem_translate(&M, 0x100000, 0, iov, 0), 0);
	CHECK_EQ(gmem_translate(&M, 0x100000, 0x20000, iov, 4), 2);
	CHECK_EQ(gmem_translate(&M, 0x100000, 0x20001, iov, 4), -EFAULT);

	CHECK_EQ(gmem_region_index(&M, 0x100000), 0);
	CHECK_EQ(gmem_region_index(&M, 0x11ffff), 1);
	CHECK_EQ(gmem_region_index(&M, 0x130005), 2);
	CHECK_EQ(gmem_region_index(&M, 0x120000), -1);
	CHECK_EQ(gmem_region_index(&M, 0x140000), -1);
	CHECK(gmem_gpa_ptr(&M, 0x100000, 0x10000) == buf + 0x10000);
	CHECK(!gmem_gpa_ptr(&M, 0x100000, 0x10001));	/* spans: not one piece */
	CHECK(!gmem_gpa_ptr(&M, 0x13ffff, UINT64_MAX));
	gmem_cleanup(&M);
}

static void test_uva(void)
{
	uint64_t gpa = 0;

	gmem_init(&M);
	CHECK_EQ(gmem_add_region(&M, 0x100000, 0x10000, 0x5000000, buf), 0);
	CHECK_EQ(gmem_add_region(&M, 0x0, 0x10000, 0x4000000, buf + 0x10000), 0);
	CHECK(gmem_uva_ptr(&M, 0x5000010, 0x10) == buf + 0x10);
	CHECK(gmem_uva_ptr(&M, 0x4000000, 0x10000) == buf + 0x10000);
	CHECK(!gmem_uva_ptr(&M, 0x4000000, 0x10001));
	CHECK(!gmem_uva_ptr(&M, 0x3ffffff, 1));
	CHECK(!gmem_uva_ptr(&M, 0x500fff0, UINT64_MAX));
	CHECK_EQ(gmem_uva_to_gpa(&M, 0x5000123, &gpa), 0);
	CHECK_EQ(gpa, 0x100123);
	CHECK_EQ(gmem_uva_to_gpa(&M, 0x4010000, &gpa), -EFAULT);
	gmem_cleanup(&M);
}

static void test_read_across(void)
{
	uint8_t out[64];
	int i;

	gmem_init(&M);
	CHECK_EQ(gmem_add_region(&M, 0x1000, 0x1000, 0, buf + 0x10000), 0);
	CHECK_EQ(gmem_add_region(&M, 0x2000, 0x1000, 0x1000, buf), 0);
	for (i = 0; i < 32; i++) {
		buf[0x10000 + 0x1000 - 32 + i] = (uint8_t)i;
		buf[i] = (uint8_t)(32 + i);
	}
	CHECK_EQ(gmem_read(&M, 0x2000 - 32, out, 64), 0);
	for (i = 0; i < 64; i++)
		CHECK_EQ(out[i], i);
	CHECK_EQ(gmem_read(&M, 0x3000 - 32, out, 64), -EFAULT);
	CHECK_EQ(gmem_read(&M, UINT64_MAX - 1, out, 4), -EFAULT);
	gmem_cleanup(&M);
}

/* Real mmap() from a memfd, at an offset that is not page aligned */
static void test_map_region_memfd(void)
{
	int fd = memfd_create("test_gmem", MFD_CLOEXEC);
	struct iovec iov[2];
	uint8_t *p;

	if (fd < 0)
		SKIP("memfd_create: %s", strerror(errno));
	CHECK_EQ(ftruncate(fd, 3 * 4096), 0);
	CHECK_EQ(pwrite(fd, "hello", 5, 4096 + 100), 5);
	gmem_init(&M);
	CHECK_EQ(gmem_map_region(&M, fd, 0x80000, 4096, 0x9000000, 4096 + 100), 0);
	CHECK(M.regions[0].map_base != NULL);
	CHECK_EQ(gmem_translate(&M, 0x80000, 5, iov, 2), 1);
	p = iov[0].iov_base;
	CHECK(!memcmp(p, "hello", 5));
	CHECK_EQ(gmem_map_region(&M, fd, 0x80100, 4096, 0, 0), -EEXIST);
	CHECK_EQ(gmem_map_region(&M, fd, 0x90000, 0, 0, 0), -EINVAL);
	CHECK_EQ(gmem_map_region(&M, -1, 0x90000, 4096, 0, 0), -EBADF);
	CHECK_EQ(M.nregions, 1);
	CHECK_EQ(gmem_remove_region(&M, 0x80000, 4096, 0x9000000), 0);
	gmem_cleanup(&M);
	close(fd);
}

static void test_dirty_log(void)
{
	int fd = memfd_create("test_gmem_log", MFD_CLOEXEC);
	struct gmem_log log = { 0 };
	uint64_t pages = 0;

	if (fd < 0)
		SKIP("memfd_create: %s", strerror(errno));
	CHECK_EQ(ftruncate(fd, 8192), 0);
	CHECK_EQ(gmem_log_map(&log, fd, 16, 4096 + 8), 0);	/* 128 pages */
	CHECK_EQ(log.size, 16);
	gmem_log_write(&log, 4096 * 3 + 10, 1);		/* not counted yet */
	CHECK_EQ(log.base[0], 1u << 3);
	log.pages = &pages;
	gmem_log_write(&log, 4096 * 7 + 4095, 2);	/* pages 7 and 8 */
	CHECK_EQ(log.base[0], (1u << 3) | (1u << 7));
	CHECK_EQ(log.base[1], 1u);
	CHECK_EQ(pages, 2);
	/* pages already marked are not counted again: only page 4 is new */
	gmem_log_write(&log, 4096 * 3, 4096 * 2);
	CHECK_EQ(pages, 3);
	gmem_log_write(&log, 4096 * 7, 4096 * 2);
	CHECK_EQ(pages, 3);
	gmem_log_write(&log, 4096 * 20, 0);		/* nothing */
	CHECK_EQ(log.base[2], 0);
	gmem_log_write(&log, 4096ULL * 1000, 4096);	/* past bitmap: ignored */
	gmem_log_write(&log, UINT64_MAX - 10, 100);	/* wraps: ignored */
	CHECK_EQ(pages, 3);
	gmem_log_write(&log, 4096 * 126, 4096 * 10);	/* clipped at 127 */
	CHECK_EQ(log.base[15], 0xc0);
	CHECK_EQ(pages, 5);
	/* the frontend clears a page (a migration pass): marking it counts */
	log.base[0] &= (uint8_t)~(1u << 3);
	gmem_log_write(&log, 4096 * 3, 1);
	CHECK_EQ(pages, 6);
	gmem_log_unmap(&log);
	CHECK(log.base == NULL);
	gmem_log_write(&log, 0, 1);	/* unmapped: ignored */
	close(fd);
}

/*
 * Regression: a region (or log) larger than what its fd holds was mapped,
 * and the first guest access beyond the file's end raised SIGBUS in the
 * data path. Such a mapping must be refused with -EINVAL.
 */
static void test_regress_map_truncated_fd(void)
{
	int fd = memfd_create("test_gmem_trunc", MFD_CLOEXEC);
	struct gmem_log log = { 0 };

	if (fd < 0)
		SKIP("memfd_create: %s", strerror(errno));
	CHECK_EQ(ftruncate(fd, 4096), 0);
	gmem_init(&M);
	CHECK_EQ(gmem_map_region(&M, fd, 0x80000, 8192, 0x9000000, 0), -EINVAL);
	CHECK_EQ(gmem_map_region(&M, fd, 0x80000, 4096, 0x9000000, 1), -EINVAL);
	CHECK_EQ(M.nregions, 0);
	CHECK_EQ(gmem_map_region(&M, fd, 0x80000, 4096, 0x9000000, 0), 0);
	CHECK_EQ(gmem_log_map(&log, fd, 4097, 0), -EINVAL);
	CHECK_EQ(gmem_log_map(&log, fd, 16, 4096 - 8), -EINVAL);
	CHECK(log.base == NULL);
	CHECK_EQ(gmem_log_map(&log, fd, 16, 4096 - 16), 0);
	gmem_log_unmap(&log);
	gmem_cleanup(&M);
	close(fd);
}

int main(void)
{
	RUN(test_add_rules);
	RUN(test_table_full);
	RUN(test_translate);
	RUN(test_uva);
	RUN(test_read_across);
	RUN(test_map_region_memfd);
	RUN(test_dirty_log);
	RUN(test_regress_map_truncated_fd);
	return test_exit();
}
