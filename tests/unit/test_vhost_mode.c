// SPDX-License-Identifier: MIT
/*
 * test_vhost_mode.c - the --vhost-net auto|on|off decision with an injected
 * device path (missing, a regular file, no permission), the exact operator
 * messages, and the feature rules. No /dev/vhost-net needed; the real device
 * is exercised in tests/guest/test-vhost-net.sh, the advice for a root:kvm
 * device (a file given to group kvm, read as uid 65534) in
 * tests/system/test_vhost_mode_root.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/vhost.h>
#include <linux/virtio_config.h>
#include <linux/virtio_net.h>
#include <linux/virtio_ring.h>

#include "testlib.h"
#include "gmem.h"
#include "util.h"
#include "vhost_kernel.h"
#include "vhost_mode.h"
#include "vhost_mode_testutil.h"

#define B(n)	(1ULL << (n))

/* What 6.1's vhost-net answers to VHOST_GET_FEATURES (measured in the guest) */
#define KERNEL_6_1	0x33d008000ULL

static void test_parse(void)
{
	enum vhost_mode m = VHOST_MODE_OFF;

	CHECK_EQ(vhost_mode_parse("auto", &m), 0);
	CHECK_EQ(m, VHOST_MODE_AUTO);
	CHECK_EQ(vhost_mode_parse("ON", &m), 0);
	CHECK_EQ(m, VHOST_MODE_ON);
	CHECK_EQ(vhost_mode_parse("off", &m), 0);
	CHECK_EQ(m, VHOST_MODE_OFF);
	CHECK_EQ(vhost_mode_parse("yes", &m), -EINVAL);
	CHECK_EQ(vhost_mode_parse("", &m), -EINVAL);
	CHECK_EQ(vhost_mode_parse(NULL, &m), -EINVAL);
	CHECK_EQ(m, VHOST_MODE_OFF);
	CHECK(!strcmp(vhost_mode_name(VHOST_MODE_AUTO), "auto"));
	CHECK(!strcmp(vhost_mode_name(VHOST_MODE_ON), "on"));
	CHECK(!strcmp(vhost_mode_name(VHOST_MODE_OFF), "off"));
}

static void test_off_never_probes(void)
{
	struct vhost_decision d;
	char path[128];

	snprintf(path, sizeof(path), "%s/absent", test_tmpdir);
	CHECK_EQ(vhost_mode_decide(&d, VHOST_MODE_OFF, path, NULL), 0);
	CHECK(!d.use);
	CHECK_EQ(d.err, 0);
	CHECK(!strcmp(d.reason, "--vhost-net off"));
	CHECK(!strcmp(d.msg, ""));
}

static void test_missing_auto(void)
{
	struct vhost_decision d;
	char path[128], want[192];

	snprintf(path, sizeof(path), "%s/absent", test_tmpdir);
	CHECK_EQ(vhost_mode_decide(&d, VHOST_MODE_AUTO, path, NULL), 0);
	CHECK(!d.use);
	CHECK_EQ(d.err, -ENOENT);
	snprintf(want, sizeof(want), "%s missing (No such file or directory)",
		 path);
	CHECK(!strcmp(d.reason, want));
	CHECK(!strcmp(d.msg, ""));	/* auto starts anyway */
}

static void test_missing_on(void)
{
	struct vhost_decision d;
	char path[128], want[512];

	snprintf(path, sizeof(path), "%s/absent", test_tmpdir);
	CHECK_EQ(vhost_mode_decide(&d, VHOST_MODE_ON, path, NULL), -ENOENT);
	CHECK(!d.use);
	snprintf(want, sizeof(want),
		 "--vhost-net on: %s is missing (No such file or directory). "
		 "Load the module with `modprobe vhost_net`, or start with "
		 "--vhost-net off.", path);
	if (strcmp(d.msg, want))
		fprintf(stderr, "  got:  %s\n  want: %s\n", d.msg, want);
	CHECK(!strcmp(d.msg, want));
}

static void test_regular_file_on(void)
{
	struct vhost_decision d;
	char path[128], want[512];

	CHECK(test_tmpdir_file("notadev", 0666, path, sizeof(path)));
	CHECK_EQ(vhost_mode_decide(&d, VHOST_MODE_ON, path, NULL), -ENOTTY);
	CHECK(!d.use);
	snprintf(want, sizeof(want),
		 "--vhost-net on: %s is unusable: VHOST_SET_OWNER failed: "
		 "Inappropriate ioctl for device (it is a regular file, not the "
		 "vhost-net device). Check that it is the vhost-net device "
		 "(char 10:238, `modprobe vhost_net`), or start with "
		 "--vhost-net off.", path);
	if (strcmp(d.msg, want))
		fprintf(stderr, "  got:  %s\n  want: %s\n", d.msg, want);
	CHECK(!strcmp(d.msg, want));
	snprintf(want, sizeof(want),
		 "%s: VHOST_SET_OWNER failed: Inappropriate ioctl for device",
		 path);
	CHECK(!strcmp(d.reason, want));
	/* auto: same probe, the port starts on the userspace path */
	CHECK_EQ(vhost_mode_decide(&d, VHOST_MODE_AUTO, path, NULL), 0);
	CHECK(!d.use);
	CHECK_EQ(d.err, -ENOTTY);
}

static void test_permission_denied_on(void)
{
	char path[128], want[1024], user[64], owner[160], group[64];
	struct vhost_decision d;
	struct passwd *pw;
	struct group *gr;
	mode_t mode = 0600;
	int ret = 0;

	CHECK(test_tmpdir_file("noperm", 0600, path, sizeof(path)));
	if (geteuid() == 0) {
		if (chmod(test_tmpdir, 0755))
			SKIP("chmod %s: %s", test_tmpdir, strerror(errno));
		CHECK_EQ(test_decide_as_nobody(path, &d, &ret), 0);
		pw = getpwuid(65534);
		snprintf(user, sizeof(user), "%s", pw ? pw->pw_name : "uid 65534");
		snprintf(group, sizeof(group), "root");
		snprintf(owner, sizeof(owner), "root:root");
	} else {
		/* not root: our own file with no permission at all */
		mode = 0;
		CHECK(chmod(path, mode) == 0);
		ret = vhost_mode_decide(&d, VHOST_MODE_ON, path, NULL);
		pw = getpwuid(geteuid());
		gr = getgrgid(getegid());
		if (!pw || !gr)
			SKIP("no passwd/group entry for uid %u", geteuid());
		snprintf(user, sizeof(user), "%s", pw->pw_name);
		snprintf(group, sizeof(group), "%s", gr->gr_name);
		snprintf(owner, sizeof(owner), "%s:%s", user, group);
	}
	CHECK_EQ(ret, -EACCES);
	CHECK(!d.use);
	snprintf(want, sizeof(want),
		 "--vhost-net on: %s cannot be opened: Permission denied for "
		 "user %s; the device is %s mode %04o. Add %s to group kvm (or "
		 "to the device's group %s), or start with --vhost-net off.",
		 path, user, owner, (unsigned int)mode, user, group);
	if (strcmp(d.msg, want))
		fprintf(stderr, "  got:  %s\n  want: %s\n", d.msg, want);
	CHECK(!strcmp(d.msg, want));
	snprintf(want, sizeof(want), "%s: Permission denied for user %s",
		 path, user);
	CHECK(!strcmp(d.reason, want));
}

/* Whatever this host has: the decision must agree with what the device does */
static void test_host_device(void)
{
	struct vhost_decision d;
	int ret = vhost_mode_decide(&d, VHOST_MODE_AUTO, NULL, NULL);

	CHECK_EQ(ret, 0);
	CHECK(!strcmp(d.dev, "/dev/vhost-net"));
	if (access("/dev/vhost-net", F_OK)) {
		CHECK(!d.use);
		CHECK_EQ(d.err, -ENOENT);
		CHECK_EQ(vhost_mode_decide(&d, VHOST_MODE_ON, NULL, NULL), -ENOENT);
		CHECK(strstr(d.msg, "modprobe vhost_net"));
		CHECK(strstr(d.msg, "--vhost-net off"));
		return;
	}
	if (d.use) {
		CHECK(d.kernel_features & B(VIRTIO_F_VERSION_1));
		CHECK(d.max_regions > 0 && d.max_regions <= GMEM_MAX_REGIONS);
	} else {
		CHECK(d.err < 0);
		CHECK(d.reason[0]);
	}
}

static void test_max_regions(void)
{
	struct vhost_decision d;
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/absent", test_tmpdir);
	CHECK_EQ(vhost_kernel_max_mem_regions(path), 64);
	snprintf(path, sizeof(path), "%s/maxreg", test_tmpdir);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	CHECK(fd >= 0);
	CHECK(write(fd, "8\n", 2) == 2);
	close(fd);
	CHECK_EQ(vhost_kernel_max_mem_regions(path), 8);
	fd = open(path, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0);
	CHECK(write(fd, "100000\n", 7) == 7);
	close(fd);
	CHECK_EQ(vhost_kernel_max_mem_regions(path), GMEM_MAX_REGIONS);
	fd = open(path, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0);
	CHECK(write(fd, "junk\n", 5) == 5);
	close(fd);
	CHECK_EQ(vhost_kernel_max_mem_regions(path), 64);

	memset(&d, 0, sizeof(d));
	CHECK_EQ(vhost_mode_max_mem_slots(&d, 509), 509);
	d.use = true;
	d.max_regions = 64;
	CHECK_EQ(vhost_mode_max_mem_slots(&d, 509), 64);
	CHECK_EQ(vhost_mode_max_mem_slots(&d, 32), 32);
}

static void test_features_offered(void)
{
	uint64_t dev_bits = B(VIRTIO_NET_F_CSUM) | B(VIRTIO_NET_F_GUEST_CSUM) |
			    B(VIRTIO_NET_F_GUEST_TSO4) | B(VIRTIO_NET_F_HOST_TSO4) |
			    B(VIRTIO_NET_F_MAC) | B(VIRTIO_NET_F_STATUS) |
			    B(VIRTIO_NET_F_MQ) | B(VIRTIO_NET_F_CTRL_VQ) |
			    B(VIRTIO_NET_F_MTU) | B(30) /* PROTOCOL_FEATURES */;
	uint64_t ring = B(VIRTIO_F_VERSION_1) | B(VIRTIO_RING_F_EVENT_IDX) |
			B(VIRTIO_RING_F_INDIRECT_DESC) | B(VIRTIO_NET_F_MRG_RXBUF) |
			B(VHOST_F_LOG_ALL);
	uint64_t never = B(VIRTIO_F_RING_PACKED) | B(VIRTIO_F_IN_ORDER) |
			 B(VIRTIO_F_ACCESS_PLATFORM) | B(VIRTIO_F_RING_RESET) |
			 B(VIRTIO_NET_F_RSS) | B(VIRTIO_NET_F_HASH_REPORT);
	uint64_t offered = dev_bits | ring | never;
	uint64_t f;

	f = vhost_mode_features(offered, KERNEL_6_1);
	CHECK_EQ(f, dev_bits | ring);
	/* packed ring never, even if a future kernel offers it */
	f = vhost_mode_features(offered, KERNEL_6_1 | B(VIRTIO_F_RING_PACKED) |
				B(VIRTIO_F_IN_ORDER));
	CHECK_EQ(f & never, 0);
	/* a kernel without EVENT_IDX / MRG_RXBUF: those go, device bits stay */
	f = vhost_mode_features(offered, KERNEL_6_1 & ~B(VIRTIO_RING_F_EVENT_IDX) &
				~B(VIRTIO_NET_F_MRG_RXBUF));
	CHECK_EQ(f, (dev_bits | ring) & ~B(VIRTIO_RING_F_EVENT_IDX) &
		 ~B(VIRTIO_NET_F_MRG_RXBUF));
	/* never adds anything vnetd did not offer */
	CHECK_EQ(vhost_mode_features(0, ~0ULL), 0);
	CHECK_EQ(vhost_mode_features(dev_bits, 0), dev_bits);
	CHECK(vhost_mode_ring_bits() & B(VIRTIO_NET_F_MRG_RXBUF));
	CHECK_EQ(vhost_mode_ring_bits() & dev_bits, 0);
}

static void test_features_kernel(void)
{
	uint64_t neg = B(VIRTIO_F_VERSION_1) | B(VIRTIO_RING_F_EVENT_IDX) |
		       B(VIRTIO_NET_F_MRG_RXBUF) | B(VIRTIO_NET_F_CSUM) |
		       B(VIRTIO_NET_F_GUEST_TSO4) | B(30) | B(VIRTIO_F_ANY_LAYOUT);
	uint64_t k = vhost_mode_kernel_features(neg, KERNEL_6_1);

	CHECK_EQ(k, B(VIRTIO_F_VERSION_1) | B(VIRTIO_RING_F_EVENT_IDX) |
		 B(VIRTIO_NET_F_MRG_RXBUF));
	/* the TAP owns the vnet header: never VHOST_NET_F_VIRTIO_NET_HDR */
	CHECK_EQ(k & B(VHOST_NET_F_VIRTIO_NET_HDR), 0);
	CHECK_EQ(k & ~KERNEL_6_1, 0);
	k = vhost_mode_kernel_features(neg | B(VHOST_F_LOG_ALL), KERNEL_6_1);
	CHECK(k & B(VHOST_F_LOG_ALL));
}

/* The ioctl wrappers turn a bad fd or a non-vhost fd into -errno */
static void test_kernel_wrappers_errno(void)
{
	struct gmem *m = calloc(1, sizeof(*m));
	unsigned int base = 7;
	uint64_t f = 0;
	char path[128];
	int fd;

	CHECK(m);
	CHECK_EQ(vhost_kernel_set_owner(-1), -EBADF);
	CHECK_EQ(vhost_kernel_get_features(-1, &f), -EBADF);
	CHECK_EQ(vhost_kernel_get_vring_base(-1, 0, &base), -EBADF);
	CHECK_EQ(base, 7);
	CHECK_EQ(vhost_kernel_set_vring_addr(-1, 0, NULL, NULL, NULL, 0, false),
		 -EINVAL);
	m->nregions = 65;
	CHECK_EQ(vhost_kernel_set_mem_table(-1, m, 64), -E2BIG);
	m->nregions = 1;
	m->regions[0].gpa = 0;
	m->regions[0].size = 4096;
	m->regions[0].host = NULL;	/* not mapped by us */
	CHECK_EQ(vhost_kernel_set_mem_table(-1, m, 64), -EINVAL);
	free(m);
	CHECK(test_tmpdir_file("plain", 0644, path, sizeof(path)));
	fd = vhost_kernel_open(path);
	CHECK(fd >= 0);
	CHECK_EQ(vhost_kernel_net_set_backend(fd, 0, -1), -ENOTTY);
	CHECK_EQ(vhost_kernel_set_vring_kick(fd, 1, -1), -ENOTTY);
	vhost_kernel_close(fd);
	snprintf(path, sizeof(path), "%s/absent", test_tmpdir);
	CHECK_EQ(vhost_kernel_open(path), -ENOENT);
}

int main(void)
{
	test_tmpdir_make();
	if (!test_tmpdir[0]) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_parse);
	RUN(test_off_never_probes);
	RUN(test_missing_auto);
	RUN(test_missing_on);
	RUN(test_regular_file_on);
	RUN(test_permission_denied_on);
	RUN(test_host_device);
	RUN(test_max_regions);
	RUN(test_features_offered);
	RUN(test_features_kernel);
	RUN(test_kernel_wrappers_errno);
	test_tmpdir_remove();
	return test_exit();
}
