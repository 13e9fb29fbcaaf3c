// SPDX-License-Identifier: MIT
/*
 * test_vu_dev_upgrade.c - a device's connection handed from one vnetd to
 * the next (vu_dev_upgrade.c), without workers: a frontend sets device A
 * up (features, memory, two started rings at base 5 and 9); A's export,
 * encoded and decoded (upgrade_state.c), imported into a fresh device B
 * gives B the same features, memory and rings, started at the same
 * positions, with the same eventfds; a state the replay refuses (a
 * feature B does not offer, a ring outside memory) fails with the
 * request and the reason; an offloaded pair or dirty logging refuses the
 * export. No descriptor leaks on either path.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/virtio_config.h>

#include "testlib.h"
#include "upgrade_state.h"
#include "vu_backend.h"
#include "vu_dev_core.h"
#include "vu_dev_upgrade.h"
#include "vu_msg.h"

#define MEM_SIZE	(1u << 20)
#define MEM_UVA		0x7f0000000000ULL
#define RING_STRIDE	0x4000

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

static struct vu_dev *dev_new(void)
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
	close(sv[0]);
	vu_dev_connect(d, sv[1]);
	return d;
}

static int req(struct vu_dev *d, uint32_t r, const void *p, uint32_t size,
	       int fd)
{
	struct vu_msg m;

	memset(&m, 0, sizeof(m));
	m.hdr.request = r;
	m.hdr.flags = VHOST_USER_VERSION;
	m.hdr.size = size;
	if (size)
		memcpy(&m.payload, p, size);
	m.fds[0] = fd;
	m.nfds = fd >= 0;
	return vu_dev_dispatch(d, &m);
}

static int req_u64(struct vu_dev *d, uint32_t r, uint64_t v, int fd)
{
	return req(d, r, &v, sizeof(v), fd);
}

/* A frontend's session: owner, features, one region, rings 0 and 1 */
static int setup(struct vu_dev *d, uint64_t features)
{
	struct vu_mem_table t = { .nregions = 1 };
	int mfd = memfd_create("up", MFD_CLOEXEC), ret;
	unsigned int i;

	if (mfd < 0 || ftruncate(mfd, MEM_SIZE))
		return -errno;
	t.regions[0] = (struct vu_mem_region){ 0, MEM_SIZE, MEM_UVA, 0 };
	ret = req(d, VHOST_USER_SET_OWNER, NULL, 0, -1);
	ret = ret ?: req_u64(d, VHOST_USER_SET_PROTOCOL_FEATURES,
			     BIT(VHOST_USER_PROTOCOL_F_MQ), -1);
	ret = ret ?: req_u64(d, VHOST_USER_SET_FEATURES, features, -1);
	ret = ret ?: req(d, VHOST_USER_SET_MEM_TABLE, &t, 8 + sizeof(t.regions[0]), mfd);
	for (i = 0; !ret && i < 2; i++) {
		struct vu_vring_state s = { i, 256 };
		uint64_t off = MEM_UVA + i * RING_STRIDE;
		struct vu_vring_addr a = { i, 0, off, off + 0x2000, off + 0x1000, 0 };

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

static void test_export_refused(void)
{
	uint64_t f = BIT(VIRTIO_F_VERSION_1) | BIT(VHOST_USER_F_PROTOCOL_FEATURES) |
		     BIT(VHOST_F_LOG_ALL_BIT);
	struct vu_dev *a = dev_new();
	struct reason why = { 0 };

	CHECK(a);
	CHECK_EQ(setup(a, f), 0);
	CHECK_EQ(hand_over(a, &why), -EBUSY);
	CHECK(strstr(why.msg, "dirty logging"));
	vu_dev_destroy(a);
}

int main(void)
{
	RUN(test_round_trip);
	RUN(test_replay_refused);
	RUN(test_export_refused);
	return test_exit();
}
