// SPDX-License-Identifier: MIT
/*
 * guard.c - guest memory that can vanish. A frontend hands us fds for its
 * memory and dirty log; if the file behind one shrinks (ftruncate() of an
 * unsealed memfd, tmpfs or hugetlbfs file), our next access past the new
 * end raises SIGBUS, whose default action kills vnetd and every VM on it.
 *
 * Mechanism: gmem.c registers every mapping whose fd lacks F_SEAL_SHRINK
 * (a sealed file cannot shrink: nothing to guard). A thread that touches
 * guest memory arms a recovery point (guard_arm(), one sigsetjmp per
 * thread loop or per control message, never per packet). The SIGBUS
 * handler looks the faulting address up in the registry: inside a
 * registered mapping with a recovery point armed, it records what was hit
 * in thread-local storage and siglongjmp()s there; the caller then stops
 * whatever used that memory and closes the connection. Any other SIGBUS
 * (a bug of ours, a fault with nothing armed, kill -BUS) gets the default
 * action: a real bug must still crash.
 *
 * MAP_POPULATE + mlock() would not help: truncation removes the pages from
 * the file and the mapping with them; the next access faults regardless.
 *
 * Registry: a fixed array read lock-free by the handler (one acquire load
 * per slot, only when a fault happens), written by control threads with a
 * claim by compare-and-swap. A slot is cleared before its munmap().
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "guard.h"

/* #syscalls: rt_sigaction rt_sigprocmask tgkill getpid gettid */

#define GUARD_CLAIMED	((uintptr_t)1)	/* being filled: not yet valid */

/**
 * struct guard_slot - One watched mapping
 * @base:	First byte, 0: free, GUARD_CLAIMED: being written
 * @len:	Length
 * @gpa:	Guest physical address of @base (regions)
 * @kind:	What it is
 */
struct guard_slot {
	uintptr_t base;
	uint64_t len;
	uint64_t gpa;
	enum guard_kind kind;
};

static struct guard_slot guard_slots[GUARD_MAX_SLOTS];
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;
static int guard_init_err;

__thread sigjmp_buf *guard_jb;
static __thread struct guard_fault guard_fault;

/* Back to the default action and deliver it again: the process dies */
static void guard_die(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	raise(sig);	/* kill -BUS; a real fault also re-faults on return */
}

static void guard_sigbus(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;
	sigjmp_buf *jb = guard_jb;
	unsigned int i;

	(void)uc;
	if (!jb || si->si_code <= 0)	/* nothing armed, or sent by someone */
		goto die;
	for (i = 0; i < GUARD_MAX_SLOTS; i++) {
		const struct guard_slot *s = &guard_slots[i];
		uintptr_t b = __atomic_load_n(&s->base, __ATOMIC_ACQUIRE);

		if (b <= GUARD_CLAIMED || a < b || a - b >= s->len)
			continue;
		guard_fault.kind = s->kind;
		guard_fault.gpa = s->gpa;
		guard_fault.len = s->len;
		guard_fault.offset = a - b;
		guard_jb = NULL;	/* a fault while recovering is fatal */
		siglongjmp(*jb, 1);
	}
die:
	guard_die(sig);
}

/* SA_NODEFER: siglongjmp() leaves the handler without restoring the mask,
 * so SIGBUS must not be blocked while it runs (sigsetjmp(jb, 0) then costs
 * no syscall) */
static void guard_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = guard_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, NULL))
		guard_init_err = -errno;
}

/**
 * guard_register() - Watch a mapping whose file may shrink under us
 * @base:	First byte of the mapping
 * @len:	Its length, not 0
 * @kind:	GUARD_REGION or GUARD_LOG (for the fault report)
 * @gpa:	Guest physical address of @base (regions; 0 for the log)
 *
 * Installs the SIGBUS handler on first use.
 *
 * Context: control thread, before the mapping is used
 * Return: 0, -EINVAL, -ENOSPC (every slot in use: the caller must not
 *	   use the mapping), or sigaction()'s error
 */
int guard_register(void *base, uint64_t len, enum guard_kind kind,
		   uint64_t gpa)
{
	unsigned int i;

	if ((uintptr_t)base <= GUARD_CLAIMED || !len)
		return -EINVAL;
	pthread_once(&guard_once, guard_install);
	if (guard_init_err)
		return guard_init_err;
	for (i = 0; i < GUARD_MAX_SLOTS; i++) {
		struct guard_slot *s = &guard_slots[i];
		uintptr_t expect = 0;

		if (!__atomic_compare_exchange_n(&s->base, &expect,
						 GUARD_CLAIMED, false,
						 __ATOMIC_ACQUIRE,
						 __ATOMIC_RELAXED))
			continue;
		s->len = len;
		s->gpa = gpa;
		s->kind = kind;
		/* Pairs with the handler's acquire load of @base */
		__atomic_store_n(&s->base, (uintptr_t)base, __ATOMIC_RELEASE);
		return 0;
	}
	return -ENOSPC;
}

/**
 * guard_unregister() - Stop watching a mapping (before its munmap())
 * @base:	What guard_register() was given; unknown addresses are ignored
 *
 * Context: control thread, no thread touching the mapping
 */
void guard_unregister(void *base)
{
	unsigned int i;

	if ((uintptr_t)base <= GUARD_CLAIMED)
		return;
	for (i = 0; i < GUARD_MAX_SLOTS; i++) {
		if (__atomic_load_n(&guard_slots[i].base, __ATOMIC_RELAXED) ==
		    (uintptr_t)base) {
			__atomic_store_n(&guard_slots[i].base, 0,
					 __ATOMIC_RELEASE);
			return;
		}
	}
}

/**
 * guard_thread_init() - Let SIGBUS reach the calling thread
 *
 * A thread that blocks every signal (the workers) would otherwise be
 * killed by the kernel on a fault: a synchronous SIGBUS that is blocked
 * is delivered with the default action.
 */
void guard_thread_init(void)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGBUS);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
}

/**
 * guard_last_fault() - What the calling thread's last recovered fault hit
 *
 * Return: the record, valid until the thread's next recovered fault
 */
const struct guard_fault *guard_last_fault(void)
{
	return &guard_fault;
}

/**
 * guard_describe() - One phrase for a log line about the last fault
 * @buf:	Output
 * @len:	Size of @buf
 *
 * Return: what snprintf() returned
 */
int guard_describe(char *buf, size_t len)
{
	const struct guard_fault *f = &guard_fault;

	if (f->kind == GUARD_LOG)
		return snprintf(buf, len, "dirty log (%llu bytes) shrank under "
				"us: SIGBUS at offset 0x%llx",
				(unsigned long long)f->len,
				(unsigned long long)f->offset);
	return snprintf(buf, len, "memory region at gpa 0x%llx (%llu bytes) "
			"shrank under us: SIGBUS at gpa 0x%llx",
			(unsigned long long)f->gpa, (unsigned long long)f->len,
			(unsigned long long)(f->gpa + f->offset));
}
