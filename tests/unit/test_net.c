// SPDX-License-Identifier: MIT
/*
 * test_net.c - the virtio-net data path of one pair without threads: header
 * length and validation, TX chain preparation (header split across
 * descriptors, too short, bad offloads), and TX -> loop backend -> RX over
 * real rings driven from the driver side, both layouts, mergeable on and
 * off, a 64 KiB GSO frame as one chain, and a backend that cannot peek
 * (the tap path: bounce tail, overflow drop), and a TX burst that a full
 * host side cuts short.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <linux/virtio_config.h>
#include <linux/virtio_net.h>

#include "testlib.h"
#include "vq_testutil.h"
#include "iov.h"
#include "net.h"
#include "net_tx.h"

#define F(b)		(1ULL << (b))
#define F_V1		F(VIRTIO_F_VERSION_1)
#define F_MRG		F(VIRTIO_NET_F_MRG_RXBUF)
#define F_OFFL		(F(VIRTIO_NET_F_CSUM) | F(VIRTIO_NET_F_GUEST_CSUM) | \
			 F(VIRTIO_NET_F_HOST_TSO4) | F(VIRTIO_NET_F_GUEST_TSO4))
#define RING		64

/* ---------------- pure helpers ---------------- */

static void test_hdr_len(void)
{
	CHECK_EQ(vnet_hdr_len(0), 10);
	CHECK_EQ(vnet_hdr_len(F_MRG), 12);
	CHECK_EQ(vnet_hdr_len(F_V1), 12);
	CHECK_EQ(vnet_hdr_len(F_V1 | F_MRG), 12);
	CHECK_EQ(vnet_hdr_len(F(VIRTIO_NET_F_CSUM)), 10);
}

static struct virtio_net_hdr_v1 mkhdr(uint8_t flags, uint8_t gso,
				      uint16_t hdr_len, uint16_t gso_size,
				      uint16_t cs, uint16_t co)
{
	struct virtio_net_hdr_v1 h;

	memset(&h, 0, sizeof(h));
	h.flags = flags;
	h.gso_type = gso;
	h.hdr_len = htole16(hdr_len);
	h.gso_size = htole16(gso_size);
	h.csum_start = htole16(cs);
	h.csum_offset = htole16(co);
	return h;
}

static void test_hdr_check(void)
{
	const uint8_t NC = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	uint64_t f = F_OFFL;
	struct virtio_net_hdr_v1 h;

	h = mkhdr(0, 0, 0, 0, 0, 0);
	CHECK_EQ(net_hdr_check(&h, 0, 60), 0);
	CHECK_EQ(net_hdr_check(&h, 0, VNET_FRAME_MAX + 1), -E2BIG);
	/* checksum offload: needs CSUM, field inside the frame */
	h = mkhdr(NC, 0, 0, 0, 34, 16);
	CHECK_EQ(net_hdr_check(&h, 0, 100), -EINVAL);
	CHECK_EQ(net_hdr_check(&h, f, 100), 0);
	CHECK_EQ(net_hdr_check(&h, f, 52), 0);	/* 34 + 16 + 2 */
	CHECK_EQ(net_hdr_check(&h, f, 51), -EINVAL);
	h = mkhdr(NC, 0, 0, 0, 0xffff, 0xffff);
	CHECK_EQ(net_hdr_check(&h, f, 65000), -EINVAL);
	/* flags the driver must not set */
	h = mkhdr(VIRTIO_NET_HDR_F_DATA_VALID, 0, 0, 0, 0, 0);
	CHECK_EQ(net_hdr_check(&h, f, 100), -EINVAL);
	h = mkhdr(0x80, 0, 0, 0, 0, 0);
	CHECK_EQ(net_hdr_check(&h, f, 100), -EINVAL);
	/* TSO */
	h = mkhdr(NC, VIRTIO_NET_HDR_GSO_TCPV4, 54, 1448, 34, 16);
	CHECK_EQ(net_hdr_check(&h, f, 60000), 0);
	CHECK_EQ(net_hdr_check(&h, F(VIRTIO_NET_F_CSUM), 60000), -EINVAL);
	h = mkhdr(0, VIRTIO_NET_HDR_GSO_TCPV4, 54, 1448, 34, 16);
	CHECK_EQ(net_hdr_check(&h, f, 60000), -EINVAL);	/* no NEEDS_CSUM */
	h = mkhdr(NC, VIRTIO_NET_HDR_GSO_TCPV4, 54, 0, 34, 16);
	CHECK_EQ(net_hdr_check(&h, f, 60000), -EINVAL);	/* gso_size 0 */
	h = mkhdr(NC, VIRTIO_NET_HDR_GSO_TCPV4, 200, 1448, 34, 16);
	CHECK_EQ(net_hdr_check(&h, f, 150), -EINVAL);	/* hdr_len > frame */
	h = mkhdr(NC, VIRTIO_NET_HDR_GSO_TCPV6, 74, 1448, 54, 16);
	CHECK_EQ(net_hdr_check(&h, f, 60000), -EINVAL);	/* no HOST_TSO6 */
	CHECK_EQ(net_hdr_check(&h, f | F(VIRTIO_NET_F_HOST_TSO6), 60000), 0);
	h = mkhdr(NC, VIRTIO_NET_HDR_GSO_TCPV4 | VIRTIO_NET_HDR_GSO_ECN, 54,
		  1448, 34, 16);
	CHECK_EQ(net_hdr_check(&h, f, 60000), -EINVAL);	/* no HOST_ECN */
	CHECK_EQ(net_hdr_check(&h, f | F(VIRTIO_NET_F_HOST_ECN), 60000), 0);
	h = mkhdr(NC, VIRTIO_NET_HDR_GSO_ECN, 54, 1448, 34, 16);
	CHECK_EQ(net_hdr_check(&h, ~0ULL, 60000), -EINVAL);	/* ECN alone */
	h = mkhdr(NC, 6, 54, 1448, 34, 16);
	CHECK_EQ(net_hdr_check(&h, ~0ULL, 60000), -EINVAL);	/* unknown */
	h = mkhdr(NC, VIRTIO_NET_HDR_GSO_UDP_L4, 42, 1472, 34, 6);
	CHECK_EQ(net_hdr_check(&h, f, 60000), -EINVAL);	/* no HOST_USO */
	CHECK_EQ(net_hdr_check(&h, f | F(VIRTIO_NET_F_HOST_USO), 60000), 0);
	h = mkhdr(NC, VIRTIO_NET_HDR_GSO_UDP, 42, 1400, 34, 6);
	CHECK_EQ(net_hdr_check(&h, f, 8000), -EINVAL);
	CHECK_EQ(net_hdr_check(&h, f | F(VIRTIO_NET_F_HOST_UFO), 8000), 0);
}

/* The header split over three descriptors is read once into our copy */
static void test_tx_prepare_split_header(void)
{
	uint8_t raw[12 + 100], *g;
	struct virtio_net_hdr_v1 src, hdr;
	struct iovec in[4], out[8];
	int n;

	src = mkhdr(VIRTIO_NET_HDR_F_NEEDS_CSUM, 0, 0, 0, 34, 16);
	src.num_buffers = htole16(7);	/* meaningless on TX: zeroed */
	memcpy(raw, &src, 12);
	for (n = 0; n < 100; n++)
		raw[12 + n] = (uint8_t)n;
	g = raw;
	in[0] = (struct iovec){ g, 5 };
	in[1] = (struct iovec){ g + 5, 4 };
	in[2] = (struct iovec){ g + 9, 13 };	/* 3 header + 10 frame */
	in[3] = (struct iovec){ g + 22, 90 };
	n = net_tx_prepare(in, 4, 12, F_OFFL, &hdr, out, 8);
	CHECK_EQ(n, 3);
	CHECK(out[0].iov_base == &hdr);
	CHECK_EQ(out[0].iov_len, 12);
	CHECK_EQ(hdr.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
	CHECK_EQ(le16toh(hdr.csum_start), 34);
	CHECK_EQ(hdr.num_buffers, 0);
	CHECK(out[1].iov_base == g + 12);
	CHECK_EQ(out[1].iov_len, 10);
	CHECK(out[2].iov_base == g + 22);
	CHECK_EQ(out[2].iov_len, 90);
	/* the guest rewriting its header afterwards changes nothing we send */
	raw[0] = 0xff;
	CHECK_EQ(hdr.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);

	/* legacy 10 byte header */
	n = net_tx_prepare(in, 4, 10, F_OFFL, &hdr, out, 8);
	CHECK(n < 0);	/* 0xff flags now */
	raw[0] = 0;
	n = net_tx_prepare(in, 4, 10, 0, &hdr, out, 8);
	CHECK_EQ(n, 3);
	CHECK_EQ(out[1].iov_len, 12);
	CHECK(out[1].iov_base == g + 10);
}

static void test_tx_prepare_errors(void)
{
	uint8_t raw[12 + 100] = { 0 };
	struct virtio_net_hdr_v1 hdr;
	struct iovec in[2], out[3];

	in[0] = (struct iovec){ raw, 11 };
	CHECK_EQ(net_tx_prepare(in, 1, 12, 0, &hdr, out, 3), -EMSGSIZE);
	in[0].iov_len = 12 + 13;	/* shorter than an Ethernet header */
	CHECK_EQ(net_tx_prepare(in, 1, 12, 0, &hdr, out, 3), -EMSGSIZE);
	in[0].iov_len = 12 + 14;
	CHECK_EQ(net_tx_prepare(in, 1, 12, 0, &hdr, out, 3), 2);
	raw[0] = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	CHECK_EQ(net_tx_prepare(in, 1, 12, 0, &hdr, out, 3), -EINVAL);
	raw[0] = 0;
	/* more frame segments than room */
	in[0].iov_len = 40;
	in[1] = (struct iovec){ raw + 40, 40 };
	CHECK_EQ(net_tx_prepare(in, 2, 12, 0, &hdr, out, 2), -E2BIG);
	CHECK_EQ(net_tx_prepare(in, 2, 12, 0, &hdr, out, 3), 3);
}

static void test_iov_copy(void)
{
	uint8_t a[3], b[5], c[4], out[12];
	const uint8_t src[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	struct iovec iov[3] = { { a, 3 }, { b, 5 }, { c, 4 } };

	CHECK_EQ(iov_len(iov, 3), 12);
	CHECK_EQ(iov_from_buf(iov, 3, 0, src, 12), 12);
	CHECK_EQ(b[0], 4);
	CHECK_EQ(c[3], 12);
	CHECK_EQ(iov_to_buf(iov, 3, 2, out, 12), 10);
	CHECK_EQ(out[0], 3);
	CHECK_EQ(out[9], 12);
	CHECK_EQ(iov_from_buf(iov, 3, 10, src, 4), 2);
	CHECK_EQ(c[2], 1);
}

/* ---------------- over real rings, loop backend ---------------- */

static const struct host_ops *t_loop_ops;
static struct host_ops t_nopeek_ops;	/* loop without peek: the tap path */

static ssize_t t_nopeek(struct host *host, unsigned int pair)
{
	(void)host;
	(void)pair;
	return -EOPNOTSUPP;
}

struct tnet {
	struct tenv rx, tx;
	struct host host;
	struct net_scratch s;
	struct ring_counters acc_rx, acc_tx;
	struct net_io rio, tio;
	uint64_t features;
	unsigned int hdr_len;
	unsigned int next_buf;	/* tdata() slots handed out */
};

static int tnet_init(struct tnet *t, enum vq_layout l, uint64_t features,
		     const struct host_ops *ops)
{
	struct host_cfg cfg = { .npairs = 1 };
	struct reason why = { 0 };
	int ret;

	memset(t, 0, sizeof(*t));
	t->features = features;
	t->hdr_len = vnet_hdr_len(features);
	ret = tenv_init(&t->rx, l, RING, features);
	if (!ret)
		ret = tenv_init(&t->tx, l, RING, features);
	if (!ret)
		ret = net_scratch_init(&t->s);
	if (ret)
		return ret;
	t->host.ops = ops;
	ret = ops->open(&t->host, &cfg, &why);
	if (!ret)
		ret = ops->configure(&t->host, features, t->hdr_len);
	if (ret)
		return ret;
	t->rio = (struct net_io){ &t->rx.dev, &t->host, 0, t->hdr_len, features,
				  &t->s, &t->acc_rx, NULL, NULL };
	t->tio = (struct net_io){ &t->tx.dev, &t->host, 0, t->hdr_len, features,
				  &t->s, &t->acc_tx, NULL, NULL };
	return 0;
}

static void tnet_cleanup(struct tnet *t)
{
	t->host.ops->close(&t->host);
	net_scratch_cleanup(&t->s);
	tenv_cleanup(&t->rx);
	tenv_cleanup(&t->tx);
}

/* Post one TX frame: header (split at @split) + @len pattern bytes */
static int tnet_send(struct tnet *t, const struct virtio_net_hdr_v1 *h,
		     unsigned int split, uint32_t len, uint8_t seed)
{
	uint64_t gpa = TM_GPA + TM_DATA_OFF + (uint64_t)t->next_buf * 4096;
	uint8_t *p = thost(&t->tx, gpa);
	struct vq_buf out[2];
	uint32_t i;

	t->next_buf += (t->hdr_len + len) / 4096 + 1;
	memcpy(p, h, t->hdr_len);
	for (i = 0; i < len; i++)
		p[t->hdr_len + i] = (uint8_t)(seed + i);
	out[0] = (struct vq_buf){ gpa, split };
	out[1] = (struct vq_buf){ gpa + split, t->hdr_len + len - split };
	if (vq_drv_add(&t->tx.drv, split ? out : out + 1, split ? 2 : 1,
		       NULL, 0, 1))
		return -1;
	vq_drv_kick_needed(&t->tx.drv);
	return 0;
}

/* Post @n RX buffers of @size bytes each; returns the first one's gpa */
static uint64_t tnet_post_rx(struct tnet *t, unsigned int n, uint32_t size)
{
	uint64_t first = 0, gpa;
	struct vq_buf in;
	unsigned int i;

	for (i = 0; i < n; i++) {
		gpa = TM_GPA + TM_DATA_OFF + (uint64_t)t->next_buf * 4096;
		t->next_buf += size / 4096 + 1;
		if (!i)
			first = gpa;
		in = (struct vq_buf){ gpa, size };
		if (vq_drv_add(&t->rx.drv, NULL, 0, &in, 1, (uint32_t)gpa))
			return 0;
	}
	vq_drv_kick_needed(&t->rx.drv);
	return first;
}

static bool tnet_check_frame(const uint8_t *p, uint32_t len, uint8_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (p[i] != (uint8_t)(seed + i))
			return false;
	return true;
}

static void t_loop_roundtrip(enum vq_layout l, bool mrg)
{
	struct virtio_net_hdr_v1 h = mkhdr(0, 0, 0, 0, 0, 0);
	uint64_t f = F_V1 | (mrg ? F_MRG : 0);
	uint32_t token, len, len2;
	struct tnet t;
	uint64_t rxg;
	uint8_t *p;

	CHECK_EQ(tnet_init(&t, l, f, t_loop_ops), 0);
	CHECK_EQ(tnet_send(&t, &h, 7, 100, 3), 0);	/* header split 7 + 5 */
	CHECK_EQ(net_tx_one(&t.tio), 100);
	CHECK_EQ(net_tx_one(&t.tio), -EAGAIN);
	vq_flush(&t.tx.dev);
	CHECK_EQ(vq_drv_get_used(&t.tx.drv, &token, &len), 0);
	CHECK_EQ(len, 0);
	CHECK_EQ(t.acc_tx.packets, 1);
	CHECK_EQ(t.acc_tx.bytes, 100);

	/* no RX buffers yet: the frame waits in the backend */
	CHECK_EQ(net_rx_one(&t.rio), -ENOBUFS);
	CHECK_EQ(t.host.ops->rx_peek_len(&t.host, 0), 112);
	if (mrg) {
		rxg = tnet_post_rx(&t, 3, 64);	/* 64 + 48 used, 1 left */
	} else {
		rxg = tnet_post_rx(&t, 1, 64);	/* too small: dropped */
		CHECK_EQ(net_rx_one(&t.rio), 0);
		CHECK_EQ(t.acc_rx.drops[DROP_TOO_BIG], 1);
		CHECK_EQ(net_rx_one(&t.rio), -EAGAIN);
		/* the small buffer is completed empty, not stuck at the head */
		vq_flush(&t.rx.dev);
		CHECK_EQ(vq_drv_get_used(&t.rx.drv, &token, &len), 0);
		CHECK_EQ(len, 0);
		CHECK_EQ(token, (uint32_t)rxg);
		CHECK_EQ(tnet_send(&t, &h, 0, 100, 3), 0);
		CHECK_EQ(net_tx_one(&t.tio), 100);
		rxg = tnet_post_rx(&t, 1, 2048);
	}
	CHECK(rxg);
	CHECK_EQ(net_rx_one(&t.rio), 100);
	CHECK_EQ(net_rx_one(&t.rio), -EAGAIN);
	CHECK(vq_flush(&t.rx.dev) || true);
	CHECK_EQ(vq_drv_get_used(&t.rx.drv, &token, &len), 0);
	p = thost(&t.rx, token);
	CHECK_EQ(le16toh(((struct virtio_net_hdr_v1 *)p)->num_buffers),
		 mrg ? 2 : 1);
	if (mrg) {
		CHECK_EQ(len, 64);
		CHECK(tnet_check_frame(p + 12, 52, 3));
		CHECK_EQ(vq_drv_get_used(&t.rx.drv, &token, &len2), 0);
		CHECK_EQ(len2, 48);
		CHECK(tnet_check_frame(thost(&t.rx, token), 48, 3 + 52));
		/* the third buffer was given back unused */
		CHECK_EQ(vq_drv_get_used(&t.rx.drv, &token, &len2), -EAGAIN);
		CHECK(vq_avail_pending(&t.rx.dev));
	} else {
		CHECK_EQ(len, 112);
		CHECK(tnet_check_frame(p + 12, 100, 3));
	}
	CHECK_EQ(t.acc_rx.packets, 1);
	CHECK_EQ(t.acc_rx.bytes, 100);
	tnet_cleanup(&t);
}

static void test_loop_split_mrg(void) { t_loop_roundtrip(VQ_SPLIT, true); }
static void test_loop_split_nomrg(void) { t_loop_roundtrip(VQ_SPLIT, false); }
static void test_loop_packed_mrg(void) { t_loop_roundtrip(VQ_PACKED, true); }
static void test_loop_packed_nomrg(void) { t_loop_roundtrip(VQ_PACKED, false); }

/* Short chains and bad headers are dropped, counted and completed */
static void test_tx_drops(void)
{
	struct virtio_net_hdr_v1 h = mkhdr(0, 0, 0, 0, 0, 0);
	uint32_t token, len;
	struct tnet t;

	CHECK_EQ(tnet_init(&t, VQ_SPLIT, F_V1, t_loop_ops), 0);
	CHECK_EQ(tnet_send(&t, &h, 0, 0, 0), 0);	/* just a header */
	CHECK_EQ(net_tx_one(&t.tio), 0);
	CHECK_EQ(t.acc_tx.drops[DROP_TOO_SHORT], 1);
	h = mkhdr(VIRTIO_NET_HDR_F_NEEDS_CSUM, 0, 0, 0, 34, 16);
	CHECK_EQ(tnet_send(&t, &h, 0, 100, 0), 0);	/* CSUM not acked */
	CHECK_EQ(net_tx_one(&t.tio), 0);
	CHECK_EQ(t.acc_tx.drops[DROP_BAD_HDR], 1);
	CHECK_EQ(t.acc_tx.packets, 0);
	vq_flush(&t.tx.dev);
	CHECK_EQ(vq_drv_get_used(&t.tx.drv, &token, &len), 0);
	CHECK_EQ(vq_drv_get_used(&t.tx.drv, &token, &len), 0);
	CHECK_EQ(t.host.ops->rx_peek_len(&t.host, 0), 0);
	/* disabled ring: drained and dropped */
	h = mkhdr(0, 0, 0, 0, 0, 0);
	CHECK_EQ(tnet_send(&t, &h, 0, 100, 0), 0);
	CHECK_EQ(net_tx_drop_one(&t.tio), 0);
	CHECK_EQ(t.acc_tx.drops[DROP_DISABLED], 1);
	CHECK_EQ(t.host.ops->rx_peek_len(&t.host, 0), 0);
	tnet_cleanup(&t);
}

/*
 * Post one TX frame of @len pattern bytes whose Ethernet header is split
 * across descriptors: header + 9 frame bytes, 3 bytes, the rest.
 */
static int tnet_send3(struct tnet *t, uint32_t len, uint8_t seed,
		      const uint8_t src[6])
{
	uint64_t gpa = TM_GPA + TM_DATA_OFF + (uint64_t)t->next_buf * 4096;
	struct virtio_net_hdr_v1 h = mkhdr(0, 0, 0, 0, 0, 0);
	uint8_t *p = thost(&t->tx, gpa);
	struct vq_buf out[3];
	uint32_t i, a = t->hdr_len + 9;

	t->next_buf += (t->hdr_len + len) / 4096 + 1;
	memcpy(p, &h, t->hdr_len);
	for (i = 0; i < len; i++)
		p[t->hdr_len + i] = (uint8_t)(seed + i);
	memcpy(p + t->hdr_len + 6, src, 6);
	out[0] = (struct vq_buf){ gpa, a };
	out[1] = (struct vq_buf){ gpa + a, 3 };
	out[2] = (struct vq_buf){ gpa + a + 3, t->hdr_len + len - a - 3 };
	if (vq_drv_add(&t->tx.drv, out, 3, NULL, 0, 1))
		return -1;
	vq_drv_kick_needed(&t->tx.drv);
	return 0;
}

/*
 * --mac-lock on the TX path: a frame whose source MAC spans descriptors is
 * checked on a copy and arrives intact; a foreign source is dropped and
 * counted as spoofed; so are short frames of every length up to the copy
 */
static void test_tx_spoof(void)
{
	static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 1, 2, 3 };
	static const uint8_t bad[6] = { 0x52, 0x54, 0x00, 9, 9, 9 };
	struct spoof_policy pol;
	uint32_t token, len;
	struct tnet t;
	uint8_t *p;

	memset(&pol, 0, sizeof(pol));
	pol.mac_lock = true;
	spoof_finish(&pol, mac);
	CHECK_EQ(tnet_init(&t, VQ_SPLIT, F_V1 | F_MRG, t_loop_ops), 0);
	t.tio.spoof = &pol;
	CHECK_EQ(tnet_send3(&t, 100, 5, mac), 0);
	CHECK_EQ(net_tx_one(&t.tio), 100);
	CHECK_EQ(tnet_send3(&t, 100, 5, bad), 0);
	CHECK_EQ(net_tx_one(&t.tio), 0);
	CHECK_EQ(t.acc_tx.drops[DROP_SPOOF], 1);
	CHECK_EQ(t.acc_tx.packets, 1);
	/* a frame shorter than the copy: whole in the copy */
	CHECK_EQ(tnet_send3(&t, 20, 5, mac), 0);
	CHECK_EQ(net_tx_one(&t.tio), 20);
	vq_flush(&t.tx.dev);
	/* what arrived is the guest's frame, byte for byte */
	CHECK(tnet_post_rx(&t, 2, 2048));
	CHECK_EQ(net_rx_one(&t.rio), 100);
	CHECK_EQ(net_rx_one(&t.rio), 20);
	vq_flush(&t.rx.dev);
	CHECK_EQ(vq_drv_get_used(&t.rx.drv, &token, &len), 0);
	CHECK_EQ(len, 112);
	p = thost(&t.rx, token);
	CHECK(memcmp(p + 12 + 6, mac, 6) == 0);
	CHECK(tnet_check_frame(p + 12, 6, 5));
	CHECK(tnet_check_frame(p + 12 + 12, 88, 5 + 12));
	CHECK_EQ(vq_drv_get_used(&t.rx.drv, &token, &len), 0);
	CHECK_EQ(len, 32);
	/* frame in one descriptor with its header: the copy goes in front */
	memcpy(pol.mac, (const uint8_t[]){ 13, 14, 15, 16, 17, 18 }, 6);
	CHECK_EQ(tnet_send(&t, &(struct virtio_net_hdr_v1){ 0 }, 0, 300, 7), 0);
	CHECK_EQ(net_tx_one(&t.tio), 300);
	CHECK(tnet_post_rx(&t, 1, 2048));
	CHECK_EQ(net_rx_one(&t.rio), 300);
	vq_flush(&t.rx.dev);
	CHECK_EQ(vq_drv_get_used(&t.rx.drv, &token, &len), 0);
	CHECK_EQ(len, 312);
	CHECK(tnet_check_frame((uint8_t *)thost(&t.rx, token) + 12, 300, 7));
	tnet_cleanup(&t);
}

/* A 64 KiB TSO frame crosses as one TX chain and lands in 4 KiB buffers */
static void t_gso(enum vq_layout l)
{
	struct virtio_net_hdr_v1 h = mkhdr(VIRTIO_NET_HDR_F_NEEDS_CSUM,
					   VIRTIO_NET_HDR_GSO_TCPV4, 66, 1448,
					   34, 16);
	uint32_t token, len, total = 0, frame = 65000;
	struct virtio_net_hdr_v1 *rh;
	unsigned int n = 0;
	struct tnet t;

	CHECK_EQ(tnet_init(&t, l, F_V1 | F_MRG | F_OFFL, t_loop_ops), 0);
	CHECK_EQ(tnet_send(&t, &h, 12, frame, 9), 0);
	CHECK_EQ(net_tx_one(&t.tio), (int)frame);
	CHECK(tnet_post_rx(&t, 20, 4096));
	CHECK_EQ(net_rx_one(&t.rio), (int)frame);
	vq_flush(&t.rx.dev);
	CHECK_EQ(vq_drv_get_used(&t.rx.drv, &token, &len), 0);
	rh = thost(&t.rx, token);
	CHECK_EQ(rh->gso_type, VIRTIO_NET_HDR_GSO_TCPV4);
	CHECK_EQ(rh->flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
	CHECK_EQ(le16toh(rh->gso_size), 1448);
	CHECK_EQ(le16toh(rh->csum_start), 34);
	CHECK_EQ(le16toh(rh->num_buffers), (frame + 12 + 4095) / 4096);
	CHECK(tnet_check_frame((uint8_t *)rh + 12, 4096 - 12, 9));
	do {
		n++;
		total += len;
	} while (vq_drv_get_used(&t.rx.drv, &token, &len) == 0);
	CHECK_EQ(n, (frame + 12 + 4095) / 4096);
	CHECK_EQ(total, frame + 12);
	tnet_cleanup(&t);
}

static void test_gso_64k_split(void) { t_gso(VQ_SPLIT); }
static void test_gso_64k_packed(void) { t_gso(VQ_PACKED); }

/* GSO to a guest that did not ack GUEST_TSO4: loop drops it */
static void test_loop_gso_needs_guest_tso(void)
{
	struct virtio_net_hdr_v1 h = mkhdr(VIRTIO_NET_HDR_F_NEEDS_CSUM,
					   VIRTIO_NET_HDR_GSO_TCPV4, 66, 1448,
					   34, 16);
	uint64_t f = F_V1 | F(VIRTIO_NET_F_CSUM) | F(VIRTIO_NET_F_HOST_TSO4);
	struct tnet t;

	CHECK_EQ(tnet_init(&t, VQ_SPLIT, f, t_loop_ops), 0);
	CHECK_EQ(tnet_send(&t, &h, 0, 3000, 0), 0);
	CHECK_EQ(net_tx_one(&t.tio), 0);
	CHECK_EQ(t.acc_tx.drops[DROP_HOST], 1);
	CHECK_EQ(t.host.ops->rx_peek_len(&t.host, 0), 0);
	tnet_cleanup(&t);
}

/* Backend that cannot peek (tap): bounce tail catches what does not fit */
static void t_nopeek_case(enum vq_layout l)
{
	struct virtio_net_hdr_v1 h = mkhdr(0, 0, 0, 0, 0, 0);
	uint32_t token, len;
	struct tnet t;

	CHECK_EQ(tnet_init(&t, l, F_V1 | F_MRG, &t_nopeek_ops), 0);
	CHECK_EQ(tnet_send(&t, &h, 0, 1000, 5), 0);
	CHECK_EQ(net_tx_one(&t.tio), 1000);
	CHECK_EQ(tnet_send(&t, &h, 0, 3000, 6), 0);
	CHECK_EQ(net_tx_one(&t.tio), 3000);
	CHECK(tnet_post_rx(&t, 2, 1536));
	CHECK_EQ(net_rx_one(&t.rio), 1000);	/* fits the first buffer */
	vq_flush(&t.rx.dev);
	CHECK_EQ(vq_drv_get_used(&t.rx.drv, &token, &len), 0);
	CHECK_EQ(len, 1012);
	CHECK(tnet_check_frame(thost(&t.rx, token + 12), 1000, 5));
	/* 3012 bytes, one 1536 byte buffer left: overflow, dropped */
	CHECK_EQ(net_rx_one(&t.rio), 0);
	CHECK_EQ(t.acc_rx.drops[DROP_NO_RX_BUF], 1);
	CHECK_EQ(net_rx_one(&t.rio), -EAGAIN);
	vq_flush(&t.rx.dev);
	CHECK_EQ(vq_drv_get_used(&t.rx.drv, &token, &len), -EAGAIN);
	CHECK(vq_avail_pending(&t.rx.dev));	/* buffer given back */
	tnet_cleanup(&t);
}

/*
 * Collect @n used RX buffers of one frame (posted 4096 apart) into @out;
 * return the bytes, or 0 if fewer came or num_buffers is not @n.
 */
static uint32_t tnet_collect(struct tnet *t, unsigned int n, uint8_t *out)
{
	struct virtio_net_hdr_v1 *rh = NULL;
	uint32_t token, len, total = 0;
	unsigned int i;

	vq_flush(&t->rx.dev);
	for (i = 0; i < n; i++) {
		if (vq_drv_get_used(&t->rx.drv, &token, &len))
			return 0;
		if (!i)
			rh = thost(&t->rx, token);
		memcpy(out + total, thost(&t->rx, token), len);
		total += len;
	}
	return rh && le16toh(rh->num_buffers) == n ? total : 0;
}

/*
 * Backend that cannot peek, mergeable: after the first frame, only as many
 * buffers as the recent frames needed are popped (no pop-and-give-back of
 * a 64 KiB worth per frame); a larger frame than estimated still arrives
 * whole, its tail copied into more buffers; one that finds too few buffers
 * is dropped and counted, its buffers given back.
 */
static void t_nopeek_estimate(enum vq_layout l)
{
	struct virtio_net_hdr_v1 h = mkhdr(0, 0, 0, 0, 0, 0);
	static uint8_t got[16384];
	uint64_t discards;
	uint32_t est = 0;
	unsigned int i;
	struct tnet t;

	CHECK_EQ(tnet_init(&t, l, F_V1 | F_MRG, &t_nopeek_ops), 0);
	t.rio.rx_est = &est;
	CHECK(tnet_post_rx(&t, 48, 1536));
	for (i = 0; i < 8; i++) {
		CHECK_EQ(tnet_send(&t, &h, 0, 60, (uint8_t)i), 0);
		CHECK_EQ(net_tx_one(&t.tio), 60);
		CHECK_EQ(net_rx_one(&t.rio), 60);
		CHECK_EQ(tnet_collect(&t, 1, got), 72);
		CHECK(tnet_check_frame(got + 12, 60, (uint8_t)i));
	}
	CHECK_EQ(est, 72);
	/* the first frame offered 64 KiB; the next seven one buffer each */
	discards = t.rx.dev.stats.discards;
	CHECK(discards > 0);
	CHECK_EQ(t.acc_rx.packets, 8);

	/* 9000 bytes against an estimate of 72: tail copied, 6 buffers */
	CHECK_EQ(tnet_send(&t, &h, 0, 9000, 77), 0);
	CHECK_EQ(net_tx_one(&t.tio), 9000);
	CHECK_EQ(net_rx_one(&t.rio), 9000);
	CHECK_EQ(tnet_collect(&t, 6, got), 9012);
	CHECK(tnet_check_frame(got + 12, 9000, 77));
	CHECK_EQ(est, 9012);
	CHECK_EQ(t.rx.dev.stats.discards, discards);

	/* back to small frames: the estimate comes down, nothing dropped */
	for (i = 0; i < 40; i++) {
		CHECK_EQ(tnet_send(&t, &h, 0, 100, (uint8_t)i), 0);
		CHECK_EQ(net_tx_one(&t.tio), 100);
		CHECK_EQ(net_rx_one(&t.rio), 100);
		CHECK(tnet_collect(&t, 1, got) == 112 ||
		      t.acc_rx.drops[DROP_NO_RX_BUF]);
		if (!vq_avail_pending(&t.rx.dev))
			CHECK(tnet_post_rx(&t, 16, 1536));
	}
	CHECK(est < 1536);
	CHECK_EQ(t.acc_rx.drops[DROP_NO_RX_BUF], 0);

	/* 3000 bytes, estimate small, one buffer left: dropped, given back */
	while (vq_avail_pending(&t.rx.dev)) {
		CHECK_EQ(tnet_send(&t, &h, 0, 60, 1), 0);
		CHECK_EQ(net_tx_one(&t.tio), 60);
		CHECK_EQ(net_rx_one(&t.rio), 60);
	}
	vq_flush(&t.rx.dev);
	while (vq_drv_get_used(&t.rx.drv, &i, &i) == 0)
		;
	CHECK(tnet_post_rx(&t, 1, 1536));
	CHECK_EQ(tnet_send(&t, &h, 0, 3000, 3), 0);
	CHECK_EQ(net_tx_one(&t.tio), 3000);
	CHECK_EQ(net_rx_one(&t.rio), 0);
	CHECK_EQ(t.acc_rx.drops[DROP_NO_RX_BUF], 1);
	CHECK(vq_avail_pending(&t.rx.dev));
	tnet_cleanup(&t);
}

static void test_nopeek_estimate_split(void) { t_nopeek_estimate(VQ_SPLIT); }
static void test_nopeek_estimate_packed(void) { t_nopeek_estimate(VQ_PACKED); }

/* The loop backend, full after t_full_left more frames */
static struct host_ops t_full_ops;
static unsigned int t_full_left;

static ssize_t t_full_tx(struct host *host, unsigned int pair,
			 const struct iovec *iov, unsigned int iovcnt)
{
	if (!t_full_left)
		return -EAGAIN;
	t_full_left--;
	return t_loop_ops->tx(host, pair, iov, iovcnt);
}

/*
 * net_tx_burst(): every chain popped is sent or dropped in ring order; when
 * the host side fills up, the chain it refused and the ones after it go
 * back to the ring untouched and come out next time, in order; @max holds.
 */
static void t_tx_burst(enum vq_layout l)
{
	struct virtio_net_hdr_v1 h = mkhdr(0, 0, 0, 0, 0, 0);
	struct virtio_net_hdr_v1 bad = mkhdr(VIRTIO_NET_HDR_F_NEEDS_CSUM, 0, 0,
					     0, 34, 16);
	static const uint32_t want[] = { 100, 60, 70, 80, 90, 95, 99 };
	uint32_t token, len;
	uint64_t bytes;
	unsigned int i;
	struct tnet t;
	int err;

	CHECK_EQ(tnet_init(&t, l, F_V1, &t_full_ops), 0);
	CHECK_EQ(tnet_send(&t, &h, 0, 100, 1), 0);
	CHECK_EQ(tnet_send(&t, &bad, 0, 100, 9), 0);	/* dropped: CSUM not acked */
	CHECK_EQ(tnet_send(&t, &h, 0, 60, 2), 0);
	CHECK_EQ(tnet_send(&t, &h, 0, 70, 3), 0);
	CHECK_EQ(tnet_send(&t, &h, 0, 80, 4), 0);
	t_full_left = 2;	/* the 70 B frame is refused, 80 B not tried */
	CHECK_EQ(net_tx_burst(&t.tio, NET_TX_BURST, &bytes, &err), 3);
	CHECK_EQ(err, -EBUSY);
	CHECK_EQ(bytes, 160);
	CHECK_EQ(t.acc_tx.packets, 2);
	CHECK_EQ(t.acc_tx.drops[DROP_BAD_HDR], 1);
	vq_flush(&t.tx.dev);
	for (i = 0; i < 3; i++)
		CHECK_EQ(vq_drv_get_used(&t.tx.drv, &token, &len), 0);
	CHECK_EQ(vq_drv_get_used(&t.tx.drv, &token, &len), -EAGAIN);
	CHECK(vq_avail_pending(&t.tx.dev));	/* the refused two are back */

	t_full_left = 100;
	CHECK_EQ(tnet_send(&t, &h, 0, 90, 5), 0);
	CHECK_EQ(tnet_send(&t, &h, 0, 95, 6), 0);
	CHECK_EQ(tnet_send(&t, &h, 0, 99, 7), 0);
	CHECK_EQ(net_tx_burst(&t.tio, 3, &bytes, &err), 3);	/* @max */
	CHECK_EQ(err, 0);
	CHECK_EQ(bytes, 70 + 80 + 90);
	CHECK_EQ(net_tx_burst(&t.tio, NET_TX_BURST, &bytes, &err), 2);
	CHECK_EQ(err, -EAGAIN);
	CHECK_EQ(bytes, 95 + 99);
	vq_flush(&t.tx.dev);

	/* what reached the host side, in ring order, each once */
	tnet_post_rx(&t, 7, 2048);
	for (i = 0; i < 7; i++) {
		CHECK_EQ(net_rx_one(&t.rio), (int)want[i]);
	}
	CHECK_EQ(net_rx_one(&t.rio), -EAGAIN);
	vq_flush(&t.rx.dev);
	for (i = 0; i < 7; i++) {
		CHECK_EQ(vq_drv_get_used(&t.rx.drv, &token, &len), 0);
		CHECK_EQ(len, t.hdr_len + want[i]);
		CHECK(tnet_check_frame((uint8_t *)thost(&t.rx, token) + t.hdr_len, want[i],
				       (uint8_t)(i ? i + 1 : 1)));
	}
	tnet_cleanup(&t);
}

static void test_tx_burst_split(void) { t_tx_burst(VQ_SPLIT); }
static void test_tx_burst_packed(void) { t_tx_burst(VQ_PACKED); }

static void test_nopeek_split(void) { t_nopeek_case(VQ_SPLIT); }
static void test_nopeek_packed(void) { t_nopeek_case(VQ_PACKED); }

/* loop with a peek that understates every frame (and invents one when
 * empty): the direct path must still catch what the host side does */
static struct host_ops t_lowpeek_ops;

static ssize_t t_lowpeek(struct host *host, unsigned int pair)
{
	(void)host;
	(void)pair;
	return 20;
}

/*
 * A frame whose length is known and that one chain holds goes straight
 * into that chain (net_rx_fit()): the same used length, num_buffers and
 * frame as the gathering path, and the same drops and give-backs when the
 * host side does not deliver what it announced.
 */
static void t_rx_fit(enum vq_layout l, bool mrg)
{
	struct virtio_net_hdr_v1 h = mkhdr(0, 0, 0, 0, 0, 0);
	uint64_t f = F_V1 | (mrg ? F_MRG : 0), rxg;
	uint32_t token, len;
	struct tnet t;
	uint8_t *p;

	CHECK_EQ(tnet_init(&t, l, f, t_loop_ops), 0);
	CHECK_EQ(tnet_send(&t, &h, 0, 100, 9), 0);
	CHECK_EQ(net_tx_one(&t.tio), 100);
	rxg = t.next_buf * 4096ULL + TM_GPA + TM_DATA_OFF;
	memset(thost(&t.rx, rxg), 0xff, 2048);	/* num_buffers must be written */
	CHECK_EQ(tnet_post_rx(&t, 1, 2048), rxg);
	CHECK_EQ(net_rx_one(&t.rio), 100);
	vq_flush(&t.rx.dev);
	CHECK_EQ(vq_drv_get_used(&t.rx.drv, &token, &len), 0);
	CHECK_EQ(token, (uint32_t)rxg);
	CHECK_EQ(len, 112);
	p = thost(&t.rx, token);
	CHECK_EQ(le16toh(((struct virtio_net_hdr_v1 *)p)->num_buffers), 1);
	CHECK(tnet_check_frame(p + 12, 100, 9));
	CHECK_EQ(p[112], 0xff);			/* nothing written past it */
	CHECK_EQ(t.acc_rx.packets, 1);
	CHECK_EQ(t.acc_rx.bytes, 100);

	/* announced 20 bytes, delivers 112 into a 64 byte chain: too big */
	t.host.ops = &t_lowpeek_ops;
	CHECK_EQ(tnet_send(&t, &h, 0, 100, 9), 0);
	CHECK_EQ(net_tx_one(&t.tio), 100);
	rxg = tnet_post_rx(&t, 1, 64);
	CHECK(rxg);
	CHECK_EQ(net_rx_one(&t.rio), 0);
	CHECK_EQ(t.acc_rx.drops[DROP_TOO_BIG], 1);
	CHECK_EQ(t.acc_rx.packets, 1);
	vq_flush(&t.rx.dev);
	if (mrg) {
		/* mergeable: the chain is given back, it pops again */
		CHECK_EQ(vq_drv_get_used(&t.rx.drv, &token, &len), -EAGAIN);
		CHECK(vq_avail_pending(&t.rx.dev));
	} else {
		/* one chain: completed empty, never stuck at the head */
		CHECK_EQ(vq_drv_get_used(&t.rx.drv, &token, &len), 0);
		CHECK_EQ(token, (uint32_t)rxg);
		CHECK_EQ(len, 0);
		rxg = tnet_post_rx(&t, 1, 64);
	}

	/* announced, but nothing there: the chain goes back untouched */
	CHECK_EQ(net_rx_one(&t.rio), -EAGAIN);
	vq_flush(&t.rx.dev);
	CHECK_EQ(vq_drv_get_used(&t.rx.drv, &token, &len), -EAGAIN);
	CHECK(vq_avail_pending(&t.rx.dev));
	CHECK_EQ(t.acc_rx.drops[DROP_TOO_BIG], 1);
	t.host.ops = t_loop_ops;
	tnet_cleanup(&t);
}

/*
 * net_rx_burst() stops at the frame budget, at the byte budget (checked
 * before each frame, as the worker's budgets are) and at the first
 * refusal, and says which
 */
static void test_rx_burst_budgets(void)
{
	struct virtio_net_hdr_v1 h = mkhdr(0, 0, 0, 0, 0, 0);
	uint64_t bytes;
	struct tnet t;
	unsigned int i;
	int err;

	CHECK_EQ(tnet_init(&t, VQ_SPLIT, F_V1 | F_MRG, t_loop_ops), 0);
	for (i = 0; i < 6; i++) {
		CHECK_EQ(tnet_send(&t, &h, 0, 100, (uint8_t)i), 0);
		CHECK_EQ(net_tx_one(&t.tio), 100);
	}
	CHECK(tnet_post_rx(&t, 8, 2048));
	CHECK_EQ(net_rx_burst(&t.rio, 2, UINT64_MAX, &bytes, &err), 2);
	CHECK_EQ(bytes, 200);
	CHECK_EQ(err, 0);
	/* 150 bytes: the second frame starts below it, the third does not */
	CHECK_EQ(net_rx_burst(&t.rio, 64, 150, &bytes, &err), 2);
	CHECK_EQ(bytes, 200);
	CHECK_EQ(err, 0);
	CHECK_EQ(net_rx_burst(&t.rio, 64, UINT64_MAX, &bytes, &err), 2);
	CHECK_EQ(bytes, 200);
	CHECK_EQ(err, -EAGAIN);
	CHECK_EQ(t.acc_rx.packets, 6);
	/* a frame but no buffer left for it: -ENOBUFS, the frame waits */
	for (i = 0; i < 3; i++) {
		CHECK_EQ(tnet_send(&t, &h, 0, 100, 7), 0);
		CHECK_EQ(net_tx_one(&t.tio), 100);
	}
	CHECK_EQ(net_rx_burst(&t.rio, 64, UINT64_MAX, &bytes, &err), 2);
	CHECK_EQ(err, -ENOBUFS);
	CHECK_EQ(t.host.ops->rx_peek_len(&t.host, 0), 112);
	tnet_cleanup(&t);
}

/*
 * RX chains popped ahead of their frames (NET_RX_AHEAD at a time): a frame
 * that needs more than its chain, amid frames that fit one, takes the
 * chains that follow in ring order (mergeable) or is dropped (not); chains
 * no frame came for go back and are used by the next burst; when the host
 * side fails a frame, the chains popped after its chain go back with it.
 * The driver sees every buffer in ring order with the right length.
 */
static void t_rx_ahead(enum vq_layout l, bool mrg)
{
	static const uint32_t size[6] = { 100, 100, 600, 100, 100, 100 };
	struct virtio_net_hdr_v1 h = mkhdr(0, 0, 0, 0, 0, 0);
	uint64_t f = F_V1 | (mrg ? F_MRG : 0), first, bytes;
	uint32_t token, len, want_len;
	unsigned int i, k;
	struct tnet t;
	uint8_t *p;
	int err;

	CHECK_EQ(tnet_init(&t, l, f, t_loop_ops), 0);
	for (i = 0; i < 6; i++) {
		CHECK_EQ(tnet_send(&t, &h, 0, size[i], (uint8_t)(3 * i)), 0);
		CHECK_EQ(net_tx_one(&t.tio), (int)size[i]);
	}
	first = tnet_post_rx(&t, 12, 256);
	CHECK(first);
	CHECK_EQ(net_rx_burst(&t.rio, 64, UINT64_MAX, &bytes, &err), 6);
	CHECK_EQ(err, -EAGAIN);
	CHECK_EQ(t.rx.dev.inflight, 0);
	vq_flush(&t.rx.dev);
	/* buffer k of the 12 is at first + k * 4096 */
	for (i = 0, k = 0; i < 6; i++) {
		unsigned int used = mrg && size[i] > 200 ? 3 : 1;
		uint32_t left = size[i] + 12;

		p = thost(&t.rx, first + (uint64_t)k * 4096);
		for (unsigned int j = 0; j < used; j++, k++) {
			CHECK_EQ(vq_drv_get_used(&t.rx.drv, &token, &len), 0);
			CHECK_EQ(token, (uint32_t)(first + (uint64_t)k * 4096));
			want_len = !mrg && size[i] > 200 ? 0 : MIN(left, 256u);
			CHECK_EQ(len, want_len);
			left -= MIN(left, 256u);
		}
		if (!mrg && size[i] > 200)
			continue;
		CHECK_EQ(le16toh(((struct virtio_net_hdr_v1 *)p)->num_buffers),
			 used);
		if (used == 1)
			CHECK(tnet_check_frame(p + 12, size[i], (uint8_t)(3 * i)));
	}
	CHECK_EQ(k, mrg ? 8u : 6u);
	CHECK_EQ(vq_drv_get_used(&t.rx.drv, &token, &len), -EAGAIN);
	CHECK_EQ(t.acc_rx.packets, mrg ? 6 : 5);
	CHECK_EQ(t.acc_rx.drops[DROP_TOO_BIG], mrg ? 0 : 1);

	/* the chains popped ahead went back: the next frames take k, k + 1 */
	for (i = 0; i < 2; i++, k++) {
		CHECK_EQ(tnet_send(&t, &h, 0, 100, 77), 0);
		CHECK_EQ(net_tx_one(&t.tio), 100);
		CHECK_EQ(net_rx_burst(&t.rio, 64, UINT64_MAX, &bytes, &err), 1);
		CHECK_EQ(err, -EAGAIN);
		CHECK_EQ(t.rx.dev.inflight, 0);
		vq_flush(&t.rx.dev);
		CHECK_EQ(vq_drv_get_used(&t.rx.drv, &token, &len), 0);
		CHECK_EQ(token, (uint32_t)(first + (uint64_t)k * 4096));
		CHECK_EQ(len, 112);
	}
	tnet_cleanup(&t);

	/* a host side that announces 20 bytes and fails each frame */
	CHECK_EQ(tnet_init(&t, l, f, t_loop_ops), 0);
	for (i = 0; i < 2; i++) {
		CHECK_EQ(tnet_send(&t, &h, 0, 100, 5), 0);
		CHECK_EQ(net_tx_one(&t.tio), 100);
	}
	first = tnet_post_rx(&t, 4, 64);
	CHECK(first);
	t.host.ops = &t_lowpeek_ops;
	CHECK_EQ(net_rx_burst(&t.rio, 64, UINT64_MAX, &bytes, &err), 2);
	CHECK_EQ(err, -EAGAIN);
	CHECK_EQ(bytes, 0);
	CHECK_EQ(t.acc_rx.drops[DROP_TOO_BIG], 2);
	CHECK_EQ(t.rx.dev.inflight, 0);
	vq_flush(&t.rx.dev);
	/* mergeable: all four given back; one chain: two completed empty */
	for (i = 0; i < (mrg ? 0u : 2u); i++) {
		CHECK_EQ(vq_drv_get_used(&t.rx.drv, &token, &len), 0);
		CHECK_EQ(token, (uint32_t)(first + (uint64_t)i * 4096));
		CHECK_EQ(len, 0);
	}
	CHECK_EQ(vq_drv_get_used(&t.rx.drv, &token, &len), -EAGAIN);
	CHECK(vq_avail_pending(&t.rx.dev));
	t.host.ops = t_loop_ops;
	tnet_cleanup(&t);
}

/* loop whose held frame is said to be cut (a host that read more than its
 * buffer): peek says -EMSGSIZE for it */
static struct host_ops t_cutpeek_ops;

static ssize_t t_cutpeek(struct host *host, unsigned int pair)
{
	ssize_t n = t_loop_ops->rx_peek_len(host, pair);

	return n > 0 ? -EMSGSIZE : n;
}

/*
 * A cut frame is dropped as too big on the host side's word: consumed
 * with rx(), no guest buffer popped or completed, the next frame comes
 */
static void t_rx_cut(enum vq_layout l)
{
	struct virtio_net_hdr_v1 h = mkhdr(0, 0, 0, 0, 0, 0);
	uint32_t token, len;
	struct tnet t;

	CHECK_EQ(tnet_init(&t, l, F_V1 | F_MRG, &t_cutpeek_ops), 0);
	CHECK_EQ(tnet_send(&t, &h, 0, 100, 9), 0);
	CHECK_EQ(net_tx_one(&t.tio), 100);
	CHECK(tnet_post_rx(&t, 1, 2048));
	CHECK_EQ(net_rx_one(&t.rio), 0);
	CHECK_EQ(t.acc_rx.drops[DROP_TOO_BIG], 1);
	CHECK_EQ(t.acc_rx.packets, 0);
	CHECK_EQ(t.host.ops->rx_peek_len(&t.host, 0), 0);	/* consumed */
	vq_flush(&t.rx.dev);
	CHECK_EQ(vq_drv_get_used(&t.rx.drv, &token, &len), -EAGAIN);
	CHECK(vq_avail_pending(&t.rx.dev));		/* the buffer waits */
	CHECK_EQ(net_rx_one(&t.rio), -EAGAIN);
	tnet_cleanup(&t);
}

static void test_rx_cut_split(void) { t_rx_cut(VQ_SPLIT); }
static void test_rx_cut_packed(void) { t_rx_cut(VQ_PACKED); }

static void test_rx_ahead_split_mrg(void) { t_rx_ahead(VQ_SPLIT, true); }
static void test_rx_ahead_split_nomrg(void) { t_rx_ahead(VQ_SPLIT, false); }
static void test_rx_ahead_packed_mrg(void) { t_rx_ahead(VQ_PACKED, true); }
static void test_rx_ahead_packed_nomrg(void) { t_rx_ahead(VQ_PACKED, false); }

static void test_rx_fit_split_mrg(void) { t_rx_fit(VQ_SPLIT, true); }
static void test_rx_fit_split_nomrg(void) { t_rx_fit(VQ_SPLIT, false); }
static void test_rx_fit_packed_mrg(void) { t_rx_fit(VQ_PACKED, true); }
static void test_rx_fit_packed_nomrg(void) { t_rx_fit(VQ_PACKED, false); }

int main(void)
{
	t_loop_ops = host_find("loop");
	if (!t_loop_ops)
		return 1;
	t_nopeek_ops = *t_loop_ops;
	t_nopeek_ops.rx_peek_len = t_nopeek;
	t_lowpeek_ops = *t_loop_ops;
	t_lowpeek_ops.rx_peek_len = t_lowpeek;
	t_cutpeek_ops = *t_loop_ops;
	t_cutpeek_ops.rx_peek_len = t_cutpeek;
	t_full_ops = *t_loop_ops;
	t_full_ops.tx = t_full_tx;

	RUN(test_hdr_len);
	RUN(test_hdr_check);
	RUN(test_tx_prepare_split_header);
	RUN(test_tx_prepare_errors);
	RUN(test_iov_copy);
	RUN(test_loop_split_mrg);
	RUN(test_loop_split_nomrg);
	RUN(test_loop_packed_mrg);
	RUN(test_loop_packed_nomrg);
	RUN(test_rx_burst_budgets);
	RUN(test_rx_fit_split_mrg);
	RUN(test_rx_fit_split_nomrg);
	RUN(test_rx_fit_packed_mrg);
	RUN(test_rx_fit_packed_nomrg);
	RUN(test_rx_cut_split);
	RUN(test_rx_cut_packed);
	RUN(test_rx_ahead_split_mrg);
	RUN(test_rx_ahead_split_nomrg);
	RUN(test_rx_ahead_packed_mrg);
	RUN(test_rx_ahead_packed_nomrg);
	RUN(test_tx_drops);
	RUN(test_tx_spoof);
	RUN(test_tx_burst_split);
	RUN(test_tx_burst_packed);
	RUN(test_gso_64k_split);
	RUN(test_gso_64k_packed);
	RUN(test_loop_gso_needs_guest_tso);
	RUN(test_nopeek_split);
	RUN(test_nopeek_packed);
	RUN(test_nopeek_estimate_split);
	RUN(test_nopeek_estimate_packed);
	return test_exit();
}
