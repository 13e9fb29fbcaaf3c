/* SPDX-License-Identifier: MIT */
/*
 * testlib.h - tiny test harness for the unit test programs. Each test
 * program runs its cases with RUN(); each case prints one TAP line
 * ("ok N - name", "not ok N - name", "ok N - name # SKIP reason") that
 * tests/run.sh counts. Exit status: 0 all passed, 1 any failed, 77 all
 * skipped.
 *
 * The macros and test_xorshift() stay here (they return from the calling
 * case, or are one expression); the rest is built once in testlib.c, part
 * of build/libvnet-test.a.
 */
#ifndef VNET_TESTLIB_H
#define VNET_TESTLIB_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the counters RUN() keeps, defined once in testlib.c */
extern int t_num, t_failed, t_skipped, t_case_failed, t_case_skipped;
extern char t_skip_reason[256];

/**
 * test_xorshift() - The next number of a fixed-seed generator (xorshift64)
 * @state:	Its state, not 0; advanced
 *
 * Random tests and corpus mutations replay the same sequence every run.
 *
 * Return: 64 pseudo-random bits
 */
static inline uint64_t test_xorshift(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "  %s:%d: CHECK(%s) failed\n",	\
				__FILE__, __LINE__, #cond);		\
			t_case_failed = 1;				\
			return;						\
		}							\
	} while (0)

#define CHECK_EQ(a, b)							\
	do {								\
		long long _a = (long long)(a), _b = (long long)(b);	\
		if (_a != _b) {						\
			fprintf(stderr, "  %s:%d: %s == %lld, expected %s == %lld\n", \
				__FILE__, __LINE__, #a, _a, #b, _b);	\
			t_case_failed = 1;				\
			return;						\
		}							\
	} while (0)

#define SKIP(...)							\
	do {								\
		snprintf(t_skip_reason, sizeof(t_skip_reason), __VA_ARGS__); \
		t_case_skipped = 1;					\
		return;							\
	} while (0)

#define RUN(fn)								\
	do {								\
		t_case_failed = 0;					\
		t_case_skipped = 0;					\
		t_num++;						\
		fn();							\
		if (t_case_skipped) {					\
			t_skipped++;					\
			printf("ok %d - %s # SKIP %s\n", t_num, #fn,	\
			       t_skip_reason);				\
		} else if (t_case_failed) {				\
			t_failed++;					\
			printf("not ok %d - %s\n", t_num, #fn);		\
		} else {						\
			printf("ok %d - %s\n", t_num, #fn);		\
		}							\
		fflush(stdout);						\
	} while (0)

int test_count_fds(void);
int test_exit(void);

#endif /* VNET_TESTLIB_H */
