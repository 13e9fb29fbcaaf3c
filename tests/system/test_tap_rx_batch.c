// SPDX-License-Identifier: MIT
/*
 * test_tap_rx_batch.c - host -> guest through a real TAP in batches read
 * by io_uring (host_tap.c rx_fill, tap_uring_read(), net.c net_rx_peek()):
 *
 * - host level: frames the host stack sends into the TAP are read by one
 *   rx_fill() call each batch, as many as the rule says (rx_policy.c
 *   rx_batch_filled(): RX_BATCH_FIRST reads first and after the first
 *   full batch past the estimate, twice as many after a further one, and
 *   once the queue was found empty, one more than the frames read since
 *   it was empty before: the next wake of a steady stream takes all its
 *   frames in one fill), then given by
 *   rx_peek_len()/rx() in queue order,
 *   byte for byte; an empty queue fills nothing (the reads said EAGAIN and
 *   did not wait); a frame over RX_BATCH_COPY_MAX sends the next
 *   RX_BATCH_DIRECT reads straight to the caller's buffers, and batches come
 *   back after them; a frame too big for the caller's buffers is consumed
 *   and refused with -EMSGSIZE;
 * - worker level: a stream sent into the TAP reaches the guest's RX ring
 *   in order, each frame once, through the worker's ring;
 * - an upgrade's drain (vu_dev_drain_pair()) delivers the frames a batch
 *   holds and does not read the TAP's kernel queue.
 *
 * Each case runs in a child in its own network namespace (killed by an
 * alarm if a read waits instead of saying EAGAIN); skips (77) with
 * a reason without root, /dev/net/tun, namespaces or io_uring.
 */
/* needs: root netns tun */

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <net/if.h>
#include <sys/ioctl.h>

#include "testlib.h"
#include "dp_testutil.h"
#include "netns_testutil.h"
#include "tap_uring.h"
#include "vu_dev_upgrade.h"

#define F(b)		(1ULL << (b))
#define F_V1		F(VIRTIO_F_VERSION_1)
#define TAPN		"vnt-rxb"
#define HDR		12		/* VERSION_1: virtio_net_hdr_v1 */
#define MTU		9000

#define TFAIL(...) do { fprintf(stderr, "  " __VA_ARGS__); fprintf(stderr, "\n"); return 1; } while (0)

/* New interfaces in this namespace get no IPv6: no frames of the kernel's
 * own (router solicitations, MLD) in the TAP's queue */
static int no_ipv6(void)
{
	int fd = open("/proc/sys/net/ipv6/conf/default/disable_ipv6", O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return errno == ENOENT ? 0 : -1;	/* no IPv6 at all */
	n = write(fd, "1", 1);
	close(fd);
	return n == 1 ? 0 : -1;
}

/* Send frame @k (@len bytes, byte i = k + i) into the TAP from the host */
static int host_send(int s, unsigned int k, size_t len)
{
	uint8_t buf[MTU + 14];
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(k + i);
	buf[12] = 0x88;		/* a local experimental ethertype */
	buf[13] = 0xb5;
	return send(s, buf, len, 0) == (ssize_t)len ? 0 : -1;
}

/* Is @p (vnet header first) frame @k of @len bytes? */
static bool frame_ok(const uint8_t *p, ssize_t got, unsigned int k, size_t len)
{
	size_t i;

	if (got != (ssize_t)(len + HDR))
		return false;
	for (i = 0; i < len; i++)
		if (p[HDR + i] != (i == 12 ? 0x88 : i == 13 ? 0xb5 : (uint8_t)(k + i)))
			return false;
	return true;
}

/* The tx queue of the TAP hands frames to the reader asynchronously only
 * through its qdisc: give the kernel a moment */
static void settle(void)
{
	usleep(20000);
}

static int len_of(unsigned int k) { return 60 + (int)(k % 7) * 50; }

/* One held frame out through peek and rx, checked against frame @k */
static int take(struct host *h, unsigned int k, size_t len)
{
	static uint8_t buf[MTU + 64];
	struct iovec iov = { buf, sizeof(buf) };
	ssize_t peek = h->ops->rx_peek_len(h, 0), got;

	if (peek != (ssize_t)(len + HDR))
		TFAIL("frame %u: peek %zd, want %zu", k, peek, len + HDR);
	got = h->ops->rx(h, 0, &iov, 1);
	if (!frame_ok(buf, got, k, len))
		TFAIL("frame %u: %zd bytes or content wrong, want %zu", k, got,
		      len + HDR);
	return 0;
}

/* Read frame @k straight (no batch held): rx() into a large buffer */
static int take_direct(struct host *h, struct tap_uring *u, unsigned int k,
		       size_t len)
{
	static uint8_t buf[MTU + 64];
	struct iovec iov = { buf, sizeof(buf) };

	if (h->ops->rx_fill(h, 0, u) != -EOPNOTSUPP)
		TFAIL("frame %u: a batch where a direct read was due", k);
	if (!frame_ok(buf, h->ops->rx(h, 0, &iov, 1), k, len))
		TFAIL("frame %u: direct read wrong", k);
	return 0;
}

/* The queue says empty to a direct read (which ends a stretch) */
static int direct_empty(struct host *h)
{
	static uint8_t buf[256];
	struct iovec iov = { buf, sizeof(buf) };

	if (h->ops->rx(h, 0, &iov, 1) != -EAGAIN)
		TFAIL("a direct read of an empty queue did not say EAGAIN");
	return 0;
}

/* A stretch of 70 frames read one by one: batches are worth it after it */
static int prime(struct host *h, struct tap_uring *u, int s, unsigned int *seq)
{
	unsigned int k;

	for (k = 0; k < 70; k++)
		if (host_send(s, *seq + k, (size_t)len_of(*seq + k)))
			TFAIL("send: %s", strerror(errno));
	settle();
	for (k = 0; k < 70; k++, (*seq)++)
		if (take_direct(h, u, *seq, (size_t)len_of(*seq)))
			return 1;
	return direct_empty(h);
}

/* Send @n frames from *@seq on, and expect fills of @want[] frames */
static int fills(struct host *h, struct tap_uring *u, int s, unsigned int *seq,
		 unsigned int n, const int *want, unsigned int nwant)
{
	unsigned int k, b;
	int got, i;

	for (k = 0; k < n; k++)
		if (host_send(s, *seq + k, (size_t)len_of(*seq + k)))
			TFAIL("send: %s", strerror(errno));
	settle();
	for (b = 0; b < nwant; b++) {
		got = h->ops->rx_fill(h, 0, u);
		if (got != want[b])
			TFAIL("fill %u of %u frames: %d, want %d", b, n, got, want[b]);
		/* a second call while frames are held reads nothing */
		if (got > 0 && h->ops->rx_fill(h, 0, u) != got)
			TFAIL("fill %u again: not the frames held", b);
		for (i = 0; i < got; i++, (*seq)++)
			if (take(h, *seq, (size_t)len_of(*seq)))
				return 1;
		if (h->ops->rx_peek_len(h, 0) >= 0)
			TFAIL("fill %u: a length after the batch", b);
	}
	return 0;
}

static int case_host(void)
{
	static const int one_fill[] = { 20, -EOPNOTSUPP };
	static const int hundred[] = { 21, 32, 18, 4, 8, 16, 1 };
	struct host_cfg cfg = { .npairs = 1, .tap_name = TAPN };
	struct host h = { .ops = host_find("tap") };
	struct reason why = { 0 };
	struct tap_uring *u;
	static uint8_t small[64];
	struct iovec iov = { small, sizeof(small) };
	unsigned int k, seq = 0;
	int s, got;

	alarm(20);	/* a read that waits for a frame fails the case */
	if (no_ipv6() || !h.ops || h.ops->open(&h, &cfg, &why) ||
	    h.ops->configure(&h, F_V1, HDR))
		TFAIL("tap open: %s", why.msg);
	if (test_if_set_int(TAPN, SIOCSIFMTU, MTU))
		TFAIL("mtu %d: %s", MTU, strerror(errno));
	s = test_packet_sock(TAPN);
	if (s < 0 || tap_uring_create(&u, &why))
		TFAIL("packet socket or ring: %s", why.msg);
	if (h.ops->rx_peek_len(&h, 0) >= 0)
		TFAIL("a length before any fill");
	/* no stretch seen yet: frame by frame */
	if (h.ops->rx_fill(&h, 0, u) != -EOPNOTSUPP)
		TFAIL("a batch before the queue's stretch is known");
	if (prime(&h, u, s, &seq))
		return 1;
	/*
	 * Stretch 70: an empty queue fills nothing, at once (a read that
	 * waited would hang here); 20 come in one fill (the estimate asks for
	 * 32); that stretch of 20 is too short for batches.
	 */
	if (h.ops->rx_fill(&h, 0, u) != 0)
		TFAIL("fill of an empty queue: not 0");
	if (fills(&h, u, s, &seq, 20, one_fill, ARRAY_SIZE(one_fill)))
		return 1;
	/* the 20 frames of that last fill ended the stretch: read direct */
	if (prime(&h, u, s, &seq))
		return 1;
	/*
	 * Stretch 70 again, 100 frames: 21 (asked since the fill of 20), 32,
	 * 18 (what is left of 70, and one), then past the estimate 4 and
	 * doubling, 8, 16, and the last one with the queue found empty.
	 */
	if (fills(&h, u, s, &seq, 100, hundred, ARRAY_SIZE(hundred)))
		return 1;
	/* a frame too big for the caller's buffer: consumed, refused */
	if (host_send(s, 1000, 1000) || host_send(s, 1001, 60))
		TFAIL("send: %s", strerror(errno));
	settle();
	if (h.ops->rx_fill(&h, 0, u) != 2)
		TFAIL("fill of 2");
	if (h.ops->rx(&h, 0, &iov, 1) != -EMSGSIZE)
		TFAIL("1000 bytes into 64: not -EMSGSIZE");
	if (take(&h, 1001, 60))
		return 1;
	/*
	 * A large frame first in a long stretch of 100: its batch is given,
	 * then the next 64 frames go direct though the stretch is long, then
	 * batches again.
	 */
	if (prime(&h, u, s, &seq))
		return 1;
	for (k = 0; k < 100; k++)
		if (host_send(s, seq + k, k ? (size_t)len_of(seq + k) : 4000))
			TFAIL("send: %s", strerror(errno));
	settle();
	got = h.ops->rx_fill(&h, 0, u);
	if (got < 1 || got > 32 || take(&h, seq++, 4000))
		TFAIL("batch with a large frame: %d", got);
	for (k = 1; k < (unsigned int)got; k++, seq++)
		if (take(&h, seq, (size_t)len_of(seq)))
			return 1;
	for (k = 0; k < 64; k++, seq++)
		if (take_direct(&h, u, seq, (size_t)len_of(seq)))
			return 1;
	if (h.ops->rx_fill(&h, 0, u) < 1)
		TFAIL("no batch after the direct reads");
	tap_uring_destroy(u);
	close(s);
	h.ops->close(&h);
	return 0;
}

/* One pair on TAP TAPN (no IPv6) in @e; the host's packet socket, or -1 */
static int tap_env(struct dp_env *e)
{
	if (no_ipv6() || dp_init_cfg(e, VQ_SPLIT, F_V1, 1, "tap", TAPN))
		return -1;
	return test_packet_sock(TAPN);
}

/* A worker moves a stream from the TAP into the guest, in order, once */
#define NSTREAM		3000u

static int case_worker(void)
{
	struct worker_opts o = { 0 };
	unsigned int sent = 0, got = 0;
	uint64_t deadline;
	struct dp_env e;
	int s, rings = -1;

	alarm(60);
	s = tap_env(&e);
	if (s < 0 || dp_start(&e, &o))
		TFAIL("tap %s, packet socket or worker pool", TAPN);
	dp_post_rx(&e, 0);
	deadline = dp_now_ns() + 20000000000ull;
	while (got < NSTREAM && dp_now_ns() < deadline) {
		uint32_t ok_len;
		uint8_t first = 0;
		int n;

		/* keep at most 64 in flight: the TAP's queue holds 1000 */
		while (sent < NSTREAM && sent - got < 64) {
			if (host_send(s, sent, (size_t)len_of(sent)))
				break;
			sent++;
		}
		n = dp_recv(&e, 0, &first, &ok_len);
		if (n == -EAGAIN) {
			usleep(100);
			dp_post_rx(&e, 0);
			continue;
		}
		if (n != len_of(got) || first != (uint8_t)got || ok_len < 12)
			TFAIL("frame %u: %d bytes, first byte %u (want %d, %u): "
			      "order, loss or a duplicate", got, n, first,
			      len_of(got), (uint8_t)got);
		got++;
		if (got == NSTREAM / 2)
			rings = test_count_urings();
	}
	if (got != NSTREAM)
		TFAIL("%u of %u frames arrived", got, NSTREAM);
	usleep(50000);
	if (dp_recv(&e, 0, NULL, NULL) != -EAGAIN)
		TFAIL("a frame more than was sent");
	if (rings != 1)
		TFAIL("%d io_uring instances while frames flowed, want the worker's 1",
		      rings);
	if (dp_wait_ctr(&e.pairs[0].rx.ctr.packets, NSTREAM, 2000000000ull) !=
	    NSTREAM)
		TFAIL("packets counter %llu, want %u",
		      (unsigned long long)dp_ctr(&e.pairs[0].rx.ctr.packets),
		      NSTREAM);
	close(s);
	dp_cleanup(&e);
	return 0;
}

/*
 * The upgrade's drain: frames a batch holds go to the guest, those still
 * in the TAP's kernel queue stay there (they cross the hand-over in the fd).
 */
static int case_drain(void)
{
	static struct net_scratch sc;
	struct tap_uring *u;
	struct reason why;
	struct dp_env e;
	unsigned int k, seq = 0;
	int s, n;

	alarm(20);
	s = tap_env(&e);
	if (s < 0 || tap_uring_create(&u, &why) || net_scratch_init(&sc))
		TFAIL("packet socket, ring or scratch");
	if (prime(&e.host, u, s, &seq))
		return 1;
	for (k = 0; k < 6; k++)
		if (host_send(s, k, 100))
			TFAIL("send: %s", strerror(errno));
	settle();
	/* after a long stretch, a fill holds RX_BATCH_FIRST (4) of the 6 */
	if (e.host.ops->rx_fill(&e.host, 0, u) != 4)
		TFAIL("fill: not 4 frames");
	dp_post_rx(&e, 0);
	n = vu_dev_drain_pair(&e.pairs[0], &e.host, &sc);
	if (n != 0)
		TFAIL("drain: %d", n);
	for (k = 0; k < 4; k++) {
		uint8_t first = 0;

		n = dp_recv(&e, 0, &first, NULL);
		if (n != 100 || first != (uint8_t)k)
			TFAIL("drained frame %u: %d bytes, first %u", k, n, first);
	}
	if (dp_recv(&e, 0, NULL, NULL) != -EAGAIN)
		TFAIL("the drain read the TAP's own queue");
	/* the two left are still in the kernel's queue */
	{
		static uint8_t buf[256];
		struct iovec iov = { buf, sizeof(buf) };

		for (k = 4; k < 6; k++)
			if (!frame_ok(buf, e.host.ops->rx(&e.host, 0, &iov, 1), k, 100))
				TFAIL("frame %u not left in the TAP", k);
	}
	net_scratch_cleanup(&sc);
	tap_uring_destroy(u);
	close(s);
	dp_cleanup(&e);
	return 0;
}

static void test_host_batches(void) { RUN_NETNS_URING(case_host); }
static void test_worker_stream(void) { RUN_NETNS_URING(case_worker); }
static void test_upgrade_drain(void) { RUN_NETNS_URING(case_drain); }

int main(void)
{
	RUN(test_host_batches);
	RUN(test_worker_stream);
	RUN(test_upgrade_drain);
	return test_exit();
}
