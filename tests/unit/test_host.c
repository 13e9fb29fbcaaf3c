// SPDX-License-Identifier: MIT
/*
 * test_host.c - the host-side backends through their ops table: the
 * name table, null (eats TX, never RX), gen (eats TX, a fixed UDP frame
 * for every RX, its size option checked), loop (per-pair FIFO, bounded,
 * eventfd readable exactly while non-empty, offload check) and the TAP's
 * offload flags. A real TAP is tests/system/test_host_tap.c.
 */
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
#include "host_priv.h"
#include "net.h"

#define F(b)	(1ULL << (b))

static void test_table(void)
{
	const char *names = host_names();

	CHECK(host_find("tap") == &host_tap_ops);
	CHECK(host_find("null") == &host_null_ops);
	CHECK(host_find("loop") == &host_loop_ops);
	CHECK(host_find("gen") == &host_gen_ops);
	CHECK(host_find("nope") == NULL);
	CHECK(host_find(NULL) == NULL);
	CHECK(strstr(names, "tap") && strstr(names, "null") &&
	      strstr(names, "loop") && strstr(names, "gen"));
	CHECK(host_names() == names);
}

static void test_null(void)
{
	struct host host = { .ops = &host_null_ops };
	struct host_cfg cfg = { .npairs = 0 };
	uint8_t buf[100] = { 0 };
	struct iovec iov[2] = { { buf, 40 }, { buf + 40, 60 } };
	struct reason why = { 0 };

	CHECK_EQ(host.ops->open(&host, &cfg, &why), -EINVAL);
	CHECK_EQ(why.err, -EINVAL);
	CHECK(strstr(why.msg, "1..64"));
	cfg.npairs = 2;
	CHECK_EQ(host.ops->open(&host, &cfg, &why), 0);
	CHECK(host.ops->host_features(&host) & F(VIRTIO_NET_F_HOST_TSO4));
	CHECK_EQ(host.ops->configure(&host, F(VIRTIO_F_VERSION_1), 12), 0);
	CHECK_EQ(host.ops->tx(&host, 1, iov, 2), 100);
	CHECK_EQ(host.ops->tx(&host, 2, iov, 2), -EINVAL);
	CHECK_EQ(host.ops->rx(&host, 0, iov, 2), -EAGAIN);
	CHECK_EQ(host.ops->rx_peek_len(&host, 0), 0);
	CHECK_EQ(host.ops->rx_fd(&host, 0), -1);
	CHECK_EQ(host.ops->queue_fd(&host, 0), -1);
	host.ops->close(&host);
}

/* IPv4 header checksum over 20 bytes: 0 when the stored one is right */
static uint16_t ip_csum_check(const uint8_t *ip)
{
	uint32_t sum = 0;
	unsigned int i;

	for (i = 0; i < 20; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void test_gen(void)
{
	struct host host = { .ops = &host_gen_ops };
	struct host_cfg cfg = { .npairs = 0 };
	uint8_t buf[1600], big[1600];
	struct iovec iov[3] = { { buf, 5 }, { buf + 5, 30 }, { buf + 35, 1500 } };
	struct iovec small = { big, 60 };
	struct reason why = { 0 };
	unsigned int i;

	CHECK_EQ(host.ops->open(&host, &cfg, &why), -EINVAL);
	CHECK(strstr(why.msg, "1..64"));
	cfg.npairs = 2;
	cfg.gen_size = 59;
	CHECK_EQ(host.ops->open(&host, &cfg, &why), -EINVAL);
	CHECK(strstr(why.msg, "--gen-size 59") && strstr(why.msg, "60..9000"));
	cfg.gen_size = 9001;
	CHECK_EQ(host.ops->open(&host, &cfg, &why), -EINVAL);
	cfg.gen_size = 0;	/* the default, 64 */
	CHECK_EQ(host.ops->open(&host, &cfg, &why), 0);
	CHECK(host.ops->host_features(&host) & F(VIRTIO_NET_F_HOST_TSO4));
	CHECK_EQ(host.ops->configure(&host, F(VIRTIO_F_VERSION_1), 12), 0);
	CHECK_EQ(host.ops->rx_peek_len(&host, 1), 12 + 64);
	CHECK_EQ(host.ops->rx_peek_len(&host, 2), 0);
	CHECK_EQ(host.ops->rx_fd(&host, 0), -1);
	CHECK_EQ(host.ops->queue_fd(&host, 0), -1);
	CHECK_EQ(host.ops->tx(&host, 1, iov, 3), 1535);
	CHECK_EQ(host.ops->tx(&host, 2, iov, 3), -EINVAL);
	/* every RX the same frame, across iovec boundaries */
	for (i = 0; i < 3; i++) {
		memset(buf, 0xaa, sizeof(buf));
		CHECK_EQ(host.ops->rx(&host, 0, iov, 3), 76);
		CHECK_EQ(buf[0] | buf[11], 0);		/* zero vnet header */
		CHECK_EQ(buf[12], 0x02);		/* dst MAC, local */
		CHECK_EQ(buf[12 + 12] << 8 | buf[12 + 13], 0x0800);
		CHECK_EQ(buf[26], 0x45);
		CHECK_EQ(buf[26 + 2] << 8 | buf[26 + 3], 64 - 14);
		CHECK_EQ(buf[26 + 9], 17);
		CHECK_EQ(ip_csum_check(buf + 26), 0);
		CHECK_EQ(buf[76], 0xaa);		/* nothing past the frame */
	}
	CHECK_EQ(host.ops->rx(&host, 0, &small, 1), -EMSGSIZE);
	CHECK_EQ(host.ops->rx(&host, 5, iov, 3), -EINVAL);
	/* legacy 10 byte header */
	CHECK_EQ(host.ops->configure(&host, 0, 10), 0);
	CHECK_EQ(host.ops->rx_peek_len(&host, 0), 74);
	CHECK_EQ(host.ops->rx(&host, 0, iov, 3), 74);
	CHECK_EQ(buf[10], 0x02);
	CHECK_EQ(host.ops->configure(&host, 0, 13), -EINVAL);
	host.ops->close(&host);
	CHECK(host.priv == NULL);

	cfg.gen_size = 1518;
	CHECK_EQ(host.ops->open(&host, &cfg, &why), 0);
	CHECK_EQ(host.ops->configure(&host, F(VIRTIO_F_VERSION_1), 12), 0);
	CHECK_EQ(host.ops->rx_peek_len(&host, 0), 12 + 1518);
	CHECK_EQ(host.ops->rx(&host, 0, iov, 3), 12 + 1518);
	CHECK_EQ(buf[26 + 2] << 8 | buf[26 + 3], 1518 - 14);
	CHECK_EQ(ip_csum_check(buf + 26), 0);
	iov[2].iov_len = 1400;
	CHECK_EQ(host.ops->rx(&host, 0, iov, 3), -EMSGSIZE);
	host.ops->close(&host);
	cfg.gen_size = 0;
}

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i);
	if (n >= 12)
		memset(p, 0, 12);	/* a plain vnet header */
}

static void test_loop_fifo(void)
{
	struct host host = { .ops = &host_loop_ops };
	struct host_cfg cfg = { .npairs = 2 };
	uint8_t out[1500], in[1500], small[50];
	struct iovec ov = { out, sizeof(out) }, iv = { in, sizeof(in) };
	struct iovec sv = { small, sizeof(small) };
	struct reason why = { 0 };
	unsigned int i, n;

	CHECK_EQ(host.ops->open(&host, &cfg, &why), 0);
	CHECK_EQ(host.ops->configure(&host, F(VIRTIO_F_VERSION_1), 12), 0);
	/* no descriptor: the worker learns of frames from rx_peek_len() */
	CHECK_EQ(host.ops->rx_fd(&host, 0), -1);
	CHECK_EQ(host.ops->rx_fd(&host, 1), -1);
	CHECK_EQ(host.ops->rx_peek_len(&host, 0), 0);
	CHECK_EQ(host.ops->rx(&host, 0, &iv, 1), -EAGAIN);

	fill(out, sizeof(out), 1);
	CHECK_EQ(host.ops->tx(&host, 0, &ov, 1), 1500);
	CHECK_EQ(host.ops->rx_peek_len(&host, 0), 1500);
	CHECK_EQ(host.ops->rx_peek_len(&host, 1), 0);	/* pairs are independent */
	CHECK_EQ(host.ops->rx(&host, 1, &iv, 1), -EAGAIN);
	CHECK_EQ(host.ops->rx(&host, 0, &iv, 1), 1500);
	CHECK(!memcmp(in, out, sizeof(in)));
	CHECK_EQ(host.ops->rx_peek_len(&host, 0), 0);

	/* bounded: 256 slots, then -EAGAIN; FIFO order */
	for (n = 0; n < 1000; n++) {
		out[12] = (uint8_t)n;
		ov.iov_len = 60 + n % 7;
		if (host.ops->tx(&host, 0, &ov, 1) != (ssize_t)ov.iov_len)
			break;
	}
	CHECK_EQ(n, 256);
	CHECK_EQ(host.ops->tx(&host, 0, &ov, 1), -EAGAIN);
	/* too small a buffer: the frame is dropped, the next one stays */
	CHECK_EQ(host.ops->rx(&host, 0, &sv, 1), -EMSGSIZE);
	for (i = 1; i < n; i++) {
		CHECK_EQ(host.ops->rx_peek_len(&host, 0), 60 + i % 7);
		CHECK_EQ(host.ops->rx(&host, 0, &iv, 1), 60 + i % 7);
		CHECK_EQ(in[12], (uint8_t)i);
	}
	CHECK_EQ(host.ops->rx_peek_len(&host, 0), 0);
	CHECK_EQ(host.ops->rx(&host, 0, &iv, 1), -EAGAIN);
	host.ops->close(&host);
	/* reusable after close */
	CHECK_EQ(host.ops->open(&host, &cfg, &why), 0);
	host.ops->close(&host);
}

/* Offloads reflected to a guest that cannot take them are dropped */
static void test_loop_offload_check(void)
{
	struct host host = { .ops = &host_loop_ops };
	struct host_cfg cfg = { .npairs = 1 };
	struct virtio_net_hdr_v1 h;
	uint8_t frame[200] = { 0 };
	struct iovec iov[2] = { { &h, 12 }, { frame, sizeof(frame) } };
	struct reason why = { 0 };

	memset(&h, 0, sizeof(h));
	h.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	CHECK_EQ(host.ops->open(&host, &cfg, &why), 0);
	CHECK_EQ(host.ops->configure(&host, F(VIRTIO_F_VERSION_1), 12), 0);
	CHECK_EQ(host.ops->tx(&host, 0, iov, 2), -EPROTONOSUPPORT);
	CHECK_EQ(host.ops->configure(&host, F(VIRTIO_F_VERSION_1) |
				   F(VIRTIO_NET_F_GUEST_CSUM), 12), 0);
	CHECK_EQ(host.ops->tx(&host, 0, iov, 2), 212);
	h.gso_type = VIRTIO_NET_HDR_GSO_TCPV6;
	CHECK_EQ(host.ops->tx(&host, 0, iov, 2), -EPROTONOSUPPORT);
	CHECK_EQ(host.ops->configure(&host, F(VIRTIO_F_VERSION_1) |
				   F(VIRTIO_NET_F_GUEST_CSUM) |
				   F(VIRTIO_NET_F_GUEST_TSO6), 12), 0);
	CHECK_EQ(host.ops->tx(&host, 0, iov, 2), 212);
	host.ops->close(&host);
}

static void test_tap_offload_flags(void)
{
	uint64_t csum = F(VIRTIO_NET_F_GUEST_CSUM);

	CHECK_EQ(host_tap_offload_flags(0), 0);
	CHECK_EQ(host_tap_offload_flags(F(VIRTIO_NET_F_GUEST_TSO4)), 0);
	CHECK_EQ(host_tap_offload_flags(csum), TUN_F_CSUM);
	CHECK_EQ(host_tap_offload_flags(csum | F(VIRTIO_NET_F_GUEST_TSO4) |
				      F(VIRTIO_NET_F_GUEST_TSO6)),
		 TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6);
	CHECK_EQ(host_tap_offload_flags(csum | F(VIRTIO_NET_F_GUEST_ECN)),
		 TUN_F_CSUM);
	CHECK_EQ(host_tap_offload_flags(csum | F(VIRTIO_NET_F_GUEST_TSO4) |
				      F(VIRTIO_NET_F_GUEST_ECN) |
				      F(VIRTIO_NET_F_GUEST_UFO)),
		 TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO_ECN | TUN_F_UFO);
}

int main(void)
{
	RUN(test_table);
	RUN(test_null);
	RUN(test_gen);
	RUN(test_loop_fifo);
	RUN(test_loop_offload_check);
	RUN(test_tap_offload_flags);
	return test_exit();
}
