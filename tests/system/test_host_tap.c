// SPDX-License-Identifier: MIT
/*
 * test_host_tap.c - the tap host side through its ops table, each case in
 * a private network namespace made for it: create by name with one queue
 * per pair, frames both ways through an AF_PACKET socket on the
 * interface, a 64 KiB TSO frame as one write, adopted fds checked, error
 * messages that say what to do. (The other backends, and the TAP offload
 * flags, are tests/unit/test_host.c.)
 */
/* needs: root netns tun */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <linux/virtio_config.h>
#include <linux/virtio_net.h>

#include "testlib.h"
#include "netns_testutil.h"
#include "host_priv.h"
#include "net.h"

#define F(b)	(1ULL << (b))

/* ---------------- tap, each case in a fresh network namespace ---------- */

#define TFAIL(...) do { fprintf(stderr, "  " __VA_ARGS__); fprintf(stderr, "\n"); return 1; } while (0)

/* Read frames on @s until one of @len bytes with our marker arrives */
static bool packet_wait(int s, size_t len, uint8_t marker)
{
	uint8_t buf[2048];
	struct pollfd p = { .fd = s, .events = POLLIN };
	ssize_t n;
	int i;

	for (i = 0; i < 50; i++) {
		n = recv(s, buf, sizeof(buf), 0);
		if (n == (ssize_t)len && buf[14] == marker)
			return true;
		if (n < 0)
			poll(&p, 1, 20);
	}
	return false;
}

static void mk_eth(uint8_t *f, size_t len, uint8_t marker)
{
	static const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	static const uint8_t src[6] = { 0x02, 0, 0, 0, 0, 0x02 };
	size_t i;

	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x88;	/* local experimental ethertype 0x88b5 */
	f[13] = 0xb5;
	for (i = 14; i < len; i++)
		f[i] = (uint8_t)(marker + i - 14);
}

static int tap_case_frames(void)
{
	struct host host = { .ops = &host_tap_ops };
	struct host_cfg cfg = { .npairs = 2, .tap_name = "vnt-frames" };
	uint8_t hdr[12] = { 0 }, frame[200], in[2048];
	struct iovec iov[2] = { { hdr, 12 }, { frame, sizeof(frame) } };
	struct iovec riov = { in, sizeof(in) };
	struct reason why = { 0 };
	ssize_t n = -1;
	unsigned int q, i;
	uint64_t f;
	int s;

	if (host.ops->open(&host, &cfg, &why))
		TFAIL("open: %s", why.msg);
	f = host.ops->host_features(&host);
	if (!(f & F(VIRTIO_NET_F_CSUM)) || !(f & F(VIRTIO_NET_F_HOST_TSO4)))
		TFAIL("host features %#llx lack CSUM/TSO4", (unsigned long long)f);
	if (host.ops->configure(&host, F(VIRTIO_F_VERSION_1) |
			      F(VIRTIO_NET_F_GUEST_CSUM), 12))
		TFAIL("configure");
	if (host.ops->queue_fd(&host, 0) < 0 || host.ops->queue_fd(&host, 1) < 0 ||
	    host.ops->queue_fd(&host, 0) == host.ops->queue_fd(&host, 1))
		TFAIL("queue fds");
	for (q = 0; q < 2; q++) {
		int sz = 0;

		if (ioctl(host.ops->queue_fd(&host, q), TUNGETVNETHDRSZ, &sz) ||
		    sz != 12)
			TFAIL("queue %u vnet header size %d, want 12", q, sz);
	}
	if (test_if_up("vnt-frames"))
		TFAIL("link up: %s", strerror(errno));
	s = test_packet_sock("vnt-frames");
	if (s < 0)
		TFAIL("packet socket: %s", strerror(errno));
	/* guest -> host on each queue */
	for (q = 0; q < 2; q++) {
		mk_eth(frame, sizeof(frame), (uint8_t)(0x40 + q));
		if (host.ops->tx(&host, q, iov, 2) != 212)
			TFAIL("tx on queue %u", q);
		if (!packet_wait(s, sizeof(frame), (uint8_t)(0x40 + q)))
			TFAIL("frame from queue %u not seen on the interface", q);
	}
	/* host -> guest: lands on one of the queues, header first */
	mk_eth(frame, sizeof(frame), 0x77);
	if (send(s, frame, sizeof(frame), 0) != (ssize_t)sizeof(frame))
		TFAIL("packet send: %s", strerror(errno));
	/* skip what the kernel sends by itself (IPv6 router solicitations) */
	for (i = 0; i < 100 && !(n == 212 && in[12 + 14] == 0x77); i++) {
		n = -1;
		for (q = 0; q < 2 && n < 0; q++)
			n = host.ops->rx(&host, q, &riov, 1);
		if (n < 0)
			usleep(10000);
	}
	if (n != 212 || in[12 + 14] != 0x77)
		TFAIL("rx: %zd", n);
	if (host.ops->rx_peek_len(&host, 0) != -EOPNOTSUPP)
		TFAIL("peek");
	/* a buffer too small: the frame is reported as not fitting */
	if (send(s, frame, sizeof(frame), 0) != (ssize_t)sizeof(frame))
		TFAIL("packet send");
	riov.iov_len = 150;	/* less than 212, more than the kernel's own */
	n = -EAGAIN;
	for (i = 0; i < 100 && n != -EMSGSIZE; i++) {
		for (q = 0; q < 2 && n != -EMSGSIZE; q++)
			n = host.ops->rx(&host, q, &riov, 1);
		if (n == -EAGAIN)
			usleep(10000);
	}
	if (n != -EMSGSIZE)
		TFAIL("short rx: %zd", n);
	close(s);
	host.ops->close(&host);
	return 0;
}

static void test_tap_frames(void) { RUN_NETNS(tap_case_frames); }

/* A 64 KiB TCP/IPv4 TSO frame is one write with its vnet header */
static int tap_case_gso(void)
{
	struct host host = { .ops = &host_tap_ops };
	struct host_cfg cfg = { .npairs = 1, .tap_name = "vnt-gso" };
	static uint8_t frame[14 + 20 + 20 + 65000];
	struct virtio_net_hdr_v1 h;
	struct iovec iov[2] = { { &h, 12 }, { frame, sizeof(frame) } };
	uint8_t *ip = frame + 14, *tcp = ip + 20;
	uint16_t tot = htons(sizeof(frame) - 14 > 65535 ? 0 : (uint16_t)(sizeof(frame) - 14));
	struct reason why = { 0 };

	if (host.ops->open(&host, &cfg, &why))
		TFAIL("open: %s", why.msg);
	if (host.ops->configure(&host, F(VIRTIO_F_VERSION_1), 12))
		TFAIL("configure");
	if (test_if_up("vnt-gso"))
		TFAIL("link up");
	mk_eth(frame, 14, 0);
	frame[12] = 0x08;
	frame[13] = 0x00;
	ip[0] = 0x45;
	memcpy(ip + 2, &tot, 2);
	ip[8] = 64;
	ip[9] = 6;
	ip[12] = 10; ip[15] = 1;
	ip[16] = 10; ip[19] = 2;
	tcp[12] = 5 << 4;
	memset(&h, 0, sizeof(h));
	h.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	h.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	h.gso_size = htole16(1448);
	h.hdr_len = htole16(54);
	h.csum_start = htole16(34);
	h.csum_offset = htole16(16);
	if (host.ops->tx(&host, 0, iov, 2) != (ssize_t)(12 + sizeof(frame)))
		TFAIL("GSO frame not taken in one write");
	host.ops->close(&host);
	return 0;
}

static void test_tap_gso_one_write(void) { RUN_NETNS(tap_case_gso); }

static int tap_case_adopt(void)
{
	struct host host = { .ops = &host_tap_ops };
	struct host_cfg cfg = { .npairs = 1 };
	struct ifreq ifr;
	struct reason why = { 0 };
	int fds[2], ret;

	/* not a tun fd */
	fds[0] = open("/dev/null", O_RDWR);
	cfg.tap_fds = fds;
	cfg.ntap_fds = 1;
	ret = host.ops->open(&host, &cfg, &why);
	if (ret >= 0 || !strstr(why.msg, "TUNGETIFF") || !strstr(why.msg, "--tap-fd"))
		TFAIL("/dev/null adopted: %d %s", ret, why.msg);
	close(fds[0]);

	/* a TAP without IFF_VNET_HDR */
	fds[0] = open("/dev/net/tun", O_RDWR);
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "vnt-novh");
	if (ioctl(fds[0], TUNSETIFF, &ifr))
		TFAIL("TUNSETIFF: %s", strerror(errno));
	ret = host.ops->open(&host, &cfg, &why);
	if (ret >= 0 || !strstr(why.msg, "IFF_VNET_HDR") || !strstr(why.msg, "vnt-novh"))
		TFAIL("no vnet hdr adopted: %d %s", ret, why.msg);
	close(fds[0]);

	/* a good one: adopted, made non-blocking, left open on close */
	fds[0] = open("/dev/net/tun", O_RDWR);
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR | IFF_MULTI_QUEUE;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "vnt-ok");
	if (ioctl(fds[0], TUNSETIFF, &ifr))
		TFAIL("TUNSETIFF: %s", strerror(errno));
	if (host.ops->open(&host, &cfg, &why))
		TFAIL("adopt: %s", why.msg);
	if (!(fcntl(fds[0], F_GETFL) & O_NONBLOCK))
		TFAIL("not made non-blocking");
	if (host.ops->queue_fd(&host, 0) != fds[0])
		TFAIL("queue fd");
	host.ops->close(&host);
	if (fcntl(fds[0], F_GETFD) < 0)
		TFAIL("adopted fd closed by the backend");
	/* fd count must match the pairs */
	cfg.npairs = 2;
	ret = host.ops->open(&host, &cfg, &why);
	if (ret != -EINVAL || !strstr(why.msg, "one fd per queue pair"))
		TFAIL("count mismatch: %d %s", ret, why.msg);
	close(fds[0]);
	return 0;
}

static void test_tap_adopt_fds(void) { RUN_NETNS(tap_case_adopt); }

static int tap_case_errors(void)
{
	struct host host = { .ops = &host_tap_ops };
	struct host_cfg cfg = { .npairs = 1,
				   .tap_name = "a-name-much-too-long" };
	struct ifreq ifr;
	struct reason why = { 0 };
	int fd, ret;

	ret = host.ops->open(&host, &cfg, &why);
	if (ret != -ENAMETOOLONG || !strstr(why.msg, "a-name-much-too-long"))
		TFAIL("long name: %d %s", ret, why.msg);
	/* the name exists as a single-queue TAP: busy, with advice */
	fd = open("/dev/net/tun", O_RDWR);
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "vnt-single");
	if (ioctl(fd, TUNSETIFF, &ifr))
		TFAIL("TUNSETIFF: %s", strerror(errno));
	cfg.tap_name = "vnt-single";
	ret = host.ops->open(&host, &cfg, &why);
	if (ret >= 0 || !strstr(why.msg, "tap vnt-single: TUNSETIFF") ||
	    !strstr(why.msg, "multi_queue"))
		TFAIL("existing single-queue: %d %s", ret, why.msg);
	close(fd);
	/* kernel-picked name is reported back and used for every queue */
	cfg.tap_name = "";
	cfg.npairs = 3;
	if (host.ops->open(&host, &cfg, &why))
		TFAIL("unnamed: %s", why.msg);
	host.ops->close(&host);
	return 0;
}

static void test_tap_errors(void) { RUN_NETNS(tap_case_errors); }

/* A persistent multi-queue TAP owned by a user: that user attaches, no root */
static int tap_case_persistent_unprivileged(void)
{
	struct host host = { .ops = &host_tap_ops };
	struct host_cfg cfg = { .npairs = 2, .tap_name = "vnt-pers" };
	struct ifreq ifr;
	struct reason why = { 0 };
	int fd, st, ret;
	pid_t pid;

	fd = open("/dev/net/tun", O_RDWR);
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR | IFF_MULTI_QUEUE;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "vnt-pers");
	if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr) ||
	    ioctl(fd, TUNSETOWNER, 65534) || ioctl(fd, TUNSETPERSIST, 1))
		TFAIL("make persistent TAP: %s", strerror(errno));
	close(fd);
	pid = fork();
	if (!pid) {
		if (setgid(65534) || setuid(65534))
			_exit(3);
		if (host.ops->open(&host, &cfg, &why)) {
			fprintf(stderr, "  as uid 65534: %s\n", why.msg);
			_exit(1);
		}
		if (host.ops->configure(&host, 1ULL << VIRTIO_F_VERSION_1, 12))
			_exit(2);
		host.ops->close(&host);
		/* not ours: refused, with what to do */
		cfg.tap_name = "vnt-notmine";
		ret = host.ops->open(&host, &cfg, &why);
		if (ret != -EPERM || !strstr(why.msg, "tap vnt-notmine: TUNSETIFF") ||
		    !strstr(why.msg, "ip tuntap add")) {
			fprintf(stderr, "  unprivileged create: %d %s\n", ret, why.msg);
			_exit(4);
		}
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st))
		TFAIL("unprivileged child failed (%d)", WEXITSTATUS(st));
	return 0;
}

static void test_tap_persistent_unprivileged(void)
{
	RUN_NETNS(tap_case_persistent_unprivileged);
}

int main(void)
{
	RUN(test_tap_frames);
	RUN(test_tap_gso_one_write);
	RUN(test_tap_adopt_fds);
	RUN(test_tap_errors);
	RUN(test_tap_persistent_unprivileged);
	return test_exit();
}
