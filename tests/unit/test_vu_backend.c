// SPDX-License-Identifier: MIT
/*
 * test_vu_backend.c - the vhost-user backend device driven over a
 * socketpair by a small hand-written frontend: every message well-formed
 * and malformed (wrong size, missing and extra fds, ring index 64 and 255,
 * ring size 0 / 3 / 65536, overlapping regions, a region fd smaller than
 * its size, REM of an unknown region, messages out of order, GET_CONFIG
 * without PROTOCOL_F_CONFIG), each with its expected reply or refusal, and
 * no descriptor leaked (/proc/self/fd counted around every case).
 *
 * The worker pool is a fake defined here (it records pause/resume, so the
 * tests also check that every change happens with the data path paused and
 * that pauses balance); the backend is a fake ops table. Guest memory is a
 * memfd; ring memory is never touched by a worker.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/virtio_config.h>
#include <linux/virtio_net.h>
#include <linux/virtio_ring.h>

#include "testlib.h"
#include "log.h"
#include "worker.h"
#include "vu_backend.h"
#include "vu_msg.h"

#define BIT(n)		(1ULL << (n))
#define MEM_SIZE	(1u << 20)
#define MEM_UVA		0x7f0000000000ULL
#define MEM_GPA		0x0ULL
#define RING_NUM	256
#define DESC_OFF	0x0
#define AVAIL_OFF	0x1000
#define USED_OFF	0x2000
#define RING_STRIDE	0x4000	/* per ring: desc, avail, used of RING_NUM */
#define PF(b)		BIT(VHOST_USER_PROTOCOL_F_##b)
#define PROTO_ALL	(PF(MQ) | PF(REPLY_ACK) | PF(LOG_SHMFD) | PF(RARP) | \
			 PF(NET_MTU) | PF(CONFIG) | PF(CONFIGURE_MEM_SLOTS) | \
			 PF(STATUS))

/* -------- fake worker pool: records pauses -------- */

struct worker_port {
	unsigned int npairs;
	int paused[VNET_MAX_PAIRS];
	int all;
	int max_depth;
};

static struct worker_port *cur_wp;

int worker_port_create(struct worker_port **wp, const char *port_name,
		       struct vnet_pair *pairs, unsigned int npairs,
		       struct host *host, const struct worker_opts *o)
{
	(void)port_name; (void)pairs; (void)host; (void)o;
	*wp = calloc(1, sizeof(**wp));
	if (!*wp)
		return -ENOMEM;
	(*wp)->npairs = npairs;
	cur_wp = *wp;
	return 0;
}

void worker_port_destroy(struct worker_port *wp)
{
	if (cur_wp == wp)
		cur_wp = NULL;
	free(wp);
}

void worker_pause(struct worker_port *wp, unsigned int pair)
{
	if (pair < wp->npairs)
		wp->paused[pair]++;
}

void worker_resume(struct worker_port *wp, unsigned int pair)
{
	if (pair < wp->npairs)
		wp->paused[pair]--;
}

void worker_pause_all(struct worker_port *wp)
{
	wp->all++;
}

void worker_resume_all(struct worker_port *wp)
{
	wp->all--;
}

void worker_port_set_conn(struct worker_port *wp, int fd)
{
	(void)wp; (void)fd;
}

void worker_unpause_all(struct worker_port *wp)
{
	(void)wp;
}

static bool wp_balanced(void)
{
	unsigned int i;

	if (!cur_wp)
		return true;
	for (i = 0; i < cur_wp->npairs; i++)
		if (cur_wp->paused[i])
			return false;
	return cur_wp->all == 0;
}

/* -------- fake backend -------- */

static uint64_t fb_host_features = BIT(VIRTIO_NET_F_CSUM) |
				   BIT(VIRTIO_NET_F_GUEST_CSUM) |
				   BIT(VIRTIO_NET_F_HOST_TSO4);
static uint64_t fb_features;
static unsigned int fb_hdr_len, fb_configured, fb_configured_unpaused;
static unsigned int fb_tx_count, fb_tx_unpaused;
static uint8_t fb_tx_frame[128];
static size_t fb_tx_len;

static uint64_t fb_host(struct host *host)
{
	(void)host;
	return fb_host_features;
}

static int fb_configure(struct host *host, uint64_t f, unsigned int hdr_len)
{
	(void)host;
	fb_features = f;
	fb_hdr_len = hdr_len;
	fb_configured++;
	if (cur_wp && !cur_wp->all)
		fb_configured_unpaused++;
	return 0;
}

static ssize_t fb_tx(struct host *host, unsigned int pair,
		     const struct iovec *iov, unsigned int iovcnt)
{
	unsigned int i;

	(void)host;
	fb_tx_count++;
	if (cur_wp && !cur_wp->paused[pair] && !cur_wp->all)
		fb_tx_unpaused++;
	fb_tx_len = 0;
	for (i = 0; i < iovcnt; i++) {
		if (fb_tx_len + iov[i].iov_len > sizeof(fb_tx_frame))
			return -EMSGSIZE;
		memcpy(fb_tx_frame + fb_tx_len, iov[i].iov_base,
		       iov[i].iov_len);
		fb_tx_len += iov[i].iov_len;
	}
	return (ssize_t)fb_tx_len;
}

static const struct host_ops fb_ops = {
	.name = "fake",
	.host_features = fb_host,
	.configure = fb_configure,
	.tx = fb_tx,
};

static struct host fb = { .ops = &fb_ops, .npairs = 64 };

/* -------- the test frontend -------- */

struct fe {
	int sock;		/* our end */
	struct vu_dev *d;
	int mem_fd;
	unsigned int queues;
};

static int count_fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!dir)
		return -1;
	while ((e = readdir(dir)))
		if (e->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

static int fe_open_cfg(struct fe *f, struct vu_dev_cfg *c)
{
	int sv[2], ret;

	memset(f, 0, sizeof(*f));
	f->mem_fd = -1;
	f->queues = c->queues;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	ret = vu_dev_create(&f->d, c);
	if (ret) {
		close(sv[0]);
		close(sv[1]);
		return ret;
	}
	f->sock = sv[0];
	vu_dev_connect(f->d, sv[1]);
	return 0;
}

static int fe_open(struct fe *f, unsigned int queues)
{
	struct vu_dev_cfg c = {
		.name = "test0", .queues = queues, .features_mask = ~0ULL,
		.mac = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 }, .mtu = 9000,
		.host = &fb, .config_space = true,
	};

	return fe_open_cfg(f, &c);
}

static void fe_close(struct fe *f)
{
	vu_dev_destroy(f->d);
	if (f->sock >= 0)
		close(f->sock);
	if (f->mem_fd >= 0)
		close(f->mem_fd);
	f->d = NULL;
}

/* Send one message; the device handles it; return vu_dev_handle()'s value */
static int fe_send(struct fe *f, uint32_t req, uint32_t flags,
		   const void *payload, uint32_t size, const int *fds,
		   unsigned int nfds)
{
	struct vu_msg m;

	memset(&m, 0, sizeof(m));
	m.hdr.request = req;
	m.hdr.flags = flags;
	m.hdr.size = size;
	if (size)
		memcpy(&m.payload, payload, size);
	if (nfds)
		memcpy(m.fds, fds, nfds * sizeof(int));
	m.nfds = nfds;
	if (vu_msg_send(f->sock, &m))
		return -999;
	return vu_dev_handle(f->d);
}

static int fe_req(struct fe *f, uint32_t req, const void *payload,
		  uint32_t size, const int *fds, unsigned int nfds)
{
	return fe_send(f, req, VHOST_USER_VERSION, payload, size, fds, nfds);
}

static int fe_u64(struct fe *f, uint32_t req, uint64_t v)
{
	return fe_req(f, req, &v, sizeof(v), NULL, 0);
}

static int fe_state(struct fe *f, uint32_t req, uint32_t idx, uint32_t num)
{
	struct vu_vring_state s = { idx, num };

	return fe_req(f, req, &s, sizeof(s), NULL, 0);
}

/* A reply waiting on our end? 0 and @r filled, -EAGAIN if none */
static int fe_reply(struct fe *f, struct vu_msg *r)
{
	struct pollfd p = { .fd = f->sock, .events = POLLIN };

	if (poll(&p, 1, 0) != 1)
		return -EAGAIN;
	return vu_msg_recv(f->sock, r);
}

/* Request with no payload that is answered with a u64 */
static int fe_get_u64(struct fe *f, uint32_t req, uint64_t *v)
{
	struct vu_msg r;
	int ret;

	ret = fe_req(f, req, NULL, 0, NULL, 0);
	if (ret)
		return ret;
	ret = fe_reply(f, &r);
	if (ret)
		return ret;
	if (r.hdr.request != req || r.hdr.flags != 0x5 ||
	    r.hdr.size != sizeof(uint64_t))
		return -EPROTO;
	*v = r.payload.u64;
	return 0;
}

/* Owner, protocol features, features: the start of every session */
static int fe_setup(struct fe *f, uint64_t features, uint64_t proto)
{
	uint64_t off;
	int ret;

	ret = fe_req(f, VHOST_USER_SET_OWNER, NULL, 0, NULL, 0);
	if (!ret)
		ret = fe_get_u64(f, VHOST_USER_GET_FEATURES, &off);
	if (!ret && (features & ~off))
		ret = -ENOTSUP;
	if (!ret && (features & BIT(VHOST_USER_F_PROTOCOL_FEATURES)))
		ret = fe_u64(f, VHOST_USER_SET_PROTOCOL_FEATURES, proto);
	if (!ret)
		ret = fe_u64(f, VHOST_USER_SET_FEATURES, features);
	return ret;
}

static int memfd_sized(size_t size)
{
	int fd = memfd_create("vu-test", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)size)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int fe_mem_table(struct fe *f)
{
	struct vu_mem_table t = { .nregions = 1 };

	if (f->mem_fd < 0)
		f->mem_fd = memfd_sized(MEM_SIZE);
	if (f->mem_fd < 0)
		return -errno;
	t.regions[0].guest_phys_addr = MEM_GPA;
	t.regions[0].memory_size = MEM_SIZE;
	t.regions[0].userspace_addr = MEM_UVA;
	return fe_req(f, VHOST_USER_SET_MEM_TABLE, &t,
		      8 + sizeof(t.regions[0]), &f->mem_fd, 1);
}

static int fe_addr(struct fe *f, uint32_t idx, uint64_t base_off)
{
	struct vu_vring_addr a = {
		.index = idx,
		.desc_user_addr = MEM_UVA + base_off + DESC_OFF,
		.avail_user_addr = MEM_UVA + base_off + AVAIL_OFF,
		.used_user_addr = MEM_UVA + base_off + USED_OFF,
		.log_guest_addr = MEM_GPA + base_off + USED_OFF,
	};

	return fe_req(f, VHOST_USER_SET_VRING_ADDR, &a, sizeof(a), NULL, 0);
}

static int fe_fd_msg(struct fe *f, uint32_t req, uint32_t idx, int *keep)
{
	uint64_t v = idx;
	int fd = eventfd(0, EFD_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = fe_req(f, req, &v, sizeof(v), &fd, 1);
	if (keep)
		*keep = fd;
	else
		close(fd);
	return ret;
}

/* NUM, BASE, ADDR, KICK, CALL for ring @idx, as QEMU orders them */
static int fe_ring_up(struct fe *f, uint32_t idx, uint32_t base)
{
	uint64_t off = (uint64_t)idx * RING_STRIDE;
	int ret;

	ret = fe_state(f, VHOST_USER_SET_VRING_NUM, idx, RING_NUM);
	if (!ret)
		ret = fe_state(f, VHOST_USER_SET_VRING_BASE, idx, base);
	if (!ret)
		ret = fe_addr(f, idx, off);
	if (!ret)
		ret = fe_fd_msg(f, VHOST_USER_SET_VRING_KICK, idx, NULL);
	if (!ret)
		ret = fe_fd_msg(f, VHOST_USER_SET_VRING_CALL, idx, NULL);
	return ret;
}

static struct vnet_ring *dev_ring(struct fe *f, unsigned int idx)
{
	unsigned int n;
	struct vnet_pair *p = vu_dev_pairs(f->d, &n);

	return (idx & 1) ? &p[idx / 2].tx : &p[idx / 2].rx;
}

#define STD_FEATURES	(BIT(VIRTIO_F_VERSION_1) | BIT(VIRTIO_NET_F_MRG_RXBUF) | \
			 BIT(VIRTIO_RING_F_EVENT_IDX) | \
			 BIT(VHOST_USER_F_PROTOCOL_FEATURES))

/* -------- cases -------- */

static void test_features_offered(void)
{
	uint64_t off, want = BIT(VIRTIO_F_VERSION_1) |
		BIT(VIRTIO_NET_F_MRG_RXBUF) | BIT(VIRTIO_RING_F_EVENT_IDX) |
		BIT(VIRTIO_RING_F_INDIRECT_DESC) | BIT(VIRTIO_F_RING_PACKED) |
		BIT(VIRTIO_NET_F_MAC) | BIT(VIRTIO_NET_F_STATUS) |
		BIT(VIRTIO_NET_F_MTU) | BIT(VHOST_F_LOG_ALL_BIT) |
		BIT(VHOST_USER_F_PROTOCOL_FEATURES) | fb_host_features;
	int before = count_fds();
	struct fe f;

	CHECK_EQ(fe_open(&f, 1), 0);
	CHECK_EQ(fe_get_u64(&f, VHOST_USER_GET_FEATURES, &off), 0);
	CHECK_EQ(off & want, want);
	/* one pair: no MQ; no control queue, hence no GUEST_ANNOUNCE */
	CHECK(!(off & BIT(VIRTIO_NET_F_MQ)));
	CHECK(!(off & BIT(VIRTIO_NET_F_CTRL_VQ)));
	CHECK(!(off & BIT(VIRTIO_NET_F_GUEST_ANNOUNCE)));
	/* offloads only where the host side honours them */
	CHECK(!(off & BIT(VIRTIO_NET_F_HOST_TSO6)));
	CHECK(!(off & BIT(VIRTIO_NET_F_GUEST_UFO)));
	CHECK_EQ(vu_dev_offered_features(f.d), off);
	fe_close(&f);

	CHECK_EQ(fe_open(&f, 4), 0);
	CHECK_EQ(fe_get_u64(&f, VHOST_USER_GET_FEATURES, &off), 0);
	CHECK(off & BIT(VIRTIO_NET_F_MQ));
	fe_close(&f);
	CHECK_EQ(count_fds(), before);
}

static void test_features_mask(void)
{
	struct vu_dev_cfg c = {
		.name = "masked", .queues = 2, .host = &fb,
		.features_mask = ~(BIT(VIRTIO_F_RING_PACKED) |
				   BIT(VIRTIO_NET_F_CSUM) |
				   BIT(VIRTIO_NET_F_MQ)),
	};
	int before = count_fds();
	uint64_t off;
	struct fe f;

	CHECK_EQ(fe_open_cfg(&f, &c), 0);
	CHECK_EQ(fe_get_u64(&f, VHOST_USER_GET_FEATURES, &off), 0);
	CHECK(!(off & BIT(VIRTIO_F_RING_PACKED)));
	CHECK(!(off & BIT(VIRTIO_NET_F_CSUM)));
	CHECK(!(off & BIT(VIRTIO_NET_F_MQ)));
	CHECK(!(off & BIT(VIRTIO_NET_F_MTU)));	/* no MTU configured */
	CHECK(off & BIT(VIRTIO_NET_F_GUEST_CSUM));
	/* a masked bit is refused like any bit not offered */
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_OWNER, NULL, 0, NULL, 0), 0);
	CHECK(fe_u64(&f, VHOST_USER_SET_FEATURES,
		     BIT(VIRTIO_F_VERSION_1) | BIT(VIRTIO_F_RING_PACKED)) < 0);
	fe_close(&f);
	CHECK_EQ(count_fds(), before);
}

static void test_set_features(void)
{
	int before = count_fds();
	unsigned int n;
	struct vnet_pair *p;
	struct fe f;

	CHECK_EQ(fe_open(&f, 2), 0);
	fb_configured = fb_configured_unpaused = 0;
	CHECK_EQ(fe_setup(&f, STD_FEATURES | BIT(VIRTIO_NET_F_CSUM), 0), 0);
	CHECK_EQ(fb_configured, 1);
	CHECK_EQ(fb_configured_unpaused, 0);	/* pairs paused around it */
	CHECK_EQ(fb_hdr_len, 12);
	CHECK_EQ(fb_features, STD_FEATURES | BIT(VIRTIO_NET_F_CSUM));
	CHECK_EQ(vu_dev_acked_features(f.d), fb_features);
	p = vu_dev_pairs(f.d, &n);
	CHECK_EQ(n, 2);
	CHECK_EQ(p[1].hdr_len, 12);
	CHECK_EQ(p[1].features, fb_features);
	/* with PROTOCOL_FEATURES acked, rings wait for SET_VRING_ENABLE */
	CHECK(!p[0].rx.enabled && !p[1].tx.enabled);
	CHECK(wp_balanced());
	fe_close(&f);

	/* legacy header without VERSION_1/MRG_RXBUF; rings enabled at once */
	CHECK_EQ(fe_open(&f, 2), 0);
	CHECK_EQ(fe_setup(&f, BIT(VIRTIO_NET_F_CSUM), 0), 0);
	CHECK_EQ(fb_hdr_len, 10);
	p = vu_dev_pairs(f.d, &n);
	CHECK(p[0].rx.enabled && p[0].tx.enabled && p[1].tx.enabled);
	/* bits never offered */
	CHECK_EQ(fe_u64(&f, VHOST_USER_SET_FEATURES,
			BIT(VIRTIO_NET_F_CTRL_VQ)), -EINVAL);
	fe_close(&f);
	CHECK_EQ(count_fds(), before);
}

static void test_protocol_features(void)
{
	int before = count_fds();
	uint64_t v;
	struct fe f;

	CHECK_EQ(fe_open(&f, 1), 0);
	CHECK_EQ(fe_get_u64(&f, VHOST_USER_GET_PROTOCOL_FEATURES, &v), 0);
	CHECK_EQ(v, PROTO_ALL);
	CHECK_EQ(fe_u64(&f, VHOST_USER_SET_PROTOCOL_FEATURES, PROTO_ALL), 0);
	/* not offered: INFLIGHT_SHMFD, PAGEFAULT */
	CHECK_EQ(fe_u64(&f, VHOST_USER_SET_PROTOCOL_FEATURES,
			PF(INFLIGHT_SHMFD)), -EINVAL);
	fe_close(&f);

	/* config space not asked for (vnetd's default): F_CONFIG not offered */
	{
		struct vu_dev_cfg c = {
			.name = "nocfg", .queues = 1, .host = &fb,
			.features_mask = ~0ULL,
		};

		CHECK_EQ(fe_open_cfg(&f, &c), 0);
		CHECK_EQ(fe_get_u64(&f, VHOST_USER_GET_PROTOCOL_FEATURES,
				    &v), 0);
		CHECK_EQ(v, PROTO_ALL & ~PF(CONFIG));
		CHECK_EQ(fe_u64(&f, VHOST_USER_SET_PROTOCOL_FEATURES,
				PROTO_ALL), -EINVAL);
		fe_close(&f);
	}

	/* bit 30 masked off: the protocol-feature requests are refused */
	{
		struct vu_dev_cfg c = {
			.name = "nopf", .queues = 1, .host = &fb,
			.features_mask =
				~BIT(VHOST_USER_F_PROTOCOL_FEATURES),
		};

		CHECK_EQ(fe_open_cfg(&f, &c), 0);
		CHECK(fe_get_u64(&f, VHOST_USER_GET_PROTOCOL_FEATURES,
				 &v) < 0);
		CHECK_EQ(fe_reply(&f, &(struct vu_msg){ 0 }), -EAGAIN);
		fe_close(&f);
	}
	CHECK_EQ(count_fds(), before);
}

static void test_reply_ack(void)
{
	struct vu_vring_state s = { 0, 3 };
	int before = count_fds();
	struct vu_msg r;
	struct fe f;

	CHECK_EQ(fe_open(&f, 1), 0);
	/* need_reply without REPLY_ACK negotiated: no reply */
	CHECK_EQ(fe_send(&f, VHOST_USER_SET_OWNER,
			 VHOST_USER_VERSION | VHOST_USER_NEED_REPLY,
			 NULL, 0, NULL, 0), 0);
	CHECK_EQ(fe_reply(&f, &r), -EAGAIN);
	CHECK_EQ(fe_setup(&f, STD_FEATURES, PF(REPLY_ACK)), 0);
	CHECK_EQ(fe_reply(&f, &r), -EAGAIN);	/* none asked for */

	CHECK_EQ(fe_send(&f, VHOST_USER_SET_OWNER,
			 VHOST_USER_VERSION | VHOST_USER_NEED_REPLY,
			 NULL, 0, NULL, 0), 0);
	CHECK_EQ(fe_reply(&f, &r), 0);
	CHECK_EQ(r.hdr.request, VHOST_USER_SET_OWNER);
	CHECK_EQ(r.hdr.flags, VHOST_USER_VERSION | VHOST_USER_REPLY);
	CHECK_EQ(r.hdr.size, 8);
	CHECK_EQ(r.payload.u64, 0);

	/* a refused value with need_reply: non-zero ack, connection kept */
	CHECK_EQ(fe_send(&f, VHOST_USER_SET_VRING_NUM,
			 VHOST_USER_VERSION | VHOST_USER_NEED_REPLY,
			 &s, sizeof(s), NULL, 0), 0);
	CHECK_EQ(fe_reply(&f, &r), 0);
	CHECK_EQ(r.hdr.flags, 0x5);
	CHECK(r.payload.u64 != 0);

	/* a message with its own reply gets that one only */
	CHECK_EQ(fe_send(&f, VHOST_USER_GET_FEATURES,
			 VHOST_USER_VERSION | VHOST_USER_NEED_REPLY,
			 NULL, 0, NULL, 0), 0);
	CHECK_EQ(fe_reply(&f, &r), 0);
	CHECK_EQ(r.payload.u64, vu_dev_offered_features(f.d));
	CHECK_EQ(fe_reply(&f, &r), -EAGAIN);

	/* malformed (wrong size) with need_reply: failure ack, then closed */
	CHECK(fe_send(&f, VHOST_USER_SET_VRING_NUM,
		      VHOST_USER_VERSION | VHOST_USER_NEED_REPLY,
		      &s, 4, NULL, 0) < 0);
	CHECK_EQ(fe_reply(&f, &r), 0);
	CHECK(r.payload.u64 != 0);
	fe_close(&f);
	CHECK_EQ(count_fds(), before);
}

static void test_bringup_split(void)
{
	int before = count_fds();
	struct vu_msg r;
	struct vnet_ring *rx, *tx;
	struct fe f;

	CHECK_EQ(fe_open(&f, 1), 0);
	CHECK_EQ(fe_setup(&f, STD_FEATURES, PROTO_ALL), 0);
	CHECK_EQ(fe_mem_table(&f), 0);
	CHECK_EQ(fe_ring_up(&f, 0, 0), 0);
	CHECK_EQ(fe_ring_up(&f, 1, 7), 0);
	rx = dev_ring(&f, 0);
	tx = dev_ring(&f, 1);
	CHECK(rx->started && tx->started);
	CHECK(rx->kick_fd >= 0 && rx->call_fd >= 0);
	CHECK_EQ(rx->vq.num, RING_NUM);
	CHECK_EQ(rx->vq.layout, VQ_SPLIT);
	CHECK(rx->vq.event_idx);
	CHECK(!rx->enabled);			/* until SET_VRING_ENABLE */
	CHECK_EQ(fe_state(&f, VHOST_USER_SET_VRING_ENABLE, 0, 1), 0);
	CHECK_EQ(fe_state(&f, VHOST_USER_SET_VRING_ENABLE, 1, 1), 0);
	CHECK(rx->enabled && tx->enabled);
	CHECK_EQ(fe_state(&f, VHOST_USER_SET_VRING_ENABLE, 1, 2), -EINVAL);
	CHECK(wp_balanced());

	/* GET_VRING_BASE stops the ring and reports its base */
	CHECK_EQ(fe_state(&f, VHOST_USER_GET_VRING_BASE, 1, 0), 0);
	CHECK_EQ(fe_reply(&f, &r), 0);
	CHECK_EQ(r.hdr.flags, 0x5);
	CHECK_EQ(r.hdr.size, sizeof(struct vu_vring_state));
	CHECK_EQ(r.payload.state.index, 1);
	CHECK_EQ(r.payload.state.num, 7);
	CHECK(!tx->started);
	CHECK_EQ(tx->kick_fd, -1);
	CHECK(rx->started);
	/* and it restarts with a new base and kick */
	CHECK_EQ(fe_state(&f, VHOST_USER_SET_VRING_BASE, 1, 9), 0);
	CHECK_EQ(fe_fd_msg(&f, VHOST_USER_SET_VRING_KICK, 1, NULL), 0);
	CHECK(tx->started);
	CHECK_EQ(vq_get_base(&tx->vq), 9);
	/* size and base are refused while the ring runs */
	CHECK_EQ(fe_state(&f, VHOST_USER_SET_VRING_NUM, 1, 128), -EBUSY);
	CHECK_EQ(fe_state(&f, VHOST_USER_SET_VRING_BASE, 1, 1), -EBUSY);
	CHECK(wp_balanced());
	fe_close(&f);
	CHECK_EQ(count_fds(), before);
}

static void test_bringup_packed(void)
{
	uint64_t feat = STD_FEATURES | BIT(VIRTIO_F_RING_PACKED);
	int before = count_fds();
	struct vnet_ring *rx;
	struct vu_msg r;
	struct fe f;

	CHECK_EQ(fe_open(&f, 1), 0);
	CHECK_EQ(fe_setup(&f, feat, PROTO_ALL), 0);
	CHECK_EQ(fe_mem_table(&f), 0);
	/* packed rings need no power of two */
	CHECK_EQ(fe_state(&f, VHOST_USER_SET_VRING_NUM, 0, 100), 0);
	/* avail idx 5 with wrap bit 15 clear */
	CHECK_EQ(fe_state(&f, VHOST_USER_SET_VRING_BASE, 0, 5), 0);
	CHECK_EQ(fe_addr(&f, 0, 0), 0);
	CHECK_EQ(fe_fd_msg(&f, VHOST_USER_SET_VRING_KICK, 0, NULL), 0);
	rx = dev_ring(&f, 0);
	CHECK(rx->started);
	CHECK_EQ(rx->vq.layout, VQ_PACKED);
	CHECK_EQ(fe_state(&f, VHOST_USER_GET_VRING_BASE, 0, 0), 0);
	CHECK_EQ(fe_reply(&f, &r), 0);
	/* avail 5, wrap 0; used 5, wrap 0 */
	CHECK_EQ(r.payload.state.num, 5u | 5u << 16);
	/* a base beyond the ring is refused */
	CHECK_EQ(fe_state(&f, VHOST_USER_SET_VRING_BASE, 0, 100), -EINVAL);
	fe_close(&f);
	CHECK_EQ(count_fds(), before);
}

static void test_wrong_size(void)
{
	int before = count_fds();
	uint64_t v = 0;
	struct fe f;

	CHECK_EQ(fe_open(&f, 1), 0);
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_FEATURES, &v, 4, NULL, 0),
		 -EBADMSG);
	CHECK_EQ(fe_req(&f, VHOST_USER_GET_FEATURES, &v, 8, NULL, 0),
		 -EBADMSG);
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_OWNER, &v, 8, NULL, 0), -EBADMSG);
	CHECK_EQ(fe_setup(&f, STD_FEATURES, PROTO_ALL), 0);
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_VRING_NUM, &v, 4, NULL, 0),
		 -EBADMSG);
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_VRING_ADDR, &v, 8, NULL, 0),
		 -EBADMSG);
	CHECK_EQ(fe_req(&f, VHOST_USER_GET_CONFIG, &v, 4, NULL, 0), -EBADMSG);
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_MEM_TABLE, &v, 4, NULL, 0),
		 -EBADMSG);
	CHECK_EQ(fe_reply(&f, &(struct vu_msg){ 0 }), -EAGAIN);
	fe_close(&f);
	CHECK_EQ(count_fds(), before);
}

static void test_missing_and_extra_fds(void)
{
	int before = count_fds(), fds[3], i;
	uint64_t v;
	struct fe f;

	for (i = 0; i < 3; i++)
		fds[i] = eventfd(0, EFD_CLOEXEC);
	CHECK_EQ(fe_open(&f, 1), 0);
	CHECK_EQ(fe_setup(&f, STD_FEATURES, PROTO_ALL), 0);
	/* kick without fd and without the no-fd bit */
	CHECK_EQ(fe_u64(&f, VHOST_USER_SET_VRING_KICK, 0), -EBADMSG);
	/* no-fd bit with an fd */
	v = VHOST_USER_VRING_NOFD_MASK;
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_VRING_CALL, &v, 8, fds, 1),
		 -EBADMSG);
	/* two fds for a kick */
	v = 0;
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_VRING_KICK, &v, 8, fds, 2),
		 -EBADMSG);
	/* fds on messages that take none */
	v = STD_FEATURES;
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_FEATURES, &v, 8, fds, 3), -EBADMSG);
	CHECK_EQ(fe_req(&f, VHOST_USER_GET_FEATURES, NULL, 0, fds, 1),
		 -EBADMSG);
	/* SET_LOG_BASE without its fd; SET_LOG_FD without its fd */
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_LOG_BASE, &(struct vu_log){ 4096, 0 },
			sizeof(struct vu_log), NULL, 0), -EBADMSG);
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_LOG_FD, NULL, 0, NULL, 0),
		 -EBADMSG);
	/* reserved bits in a kick's u64 */
	v = 1ULL << 9;
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_VRING_KICK, &v, 8, fds, 1),
		 -EINVAL);
	/* the no-fd bit alone is fine: the ring will be polled */
	CHECK_EQ(fe_u64(&f, VHOST_USER_SET_VRING_KICK,
			VHOST_USER_VRING_NOFD_MASK), 0);
	CHECK_EQ(dev_ring(&f, 0)->kick_fd, -1);
	fe_close(&f);
	for (i = 0; i < 3; i++)
		close(fds[i]);
	/* every fd the device received was closed */
	CHECK_EQ(count_fds(), before);
}

static void test_ring_index(void)
{
	static const uint32_t bad[] = { 8, 64, 255, 256, 0xffffffff };
	int before = count_fds(), fd;
	struct vu_vring_addr a = { 0 };
	unsigned int i;
	uint64_t v;
	struct fe f;

	fd = eventfd(0, EFD_CLOEXEC);
	CHECK(fd >= 0);
	CHECK_EQ(fe_open(&f, 4), 0);
	CHECK_EQ(fe_setup(&f, STD_FEATURES, PROTO_ALL), 0);
	CHECK_EQ(fe_state(&f, VHOST_USER_SET_VRING_NUM, 7, RING_NUM), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(fe_state(&f, VHOST_USER_SET_VRING_NUM, bad[i], 256),
			 -ERANGE);
		CHECK_EQ(fe_state(&f, VHOST_USER_GET_VRING_BASE, bad[i], 0),
			 -ERANGE);
		CHECK_EQ(fe_state(&f, VHOST_USER_SET_VRING_ENABLE, bad[i], 1),
			 -ERANGE);
		a.index = bad[i];
		CHECK_EQ(fe_req(&f, VHOST_USER_SET_VRING_ADDR, &a, sizeof(a),
				NULL, 0), -ERANGE);
	}
	/* u64 form: 64 and 255 fit bits 0-7 but exceed 2 * queues */
	v = 64;
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_VRING_KICK, &v, 8, &fd, 1),
		 -ERANGE);
	v = 255;
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_VRING_CALL, &v, 8, &fd, 1),
		 -ERANGE);
	CHECK_EQ(fe_u64(&f, VHOST_USER_SET_VRING_ERR,
			255 | VHOST_USER_VRING_NOFD_MASK), -ERANGE);
	CHECK_EQ(fe_reply(&f, &(struct vu_msg){ 0 }), -EAGAIN);
	fe_close(&f);
	close(fd);
	CHECK_EQ(count_fds(), before);
}

static void test_ring_size(void)
{
	static const uint32_t bad[] = { 0, 3, 100, 65536, 32769, 0x80000000 };
	int before = count_fds();
	unsigned int i;
	struct fe f;

	CHECK_EQ(fe_open(&f, 1), 0);
	CHECK_EQ(fe_setup(&f, STD_FEATURES, PROTO_ALL), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_EQ(fe_state(&f, VHOST_USER_SET_VRING_NUM, 0, bad[i]),
			 -EINVAL);
	CHECK_EQ(fe_state(&f, VHOST_USER_SET_VRING_NUM, 0, 1), 0);
	CHECK_EQ(fe_state(&f, VHOST_USER_SET_VRING_NUM, 0, 32768), 0);
	CHECK_EQ(fe_state(&f, VHOST_USER_SET_VRING_NUM, 1, 256), 0);
	/* split base wider than 16 bits */
	CHECK_EQ(fe_state(&f, VHOST_USER_SET_VRING_BASE, 1, 0x10000), -EINVAL);
	fe_close(&f);
	CHECK_EQ(count_fds(), before);
}

static int fe_two_regions(struct fe *f, uint64_t gpa2, size_t fd2_size,
			  uint64_t size2)
{
	struct vu_mem_table t = { .nregions = 2 };
	int fds[2], ret;

	fds[0] = memfd_sized(MEM_SIZE);
	fds[1] = memfd_sized(fd2_size);
	t.regions[0] = (struct vu_mem_region){ 0, MEM_SIZE, MEM_UVA, 0 };
	t.regions[1] = (struct vu_mem_region){ gpa2, size2,
					       MEM_UVA + 0x10000000, 0 };
	ret = fe_req(f, VHOST_USER_SET_MEM_TABLE, &t, 8 + 2 * 32, fds, 2);
	close(fds[0]);
	close(fds[1]);
	return ret;
}

static void test_mem_table_bad(void)
{
	struct vu_mem_table t = { .nregions = 2 };
	int before = count_fds(), fd;
	struct fe f;

	CHECK_EQ(fe_open(&f, 1), 0);
	CHECK_EQ(fe_setup(&f, STD_FEATURES, PROTO_ALL), 0);
	/* overlapping guest-physical ranges */
	CHECK_EQ(fe_two_regions(&f, MEM_SIZE / 2, MEM_SIZE, MEM_SIZE),
		 -EINVAL);
	/* region fd smaller than the region: refused, no SIGBUS */
	CHECK_EQ(fe_two_regions(&f, 0x40000000, 4096, MEM_SIZE), -EINVAL);
	/* both good */
	CHECK_EQ(fe_two_regions(&f, 0x40000000, MEM_SIZE, MEM_SIZE), 0);
	/* gpa + size wrapping */
	CHECK_EQ(fe_two_regions(&f, UINT64_MAX - 4095, MEM_SIZE, MEM_SIZE),
		 -EINVAL);
	/* fd count != nregions */
	fd = memfd_sized(MEM_SIZE);
	t.regions[0] = (struct vu_mem_region){ 0, MEM_SIZE, MEM_UVA, 0 };
	t.regions[1] = (struct vu_mem_region){ MEM_SIZE, MEM_SIZE,
					       MEM_UVA + MEM_SIZE, 0 };
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_MEM_TABLE, &t, 8 + 64, &fd, 1),
		 -EBADMSG);
	/* nregions 0 and 9; payload size not matching nregions */
	t.nregions = 0;
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_MEM_TABLE, &t, 8, NULL, 0),
		 -EINVAL);
	t.nregions = 9;
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_MEM_TABLE, &t, 8, NULL, 0),
		 -EINVAL);
	t.nregions = 1;
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_MEM_TABLE, &t, 8 + 64, &fd, 1),
		 -EBADMSG);
	/* empty region; mmap offset + size past the fd */
	t.regions[0].memory_size = 0;
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_MEM_TABLE, &t, 8 + 32, &fd, 1),
		 -EINVAL);
	t.regions[0] = (struct vu_mem_region){ 0, MEM_SIZE, MEM_UVA, 4096 };
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_MEM_TABLE, &t, 8 + 32, &fd, 1),
		 -EINVAL);
	t.regions[0].mmap_offset = UINT64_MAX - 10;
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_MEM_TABLE, &t, 8 + 32, &fd, 1),
		 -EINVAL);
	close(fd);
	fe_close(&f);
	CHECK_EQ(count_fds(), before);
}

static void test_mem_slots(void)
{
	struct vu_mem_single r = { 0 };
	int before = count_fds(), fd;
	uint64_t v;
	struct fe f;

	CHECK_EQ(fe_open(&f, 1), 0);
	/* before CONFIGURE_MEM_SLOTS is negotiated: refused */
	CHECK_EQ(fe_setup(&f, STD_FEATURES, PF(REPLY_ACK)), 0);
	CHECK(fe_get_u64(&f, VHOST_USER_GET_MAX_MEM_SLOTS, &v) < 0);
	fe_close(&f);

	CHECK_EQ(fe_open(&f, 1), 0);
	CHECK_EQ(fe_setup(&f, STD_FEATURES, PROTO_ALL), 0);
	CHECK_EQ(fe_get_u64(&f, VHOST_USER_GET_MAX_MEM_SLOTS, &v), 0);
	CHECK_EQ(v, 509);
	fd = memfd_sized(MEM_SIZE);
	r.region = (struct vu_mem_region){ 0, MEM_SIZE, MEM_UVA, 0 };
	CHECK_EQ(fe_req(&f, VHOST_USER_ADD_MEM_REG, &r, sizeof(r), &fd, 1), 0);
	r.region.guest_phys_addr = MEM_SIZE;
	r.region.userspace_addr = MEM_UVA + MEM_SIZE;
	CHECK_EQ(fe_req(&f, VHOST_USER_ADD_MEM_REG, &r, sizeof(r), &fd, 1), 0);
	/* overlapping the first */
	r.region.guest_phys_addr = 4096;
	CHECK_EQ(fe_req(&f, VHOST_USER_ADD_MEM_REG, &r, sizeof(r), &fd, 1),
		 -EINVAL);
	/* ADD without its fd */
	CHECK_EQ(fe_req(&f, VHOST_USER_ADD_MEM_REG, &r, sizeof(r), NULL, 0),
		 -EBADMSG);
	/* REM of an unknown region */
	r.region = (struct vu_mem_region){ 0x80000000, MEM_SIZE, MEM_UVA, 0 };
	CHECK_EQ(fe_req(&f, VHOST_USER_REM_MEM_REG, &r, sizeof(r), NULL, 0),
		 -ENOENT);
	fe_close(&f);

	/* REM of a known one, with the fd old frontends send (closed) */
	CHECK_EQ(fe_open(&f, 1), 0);
	CHECK_EQ(fe_setup(&f, STD_FEATURES, PROTO_ALL), 0);
	r.region = (struct vu_mem_region){ 0, MEM_SIZE, MEM_UVA, 0 };
	CHECK_EQ(fe_req(&f, VHOST_USER_ADD_MEM_REG, &r, sizeof(r), &fd, 1), 0);
	CHECK_EQ(fe_req(&f, VHOST_USER_REM_MEM_REG, &r, sizeof(r), &fd, 1), 0);
	CHECK_EQ(fe_req(&f, VHOST_USER_REM_MEM_REG, &r, sizeof(r), NULL, 0),
		 -ENOENT);
	CHECK(wp_balanced());
	fe_close(&f);
	close(fd);
	CHECK_EQ(count_fds(), before);
}

/* QEMU adds every region once per queue pair's vhost device */
static void test_mem_reg_refcount(void)
{
	struct vu_mem_single r = { 0 };
	int before = count_fds(), fd;
	struct vnet_ring *rx;
	struct fe f;

	fd = memfd_sized(MEM_SIZE);
	CHECK_EQ(fe_open(&f, 2), 0);
	CHECK_EQ(fe_setup(&f, STD_FEATURES, PROTO_ALL), 0);
	r.region = (struct vu_mem_region){ 0, MEM_SIZE, MEM_UVA, 0 };
	CHECK_EQ(fe_req(&f, VHOST_USER_ADD_MEM_REG, &r, sizeof(r), &fd, 1), 0);
	CHECK_EQ(fe_ring_up(&f, 0, 0), 0);
	CHECK_EQ(fe_req(&f, VHOST_USER_ADD_MEM_REG, &r, sizeof(r), &fd, 1), 0);
	CHECK_EQ(fe_ring_up(&f, 2, 0), 0);
	rx = dev_ring(&f, 0);
	CHECK(rx->started);
	/* one removal: the other device still uses it */
	CHECK_EQ(fe_req(&f, VHOST_USER_REM_MEM_REG, &r, sizeof(r), NULL, 0), 0);
	CHECK(rx->started);
	CHECK(dev_ring(&f, 2)->started);
	/* the last one unmaps it, and the rings in it stop */
	CHECK_EQ(fe_req(&f, VHOST_USER_REM_MEM_REG, &r, sizeof(r), NULL, 0), 0);
	CHECK(!rx->started);
	CHECK(!dev_ring(&f, 2)->started);
	CHECK_EQ(fe_req(&f, VHOST_USER_REM_MEM_REG, &r, sizeof(r), NULL, 0),
		 -ENOENT);
	/* a SET_MEM_TABLE resets the counts */
	CHECK_EQ(fe_mem_table(&f), 0);
	r.region = (struct vu_mem_region){ MEM_GPA, MEM_SIZE, MEM_UVA, 0 };
	CHECK_EQ(fe_req(&f, VHOST_USER_REM_MEM_REG, &r, sizeof(r), NULL, 0), 0);
	CHECK_EQ(fe_req(&f, VHOST_USER_REM_MEM_REG, &r, sizeof(r), NULL, 0),
		 -ENOENT);
	CHECK(wp_balanced());
	fe_close(&f);
	close(fd);
	CHECK_EQ(count_fds(), before);
}

static void test_out_of_order(void)
{
	struct vu_vring_addr a = { .index = 0 };
	int before = count_fds();
	struct vnet_ring *rx;
	struct fe f;

	CHECK_EQ(fe_open(&f, 1), 0);
	/* ring messages before SET_OWNER */
	CHECK_EQ(fe_state(&f, VHOST_USER_SET_VRING_NUM, 0, 256), -EPROTO);
	CHECK_EQ(fe_setup(&f, STD_FEATURES, PROTO_ALL), 0);
	/* SET_VRING_ADDR before SET_VRING_NUM, then before SET_MEM_TABLE */
	CHECK_EQ(fe_addr(&f, 0, 0), -EINVAL);
	CHECK_EQ(fe_state(&f, VHOST_USER_SET_VRING_NUM, 0, RING_NUM), 0);
	CHECK_EQ(fe_addr(&f, 0, 0), -EINVAL);
	CHECK_EQ(fe_mem_table(&f), 0);
	/* unaligned descriptor table; area outside guest memory */
	a.desc_user_addr = MEM_UVA + 8;
	a.avail_user_addr = MEM_UVA + AVAIL_OFF;
	a.used_user_addr = MEM_UVA + USED_OFF;
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_VRING_ADDR, &a, sizeof(a), NULL, 0),
		 -EINVAL);
	a.desc_user_addr = MEM_UVA;
	a.used_user_addr = MEM_UVA + MEM_SIZE - 64;	/* runs past the end */
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_VRING_ADDR, &a, sizeof(a), NULL, 0),
		 -EFAULT);
	a.used_user_addr = MEM_UVA + USED_OFF;
	a.flags = 2;					/* unknown flag */
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_VRING_ADDR, &a, sizeof(a), NULL, 0),
		 -EINVAL);
	fe_close(&f);

	/* kick before size and addresses: kept, the ring starts later */
	CHECK_EQ(fe_open(&f, 1), 0);
	CHECK_EQ(fe_setup(&f, STD_FEATURES, PROTO_ALL), 0);
	CHECK_EQ(fe_fd_msg(&f, VHOST_USER_SET_VRING_KICK, 0, NULL), 0);
	rx = dev_ring(&f, 0);
	CHECK(!rx->started);
	CHECK(rx->kick_fd >= 0);
	CHECK_EQ(fe_mem_table(&f), 0);
	CHECK_EQ(fe_state(&f, VHOST_USER_SET_VRING_NUM, 0, RING_NUM), 0);
	CHECK(!rx->started);
	CHECK_EQ(fe_addr(&f, 0, 0), 0);
	CHECK(rx->started);
	/* GET_VRING_BASE of a ring never started: 0 */
	CHECK_EQ(fe_state(&f, VHOST_USER_GET_VRING_BASE, 1, 0), 0);
	CHECK(wp_balanced());
	fe_close(&f);
	CHECK_EQ(count_fds(), before);
}

static void test_mem_table_replace(void)
{
	int before = count_fds();
	struct vu_mem_table t = { .nregions = 1 };
	struct vnet_ring *rx;
	int fd;
	struct fe f;

	CHECK_EQ(fe_open(&f, 1), 0);
	CHECK_EQ(fe_setup(&f, STD_FEATURES, PROTO_ALL), 0);
	CHECK_EQ(fe_mem_table(&f), 0);
	CHECK_EQ(fe_ring_up(&f, 0, 0), 0);
	rx = dev_ring(&f, 0);
	CHECK(rx->started);
	/* same layout, new mapping: the ring follows it */
	fd = memfd_sized(MEM_SIZE);
	t.regions[0] = (struct vu_mem_region){ 0, MEM_SIZE, MEM_UVA, 0 };
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_MEM_TABLE, &t, 8 + 32, &fd, 1), 0);
	CHECK(rx->started);
	CHECK(rx->vq.split.desc != NULL);
	/* memory moved away from the ring's addresses: the ring stops */
	t.regions[0].userspace_addr = MEM_UVA + 0x40000000;
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_MEM_TABLE, &t, 8 + 32, &fd, 1), 0);
	CHECK(!rx->started);
	CHECK(wp_balanced());
	close(fd);
	fe_close(&f);
	CHECK_EQ(count_fds(), before);
}

static void test_get_config(void)
{
	int before = count_fds();
	struct vu_config c = { 0 };
	struct virtio_net_config nc;
	struct vu_msg r;
	struct fe f;

	CHECK_EQ(fe_open(&f, 3), 0);
	/* without PROTOCOL_F_CONFIG: refused, no reply */
	CHECK_EQ(fe_setup(&f, STD_FEATURES, PF(MQ) | PF(REPLY_ACK)), 0);
	c.size = 12;
	CHECK_EQ(fe_req(&f, VHOST_USER_GET_CONFIG, &c, VU_CONFIG_HDR_SIZE + 12,
			NULL, 0), -EPROTO);
	CHECK_EQ(fe_reply(&f, &r), -EAGAIN);
	fe_close(&f);

	CHECK_EQ(fe_open(&f, 3), 0);
	CHECK_EQ(fe_setup(&f, STD_FEATURES, PROTO_ALL), 0);
	CHECK_EQ(fe_req(&f, VHOST_USER_GET_CONFIG, &c, VU_CONFIG_HDR_SIZE + 12,
			NULL, 0), 0);
	CHECK_EQ(fe_reply(&f, &r), 0);
	CHECK_EQ(r.hdr.flags, 0x5);
	CHECK_EQ(r.hdr.size, VU_CONFIG_HDR_SIZE + 12);
	CHECK_EQ(r.payload.config.size, 12);
	memcpy(&nc, r.payload.config.region, 12);
	CHECK_EQ(nc.mac[0], 0x52);
	CHECK_EQ(nc.mac[5], 0x56);
	CHECK_EQ(nc.status, VIRTIO_NET_S_LINK_UP);
	CHECK_EQ(nc.max_virtqueue_pairs, 3);
	CHECK_EQ(nc.mtu, 9000);
	/* a window into the middle */
	c.offset = 8;
	c.size = 2;
	CHECK_EQ(fe_req(&f, VHOST_USER_GET_CONFIG, &c, VU_CONFIG_HDR_SIZE + 2,
			NULL, 0), 0);
	CHECK_EQ(fe_reply(&f, &r), 0);
	CHECK_EQ(r.payload.config.region[0], 3);
	/* beyond the config space; size not matching the payload */
	c.offset = 250;
	c.size = 6;
	CHECK_EQ(fe_req(&f, VHOST_USER_GET_CONFIG, &c, VU_CONFIG_HDR_SIZE + 6,
			NULL, 0), -EINVAL);
	c.offset = 0;
	c.size = 200;
	CHECK_EQ(fe_req(&f, VHOST_USER_GET_CONFIG, &c, VU_CONFIG_HDR_SIZE + 6,
			NULL, 0), -EINVAL);
	/* SET_CONFIG: the net config space is read-only */
	c.size = 6;
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_CONFIG, &c, VU_CONFIG_HDR_SIZE + 6,
			NULL, 0), -EPERM);
	fe_close(&f);
	CHECK_EQ(count_fds(), before);
}

static void test_unknown_and_version(void)
{
	static const uint32_t bad[] = { 0, 22, 23, 26, 31, 32, 35, 41, 99,
					0xffffffff };
	int before = count_fds(), fd;
	unsigned int i;
	uint64_t v = 0;
	struct fe f;

	fd = eventfd(0, EFD_CLOEXEC);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(fe_open(&f, 1), 0);
		CHECK_EQ(fe_req(&f, bad[i], &v, 8, &fd, 1), -EOPNOTSUPP);
		fe_close(&f);
	}
	CHECK_EQ(fe_open(&f, 1), 0);
	CHECK_EQ(fe_send(&f, VHOST_USER_GET_FEATURES, 2, NULL, 0, NULL, 0),
		 -EPROTO);
	CHECK_EQ(fe_send(&f, VHOST_USER_GET_FEATURES, 0, NULL, 0, NULL, 0),
		 -EPROTO);
	CHECK_EQ(fe_reply(&f, &(struct vu_msg){ 0 }), -EAGAIN);
	fe_close(&f);
	close(fd);
	CHECK_EQ(count_fds(), before);
}

static void test_mtu_status_queues(void)
{
	int before = count_fds();
	uint64_t v;
	struct fe f;

	CHECK_EQ(fe_open(&f, 5), 0);
	/* before negotiation: all refused */
	CHECK_EQ(fe_u64(&f, VHOST_USER_NET_SET_MTU, 1500), -EPROTO);
	fe_close(&f);

	CHECK_EQ(fe_open(&f, 5), 0);
	CHECK_EQ(fe_setup(&f, STD_FEATURES, PROTO_ALL), 0);
	CHECK_EQ(fe_get_u64(&f, VHOST_USER_GET_QUEUE_NUM, &v), 0);
	CHECK_EQ(v, 5);
	CHECK_EQ(fe_u64(&f, VHOST_USER_NET_SET_MTU, 1500), 0);
	CHECK_EQ(fe_u64(&f, VHOST_USER_NET_SET_MTU, 9000), 0);
	CHECK_EQ(fe_u64(&f, VHOST_USER_NET_SET_MTU, 67), -EINVAL);
	CHECK_EQ(fe_u64(&f, VHOST_USER_NET_SET_MTU, 9001), -EINVAL);
	CHECK_EQ(fe_u64(&f, VHOST_USER_SET_STATUS, 0x0f), 0);
	CHECK_EQ(fe_get_u64(&f, VHOST_USER_GET_STATUS, &v), 0);
	CHECK_EQ(v, 0x0f);
	CHECK_EQ(fe_u64(&f, VHOST_USER_SET_STATUS, 0x100), -EINVAL);
	fe_close(&f);
	CHECK_EQ(count_fds(), before);
}

static void test_log_base(void)
{
	uint64_t feat = STD_FEATURES | BIT(VHOST_F_LOG_ALL_BIT);
	int before = count_fds(), fd, small;
	struct vu_log l = { 8192, 0 };
	struct vnet_ring *rx;
	uint64_t pages = 1;
	struct vu_msg r;
	struct fe f;

	fd = memfd_sized(8192);
	small = memfd_sized(100);
	CHECK_EQ(fe_open(&f, 1), 0);
	CHECK_EQ(fe_setup(&f, STD_FEATURES, PROTO_ALL), 0);
	CHECK_EQ(fe_mem_table(&f), 0);
	CHECK_EQ(fe_ring_up(&f, 0, 0), 0);
	rx = dev_ring(&f, 0);
	CHECK(rx->vq.log == NULL);
	CHECK(!vu_dev_log_state(f.d, &pages));
	CHECK_EQ(pages, 0);
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_LOG_BASE, &l, sizeof(l), &fd, 1),
		 0);
	CHECK_EQ(fe_reply(&f, &r), 0);
	CHECK_EQ(r.hdr.flags, 0x5);
	CHECK_EQ(r.hdr.size, 8);
	CHECK_EQ(r.payload.u64, 0);
	CHECK(rx->vq.log == NULL);		/* LOG_ALL not acked yet */
	CHECK(!vu_dev_log_state(f.d, &pages));
	/* migration starts: LOG_ALL while the ring runs */
	CHECK_EQ(fe_u64(&f, VHOST_USER_SET_FEATURES, feat), 0);
	CHECK(rx->started);
	CHECK(rx->vq.log != NULL);
	/* status: logging on; the ring's writes count in the device's total */
	CHECK(vu_dev_log_state(f.d, &pages));
	CHECK_EQ(pages, 0);
	gmem_log_write(rx->vq.log, MEM_GPA, 4096 * 2);
	gmem_log_write(rx->vq.log, MEM_GPA + 4096, 4096 * 2);
	CHECK(vu_dev_log_state(f.d, &pages));
	CHECK_EQ(pages, 3);
	CHECK_EQ(rx->vq.log_used_gpa, MEM_GPA + USED_OFF);
	/* a ring (re)started while logging logs from its first write */
	CHECK_EQ(fe_state(&f, VHOST_USER_GET_VRING_BASE, 0, 0), 0);
	CHECK_EQ(fe_reply(&f, &r), 0);
	CHECK(!rx->started);
	CHECK_EQ(fe_fd_msg(&f, VHOST_USER_SET_VRING_KICK, 0, NULL), 0);
	CHECK(rx->started);
	CHECK(rx->vq.log != NULL);
	/* other features may not change while rings run */
	CHECK_EQ(fe_u64(&f, VHOST_USER_SET_FEATURES,
			feat | BIT(VIRTIO_NET_F_CSUM)), -EBUSY);
	CHECK_EQ(fe_u64(&f, VHOST_USER_SET_FEATURES, STD_FEATURES), 0);
	CHECK(rx->vq.log == NULL);
	CHECK(!vu_dev_log_state(f.d, &pages));	/* off; the total stays */
	CHECK_EQ(pages, 3);
	/* log fd smaller than the log; log fd eventfd */
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_LOG_BASE, &l, sizeof(l), &small, 1),
		 -EINVAL);
	CHECK_EQ(fe_reply(&f, &r), -EAGAIN);
	fe_close(&f);

	CHECK_EQ(fe_open(&f, 1), 0);
	CHECK_EQ(fe_setup(&f, STD_FEATURES, PROTO_ALL), 0);
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_LOG_FD, NULL, 0, &small, 1), 0);
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_LOG_FD, NULL, 0, &small, 1), 0);
	fe_close(&f);
	close(fd);
	close(small);
	CHECK_EQ(count_fds(), before);
}

static void test_send_rarp(void)
{
	uint8_t mac[8] = { 0x52, 0x54, 0x00, 0xaa, 0xbb, 0xcc };
	int before = count_fds();
	uint64_t v;
	struct fe f;

	memcpy(&v, mac, sizeof(v));
	CHECK_EQ(fe_open(&f, 1), 0);
	CHECK_EQ(fe_setup(&f, STD_FEATURES, PROTO_ALL), 0);
	fb_tx_count = fb_tx_unpaused = 0;
	CHECK_EQ(fe_u64(&f, VHOST_USER_SEND_RARP, v), 0);
	CHECK_EQ(fb_tx_count, 1);
	CHECK_EQ(fb_tx_unpaused, 0);
	CHECK_EQ(fb_tx_len, 12 + 60);
	CHECK(memcmp(fb_tx_frame + 12, "\xff\xff\xff\xff\xff\xff", 6) == 0);
	CHECK(memcmp(fb_tx_frame + 12 + 6, mac, 6) == 0);
	CHECK_EQ(fb_tx_frame[12 + 12], 0x80);
	CHECK_EQ(fb_tx_frame[12 + 13], 0x35);
	CHECK_EQ(fb_tx_frame[12 + 21], 3);		/* reverse request */
	CHECK(memcmp(fb_tx_frame + 12 + 32, mac, 6) == 0);
	CHECK(wp_balanced());
	fe_close(&f);
	CHECK_EQ(count_fds(), before);
}

/*
 * Live migration: a migration destination's first SEND_RARP comes before
 * SET_FEATURES (the device is not started yet). It is held and sent, with
 * the data path paused, as soon as the features tell the vnet header
 * length; one held before a session ends is not sent on the next one.
 */
static void test_send_rarp_before_start(void)
{
	uint8_t mac[8] = { 0x52, 0x54, 0x00, 0x0d, 0x0e, 0x0f };
	int before = count_fds();
	uint64_t v, off;
	struct fe f;

	memcpy(&v, mac, sizeof(v));
	CHECK_EQ(fe_open(&f, 1), 0);
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_OWNER, NULL, 0, NULL, 0), 0);
	CHECK_EQ(fe_get_u64(&f, VHOST_USER_GET_FEATURES, &off), 0);
	CHECK_EQ(fe_u64(&f, VHOST_USER_SET_PROTOCOL_FEATURES, PROTO_ALL), 0);
	fb_tx_count = fb_tx_unpaused = 0;
	CHECK_EQ(fe_u64(&f, VHOST_USER_SEND_RARP, v), 0);
	CHECK_EQ(fb_tx_count, 0);			/* held */
	CHECK_EQ(fe_u64(&f, VHOST_USER_SET_FEATURES, STD_FEATURES), 0);
	CHECK_EQ(fb_tx_count, 1);			/* sent at start */
	CHECK_EQ(fb_tx_unpaused, 0);
	CHECK_EQ(fb_tx_len, 12 + 60);
	CHECK(memcmp(fb_tx_frame + 12 + 6, mac, 6) == 0);
	CHECK_EQ(fb_tx_frame[12 + 12], 0x80);
	CHECK_EQ(fb_tx_frame[12 + 13], 0x35);
	CHECK(memcmp(fb_tx_frame + 12 + 32, mac, 6) == 0);
	/* once: a second SET_FEATURES does not repeat it */
	CHECK_EQ(fe_u64(&f, VHOST_USER_SET_FEATURES, STD_FEATURES), 0);
	CHECK_EQ(fb_tx_count, 1);
	CHECK(wp_balanced());
	fe_close(&f);

	/* held, then the session ends: the next session does not send it */
	CHECK_EQ(fe_open(&f, 1), 0);
	CHECK_EQ(fe_req(&f, VHOST_USER_SET_OWNER, NULL, 0, NULL, 0), 0);
	CHECK_EQ(fe_get_u64(&f, VHOST_USER_GET_FEATURES, &off), 0);
	CHECK_EQ(fe_u64(&f, VHOST_USER_SET_PROTOCOL_FEATURES, PROTO_ALL), 0);
	CHECK_EQ(fe_u64(&f, VHOST_USER_SEND_RARP, v), 0);
	CHECK_EQ(fe_req(&f, VHOST_USER_RESET_OWNER, NULL, 0, NULL, 0), 0);
	CHECK_EQ(fe_u64(&f, VHOST_USER_SET_FEATURES, STD_FEATURES), 0);
	CHECK_EQ(fb_tx_count, 1);
	CHECK(wp_balanced());
	fe_close(&f);
	CHECK_EQ(count_fds(), before);
}

static void test_call_swap_and_reset(void)
{
	int before = count_fds(), c1, c2;
	struct vnet_ring *rx;
	uint64_t off1, off2;
	struct fe f;

	CHECK_EQ(fe_open(&f, 1), 0);
	CHECK_EQ(fe_setup(&f, STD_FEATURES, PROTO_ALL), 0);
	CHECK_EQ(fe_mem_table(&f), 0);
	CHECK_EQ(fe_ring_up(&f, 0, 0), 0);
	rx = dev_ring(&f, 0);
	/* a call fd swapped while running: the old one is closed */
	CHECK_EQ(fe_fd_msg(&f, VHOST_USER_SET_VRING_CALL, 0, &c1), 0);
	CHECK(rx->call_fd >= 0);
	CHECK_EQ(fe_fd_msg(&f, VHOST_USER_SET_VRING_CALL, 0, &c2), 0);
	CHECK(rx->started);
	CHECK_EQ(fe_u64(&f, VHOST_USER_SET_VRING_CALL,
			VHOST_USER_VRING_NOFD_MASK), 0);
	CHECK_EQ(rx->call_fd, -1);
	CHECK_EQ(fe_fd_msg(&f, VHOST_USER_SET_VRING_ERR, 0, NULL), 0);
	close(c1);
	close(c2);
	/* kick, call and err fds replaced again and again: nothing piles up */
	c1 = count_fds();
	for (c2 = 0; c2 < 4; c2++) {
		int lfd = eventfd(0, EFD_CLOEXEC);

		CHECK_EQ(fe_fd_msg(&f, VHOST_USER_SET_VRING_KICK, 0, NULL), 0);
		CHECK_EQ(fe_fd_msg(&f, VHOST_USER_SET_VRING_CALL, 0, NULL), 0);
		CHECK_EQ(fe_fd_msg(&f, VHOST_USER_SET_VRING_ERR, 0, NULL), 0);
		CHECK_EQ(fe_req(&f, VHOST_USER_SET_LOG_FD, NULL, 0, &lfd, 1), 0);
		close(lfd);
	}
	CHECK_EQ(count_fds(), c1 + 2);	/* + call fd (was none), log fd */
	CHECK(rx->started);
	/* RESET_OWNER: rings stop, memory and fds go, features stay offered */
	CHECK_EQ(fe_get_u64(&f, VHOST_USER_GET_FEATURES, &off1), 0);
	CHECK_EQ(fe_req(&f, VHOST_USER_RESET_OWNER, NULL, 0, NULL, 0), 0);
	CHECK(!rx->started);
	CHECK_EQ(rx->kick_fd, -1);
	CHECK_EQ(rx->err_fd, -1);
	CHECK_EQ(vu_dev_acked_features(f.d), 0);
	CHECK_EQ(fe_get_u64(&f, VHOST_USER_GET_FEATURES, &off2), 0);
	CHECK_EQ(off1, off2);
	/* and it comes back up */
	CHECK_EQ(fe_u64(&f, VHOST_USER_SET_FEATURES, STD_FEATURES), 0);
	CHECK_EQ(fe_mem_table(&f), 0);
	CHECK_EQ(fe_ring_up(&f, 0, 0), 0);
	CHECK(rx->started);
	fe_close(&f);
	CHECK_EQ(count_fds(), before);
}

static void test_disconnect_reconnect(void)
{
	int before = count_fds(), sv[2], i;
	unsigned int n;
	uint64_t off1, off2;
	struct fe f;

	CHECK_EQ(fe_open(&f, 4), 0);
	CHECK_EQ(fe_get_u64(&f, VHOST_USER_GET_FEATURES, &off1), 0);
	CHECK_EQ(fe_setup(&f, STD_FEATURES, PROTO_ALL), 0);
	CHECK_EQ(fe_mem_table(&f), 0);
	for (i = 0; i < 8; i++)
		CHECK_EQ(fe_ring_up(&f, (uint32_t)i, 0), 0);
	CHECK(dev_ring(&f, 7)->started);
	CHECK(strcmp(vu_dev_pairs(f.d, &n)[3].datapath, "userspace") == 0);
	/* the frontend vanishes mid-traffic */
	close(f.sock);
	f.sock = -1;
	CHECK_EQ(vu_dev_handle(f.d), -ECONNRESET);
	vu_dev_disconnect(f.d);
	CHECK(!vu_dev_connected(f.d));
	CHECK_EQ(vu_dev_sock(f.d), -1);
	CHECK(!dev_ring(&f, 7)->started);
	CHECK_EQ(dev_ring(&f, 7)->call_fd, -1);
	CHECK(strcmp(vu_dev_pairs(f.d, &n)[3].datapath, "idle") == 0);
	close(f.mem_fd);
	f.mem_fd = -1;
	CHECK_EQ(count_fds(), before + 0);	/* device holds nothing */
	CHECK(wp_balanced());
	/* the next connection sees the same features and works */
	CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	f.sock = sv[0];
	vu_dev_connect(f.d, sv[1]);
	CHECK_EQ(fe_get_u64(&f, VHOST_USER_GET_FEATURES, &off2), 0);
	CHECK_EQ(off1, off2);
	CHECK_EQ(fe_setup(&f, STD_FEATURES | BIT(VIRTIO_F_RING_PACKED),
			  PROTO_ALL), 0);
	CHECK_EQ(fe_mem_table(&f), 0);
	CHECK_EQ(fe_ring_up(&f, 3, 0), 0);
	CHECK(dev_ring(&f, 3)->started);
	CHECK_EQ(dev_ring(&f, 3)->vq.layout, VQ_PACKED);
	fe_close(&f);
	CHECK_EQ(count_fds(), before);
}

/* -------- kernel vhost-net offload (docs/vhost-net.md) -------- */

#define DEBIAN_VHOST_FEATURES	0x33d008000ULL	/* Debian 6.1 GET_FEATURES */

/* A "vhost-net" decision as vhost_mode_decide() makes it on a usable host */
static void vhost_decision_usable(struct vhost_decision *v,
				  enum vhost_mode mode)
{
	memset(v, 0, sizeof(*v));
	v->mode = mode;
	v->use = true;
	v->kernel_features = DEBIAN_VHOST_FEATURES;
	v->max_regions = 64;
	snprintf(v->dev, sizeof(v->dev), "/dev/vhost-net");
	snprintf(v->reason, sizeof(v->reason), "kernel vhost-net (test)");
}

static int fe_open_vhost(struct fe *f, unsigned int queues,
			 const struct vhost_decision *v)
{
	struct vu_dev_cfg c = {
		.name = "test0", .queues = queues, .features_mask = ~0ULL,
		.mac = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 }, .mtu = 9000,
		.host = &fb, .vhost = v, .config_space = true,
	};

	return fe_open_cfg(f, &c);
}

static void test_vhost_offer(void)
{
	uint64_t off, off2, plain, slots;
	int before = count_fds();
	struct vhost_decision v;
	struct fe f;

	CHECK_EQ(fe_open(&f, 2), 0);
	CHECK_EQ(fe_get_u64(&f, VHOST_USER_GET_FEATURES, &plain), 0);
	fe_close(&f);
	CHECK(plain & BIT(VIRTIO_F_RING_PACKED));

	vhost_decision_usable(&v, VHOST_MODE_AUTO);
	CHECK_EQ(fe_open_vhost(&f, 2, &v), 0);
	v.kernel_features = 0;	/* adopted at create: a copy, never re-read */
	CHECK_EQ(fe_get_u64(&f, VHOST_USER_GET_FEATURES, &off), 0);
	/* what the kernel runs itself is kept, the rest never offered */
	CHECK(!(off & BIT(VIRTIO_F_RING_PACKED)));
	CHECK(!(off & BIT(VIRTIO_F_IN_ORDER)));
	CHECK(!(off & BIT(VIRTIO_F_ACCESS_PLATFORM)));
	CHECK(off & BIT(VIRTIO_F_VERSION_1));
	CHECK(off & BIT(VIRTIO_NET_F_MRG_RXBUF));
	CHECK(off & BIT(VIRTIO_RING_F_EVENT_IDX));
	CHECK(off & BIT(VIRTIO_RING_F_INDIRECT_DESC));
	CHECK(off & BIT(VHOST_F_LOG_ALL_BIT));
	/* device bits pass through (the TAP does them) */
	CHECK(off & BIT(VIRTIO_NET_F_MQ));
	CHECK(off & BIT(VIRTIO_NET_F_MAC));
	CHECK(off & BIT(VHOST_USER_F_PROTOCOL_FEATURES));
	CHECK_EQ(off & ~plain, 0);
	CHECK_EQ(vu_dev_offered_features(f.d), off);
	/* a packed ring is refused: not offered */
	CHECK(fe_setup(&f, STD_FEATURES | BIT(VIRTIO_F_RING_PACKED),
		       PROTO_ALL) < 0);
	fe_close(&f);

	/* the kernel's memory slot limit; the same offer after reconnecting */
	vhost_decision_usable(&v, VHOST_MODE_AUTO);
	CHECK_EQ(fe_open_vhost(&f, 2, &v), 0);
	CHECK_EQ(fe_setup(&f, STD_FEATURES, PROTO_ALL), 0);
	CHECK_EQ(fe_get_u64(&f, VHOST_USER_GET_MAX_MEM_SLOTS, &slots), 0);
	CHECK_EQ(slots, 64);
	vu_dev_disconnect(f.d);
	close(f.sock);
	f.sock = -1;
	{
		int sv[2];

		CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
				 sv) == 0);
		f.sock = sv[0];
		vu_dev_connect(f.d, sv[1]);
	}
	CHECK_EQ(fe_get_u64(&f, VHOST_USER_GET_FEATURES, &off2), 0);
	CHECK_EQ(off, off2);
	fe_close(&f);
	CHECK_EQ(count_fds(), before);
}

/* A decision made with the injectable device path: absent -> userspace */
static void test_vhost_decided_absent(void)
{
	char path[96];
	struct vhost_decision v;
	uint64_t off, plain, slots;
	int before = count_fds();
	struct fe f;

	snprintf(path, sizeof(path), "/tmp/vnet-vu-absent-%d", (int)getpid());
	CHECK_EQ(vhost_mode_decide(&v, VHOST_MODE_AUTO, path, NULL), 0);
	CHECK(!v.use);
	CHECK(strstr(v.reason, path) != NULL);
	CHECK_EQ(vhost_mode_decide(&v, VHOST_MODE_ON, path, NULL), -ENOENT);
	CHECK(strstr(v.msg, "--vhost-net on: ") == v.msg);
	CHECK(strstr(v.msg, path) != NULL);
	CHECK(strstr(v.msg, "modprobe vhost_net") != NULL);
	CHECK_EQ(vhost_mode_decide(&v, VHOST_MODE_AUTO, path, NULL), 0);
	CHECK_EQ(fe_open(&f, 1), 0);
	CHECK_EQ(fe_get_u64(&f, VHOST_USER_GET_FEATURES, &plain), 0);
	fe_close(&f);
	CHECK_EQ(fe_open_vhost(&f, 1, &v), 0);
	CHECK_EQ(fe_get_u64(&f, VHOST_USER_GET_FEATURES, &off), 0);
	CHECK_EQ(off, plain);	/* unusable: the full userspace offer */
	CHECK_EQ(fe_setup(&f, STD_FEATURES, PROTO_ALL), 0);
	CHECK_EQ(fe_get_u64(&f, VHOST_USER_GET_MAX_MEM_SLOTS, &slots), 0);
	CHECK_EQ(slots, 509);
	CHECK_EQ(fe_mem_table(&f), 0);
	CHECK_EQ(fe_ring_up(&f, 0, 0), 0);
	CHECK_EQ(fe_ring_up(&f, 1, 0), 0);
	CHECK(!strcmp(vu_dev_pairs(f.d, &(unsigned int){ 0 })[0].datapath,
		      "userspace"));
	CHECK(!vu_dev_pairs(f.d, &(unsigned int){ 0 })[0].kernel);
	fe_close(&f);
	CHECK_EQ(count_fds(), before);
}

/*
 * Ring start under a "vhost-net" decision with a backend that has no TAP
 * queue (or no device on this host): the kernel refuses the pair. auto:
 * logged, the connection goes on in userspace; on: the connection closes.
 */
static void test_vhost_refused_at_start(void)
{
	struct vhost_decision v;
	int before = count_fds();
	struct vnet_pair *p;
	unsigned int n;
	struct fe f;

	vhost_decision_usable(&v, VHOST_MODE_AUTO);
	CHECK_EQ(fe_open_vhost(&f, 2, &v), 0);
	CHECK_EQ(fe_setup(&f, STD_FEATURES, PROTO_ALL), 0);
	CHECK_EQ(fe_mem_table(&f), 0);
	CHECK_EQ(fe_ring_up(&f, 0, 0), 0);
	p = vu_dev_pairs(f.d, &n);
	/* one ring only: the worker serves it, the kernel waits for both */
	CHECK(!strcmp(p[0].datapath, "userspace"));
	CHECK(strstr(p[0].why, "refused") == NULL);
	CHECK_EQ(fe_ring_up(&f, 1, 0), 0);
	CHECK(dev_ring(&f, 1)->started);
	CHECK(!strcmp(p[0].datapath, "userspace"));
	CHECK(strstr(p[0].why, "vhost-net refused") != NULL);
	CHECK(!p[0].kernel);
	/* later pairs of the connection stay userspace without retrying */
	CHECK_EQ(fe_ring_up(&f, 2, 0), 0);
	CHECK_EQ(fe_ring_up(&f, 3, 0), 0);
	CHECK(!strcmp(p[1].datapath, "userspace"));
	CHECK(strstr(p[1].why, "refused earlier") != NULL);
	/* GET_VRING_BASE still answers the userspace position */
	CHECK_EQ(fe_state(&f, VHOST_USER_GET_VRING_BASE, 1, 0), 0);
	CHECK(wp_balanced());
	fe_close(&f);
	CHECK_EQ(count_fds(), before);

	vhost_decision_usable(&v, VHOST_MODE_ON);
	CHECK_EQ(fe_open_vhost(&f, 1, &v), 0);
	CHECK_EQ(fe_setup(&f, STD_FEATURES, PROTO_ALL), 0);
	CHECK_EQ(fe_mem_table(&f), 0);
	CHECK_EQ(fe_ring_up(&f, 0, 0), 0);
	CHECK(fe_ring_up(&f, 1, 0) < 0);	/* on: the connection ends */
	p = vu_dev_pairs(f.d, &n);
	CHECK(strstr(p[0].why, "vhost-net refused") != NULL);
	CHECK(!p[0].kernel);
	vu_dev_disconnect(f.d);
	CHECK(!strcmp(p[0].datapath, "idle"));
	fe_close(&f);
	CHECK_EQ(count_fds(), before);
}

static void test_framing_error(void)
{
	struct vu_hdr h = { VHOST_USER_SET_FEATURES, VHOST_USER_VERSION, 8 };
	int before = count_fds();
	struct fe f;

	CHECK_EQ(fe_open(&f, 1), 0);
	/* header then EOF mid-payload */
	CHECK(write(f.sock, &h, sizeof(h)) == (ssize_t)sizeof(h));
	CHECK(write(f.sock, "abc", 3) == 3);
	shutdown(f.sock, SHUT_WR);
	CHECK(vu_dev_handle(f.d) < 0);
	fe_close(&f);
	CHECK_EQ(count_fds(), before);
}

int main(void)
{
	RUN(test_features_offered);
	RUN(test_features_mask);
	RUN(test_set_features);
	RUN(test_protocol_features);
	RUN(test_reply_ack);
	RUN(test_bringup_split);
	RUN(test_bringup_packed);
	RUN(test_wrong_size);
	RUN(test_missing_and_extra_fds);
	RUN(test_ring_index);
	RUN(test_ring_size);
	RUN(test_mem_table_bad);
	RUN(test_mem_slots);
	RUN(test_mem_reg_refcount);
	RUN(test_out_of_order);
	RUN(test_mem_table_replace);
	RUN(test_get_config);
	RUN(test_unknown_and_version);
	RUN(test_mtu_status_queues);
	RUN(test_log_base);
	RUN(test_send_rarp);
	RUN(test_send_rarp_before_start);
	RUN(test_call_swap_and_reset);
	RUN(test_disconnect_reconnect);
	RUN(test_framing_error);
	RUN(test_vhost_offer);
	RUN(test_vhost_decided_absent);
	RUN(test_vhost_refused_at_start);
	return test_exit();
}
