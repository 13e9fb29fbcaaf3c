// SPDX-License-Identifier: MIT
/*
 * test_util.c - util.h's MIN() and MAX(): each argument is evaluated once
 * (an argument may read an index that another party moves between two
 * reads), the result has the type the plain comparison gave, and nested
 * uses compile without shadowing (the build has -Wshadow -Werror).
 */
#include <stdint.h>

#include "testlib.h"
#include "util.h"

static unsigned int reads;

/* A ring index that moves forward each time it is read, as a producer
 * index the kernel advances between two loads */
static uint32_t moving_index(void)
{
	return 10 + 5 * reads++;
}

static void test_min_max_read_once(void)
{
	uint32_t m;

	reads = 0;
	m = MIN(12u, moving_index());
	CHECK_EQ(reads, 1);
	CHECK_EQ(m, 10);		/* the value compared, not a re-read 15 */
	reads = 0;
	m = MAX(moving_index(), 9u);
	CHECK_EQ(reads, 1);
	CHECK_EQ(m, 10);
	reads = 1;
	m = MIN(moving_index(), moving_index());	/* 15 and 20 */
	CHECK_EQ(reads, 3);
	CHECK_EQ(m, 15);
}

static void test_min_max_types(void)
{
	uint64_t big = UINT64_C(1) << 40;
	int neg = -3;
	long l = -7;

	CHECK_EQ(MIN(big, 64), 64);
	CHECK_EQ(MAX(big, 64), big);
	CHECK_EQ(sizeof(MIN(big, 64)), sizeof(uint64_t));
	CHECK_EQ(MIN(neg, 2), -3);
	CHECK_EQ(MAX(neg, l), -3);
	CHECK_EQ(sizeof(MAX(neg, l)), sizeof(long));
	CHECK_EQ(MIN(MIN(5, 3), MAX(1, MIN(2, 4))), 2);
}

int main(void)
{
	RUN(test_min_max_read_once);
	RUN(test_min_max_types);
	return test_exit();
}
