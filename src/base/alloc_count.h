/* SPDX-License-Identifier: MIT */
/*
 * alloc_count.h - count allocator calls, to prove a path allocates nothing.
 *
 * Include in exactly ONE .c file of a program (a test or a benchmark): it
 * defines malloc, calloc, realloc, free, aligned_alloc, memalign and
 * posix_memalign for the whole binary, each forwarding to glibc's __libc_*
 * entry point and counting while alloc_counting is set. Counting is
 * thread-safe (relaxed atomics). Not for sanitizer builds, which intercept
 * the allocator themselves, and never linked into vnetd.
 */
#ifndef VNET_ALLOC_COUNT_H
#define VNET_ALLOC_COUNT_H

#include <errno.h>
#include <stddef.h>

static int alloc_counting;
static unsigned long alloc_n_alloc, alloc_n_free;

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);
void *__libc_memalign(size_t align, size_t size);
void __libc_free(void *p);
void *memalign(size_t align, size_t size);

/**
 * alloc_count_bump() - Add one to @c if counting is on
 * @c:	Counter
 */
static inline void alloc_count_bump(unsigned long *c)
{
	if (__atomic_load_n(&alloc_counting, __ATOMIC_RELAXED))
		__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

/**
 * alloc_count_start() - Zero the counters and start counting
 */
static inline void alloc_count_start(void)
{
	__atomic_store_n(&alloc_n_alloc, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&alloc_n_free, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&alloc_counting, 1, __ATOMIC_SEQ_CST);
}

/**
 * alloc_count_stop() - Stop counting
 *
 * Return: allocations plus frees counted since alloc_count_start()
 */
static inline unsigned long alloc_count_stop(void)
{
	__atomic_store_n(&alloc_counting, 0, __ATOMIC_SEQ_CST);
	return __atomic_load_n(&alloc_n_alloc, __ATOMIC_SEQ_CST) +
	       __atomic_load_n(&alloc_n_free, __ATOMIC_SEQ_CST);
}

void *malloc(size_t size)
{
	alloc_count_bump(&alloc_n_alloc);
	return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	alloc_count_bump(&alloc_n_alloc);
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	alloc_count_bump(&alloc_n_alloc);
	return __libc_realloc(p, size);
}

void *aligned_alloc(size_t align, size_t size)
{
	alloc_count_bump(&alloc_n_alloc);
	return __libc_memalign(align, size);
}

void *memalign(size_t align, size_t size)
{
	alloc_count_bump(&alloc_n_alloc);
	return __libc_memalign(align, size);
}

int posix_memalign(void **p, size_t align, size_t size)
{
	alloc_count_bump(&alloc_n_alloc);
	*p = __libc_memalign(align, size);
	return *p ? 0 : ENOMEM;
}

void free(void *p)
{
	if (p)
		alloc_count_bump(&alloc_n_free);
	__libc_free(p);
}

#endif /* VNET_ALLOC_COUNT_H */
