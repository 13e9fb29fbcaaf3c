/* SPDX-License-Identifier: MIT */
/*
 * util.h - small helpers shared by every layer: compiler hints, memory
 * ordering for guest-shared data, array sizes, name tables.
 */
#ifndef VNET_UTIL_H
#define VNET_UTIL_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
/*
 * MIN() and MAX() evaluate each argument once, as the kernel's min()/max():
 * an argument may be a read of an index that the kernel or a guest moves
 * (xsk_prod_free()), and a second read could give a larger value than
 * the one compared. Both are held in the type the comparison converts
 * them to (that of a + b), as the plain ?: did; each expansion's locals get
 * a fresh name (__COUNTER__) so that nested uses do not shadow each other.
 */
#define VNET_CAT_(a, b)		a##b
#define VNET_CAT(a, b)		VNET_CAT_(a, b)
#define VNET_PICK_(a, b, op, u) __extension__ ({			\
	__typeof__((a) + (b)) VNET_CAT(pa_, u) = (a);			\
	__typeof__((a) + (b)) VNET_CAT(pb_, u) = (b);			\
	VNET_CAT(pa_, u) op VNET_CAT(pb_, u) ? VNET_CAT(pa_, u) :	\
					      VNET_CAT(pb_, u); })
#ifndef __CPPCHECK__
#define MIN(a, b)	VNET_PICK_(a, b, <, __COUNTER__)
#define MAX(a, b)	VNET_PICK_(a, b, >, __COUNTER__)
#else	/* tests/lint.sh: cppcheck does not parse statement expressions */
#define MIN(a, b)	((a) < (b) ? (a) : (b))
#define MAX(a, b)	((a) > (b) ? (a) : (b))
#endif
#define BIT(n)		(1ULL << (n))

/* Queue pairs of one port: the limit of every layer (host, device, worker) */
#define VNET_MAX_PAIRS	64

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#define container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/*
 * Guest-shared memory may change under us at any time: read each field once
 * with READ_ONCE() into a local, validate the local, never re-read it.
 */
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define LOAD_ACQUIRE(x)		__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE_RELEASE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

/* Full barrier: orders our stores before our following loads (notify recheck) */
#define smp_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)

#define UNUSED		__attribute__((unused))
/* A rare path kept out of its hot caller, so the caller stays small */
#define NOINLINE	__attribute__((noinline))
/* A per-frame step the compiler must not leave out of line in its loop */
#define ALWAYS_INLINE	inline __attribute__((always_inline))
#define PRINTF_FMT(a, b) __attribute__((format(printf, a, b)))

/**
 * add_overflows() - Would @a + @b overflow 64 bits?
 * @a:	First operand
 * @b:	Second operand
 *
 * Return: non-zero if the sum does not fit in a uint64_t
 */
static inline int add_overflows(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_add_overflow(a, b, &r);
}

/**
 * name_lookup() - Find a string in a table of names indexed by enum value
 * @names:	Names, the index of each its enum value; NULL entries never match
 * @n:		Entries in @names (ARRAY_SIZE())
 * @s:		String to find, compared exactly (case matters)
 *
 * The lookup behind each "--flag NAME" parser; the caller names the flag,
 * the value and the allowed names in its error.
 *
 * Return: the index of @s in @names, or -EINVAL if it is not there
 */
static inline int name_lookup(const char *const *names, size_t n,
			      const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (names[i] && !strcmp(s, names[i]))
			return (int)i;
	return -EINVAL;
}

#endif /* VNET_UTIL_H */
