// SPDX-License-Identifier: MIT
/*
 * testlib.c - the test harness's counters and helpers (testlib.h), built
 * once into build/libvnet-test.a for every test program.
 */
#include <dirent.h>

#include "testlib.h"

int t_num, t_failed, t_skipped, t_case_failed, t_case_skipped;
char t_skip_reason[256];

/**
 * test_count_fds() - Descriptors this process has open
 *
 * Compare before and after a case to prove nothing leaked. The directory
 * stream's own descriptor is not counted.
 *
 * Return: the count, -1 if /proc/self/fd cannot be read
 */
int test_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;
}

/**
 * test_exit() - The exit status of a test program, from its cases
 *
 * Return: 1 if any case failed, 77 if every case skipped, else 0
 */
int test_exit(void)
{
	if (t_failed)
		return 1;
	if (t_num && t_skipped == t_num)
		return 77;
	return 0;
}
