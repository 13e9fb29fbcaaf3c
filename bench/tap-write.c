// SPDX-License-Identifier: MIT
/*
 * tap-write.c - what one CPU can write into a TAP, per frame: whether
 * submitting a batch of writes at once would pay. vnetd sends each guest TX
 * frame with one writev() (host_tap.c); io_uring could submit a whole
 * batch in one io_uring_enter(). This program writes 64 B frames with a
 * 12-byte virtio-net header (as vnetd does) into a TAP it creates, either
 * one writev() each or BATCH writev SQEs per submission (registered file,
 * no SQPOLL thread: vnetd's workers are the only threads allowed to spin),
 * and prints frames/s. bench/tap-write.sh alternates the two and takes
 * medians. The frames are sent from memory this thread wrote itself, so
 * the figure is the TAP's own cost, without the cache misses of reading a
 * guest's buffers.
 *
 * Usage: tap-write IFNAME writev|uring SECONDS [BATCH]
 * Output: "MODE BATCH MPPS"; exit 0, 1 on error, 77 without io_uring
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include <liburing.h>

#include "bench_tap.h"

#define FRAMES	256
#define HDR_LEN	BENCH_TAP_HDR_LEN
#define LEN	64

static unsigned char frame[FRAMES][LEN];
static unsigned char hdr[FRAMES][HDR_LEN];
static struct iovec iov[FRAMES][2];

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static long run_writev(int fd, double secs)
{
	double t0 = now();
	long n = 0;
	int k;

	do {
		for (k = 0; k < 1024; k++)
			n += syscall(SYS_writev, fd, iov[k % FRAMES], 2) > 0;
	} while (now() - t0 < secs);
	return n;
}

static long run_uring(int fd, double secs, unsigned int batch)
{
	struct io_uring r;
	double t0 = now();
	long n = 0;
	unsigned int i, k, head, seen;
	struct io_uring_cqe *c;

	if (io_uring_queue_init(FRAMES, &r, 0) ||
	    io_uring_register_files(&r, &fd, 1))
		return -1;
	do {
		for (k = 0; k < 1024 / batch; k++) {
			for (i = 0; i < batch; i++) {
				struct io_uring_sqe *s = io_uring_get_sqe(&r);

				io_uring_prep_writev(s, 0, iov[i], 2, 0);
				s->flags |= IOSQE_FIXED_FILE;
			}
			if (io_uring_submit_and_wait(&r, batch) < 0)
				return -1;
			seen = 0;
			io_uring_for_each_cqe(&r, head, c) {
				n += c->res > 0;
				seen++;
			}
			io_uring_cq_advance(&r, seen);
		}
	} while (now() - t0 < secs);
	io_uring_queue_exit(&r);
	return n;
}

int main(int argc, char **argv)
{
	unsigned int batch = argc > 4 ? (unsigned int)atoi(argv[4]) : 32, i;
	double secs = argc > 3 ? atof(argv[3]) : 2, t0;
	long n;
	int fd;

	if (argc < 4 || (strcmp(argv[2], "writev") && strcmp(argv[2], "uring")) ||
	    secs <= 0 || batch < 1 || batch > FRAMES) {
		fprintf(stderr, "usage: tap-write IFNAME writev|uring SECONDS [BATCH 1..%d]\n",
			FRAMES);
		return 1;
	}
	fd = bench_tap_open(argv[1]);
	if (fd < 0) {
		fprintf(stderr, "tap-write: TAP %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (i = 0; i < FRAMES; i++) {
		memset(frame[i], 0xff, 6);	/* broadcast, from 02:00:00:00:00:01 */
		frame[i][6] = 2;
		frame[i][11] = 1;
		frame[i][12] = 0x88;		/* local experimental ethertype */
		frame[i][13] = 0xb5;
		iov[i][0] = (struct iovec){ hdr[i], HDR_LEN };
		iov[i][1] = (struct iovec){ frame[i], LEN };
	}
	t0 = now();
	n = strcmp(argv[2], "uring") ? run_writev(fd, secs) : run_uring(fd, secs, batch);
	if (n < 0) {
		fprintf(stderr, "tap-write: io_uring: %s\n", strerror(errno));
		return 77;
	}
	printf("%s %u %.3f\n", argv[2], strcmp(argv[2], "uring") ? 1 : batch,
	       (double)n / (now() - t0) / 1e6);
	return 0;
}
