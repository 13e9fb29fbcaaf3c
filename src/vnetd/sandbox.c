// SPDX-License-Identifier: MIT
/*
 * sandbox.c - vnetd gives up what it no longer needs once every port's
 * socket is bound, every TAP is open and every worker thread runs
 * (sandbox_enter(), called by main.c after setup; --sandbox off skips it):
 *
 * 1. no_new_privs.
 * 2. Filesystem view (Landlock, where the kernel has it): after setup vnetd
 *    only removes its socket files (exit, stale rebinds) and opens
 *    /dev/vhost-net per connection (and /sys/module/vhost/parameters for
 *    its region limit); /dev/net/tun stays allowed for TAP queues. Nothing
 *    else on the filesystem is reachable. Without Landlock one line says
 *    the view is not reduced (a private mount namespace, as passt does,
 *    needs CAP_SYS_ADMIN that a --user run no longer has; not done).
 * 3. Capabilities: the bounding set emptied, effective/permitted/
 *    inheritable/ambient cleared. The documented minimum after setup is
 *    none: TAP fds are open, vhost-net needs only the device file's mode,
 *    sockets are bound.
 * 4. seccomp: only the syscalls the #syscalls: tags of vnetd's and
 *    libvnet's files list (scripts/seccomp-gen.sh makes the BPF program;
 *    libseccomp is not used: one more runtime dependency, and its rule
 *    language hides the architecture check we want first). Anything else
 *    traps: the SIGSYS handler writes "vnetd: seccomp: blocked syscall N
 *    (name)" with write(2) and exits 128 + SIGSYS (exit_group). RET_TRAP rather
 *    than RET_KILL_PROCESS because a missing tag then names itself in the
 *    log; the handler only uses write and exit_group, both allowed anyway.
 *
 * Capabilities, no_new_privs and Landlock domains are per thread, and the
 * worker threads already run: each is sent WORKER_SIG_SANDBOX (left
 * unblocked in workers) and applies the same steps in the handler, with
 * the main thread waiting for every acknowledgement. The seccomp filter
 * is installed with SECCOMP_FILTER_FLAG_TSYNC on every thread at once.
 *
 * Sanitizer builds of vnetd need --sandbox off (ASan's runtime makes
 * syscalls no tag lists: sigaltstack, madvise patterns, /proc reads).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/landlock.h>

#include "cfg.h"
#include "log.h"
#include "sandbox.h"
#include "seccomp_gen.h"

/* #syscalls: write exit_group rt_sigreturn tgkill getpid gettid
 * #syscalls: openat close getdents64 prctl capset landlock_restrict_self
 */

#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE	(1ULL << 14)
#endif
#define SANDBOX_FS_V1		((1ULL << 13) - 1)

static int sandbox_ruleset = -1;
static bool sandbox_in;	/* sandbox_enter() began: no exec, no capabilities */
static int sandbox_acks;

/* Steps 1-3 on the calling thread; async-signal-safe (raw syscalls) */
static int sandbox_thread(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { { 0 } };
	int cap, ret = 0;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		ret = -errno;
	if (sandbox_ruleset >= 0 &&
	    syscall(SYS_landlock_restrict_self, sandbox_ruleset, 0))
		ret = ret ?: -errno;
	for (cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
		/* EPERM: no CAP_SETPCAP, as after --user: with no_new_privs
		 * and no capability left, the bounding set cannot be used */
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL &&
		    errno != EPERM)
			ret = ret ?: -errno;
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (syscall(SYS_capset, &h, d))
		ret = ret ?: -errno;
	return ret;
}

static void sandbox_sig(int sig)
{
	(void)sig;
	if (!sandbox_thread())
		__atomic_fetch_add(&sandbox_acks, 1, __ATOMIC_RELEASE);
}

/* Steps 1-3 on every other thread. Return: 0 or -errno */
static int sandbox_threads(void)
{
	struct timespec ts = { 0, 1000000 };
	struct sigaction sa = { .sa_handler = sandbox_sig };
	pid_t self = (pid_t)syscall(SYS_gettid);
	struct dirent *e;
	int sent = 0, i;
	DIR *dir;

	sigemptyset(&sa.sa_mask);
	if (sigaction(WORKER_SIG_SANDBOX, &sa, NULL))
		return -errno;
	dir = opendir("/proc/self/task");
	if (!dir)
		return -errno;
	while ((e = readdir(dir))) {
		pid_t tid = (pid_t)atoi(e->d_name);

		if (tid <= 0 || tid == self)
			continue;
		if (!syscall(SYS_tgkill, getpid(), tid, WORKER_SIG_SANDBOX))
			sent++;
	}
	closedir(dir);
	for (i = 0; i < 2000 &&
	     __atomic_load_n(&sandbox_acks, __ATOMIC_ACQUIRE) < sent; i++)
		nanosleep(&ts, NULL);
	return __atomic_load_n(&sandbox_acks, __ATOMIC_ACQUIRE) == sent ?
	       0 : -ETIMEDOUT;
}

static void sandbox_allow(int rs, const char *path, uint64_t access)
{
	struct landlock_path_beneath_attr pb = { .allowed_access = access };

	pb.parent_fd = open(path, O_PATH | O_CLOEXEC);
	if (pb.parent_fd < 0)
		return;		/* absent: nothing to allow */
	if (syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH,
		    &pb, 0))
		log_warn("sandbox: landlock rule for %s: %s", path,
			 strerror(errno));
	close(pb.parent_fd);
}

static void sandbox_allow_dir_of(int rs, const char *file)
{
	char buf[VNETD_PATH_LEN];

	if (!file[0])
		return;
	snprintf(buf, sizeof(buf), "%s", file);
	sandbox_allow(rs, dirname(buf), LANDLOCK_ACCESS_FS_REMOVE_FILE |
		      LANDLOCK_ACCESS_FS_MAKE_SOCK);
}

/* Reading files beside @file (an editor replaces it by rename) */
static void sandbox_allow_dir_of_read(int rs, const char *file)
{
	char buf[VNETD_PATH_LEN];

	snprintf(buf, sizeof(buf), "%s", file);
	sandbox_allow(rs, dirname(buf), LANDLOCK_ACCESS_FS_READ_FILE);
}

/* Step 2's ruleset, or -1 with one line saying why not */
static int sandbox_landlock(const struct vnetd_cfg *cfg)
{
	const uint64_t rw = LANDLOCK_ACCESS_FS_READ_FILE |
			    LANDLOCK_ACCESS_FS_WRITE_FILE;
	struct landlock_ruleset_attr attr = { .handled_access_fs = SANDBOX_FS_V1 };
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
			   LANDLOCK_CREATE_RULESET_VERSION);
	unsigned int i;
	int rs;

	if (abi < 0) {
		log_info("sandbox: filesystem view not reduced: no Landlock (%s)",
			 strerror(errno));
		return -1;
	}
	if (abi >= 2)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		attr.handled_access_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (rs < 0) {
		log_info("sandbox: filesystem view not reduced: landlock: %s",
			 strerror(errno));
		return -1;
	}
	for (i = 0; i < cfg->nports; i++)
		sandbox_allow_dir_of(rs, cfg->ports[i].socket);
	sandbox_allow_dir_of(rs, cfg->ctl_path);
	/* ports at run time (reload.c): /run/vnetd, and SIGHUP reads --config */
	sandbox_allow_dir_of(rs, SOCK_RUN_DIR "/x");
	if (cfg->config_path)
		sandbox_allow_dir_of_read(rs, cfg->config_path);
	sandbox_allow(rs, "/dev/vhost-net", rw);
	sandbox_allow(rs, "/dev/net/tun", rw);
	sandbox_allow(rs, "/sys/module/vhost/parameters",
		      LANDLOCK_ACCESS_FS_READ_FILE);
	return rs;
}

/* Async-signal-safe: digits of @v at the end of @end, return the start */
static char *sandbox_utoa(char *end, unsigned long v)
{
	do
		*--end = (char)('0' + v % 10);
	while (v /= 10);
	return end;
}

static void sandbox_sigsys(int sig, siginfo_t *si, void *uc)
{
	char num[24], *n = sandbox_utoa(num + sizeof(num), (unsigned long)si->si_syscall);
	const char *name = "unknown";
	size_t i;

	(void)sig;
	(void)uc;
	for (i = 0; i < sizeof(seccomp_names) / sizeof(seccomp_names[0]); i++)
		if (seccomp_names[i].nr == si->si_syscall)
			name = seccomp_names[i].name;
#define W(s, l) do { if (write(2, (s), (l)) < 0) goto out; } while (0)
	W("vnetd: seccomp: blocked syscall ", 32);
	W(n, (size_t)(num + sizeof(num) - n));
	W(" (", 2);
	W(name, strlen(name));
	W(")\n", 2);
#undef W
out:
	/* exit_group itself: no atexit or sanitizer hook may run now */
	syscall(SYS_exit_group, 128 + SIGSYS);
}

/**
 * sandbox_seccomp() - Install the generated filter on every thread
 *
 * Needs no_new_privs (or CAP_SYS_ADMIN). A blocked syscall then ends the
 * process after one line on stderr naming it.
 *
 * Return: 0 or -errno
 */
int sandbox_seccomp(void)
{
	struct sock_fprog prog = {
		.len = sizeof(seccomp_filter) / sizeof(seccomp_filter[0]),
		.filter = (struct sock_filter *)seccomp_filter,
	};
	struct sigaction sa = { .sa_sigaction = sandbox_sigsys,
				.sa_flags = SA_SIGINFO };
	long ret;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSYS, &sa, NULL))
		return -errno;
	ret = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		      SECCOMP_FILTER_FLAG_TSYNC, &prog);
	if (ret < 0)
		return -errno;
	return ret ? -EBUSY : 0;	/* >0: a thread that could not sync */
}

/**
 * sandbox_entered() - Whether the sandbox is on (sandbox_enter() ran with
 *		       --sandbox on)
 *
 * Code that also runs at run time (a port started by `port add` or
 * SIGHUP) asks before what the sandbox forbids: fork and exec, anything
 * that needs a capability.
 *
 * Return: true after sandbox_enter() with --sandbox on
 */
bool sandbox_entered(void)
{
	return sandbox_in;
}

/**
 * sandbox_enter() - Give up every privilege setup needed (--sandbox on)
 * @cfg:	Configuration: socket paths to keep removable
 *
 * Context: main thread, after every port and the control socket are set
 *	    up, worker threads running
 * Return: 0 (or 0 at once with --sandbox off), or -errno after one log
 *	   line: the caller must not go on unsandboxed
 */
int sandbox_enter(const struct vnetd_cfg *cfg)
{
	int ret;

	if (!cfg->sandbox)
		return 0;
	sandbox_in = true;
	sandbox_ruleset = sandbox_landlock(cfg);
	ret = sandbox_threads();
	if (!ret)
		ret = sandbox_thread();
	if (sandbox_ruleset >= 0)
		close(sandbox_ruleset);
	if (ret) {
		log_err("sandbox: dropping privileges: %s (--sandbox off to run without)",
			strerror(-ret));
		return ret;
	}
	ret = sandbox_seccomp();
	if (ret)
		log_err("sandbox: seccomp: %s (--sandbox off to run without)",
			strerror(-ret));
	return ret;
}
