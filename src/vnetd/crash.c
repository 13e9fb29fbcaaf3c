// SPDX-License-Identifier: MIT
/*
 * crash.c - one log line when vnetd dies of a fault: SIGSEGV, SIGILL,
 * SIGFPE or SIGABRT. A worker that faults takes every VM on vnetd with it
 * and, without this line, leaves nothing in the log: the operator sees the
 * frontends lose their backend and no reason. The line names the thread,
 * the signal, the faulting address and the instruction as an offset into
 * the vnetd binary (`addr2line -f -i -e vnetd OFFSET` names the line of
 * source), then the signal's previous action runs: the default (a core
 * dump where enabled, and the kernel's own segfault line), or ASan's report
 * in its build. SIGBUS is guard.c's (it recovers guest memory that vanished;
 * anything else it hands to the default action).
 *
 * Only async-signal-safe work in the handler: no stdio, no malloc, no
 * locks; the line is formatted into a stack buffer and written to stderr
 * (vnetd's log) with one write().
 */
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>
#include <sys/prctl.h>

#include "crash.h"

/* #syscalls: write prctl rt_sigaction rt_sigprocmask tgkill getpid gettid */

static const int crash_sigs[] = { SIGSEGV, SIGILL, SIGFPE, SIGABRT };
static struct sigaction crash_old[sizeof(crash_sigs) / sizeof(crash_sigs[0])];

/* The binary's mapping (GNU ld's symbols): offsets are relative to it */
extern const char __executable_start[], _end[];

/* Append @s to @buf at *@at, within @len */
static void crash_put(char *buf, size_t len, size_t *at, const char *s)
{
	while (*s && *at + 1 < len)
		buf[(*at)++] = *s++;
}

/* Append 0x and @v in hex */
static void crash_hex(char *buf, size_t len, size_t *at, uintptr_t v)
{
	char d[2 + 2 * sizeof(v) + 1];
	int i = (int)sizeof(d) - 1;

	d[i] = '\0';
	do {
		d[--i] = "0123456789abcdef"[v & 0xf];
		v >>= 4;
	} while (v && i > 2);
	d[--i] = 'x';
	d[--i] = '0';
	crash_put(buf, len, at, d + i);
}

/* Append @v in decimal */
static void crash_dec(char *buf, size_t len, size_t *at, unsigned long v)
{
	char d[24];
	int i = (int)sizeof(d) - 1;

	d[i] = '\0';
	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v && i);
	crash_put(buf, len, at, d + i);
}

static const char *crash_name(int sig)
{
	switch (sig) {
	case SIGSEGV:	return "SIGSEGV";
	case SIGILL:	return "SIGILL";
	case SIGFPE:	return "SIGFPE";
	default:	return "SIGABRT";
	}
}

/* The interrupted instruction, 0 where this architecture is not known */
static uintptr_t crash_ip(const void *ucv)
{
	const ucontext_t *uc = ucv;

#if defined(__x86_64__)
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	return (uintptr_t)uc->uc_mcontext.pc;
#else
	(void)uc;
	return 0;
#endif
}

static void crash_handler(int sig, siginfo_t *si, void *uc)
{
	uintptr_t ip = crash_ip(uc), base = (uintptr_t)__executable_start;
	char line[384], thread[17] = "?";
	size_t at = 0, i;

	prctl(PR_GET_NAME, thread, 0, 0, 0);
	thread[16] = '\0';
	crash_put(line, sizeof(line), &at, "vnetd: fatal: ");
	crash_put(line, sizeof(line), &at, crash_name(sig));
	crash_put(line, sizeof(line), &at, " in thread ");
	crash_put(line, sizeof(line), &at, thread);
	if (si->si_code > 0 && sig != SIGABRT) {
		crash_put(line, sizeof(line), &at, " at address ");
		crash_hex(line, sizeof(line), &at, (uintptr_t)si->si_addr);
	}
	if (ip >= base && ip < (uintptr_t)_end) {
		crash_put(line, sizeof(line), &at, ", instruction vnetd+");
		crash_hex(line, sizeof(line), &at, ip - base);
	} else if (ip) {
		crash_put(line, sizeof(line), &at, ", instruction ");
		crash_hex(line, sizeof(line), &at, ip);
		crash_put(line, sizeof(line), &at, " (a library's)");
	}
	if (si->si_code <= 0 && si->si_pid != getpid()) {
		crash_put(line, sizeof(line), &at, " (sent by pid ");
		crash_dec(line, sizeof(line), &at, (unsigned long)si->si_pid);
		crash_put(line, sizeof(line), &at, ")\n");
	} else {
		crash_put(line, sizeof(line), &at, " (a bug in vnetd: please "
			  "report this line; addr2line -f -i -e vnetd OFFSET "
			  "names the code)\n");
	}
	if (write(STDERR_FILENO, line, at) < 0)
		at = 0;	/* nowhere to say it */
	for (i = 0; i < sizeof(crash_sigs) / sizeof(crash_sigs[0]); i++)
		if (crash_sigs[i] == sig)
			sigaction(sig, &crash_old[i], NULL);
	/* a fault happens again on return; a sent signal is sent again */
	if (si->si_code <= 0)
		raise(sig);
}

/**
 * crash_report_init() - Log one line before a fault ends vnetd
 *
 * Keeps each signal's previous action and hands the signal to it after
 * the line is written.
 *
 * Context: main thread, before any other thread starts
 */
void crash_report_init(void)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = crash_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(crash_sigs) / sizeof(crash_sigs[0]); i++)
		sigaction(crash_sigs[i], &sa, &crash_old[i]);
}
