// SPDX-License-Identifier: MIT
/*
 * test_plan.c - the queue policy (each rule, and the refusals with their
 * exact sentences) and the argument generators of plan.c.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "plan.h"
#include "util.h"
#include "testlib.h"

#define AVAIL	true
#define NOVH	false

struct policy_row {
	const char *name;
	unsigned int vcpus;
	unsigned int cap;
	enum plan_vhost vhost;
	bool avail;
	const char *queues;
	int ret;
	unsigned int pairs;
	const char *msg;	/* exact error, or exact first note/warning */
	bool is_warning;
};

static const struct policy_row policy_rows[] = {
	{ "default = vCPUs", 8, 16, PLAN_VHOST_AUTO, AVAIL, NULL, 0, 8, NULL, false },
	{ "default capped at 16", 32, 16, PLAN_VHOST_AUTO, AVAIL, NULL, 0, 16, NULL, false },
	{ "raising the cap does not raise the default", 32, 64, PLAN_VHOST_ON, AVAIL,
	  NULL, 0, 16, NULL, false },
	{ "lowering the cap lowers the default", 8, 4, PLAN_VHOST_AUTO, AVAIL, NULL, 0, 4,
	  "4 queue pairs: the node cap max_queues=4 is below the VM's 8 vCPUs", false },
	{ "one vCPU, one pair", 1, 16, PLAN_VHOST_AUTO, AVAIL, NULL, 0, 1, NULL, false },
	{ "vhost off: default 1", 8, 16, PLAN_VHOST_OFF, AVAIL, NULL, 0, 1, NULL, false },
	{ "vhost off: explicit honoured", 8, 16, PLAN_VHOST_OFF, NOVH, "4", 0, 4, NULL, false },
	{ "auto without vhost degrades with a warning", 8, 16, PLAN_VHOST_AUTO, NOVH,
	  NULL, 0, 1,
	  "vhost is not available (test says no): falling back to vhost off, 1 queue pair by default",
	  true },
	{ "explicit on without vhost fails", 8, 16, PLAN_VHOST_ON, NOVH, NULL, -ENODEV, 0,
	  "vhost was requested (--vhost on) but cannot be used: test says no", false },
	{ "explicit count honoured", 8, 16, PLAN_VHOST_AUTO, AVAIL, "4", 0, 4, NULL, false },
	{ "explicit count = cap", 16, 16, PLAN_VHOST_AUTO, AVAIL, "16", 0, 16, NULL, false },
	{ "explicit 1", 8, 16, PLAN_VHOST_AUTO, AVAIL, "1", 0, 1, NULL, false },
	{ "raising the cap widens what may be asked", 8, 64, PLAN_VHOST_AUTO, AVAIL, "32",
	  0, 32,
	  "32 queue pairs for 8 vCPUs: the extra pairs stay idle until the VM gets more vCPUs",
	  false },
	{ "more pairs than vCPUs: a note", 2, 16, PLAN_VHOST_AUTO, AVAIL, "4", 0, 4,
	  "4 queue pairs for 2 vCPUs: the extra pairs stay idle until the VM gets more vCPUs",
	  false },
	{ "above the cap refused", 8, 16, PLAN_VHOST_AUTO, AVAIL, "17", -ERANGE, 0,
	  "queue count 17 exceeds the node cap max_queues=16: ask for 1 to 16 queue pairs, or raise the cap",
	  false },
	{ "above a lowered cap refused", 8, 4, PLAN_VHOST_AUTO, AVAIL, "8", -ERANGE, 0,
	  "queue count 8 exceeds the node cap max_queues=4: ask for 1 to 4 queue pairs, or raise the cap",
	  false },
	{ "huge refused", 8, 16, PLAN_VHOST_AUTO, AVAIL, "99999999999999999999", -ERANGE, 0,
	  "queue count 99999999999999999999 exceeds the node cap max_queues=16: ask for 1 to 16 queue pairs, or raise the cap",
	  false },
	{ "zero refused", 8, 16, PLAN_VHOST_AUTO, AVAIL, "0", -EINVAL, 0,
	  "queue count 0 is refused: a VM needs at least 1 queue pair (allowed 1 to 16, node cap max_queues=16)",
	  false },
	{ "negative refused", 8, 16, PLAN_VHOST_AUTO, AVAIL, "-2", -EINVAL, 0,
	  "queue count -2 is negative: give a whole number from 1 to 16 (node cap max_queues=16)",
	  false },
	{ "non-numeric refused", 8, 16, PLAN_VHOST_AUTO, AVAIL, "four", -EINVAL, 0,
	  "queue count 'four' is not a number: give a whole number from 1 to 16 (node cap max_queues=16)",
	  false },
	{ "trailing garbage refused", 8, 16, PLAN_VHOST_AUTO, AVAIL, "4x", -EINVAL, 0,
	  "queue count '4x' is not a number: give a whole number from 1 to 16 (node cap max_queues=16)",
	  false },
	{ "plus sign refused", 8, 16, PLAN_VHOST_AUTO, AVAIL, "+4", -EINVAL, 0,
	  "queue count '+4' is not a number: give a whole number from 1 to 16 (node cap max_queues=16)",
	  false },
	{ "lone minus refused", 8, 16, PLAN_VHOST_AUTO, AVAIL, "-", -EINVAL, 0,
	  "queue count '-' is not a number: give a whole number from 1 to 16 (node cap max_queues=16)",
	  false },
	{ "empty refused", 8, 16, PLAN_VHOST_AUTO, AVAIL, "", -EINVAL, 0,
	  "queue count is empty: give a whole number from 1 to 16 (node cap max_queues=16)",
	  false },
	{ "zero vCPUs refused", 0, 16, PLAN_VHOST_AUTO, AVAIL, NULL, -EINVAL, 0,
	  "vcpus 0 is out of range (allowed 1..1024)", false },
	{ "cap 0 refused", 8, 0, PLAN_VHOST_AUTO, AVAIL, NULL, -EINVAL, 0,
	  "node cap max_queues=0 is out of range (allowed 1..64)", false },
	{ "cap 65 refused", 8, 65, PLAN_VHOST_AUTO, AVAIL, NULL, -EINVAL, 0,
	  "node cap max_queues=65 is out of range (allowed 1..64)", false },
};

static void check_policy_row(const struct policy_row *r)
{
	struct plan_policy_in in = {
		.vcpus = r->vcpus, .max_queues = r->cap, .vhost = r->vhost,
		.vhost_available = r->avail, .vhost_why = "test says no",
		.queues = r->queues,
	};
	struct plan_policy_out out;
	struct reason why = { 0 };
	int ret = plan_policy(&in, &out, &why);
	const char *msg;

	CHECK_EQ(ret, r->ret);
	if (ret) {
		CHECK_EQ(why.err, ret);
		CHECK(!strcmp(why.msg, r->msg));
		return;
	}
	CHECK_EQ(out.pairs, r->pairs);
	CHECK_EQ(out.vectors, 2 * r->pairs + 2);
	if (!r->msg) {
		CHECK_EQ(out.nnotes + out.nwarnings, 0);
		return;
	}
	msg = r->is_warning ? out.warnings[0] : out.notes[0];
	CHECK_EQ(r->is_warning ? out.nwarnings : out.nnotes, 1);
	CHECK(!strcmp(msg, r->msg));
}

/* One TAP line per policy row, counted like RUN() cases */
static void run_policy_rows(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(policy_rows); i++) {
		t_case_failed = 0;
		t_num++;
		check_policy_row(&policy_rows[i]);
		if (t_case_failed)
			t_failed++;
		printf("%sok %d - policy: %s\n", t_case_failed ? "not " : "",
		       t_num, policy_rows[i].name);
		fflush(stdout);
	}
}

static void test_policy_vhost_flag(void)
{
	struct plan_policy_in in = { .vcpus = 4, .max_queues = 16,
				     .vhost = PLAN_VHOST_OFF };
	struct plan_policy_out out;
	struct reason why = { 0 };

	CHECK_EQ(plan_policy(&in, &out, &why), 0);
	CHECK(!out.vhost);
	in.vhost = PLAN_VHOST_AUTO;
	in.vhost_available = true;
	CHECK_EQ(plan_policy(&in, &out, &why), 0);
	CHECK(out.vhost);
	CHECK_EQ(out.pairs, 4);
}

struct uint_row {
	const char *s;
	int ret;
	unsigned int v;
	const char *msg;
};

static void test_parse_uint(void)
{
	static const struct uint_row rows[] = {
		{ "8", 0, 8, NULL },
		{ "1024", 0, 1024, NULL },
		{ "1025", -EINVAL, 0, "--vcpus 1025 is out of range (allowed 1..1024)" },
		{ "0", -EINVAL, 0, "--vcpus 0 is out of range (allowed 1..1024)" },
		{ "-3", -EINVAL, 0, "--vcpus -3 is negative (allowed 1..1024)" },
		{ "x", -EINVAL, 0, "--vcpus 'x' is not a number (allowed 1..1024)" },
		{ "", -EINVAL, 0, "--vcpus needs a value (allowed 1..1024)" },
		{ "4294967296", -EINVAL, 0,
		  "--vcpus 4294967296 is out of range (allowed 1..1024)" },
	};
	struct reason why = { 0 };
	unsigned int v;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		v = 0;
		reason_clear(&why);
		CHECK_EQ(plan_parse_uint("--vcpus", rows[i].s, 1, 1024, &v, &why),
			 rows[i].ret);
		CHECK_EQ(why.err, rows[i].ret);
		if (rows[i].ret)
			CHECK(!strcmp(why.msg, rows[i].msg));
		else
			CHECK_EQ(v, rows[i].v);
	}
}

static void test_qemu_version(void)
{
	unsigned int a = 0, b = 0;

	CHECK_EQ(plan_qemu_version_parse(
		"QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7)\nCopyright", &a, &b), 0);
	CHECK_EQ(a, 7);
	CHECK_EQ(b, 2);
	CHECK_EQ(plan_qemu_version_parse("9.2", &a, &b), 0);
	CHECK_EQ(a, 9);
	CHECK_EQ(b, 2);
	CHECK_EQ(plan_qemu_version_parse("10.0.2", &a, &b), 0);
	CHECK_EQ(a, 10);
	CHECK_EQ(plan_qemu_version_parse("nine", &a, &b), -EINVAL);
	CHECK_EQ(plan_qemu_version_parse("9", &a, &b), -EINVAL);
}

/* ---- generators ----------------------------------------------------------- */

static struct plan_policy_out mkpol(unsigned int pairs, bool vhost)
{
	struct plan_policy_out p;

	memset(&p, 0, sizeof(p));
	p.pairs = pairs;
	p.vectors = 2 * pairs + 2;
	p.vhost = vhost;
	return p;
}

static const struct plan_policy_in in8 = { .vcpus = 8, .max_queues = 16 };

static struct plan_vm mkvm(enum plan_backend host)
{
	struct plan_vm vm = {
		.backend = host, .id = "net0", .socket = "/run/vnetd/vm1.sock",
		.tap = "vnt-net0", .memory = "2G", .qemu_major = 7, .qemu_minor = 2,
	};
	return vm;
}

static bool args_have(const struct plan_args *a, const char *needle)
{
	int i;

	for (i = 0; i < a->argc; i++)
		if (strstr(a->argv[i], needle))
			return true;
	return false;
}

static bool args_eq(const struct plan_args *a, const char *const *want, int n)
{
	int i;

	if (a->argc != n)
		return false;
	for (i = 0; i < n; i++)
		if (strcmp(a->argv[i], want[i])) {
			fprintf(stderr, "  arg %d: '%s' != '%s'\n", i, a->argv[i],
				want[i]);
			return false;
		}
	return true;
}

static void test_qemu_single_pair_exact(void)
{
	static const char *const want[] = {
		"-m", "2G", "-smp", "8",
		"-object", "memory-backend-memfd,id=mem-net0,size=2G,share=on",
		"-machine", "memory-backend=mem-net0",
		"-chardev", "socket,id=chr-net0,path=/run/vnetd/vm1.sock,reconnect=1",
		"-netdev", "vhost-user,id=net0,chardev=chr-net0",
		"-device", "virtio-net-pci,netdev=net0",
	};
	struct plan_vm vm = mkvm(PLAN_BACKEND_VHOST_USER);
	struct plan_policy_out pol = mkpol(1, true);
	static struct plan_args a;

	CHECK_EQ(plan_qemu_args(&vm, &in8, &pol, &a), 0);
	CHECK(args_eq(&a, want, (int)ARRAY_SIZE(want)));
	CHECK(!args_have(&a, "queues="));
	CHECK(!args_have(&a, "mq="));
	CHECK(!args_have(&a, "vectors="));
}

/* A second NIC of the same VM: nothing of the VM's (RAM, vCPUs) again */
static void test_qemu_nic_only(void)
{
	static const char *const want[] = {
		"-chardev", "socket,id=chr-net1,path=/run/vnetd/vm1.sock,reconnect=1",
		"-netdev", "vhost-user,id=net1,chardev=chr-net1",
		"-device", "virtio-net-pci,netdev=net1",
	};
	struct plan_vm vm = mkvm(PLAN_BACKEND_VHOST_USER);
	struct plan_policy_out pol = mkpol(1, true);
	static struct plan_args a;

	vm.id = "net1";
	vm.nic_only = true;
	CHECK_EQ(plan_qemu_args(&vm, &in8, &pol, &a), 0);
	CHECK(args_eq(&a, want, (int)ARRAY_SIZE(want)));
	vm = mkvm(PLAN_BACKEND_TAP);
	vm.nic_only = true;
	CHECK_EQ(plan_qemu_args(&vm, &in8, &pol, &a), 0);
	CHECK(!args_have(&a, "-m"));
	CHECK(!args_have(&a, "-smp"));
}

static void test_qemu_multiqueue(void)
{
	struct plan_vm vm = mkvm(PLAN_BACKEND_VHOST_USER);
	struct plan_policy_out pol = mkpol(4, true);
	static struct plan_args a;

	vm.mac = "52:54:00:00:00:01";
	CHECK_EQ(plan_qemu_args(&vm, &in8, &pol, &a), 0);
	CHECK(args_have(&a, "vhost-user,id=net0,chardev=chr-net0,queues=4"));
	CHECK(args_have(&a, "virtio-net-pci,netdev=net0,mac=52:54:00:00:00:01,mq=on,vectors=10"));
	pol = mkpol(64, true);
	CHECK_EQ(plan_qemu_args(&vm, &in8, &pol, &a), 0);
	CHECK(args_have(&a, "queues=64"));
	CHECK(args_have(&a, "vectors=130"));
}

static void test_qemu_reconnect_spelling(void)
{
	static const struct { unsigned int maj, min; const char *want; } rows[] = {
		{ 7, 2, ",reconnect=1" }, { 8, 2, ",reconnect=1" },
		{ 9, 1, ",reconnect=1" }, { 9, 2, ",reconnect-ms=1000" },
		{ 10, 0, ",reconnect-ms=1000" },
	};
	struct plan_vm vm = mkvm(PLAN_BACKEND_VHOST_USER);
	struct plan_policy_out pol = mkpol(2, true);
	static struct plan_args a;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		vm.qemu_major = rows[i].maj;
		vm.qemu_minor = rows[i].min;
		CHECK_EQ(plan_qemu_args(&vm, &in8, &pol, &a), 0);
		CHECK(args_have(&a, rows[i].want));
		CHECK(!args_have(&a, rows[i].want[10] == '=' ? "reconnect-ms" :
				 "reconnect=1"));
	}
}

static void test_qemu_socket_comma_escaped(void)
{
	struct plan_vm vm = mkvm(PLAN_BACKEND_VHOST_USER);
	struct plan_policy_out pol = mkpol(1, true);
	static struct plan_args a;

	vm.socket = "/tmp/a,b.sock";
	CHECK_EQ(plan_qemu_args(&vm, &in8, &pol, &a), 0);
	CHECK(args_have(&a, "path=/tmp/a,,b.sock,reconnect=1"));
}

static void test_qemu_too_long(void)
{
	struct plan_vm vm = mkvm(PLAN_BACKEND_VHOST_USER);
	struct plan_policy_out pol = mkpol(2, true);
	static struct plan_args a;
	static char path[3000];

	memset(path, 'a', sizeof(path) - 1);
	path[0] = '/';
	vm.socket = path;
	CHECK_EQ(plan_qemu_args(&vm, &in8, &pol, &a), -ENOSPC);
	path[400] = '\0';	/* every "," doubled still fits */
	memset(path + 1, ',', 399);
	CHECK_EQ(plan_qemu_args(&vm, &in8, &pol, &a), 0);
	CHECK(args_have(&a, ",,,,"));
}

static void test_qemu_tap(void)
{
	struct plan_vm vm = mkvm(PLAN_BACKEND_TAP);
	struct plan_policy_out pol = mkpol(4, true);
	static struct plan_args a;

	CHECK_EQ(plan_qemu_args(&vm, &in8, &pol, &a), 0);
	CHECK(args_have(&a, "tap,id=net0,ifname=vnt-net0,script=no,downscript=no,vhost=on,queues=4"));
	CHECK(!args_have(&a, "memory-backend"));
	CHECK(args_have(&a, "mq=on,vectors=10"));
	pol = mkpol(1, false);
	CHECK_EQ(plan_qemu_args(&vm, &in8, &pol, &a), 0);
	CHECK(args_have(&a, "tap,id=net0,ifname=vnt-net0,script=no,downscript=no,vhost=off"));
	CHECK(!args_have(&a, "queues="));
	CHECK(!args_have(&a, "mq="));
	vm.tap_fds = "3:4";
	pol = mkpol(2, false);
	CHECK_EQ(plan_qemu_args(&vm, &in8, &pol, &a), 0);
	CHECK(args_have(&a, "tap,id=net0,fds=3:4,vhost=off"));
	vm.tap_fds = "3";
	pol = mkpol(1, true);
	CHECK_EQ(plan_qemu_args(&vm, &in8, &pol, &a), 0);
	CHECK(args_have(&a, "tap,id=net0,fd=3,vhost=on"));
}

static void test_check_vm(void)
{
	struct plan_vm vm = mkvm(PLAN_BACKEND_TAP);
	struct plan_policy_out pol = mkpol(2, false);
	struct reason why = { 0 };

	CHECK_EQ(plan_check_vm(&vm, &pol, &why), 0);
	vm.tap_fds = "3:4:5";
	CHECK_EQ(plan_check_vm(&vm, &pol, &why), -EINVAL);
	CHECK(!strcmp(why.msg, "--tap-fds '3:4:5' has 3 fds but the plan has 2 queue pairs: give one fd per queue pair"));
	vm.tap_fds = "3::4";
	CHECK_EQ(plan_check_vm(&vm, &pol, &why), -EINVAL);
	vm.tap_fds = "3:4:";
	CHECK_EQ(plan_check_vm(&vm, &pol, &why), -EINVAL);
	vm.tap_fds = NULL;
	vm.id = "9net";
	CHECK_EQ(plan_check_vm(&vm, &pol, &why), -EINVAL);
	vm = mkvm(PLAN_BACKEND_VHOST_USER);
	vm.socket = NULL;
	CHECK_EQ(plan_check_vm(&vm, &pol, &why), -EINVAL);
	CHECK(!strcmp(why.msg, "--backend vhost-user needs --socket PATH"));
	vm = mkvm(PLAN_BACKEND_VHOST_USER);
	vm.tap = "a-name-that-is-too-long";
	CHECK_EQ(plan_check_vm(&vm, &pol, &why), -EINVAL);
}

static void test_ch_args(void)
{
	static const char *const want[] = {
		"--cpus", "boot=8", "--memory", "size=2G,shared=on", "--net",
		"vhost_user=true,socket=/run/vnetd/vm1.sock,num_queues=8",
	};
	struct plan_vm vm = mkvm(PLAN_BACKEND_VHOST_USER);
	struct plan_policy_out pol = mkpol(4, true);
	static struct plan_args a;

	CHECK_EQ(plan_ch_args(&vm, &in8, &pol, &a), 0);
	CHECK(args_eq(&a, want, (int)ARRAY_SIZE(want)));
	pol = mkpol(1, true);
	CHECK_EQ(plan_ch_args(&vm, &in8, &pol, &a), 0);
	CHECK(!args_have(&a, "num_queues"));
	vm = mkvm(PLAN_BACKEND_TAP);
	pol = mkpol(2, true);
	CHECK_EQ(plan_ch_args(&vm, &in8, &pol, &a), 0);
	CHECK(args_have(&a, "tap=vnt-net0,num_queues=4"));
}

static void test_vnetd_args(void)
{
	static const char *const want[] = {
		"vnetd", "--socket", "/run/vnetd/vm1.sock", "--backend", "tap",
		"--tap", "vnt-net0", "--queues", "4",
	};
	struct plan_vm vm = mkvm(PLAN_BACKEND_VHOST_USER);
	struct plan_policy_out pol = mkpol(4, true);
	static struct plan_args a;

	CHECK_EQ(plan_vnetd_args(&vm, &pol, &a), 0);
	CHECK(args_eq(&a, want, (int)ARRAY_SIZE(want)));
	vm = mkvm(PLAN_BACKEND_TAP);
	CHECK_EQ(plan_vnetd_args(&vm, &pol, &a), -ENOENT);
}

/* --host af_xdp: the port group, and the interface's queues against the pairs */
static void test_xdp(void)
{
	static const char *const want[] = {
		"vnetd", "--port",
		"name=net0,socket=/run/vnetd/vm1.sock,backend=af_xdp,xdp-if=eth1,queues=4,mtu=1400",
	};
	struct plan_vm vm = mkvm(PLAN_BACKEND_VHOST_USER);
	struct plan_policy_out pol = mkpol(4, true);
	static struct plan_args a;
	struct reason why = { 0 };

	vm.xdp_if = "eth1";
	vm.mtu = 1400;
	CHECK_EQ(plan_check_vm(&vm, &pol, &why), 0);
	CHECK_EQ(plan_vnetd_args(&vm, &pol, &a), 0);
	CHECK(args_eq(&a, want, (int)ARRAY_SIZE(want)));
	CHECK_EQ(plan_xdp_check("eth1", 4, 0, 4, &why), 0);
	CHECK_EQ(plan_xdp_check("eth1", 64, 0, 4, &why), 0);
	CHECK_EQ(plan_xdp_check("eth1", 3, 0, 4, &why), -ERANGE);
	CHECK(strstr(why.msg, "ethtool -L eth1 combined 4"));
	CHECK(strstr(why.msg, "--queues 3"));
	CHECK_EQ(plan_xdp_check("eth1", -ENOENT, 0, 4, &why), -ENODEV);
	CHECK(strstr(why.msg, "no such interface"));
	CHECK_EQ(plan_xdp_check("eth1", -EACCES, 0, 1, &why), -ENODEV);
	/* from queue 4: 4 + 4 queues needed */
	CHECK_EQ(plan_xdp_check("eth1", 8, 4, 4, &why), 0);
	CHECK_EQ(plan_xdp_check("eth1", 7, 4, 4, &why), -ERANGE);
	CHECK(strstr(why.msg, "ethtool -L eth1 combined 8"));
	CHECK(strstr(why.msg, "--xdp-queue 4"));
	vm.xdp_queue = 4;
	CHECK_EQ(plan_vnetd_args(&vm, &pol, &a), 0);
	CHECK(a.argc == 3 && strstr(a.argv[2], ",xdp-queue=4,queues=4"));
	vm.xdp_queue = 0;
	vm.socket = "/run/a,b.sock";		/* cannot go into a port group */
	CHECK_EQ(plan_check_vm(&vm, &pol, &why), -EINVAL);
	vm = mkvm(PLAN_BACKEND_TAP);
	vm.xdp_if = "eth1";
	CHECK_EQ(plan_check_vm(&vm, &pol, &why), -EINVAL);
	vm = mkvm(PLAN_BACKEND_VHOST_USER);
	vm.xdp_if = "a/b";
	CHECK_EQ(plan_check_vm(&vm, &pol, &why), -EINVAL);
}

static void test_libvirt(void)
{
	struct plan_vm vm = mkvm(PLAN_BACKEND_VHOST_USER);
	struct plan_policy_out pol = mkpol(4, true);
	char x[2048];

	CHECK_EQ(plan_libvirt_xml(&vm, &pol, x, sizeof(x)), 0);
	CHECK(strstr(x, "<interface type='vhostuser'>\n"));
	CHECK(strstr(x, "<source type='unix' path='/run/vnetd/vm1.sock' mode='client'>\n"
			"    <reconnect enabled='yes' timeout='1'/>\n  </source>"));
	CHECK(strstr(x, "<driver queues='4'/>"));
	/* one document: the domain's memory is not in the NIC's XML */
	CHECK(!strstr(x, "memoryBacking>"));
	CHECK(!strcmp(strstr(x, "</interface>"), "</interface>\n"));
	CHECK_EQ(plan_libvirt_memory_xml(&vm, x, sizeof(x)), 0);
	CHECK(strstr(x, "<access mode='shared'/>"));
	CHECK_EQ(plan_libvirt_memory_xml(&vm, x, 20), -ENOSPC);
	pol = mkpol(1, true);
	CHECK_EQ(plan_libvirt_xml(&vm, &pol, x, sizeof(x)), 0);
	CHECK(!strstr(x, "queues="));
	vm = mkvm(PLAN_BACKEND_TAP);
	vm.bridge = "br'0";
	pol = mkpol(2, true);
	vm.tap = "t'ap";
	CHECK_EQ(plan_libvirt_xml(&vm, &pol, x, sizeof(x)), 0);
	/* a TAP made beforehand: libvirt takes it only as ethernet, managed='no' */
	CHECK(strstr(x, "<interface type='ethernet'>"));
	CHECK(strstr(x, "<target dev='t&apos;ap' managed='no'/>"));
	CHECK(!strstr(x, "<source bridge="));
	CHECK(strstr(x, "<driver name='vhost' queues='2'/>"));
	CHECK_EQ(plan_libvirt_memory_xml(&vm, x, sizeof(x)), 0);
	CHECK(!strcmp(x, ""));
	vm.bridge = NULL;
	pol = mkpol(1, false);
	CHECK_EQ(plan_libvirt_xml(&vm, &pol, x, sizeof(x)), 0);
	CHECK(strstr(x, "<interface type='ethernet'>"));
	CHECK(strstr(x, "<driver name='qemu'/>"));
	CHECK_EQ(plan_libvirt_xml(&vm, &pol, x, 20), -ENOSPC);
}

static void test_hint_and_quoting(void)
{
	struct plan_policy_out pol = mkpol(6, true);
	static struct plan_args a;
	char buf[256];

	CHECK_EQ(plan_guest_hint(&pol, buf, sizeof(buf)), 0);
	CHECK(!strcmp(buf, "ethtool -L eth0 combined 6"));
	pol = mkpol(1, true);
	CHECK_EQ(plan_guest_hint(&pol, buf, sizeof(buf)), 0);
	CHECK(!strcmp(buf, ""));

	memset(&a, 0, sizeof(a));
	a.argc = 4;
	a.argv[0] = "-chardev";
	a.argv[1] = "path=/tmp/it's here";
	a.argv[2] = "-x";
	a.argv[3] = "";
	CHECK_EQ(plan_shell_join(&a, " ", buf, sizeof(buf)), 0);
	CHECK(!strcmp(buf, "-chardev 'path=/tmp/it'\\''s here' -x ''"));
	CHECK_EQ(plan_shell_join(&a, NULL, buf, sizeof(buf)), 0);
	CHECK(!strcmp(buf, "-chardev 'path=/tmp/it'\\''s here' \\\n  -x ''"));
	CHECK_EQ(plan_json_string("a\"b\\c\nd\x01", buf, sizeof(buf)), 0);
	CHECK(!strcmp(buf, "\"a\\\"b\\\\c\\nd\\u0001\""));
	CHECK_EQ(plan_json_string("abcdef", buf, 4), -ENOSPC);
}

int main(void)
{
	run_policy_rows();
	RUN(test_policy_vhost_flag);
	RUN(test_parse_uint);
	RUN(test_qemu_version);
	RUN(test_qemu_single_pair_exact);
	RUN(test_qemu_multiqueue);
	RUN(test_qemu_nic_only);
	RUN(test_qemu_reconnect_spelling);
	RUN(test_qemu_socket_comma_escaped);
	RUN(test_qemu_too_long);
	RUN(test_qemu_tap);
	RUN(test_check_vm);
	RUN(test_ch_args);
	RUN(test_vnetd_args);
	RUN(test_xdp);
	RUN(test_libvirt);
	RUN(test_hint_and_quoting);
	return test_exit();
}
