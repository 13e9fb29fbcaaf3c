// SPDX-License-Identifier: MIT
/*
 * test_vhost_pair.c - what vhost_pair refuses before or without the
 * kernel: packed or unconfigured rings, polled rings, bad header sizes, no
 * TAP, a missing device, a file that is not the device; every refusal with
 * -errno, a reason, no fd left open and the rings untouched. The real
 * kernel path runs in tests/guest/test-vhost-net.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <linux/virtio_config.h>
#include <net/if.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "testlib.h"
#include "gmem.h"
#include "vhost_pair.h"

#define NUM	64
#define F_V1	(1ULL << VIRTIO_F_VERSION_1)

static struct gmem mem;
static void *ring_mem[2][3];

/* A configured device-side split ring with eventfds, base @base */
static int ring_init(struct vnet_ring *r, int which, uint16_t base)
{
	uint64_t len[3];
	int i;

	memset(r, 0, sizeof(*r));
	if (vq_init(&r->vq, VQ_SPLIT, NUM, F_V1))
		return -1;
	vq_ring_sizes(VQ_SPLIT, NUM, &len[0], &len[1], &len[2]);
	for (i = 0; i < 3; i++) {
		ring_mem[which][i] = aligned_alloc(4096, 4096);
		if (!ring_mem[which][i] || len[i] > 4096)
			return -1;
		memset(ring_mem[which][i], 0, 4096);
	}
	if (vq_set_addr(&r->vq, ring_mem[which][0], ring_mem[which][1],
			ring_mem[which][2]))
		return -1;
	vq_set_mem(&r->vq, &mem);
	vq_set_base(&r->vq, base);
	r->kick_fd = eventfd(0, EFD_CLOEXEC);
	r->call_fd = eventfd(0, EFD_CLOEXEC);
	r->err_fd = -1;
	r->enabled = true;
	return r->kick_fd < 0 || r->call_fd < 0 ? -1 : 0;
}

static void ring_fini(struct vnet_ring *r, int which)
{
	int i;

	close(r->kick_fd);
	close(r->call_fd);
	vq_cleanup(&r->vq);
	for (i = 0; i < 3; i++)
		free(ring_mem[which][i]);
}

static int pair_init(struct vnet_pair *p)
{
	memset(p, 0, sizeof(*p));
	p->features = F_V1;
	p->hdr_len = 12;
	return ring_init(&p->rx, 0, 7) || ring_init(&p->tx, 1, 9) ? -1 : 0;
}

static void pair_fini(struct vnet_pair *p)
{
	ring_fini(&p->rx, 0);
	ring_fini(&p->tx, 1);
}

/* A TAP queue with a vnet header, or -1 (no CAP_NET_ADMIN / no tun) */
static int tap_open(void)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR };
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "vkut%d", (int)getpid());
	if (ioctl(fd, TUNSETIFF, &ifr)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Lowest free fd number: an fd leak shows as a higher number */
static int next_fd(void)
{
	int fd = dup(0), n = fd;

	if (fd >= 0)
		close(fd);
	return n;
}

static void test_idle_slot(void)
{
	struct vhost_pair o;
	struct vnet_pair p;
	uint32_t base = 5;

	CHECK(!pair_init(&p));
	vhost_pair_init(&o);
	CHECK(!vhost_pair_running(&o));
	CHECK_EQ(vhost_pair_stop(&o, &p), 0);
	CHECK_EQ(vhost_pair_ring_stop(&o, VHOST_OFFLOAD_RX, &base), -EINVAL);
	CHECK_EQ(base, 5);
	CHECK_EQ(vhost_pair_ring_enable(&o, VHOST_OFFLOAD_TX, true), -EINVAL);
	CHECK_EQ(vhost_pair_set_mem(&o, &p, &mem), -EINVAL);
	CHECK_EQ(vhost_pair_set_ring_fds(&o, VHOST_OFFLOAD_RX, &p.rx), -EINVAL);
	CHECK_EQ(vhost_pair_set_log(&o, &p, &mem, NULL, -1), -EINVAL);
	CHECK_EQ(vq_get_base(&p.rx.vq), 7);
	/* a running slot is never started twice (fd faked) */
	o.fd = 1000;
	CHECK_EQ(vhost_pair_start(&o, "/nonexistent", &p, &mem, 64, 0, NULL,
				     -1), -EBUSY);
	CHECK_EQ(o.fd, 1000);
	CHECK(!strcmp(o.why.msg, "pair already offloaded: Device or resource busy"));
	pair_fini(&p);
}

static void test_refuse_ring_state(void)
{
	struct vhost_pair o;
	struct vnet_pair p;
	int fd0, kick;

	CHECK(!pair_init(&p));
	vhost_pair_init(&o);
	fd0 = next_fd();
	p.rx.vq.layout = VQ_PACKED;
	CHECK_EQ(vhost_pair_start(&o, "/nonexistent", &p, &mem, 64, 0, NULL,
				     -1), -EOPNOTSUPP);
	CHECK(!strcmp(o.why.msg, "RX ring is packed"));
	p.rx.vq.layout = VQ_SPLIT;

	kick = p.tx.kick_fd;
	p.tx.kick_fd = -1;
	CHECK_EQ(vhost_pair_start(&o, "/nonexistent", &p, &mem, 64, 0, NULL,
				     -1), -EINVAL);
	CHECK(!strcmp(o.why.msg, "TX ring has no kick eventfd (polled)"));
	p.tx.kick_fd = kick;

	p.tx.vq.split.used = NULL;
	CHECK_EQ(vhost_pair_start(&o, "/nonexistent", &p, &mem, 64, 0, NULL,
				     -1), -EINVAL);
	CHECK(!strcmp(o.why.msg, "TX ring not configured"));
	p.tx.vq.split.used = ring_mem[1][2];

	p.hdr_len = 14;
	CHECK_EQ(vhost_pair_start(&o, "/nonexistent", &p, &mem, 64, 0, NULL,
				     -1), -EINVAL);
	CHECK(!strcmp(o.why.msg, "vnet header size: Invalid argument"));
	p.hdr_len = 12;

	CHECK_EQ(vhost_pair_start(&o, "/nonexistent", &p, &mem, 64, -1, NULL,
				     -1), -EBADF);
	CHECK(!strcmp(o.why.msg, "no TAP queue fd: Bad file descriptor"));
	CHECK(!vhost_pair_running(&o));
	CHECK_EQ(next_fd(), fd0);
	CHECK_EQ(vq_get_base(&p.rx.vq), 7);
	CHECK_EQ(vq_get_base(&p.tx.vq), 9);
	pair_fini(&p);
}

static void test_refuse_not_a_tap(void)
{
	struct vhost_pair o;
	struct vnet_pair p;
	int efd = eventfd(0, EFD_CLOEXEC);

	CHECK(!pair_init(&p));
	vhost_pair_init(&o);
	CHECK(efd >= 0);
	/* the vnet header size is set on the TAP first: an eventfd refuses */
	CHECK_EQ(vhost_pair_start(&o, "/nonexistent", &p, &mem, 64, efd,
				     NULL, -1), -ENOTTY);
	CHECK(!strncmp(o.why.msg, "TUNSETVNETHDRSZ: ", 17));
	close(efd);
	pair_fini(&p);
}

static void test_refuse_device(void)
{
	char path[64], want[128];
	struct vhost_pair o;
	struct vnet_pair p;
	int tap, fd0, f;

	tap = tap_open();
	if (tap < 0)
		SKIP("cannot create a TAP (needs CAP_NET_ADMIN and /dev/net/tun)");
	CHECK(!pair_init(&p));
	vhost_pair_init(&o);
	fd0 = next_fd();
	snprintf(path, sizeof(path), "/tmp/vnet-vk-absent-%d", (int)getpid());
	CHECK_EQ(vhost_pair_start(&o, path, &p, &mem, 64, tap, NULL, -1),
		 -ENOENT);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	CHECK(!strcmp(o.why.msg, want));
	CHECK(!vhost_pair_running(&o));
	CHECK_EQ(next_fd(), fd0);

	snprintf(path, sizeof(path), "/tmp/vnet-vk-file-%d", (int)getpid());
	f = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	CHECK(f >= 0);
	close(f);
	CHECK_EQ(vhost_pair_start(&o, path, &p, &mem, 64, tap, NULL, -1),
		 -ENOTTY);
	unlink(path);
	CHECK(!strcmp(o.why.msg, "VHOST_SET_OWNER: Inappropriate ioctl for device"));
	CHECK(!vhost_pair_running(&o));
	CHECK_EQ(next_fd(), fd0);
	CHECK_EQ(vq_get_base(&p.rx.vq), 7);
	CHECK_EQ(vq_get_base(&p.tx.vq), 9);
	close(tap);
	pair_fini(&p);
}

int main(void)
{
	static uint8_t guest[65536];

	gmem_init(&mem);
	if (gmem_add_region(&mem, 0x100000, sizeof(guest), 0x100000, guest)) {
		fprintf(stderr, "gmem_add_region failed\n");
		return 1;
	}
	RUN(test_idle_slot);
	RUN(test_refuse_ring_state);
	RUN(test_refuse_not_a_tap);
	RUN(test_refuse_device);
	return test_exit();
}
