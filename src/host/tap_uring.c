// SPDX-License-Identifier: MIT
/*
 * tap_uring.c - batched TAP I/O through io_uring (liburing, the field's
 * standard userspace library for it): each data path thread owns one small
 * ring, created when the thread starts and torn down when it ends.
 * - TX: a burst of guest frames becomes that many independent
 *   IORING_OP_WRITEV requests handed over with one io_uring_enter(). The
 *   tun driver copies each frame inline during the submission, so one
 *   syscall replaces one writev() per frame.
 * - RX: up to a batch of IORING_OP_READ requests, each into its own buffer
 *   of the caller's, read what waits on a TAP queue with one
 *   io_uring_enter(); each has RWF_NOWAIT, so a read that finds the queue
 *   empty completes with -EAGAIN instead of waiting (io_uring would poll
 *   an empty queue, O_NONBLOCK or not).
 * Requests are not linked: a linked chain leaves io_uring's inline path
 * (measured -9 %, docs/performance.md).
 *
 * Security model: io_uring operations are not seen by seccomp, so the ring
 * itself is confined. It is created IORING_SETUP_R_DISABLED, registers
 * IORING_REGISTER_RESTRICTIONS allowing exactly two SQE ops (WRITEV,
 * READ), no SQE flags (no fixed files, links, drains or async punts) and
 * no register op, and only then IORING_REGISTER_ENABLE_RINGS: any other op
 * completes with -EACCES and no further register call is accepted. The
 * two ops are what the thread's own writev()/read() syscalls may do
 * anyway. Nothing the guest sends reaches this file but frame iovecs that
 * net.c validated; reads land in host_tap.c's buffers, never in guest
 * memory.
 *
 * What it leaves to others: which frames to send and what a failure means
 * (net.c), the TAP fds and the RX buffers (host_tap.c), when a thread
 * starts (worker.c), which engine the operator asked for (vnetd --tap-io).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "tap_uring.h"
#include "util.h"

/* #syscalls: io_uring_setup io_uring_enter io_uring_register mmap munmap close */

/* Written at start-up before any worker thread exists, read-only after */
static enum tap_io tap_uring_sel = TAP_IO_AUTO;

static const char *const tap_io_names[] = {
	[TAP_IO_AUTO] = "auto",
	[TAP_IO_URING] = "uring",
	[TAP_IO_WRITEV] = "writev",
};

/**
 * tap_io_parse() - Parse a --tap-io value
 * @s:		"auto", "uring" or "writev"
 * @out:	Output: the engine
 *
 * Return: 0, or -EINVAL for anything else
 */
int tap_io_parse(const char *s, enum tap_io *out)
{
	int i = name_lookup(tap_io_names, ARRAY_SIZE(tap_io_names), s);

	if (i < 0)
		return i;
	*out = (enum tap_io)i;
	return 0;
}

/**
 * tap_io_name() - The --tap-io spelling of an engine
 * @io:		Engine
 *
 * Return: "auto", "uring", "writev" or "?"
 */
const char *tap_io_name(enum tap_io io)
{
	if ((unsigned int)io >= ARRAY_SIZE(tap_io_names))
		return "?";
	return tap_io_names[io];
}

/**
 * tap_uring_mode() - The engine tap_uring_select() chose
 *
 * Return: TAP_IO_URING or TAP_IO_WRITEV after tap_uring_select(),
 *	   TAP_IO_AUTO before (each thread then tries io_uring)
 */
enum tap_io tap_uring_mode(void)
{
	return tap_uring_sel;
}

#ifdef VNET_HAVE_LIBURING
#include <liburing.h>

#ifndef IORING_SETUP_SUBMIT_ALL
#define IORING_SETUP_SUBMIT_ALL		(1U << 7)
#endif
#ifndef IORING_SETUP_COOP_TASKRUN
#define IORING_SETUP_COOP_TASKRUN	(1U << 8)
#endif
#ifndef IORING_SETUP_SINGLE_ISSUER
#define IORING_SETUP_SINGLE_ISSUER	(1U << 12)
#endif

/**
 * struct tap_uring - One thread's TX ring
 * @ring:	liburing's view of it
 */
struct tap_uring {
	struct io_uring ring;
};

/*
 * Newest first: SINGLE_ISSUER (6.0) lets the kernel skip submission locks,
 * COOP_TASKRUN (5.19) spares the thread IPIs for completions, SUBMIT_ALL
 * (5.18) keeps submitting past a request that fails to start, so one bad
 * request does not end the burst's submission early. R_DISABLED (5.10) is
 * required: restrictions can only be registered on a disabled ring.
 */
static const unsigned int tap_uring_flags[] = {
	IORING_SETUP_R_DISABLED | IORING_SETUP_SUBMIT_ALL |
		IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER,
	IORING_SETUP_R_DISABLED | IORING_SETUP_SUBMIT_ALL |
		IORING_SETUP_COOP_TASKRUN,
	IORING_SETUP_R_DISABLED,
};

/*
 * io_uring_register() itself for RESTRICTIONS and ENABLE_RINGS: Debian 12's
 * liburing2 (2.3) has io_uring_register_restrictions() and
 * io_uring_enable_rings() in its header and static library but not in the
 * shared library's symbol map (added in liburing 2.4).
 */
static int tap_uring_register(struct io_uring *ring, unsigned int op,
			      const void *arg, unsigned int nr)
{
	return syscall(__NR_io_uring_register, ring->ring_fd, op, arg, nr) ?
	       -errno : 0;
}

/* Only WRITEV and READ, no SQE flag, no register op once enabled */
static int tap_uring_restrict(struct io_uring *ring)
{
	struct io_uring_restriction res[3];

	memset(res, 0, sizeof(res));
	res[0].opcode = IORING_RESTRICTION_SQE_OP;
	res[0].sqe_op = IORING_OP_WRITEV;
	res[1].opcode = IORING_RESTRICTION_SQE_OP;
	res[1].sqe_op = IORING_OP_READ;
	res[2].opcode = IORING_RESTRICTION_SQE_FLAGS_ALLOWED;
	res[2].sqe_flags = 0;
	return tap_uring_register(ring, IORING_REGISTER_RESTRICTIONS, res,
				  ARRAY_SIZE(res));
}

static int tap_uring_open(struct tap_uring *u, struct reason *why)
{
	unsigned int i;
	int ret = -EINVAL;

	for (i = 0; i < ARRAY_SIZE(tap_uring_flags); i++) {
		ret = io_uring_queue_init(TAP_URING_ENTRIES, &u->ring,
					  tap_uring_flags[i]);
		if (ret != -EINVAL)
			break;
	}
	if (ret)
		return reason_set(why, ret, "io_uring_setup: %s%s", strerror(-ret),
				  ret == -EPERM || ret == -EACCES ?
				  " (kernel.io_uring_disabled or a seccomp filter)" :
				  ret == -ENOSYS || ret == -EINVAL ?
				  " (kernel older than 5.10 or io_uring compiled out)" : "");
	ret = tap_uring_restrict(&u->ring);
	if (ret) {
		reason_set(why, ret, "IORING_REGISTER_RESTRICTIONS: %s",
			   strerror(-ret));
		goto err_exit;
	}
	ret = tap_uring_register(&u->ring, IORING_REGISTER_ENABLE_RINGS, NULL, 0);
	if (ret) {
		reason_set(why, ret, "IORING_REGISTER_ENABLE_RINGS: %s",
			   strerror(-ret));
		goto err_exit;
	}
	return 0;

err_exit:
	io_uring_queue_exit(&u->ring);
	return ret;
}

/**
 * tap_uring_select() - Decide the TAP TX engine of the process
 * @mode:	What the operator asked for (--tap-io)
 * @why:	Output, when the answer is not io_uring: the reason, one
 *		sentence for the caller's single log line or error
 *
 * Tries a ring as a worker thread will make it (restricted, enabled),
 * then closes it. Call once at start-up, before any worker thread starts
 * (they read the choice unlocked). A filter the process was started under
 * (a container's seccomp profile) is seen here; vnetd's own seccomp filter,
 * installed later, allows the io_uring syscalls (#syscalls: above).
 *
 * Return: TAP_IO_URING or TAP_IO_WRITEV (for @mode writev, or auto when
 *	   io_uring is refused: @why says why; empty in a build without
 *	   liburing, where writev is simply what TAP TX is), -errno if @mode
 *	   is uring and io_uring is refused
 */
int tap_uring_select(enum tap_io mode, struct reason *why)
{
	struct tap_uring u;
	int ret;

	reason_clear(why);
	if (mode == TAP_IO_WRITEV) {
		tap_uring_sel = TAP_IO_WRITEV;
		return TAP_IO_WRITEV;
	}
	ret = tap_uring_open(&u, why);
	if (!ret) {
		io_uring_queue_exit(&u.ring);
		tap_uring_sel = TAP_IO_URING;
		return TAP_IO_URING;
	}
	if (mode == TAP_IO_URING)
		return ret;
	tap_uring_sel = TAP_IO_WRITEV;
	return TAP_IO_WRITEV;
}

/**
 * tap_uring_create() - Make the calling thread's TX ring
 * @up:		Output: the ring
 * @why:	Output on failure: the reason
 *
 * The thread that calls this is the only one that may submit on the ring
 * (IORING_SETUP_SINGLE_ISSUER where the kernel has it).
 *
 * Context: a data path thread at start, never per packet
 * Return: 0, -EOPNOTSUPP if tap_uring_select() chose writev, or -errno
 */
int tap_uring_create(struct tap_uring **up, struct reason *why)
{
	struct tap_uring *u;
	int ret;

	*up = NULL;
	if (tap_uring_sel == TAP_IO_WRITEV)
		return reason_set(why, -EOPNOTSUPP, "--tap-io writev");
	u = calloc(1, sizeof(*u));
	if (!u)
		return reason_set(why, -ENOMEM, "out of memory");
	ret = tap_uring_open(u, why);
	if (ret) {
		free(u);
		return ret;
	}
	*up = u;
	return 0;
}

/**
 * tap_uring_destroy() - Close a ring tap_uring_create() made
 * @u:		Ring, or NULL; nothing may be in flight (tap_uring_writev()
 *		returns only when all its requests completed)
 */
void tap_uring_destroy(struct tap_uring *u)
{
	if (!u)
		return;
	io_uring_queue_exit(&u->ring);
	free(u);
}

/* Copy completions into @res; how many were seen */
static unsigned int tap_uring_reap(struct tap_uring *u, unsigned int n, int *res)
{
	struct io_uring_cqe *cqe;
	unsigned int head, seen = 0;

	io_uring_for_each_cqe(&u->ring, head, cqe) {
		uint64_t k = cqe->user_data;

		if (k < n)
			res[k] = cqe->res;
		seen++;
	}
	io_uring_cq_advance(&u->ring, seen);
	return seen;
}

/*
 * Hand the @n requests just queued to the kernel and wait until every one
 * completed, their results in @res (indexed by user_data).
 */
static void tap_uring_run(struct tap_uring *u, unsigned int n, int *res)
{
	unsigned int got = 0;
	int ret;

	do {
		/*
		 * Submits what the kernel has not consumed yet and waits for
		 * the rest. EINTR, EAGAIN (no memory for requests) and EBUSY
		 * are transient; anything else is a misuse of the ring (wrong
		 * thread, closed fd), our bug, and requests pointing into
		 * the caller's memory may still be pending: stop here.
		 */
		ret = io_uring_submit_and_wait(&u->ring, n - got);
		if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY)
			abort();
		got += tap_uring_reap(u, n, res);
	} while (got < n);
}

/* The next SQE: every earlier request was reaped, so the SQ has room */
static struct io_uring_sqe *tap_uring_sqe(struct tap_uring *u)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	if (!sqe)
		abort();
	return sqe;
}

/**
 * tap_uring_writev() - Write @n frames to @fd, each as its own writev
 * @u:		Ring of the calling thread
 * @fd:		TAP queue fd (O_NONBLOCK)
 * @iov:	Frame k is @iov[k], @cnt[k] entries
 * @cnt:	Entries per frame
 * @n:		Frames, 1..TAP_URING_ENTRIES
 * @res:	Output: per frame, bytes written or -errno, as writev() would
 *
 * The requests are independent: each frame is written or fails on its
 * own, in submission order, and none is ever written twice. Returns only
 * when every request completed: the kernel reads @iov and the memory it
 * points to until then, so the caller may complete (and reuse) them after.
 *
 * Context: the thread that created @u; no allocation, no lock; one
 * io_uring_enter() unless interrupted
 * Return: 0 (@res says what happened to each frame), -EINVAL if @n is out
 *	   of range
 */
int tap_uring_writev(struct tap_uring *u, int fd, struct iovec *const *iov,
		     const unsigned int *cnt, unsigned int n, int *res)
{
	unsigned int k;

	if (!u || !n || n > TAP_URING_ENTRIES)
		return -EINVAL;
	for (k = 0; k < n; k++) {
		struct io_uring_sqe *sqe = tap_uring_sqe(u);

		io_uring_prep_writev(sqe, fd, iov[k], cnt[k], 0);
		io_uring_sqe_set_data64(sqe, k);
		res[k] = -ECANCELED;
	}
	tap_uring_run(u, n, res);
	return 0;
}

/**
 * tap_uring_read() - Read up to @n frames from @fd, each into its own buffer
 * @u:		Ring of the calling thread
 * @fd:		TAP queue fd; a read that finds the queue empty completes
 *		at once with -EAGAIN (RWF_NOWAIT), it never waits
 * @base:	Buffer k starts at @base + k * @stride
 * @stride:	Distance between buffers
 * @len:	Bytes each buffer holds, at most @stride
 * @n:		Reads, 1..TAP_URING_ENTRIES
 * @res:	Output: per buffer, the read's result (bytes or -errno)
 *
 * Independent requests, as tap_uring_writev()'s: the kernel runs them in
 * submission order, so the frames that were read are in queue order by
 * buffer index, a buffer whose read found the queue empty in between
 * (-EAGAIN) notwithstanding. Returns only when every read completed.
 *
 * Context: the thread that created @u; no allocation, no lock; one
 * io_uring_enter() unless interrupted
 * Return: 0 (@res says what each read got), -EINVAL if @n or @len is out
 *	   of range
 */
int tap_uring_read(struct tap_uring *u, int fd, uint8_t *base, size_t stride,
		   size_t len, unsigned int n, int *res)
{
	unsigned int k;

	if (!u || !n || n > TAP_URING_ENTRIES || len > stride ||
	    len > UINT32_MAX)
		return -EINVAL;
	for (k = 0; k < n; k++) {
		struct io_uring_sqe *sqe = tap_uring_sqe(u);

		io_uring_prep_read(sqe, fd, base + k * stride, (unsigned int)len,
				   0);
		/* io_uring arms a poll for an empty pollable file, whatever
		 * its O_NONBLOCK: RWF_NOWAIT makes the read say EAGAIN */
		sqe->rw_flags = RWF_NOWAIT;
		io_uring_sqe_set_data64(sqe, k);
		res[k] = -ECANCELED;
	}
	tap_uring_run(u, n, res);
	return 0;
}

/**
 * tap_uring_try() - Submit one request of any op on the ring, for tests
 * @u:		Ring
 * @opcode:	IORING_OP_*
 * @sqe_flags:	IOSQE_* flags
 *
 * The unit test's proof of the restrictions: every op but WRITEV and
 * READ, and those with any flag, must complete with -EACCES. The request has no
 * fd or buffer (-1, NULL, 0).
 *
 * Context: the thread that created @u, never on the data path
 * Return: the request's result
 */
int tap_uring_try(struct tap_uring *u, unsigned int opcode,
		  unsigned int sqe_flags)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
	int res = -ECANCELED;

	if (!sqe)
		return -EBUSY;
	io_uring_prep_rw((int)opcode, sqe, -1, NULL, 0, 0);
	sqe->flags = (uint8_t)sqe_flags;
	io_uring_sqe_set_data64(sqe, 0);
	while (io_uring_submit_and_wait(&u->ring, 1) == -EINTR)
		;
	tap_uring_reap(u, 1, &res);
	return res;
}

/**
 * tap_uring_try_register() - An io_uring_register() call on the ring, for tests
 * @u:		Ring
 *
 * Asks for IORING_REGISTER_PROBE, which the ring's restrictions refuse.
 *
 * Return: 0 if it was allowed, -EACCES (expected) or another -errno
 */
int tap_uring_try_register(struct tap_uring *u)
{
	struct io_uring_probe *p = calloc(1, sizeof(*p) + 256 * sizeof(p->ops[0]));
	int ret;

	if (!p)
		return -ENOMEM;
	ret = io_uring_register_probe(&u->ring, p, 256);
	free(p);
	return ret;
}

#else /* !VNET_HAVE_LIBURING */

int tap_uring_select(enum tap_io mode, struct reason *why)
{
	reason_clear(why);
	tap_uring_sel = TAP_IO_WRITEV;
	/* auto in a build without liburing: writev, as it always was, silently */
	if (mode != TAP_IO_URING)
		return TAP_IO_WRITEV;
	return reason_set(why, -EOPNOTSUPP, "vnetd was built without liburing");
}

int tap_uring_create(struct tap_uring **up, struct reason *why)
{
	*up = NULL;
	return reason_set(why, -EOPNOTSUPP, "built without liburing");
}

void tap_uring_destroy(struct tap_uring *u)
{
	(void)u;
}

int tap_uring_writev(struct tap_uring *u, int fd, struct iovec *const *iov,
		     const unsigned int *cnt, unsigned int n, int *res)
{
	(void)u;
	(void)fd;
	(void)iov;
	(void)cnt;
	(void)n;
	(void)res;
	return -EOPNOTSUPP;
}

int tap_uring_read(struct tap_uring *u, int fd, uint8_t *base, size_t stride,
		   size_t len, unsigned int n, int *res)
{
	(void)u;
	(void)fd;
	(void)base;
	(void)stride;
	(void)len;
	(void)n;
	(void)res;
	return -EOPNOTSUPP;
}

int tap_uring_try(struct tap_uring *u, unsigned int opcode,
		  unsigned int sqe_flags)
{
	(void)u;
	(void)opcode;
	(void)sqe_flags;
	return -EOPNOTSUPP;
}

int tap_uring_try_register(struct tap_uring *u)
{
	(void)u;
	return -EOPNOTSUPP;
}

#endif /* VNET_HAVE_LIBURING */
