// SPDX-License-Identifier: MIT
/*
 * test_guard.c - guest memory that vanishes: a registered mapping whose
 * memfd shrinks faults back to the armed recovery point; gmem registers
 * only unsealed fds; a SIGBUS outside any registered mapping still kills
 * the process (a real bug must crash).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gmem.h"
#include "guard.h"
#include "testlib.h"

#define T_SIZE	(64u << 10)

static int t_memfd(bool seal)
{
	int fd = memfd_create("t-guard", MFD_CLOEXEC |
			      (seal ? MFD_ALLOW_SEALING : 0));

	if (fd < 0 || ftruncate(fd, T_SIZE))
		return -1;
	if (seal && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK))
		return -1;
	return fd;
}

/* Touch @p under a recovery point. Return: 1 if it faulted back to us */
static int t_touch(volatile uint8_t *p)
{
	sigjmp_buf jb;

	if (sigsetjmp(jb, 0))
		return 1;
	guard_arm(&jb);
	p[0] = 1;
	guard_disarm();
	return 0;
}

static void test_region_shrinks(void)
{
	struct gmem m;
	uint8_t *host;
	int fd = t_memfd(false);

	CHECK(fd >= 0);
	gmem_init(&m);
	CHECK_EQ(gmem_map_region(&m, fd, 0x100000, T_SIZE, 0x7000000, 0), 0);
	host = gmem_gpa_ptr(&m, 0x100000, T_SIZE);
	CHECK(host);
	CHECK_EQ(t_touch(host + T_SIZE - 1), 0);
	CHECK_EQ(ftruncate(fd, 4096), 0);
	CHECK_EQ(t_touch(host + 8192), 1);
	CHECK_EQ(guard_last_fault()->kind, GUARD_REGION);
	CHECK_EQ(guard_last_fault()->gpa, 0x100000);
	CHECK_EQ(guard_last_fault()->offset, 8192);
	/* twice: the handler is still installed and SIGBUS not blocked */
	CHECK_EQ(t_touch(host + T_SIZE - 1), 1);
	CHECK_EQ(t_touch(host), 0);
	gmem_cleanup(&m);
	close(fd);
}

static void test_log_shrinks(void)
{
	struct gmem_log log = { 0 };
	int fd = t_memfd(false);

	CHECK(fd >= 0);
	CHECK_EQ(gmem_log_map(&log, fd, T_SIZE, 0), 0);
	CHECK_EQ(ftruncate(fd, 0), 0);
	CHECK_EQ(t_touch(log.base + 100), 1);
	CHECK_EQ(guard_last_fault()->kind, GUARD_LOG);
	gmem_log_unmap(&log);
	close(fd);
}

/* A sealed fd is not registered: the same fault is not ours to recover */
static void test_sealed_not_registered(void)
{
	struct gmem m;
	uint8_t *host;
	int fd = t_memfd(true), st;
	pid_t pid;

	CHECK(fd >= 0);
	CHECK(ftruncate(fd, 4096) < 0);	/* the seal holds */
	gmem_init(&m);
	CHECK_EQ(gmem_map_region(&m, fd, 0, T_SIZE, 0, 0), 0);
	host = gmem_gpa_ptr(&m, 0, T_SIZE);
	CHECK(host);
	gmem_cleanup(&m);	/* unmapped, and out of the registry */
	/* An unregistered address faults: default action, the child dies */
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		int fd2 = t_memfd(false);
		volatile uint8_t *p = mmap(NULL, T_SIZE, PROT_READ | PROT_WRITE,
					   MAP_SHARED, fd2, 0);

		if (p == MAP_FAILED || ftruncate(fd2, 0))
			_exit(2);
		_exit(t_touch(p + 100) ? 3 : 4);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFSIGNALED(st));
	CHECK_EQ(WTERMSIG(st), SIGBUS);
	close(fd);
}

/* kill -BUS is no fault of guest memory: default action */
static void test_sent_sigbus_kills(void)
{
	int st;
	pid_t pid = fork();

	CHECK(pid >= 0);
	if (!pid) {
		int fd = t_memfd(false);
		struct gmem m;
		sigjmp_buf jb;

		gmem_init(&m);
		if (fd < 0 || gmem_map_region(&m, fd, 0, T_SIZE, 0, 0))
			_exit(2);
		if (sigsetjmp(jb, 0))
			_exit(3);
		guard_arm(&jb);
		raise(SIGBUS);
		_exit(4);
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFSIGNALED(st));
	CHECK_EQ(WTERMSIG(st), SIGBUS);
}

int main(void)
{
	RUN(test_region_shrinks);
	RUN(test_log_shrinks);
	RUN(test_sealed_not_registered);
	RUN(test_sent_sigbus_kills);
	return test_exit();
}
