/* SPDX-License-Identifier: MIT */
/*
 * guard.h - guest memory that can vanish: a registry of the mappings a
 * frontend's file backs (regions, dirty log) and a SIGBUS handler that turns
 * a fault in one of them into a jump back to the thread's recovery point.
 * Knows nothing of rings, ports or sockets.
 */
#ifndef VNET_GUARD_H
#define VNET_GUARD_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

/* Mappings watched at once, all ports together (unsealed fds only) */
#define GUARD_MAX_SLOTS		4096

enum guard_kind {
	GUARD_REGION = 1,	/* a guest memory region */
	GUARD_LOG,		/* the dirty log */
};

/**
 * struct guard_fault - What the last recovered SIGBUS of this thread hit
 * @kind:	GUARD_REGION or GUARD_LOG
 * @gpa:	Region: guest physical address of the mapping's first byte
 * @len:	Length of the mapping
 * @offset:	Offset of the faulting byte in the mapping
 */
struct guard_fault {
	enum guard_kind kind;
	uint64_t gpa;
	uint64_t len;
	uint64_t offset;
};

/* The calling thread's recovery point, NULL: a fault is not recoverable */
extern __thread sigjmp_buf *guard_jb;

int guard_register(void *base, uint64_t len, enum guard_kind kind,
		   uint64_t gpa);
void guard_unregister(void *base);
void guard_thread_init(void);
const struct guard_fault *guard_last_fault(void);
int guard_describe(char *buf, size_t len);

/**
 * guard_arm() - Make @jb the calling thread's recovery point
 * @jb:		Filled by sigsetjmp(*@jb, 0) in a frame that stays live
 *		while armed
 *
 * A SIGBUS on a registered mapping then siglongjmp()s to @jb (returning 1)
 * with the thread disarmed; anything else still kills the process.
 * No syscall: a thread-local store.
 */
static inline void guard_arm(sigjmp_buf *jb)
{
	guard_jb = jb;
	/* The store is seen by the handler before any guarded access */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/**
 * guard_disarm() - The calling thread has no recovery point any more
 */
static inline void guard_disarm(void)
{
	/* Every guarded access is done before the handler sees NULL */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	guard_jb = NULL;
}

#endif /* VNET_GUARD_H */
