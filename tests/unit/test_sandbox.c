// SPDX-License-Identifier: MIT
/*
 * test_sandbox.c - vnetd's seccomp filter (generated from the #syscalls:
 * tags): a child installs it, makes an allowed syscall, then a disallowed
 * one; the parent expects the one-line SIGSYS report naming it and exit
 * status 128 + SIGSYS. Links src/vnetd/sandbox.c: the filter and its
 * handler are vnetd's, not libvnet's.
 */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox.h"
#include "seccomp_gen.h"
#include "testlib.h"

static void test_blocked_syscall_reported(void)
{
	char out[256] = "", want[64];
	int p[2], st;
	ssize_t n;
	pid_t pid;

	CHECK_EQ(pipe(p), 0);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		dup2(p[1], 2);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || sandbox_seccomp())
			_exit(2);
		if (write(2, "", 0) < 0)	/* allowed */
			_exit(3);
		syscall(SYS_acct, NULL);	/* no file of vnetd needs it */
		_exit(4);
	}
	close(p[1]);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	n = read(p[0], out, sizeof(out) - 1);
	close(p[0]);
	CHECK(n > 0);
	fprintf(stderr, "  child said: %s", out);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 128 + SIGSYS);
	snprintf(want, sizeof(want), "vnetd: seccomp: blocked syscall %d (acct)\n",
		 SYS_acct);
	CHECK(!strcmp(out, want));
}

/* Architecture check first, trap by default */
static void test_filter_shape(void)
{
	size_t n = sizeof(seccomp_filter) / sizeof(seccomp_filter[0]);

	CHECK(n > 10);
	CHECK_EQ(seccomp_filter[0].code, BPF_LD | BPF_W | BPF_ABS);
	CHECK_EQ(seccomp_filter[0].k, offsetof(struct seccomp_data, arch));
	CHECK_EQ(seccomp_filter[n - 1].k, SECCOMP_RET_TRAP);
}

int main(void)
{
	RUN(test_blocked_syscall_reported);
	RUN(test_filter_shape);
	return test_exit();
}
