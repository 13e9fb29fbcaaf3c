// SPDX-License-Identifier: MIT
/*
 * test_vq_threads.c - device side and driver side of one ring on two
 * threads, sleeping on eventfds exactly as the notification decisions
 * say: the device waits for a kick after vq_enable_notify() found nothing,
 * and kicks/interrupts are sent only when vq_drv_kick_needed() /
 * vq_flush() ask for them. A wrong barrier or event index shows up as a
 * lost wakeup (both sides asleep: the case fails on a timeout instead of
 * hanging), as a chain with the wrong content, or as a token out of order.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "testlib.h"
#include "vq_testutil.h"

#define WAIT_MS		10000
#define CHAINS		200000u

struct pair {
	struct tenv t;
	int kick, call;
	volatile int failed;
	volatile int done;
	bool zero_len;		/* push length 0 (IN_ORDER: collapsed) */
	const char *why;
	unsigned long kicks, calls, dev_sleeps, drv_sleeps;
};

static struct pair P;

static void fail(const char *why)
{
	if (!P.failed)
		P.why = why;
	P.failed = 1;
}

/* Wait for an eventfd; false on timeout or when the other side failed */
static bool wait_fd(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t v;
	int waited = 0;

	while (!P.failed && !P.done) {
		int ret = poll(&pfd, 1, 100);

		if (ret > 0)
			return read(fd, &v, sizeof(v)) == sizeof(v);
		waited += 100;
		if (waited >= WAIT_MS) {
			fail("timed out waiting for a notification (lost wakeup)");
			return false;
		}
	}
	return false;
}

static void signal_fd(int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) != sizeof(one))
		fail("eventfd write");
}

/* A short, varying pause: widens the windows the notification races live
 * in (between a side's last look at the ring and its enable-recheck) */
static void jitter(unsigned int *seed)
{
	volatile unsigned int spin;
	unsigned int n;

	*seed = *seed * 1103515245u + 12345u;
	n = (*seed >> 16) % 2048;
	for (spin = 0; spin < n; spin++)
		;
}

static void *device_thread(void *arg)
{
	struct vq *vq = &P.t.dev;
	struct vq_chain c;
	unsigned int n = 0, seed = 1;

	(void)arg;
	while (!P.failed && !P.done) {
		int ret = vq_pop(vq, &c);

		if (!ret) {
			if (c.nin != 1 || c.in_len != 1500 || c.nout)
				fail("chain content");
			/* token = the buffer's index in the data area */
			vq_push(vq, &c, P.zero_len ? 0 :
				(uint32_t)((c.gpa[0] - tdata(0)) / 4096));
			if (++n % 16 == 0 && vq_flush(vq)) {
				P.calls++;
				signal_fd(P.call);
			}
			continue;
		}
		if (ret != -EAGAIN) {
			fail(vq_broken_reason(vq));
			break;
		}
		if (vq_flush(vq)) {
			P.calls++;
			signal_fd(P.call);
		}
		jitter(&seed);
		if (vq_enable_notify(vq)) {
			vq_disable_notify(vq);
			continue;
		}
		P.dev_sleeps++;
		if (!wait_fd(P.kick))
			break;
		vq_disable_notify(vq);
	}
	return NULL;
}

static void driver_collect(unsigned int *next_tok, unsigned int *got)
{
	uint32_t tok, len;
	int ret;

	while (!(ret = vq_drv_get_used(&P.t.drv, &tok, &len))) {
		if (tok != *next_tok % 1024 || len != (P.zero_len ? 0 : tok))
			fail("token or length out of order");
		(*next_tok)++;
		(*got)++;
	}
	if (ret != -EAGAIN)
		fail(vq_drv_broken_reason(&P.t.drv));
}

static void *driver_thread(void *arg)
{
	unsigned int sent = 0, got = 0, next_tok = 0, seed = 2;

	(void)arg;
	vq_drv_disable_cb(&P.t.drv);
	while (!P.failed && got < CHAINS) {
		unsigned int before = got, added = 0;

		while (sent < CHAINS) {
			struct vq_buf b = { tdata(sent % 1024), 1500 };

			if (vq_drv_add(&P.t.drv, NULL, 0, &b, 1, sent % 1024))
				break;
			sent++;
			added++;
		}
		if (added && vq_drv_kick_needed(&P.t.drv)) {
			P.kicks++;
			signal_fd(P.kick);
		}
		driver_collect(&next_tok, &got);
		if (got != before)
			continue;
		jitter(&seed);
		if (vq_drv_enable_cb(&P.t.drv)) {
			vq_drv_disable_cb(&P.t.drv);
			continue;
		}
		P.drv_sleeps++;
		if (!wait_fd(P.call))
			break;
		vq_drv_disable_cb(&P.t.drv);
	}
	P.done = 1;
	return NULL;
}

static int run_pair(enum vq_layout l, uint64_t features)
{
	pthread_t dev, drv;
	int ret;

	memset(&P, 0, sizeof(P));
	P.zero_len = features & F_IN_ORDER;
	P.kick = eventfd(0, EFD_CLOEXEC);
	P.call = eventfd(0, EFD_CLOEXEC);
	ret = tenv_init(&P.t, l, 64, features);
	if (P.kick < 0 || P.call < 0 || ret)
		return -1;
	pthread_create(&dev, NULL, device_thread, NULL);
	pthread_create(&drv, NULL, driver_thread, NULL);
	pthread_join(drv, NULL);
	P.done = 1;
	pthread_join(dev, NULL);
	fprintf(stderr, "  # %s%s%s: kicks %lu calls %lu sleeps dev %lu drv %lu%s%s\n",
		l == VQ_PACKED ? "packed" : "split",
		features & F_EVENT_IDX ? " event_idx" : "",
		features & F_IN_ORDER ? " in_order" : "", P.kicks, P.calls,
		P.dev_sleeps, P.drv_sleeps, P.failed ? ": " : "",
		P.failed ? P.why : "");
	tenv_cleanup(&P.t);
	close(P.kick);
	close(P.call);
	return P.failed ? -1 : 0;
}

static void test_split_flags(void)
{
	CHECK_EQ(run_pair(VQ_SPLIT, 0), 0);
}

static void test_split_event_idx(void)
{
	CHECK_EQ(run_pair(VQ_SPLIT, F_EVENT_IDX), 0);
}

static void test_packed_flags(void)
{
	CHECK_EQ(run_pair(VQ_PACKED, 0), 0);
}

static void test_packed_event_idx(void)
{
	CHECK_EQ(run_pair(VQ_PACKED, F_EVENT_IDX), 0);
}

static void test_packed_in_order(void)
{
	CHECK_EQ(run_pair(VQ_PACKED, F_EVENT_IDX | F_IN_ORDER), 0);
}

int main(void)
{
	RUN(test_split_flags);
	RUN(test_split_event_idx);
	RUN(test_packed_flags);
	RUN(test_packed_event_idx);
	RUN(test_packed_in_order);
	return test_exit();
}
