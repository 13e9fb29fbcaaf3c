// SPDX-License-Identifier: MIT
/*
 * test_vu_upgrade_vhost.c - handing over a connection whose queue pair
 * runs in the kernel's vhost-net (vu_dev_upgrade.c, vhost_port.c), on the
 * in-memory /dev/vhost-net of fake_vhost_kernel.h and a real TAP queue
 * (TUNSETVNETHDRSZ is vhost_pair's own ioctl). A frontend sets device A up
 * with `--vhost-net on`; the "kernel" moves 4 frames per ring while it runs.
 * Checks: the export stops the pair (TAP detached, fd closed) and exports
 * the kernel's positions; the import into B does not start the kernel
 * while held (the old process may still run the rings) and does on
 * unquiesce, at those positions, on the TAP; a hand-over that fails after
 * the stop restarts A's pair at the same positions, twice in a row; a
 * ring the kernel would not give back refuses the export and still
 * resumes; a kernel that refuses the restart leaves the pair on the
 * userspace path (never idle). No descriptor leaks.
 */
/* needs: root tun */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/if_tun.h>
#include <linux/virtio_config.h>

#include "testlib.h"
#include "fake_vhost_kernel.h"
#include "log.h"
#include "upgrade_state.h"
#include "vu_backend.h"
#include "vu_dev_core.h"
#include "vu_dev_upgrade.h"
#include "vu_msg.h"
#include "vu_dev_testutil.h"

#define MEM_SIZE	(1u << 20)
#define MEM_UVA		0x7f0000000000ULL
#define RING_STRIDE	0x4000
#define MOVED		4	/* frames the kernel moves per ring per run */

static struct upgrade_state st, st2;
static uint8_t buf[1 << 16];
static int tap_fd = -1;
static struct vhost_decision vk;

static int fake_queue_fd(struct host *h, unsigned int pair)
{
	(void)h;
	return pair ? -1 : tap_fd;
}

static int fake_configure(struct host *h, uint64_t f, unsigned int hdr_len)
{
	(void)h;
	(void)f;
	(void)hdr_len;
	return 0;
}

static const struct host_ops fake_tap_ops = {
	.name = "faketap",
	.configure = fake_configure,
	.queue_fd = fake_queue_fd,
};
static struct host fake_host = { .ops = &fake_tap_ops, .npairs = 1 };

/* A TAP queue with a vnet header, or -1 (no CAP_NET_ADMIN / no tun) */
static int tap_open(void)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR };
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "vkup%d", (int)getpid());
	if (ioctl(fd, TUNSETIFF, &ifr)) {
		close(fd);
		return -1;
	}
	return fd;
}

static struct vu_dev *dev_new(void)
{
	struct vu_dev_cfg c = { .name = "vk0", .queues = 1, .host = &fake_host,
				.features_mask = ~0ULL, .no_workers = true,
				.vhost = &vk };
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

/* A frontend's session: one region, rings 0 and 1 at base 5 and 9 */
static int setup(struct vu_dev *d)
{
	uint64_t f = BIT(VIRTIO_F_VERSION_1) | BIT(VHOST_USER_F_PROTOCOL_FEATURES);
	struct vu_mem_table t = { .nregions = 1 };
	int mfd = memfd_create("vkup", MFD_CLOEXEC), ret;
	unsigned int i;

	if (mfd < 0 || ftruncate(mfd, MEM_SIZE))
		return -errno;
	t.regions[0] = (struct vu_mem_region){ 0, MEM_SIZE, MEM_UVA, 0 };
	ret = req(d, VHOST_USER_SET_OWNER, NULL, 0, -1);
	ret = ret ?: req_u64(d, VHOST_USER_SET_PROTOCOL_FEATURES,
			     BIT(VHOST_USER_PROTOCOL_F_MQ), -1);
	ret = ret ?: req_u64(d, VHOST_USER_SET_FEATURES, f, -1);
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

/* The old process's side: quiesce and export; the caller decides the rest */
static int export(struct vu_dev *a, struct reason *why)
{
	upgrade_state_init(&st);
	st.nports = 1;
	strcpy(st.ports[0].name, "vk0");
	st.ports[0].flags = UPGRADE_P_CONNECTED;
	st.ports[0].queues = 1;
	st.ports[0].listen_fd = -1;
	st.ports[0].conn_fd = upgrade_state_add_fd(&st, vu_dev_sock(a));
	vu_dev_quiesce(a);
	return vu_dev_export(a, &st, &st.ports[0].dev, why);
}

/* What crosses the socket: the wire format, duplicated (owned) fds */
static int transfer(struct reason *why)
{
	size_t len;
	uint32_t i;
	int ret;

	ret = upgrade_state_encode(&st, buf, sizeof(buf), &len);
	if (ret)
		return ret;
	upgrade_state_init(&st2);
	st2.nfds = st.nfds;
	for (i = 0; i < st.nfds; i++)
		st2.fds[i] = dup(st.fds[i]);
	return upgrade_state_decode(&st2, buf, len, why);
}

/* The pair runs on one fake device, attached to the TAP at @rx and @tx */
static bool runs_at(struct vu_dev *d, unsigned int rx, unsigned int tx)
{
	struct fake_vk *v = fake_vk_only();

	return v && vhost_port_offloaded(&d->vp, 0) && d->pairs[0].kernel &&
	       !strcmp(d->pairs[0].datapath, VNET_DP_KERNEL) &&
	       v->base[0] == rx && v->base[1] == tx &&
	       v->backend[0] == tap_fd && v->backend[1] == tap_fd &&
	       v->kick[0] == vu_vring(d, 0)->kick_fd &&
	       v->kick[1] == vu_vring(d, 1)->kick_fd;
}

static void test_handover_committed(void)
{
	int fds = test_count_fds();
	struct vu_dev *a, *b;
	struct reason why = { 0 };

	if (tap_fd < 0)
		SKIP("cannot create a TAP (needs CAP_NET_ADMIN and /dev/net/tun)");
	a = dev_new();
	b = dev_new();
	CHECK(a && b);
	CHECK_EQ(setup(a), 0);
	CHECK(runs_at(a, 5, 9));
	fake_moved = MOVED;
	CHECK_EQ(export(a, &why), 0);
	/* stopped as GET_VRING_BASE does: detached, fd closed, positions out */
	CHECK(!vhost_port_offloaded(&a->vp, 0));
	CHECK_EQ(fake_vk_open_count(), 0);
	CHECK_EQ(st.ports[0].dev.rings[0].base, 5 + MOVED);
	CHECK_EQ(st.ports[0].dev.rings[1].base, 9 + MOVED);
	CHECK(st.ports[0].dev.rings[0].started && st.ports[0].dev.rings[1].started);
	CHECK_EQ(transfer(&why), 0);
	vu_dev_quiesce(b);
	CHECK_EQ(vu_dev_import(b, &st2, &st2.ports[0].dev, &why), 0);
	upgrade_state_close_fds(&st2);
	/* held: A has not let go yet, so no kernel device runs the rings */
	CHECK_EQ(fake_vk_open_count(), 0);
	CHECK(!vhost_port_offloaded(&b->vp, 0));
	CHECK(!strcmp(b->pairs[0].datapath, VNET_DP_IDLE));
	vu_dev_unquiesce(b);	/* committed */
	CHECK(runs_at(b, 5 + MOVED, 9 + MOVED));
	vu_dev_destroy(a);	/* the old process exits: nothing of it runs */
	CHECK(runs_at(b, 5 + MOVED, 9 + MOVED));
	vu_dev_destroy(b);
	CHECK_EQ(fake_vk_open_count(), 0);
	CHECK_EQ(test_count_fds(), fds);
}

static void test_handover_failed_resumes(void)
{
	int fds = test_count_fds();
	struct reason why = { 0 };
	struct vu_dev *a;
	unsigned int n;

	if (tap_fd < 0)
		SKIP("cannot create a TAP (needs CAP_NET_ADMIN and /dev/net/tun)");
	a = dev_new();
	CHECK(a);
	CHECK_EQ(setup(a), 0);
	fake_moved = MOVED;
	for (n = 1; n <= 2; n++) {	/* twice: the restarted pair hands over too */
		CHECK_EQ(export(a, &why), 0);
		CHECK_EQ(st.ports[0].dev.rings[0].base, 5 + n * MOVED);
		CHECK_EQ(fake_vk_open_count(), 0);
		/* the new process refused (or died): every port as it was */
		vu_dev_unquiesce(a);
		CHECK(runs_at(a, 5 + n * MOVED, 9 + n * MOVED));
	}
	vu_dev_destroy(a);
	CHECK_EQ(fake_vk_open_count(), 0);
	CHECK_EQ(test_count_fds(), fds);
}

static void test_stop_refused(void)
{
	int fds = test_count_fds();
	struct reason why = { 0 };
	struct vu_dev *a;

	if (tap_fd < 0)
		SKIP("cannot create a TAP (needs CAP_NET_ADMIN and /dev/net/tun)");
	a = dev_new();
	CHECK(a);
	CHECK_EQ(setup(a), 0);
	fake_moved = MOVED;
	fake_get_base_err = -EIO;
	CHECK_EQ(export(a, &why), -EIO);
	CHECK(strstr(why.msg, "pair 0: vhost-net did not give ring 0 back: "
		     "VHOST_GET_VRING_BASE: Input/output error"));
	/* given back whole anyway (vhost_pair_stop() read both positions) */
	CHECK_EQ(fake_vk_open_count(), 0);
	vu_dev_unquiesce(a);
	CHECK(runs_at(a, 5 + MOVED, 9 + MOVED));
	vu_dev_destroy(a);
	CHECK_EQ(test_count_fds(), fds);
}

static void test_restart_refused(void)
{
	int fds = test_count_fds();
	struct reason why = { 0 };
	struct vu_dev *a;

	if (tap_fd < 0)
		SKIP("cannot create a TAP (needs CAP_NET_ADMIN and /dev/net/tun)");
	a = dev_new();
	CHECK(a);
	CHECK_EQ(setup(a), 0);
	CHECK_EQ(export(a, &why), 0);
	fake_open_err = -EMFILE;
	vu_dev_unquiesce(a);
	/* even under `on`: served by the worker, not left idle */
	CHECK(!vhost_port_offloaded(&a->vp, 0));
	CHECK(!a->pairs[0].kernel);
	CHECK(!strcmp(a->pairs[0].datapath, VNET_DP_USER));
	CHECK(!strcmp(a->pairs[0].why, "vhost-net refused to resume: "
		      "/dev/vhost-net: Too many open files"));
	CHECK(vu_vring(a, 0)->started && vu_vring(a, 1)->started);
	vu_dev_destroy(a);
	CHECK_EQ(fake_vk_open_count(), 0);
	CHECK_EQ(test_count_fds(), fds);
}

int main(void)
{
	log_max_level = LOG_ERR;	/* offloads and refusals log by design */
	fake_vk_reset();
	vk.mode = VHOST_MODE_ON;
	vk.use = true;
	vk.kernel_features = FAKE_VK_FEATURES;
	vk.max_regions = VHOST_KERNEL_DEFAULT_REGIONS;
	tap_fd = tap_open();
	RUN(test_handover_committed);
	RUN(test_handover_failed_resumes);
	RUN(test_stop_refused);
	RUN(test_restart_refused);
	if (tap_fd >= 0)
		close(tap_fd);
	return test_exit();
}
