// SPDX-License-Identifier: MIT
/*
 * test_tap_uring.c - batched guest TX into a real TAP (tap_uring.c through
 * host_tap's tx_batch and net_tx_burst): a worker sends bursts through its
 * io_uring and the frames come out of the TAP in ring order, exactly once;
 * anti-spoofing still drops what it must on that path; the ring refuses
 * every op but WRITEV and READ (RX batches: test_tap_rx_batch.c), any SQE
 * flag, and register calls; --tap-io
 * writev still sends, with no ring made; so does auto where a seccomp
 * filter refuses io_uring_setup (as a container's profile does), while
 * --tap-io uring then fails with the reason. Bursts of chains with ~100
 * descriptors each need more than NET_MAX_IOV iovecs: net.c sends what
 * fits, then the rest, and still every frame goes out once, in order,
 * byte for byte.
 *
 * Each TAP case runs in a child in its own network namespace. Skips (77)
 * with a reason without root, /dev/net/tun, namespaces, liburing or
 * io_uring (kernel.io_uring_disabled, a container's seccomp).
 */
/* needs: root netns tun */

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/filter.h>
#include <linux/io_uring.h>
#include <linux/seccomp.h>

#include "testlib.h"
/* room for a burst of MANY_DESC-descriptor chains (and the spill area for
 * them: vq.c sizes it 2 * ring + 16) */
#define DP_RING		2048
#include "dp_testutil.h"
#include "netns_testutil.h"
#include "tap_uring.h"

#define F(b)		(1ULL << (b))
#define F_V1		F(VIRTIO_F_VERSION_1)
#define TAPN		"vnt-uring"
#define NFRAMES		40	/* two full bursts of NET_TX_BURST and a part */
#define SEED_OK		0x20	/* src MAC 26:27:28:29:2a:2b */
#define SEED_BAD	0x50

#define MANY_DESC	100	/* per chain: NET_TX_BURST of them > NET_MAX_IOV */
#define MANY_ROUNDS	2	/* bursts: the second starts from a clean batch */

#define TFAIL(...) do { fprintf(stderr, "  " __VA_ARGS__); fprintf(stderr, "\n"); return 1; } while (0)

/*
 * How long tap_next() waits, in 20 ms polls: for a frame we sent (2 s: a
 * loaded machine), and for the absence of one more after the last (0.5 s,
 * after 50 ms; a duplicate is written with its burst, not seconds later)
 */
#define NEXT_POLLS	100
#define QUIET_POLLS	25

/**
 * tap_next() - The next frame the TAP took from us (not the kernel's own)
 * @s:		Packet socket on the TAP
 * @buf:	Where the frame goes
 * @len:	Size of @buf
 * @polls:	How many 20 ms polls to wait at most
 *
 * Return: the frame's length, or -1 if none came
 */
static int tap_next(int s, uint8_t *buf, size_t len, int polls)
{
	struct pollfd p = { .fd = s, .events = POLLIN };
	struct sockaddr_ll from;
	socklen_t fl;
	ssize_t n;
	int i;

	for (i = 0; i < polls; i++) {
		fl = sizeof(from);
		n = recvfrom(s, buf, len, 0, (struct sockaddr *)&from, &fl);
		if (n < 0) {
			poll(&p, 1, 20);
			continue;
		}
		/* ours: dp_send()'s pattern, byte k = seed + k */
		if (from.sll_pkttype != PACKET_OUTGOING && n >= 14 &&
		    buf[1] == (uint8_t)(buf[0] + 1) && buf[13] == (uint8_t)(buf[0] + 13))
			return (int)n;
	}
	return -1;
}

/*
 * Queue NFRAMES frames (frame k: 60 + k bytes; seed SEED_BAD for odd k
 * when @spoof) and kick once, so the worker pops full bursts; then expect
 * every frame the policy lets through, in order, once, and nothing else.
 */
static int tap_burst(bool spoof, bool want_ring)
{
	static const uint8_t mac[6] = { SEED_OK + 6, SEED_OK + 7, SEED_OK + 8,
					SEED_OK + 9, SEED_OK + 10, SEED_OK + 11 };
	struct worker_opts o = { 0 };
	unsigned int k, want = 0;
	struct ring_counters *c;
	uint8_t buf[2048];
	struct dp_env e;
	int s, n, rings;

	if (spoof) {
		o.spoof.mac_lock = true;
		spoof_finish(&o.spoof, mac);
	}
	if (dp_init_cfg(&e, VQ_SPLIT, F_V1, 1, "tap", TAPN))
		TFAIL("dp_init_cfg: tap %s", TAPN);
	s = test_packet_sock(TAPN);
	if (s < 0)
		TFAIL("packet socket: %s", strerror(errno));
	if (dp_start(&e, &o))
		TFAIL("worker pool");
	for (k = 0; k < NFRAMES; k++) {
		uint8_t seed = spoof && (k & 1) ? SEED_BAD : SEED_OK;

		if (dp_send(&e, 0, 60 + k, seed, false))
			TFAIL("dp_send %u", k);
	}
	dp_kick(&e.pairs[0].tx, &e.tx[0]);
	for (k = 0; k < NFRAMES; k++) {
		if (spoof && (k & 1))
			continue;
		n = tap_next(s, buf, sizeof(buf), NEXT_POLLS);
		if (n != (int)(60 + k))
			TFAIL("frame %u: got %d bytes, want %u (order or loss)", k, n, 60 + k);
		want++;
	}
	/* nothing more: no frame written twice */
	usleep(50000);
	n = tap_next(s, buf, sizeof(buf), QUIET_POLLS);
	if (n >= 0)
		TFAIL("one more frame of %d bytes: a duplicate", n);
	rings = test_count_urings();
	c = &e.pairs[0].tx.ctr;
	for (k = 0; k < 100 && dp_ctr(&c->packets) + dp_ctr(&c->drops[DROP_SPOOF]) < NFRAMES; k++)
		usleep(10000);
	if (dp_ctr(&c->packets) != want)
		TFAIL("packets counter %llu, want %u",
		      (unsigned long long)dp_ctr(&c->packets), want);
	if (dp_ctr(&c->drops[DROP_SPOOF]) != NFRAMES - want)
		TFAIL("spoof drops %llu, want %u",
		      (unsigned long long)dp_ctr(&c->drops[DROP_SPOOF]), NFRAMES - want);
	if (dp_ctr(&c->drops[DROP_HOST]))
		TFAIL("host drops %llu", (unsigned long long)dp_ctr(&c->drops[DROP_HOST]));
	if (dp_reap_tx(&e, 0) != NFRAMES)
		TFAIL("not every chain completed");
	close(s);
	dp_cleanup(&e);
	if (want_ring && rings != 1)
		TFAIL("%d io_uring instances while the worker ran, want 1", rings);
	if (!want_ring && rings != 0)
		TFAIL("%d io_uring instances with --tap-io writev, want 0", rings);
	if (test_count_urings() != 0)
		TFAIL("the worker's ring outlived it");
	return 0;
}

static int case_burst(void) { return tap_burst(false, true); }
static int case_spoof(void) { return tap_burst(true, true); }

static int case_writev(void)
{
	struct reason why;

	if (tap_uring_select(TAP_IO_WRITEV, &why) != TAP_IO_WRITEV)
		TFAIL("select writev");
	return tap_burst(false, false) || tap_burst(true, false);
}

/* What a container's seccomp profile does: io_uring_setup fails with EPERM */
static int refuse_io_uring(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = ARRAY_SIZE(f), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		return -1;
	return 0;
}

/* io_uring refused: uring fails with the reason, auto says why and sends */
static int case_refused(void)
{
	struct reason why;

	if (refuse_io_uring())
		TFAIL("seccomp filter: %s", strerror(errno));
	if (tap_uring_select(TAP_IO_URING, &why) != -EPERM || !strstr(why.msg, "io_uring_setup"))
		TFAIL("--tap-io uring refused: %s", why.msg);
	if (tap_uring_select(TAP_IO_AUTO, &why) != TAP_IO_WRITEV ||
	    !strstr(why.msg, "io_uring_setup: Operation not permitted"))
		TFAIL("--tap-io auto refused: %s", why.msg);
	return tap_burst(false, false);
}

/*
 * Queue a @len byte frame (byte i: @seed + i) on pair 0's TX as MANY_DESC
 * descriptors: the vnet header alone, then the frame in MANY_DESC - 1
 * pieces of one slot; token: the slot
 */
static int send_pieces(struct dp_env *e, uint32_t len, uint8_t seed)
{
	struct vq_buf b[MANY_DESC];
	struct dp_drv *d = &e->tx[0];
	uint32_t k, off, piece;
	unsigned int s, j;
	uint8_t *p;

	for (s = 0; s < DP_RING && d->busy[s]; s++)
		;
	if (s == DP_RING || len < MANY_DESC - 1 || len + e->hdr_len > DP_SLOT)
		return -ENOSPC;
	p = dp_host(e, d->base + (uint64_t)s * DP_SLOT);
	memset(p, 0, e->hdr_len);
	for (k = 0; k < len; k++)
		p[e->hdr_len + k] = (uint8_t)(seed + k);
	b[0].gpa = d->base + (uint64_t)s * DP_SLOT;
	b[0].len = e->hdr_len;
	for (j = 1, off = e->hdr_len; j < MANY_DESC; j++, off += piece) {
		piece = len / (MANY_DESC - 1) + (j <= len % (MANY_DESC - 1));
		b[j].gpa = b[0].gpa + off;
		b[j].len = piece;
	}
	if (vq_drv_add(&d->vq, b, MANY_DESC, NULL, 0, s))
		return -ENOSPC;
	d->busy[s] = true;
	return 0;
}

/* Frame @k of the many-iovec case: 800..1017 bytes, its own pattern */
static uint32_t many_len(unsigned int k) { return 800 + 7 * k; }
static uint8_t many_seed(unsigned int k) { return (uint8_t)(0x40 + k); }

/*
 * MANY_ROUNDS bursts of NET_TX_BURST chains, each chain MANY_DESC
 * descriptors (one frame iovec each, plus the header copy): a burst needs
 * about 1,600 iovecs of the 1,024 in the scratch area, so the batch is
 * flushed and the chain that did not fit is retried. Every frame must
 * come out of the TAP once, in ring order, with its own bytes.
 */
static int tap_many_iov(bool want_ring)
{
	unsigned int r, k, i, total = 0;
	struct ring_counters *c;
	uint8_t buf[2048];
	struct dp_env e;
	int s, n, rings;

	if (dp_init_cfg(&e, VQ_SPLIT, F_V1, 1, "tap", TAPN))
		TFAIL("dp_init_cfg: tap %s", TAPN);
	s = test_packet_sock(TAPN);
	if (s < 0)
		TFAIL("packet socket: %s", strerror(errno));
	if (dp_start(&e, NULL))
		TFAIL("worker pool");
	c = &e.pairs[0].tx.ctr;
	for (r = 0; r < MANY_ROUNDS; r++) {
		unsigned int done = 0;

		/* all visible at the kick: the worker pops one full burst */
		for (k = total; k < total + NET_TX_BURST; k++)
			if (send_pieces(&e, many_len(k), many_seed(k)))
				TFAIL("send_pieces %u", k);
		dp_kick(&e.pairs[0].tx, &e.tx[0]);
		for (k = total; k < total + NET_TX_BURST; k++) {
			n = tap_next(s, buf, sizeof(buf), NEXT_POLLS);
			if (n != (int)many_len(k))
				TFAIL("round %u frame %u: got %d bytes, want %u (order or loss)",
				      r, k, n, many_len(k));
			for (i = 0; i < (unsigned int)n; i++)
				if (buf[i] != (uint8_t)(many_seed(k) + i))
					TFAIL("frame %u byte %u: 0x%02x, want 0x%02x",
					      k, i, buf[i], (uint8_t)(many_seed(k) + i));
		}
		total += NET_TX_BURST;
		for (i = 0; i < 100 && done < NET_TX_BURST; i++) {
			done += dp_reap_tx(&e, 0);
			if (done < NET_TX_BURST)
				usleep(10000);
		}
		if (done != NET_TX_BURST)
			TFAIL("round %u: %u of %d chains completed", r, done, NET_TX_BURST);
	}
	usleep(50000);
	n = tap_next(s, buf, sizeof(buf), QUIET_POLLS);
	if (n >= 0)
		TFAIL("one more frame of %d bytes: a duplicate", n);
	rings = test_count_urings();
	/* the worker adds its counts after the used-ring flush we reaped */
	for (i = 0; i < 100 && dp_ctr(&c->packets) < total; i++)
		usleep(10000);
	if (dp_ctr(&c->packets) != total)
		TFAIL("packets counter %llu, want %u",
		      (unsigned long long)dp_ctr(&c->packets), total);
	for (i = 0; i < DROP_MAX; i++)
		if (dp_ctr(&c->drops[i]))
			TFAIL("drops[%u] %llu", i, (unsigned long long)dp_ctr(&c->drops[i]));
	close(s);
	dp_cleanup(&e);
	if (rings != (want_ring ? 1 : 0))
		TFAIL("%d io_uring instances while the worker ran, want %d",
		      rings, want_ring ? 1 : 0);
	return 0;
}

static int case_many_iov(void) { return tap_many_iov(true); }

/* the same frames one writev() each: the reference the batch must match */
static int case_many_iov_writev(void)
{
	struct reason why;

	if (tap_uring_select(TAP_IO_WRITEV, &why) != TAP_IO_WRITEV)
		TFAIL("select writev");
	return tap_many_iov(false);
}

static void test_many_iov_burst(void) { RUN_NETNS_URING(case_many_iov); }
static void test_many_iov_writev(void) { RUN_NETNS(case_many_iov_writev); }

/* case_refused needs io_uring allowed, to see its own filter refuse it */
static void test_refused_fallback(void) { RUN_NETNS_URING(case_refused); }
static void test_burst_in_order_once(void) { RUN_NETNS_URING(case_burst); }
static void test_burst_spoof(void) { RUN_NETNS_URING(case_spoof); }

static void test_writev_fallback(void)
{
	RUN_NETNS(case_writev);
}

/* Only WRITEV and READ, no SQE flag, no register call */
static void test_restricted(void)
{
	const char *why = test_uring_refused();
	struct reason r;
	struct tap_uring *u;

	if (why)
		SKIP("io_uring refused: %s", why);
	CHECK_EQ(tap_uring_create(&u, &r), 0);
	CHECK_EQ(tap_uring_try(u, IORING_OP_NOP, 0), -EACCES);
	CHECK_EQ(tap_uring_try(u, IORING_OP_OPENAT, 0), -EACCES);
	CHECK_EQ(tap_uring_try(u, IORING_OP_READV, 0), -EACCES);
	CHECK_EQ(tap_uring_try(u, IORING_OP_WRITE, 0), -EACCES);
	CHECK_EQ(tap_uring_try(u, IORING_OP_WRITEV, IOSQE_IO_LINK), -EACCES);
	CHECK_EQ(tap_uring_try(u, IORING_OP_WRITEV, IOSQE_FIXED_FILE), -EACCES);
	CHECK_EQ(tap_uring_try(u, IORING_OP_READ, IOSQE_FIXED_FILE), -EACCES);
	CHECK_EQ(tap_uring_try(u, IORING_OP_READ, IOSQE_BUFFER_SELECT), -EACCES);
	/* the allowed ops get past the restriction: fd -1 is the next check */
	CHECK_EQ(tap_uring_try(u, IORING_OP_WRITEV, 0), -EBADF);
	CHECK_EQ(tap_uring_try(u, IORING_OP_READ, 0), -EBADF);
	CHECK_EQ(tap_uring_try_register(u), -EACCES);
	tap_uring_destroy(u);
}

/* --tap-io values, and what select says */
static void test_select(void)
{
	const char *refused = test_uring_refused();
	struct reason why;
	enum tap_io io;

	CHECK_EQ(tap_io_parse("auto", &io), 0);
	CHECK_EQ(io, TAP_IO_AUTO);
	CHECK_EQ(tap_io_parse("uring", &io), 0);
	CHECK_EQ(io, TAP_IO_URING);
	CHECK_EQ(tap_io_parse("writev", &io), 0);
	CHECK_EQ(io, TAP_IO_WRITEV);
	CHECK_EQ(tap_io_parse("io_uring", &io), -EINVAL);
	CHECK(!strcmp(tap_io_name(TAP_IO_WRITEV), "writev"));
	if (refused) {
		CHECK(tap_uring_select(TAP_IO_URING, &why) < 0);
		CHECK(why.msg[0]);
		CHECK_EQ(tap_uring_select(TAP_IO_AUTO, &why), TAP_IO_WRITEV);
#ifdef VNET_HAVE_LIBURING
		CHECK(why.msg[0]);	/* the one start-up line says why */
#else
		CHECK(!why.msg[0]);	/* no liburing: writev as ever, no line */
#endif
	} else {
		CHECK_EQ(tap_uring_select(TAP_IO_URING, &why), TAP_IO_URING);
		CHECK_EQ(tap_uring_select(TAP_IO_AUTO, &why), TAP_IO_URING);
	}
	CHECK_EQ(tap_uring_mode(), refused ? TAP_IO_WRITEV : TAP_IO_URING);
}

int main(void)
{
	RUN(test_restricted);
	RUN(test_burst_in_order_once);
	RUN(test_burst_spoof);
	RUN(test_writev_fallback);
	RUN(test_many_iov_burst);
	RUN(test_many_iov_writev);
	RUN(test_refused_fallback);
	RUN(test_select);	/* last: it sets the process's engine */
	return test_exit();
}
