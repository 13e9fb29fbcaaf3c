// SPDX-License-Identifier: MIT
/*
 * test_plan_switch.c - the planner for N VMs on one switch (plan_switch.c)
 * with the switch's uplink: the --switch value it prints (and that vnetd's
 * own uplink_declare() takes it, with the VLANs the plan meant), the trunk
 * list written back as vnetd's switch_vlans_parse() reads it, and each
 * refusal with its exact sentence.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "plan.h"
#include "plan_switch.h"
#include "reason.h"
#include "switch.h"
#include "uplink.h"
#include "util.h"
#include "testlib.h"

/* A plan of 2 VMs on switch s0 with the uplink tap:s0up */
static struct plan_switch mkplan(unsigned int vlan)
{
	return (struct plan_switch){ .name = "s0", .vms = 2, .vlan = vlan,
				     .sock_dir = "/run/vnetd",
				     .uplink = "tap:s0up" };
}

/* Bitmap of the VLANs in @v (0-terminated) */
static void mktrunk(uint8_t t[PLAN_SWITCH_VLAN_BYTES], const unsigned int *v)
{
	memset(t, 0, PLAN_SWITCH_VLAN_BYTES);
	for (; *v; v++)
		t[*v / 8] |= (uint8_t)(1u << (*v % 8));
}

static void test_spec(void)
{
	static const unsigned int vl[] = { 10, 20, 21, 22, 4094, 0 };
	uint8_t t[PLAN_SWITCH_VLAN_BYTES];
	struct plan_switch s = mkplan(0);
	char buf[PLAN_SWITCH_SPEC_MAX + 1];

	s.uplink = NULL;
	CHECK_EQ(plan_switch_spec(&s, buf, sizeof(buf)), 0);
	CHECK(!strcmp(buf, "s0"));
	s = mkplan(0);
	CHECK_EQ(plan_switch_spec(&s, buf, sizeof(buf)), 0);
	CHECK(!strcmp(buf, "s0,uplink=tap:s0up"));
	/* an uplink without a VLAN of its own joins the VMs' */
	s = mkplan(10);
	CHECK_EQ(plan_switch_spec(&s, buf, sizeof(buf)), 0);
	CHECK(!strcmp(buf, "s0,uplink=tap:s0up,uplink-vlan=10"));
	s.uplink_vlan = 10;
	CHECK_EQ(plan_switch_spec(&s, buf, sizeof(buf)), 0);
	CHECK(!strcmp(buf, "s0,uplink=tap:s0up,uplink-vlan=10"));
	s.uplink_vlan = 0;
	mktrunk(t, vl);
	s.uplink_trunk = t;
	CHECK_EQ(plan_switch_spec(&s, buf, sizeof(buf)), 0);
	CHECK(!strcmp(buf, "s0,uplink=tap:s0up,uplink-trunk=10:20-22:4094"));
	CHECK_EQ(plan_switch_spec(&s, buf, 20), -ENOSPC);
	CHECK_EQ(plan_switch_spec(&s, buf, strlen("s0,uplink=tap:s0up,uplink-trunk=10:20-22:4094")), -ENOSPC);
}

static void test_trunk_format(void)
{
	static const unsigned int all[] = { 1, 2, 3, 4094, 0 };
	uint8_t t[PLAN_SWITCH_VLAN_BYTES];
	char buf[64];
	unsigned int v;

	mktrunk(t, all);
	CHECK_EQ(plan_switch_trunk_format(t, ',', buf, sizeof(buf)), 0);
	CHECK(!strcmp(buf, "1-3,4094"));
	CHECK_EQ(plan_switch_trunk_format(t, ':', buf, sizeof(buf)), 0);
	CHECK(!strcmp(buf, "1-3:4094"));
	CHECK_EQ(plan_switch_trunk_format(t, ':', buf, 5), -ENOSPC);
	memset(t, 0, sizeof(t));
	for (v = 1; v <= 4094; v++)
		t[v / 8] |= (uint8_t)(1u << (v % 8));
	CHECK_EQ(plan_switch_trunk_format(t, ':', buf, sizeof(buf)), 0);
	CHECK(!strcmp(buf, "1-4094"));
	memset(t, 0, sizeof(t));
	CHECK_EQ(plan_switch_trunk_format(t, ':', buf, sizeof(buf)), 0);
	CHECK(!strcmp(buf, ""));
}

/* What the planner writes, vnetd's parser reads back as the same VLANs */
static void test_trunk_round_trip(void)
{
	static struct sw_vlans back;
	uint8_t t[PLAN_SWITCH_VLAN_BYTES];
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	char buf[PLAN_SWITCH_SPEC_MAX + 1];
	unsigned int round, k, v;

	for (round = 0; round < 500; round++) {
		memset(t, 0, sizeof(t));
		for (k = 0; k < 1 + round % 12; k++) {
			v = 1 + (unsigned int)(test_xorshift(&seed) % 4094);
			t[v / 8] |= (uint8_t)(1u << (v % 8));
			if (round % 3 == 0 && v < 4094)	/* ranges too */
				t[(v + 1) / 8] |= (uint8_t)(1u << ((v + 1) % 8));
		}
		CHECK_EQ(plan_switch_trunk_format(t, ':', buf, sizeof(buf)), 0);
		CHECK(!switch_vlans_parse(&back, buf, true, ':'));
		CHECK_EQ(back.access, 0);
		CHECK(!memcmp(back.trunk, t, sizeof(t)));
	}
}

struct refusal {
	const char *name;
	struct plan_switch s;
	const unsigned int *trunk;	/* 0-terminated, or NULL */
	const char *msg;
};

static const unsigned int t20_30[] = { 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 0 };
static const unsigned int t10[] = { 10, 0 };

static const struct refusal refusals[] = {
	{ "not a tap", { .name = "s0", .vms = 2, .sock_dir = "/r", .uplink = "eth0" }, NULL,
	  "--uplink 'eth0': must be tap:IFNAME with IFNAME 1..15 bytes, no '/', ':' or space" },
	{ "empty name", { .name = "s0", .vms = 2, .sock_dir = "/r", .uplink = "tap:" }, NULL,
	  "--uplink 'tap:': must be tap:IFNAME with IFNAME 1..15 bytes, no '/', ':' or space" },
	{ "16 bytes", { .name = "s0", .vms = 2, .sock_dir = "/r",
			.uplink = "tap:0123456789abcdef" }, NULL,
	  "--uplink 'tap:0123456789abcdef': must be tap:IFNAME with IFNAME 1..15 bytes, no '/', ':' or space" },
	{ "a colon", { .name = "s0", .vms = 2, .sock_dir = "/r", .uplink = "tap:a:b" }, NULL,
	  "--uplink 'tap:a:b': must be tap:IFNAME with IFNAME 1..15 bytes, no '/', ':' or space" },
	{ "bridge name", { .name = "s0", .vms = 2, .sock_dir = "/r", .uplink = "tap:u",
			   .bridge = "b r" }, NULL,
	  "--bridge 'b r': must be an interface name of 1..15 bytes, no '/', ':' or space" },
	{ "bridge is the tap", { .name = "s0", .vms = 2, .sock_dir = "/r", .uplink = "tap:u",
				 .bridge = "u" }, NULL,
	  "--bridge u: the uplink's TAP joins the bridge, it cannot be it" },
	{ "vlan 4095", { .name = "s0", .vms = 2, .sock_dir = "/r", .uplink = "tap:u",
			 .uplink_vlan = 4095 }, NULL,
	  "--uplink-vlan 4095: allowed 1..4094" },
	{ "vlan and trunk", { .name = "s0", .vms = 2, .vlan = 10, .sock_dir = "/r",
			      .uplink = "tap:u", .uplink_vlan = 10 }, t10,
	  "--uplink-vlan 10 and --uplink-trunk 10: give one (the uplink is an access port or a trunk)" },
	{ "trunk without the VMs' VLAN", { .name = "s0", .vms = 2, .vlan = 10, .sock_dir = "/r",
					   .uplink = "tap:u" }, t20_30,
	  "--uplink-trunk 20-30: does not carry VLAN 10, the VMs' (--vlan): the uplink would reach none of them" },
	{ "trunk without VLAN 1", { .name = "s0", .vms = 2, .sock_dir = "/r",
				    .uplink = "tap:u" }, t10,
	  "--uplink-trunk 10: does not carry VLAN 1, the VMs' (no --vlan: vnetd's default): the uplink would reach none of them" },
	{ "access on another VLAN", { .name = "s0", .vms = 2, .vlan = 10, .sock_dir = "/r",
				      .uplink = "tap:u", .uplink_vlan = 20 }, NULL,
	  "--uplink-vlan 20: the VMs are on VLAN 10 (--vlan): the uplink would reach none of them" },
	{ "uplink-vlan alone", { .name = "s0", .vms = 2, .sock_dir = "/r", .uplink_vlan = 5 }, NULL,
	  "--uplink-vlan 5: only with --uplink tap:IFNAME (the switch's uplink)" },
	{ "uplink-trunk alone", { .name = "s0", .vms = 2, .sock_dir = "/r" }, t10,
	  "--uplink-trunk: only with --uplink tap:IFNAME (the switch's uplink)" },
	{ "bridge alone", { .name = "s0", .vms = 2, .sock_dir = "/r", .bridge = "br0" }, NULL,
	  "--bridge br0: with --switch, the bridge of the switch's uplink: give --uplink tap:IFNAME too" },
};

static void test_refusals(void)
{
	uint8_t t[PLAN_SWITCH_VLAN_BYTES];
	struct reason r;
	struct plan_switch s;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(refusals); i++) {
		s = refusals[i].s;
		if (refusals[i].trunk) {
			mktrunk(t, refusals[i].trunk);
			s.uplink_trunk = t;
		}
		memset(&r, 0, sizeof(r));
		CHECK_EQ(plan_switch_check(&s, &r), -EINVAL);
		if (strcmp(r.msg, refusals[i].msg)) {
			fprintf(stderr, "  %s: got '%s'\n", refusals[i].name, r.msg);
			CHECK(0);
		}
	}
}

/* Every VLAN on a trunk, each alone: a --switch value over vnetd's 255 bytes */
static void test_spec_too_long(void)
{
	uint8_t t[PLAN_SWITCH_VLAN_BYTES] = { 0 };
	struct plan_switch s = mkplan(0);
	struct reason r = { 0 };
	unsigned int v;

	for (v = 1; v < 200; v += 2)
		t[v / 8] |= (uint8_t)(1u << (v % 8));
	s.uplink_trunk = t;
	CHECK_EQ(plan_switch_check(&s, &r), -EINVAL);
	CHECK(!strcmp(r.msg, "--uplink-trunk: vnetd's --switch value would be over 255 bytes (its limit): fewer VLAN ranges"));
}

/* The first line of vnetd's command is the --switch value, then the VMs' ports */
static void test_vnetd_line(void)
{
	struct plan_policy_out pol = { .pairs = 1 };
	struct plan_switch s = mkplan(10);
	struct reason r = { 0 };
	char buf[1024];

	CHECK_EQ(plan_switch_check(&s, &r), 0);
	CHECK_EQ(plan_switch_vnetd(&s, &pol, buf, sizeof(buf)), 0);
	CHECK(!strcmp(buf, "vnetd --switch s0,uplink=tap:s0up,uplink-vlan=10 \\\n"
		      "  --port name=vm1,socket=/run/vnetd/vm1.sock,switch=s0,vlan=10 \\\n"
		      "  --port name=vm2,socket=/run/vnetd/vm2.sock,switch=s0,vlan=10"));
	CHECK_EQ(plan_switch_vnetd(&s, &pol, buf, 30), -ENOSPC);
}

/*
 * vnetd's own parser takes what the planner prints, with the VLANs the
 * plan meant: an access uplink on the VMs' VLAN, and a trunk
 */
static void test_vnetd_declares_it(void)
{
	static const unsigned int vl[] = { 10, 20, 21, 22, 0 };
	uint8_t t[PLAN_SWITCH_VLAN_BYTES];
	struct plan_switch s = mkplan(10);
	char spec[PLAN_SWITCH_SPEC_MAX + 1];
	const struct uplink *u;
	struct reason r = { 0 };

	s.name = "tps0";
	s.uplink = "tap:tps0up";
	CHECK_EQ(plan_switch_check(&s, &r), 0);
	CHECK_EQ(plan_switch_spec(&s, spec, sizeof(spec)), 0);
	CHECK_EQ(uplink_declare(spec, &r), 0);
	u = uplink_at(0);
	CHECK(u && !strcmp(u->ifname, "tps0up"));
	CHECK_EQ(u->vlans.access, 10);

	mktrunk(t, vl);
	s = mkplan(20);
	s.name = "tps1";
	s.uplink = "tap:tps1up";
	s.uplink_trunk = t;
	CHECK_EQ(plan_switch_check(&s, &r), 0);
	CHECK_EQ(plan_switch_spec(&s, spec, sizeof(spec)), 0);
	CHECK_EQ(uplink_declare(spec, &r), 0);
	u = uplink_at(1);
	CHECK(u && !strcmp(u->ifname, "tps1up"));
	CHECK_EQ(u->vlans.access, 0);
	CHECK(!memcmp(u->vlans.trunk, t, sizeof(t)));
}

int main(void)
{
	RUN(test_spec);
	RUN(test_trunk_format);
	RUN(test_trunk_round_trip);
	RUN(test_refusals);
	RUN(test_spec_too_long);
	RUN(test_vnetd_line);
	RUN(test_vnetd_declares_it);
	return test_exit();
}
