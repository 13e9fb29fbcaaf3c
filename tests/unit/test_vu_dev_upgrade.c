// SPDX-License-Identifier: MIT
/*
 * test_vu_dev_upgrade.c - a device's connection handed from one vnetd to
 * the next (vu_dev_upgrade.c), without workers: a frontend sets device A
 * up (features, memory, two started rings at base 5 and 9); A's export,
 * encoded and decoded (upgrade_state.c), imported into a fresh device B
 * gives B the same features, memory and rings, started at the same
 * positions, with the same eventfds; a state the replay refuses (a
 * feature B does not offer, a ring outside memory) fails with the
 * request and the reason. With dirty logging on (a live migration), the
 * log goes along (format version 2): B logs into the same shared bitmap
 * before its rings start, at the same used-ring address, and the frontend
 * hears no reply to the replayed SET_LOG_BASE; a log the replay refuses
 * fails the import. No descriptor leaks on any path.
 *
 * Before the export, the loop backend's FIFO goes into the guest's RX
 * rings (vu_dev_drain_pair()): every frame once, in order; a guest with too
 * few buffers is called and the rest waits for the next call (-ENOBUFS),
 * split and packed.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/vhost_types.h>
#include <linux/virtio_config.h>

#include "testlib.h"
#include "upgrade_state.h"
#include "vu_backend.h"
#include "vu_dev_core.h"
#include "vu_dev_upgrade.h"
#include "vu_msg.h"
#include "vu_dev_testutil.h"
#include "dp_testutil.h"

#define MEM_SIZE	(1u << 20)
#define MEM_UVA		0x7f0000000000ULL
#define RING_STRIDE	0x4000
#define LOG_USED_GPA	0x80000	/* ring 1's VHOST_VRING_F_LOG address */

static struct upgrade_state st, st2;
static uint8_t buf[1 << 16];

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

/* A device on a socket whose frontend end is *@peer (NULL: closed) */
static struct vu_dev *dev_new_peer(int *peer)
{
	struct vu_dev_cfg c = { .name = "up0", .queues = 1,
				.features_mask = ~0ULL, .no_workers = true };
	struct vu_dev *d;
	int sv[2];

	if (vu_dev_create(&d, &c))
		return NULL;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		vu_dev_destroy(d);
		return NULL;
	}
	if (peer)
		*peer = sv[0];
	else
		close(sv[0]);
	vu_dev_connect(d, sv[1]);
	return d;
}

static struct vu_dev *dev_new(void)
{
	return dev_new_peer(NULL);
}

/* A frontend's session: owner, features, one region, rings 0 and 1 */
static int setup_proto(struct vu_dev *d, uint64_t features, uint64_t proto)
{
	struct vu_mem_table t = { .nregions = 1 };
	int mfd = memfd_create("up", MFD_CLOEXEC), ret;
	unsigned int i;

	if (mfd < 0 || ftruncate(mfd, MEM_SIZE))
		return -errno;
	t.regions[0] = (struct vu_mem_region){ 0, MEM_SIZE, MEM_UVA, 0 };
	ret = req(d, VHOST_USER_SET_OWNER, NULL, 0, -1);
	ret = ret ?: req_u64(d, VHOST_USER_SET_PROTOCOL_FEATURES, proto, -1);
	ret = ret ?: req_u64(d, VHOST_USER_SET_FEATURES, features, -1);
	ret = ret ?: req(d, VHOST_USER_SET_MEM_TABLE, &t, 8 + sizeof(t.regions[0]), mfd);
	for (i = 0; !ret && i < 2; i++) {
		struct vu_vring_state s = { i, 256 };
		uint64_t off = MEM_UVA + i * RING_STRIDE;
		/* ring 1 names a guest address for its used ring's log */
		struct vu_vring_addr a = { i, i ? 1u << VHOST_VRING_F_LOG : 0,
					   off, off + 0x2000, off + 0x1000,
					   i ? LOG_USED_GPA : 0 };

		ret = req(d, VHOST_USER_SET_VRING_NUM, &s, sizeof(s), -1);
		s.num = i ? 9 : 5;
		ret = ret ?: req(d, VHOST_USER_SET_VRING_BASE, &s, sizeof(s), -1);
		ret = ret ?: req(d, VHOST_USER_SET_VRING_ADDR, &a, sizeof(a), -1);
		s.num = 1;
		ret = ret ?: req(d, VHOST_USER_SET_VRING_ENABLE, &s, sizeof(s), -1);
		ret = ret ?: req_u64(d, VHOST_USER_SET_VRING_CALL, i,
				     eventfd(0, EFD_CLOEXEC));
		ret = ret ?: req_u64(d, VHOST_USER_SET_VRING_KICK, i,
				     eventfd(0, EFD_CLOEXEC));
	}
	return ret;
}

static int setup(struct vu_dev *d, uint64_t features)
{
	return setup_proto(d, features, BIT(VHOST_USER_PROTOCOL_F_MQ));
}

/* vhost-user "Migration": QEMU's order, SET_LOG_BASE then LOG_ALL */
#define LOG_SIZE	(MEM_SIZE / 4096 / 8)	/* one bit per page */

static int start_log(struct vu_dev *d, int peer, uint64_t features, int *lfd)
{
	struct vu_log l = { LOG_SIZE, 0 };
	uint64_t reply[3];
	int ret;

	*lfd = memfd_create("log", MFD_CLOEXEC);
	if (*lfd < 0 || ftruncate(*lfd, LOG_SIZE))
		return -errno;
	ret = req(d, VHOST_USER_SET_LOG_BASE, &l, sizeof(l), dup(*lfd));
	/* the answer QEMU waits for: a header and u64 0 */
	if (!ret && recv(peer, reply, sizeof(reply), MSG_DONTWAIT) != 20)
		ret = -EPROTO;
	ret = ret ?: req(d, VHOST_USER_SET_LOG_FD, NULL, 0, eventfd(0, EFD_CLOEXEC));
	return ret ?: req_u64(d, VHOST_USER_SET_FEATURES,
			      features | BIT(VHOST_F_LOG_ALL_BIT), -1);
}

/* A's state through the wire format, with duplicated (owned) fds */
static int hand_over(struct vu_dev *a, struct reason *why)
{
	size_t len;
	uint32_t i;
	int ret;

	upgrade_state_init(&st);
	st.nports = 1;
	strcpy(st.ports[0].name, "up0");
	st.ports[0].flags = UPGRADE_P_CONNECTED;
	st.ports[0].queues = 1;
	st.ports[0].listen_fd = -1;
	st.ports[0].conn_fd = upgrade_state_add_fd(&st, vu_dev_sock(a));
	vu_dev_quiesce(a);
	ret = vu_dev_export(a, &st, &st.ports[0].dev, why);
	vu_dev_unquiesce(a);
	if (ret)
		return ret;
	ret = upgrade_state_encode(&st, buf, sizeof(buf), &len);
	if (ret)
		return ret;
	upgrade_state_init(&st2);
	st2.nfds = st.nfds;
	for (i = 0; i < st.nfds; i++)
		st2.fds[i] = dup(st.fds[i]);
	return upgrade_state_decode(&st2, buf, len, why);
}

static void test_round_trip(void)
{
	uint64_t f = BIT(VIRTIO_F_VERSION_1) | BIT(VIRTIO_RING_F_EVENT_IDX) |
		     BIT(VHOST_USER_F_PROTOCOL_FEATURES);
	int fds = count_fds();
	struct vu_dev *a = dev_new(), *b = dev_new();
	struct reason why = { 0 };
	unsigned int i;

	CHECK(a && b);
	CHECK_EQ(setup(a, f), 0);
	CHECK(vu_vring(a, 0)->started && vu_vring(a, 1)->started);
	CHECK_EQ(hand_over(a, &why), 0);
	CHECK_EQ(buf[4], 1);		/* no log: what the previous binary reads */
	CHECK_EQ(st2.ports[0].dev.nregions, 1);
	vu_dev_quiesce(b);
	CHECK_EQ(vu_dev_import(b, &st2, &st2.ports[0].dev, &why), 0);
	vu_dev_unquiesce(b);
	upgrade_state_close_fds(&st2);	/* the socket: the port's, here unused */
	CHECK_EQ(vu_dev_acked_features(b), f);
	CHECK_EQ(b->proto, a->proto);
	CHECK_EQ(b->mem->nregions, 1);
	CHECK_EQ(b->mem->regions[0].uva, MEM_UVA);
	CHECK_EQ(b->mem_refs[0].refs, 1);
	for (i = 0; i < 2; i++) {
		struct vnet_ring *ra = vu_vring(a, i), *rb = vu_vring(b, i);

		CHECK(rb->started && rb->enabled);
		CHECK_EQ(vq_get_base(&rb->vq), vq_get_base(&ra->vq));
		CHECK_EQ(vq_get_base(&rb->vq), i ? 9 : 5);
		CHECK(rb->kick_fd >= 0 && rb->call_fd >= 0 && rb->err_fd < 0);
		CHECK_EQ(b->rings[i].desc_uva, a->rings[i].desc_uva);
	}
	/* the one kick the import gives each started ring */
	{
		uint64_t v = 0;

		CHECK_EQ(read(vu_vring(b, 1)->kick_fd, &v, sizeof(v)), 8);
		CHECK_EQ(v, 1);
	}
	vu_dev_destroy(a);
	vu_dev_destroy(b);
	CHECK_EQ(count_fds(), fds);
}

static void test_replay_refused(void)
{
	uint64_t f = BIT(VIRTIO_F_VERSION_1) | BIT(VHOST_USER_F_PROTOCOL_FEATURES);
	int fds = count_fds();
	struct vu_dev *a = dev_new(), *b = dev_new();
	struct reason why = { 0 };

	CHECK(a && b);
	CHECK_EQ(setup(a, f), 0);
	CHECK_EQ(hand_over(a, &why), 0);
	st2.ports[0].dev.features |= 1ULL << 63;	/* not offered */
	CHECK(vu_dev_import(b, &st2, &st2.ports[0].dev, &why) < 0);
	CHECK(strstr(why.msg, "replaying SET_FEATURES"));
	upgrade_state_close_fds(&st2);
	vu_dev_destroy(b);
	b = dev_new();
	CHECK(b);
	CHECK_EQ(hand_over(a, &why), 0);
	st2.ports[0].dev.rings[1].desc = MEM_UVA + MEM_SIZE;	/* outside memory */
	CHECK(vu_dev_import(b, &st2, &st2.ports[0].dev, &why) < 0);
	CHECK(strstr(why.msg, "SET_VRING_ADDR"));
	upgrade_state_close_fds(&st2);
	vu_dev_destroy(a);
	vu_dev_destroy(b);
	CHECK_EQ(count_fds(), fds);
}

/* An upgrade while a live migration runs */
static void test_log_round_trip(void)
{
	uint64_t f = BIT(VIRTIO_F_VERSION_1) | BIT(VHOST_USER_F_PROTOCOL_FEATURES);
	uint64_t proto = BIT(VHOST_USER_PROTOCOL_F_MQ) |
			 BIT(VHOST_USER_PROTOCOL_F_LOG_SHMFD);
	int fds = count_fds(), pa = -1, pb = -1, lfd = -1;
	struct vu_dev *a = dev_new_peer(&pa), *b = dev_new_peer(&pb);
	struct reason why = { 0 };
	uint8_t bits[LOG_SIZE];
	uint64_t pages;
	char c;
	unsigned int i;

	CHECK(a && b);
	CHECK_EQ(setup_proto(a, f, proto), 0);
	CHECK_EQ(start_log(a, pa, f, &lfd), 0);
	CHECK(vu_dev_log_state(a, &pages));
	CHECK_EQ(hand_over(a, &why), 0);
	CHECK_EQ(buf[4], UPGRADE_VERSION_LOG);	/* the format that holds a log */
	CHECK(st2.ports[0].dev.log_fd >= 0 && st2.ports[0].dev.log_notify_fd >= 0);
	CHECK_EQ(st2.ports[0].dev.log_size, LOG_SIZE);
	vu_dev_quiesce(b);
	CHECK_EQ(vu_dev_import(b, &st2, &st2.ports[0].dev, &why), 0);
	vu_dev_unquiesce(b);
	upgrade_state_close_fds(&st2);
	/* the frontend asked the old process; the new one must not answer */
	CHECK(recv(pb, &c, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN);
	CHECK(vu_dev_log_state(b, &pages));
	CHECK(b->log_fd >= 0 && b->log_mem_fd >= 0);
	CHECK_EQ(b->log.size, LOG_SIZE);
	for (i = 0; i < 2; i++) {
		const struct vq *qa = &vu_vring(a, i)->vq, *qb = &vu_vring(b, i)->vq;

		CHECK(vu_vring(b, i)->started);
		CHECK(qb->log == &b->log);
		CHECK_EQ(qb->log_used_gpa, qa->log_used_gpa);
		CHECK_EQ(b->rings[i].log_gpa, a->rings[i].log_gpa);
	}
	CHECK_EQ(vu_vring(b, 0)->vq.log_used_gpa, 0x2000);	/* from the table */
	CHECK_EQ(vu_vring(b, 1)->vq.log_used_gpa, LOG_USED_GPA);
	/* B writes the frontend's own bitmap: page 37, bit 5 of byte 4 */
	gmem_log_write(&b->log, 37 * 4096 + 100, 1);
	CHECK_EQ(pread(lfd, bits, sizeof(bits), 0), (ssize_t)sizeof(bits));
	CHECK_EQ(bits[4], 1u << 5);
	vu_dev_destroy(a);
	vu_dev_destroy(b);
	close(pa);
	close(pb);
	close(lfd);
	CHECK_EQ(count_fds(), fds);
}

static void test_log_replay_refused(void)
{
	uint64_t f = BIT(VIRTIO_F_VERSION_1) | BIT(VHOST_USER_F_PROTOCOL_FEATURES);
	uint64_t proto = BIT(VHOST_USER_PROTOCOL_F_MQ) |
			 BIT(VHOST_USER_PROTOCOL_F_LOG_SHMFD);
	int fds = count_fds(), pa = -1, lfd = -1;
	struct vu_dev *a = dev_new_peer(&pa), *b = dev_new();
	struct reason why = { 0 };

	CHECK(a && b);
	CHECK_EQ(setup_proto(a, f, proto), 0);
	CHECK_EQ(start_log(a, pa, f, &lfd), 0);
	CHECK_EQ(hand_over(a, &why), 0);
	st2.ports[0].dev.log_size = 16 * LOG_SIZE;	/* past the memfd's end */
	CHECK(vu_dev_import(b, &st2, &st2.ports[0].dev, &why) < 0);
	CHECK(strstr(why.msg, "replaying SET_LOG_BASE"));
	CHECK(!vu_vring(b, 0)->started);	/* no ring ran without the log */
	upgrade_state_close_fds(&st2);
	vu_dev_destroy(a);
	vu_dev_destroy(b);
	close(pa);
	close(lfd);
	CHECK_EQ(count_fds(), fds);
}

/* @n loop frames of 64 bytes on pair 0, frame k's payload seeded k */
static int fifo_fill(struct dp_env *e, unsigned int n)
{
	uint8_t f[VNET_HDR_MAX + 64];
	struct iovec iov = { f, e->hdr_len + 64 };
	unsigned int k, b;

	for (k = 0; k < n; k++) {
		memset(f, 0, e->hdr_len);
		for (b = 0; b < 64; b++)
			f[e->hdr_len + b] = (uint8_t)(k + b);
		if (e->host.ops->tx(&e->host, 0, &iov, 1) != (ssize_t)iov.iov_len)
			return -EIO;
	}
	return 0;
}

/* Frames received on pair 0, checking each is the next of *@seq */
static unsigned int rx_in_order(struct dp_env *e, unsigned int *seq)
{
	unsigned int n = 0;
	uint32_t ok;
	uint8_t first;

	while (dp_recv(e, 0, &first, &ok) == 64) {
		if (first != (uint8_t)*seq || ok != 64)
			return 1000;	/* wrong frame, or wrong bytes */
		++*seq;
		n++;
	}
	return n;
}

static void drain_layout(enum vq_layout l)
{
	uint64_t f = BIT(VIRTIO_F_VERSION_1) | BIT(VIRTIO_NET_F_MRG_RXBUF);
	struct net_scratch s;
	struct dp_env e;
	unsigned int seq = 0, k;
	uint64_t v = 0;

	CHECK_EQ(dp_init(&e, l, f, 1, "loop"), 0);
	CHECK_EQ(net_scratch_init(&s), 0);
	/* nothing waiting: done at once */
	CHECK_EQ(vu_dev_drain_pair(&e.pairs[0], &e.host, &s), 0);
	CHECK_EQ(fifo_fill(&e, 40), 0);
	/* the guest posts 16 buffers: slots 16.. look taken */
	for (k = 16; k < DP_RING; k++)
		e.rx[0].busy[k] = true;
	CHECK_EQ(dp_post_rx(&e, 0), 16);
	CHECK_EQ(vu_dev_drain_pair(&e.pairs[0], &e.host, &s), -ENOBUFS);
	/* called, so that it reads them and posts more */
	CHECK_EQ(read(e.pairs[0].rx.call_fd, &v, sizeof(v)), 8);
	CHECK_EQ(rx_in_order(&e, &seq), 16);
	CHECK_EQ(dp_post_rx(&e, 0), 16);
	CHECK_EQ(vu_dev_drain_pair(&e.pairs[0], &e.host, &s), -ENOBUFS);
	CHECK_EQ(rx_in_order(&e, &seq), 16);
	CHECK_EQ(dp_post_rx(&e, 0), 16);
	CHECK_EQ(vu_dev_drain_pair(&e.pairs[0], &e.host, &s), 0);
	CHECK_EQ(rx_in_order(&e, &seq), 8);
	CHECK_EQ(seq, 40);
	CHECK_EQ(e.host.ops->rx_peek_len(&e.host, 0), 0);
	CHECK_EQ(dp_ctr(&e.pairs[0].rx.ctr.packets), 40);
	net_scratch_cleanup(&s);
	dp_cleanup(&e);
}

static void test_drain_split(void)
{
	drain_layout(VQ_SPLIT);
}

static void test_drain_packed(void)
{
	drain_layout(VQ_PACKED);
}

int main(void)
{
	RUN(test_round_trip);
	RUN(test_replay_refused);
	RUN(test_log_round_trip);
	RUN(test_log_replay_refused);
	RUN(test_drain_split);
	RUN(test_drain_packed);
	return test_exit();
}
