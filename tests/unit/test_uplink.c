// SPDX-License-Identifier: MIT
/*
 * test_uplink.c - a switch's uplink: to the switch core it is a member
 * like any other, holding as many MACs as the switch. Frames for a MAC
 * learned behind the uplink go to it alone; unknown unicast and
 * broadcast reach the uplink and every member; nothing the uplink sends
 * comes back to it; a trunk uplink carries the tags of its VLANs; more
 * stations behind the uplink than a port may hold are learned. And the
 * declaration's parser (uplink_declare()): its keys, a second uplink
 * refused naming both, and nothing declared when a spec is refused.
 */
#include <errno.h>
#include <string.h>

#include "host_switch.h"
#include "switch.h"
#include "switch_testutil.h"
#include "testlib.h"
#include "uplink.h"

#define HDR	TSW_HDR
#define NOW	1000

static const uint8_t BCAST[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* The helpers of switch_testutil.c under this file's short names */
static void mac_of(uint8_t *mac, unsigned int n)
{
	test_sw_mac(mac, 0x11, n);
}

/* One frame from @m: vnet header, dst, src, [tag of @vid], type, 4 bytes */
static int tx(struct sw_member *m, const uint8_t *dst, const uint8_t *src,
	      int vid)
{
	return test_sw_tx(m, dst, src, vid, 0, NOW);
}

/* Frames waiting for @m (consumed); the last one's 64 bytes in @last */
static int rx_count(struct sw_member *m, uint8_t *last)
{
	return test_sw_rx_count(m, last, 64);
}

static struct sw_member *join(struct vswitch *sw, const char *vlans, bool trunk)
{
	struct sw_vlans v;
	int err;

	if (switch_vlans_parse(&v, vlans, trunk, ':'))
		return NULL;
	return switch_join(sw, 1, &v, &err);
}

/* The uplink as uplink.c makes it: a member that may hold the switch's MACs */
static struct sw_member *join_uplink(struct vswitch *sw, const char *vlans,
				     bool trunk)
{
	struct sw_member *u = join(sw, vlans, trunk);

	if (u)
		u->macs_max = sw->macs_max;
	return u;
}

static void test_learned_behind_uplink(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_member *u, *a, *b;
	uint8_t mh[6], ma[6], mx[6];

	CHECK(sw);
	u = join_uplink(sw, "1", false);
	a = join(sw, "1", false);
	b = join(sw, "1", false);
	CHECK(u && a && b);
	mac_of(mh, 100);	/* a station on the host's bridge */
	mac_of(ma, 1);
	mac_of(mx, 999);	/* nobody's */
	/* the host's broadcast reaches every member, not the uplink again */
	CHECK(tx(u, BCAST, mh, -1) > 0);
	CHECK_EQ(rx_count(a, NULL), 1);
	CHECK_EQ(rx_count(b, NULL), 1);
	CHECK_EQ(rx_count(u, NULL), 0);
	CHECK_EQ(switch_lookup(sw, mh, 1, NOW), (int)u->idx);
	/* unknown unicast from a guest: the uplink and every other member */
	CHECK(tx(a, mx, ma, -1) > 0);
	CHECK_EQ(rx_count(u, NULL), 1);
	CHECK_EQ(rx_count(b, NULL), 1);
	CHECK_EQ(rx_count(a, NULL), 0);
	/* a reply to the learned host station: the uplink only */
	CHECK(tx(a, mh, ma, -1) > 0);
	CHECK_EQ(rx_count(u, NULL), 1);
	CHECK_EQ(rx_count(b, NULL), 0);
	/* the host's reply to A: A only */
	CHECK(tx(u, ma, mh, -1) > 0);
	CHECK_EQ(rx_count(a, NULL), 1);
	CHECK_EQ(rx_count(b, NULL), 0);
	CHECK_EQ(rx_count(u, NULL), 0);
	switch_free(sw);
}

static void test_nothing_back_to_uplink(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_member *u, *a;
	uint8_t mh[6], mh2[6], mx[6];

	CHECK(sw);
	u = join_uplink(sw, "1", false);
	a = join(sw, "1", false);
	CHECK(u && a);
	mac_of(mh, 100);
	mac_of(mh2, 101);
	mac_of(mx, 999);
	CHECK(tx(u, BCAST, mh2, -1) > 0);	/* mh2 learned behind the uplink */
	CHECK_EQ(rx_count(a, NULL), 1);
	/* unknown unicast from the host side: members, never the uplink */
	CHECK(tx(u, mx, mh, -1) > 0);
	CHECK_EQ(rx_count(a, NULL), 1);
	CHECK_EQ(rx_count(u, NULL), 0);
	/* between two stations behind the uplink (the bridge flooded it to
	 * us): dropped, neither sent back nor flooded */
	CHECK(tx(u, mh2, mh, -1) > 0);
	CHECK_EQ(rx_count(u, NULL), 0);
	CHECK_EQ(rx_count(a, NULL), 0);
	switch_free(sw);
}

static void test_trunk_uplink(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_member *u, *a, *b;
	uint8_t ma[6], mh[6], f[64];

	CHECK(sw);
	u = join_uplink(sw, "10:20", true);
	a = join(sw, "10", false);
	b = join(sw, "20", false);
	CHECK(u && a && b);
	mac_of(ma, 1);
	mac_of(mh, 100);
	/* A's broadcast leaves through the uplink tagged 10, not to B */
	CHECK(tx(a, BCAST, ma, -1) > 0);
	CHECK_EQ(rx_count(u, f), 1);
	CHECK(f[HDR + 12] == 0x81 && f[HDR + 13] == 0x00 && f[HDR + 15] == 10);
	CHECK_EQ(rx_count(b, NULL), 0);
	/* the host's frame tagged 20 reaches B (untagged) only */
	CHECK(tx(u, BCAST, mh, 20) > 0);
	CHECK_EQ(rx_count(b, f), 1);
	CHECK(f[HDR + 12] == 0x08);
	CHECK_EQ(rx_count(a, NULL), 0);
	/* untagged or of another VLAN from a trunk uplink: dropped, counted */
	CHECK_EQ(tx(u, BCAST, mh, -1), -EPROTO);
	CHECK_EQ(tx(u, BCAST, mh, 30), -EPROTO);
	CHECK_EQ(atomic_load(&u->st.drop_vlan), 2);
	switch_free(sw);
}

/* More stations behind the uplink than a port may hold: all learned */
static void test_uplink_holds_many(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_member *u, *a;
	unsigned int i, n = SW_MACS_PORT + 44;
	uint8_t mh[6];

	CHECK(sw);
	u = join_uplink(sw, "1", false);
	a = join(sw, "1", false);
	CHECK(u && a);
	for (i = 0; i < n; i++) {
		mac_of(mh, 1000 + i);
		CHECK(tx(u, BCAST, mh, -1) > 0);
		rx_count(a, NULL);
	}
	CHECK_EQ(atomic_load(&u->nmacs), n);
	CHECK_EQ(atomic_load(&u->st.mac_limit), 0);
	/* a port stays at its limit */
	for (i = 0; i < n; i++) {
		mac_of(mh, 5000 + i);
		CHECK(tx(a, BCAST, mh, -1) > 0);
		rx_count(u, NULL);
	}
	CHECK_EQ(atomic_load(&a->nmacs), SW_MACS_PORT);
	switch_free(sw);
}

static void refused(const char *spec, int err, const char *want)
{
	struct reason why = { 0 };

	CHECK_EQ(uplink_declare(spec, &why), err);
	if (!strstr(why.msg, want))
		fprintf(stderr, "  %s: '%s' lacks '%s'\n", spec, why.msg, want);
	CHECK(strstr(why.msg, want));
}

static void test_declare(void)
{
	struct reason why = { 0 };
	const struct uplink *u;

	CHECK_EQ(uplink_declare("d0", &why), 0);	/* no uplink */
	CHECK(host_switch_find("d0"));
	CHECK(!uplink_at(0));
	CHECK_EQ(uplink_declare("d1,uplink=tap:up1,uplink-trunk=10:20-30", &why), 0);
	u = uplink_at(0);
	CHECK(u && !strcmp(u->ifname, "up1") && !strcmp(u->sw->name, "d1"));
	CHECK(u && !u->vlans.access && (u->vlans.trunk[25 / 8] & (1u << (25 % 8))) &&
	      !(u->vlans.trunk[31 / 8] & (1u << (31 % 8))));
	/* the same declaration again (a config re-read) changes nothing */
	CHECK_EQ(uplink_declare("d1,uplink=tap:up1,uplink-trunk=10:20-30", &why), 0);
	CHECK(!uplink_at(1));
	refused("d1,uplink=tap:up2", -EEXIST,
		"uplink=tap:up2: switch d1 has the uplink tap:up1 already (one uplink per switch)");
	refused("d2,uplink=tap:a,uplink=tap:b", -EEXIST,
		"uplink=tap:b: one uplink per switch (uplink=tap:a given already)");
	refused("d3,uplink=tap:up1", -EEXIST, "uplink=tap:up1: already the uplink of switch d1");
	refused("d4,uplink=xdp:eth0", -EINVAL, "'uplink=xdp:eth0': must be tap:IFNAME");
	refused("d4,uplink=tap:", -EINVAL, "must be tap:IFNAME with IFNAME 1..15 bytes");
	refused("d4,uplink=tap:a234567890123456", -EINVAL, "IFNAME 1..15 bytes");
	refused("d4,uplink=tap:a,uplink-vlan=4095", -EINVAL,
		"'uplink-vlan=4095': must be a VLAN number 1..4094");
	refused("d4,uplink=tap:a,uplink-vlan=5,uplink-trunk=6", -EINVAL,
		"uplink-vlan: cannot be combined with uplink-trunk=");
	refused("d4,uplink-vlan=5", -EINVAL, "uplink-vlan=: only with uplink=tap:IFNAME");
	refused("d4,speed=10", -EINVAL, "unknown key 'speed'");
	refused("d4,uplink", -EINVAL, "'uplink': must be KEY=VALUE");
	refused(",uplink=tap:a", -EINVAL, "must start with the switch's name");
	/* nothing of a refused spec was declared */
	CHECK(!host_switch_find("d2") && !host_switch_find("d3") &&
	      !host_switch_find("d4"));
	CHECK(!uplink_at(1));
	CHECK_EQ(uplink_declare("d5,uplink=tap:up5,uplink-vlan=7", &why), 0);
	u = uplink_at(1);
	CHECK(u && u->vlans.access == 7);
}

int main(void)
{
	RUN(test_learned_behind_uplink);
	RUN(test_nothing_back_to_uplink);
	RUN(test_trunk_uplink);
	RUN(test_uplink_holds_many);
	RUN(test_declare);
	return test_exit();
}
