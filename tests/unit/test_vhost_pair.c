// SPDX-License-Identifier: MIT
/*
 * test_vhost_pair.c - what vhost_pair refuses before or without the
 * kernel: packed or unconfigured rings, polled rings, bad header sizes, no
 * TAP; every refusal with -errno, a reason, no fd left open and the rings
 * untouched. A missing device or a file that is not the device, with a real
 * TAP: tests/system/test_vhost_pair_tap.c. The real kernel path runs in
 * tests/guest/test-vhost-net.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/virtio_config.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "testlib.h"
#include "gmem.h"
#include "vhost_pair.h"
#include "pair_testutil.h"

static struct gmem mem;

static void test_idle_slot(void)
{
	struct vhost_pair o;
	struct vnet_pair p;
	uint32_t base = 5;

	CHECK(!test_pair_init(&p, &mem));
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
	test_pair_fini(&p);
}

static void test_refuse_ring_state(void)
{
	struct vhost_pair o;
	struct vnet_pair p;
	int fd0, kick;

	CHECK(!test_pair_init(&p, &mem));
	vhost_pair_init(&o);
	fd0 = test_next_fd();
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
	p.tx.vq.split.used = test_ring_mem[1][2];

	p.hdr_len = 14;
	CHECK_EQ(vhost_pair_start(&o, "/nonexistent", &p, &mem, 64, 0, NULL,
				     -1), -EINVAL);
	CHECK(!strcmp(o.why.msg, "vnet header size: Invalid argument"));
	p.hdr_len = 12;

	CHECK_EQ(vhost_pair_start(&o, "/nonexistent", &p, &mem, 64, -1, NULL,
				     -1), -EBADF);
	CHECK(!strcmp(o.why.msg, "no TAP queue fd: Bad file descriptor"));
	CHECK(!vhost_pair_running(&o));
	CHECK_EQ(test_next_fd(), fd0);
	CHECK_EQ(vq_get_base(&p.rx.vq), 7);
	CHECK_EQ(vq_get_base(&p.tx.vq), 9);
	test_pair_fini(&p);
}

static void test_refuse_not_a_tap(void)
{
	struct vhost_pair o;
	struct vnet_pair p;
	int efd = eventfd(0, EFD_CLOEXEC);

	CHECK(!test_pair_init(&p, &mem));
	vhost_pair_init(&o);
	CHECK(efd >= 0);
	/* the vnet header size is set on the TAP first: an eventfd refuses */
	CHECK_EQ(vhost_pair_start(&o, "/nonexistent", &p, &mem, 64, efd,
				     NULL, -1), -ENOTTY);
	CHECK(!strncmp(o.why.msg, "TUNSETVNETHDRSZ: ", 17));
	close(efd);
	test_pair_fini(&p);
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
	return test_exit();
}
