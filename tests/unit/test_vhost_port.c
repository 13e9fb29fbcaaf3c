// SPDX-License-Identifier: MIT
/*
 * test_vhost_port.c - the port-level offload logic without the kernel: the
 * decision at port start (off, no TAP queue, missing device), the offered
 * features, and what happens when the kernel refuses a pair: `auto` falls
 * back to the userspace path for the rest of the connection (status text
 * included), `on` returns the error; disconnect forgets the fallback. The
 * kernel path itself runs in tests/guest/test-vhost-net.sh.
 */
#include <errno.h>
#include <linux/virtio_config.h>
#include <linux/virtio_net.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "testlib.h"
#include "gmem.h"
#include "log.h"
#include "vhost_port.h"

#define NUM		64
#define B(n)		(1ULL << (n))
#define KERNEL_6_1	0x33d008000ULL

static struct gmem mem;
static struct vnet_pair pairs[2];
static void *ring_mem[2][2][3];

static int ring_init(struct vnet_ring *r, void *area[3])
{
	uint64_t len[3];
	int i;

	memset(r, 0, sizeof(*r));
	if (vq_init(&r->vq, VQ_SPLIT, NUM, B(VIRTIO_F_VERSION_1)))
		return -1;
	vq_ring_sizes(VQ_SPLIT, NUM, &len[0], &len[1], &len[2]);
	for (i = 0; i < 3; i++) {
		area[i] = aligned_alloc(4096, 4096);
		if (!area[i] || len[i] > 4096)
			return -1;
		memset(area[i], 0, 4096);
	}
	if (vq_set_addr(&r->vq, area[0], area[1], area[2]))
		return -1;
	vq_set_mem(&r->vq, &mem);
	r->kick_fd = eventfd(0, EFD_CLOEXEC);
	r->call_fd = -1;
	r->err_fd = -1;
	r->enabled = true;
	return r->kick_fd < 0 ? -1 : 0;
}

static void ring_fini(struct vnet_ring *r, void *area[3])
{
	int i;

	close(r->kick_fd);
	vq_cleanup(&r->vq);
	for (i = 0; i < 3; i++)
		free(area[i]);
}

static int pairs_init(void)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		memset(&pairs[i], 0, sizeof(pairs[i]));
		pairs[i].index = i;
		pairs[i].features = B(VIRTIO_F_VERSION_1);
		pairs[i].hdr_len = 12;
		if (ring_init(&pairs[i].rx, ring_mem[i][0]) ||
		    ring_init(&pairs[i].tx, ring_mem[i][1]))
			return -1;
	}
	return 0;
}

static void pairs_fini(void)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		ring_fini(&pairs[i].rx, ring_mem[i][0]);
		ring_fini(&pairs[i].tx, ring_mem[i][1]);
	}
}

/* A decision as a working /dev/vhost-net would give, on a device path that
 * then fails: the refusal paths without a kernel */
static void force_usable(struct vhost_port *vp, enum vhost_mode mode)
{
	vp->vk.mode = mode;
	vp->vk.use = true;
	vp->vk.err = 0;
	vp->vk.kernel_features = KERNEL_6_1;
	vp->vk.max_regions = 64;
}

static void test_off(void)
{
	struct vhost_port vp;

	CHECK(!pairs_init());
	CHECK_EQ(vhost_port_init(&vp, "p0", VHOST_MODE_OFF, "/nonexistent",
				 true), 0);
	CHECK(!vp.vk.use);
	CHECK_EQ(vhost_port_features(&vp, ~0ULL), ~0ULL);
	CHECK_EQ(vhost_port_max_mem_slots(&vp, 509), 509);
	pairs[0].rx.started = pairs[0].tx.started = true;
	CHECK_EQ(vhost_port_pair_start(&vp, &pairs[0], &mem, 0, NULL, -1), 0);
	CHECK(!strcmp(pairs[0].datapath, "userspace"));
	CHECK(!strcmp(pairs[0].why, "--vhost-net off"));
	CHECK(!vhost_port_offloaded(&vp, 0));
	/* every other event is a no-op for a pair the kernel does not run */
	CHECK_EQ(vhost_port_ring_stop(&vp, &pairs[0], 0), 0);
	CHECK_EQ(vhost_port_ring_enable(&vp, &pairs[0], 1, false), 0);
	CHECK_EQ(vhost_port_ring_fds(&vp, &pairs[0], 1), 0);
	CHECK_EQ(vhost_port_set_mem(&vp, pairs, 2, &mem), 0);
	CHECK_EQ(vhost_port_set_log(&vp, pairs, 2, &mem, NULL, -1), 0);
	pairs_fini();
}

static void test_no_queue_fd(void)
{
	struct vhost_port vp;

	CHECK_EQ(vhost_port_init(&vp, "p0", VHOST_MODE_ON, "/nonexistent",
				 false), -ENODEV);
	CHECK(!vp.vk.use);
	CHECK(!strcmp(vp.vk.msg, "--vhost-net on: the port's backend has no TAP "
		      "queue for vhost-net to attach to. Use --backend tap, or "
		      "start with --vhost-net off."));
	CHECK_EQ(vhost_port_init(&vp, "p0", VHOST_MODE_AUTO, "/nonexistent",
				 false), 0);
	CHECK(!vp.vk.use);
	CHECK(!strcmp(vp.vk.reason,
		      "the backend has no kernel queue: userspace only"));
}

/* The one owner of the rule: vnetd's port start and option parsing use it */
static void test_decide_rule(void)
{
	struct vhost_decision d;

	CHECK_EQ(vhost_port_decide(&d, VHOST_MODE_AUTO, "/nonexistent", "loop",
				   false), 0);
	CHECK(!d.use);
	CHECK(!strcmp(d.reason, "backend loop has no kernel queue: userspace only"));
	CHECK_EQ(vhost_port_decide(&d, VHOST_MODE_OFF, "/nonexistent", "null",
				   false), 0);
	CHECK(!strcmp(d.reason, "backend null has no kernel queue: userspace only"));
	/* on without a TAP queue refuses: it used to run userspace in vnetd */
	CHECK_EQ(vhost_port_decide(&d, VHOST_MODE_ON, "/nonexistent", "loop",
				   false), -ENODEV);
	CHECK(strstr(d.msg, "no TAP queue for vhost-net"));
	CHECK_EQ(vhost_port_decide(&d, VHOST_MODE_OFF, "/nonexistent", "tap",
				   true), 0);
	CHECK(!strcmp(d.reason, "--vhost-net off"));
	CHECK_EQ(vhost_port_mode_check(VHOST_MODE_ON, "tap"), 0);
	CHECK_EQ(vhost_port_mode_check(VHOST_MODE_ON, "null"), -EINVAL);
	CHECK_EQ(vhost_port_mode_check(VHOST_MODE_AUTO, "null"), 0);
	CHECK_EQ(vhost_port_mode_check(VHOST_MODE_OFF, "loop"), 0);
}

static void test_missing_device(void)
{
	struct vhost_port vp;

	CHECK_EQ(vhost_port_init(&vp, "p0", VHOST_MODE_ON, "/nonexistent",
				 true), -ENOENT);
	CHECK(strstr(vp.vk.msg, "modprobe vhost_net"));
	CHECK_EQ(vhost_port_init(&vp, "p0", VHOST_MODE_AUTO, "/nonexistent",
				 true), 0);
	CHECK(!vp.vk.use);
	CHECK(!strcmp(vp.vk.reason,
		      "/nonexistent missing (No such file or directory)"));
	CHECK_EQ(vhost_port_max_mem_slots(&vp, 509), 509);
}

static void test_features_when_usable(void)
{
	struct vhost_port vp;
	uint64_t f;

	CHECK_EQ(vhost_port_init(&vp, "p0", VHOST_MODE_OFF, NULL, true), 0);
	force_usable(&vp, VHOST_MODE_AUTO);
	f = vhost_port_features(&vp, B(VIRTIO_F_VERSION_1) |
				B(VIRTIO_F_RING_PACKED) | B(VIRTIO_NET_F_CSUM));
	CHECK_EQ(f, B(VIRTIO_F_VERSION_1) | B(VIRTIO_NET_F_CSUM));
	CHECK_EQ(vhost_port_max_mem_slots(&vp, 509), 64);
}

static void test_adopt(void)
{
	struct vhost_decision d;
	struct vhost_port vp;

	memset(&d, 0, sizeof(d));
	d.mode = VHOST_MODE_AUTO;
	d.use = true;
	d.kernel_features = KERNEL_6_1;
	d.max_regions = 32;
	snprintf(d.reason, sizeof(d.reason), "decided by vnetd");
	vhost_port_adopt(&vp, "p0", &d, "/nonexistent");
	CHECK(vp.vk.use);
	CHECK(!strcmp(vp.vk.reason, "decided by vnetd"));
	CHECK_EQ(vhost_port_max_mem_slots(&vp, 509), 32);
	CHECK(!vhost_port_offloaded(&vp, 0));
	CHECK_EQ(vp.o[VNET_MAX_PAIRS - 1].fd, -1);
	vhost_port_adopt(&vp, "p0", NULL, NULL);
	CHECK(!vp.vk.use);
	CHECK_EQ(vhost_port_features(&vp, 0x1234), 0x1234);
}

/* auto: a refusal puts this connection on the userspace path, with reasons */
static void test_auto_fallback(void)
{
	struct vhost_port vp;
	int efd = eventfd(0, EFD_CLOEXEC);

	CHECK(efd >= 0);
	CHECK(!pairs_init());
	CHECK_EQ(vhost_port_init(&vp, "p0", VHOST_MODE_OFF, "/nonexistent",
				 true), 0);
	force_usable(&vp, VHOST_MODE_AUTO);
	/* one ring started: wait for the other, nothing decided yet */
	pairs[0].rx.started = true;
	CHECK_EQ(vhost_port_pair_start(&vp, &pairs[0], &mem, efd, NULL, -1), 0);
	CHECK(pairs[0].datapath == NULL);
	CHECK(!vp.fallback);
	/* both: the "TAP" (an eventfd) refuses the header size */
	pairs[0].tx.started = true;
	CHECK_EQ(vhost_port_pair_start(&vp, &pairs[0], &mem, efd, NULL, -1), 0);
	CHECK(!strcmp(pairs[0].datapath, "userspace"));
	CHECK(!strcmp(pairs[0].why, "vhost-net refused: TUNSETVNETHDRSZ: "
		      "Inappropriate ioctl for device"));
	CHECK(vp.fallback);
	CHECK(!vhost_port_offloaded(&vp, 0));
	/* the next pair does not even try */
	pairs[1].rx.started = pairs[1].tx.started = true;
	CHECK_EQ(vhost_port_pair_start(&vp, &pairs[1], &mem, efd, NULL, -1), 0);
	CHECK(!strcmp(pairs[1].why,
		      "vhost-net refused earlier on this connection"));
	/* a reconnect tries again */
	vhost_port_disconnect(&vp, pairs, 2);
	CHECK(!vp.fallback);
	CHECK(!strcmp(pairs[0].datapath, "idle"));
	CHECK(vp.vk.use);
	close(efd);
	pairs_fini();
}

/* on: a refusal is the connection's end */
static void test_on_refusal(void)
{
	struct vhost_port vp;
	int efd = eventfd(0, EFD_CLOEXEC);

	CHECK(efd >= 0);
	CHECK(!pairs_init());
	CHECK_EQ(vhost_port_init(&vp, "p0", VHOST_MODE_OFF, "/nonexistent",
				 true), 0);
	force_usable(&vp, VHOST_MODE_ON);
	pairs[0].rx.started = pairs[0].tx.started = true;
	CHECK_EQ(vhost_port_pair_start(&vp, &pairs[0], &mem, efd, NULL, -1),
		 -ENOTTY);
	CHECK(!strcmp(pairs[0].datapath, "idle"));
	CHECK(!vp.fallback);
	close(efd);
	pairs_fini();
}

/* The worker's unfinished chains must not be lost to the kernel */
static void test_in_flight_refused(void)
{
	struct vhost_port vp;

	CHECK(!pairs_init());
	CHECK_EQ(vhost_port_init(&vp, "p0", VHOST_MODE_OFF, "/nonexistent",
				 true), 0);
	force_usable(&vp, VHOST_MODE_AUTO);
	pairs[0].rx.started = pairs[0].tx.started = true;
	pairs[0].tx.vq.inflight = 3;
	CHECK_EQ(vhost_port_pair_start(&vp, &pairs[0], &mem, 0, NULL, -1), 0);
	CHECK(!strcmp(pairs[0].why,
		      "vhost-net refused: TX ring has 3 buffers in flight"));
	pairs[0].tx.vq.inflight = 0;
	pairs_fini();
}

int main(void)
{
	static uint8_t guest[65536];

	log_max_level = LOG_ERR;	/* the refusals log by design */
	gmem_init(&mem);
	if (gmem_add_region(&mem, 0x100000, sizeof(guest), 0x100000, guest)) {
		fprintf(stderr, "gmem_add_region failed\n");
		return 1;
	}
	RUN(test_off);
	RUN(test_no_queue_fd);
	RUN(test_decide_rule);
	RUN(test_missing_device);
	RUN(test_features_when_usable);
	RUN(test_adopt);
	RUN(test_auto_fallback);
	RUN(test_on_refusal);
	RUN(test_in_flight_refused);
	return test_exit();
}
