// SPDX-License-Identifier: MIT
/*
 * test_vhost_pair_tap.c - what vhost_pair refuses with a real TAP queue
 * but without the kernel's vhost-net: a missing device, a file that is not
 * the device; each with -errno, a reason, no fd left open and the rings
 * untouched. (Refusals before the TAP: tests/unit/test_vhost_pair.c.)
 */
/* needs: root tun */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "testlib.h"
#include "gmem.h"
#include "vhost_pair.h"
#include "pair_testutil.h"

static struct gmem mem;

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
static void test_refuse_device(void)
{
	char path[64], want[128];
	struct vhost_pair o;
	struct vnet_pair p;
	int tap, fd0, f;

	tap = tap_open();
	if (tap < 0)
		SKIP("cannot create a TAP (needs CAP_NET_ADMIN and /dev/net/tun)");
	CHECK(!test_pair_init(&p, &mem));
	vhost_pair_init(&o);
	fd0 = test_next_fd();
	snprintf(path, sizeof(path), "/tmp/vnet-vk-absent-%d", (int)getpid());
	CHECK_EQ(vhost_pair_start(&o, path, &p, &mem, 64, tap, NULL, -1),
		 -ENOENT);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	CHECK(!strcmp(o.why.msg, want));
	CHECK(!vhost_pair_running(&o));
	CHECK_EQ(test_next_fd(), fd0);

	snprintf(path, sizeof(path), "/tmp/vnet-vk-file-%d", (int)getpid());
	f = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	CHECK(f >= 0);
	close(f);
	CHECK_EQ(vhost_pair_start(&o, path, &p, &mem, 64, tap, NULL, -1),
		 -ENOTTY);
	unlink(path);
	CHECK(!strcmp(o.why.msg, "VHOST_SET_OWNER: Inappropriate ioctl for device"));
	CHECK(!vhost_pair_running(&o));
	CHECK_EQ(test_next_fd(), fd0);
	CHECK_EQ(vq_get_base(&p.rx.vq), 7);
	CHECK_EQ(vq_get_base(&p.tx.vq), 9);
	close(tap);
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
	RUN(test_refuse_device);
	return test_exit();
}
