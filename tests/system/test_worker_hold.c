// SPDX-License-Identifier: MIT
/*
 * test_worker_hold.c - the RX hold (rx_policy.h, worker_loop.c) with the tap backend, in a
 * private network namespace: a steady stream of frames written into the
 * TAP from an AF_PACKET socket must all reach the guest's RX ring, once and
 * in order, with few used-ring batches (the hold gathers frames into batches
 * instead of a wake per arrival), no allocation and no mutex lock while
 * they flow; and a lone frame afterwards (the hold ends) still arrives.
 *
 * Skips (77) without root, /dev/net/tun or network namespaces.
 */
/* needs: root netns tun */

#include <sched.h>
#include <stdio.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "testlib.h"
#include "netns_testutil.h"
#include "dp_testutil.h"

#define F(b)		(1ULL << (b))
#define F_V1		F(VIRTIO_F_VERSION_1)
#define F_MRG		F(VIRTIO_NET_F_MRG_RXBUF)
#define F_EIDX		F(VIRTIO_RING_F_EVENT_IDX)
#define BURST		64
#define FRAMES		4096u
#define GAP_NS		4000u
#define FRAME_LEN	100

#ifndef VNET_SANITIZED
#include "alloc_count.h"

static unsigned long n_lock;
static int (*real_lock)(pthread_mutex_t *m);

int pthread_mutex_lock(pthread_mutex_t *m)
{
	if (!real_lock)
		real_lock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT,
							      "pthread_mutex_lock");
	alloc_count_bump(&n_lock);
	return real_lock(m);
}

static void count(int on)
{
	if (on) {
		__atomic_store_n(&alloc_n_alloc, 0, __ATOMIC_SEQ_CST);
		__atomic_store_n(&alloc_n_free, 0, __ATOMIC_SEQ_CST);
		__atomic_store_n(&n_lock, 0, __ATOMIC_SEQ_CST);
	}
	__atomic_store_n(&alloc_counting, on, __ATOMIC_SEQ_CST);
}

static unsigned long counted(void)
{
	return alloc_n_alloc + alloc_n_free + n_lock;
}
#else
static void count(int on) { (void)on; }
static unsigned long counted(void) { return 0; }
#endif

#define TFAIL(...) do { fprintf(stderr, "  " __VA_ARGS__); fprintf(stderr, "\n"); return 1; } while (0)

/* Frame @seq: byte k is seq + k, the pattern dp_recv() checks */
static void frame(uint8_t *f, unsigned long seq)
{
	unsigned int k;

	for (k = 0; k < FRAME_LEN; k++)
		f[k] = (uint8_t)(seq + k);
}

/* Send frames @seq..@seq+@n-1 in one sendmmsg() */
static int send_burst(int s, unsigned long seq, unsigned int n)
{
	static uint8_t f[BURST][FRAME_LEN];
	struct mmsghdr m[BURST];
	struct iovec iov[BURST];
	unsigned int i;

	memset(m, 0, sizeof(m));
	for (i = 0; i < n; i++) {
		frame(f[i], seq + i);
		iov[i].iov_base = f[i];
		iov[i].iov_len = FRAME_LEN;
		m[i].msg_hdr.msg_iov = &iov[i];
		m[i].msg_hdr.msg_iovlen = 1;
	}
	return sendmmsg(s, m, n, 0) == (int)n ? 0 : -1;
}

/* Receive until @*got reaches @want; frames must come in order. 0: done */
static int recv_until(struct dp_env *e, unsigned long *got, unsigned long want)
{
	uint64_t deadline = dp_now_ns() + 5000000000ull;
	uint32_t ok;
	uint8_t first;
	int len;

	while (*got < want) {
		dp_post_rx(e, 0);
		while ((len = dp_recv(e, 0, &first, &ok)) != -EAGAIN) {
			if (len != FRAME_LEN || ok != FRAME_LEN)
				continue;	/* the host stack's own frames */
			if (first != (uint8_t)*got)
				TFAIL("frame %lu out of order (got seed %u)",
				      *got, first);
			++*got;
		}
		if (dp_now_ns() > deadline)
			TFAIL("%lu of %lu frames arrived (worker: %lu delivered, "
			      "%lu kicks)", *got, want,
			      (unsigned long)dp_ctr(&e->pairs[0].rx.ctr.packets),
			      (unsigned long)dp_ctr(&e->pairs[0].rx.ctr.kicks));
		usleep(50);
	}
	return 0;
}

/* Drain what arrived; frames must come in order. Return: 0, 1 on disorder */
static int recv_some(struct dp_env *e, unsigned long *got)
{
	uint32_t ok;
	uint8_t first;
	int len;

	dp_post_rx(e, 0);
	while ((len = dp_recv(e, 0, &first, &ok)) != -EAGAIN) {
		if (len != FRAME_LEN || ok != FRAME_LEN)
			continue;	/* the host stack's own frames */
		if (first != (uint8_t)*got)
			TFAIL("frame %lu out of order (got seed %u)", *got,
			      first);
		++*got;
	}
	return 0;
}

/* @n frames one by one, GAP_NS apart: a steady ~150..250 kpps */
static int send_steady(struct dp_env *e, int s, unsigned long *seq,
		       unsigned long *got, unsigned long n)
{
	uint64_t next = dp_now_ns();
	unsigned long i;

	for (i = 0; i < n; i++) {
		while (dp_now_ns() < next)
			;
		next += GAP_NS;
		if (send_burst(s, (*seq)++, 1))
			TFAIL("send: %s", strerror(errno));
		if (i % 16 == 15 && recv_some(e, got))
			return 1;
	}
	return 0;
}

/* A queue long enough that a preempted worker loses nothing */
static int tap_qlen(const char *name, int qlen)
{
	return test_if_set_int(name, SIOCSIFTXQLEN, qlen);
}

/* Pin the calling thread to the @nth CPU it may use; false if none */
static bool pin_nth(const cpu_set_t *allowed, int nth)
{
	cpu_set_t one;
	int c;

	for (c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, allowed) || nth--)
			continue;
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		return !sched_setaffinity(0, sizeof(one), &one);
	}
	return false;
}

static int hold_case(void)
{
	unsigned long got = 0, seq = 0, batches, n;
	cpu_set_t allowed;
	bool apart;
	struct dp_env e;
	int s;

	/* the worker (which inherits the affinity) on one CPU, we on another */
	apart = !sched_getaffinity(0, sizeof(allowed), &allowed) &&
		CPU_COUNT(&allowed) >= 2 && pin_nth(&allowed, 0);
	if (dp_init_cfg(&e, VQ_SPLIT, F_V1 | F_MRG | F_EIDX, 1, "tap", "vnt-hold"))
		TFAIL("dp_init with tap");
	if (test_if_up("vnt-hold") || tap_qlen("vnt-hold", 20000))
		TFAIL("link up, txqueuelen");
	s = test_packet_sock("vnt-hold");
	if (s < 0 || dp_start(&e, NULL))
		TFAIL("packet socket / pool");
	apart = apart && pin_nth(&allowed, 1);
	/* warm up: threads, first faults, the packet socket's route */
	if (send_burst(s, seq, BURST) || recv_until(&e, &got, seq += BURST))
		return 1;
	batches = dp_ctr(&e.pairs[0].rx.ctr.batches);
	count(1);
	if (send_steady(&e, s, &seq, &got, FRAMES) || recv_until(&e, &got, seq))
		return 1;
	count(0);
	n = counted();
	usleep(300000);		/* the worker commits its counters asleep */
	batches = dp_ctr(&e.pairs[0].rx.ctr.batches) - batches;
	printf("# %u frames, one every %u ns: %lu used-ring batches\n", FRAMES,
	       GAP_NS, batches);
	fflush(stdout);		/* the child ends with _exit() */
	if (n)
		TFAIL("%lu allocations, frees or mutex locks while frames "
		      "flowed", n);
	/* a wake per arrival: a batch per frame or two (1500+ here) */
	if (!apart)
		printf("# fewer than 2 CPUs: used-ring batches not checked\n");
	else if (batches > FRAMES / 8)
		TFAIL("%lu used-ring batches for %u frames: the RX hold did not "
		      "gather them", batches, FRAMES);
	/* a lone frame afterwards: the hold ended, it still arrives */
	if (send_burst(s, seq, 1) || recv_until(&e, &got, seq += 1))
		return 1;
	close(s);
	dp_cleanup(&e);
	return 0;
}

static void test_hold_tap(void)
{
	pid_t pid;
	int st;

	if (geteuid() != 0)
		SKIP("tap: needs root (CAP_NET_ADMIN)");
	if (access("/dev/net/tun", R_OK | W_OK))
		SKIP("tap: /dev/net/tun missing or not accessible");
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		if (unshare(CLONE_NEWNET))
			_exit(77);
		_exit(hold_case());
	}
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77)
		SKIP("tap: unshare(CLONE_NEWNET) failed: no network namespaces");
	CHECK_EQ(WEXITSTATUS(st), 0);
}

int main(void)
{
	RUN(test_hold_tap);
	return test_exit();
}
