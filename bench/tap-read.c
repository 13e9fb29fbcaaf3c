// SPDX-License-Identifier: MIT
/*
 * tap-read.c - what one CPU pays, per frame, to read host -> guest frames
 * out of a TAP at a given offered rate: whether host -> guest reads can be
 * made cheap at moderate load, asked at the syscall level before building an
 * engine into vnetd, as bench/tap-write.c asked it for TX. Frames come from
 * bench/tap-sender (paced, on another CPU); this program reads them with
 * one of three engines and prints its own CPU time (user + system) per
 * frame read:
 *
 *   readv      sleep in epoll_wait(); on a wake, one readv() per frame until
 *              one says EAGAIN (vnetd's direct path, host_tap.c)
 *   batch      sleep in epoll_wait(); on a wake, one io_uring_enter() of
 *              READ requests with RWF_NOWAIT, as many as the last wake
 *              found plus one, again while a batch comes back full (vnetd's
 *              RX batch, rx_policy.c rx_batch_filled(), in its simplest form)
 *   multishot  one IORING_OP_READ_MULTISHOT request into a ring of provided
 *              buffers, on a ring with SINGLE_ISSUER | DEFER_TASKRUN: the
 *              kernel reads the queue dry in the task work of the one
 *              io_uring_enter() that waits for completions, and re-arms its
 *              poll itself; no read ever finds the queue empty in our time
 *
 * Each frame is read into a 2 KiB buffer with a 12-byte vnet header, as
 * vnetd's TAP queues are set up; nothing is copied further (vnetd's copy
 * into guest memory is the same for every engine). With HOLD_US, each
 * engine sleeps that long after every drain before it waits again, as
 * vnetd's worker holds its RX at 20 kpps and more (worker.c): frames gather
 * and a wake reads a batch.
 *
 * Usage: tap-read IFNAME readv|batch|multishot SECONDS [HOLD_US]
 * Output: "MODE FRAMES NS_PER_FRAME WAKES"; exit 0, 1 on error, 77 when the
 *	   kernel refuses the engine (no io_uring, no multishot read: < 6.7)
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/uio.h>

#include <liburing.h>

#include "bench_tap.h"

#ifndef IORING_OP_READ_MULTISHOT
#define IORING_OP_READ_MULTISHOT	49	/* Linux 6.7 */
#endif

#define BUF_SIZE	2048
#define NBUF		256	/* a power of two: the provided buffer ring */
#define BGID		1

static uint8_t bufs[NBUF][BUF_SIZE];
static long frames, wakes;
static struct timespec hold;	/* after each drain; zero: none */

static void hold_sleep(void)
{
	if (hold.tv_nsec)
		nanosleep(&hold, NULL);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double cpu_ns(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return ((double)u.ru_utime.tv_sec + (double)u.ru_stime.tv_sec) * 1e9 +
	       ((double)u.ru_utime.tv_usec + (double)u.ru_stime.tv_usec) * 1e3;
}

static int epoll_for(int fd)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(EPOLL_CLOEXEC);

	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
		return -1;
	return ep;
}

static int run_readv(int fd, double secs)
{
	struct epoll_event ev;
	double t0 = now();
	int ep = epoll_for(fd);

	if (ep < 0)
		return -1;
	while (now() - t0 < secs) {
		if (epoll_wait(ep, &ev, 1, 100) <= 0)
			continue;
		wakes++;
		for (;;) {
			struct iovec iov = { bufs[0], BUF_SIZE };

			if (readv(fd, &iov, 1) <= 0)
				break;
			frames++;
		}
		hold_sleep();
	}
	close(ep);
	return 0;
}

/* Submit @n READs with RWF_NOWAIT, wait for all; frames read */
static unsigned int batch_read(struct io_uring *r, int fd, unsigned int n)
{
	struct io_uring_cqe *c;
	unsigned int i, head, seen = 0, got = 0;

	for (i = 0; i < n; i++) {
		struct io_uring_sqe *s = io_uring_get_sqe(r);

		io_uring_prep_read(s, fd, bufs[i], BUF_SIZE, 0);
		s->rw_flags = RWF_NOWAIT;
	}
	while (seen < n) {
		unsigned int k = 0;

		if (io_uring_submit_and_wait(r, n - seen) < 0)
			return got;
		io_uring_for_each_cqe(r, head, c) {
			got += c->res > 0;
			k++;
		}
		io_uring_cq_advance(r, k);
		seen += k;
	}
	return got;
}

static int run_batch(int fd, double secs)
{
	struct epoll_event ev;
	struct io_uring r;
	unsigned int want = 1, n, got, total;
	double t0 = now();
	int ep = epoll_for(fd);

	if (ep < 0 || io_uring_queue_init(NBUF, &r, 0))
		return -1;
	while (now() - t0 < secs) {
		if (epoll_wait(ep, &ev, 1, 100) <= 0)
			continue;
		wakes++;
		/* what the last wake found, and one more; double while full */
		total = 0;
		for (n = want;; n = n * 2 > NBUF ? NBUF : n * 2) {
			got = batch_read(&r, fd, n);
			total += got;
			if (got < n)
				break;
		}
		frames += total;
		want = total + 1 > NBUF ? NBUF : total + 1;
		hold_sleep();
	}
	io_uring_queue_exit(&r);
	close(ep);
	return 0;
}

static void mshot_arm(struct io_uring *r, int fd)
{
	struct io_uring_sqe *s = io_uring_get_sqe(r);

	io_uring_prep_rw(IORING_OP_READ_MULTISHOT, s, fd, NULL, 0, 0);
	s->flags |= IOSQE_BUFFER_SELECT;
	s->buf_group = BGID;
}

static int run_multishot(int fd, double secs)
{
	struct io_uring_buf_reg reg = { .ring_entries = NBUF, .bgid = BGID };
	struct io_uring_buf_ring *br;
	struct io_uring_cqe *c;
	struct io_uring r;
	double t0 = now();
	unsigned int i, head, k;
	int ret;

	ret = io_uring_queue_init(NBUF, &r, IORING_SETUP_SINGLE_ISSUER |
				  IORING_SETUP_DEFER_TASKRUN);
	if (ret)
		return ret;
	if (posix_memalign((void **)&br, 4096, NBUF * sizeof(struct io_uring_buf)))
		return -ENOMEM;
	io_uring_buf_ring_init(br);
	reg.ring_addr = (uintptr_t)br;
	ret = io_uring_register_buf_ring(&r, &reg, 0);
	if (ret)
		return ret;
	for (i = 0; i < NBUF; i++)
		io_uring_buf_ring_add(br, bufs[i], BUF_SIZE, (unsigned short)i,
				      io_uring_buf_ring_mask(NBUF), (int)i);
	io_uring_buf_ring_advance(br, NBUF);
	mshot_arm(&r, fd);
	while (now() - t0 < secs) {
		struct __kernel_timespec ts = { .tv_nsec = 100000000 };

		ret = io_uring_submit_and_wait_timeout(&r, &c, 1, &ts, NULL);
		if (ret < 0 && ret != -ETIME && ret != -EINTR)
			return ret;
		wakes++;
		k = 0;
		io_uring_for_each_cqe(&r, head, c) {
			k++;
			if (c->res == -EINVAL || c->res == -EOPNOTSUPP)
				return c->res;	/* no multishot read here */
			if (c->res > 0) {
				unsigned int id = c->flags >> IORING_CQE_BUFFER_SHIFT;

				frames++;
				io_uring_buf_ring_add(br, bufs[id % NBUF], BUF_SIZE,
						      (unsigned short)(id % NBUF),
						      io_uring_buf_ring_mask(NBUF), 0);
				io_uring_buf_ring_advance(br, 1);
			}
			/* out of buffers, or an error: the request ended */
			if (!(c->flags & IORING_CQE_F_MORE))
				mshot_arm(&r, fd);
		}
		io_uring_cq_advance(&r, k);
		hold_sleep();
	}
	io_uring_queue_exit(&r);
	return 0;
}

int main(int argc, char **argv)
{
	double secs = argc > 3 ? atof(argv[3]) : 0, c0, c1;
	long hold_us = argc > 4 ? atol(argv[4]) : 0;
	int fd, ret;

	if (argc < 4 || secs <= 0 || hold_us < 0 || hold_us > 999999 ||
	    (strcmp(argv[2], "readv") && strcmp(argv[2], "batch") &&
	     strcmp(argv[2], "multishot"))) {
		fprintf(stderr, "usage: tap-read IFNAME readv|batch|multishot SECONDS [HOLD_US 0..999999]\n");
		return 1;
	}
	hold.tv_nsec = hold_us * 1000;
	fd = bench_tap_open(argv[1]);
	if (fd < 0) {
		fprintf(stderr, "tap-read: TAP %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	c0 = cpu_ns();
	if (!strcmp(argv[2], "readv"))
		ret = run_readv(fd, secs);
	else if (!strcmp(argv[2], "batch"))
		ret = run_batch(fd, secs);
	else
		ret = run_multishot(fd, secs);
	c1 = cpu_ns();
	if (ret) {
		fprintf(stderr, "tap-read: %s: %s\n", argv[2], strerror(-ret));
		return 77;
	}
	printf("%s %ld %.1f %ld\n", argv[2], frames,
	       frames ? (c1 - c0) / (double)frames : 0.0, wakes);
	return 0;
}
