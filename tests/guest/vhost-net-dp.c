// SPDX-License-Identifier: MIT
/*
 * vhost-net-dp.c - the real kernel vhost-net path, run inside the test guest
 * (tests/guest/test-vhost-net.sh builds it statically with libvnet).
 *
 * Our vq driver side (vq_drv.h) puts frames on split rings in this
 * program's memory; a device-side view of each ring (the pair's struct vq:
 * the same areas, the position the kernel hands back) is what vhost_pair
 * reads when it attaches them through
 * /dev/vhost-net to a TAP; an AF_PACKET socket on the TAP is the other end.
 * Checks: the `--vhost-net on` decision, frames both ways with no copy by
 * us, ring positions across stop/start, ring disable/enable, frames queued
 * while stopped, the dirty log, the error eventfd on a bad descriptor, and
 * kernel refusals reported with a reason. Then the "pasta way" benchmark:
 * the same frames written to the TAP one writev() per frame, and posted on a
 * vhost-net TX ring with one kick per batch.
 *
 * Output: "VK-CHECK ok|FAIL name: detail", "VK-BENCH ..." lines.
 * Modes: (none) everything in the guest; --host-on: the `on` decision must
 * fail with the operator message (run on a host without the device).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <linux/virtio_config.h>
#include <linux/virtio_net.h>
#include <linux/virtio_ring.h>
#include <net/if.h>
#include <poll.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "gmem.h"
#include "worker.h"
#include "util.h"
#include "vhost_kernel.h"
#include "vhost_mode.h"
#include "vhost_pair.h"
#include "vhost_port.h"
#include "vq.h"
#include "vq_drv.h"

#define NUM		256		/* ring size */
#define BUF_LEN		2048
#define HDR_LEN		12		/* VERSION_1 / MRG_RXBUF header */
#define ARENA_LEN	(4u << 20)
#define GPA_BASE	0x100000ULL	/* "guest" addresses are not ours */
#define ETH_TEST	0x88b5		/* IEEE local experimental */
#define ETH_BENCH	0x88b6
#define TAPNAME		"vkt0"
#define FEATURES	((1ULL << VIRTIO_F_VERSION_1) |			\
			 (1ULL << VIRTIO_RING_F_EVENT_IDX) |		\
			 (1ULL << VIRTIO_NET_F_MRG_RXBUF))

static uint8_t *arena;
static size_t arena_used;
static struct gmem mem;
static struct vnet_pair pair;
static struct vq_drv rx_drv, tx_drv;	/* our driver state of pair.rx, .tx */
static uint8_t *bufs[2];		/* [NUM * BUF_LEN] per ring */
static uint16_t tx_free[NUM], tx_nfree;
static int tap_fd = -1, pkt_fd = -1, ifindex;
static unsigned int tap_qlen;		/* frames the TAP queues for us */
static int failures;
static uint32_t tx_seq, rx_seq;		/* next sequence number each way */
static uint32_t pkt_seq;		/* next TX frame expected on the TAP */
static uint16_t rx_tok[NUM];		/* buffers rx_expect() took back, */
static uint32_t rx_tlen[NUM];		/* with the bytes the kernel wrote */
static unsigned int rx_ntok;

static void check(int ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void check(int ok, const char *name, const char *fmt, ...)
{
	char detail[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	printf("VK-CHECK %s %s: %s\n", ok ? "ok" : "FAIL", name, detail);
	fflush(stdout);
	if (!ok)
		failures++;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *arena_alloc(size_t len)
{
	void *p = arena + arena_used;

	arena_used += (len + 4095) & ~(size_t)4095;
	if (arena_used > ARENA_LEN) {
		fprintf(stderr, "arena full\n");
		exit(2);
	}
	return p;
}

static uint64_t gpa_of(const void *p)
{
	return GPA_BASE + (uint64_t)((const uint8_t *)p - arena);
}

/* Our driver state of ring @r (pair.rx or pair.tx) */
static struct vq_drv *drv_of(const struct vnet_ring *r)
{
	return r == &pair.rx ? &rx_drv : &tx_drv;
}

/* One driver-side split ring in the arena, with its eventfds, and the
 * device-side view of it that vhost_pair reads */
static int ring_setup(struct vnet_ring *r)
{
	uint64_t dl, al, ul;
	void *d, *a, *u;

	if (vq_drv_init(drv_of(r), VQ_SPLIT, NUM, FEATURES) ||
	    vq_init(&r->vq, VQ_SPLIT, NUM, FEATURES))
		return -1;
	vq_ring_sizes(VQ_SPLIT, NUM, &dl, &al, &ul);
	d = arena_alloc(dl);
	a = arena_alloc(al);
	u = arena_alloc(ul);
	if (vq_drv_set_addr(drv_of(r), d, a, u) || vq_set_addr(&r->vq, d, a, u))
		return -1;
	r->vq.log_used_gpa = gpa_of(u);
	r->kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	r->call_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	r->err_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	r->enabled = true;
	r->started = true;
	return r->kick_fd < 0 || r->call_fd < 0 || r->err_fd < 0 ? -1 : 0;
}

static int tap_open(void)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR };
	int s, fd, hdr = HDR_LEN;
	FILE *f;

	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", TAPNAME);
	if (ioctl(fd, TUNSETIFF, &ifr) || ioctl(fd, TUNSETVNETHDRSZ, &hdr) ||
	    ioctl(fd, TUNSETOFFLOAD, 0))
		return -1;
	/* no IPv6 autoconf chatter on our rings */
	f = fopen("/proc/sys/net/ipv6/conf/" TAPNAME "/disable_ipv6", "w");
	if (f) {
		fputs("1\n", f);
		fclose(f);
	}
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr))
		return -1;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr))
		return -1;
	/* room for a whole RX benchmark round queued in the TAP */
	for (tap_qlen = 65536; tap_qlen >= 1024; tap_qlen /= 2) {
		ifr.ifr_qlen = (int)tap_qlen;
		if (!ioctl(s, SIOCSIFTXQLEN, &ifr))
			break;
		fprintf(stderr, "txqueuelen %u: %s\n", tap_qlen, strerror(errno));
	}
	if (tap_qlen < 1024)
		tap_qlen = 500;	/* the default */
	close(s);
	ifindex = (int)if_nametoindex(TAPNAME);
	tap_fd = fd;
	return 0;
}

static int pkt_open(void)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_TEST),
				   .sll_ifindex = ifindex };

	pkt_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_TEST));
	if (pkt_fd < 0 || bind(pkt_fd, (struct sockaddr *)&sll, sizeof(sll)))
		return -1;
	return 0;
}

/* A test frame: broadcast, local MAC, @type, "VK" + sequence, padded */
static size_t make_frame(uint8_t *p, uint16_t type, uint32_t seq, size_t len)
{
	static const uint8_t src[6] = { 0x02, 0, 0, 0, 0x4b, 0x01 };
	uint16_t t = htons(type);
	uint32_t s = htonl(seq);

	memset(p, 0xff, 6);
	memcpy(p + 6, src, 6);
	memcpy(p + 12, &t, 2);
	memcpy(p + 14, "VK", 2);
	memcpy(p + 16, &s, 4);
	memset(p + 20, (int)(seq & 0xff), len - 20);
	return len;
}

static uint32_t frame_seq(const uint8_t *p)
{
	uint32_t s;

	memcpy(&s, p + 16, 4);
	return ntohl(s);
}

static void kick(struct vnet_ring *r)
{
	uint64_t one = 1;

	if (vq_drv_kick_needed(drv_of(r)) &&
	    write(r->kick_fd, &one, sizeof(one)) != sizeof(one))
		perror("kick");
}

/* Wait until @r's call eventfd fires or @ms pass; 1 if it fired */
static int wait_call(struct vnet_ring *r, int ms)
{
	struct pollfd pfd = { .fd = r->call_fd, .events = POLLIN };
	uint64_t v;

	if (vq_drv_enable_cb(drv_of(r)))
		return 1;
	if (poll(&pfd, 1, ms) <= 0)
		return 0;
	if (read(r->call_fd, &v, sizeof(v)) < 0)
		return 0;
	return 1;
}

/* Collect TX completions into the free list; how many */
static unsigned int tx_reap(void)
{
	uint32_t token, len;
	unsigned int n = 0;

	while (!vq_drv_get_used(&tx_drv, &token, &len)) {
		tx_free[tx_nfree++] = (uint16_t)token;
		n++;
	}
	return n;
}

/*
 * Post @n frames of @len bytes (type @type) on the TX ring, kicking once
 * per @batch; waits for buffers when the ring is full. With @wait_done,
 * also waits until the kernel completed every one. Return: frames posted.
 */
static unsigned int tx_post(unsigned int n, uint16_t type, size_t len,
			    unsigned int batch, int wait_done)
{
	unsigned int i, in_batch = 0, idle = 0;
	struct vq_buf b;
	uint16_t id;

	for (i = 0; i < n; i++) {
		while (!tx_nfree) {
			kick(&pair.tx);
			if (!tx_reap() && !wait_call(&pair.tx, 100) && ++idle > 20)
				return i;
		}
		id = tx_free[--tx_nfree];
		memset(bufs[1] + (size_t)id * BUF_LEN, 0, HDR_LEN);
		make_frame(bufs[1] + (size_t)id * BUF_LEN + HDR_LEN, type,
			   tx_seq++, len);
		b.gpa = gpa_of(bufs[1] + (size_t)id * BUF_LEN);
		b.len = (uint32_t)(HDR_LEN + len);
		if (vq_drv_add(&tx_drv, &b, 1, NULL, 0, id))
			return i;
		if (++in_batch == batch) {
			kick(&pair.tx);
			in_batch = 0;
		}
	}
	kick(&pair.tx);
	while (wait_done && tx_nfree < NUM && idle < 20)
		if (!tx_reap() && !wait_call(&pair.tx, 100))
			idle++;
	return n;
}

/* Give every free RX buffer to the ring */
static void rx_fill(void)
{
	struct vq_buf b;
	static int filled;
	uint16_t i;

	if (filled)
		return;
	for (i = 0; i < NUM; i++) {
		b.gpa = gpa_of(bufs[0] + (size_t)i * BUF_LEN);
		b.len = BUF_LEN;
		vq_drv_add(&rx_drv, NULL, 0, &b, 1, i);
	}
	filled = 1;
	kick(&pair.rx);
}

/* Receive @n test frames on the AF_PACKET socket, in order from @seq */
static int pkt_expect(unsigned int n, uint32_t *seq, int ms)
{
	uint8_t f[2048];
	struct pollfd pfd = { .fd = pkt_fd, .events = POLLIN };
	struct sockaddr_ll from;
	socklen_t flen = sizeof(from);
	unsigned int got = 0;
	ssize_t len;

	while (got < n) {
		if (poll(&pfd, 1, ms) <= 0)
			break;
		len = recvfrom(pkt_fd, f, sizeof(f), MSG_DONTWAIT,
			       (struct sockaddr *)&from, &flen);
		flen = sizeof(from);
		if (len < 20 || memcmp(f + 14, "VK", 2) ||
		    from.sll_pkttype == PACKET_OUTGOING)
			continue;
		if (frame_seq(f) != *seq) {
			fprintf(stderr, "pkt: seq %u, expected %u\n",
				frame_seq(f), *seq);
			return -1;
		}
		(*seq)++;
		got++;
	}
	return (int)got;
}

/* Send @n test frames into the TAP from the host side */
static int pkt_send(unsigned int n)
{
	struct sockaddr_ll to = { .sll_family = AF_PACKET,
				  .sll_protocol = htons(ETH_TEST),
				  .sll_ifindex = ifindex, .sll_halen = 6 };
	uint8_t f[128];
	unsigned int i;
	static uint32_t seq;

	memset(to.sll_addr, 0xff, 6);
	for (i = 0; i < n; i++) {
		make_frame(f, ETH_TEST, seq++, 100);
		if (sendto(pkt_fd, f, 100, 0, (struct sockaddr *)&to,
			   sizeof(to)) != 100)
			return -1;
	}
	return 0;
}

/* Collect @n frames from the RX ring, checking header and order */
static int rx_expect(unsigned int n, int ms)
{
	unsigned int got = 0, idle = 0;
	uint32_t token, len;
	struct vq_buf b;
	const uint8_t *p;
	uint16_t nb;

	while (got < n && idle < (unsigned int)ms / 50) {
		if (vq_drv_get_used(&rx_drv, &token, &len)) {
			if (!wait_call(&pair.rx, 50))
				idle++;
			continue;
		}
		p = bufs[0] + (size_t)token * BUF_LEN;
		if (rx_ntok < NUM) {
			rx_tok[rx_ntok] = (uint16_t)token;
			rx_tlen[rx_ntok++] = len;
		}
		memcpy(&nb, p + 10, 2);
		if (len == HDR_LEN + 100 && !memcmp(p + HDR_LEN + 14, "VK", 2)) {
			if (le16toh(nb) != 1 || frame_seq(p + HDR_LEN) != rx_seq) {
				fprintf(stderr, "rx: num_buffers %u seq %u/%u\n",
					le16toh(nb), frame_seq(p + HDR_LEN), rx_seq);
				return -1;
			}
			rx_seq++;
			got++;
		}
		b.gpa = gpa_of(p);
		b.len = BUF_LEN;
		vq_drv_add(&rx_drv, NULL, 0, &b, 1, token);
		kick(&pair.rx);
	}
	return (int)got;
}

static uint16_t used_idx(const struct vnet_ring *r)
{
	return le16toh(LOAD_ACQUIRE(r->vq.split.used->idx));
}

static int start(struct vhost_pair *o, const struct vhost_decision *d,
		 const struct gmem_log *log)
{
	return vhost_pair_start(o, NULL, &pair, &mem, d->max_regions,
				   tap_fd, log, -1);
}


/* --------------------------------- checks --------------------------------- */

static void check_mode_on(struct vhost_decision *d)
{
	uint64_t extra = (1ULL << VIRTIO_F_RING_PACKED) |
			 (1ULL << VIRTIO_F_IN_ORDER);
	int ret = vhost_mode_decide(d, VHOST_MODE_ON, NULL, NULL);

	check(!ret && d->use &&
	      (d->kernel_features & (1ULL << VIRTIO_F_VERSION_1)),
	      "mode_on_in_guest", "ret %d, %s, max_mem_regions %u", ret,
	      d->reason, d->max_regions);
	check(vhost_mode_features(FEATURES | extra, d->kernel_features) ==
	      FEATURES, "features_vs_real_kernel", "offered 0x%llx",
	      (unsigned long long)vhost_mode_features(FEATURES | extra,
						      d->kernel_features));
}

/* @n frames each way through the kernel; @tag names the checks */
static void check_both_ways(unsigned int n, const char *tag)
{
	char name[64];
	unsigned int posted;
	int got;

	posted = tx_post(n, ETH_TEST, 100, 32, 1);
	got = pkt_expect(n, &pkt_seq, 3000);
	snprintf(name, sizeof(name), "tx_ring_to_tap_%s", tag);
	check(posted == n && got == (int)n, name,
	      "%u posted, %d arrived on the TAP, tx used idx %u", posted, got,
	      used_idx(&pair.tx));
	rx_fill();
	got = pkt_send(n) ? -1 : rx_expect(n, 3000);
	snprintf(name, sizeof(name), "tap_to_rx_ring_%s", tag);
	check(got == (int)n, name, "%d of %u frames in the RX ring, used idx %u",
	      got, n, used_idx(&pair.rx));
}

/* Stop; the positions handed back must be the kernel's */
static void check_stop(struct vhost_pair *o, unsigned int tx_total,
		       const char *name)
{
	int ret = vhost_pair_stop(o, &pair);
	uint32_t tb = vq_get_base(&pair.tx.vq), rb = vq_get_base(&pair.rx.vq);

	check(!ret && o->fd < 0 && tb == tx_total &&
	      tb == used_idx(&pair.tx) && rb == used_idx(&pair.rx), name,
	      "ret %d, tx base %u (posted %u, used %u), rx base %u (used %u)",
	      ret, tb, tx_total, used_idx(&pair.tx), rb, used_idx(&pair.rx));
}

/* While stopped nothing moves; after the restart everything queued flows */
static void check_restart(struct vhost_pair *o,
			  const struct vhost_decision *d)
{
	static uint32_t dummy;
	uint16_t tx_used = used_idx(&pair.tx), rx_used = used_idx(&pair.rx);
	unsigned int posted;
	int ret, got_tx, got_rx;

	posted = tx_post(10, ETH_TEST, 100, 32, 0);
	pkt_send(10);
	usleep(300000);
	check(posted == 10 && used_idx(&pair.tx) == tx_used &&
	      used_idx(&pair.rx) == rx_used && pkt_expect(1, &dummy, 0) == 0,
	      "stopped_rings_untouched", "used idx tx %u rx %u",
	      used_idx(&pair.tx), used_idx(&pair.rx));
	ret = start(o, d, NULL);
	check(!ret, "restart_at_base", "ret %d: %s (tx base %u, rx base %u)",
	      ret, o->why.msg, vq_get_base(&pair.tx.vq), vq_get_base(&pair.rx.vq));
	got_tx = pkt_expect(10, &pkt_seq, 3000);
	got_rx = rx_expect(10, 3000);
	tx_reap();
	check(got_tx == 10 && got_rx == 10, "queued_while_stopped_delivered",
	      "%d TX frames posted while stopped reached the TAP, %d frames "
	      "queued in the TAP reached the RX ring", got_tx, got_rx);
}

static void check_vring_enable(struct vhost_pair *o)
{
	int ret, before, after;

	ret = vhost_pair_ring_enable(o, VHOST_OFFLOAD_TX, false);
	tx_post(5, ETH_TEST, 100, 32, 0);
	before = pkt_expect(5, &pkt_seq, 300);
	ret = ret ? ret : vhost_pair_ring_enable(o, VHOST_OFFLOAD_TX, true);
	after = pkt_expect(5, &pkt_seq, 3000);
	tx_post(0, ETH_TEST, 100, 32, 1);
	check(!ret && before == 0 && after == 5, "vring_disable_enable",
	      "ret %d, %d frames while disabled, %d after enable", ret, before,
	      after);
}

/*
 * SET_VRING_ADDR on a running ring: the RX ring's three areas are copied to
 * new places (traffic is idle) and the kernel is told; frames must then
 * flow through the new areas, and the old used ring stays untouched.
 */
static void check_ring_move(struct vhost_pair *o)
{
	struct vq *vq = &pair.rx.vq;
	struct vring_used *old = vq->split.used;
	uint64_t dl, al, ul;
	void *d, *a, *u;
	uint16_t old_used;
	int ret, got;

	vq_ring_sizes(VQ_SPLIT, NUM, &dl, &al, &ul);
	d = arena_alloc(dl);
	a = arena_alloc(al);
	u = arena_alloc(ul);
	memcpy(d, vq->split.desc, dl);
	memcpy(a, vq->split.avail, al);
	memcpy(u, vq->split.used, ul);
	old_used = vq->split.used->idx;
	/* the driver's state stays (vq_drv_set_addr() would reset it) */
	vq->split.desc = rx_drv.split.desc = d;
	vq->split.avail = rx_drv.split.avail = a;
	vq->split.used = rx_drv.split.used = u;
	vq->log_used_gpa = gpa_of(u);
	ret = vhost_pair_set_ring_addr(o, &pair);
	got = ret ? 0 : (pkt_send(4) ? -1 : rx_expect(4, 3000));
	check(!ret && got == 4 && ((struct vring_used *)u)->idx != old_used &&
	      old->idx == old_used,
	      "ring_addr_while_running", "ret %d (%s), %d frames through the "
	      "moved RX ring", ret, ret ? o->why.msg : "ok", got);
}

/* Call fd swap (QEMU does it when the guest masks) and a new memory table */
static void check_live_updates(struct vhost_pair *o)
{
	static struct gmem two;
	struct pollfd pfd = { .events = POLLIN };
	int old = pair.rx.call_fd, ret, fired, got;

	pair.rx.call_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	ret = vhost_pair_set_ring_fds(o, VHOST_OFFLOAD_RX, &pair.rx);
	close(old);
	vq_drv_enable_cb(&rx_drv);
	pfd.fd = pair.rx.call_fd;
	fired = !ret && !pkt_send(3) && poll(&pfd, 1, 3000) == 1;
	got = rx_expect(3, 3000);
	check(!ret && fired && got == 3, "call_fd_swap_while_running",
	      "ret %d, new call fd %s, %d frames", ret,
	      fired ? "signalled" : "silent", got);

	gmem_init(&two);
	gmem_add_region(&two, GPA_BASE, ARENA_LEN / 2, GPA_BASE, arena);
	gmem_add_region(&two, GPA_BASE + ARENA_LEN / 2, ARENA_LEN / 2,
			GPA_BASE + ARENA_LEN / 2, arena + ARENA_LEN / 2);
	ret = vhost_pair_set_mem(o, &pair, &two);
	check(!ret, "set_mem_table_while_running", "ret %d: %s", ret, o->why.msg);
	check_both_ways(20, "two_region_table");
	ret = vhost_pair_set_mem(o, &pair, &mem);
	check(!ret, "set_mem_table_back", "ret %d: %s", ret, o->why.msg);
	check_ring_move(o);
}

static int log_bit(const struct gmem_log *log, const void *p)
{
	uint64_t page = gpa_of(p) / GMEM_LOG_PAGE;

	return !!(log->base[page / 8] & (1u << (page % 8)));
}

static void check_dirty_log(struct vhost_pair *o,
			    const struct vhost_decision *d)
{
	size_t len = (GPA_BASE + ARENA_LEN) / GMEM_LOG_PAGE / 8;
	struct gmem_log log = { .base = calloc(1, len), .size = len };
	struct gmem_log small = { .base = log.base, .size = 1 };
	uint32_t head = rx_drv.drv_last_used;
	int ret, got, used_bit, buf_bit, small_ret;

	small_ret = vhost_pair_set_log(o, &pair, &mem, &small, -1);
	ret = vhost_pair_set_log(o, &pair, &mem, &log, -1);
	got = ret ? -1 : (pkt_send(5) ? -1 : rx_expect(5, 3000));
	used_bit = log_bit(&log, pair.rx.vq.split.used);
	/* the buffer that took the first of these frames */
	buf_bit = log_bit(&log, bufs[0] + (size_t)(head % NUM) * BUF_LEN);
	ret = ret ? ret : vhost_pair_set_log(o, &pair, &mem, NULL, -1);
	check(small_ret == -EINVAL && !ret && got == 5 && used_bit && buf_bit,
	      "dirty_log", "small log %d, ret %d (%s), %d frames, used ring "
	      "page logged %d, buffer page logged %d", small_ret, ret, o->why.msg,
	      got, used_bit, buf_bit);

	/* a (re)start with logging already on, as after a reconnect mid-migration */
	vhost_pair_stop(o, &pair);
	memset(log.base, 0, len);
	head = rx_drv.drv_last_used;
	ret = start(o, d, &log);
	got = ret ? -1 : (pkt_send(3) ? -1 : rx_expect(3, 3000));
	used_bit = log_bit(&log, pair.rx.vq.split.used);
	buf_bit = log_bit(&log, bufs[0] + (size_t)(head % NUM) * BUF_LEN);
	/* the kernel must stop writing into the bitmap before it is freed */
	ret = ret ? ret : vhost_pair_set_log(o, &pair, &mem, NULL, -1);
	check(!ret && got == 3 && used_bit && buf_bit, "dirty_log_from_start",
	      "ret %d (%s), %d frames, used ring page logged %d, buffer page "
	      "logged %d", ret, o->why.msg, got, used_bit, buf_bit);
	free(log.base);
}

static void mark_pages(uint8_t *bm, uint64_t gpa, uint64_t len)
{
	uint64_t p;

	for (p = gpa / GMEM_LOG_PAGE; len && p <= (gpa + len - 1) / GMEM_LOG_PAGE; p++)
		bm[p / 8] |= (uint8_t)(1u << (p % 8));
}

/*
 * Frames received while VHOST_F_LOG_ALL is on mark exactly the pages the
 * kernel wrote: those of the buffers that took them (the bytes the used
 * ring reports) and the used ring's; with logging off again the same
 * traffic marks nothing (the dirty log handed to vhost-net).
 */
static void check_dirty_log_exact(struct vhost_pair *o)
{
	size_t len = (GPA_BASE + ARENA_LEN) / GMEM_LOG_PAGE / 8, i;
	struct gmem_log log = { .base = calloc(1, len), .size = len };
	uint8_t *want = calloc(1, len), *ring = calloc(1, len);
	unsigned int k, missing = 0, extra = 0, after = 0, nbuf;
	uint64_t dl, al, ul;
	int ret, got, got2, used_bit;

	if (!log.base || !want || !ring) {
		check(0, "dirty_log_exact", "out of memory");
		goto out;
	}
	vq_ring_sizes(VQ_SPLIT, NUM, &dl, &al, &ul);
	mark_pages(ring, gpa_of(pair.rx.vq.split.used), ul);
	rx_ntok = 0;
	ret = vhost_pair_set_log(o, &pair, &mem, &log, -1);
	got = ret ? -1 : (pkt_send(8) ? -1 : rx_expect(8, 3000));
	ret = ret ? ret : vhost_pair_set_log(o, &pair, &mem, NULL, -1);
	nbuf = rx_ntok;
	for (k = 0; k < rx_ntok; k++)
		mark_pages(want, gpa_of(bufs[0] + (size_t)rx_tok[k] * BUF_LEN),
			   rx_tlen[k]);
	used_bit = !!(log.base[gpa_of(pair.rx.vq.split.used) / GMEM_LOG_PAGE / 8] &
		      (1u << (gpa_of(pair.rx.vq.split.used) / GMEM_LOG_PAGE % 8)));
	for (i = 0; i < len; i++) {
		missing += (unsigned int)__builtin_popcount(want[i] & ~log.base[i]);
		extra += (unsigned int)__builtin_popcount(log.base[i] & ~want[i] &
							  ~ring[i]);
	}
	/* logging off: the bitmap is still ours, the kernel must leave it */
	memset(log.base, 0, len);
	got2 = ret ? -1 : (pkt_send(8) ? -1 : rx_expect(8, 3000));
	for (i = 0; i < len; i++)
		after += (unsigned int)__builtin_popcount(log.base[i]);
	check(!ret && got == 8 && nbuf >= 8 && used_bit && !missing && !extra,
	      "dirty_log_exact", "ret %d (%s), %d frames in %u buffers, used ring "
	      "page logged %d, buffer pages not logged %u, other pages logged %u",
	      ret, o->why.msg, got, nbuf, used_bit, missing, extra);
	check(got2 == 8 && !after, "dirty_log_off_stops",
	      "%d frames with logging off, %u pages logged", got2, after);
out:
	free(log.base);
	free(want);
	free(ring);
}

static void check_refusals(struct vhost_pair *o,
			   const struct vhost_decision *d)
{
	static struct gmem two;
	uint32_t tb = vq_get_base(&pair.tx.vq);
	struct vhost_pair o2;
	int ret;

	vhost_pair_init(&o2);
	gmem_init(&two);
	gmem_add_region(&two, GPA_BASE, ARENA_LEN / 2, GPA_BASE, arena);
	gmem_add_region(&two, GPA_BASE + ARENA_LEN / 2, ARENA_LEN / 2,
			GPA_BASE + ARENA_LEN / 2, arena + ARENA_LEN / 2);
	ret = vhost_pair_start(o, NULL, &pair, &two, 1, tap_fd, NULL, -1);
	check(ret == -E2BIG && o->fd < 0 && strstr(o->why.msg, "MEM_TABLE") &&
	      vq_get_base(&pair.tx.vq) == tb, "refuse_over_max_mem_regions",
	      "ret %d: %s", ret, o->why.msg);

	/* the kernel itself refuses rings it cannot read */
	mprotect(pair.tx.vq.split.used, 4096, PROT_NONE);
	ret = vhost_pair_start(&o2, NULL, &pair, &mem, d->max_regions,
				  tap_fd, NULL, -1);
	mprotect(pair.tx.vq.split.used, 4096, PROT_READ | PROT_WRITE);
	check(ret == -EFAULT && o2.fd < 0 && strstr(o2.why.msg, "SET_BACKEND") &&
	      vq_get_base(&pair.tx.vq) == tb, "kernel_refusal_reported",
	      "ret %d: %s", ret, o2.why.msg);
}

/* The port layer vu_backend calls, against the real kernel */
static void check_port_layer(void)
{
	static struct vhost_port vp;
	int ret, offl, ok_stop;
	uint32_t tx_total;

	ret = vhost_port_init(&vp, "guest", VHOST_MODE_ON, NULL, true);
	ret = ret ? ret : vhost_port_pair_start(&vp, &pair, &mem, tap_fd,
						NULL, -1);
	offl = vhost_port_offloaded(&vp, 0);
	check(!ret && offl && !strcmp(pair.datapath, "vhost-net"),
	      "port_pair_start", "ret %d, datapath %s: %s", ret,
	      pair.datapath ? pair.datapath : "-", pair.why);
	check_both_ways(20, "port_layer");
	tx_total = tx_seq;
	ret = vhost_port_ring_stop(&vp, &pair, 0);
	offl = vhost_port_offloaded(&vp, 0);	/* TX still runs */
	ret = ret ? ret : vhost_port_ring_stop(&vp, &pair, 1);
	ok_stop = !ret && offl && !vhost_port_offloaded(&vp, 0) &&
		  vq_get_base(&pair.tx.vq) == tx_total &&
		  vq_get_base(&pair.rx.vq) == used_idx(&pair.rx);
	check(ok_stop && !strcmp(pair.datapath, "idle"),
	      "port_get_vring_base_both_rings", "ret %d, tx base %u (%u), "
	      "rx base %u (used %u), datapath %s", ret,
	      vq_get_base(&pair.tx.vq), tx_total, vq_get_base(&pair.rx.vq),
	      used_idx(&pair.rx), pair.datapath);
	/* reconnect: offload again from the stored bases, then disconnect */
	ret = vhost_port_pair_start(&vp, &pair, &mem, tap_fd, NULL, -1);
	check_both_ways(10, "port_after_reconnect");
	vhost_port_disconnect(&vp, &pair, 1);
	check(!ret && !vhost_port_offloaded(&vp, 0) &&
	      vq_get_base(&pair.tx.vq) == tx_seq, "port_disconnect",
	      "ret %d, tx base %u (posted %u)", ret, vq_get_base(&pair.tx.vq),
	      tx_seq);
}

/* A descriptor outside the memory table: the kernel signals the err fd */
static void check_err_eventfd(struct vhost_pair *o,
			      const struct vhost_decision *d)
{
	struct pollfd pfd = { .fd = pair.tx.err_fd, .events = POLLIN };
	struct vq_buf b = { .gpa = GPA_BASE + ARENA_LEN + 65536, .len = 100 };
	int ret = start(o, d, NULL), fired;

	if (!ret && vq_drv_add(&tx_drv, &b, 1, NULL, 0, 0xffff))
		ret = -ENOSPC;
	kick(&pair.tx);
	fired = poll(&pfd, 1, 3000) == 1;
	vhost_pair_stop(o, &pair);
	check(!ret && fired, "err_eventfd_on_bad_descriptor",
	      "ret %d, error eventfd %s", ret, fired ? "signalled" : "silent");
}

/* ------------------------------- benchmark -------------------------------- */

/* CPU seconds of the kernel's vhost worker(s) of this process, if visible */
static double worker_cpu(void)
{
	char path[300], comm[64], want[32];
	unsigned long ut, st;
	struct dirent *de;
	double total = 0;
	DIR *dir;
	FILE *f;

	snprintf(want, sizeof(want), "vhost-%d\n", (int)getpid());
	dir = opendir("/proc");
	while (dir && (de = readdir(dir))) {
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(comm, sizeof(comm), f) || strcmp(comm, want)) {
			fclose(f);
			continue;
		}
		fclose(f);
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		f = fopen(path, "r");
		if (f && fscanf(f, "%*d %*s %*c %*d %*d %*d %*d %*d %*u %*u "
				"%*u %*u %*u %lu %lu", &ut, &st) == 2)
			total += (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	return total;
}

static double self_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static void bench_report(const char *mode, size_t len, unsigned int batch,
			 unsigned int n, double secs, double cpu, double wcpu)
{
	printf("VK-BENCH mode=%s size=%zu batch=%u frames=%u secs=%.3f fps=%.0f "
	       "self_cpu_us_per_frame=%.2f worker_cpu_us_per_frame=%.2f\n",
	       mode, len, batch, n, secs, n / secs, cpu * 1e6 / n,
	       wcpu * 1e6 / n);
	fflush(stdout);
}

/*
 * One round on the same frames: one writev() each to the TAP, then posted
 * on the vhost-net TX ring with one kick per @batch. Fills frames/s of
 * each; returns 0 if every frame went out both ways.
 */
static int bench_round(struct vhost_pair *o, const struct vhost_decision *d,
		       size_t len, unsigned int n, unsigned int batch,
		       double fps[2])
{
	uint8_t hdr[HDR_LEN] = { 0 }, f[BUF_LEN];
	struct iovec iov[2] = { { hdr, HDR_LEN }, { f, len } };
	double t0, c0, w0, t;
	unsigned int i, posted;
	int ret;

	t0 = now();
	c0 = self_cpu();
	for (i = 0; i < n; i++) {
		make_frame(f, ETH_BENCH, i, len);
		if (writev(tap_fd, iov, 2) != (ssize_t)(HDR_LEN + len))
			break;
	}
	t = now() - t0;
	bench_report("writev", len, 1, i, t, self_cpu() - c0, 0);
	fps[0] = i / t;

	ret = start(o, d, NULL);
	w0 = worker_cpu();
	t0 = now();
	c0 = self_cpu();
	posted = ret ? 0 : tx_post(n, ETH_BENCH, len, batch, 1);
	t = now() - t0;
	c0 = self_cpu() - c0;	/* before worker_cpu() walks /proc */
	bench_report("vhost-net", len, batch, posted, t, c0, worker_cpu() - w0);
	fps[1] = posted / t;
	vhost_pair_stop(o, &pair);
	return posted == n && i == n ? 0 : -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Queue @n frames of @len bytes in the TAP, for the guest side to read */
static int prefill(size_t len, unsigned int n)
{
	struct sockaddr_ll to = { .sll_family = AF_PACKET,
				  .sll_protocol = htons(ETH_BENCH),
				  .sll_ifindex = ifindex, .sll_halen = 6 };
	uint8_t f[BUF_LEN];
	unsigned int i;

	memset(to.sll_addr, 0xff, 6);
	for (i = 0; i < n; i++) {
		make_frame(f, ETH_BENCH, i, len);
		if (sendto(pkt_fd, f, len, 0, (struct sockaddr *)&to,
			   sizeof(to)) != (ssize_t)len)
			return -1;
	}
	return 0;
}

/* Read frames of @len from the TAP, one readv() each, until @n or idle */
static unsigned int readv_drain(size_t len, unsigned int n)
{
	uint8_t hdr[HDR_LEN], f[BUF_LEN];
	struct iovec iov[2] = { { hdr, HDR_LEN }, { f, BUF_LEN } };
	struct pollfd pfd = { .fd = tap_fd, .events = POLLIN };
	int fl = fcntl(tap_fd, F_GETFL);
	unsigned int got = 0;
	ssize_t r;

	fcntl(tap_fd, F_SETFL, fl | O_NONBLOCK);
	while (got < n) {
		r = readv(tap_fd, iov, 2);
		if (r == (ssize_t)(HDR_LEN + len))
			got++;
		else if (r < 0 && (errno != EAGAIN || poll(&pfd, 1, 200) <= 0))
			break;
	}
	fcntl(tap_fd, F_SETFL, fl);
	return got;
}

/* Collect frames of @len from the RX ring, re-posting, one kick per @batch */
static unsigned int ring_drain(size_t len, unsigned int n, unsigned int batch)
{
	unsigned int got = 0, idle = 0, reposted = 0;
	uint32_t token, l;
	struct vq_buf b;

	while (got < n && idle < 20) {
		if (vq_drv_get_used(&rx_drv, &token, &l)) {
			kick(&pair.rx);
			if (!wait_call(&pair.rx, 100))
				idle++;
			continue;
		}
		if (l == HDR_LEN + len)
			got++;
		b.gpa = gpa_of(bufs[0] + (size_t)token * BUF_LEN);
		b.len = BUF_LEN;
		vq_drv_add(&rx_drv, NULL, 0, &b, 1, token);
		if (++reposted % batch == 0)
			kick(&pair.rx);
	}
	kick(&pair.rx);
	return got;
}

/*
 * One RX round: @n frames queued in the TAP beforehand (not timed), then
 * drained by one readv() each, and by the vhost-net RX ring (attached
 * after the fill) with one kick per @batch re-posted buffers.
 */
static int bench_rx_round(struct vhost_pair *o,
			  const struct vhost_decision *d, size_t len,
			  unsigned int n, unsigned int batch, double fps[2])
{
	unsigned int got_rv = 0, got_vh = 0;
	double t0, c0, w0, t;
	int ret;

	ret = prefill(len, n);
	t0 = now();
	c0 = self_cpu();
	got_rv = ret ? 0 : readv_drain(len, n);
	t = now() - t0;
	bench_report("readv", len, 1, got_rv, t, self_cpu() - c0, 0);
	fps[0] = got_rv / t;

	ret = start(o, d, NULL);
	ret = ret ? ret : vhost_pair_ring_enable(o, VHOST_OFFLOAD_RX, false);
	ret = ret ? ret : prefill(len, n);
	w0 = worker_cpu();
	t0 = now();
	c0 = self_cpu();
	ret = ret ? ret : vhost_pair_ring_enable(o, VHOST_OFFLOAD_RX, true);
	got_vh = ret ? 0 : ring_drain(len, n, batch);
	t = now() - t0;
	c0 = self_cpu() - c0;
	bench_report("vhost-net-rx", len, batch, got_vh, t, c0, worker_cpu() - w0);
	fps[1] = got_vh / t;
	vhost_pair_stop(o, &pair);
	return got_rv == n && got_vh == n ? 0 : -1;
}

typedef int (*bench_round_fn)(struct vhost_pair *o,
			      const struct vhost_decision *d, size_t len,
			      unsigned int n, unsigned int batch, double fps[2]);

/* Three rounds; the check line reports the medians and the winner */
static void bench(struct vhost_pair *o, const struct vhost_decision *d,
		  bool rx, size_t len, unsigned int n, unsigned int batch)
{
	bench_round_fn fn = rx ? bench_rx_round : bench_round;
	double fps[2], sys[3], vh[3];
	char name[64];
	int i, bad = 0;

	for (i = 0; i < 3; i++) {
		bad |= fn(o, d, len, n, batch, fps);
		sys[i] = fps[0];
		vh[i] = fps[1];
	}
	qsort(sys, 3, sizeof(double), cmp_double);
	qsort(vh, 3, sizeof(double), cmp_double);
	snprintf(name, sizeof(name), "bench_%s_size_%zu_batch_%u",
		 rx ? "rx" : "tx", len, batch);
	check(!bad, name, "median of 3: %s %.0f fps, vhost-net %.0f fps: "
	      "%s wins (x%.2f)", rx ? "readv" : "writev", sys[1], vh[1],
	      vh[1] > sys[1] ? "vhost-net" : (rx ? "readv" : "writev"),
	      vh[1] / sys[1]);
}

/* -------------------------------- main ------------------------------------ */

static int setup(void)
{
	unsigned int i;

	arena = mmap(NULL, ARENA_LEN, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (arena == MAP_FAILED)
		return -1;
	gmem_init(&mem);
	if (gmem_add_region(&mem, GPA_BASE, ARENA_LEN, GPA_BASE, arena))
		return -1;
	pair.features = FEATURES;
	pair.hdr_len = HDR_LEN;
	if (ring_setup(&pair.rx) || ring_setup(&pair.tx))
		return -1;
	bufs[0] = arena_alloc(NUM * BUF_LEN);
	bufs[1] = arena_alloc(NUM * BUF_LEN);
	for (i = 0; i < NUM; i++)
		tx_free[tx_nfree++] = (uint16_t)(NUM - 1 - i);
	if (tap_open() || pkt_open())
		return -1;
	return 0;
}

/* On a host without the device, `on` must refuse with the operator text */
static int host_on(void)
{
	struct vhost_decision d;
	int ret = vhost_mode_decide(&d, VHOST_MODE_ON, NULL, NULL);

	printf("%s\n", d.msg);
	check(ret < 0 && !d.use && strstr(d.msg, "/dev/vhost-net") &&
	      strstr(d.msg, "--vhost-net off") &&
	      (ret != -ENOENT || strstr(d.msg, "modprobe vhost_net")),
	      "mode_on_fails_on_host", "ret %d", ret);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned int n = argc > 1 && strcmp(argv[1], "--host-on") ?
			 (unsigned int)atoi(argv[1]) : 20000;
	struct vhost_pair o;
	struct vhost_decision d;
	int ret;

	if (argc > 1 && !strcmp(argv[1], "--host-on"))
		return host_on();
	check_mode_on(&d);
	if (!d.use)
		return 1;
	if (setup()) {
		perror("setup");
		return 1;
	}
	vhost_pair_init(&o);
	ret = start(&o, &d, NULL);
	check(!ret, "offload_start", "ret %d: %s", ret, o.why.msg);
	if (ret)
		return 1;
	check_both_ways(200, "first");
	check_stop(&o, 200, "stop_returns_kernel_base");
	check_restart(&o, &d);
	check_both_ways(100, "after_restart");
	check_vring_enable(&o);
	check_live_updates(&o);
	check_dirty_log(&o, &d);
	check_dirty_log_exact(&o);
	check_stop(&o, tx_seq, "stop_after_restart");
	check_refusals(&o, &d);
	check_port_layer();
	bench(&o, &d, false, 60, n, 32);
	bench(&o, &d, false, 60, n, 1);
	bench(&o, &d, false, 1514, n / 2, 32);
	n = MIN(n, tap_qlen * 3 / 4);	/* a round must fit in the TAP queue */
	bench(&o, &d, true, 60, n, 32);
	bench(&o, &d, true, 1514, n / 2, 32);
	check_err_eventfd(&o, &d);
	printf("VK-DONE failures=%d\n", failures);
	return failures ? 1 : 0;
}
