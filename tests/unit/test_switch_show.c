// SPDX-License-Identifier: MIT
/*
 * test_switch_show.c - reading a switch's MAC table for the control plane
 * (switch_table_next()): every live entry once with its MAC, VLAN, member
 * and age; an entry being written or removed (port 0), one whose key
 * changed under the reader and one past the ageing time are skipped; a
 * time stamped after the reader's clock reads as age 0.
 */
#include <string.h>

#include "testlib.h"
#include "switch.h"

#define HDR	12
#define NOW	5000

static void mac_of(uint8_t *mac, unsigned int n)
{
	memset(mac, 0, 6);
	mac[0] = 0x02;
	mac[5] = (uint8_t)n;
}

/* One broadcast frame from @src on @m (access port: untagged) */
static int tx_from(struct sw_member *m, const uint8_t *src, uint32_t now)
{
	uint8_t f[HDR + 18];
	struct iovec iov = { f, sizeof(f) };

	memset(f, 0, sizeof(f));
	memset(f + HDR, 0xff, 6);
	memcpy(f + HDR + 6, src, 6);
	f[HDR + 12] = 0x08;
	return switch_tx(m, 0, &iov, 1, HDR, now);
}

/* A member with one pair, an access port of @vlan */
static struct sw_member *join(struct vswitch *sw, uint16_t vlan)
{
	struct sw_vlans v = { .access = vlan };
	int err;

	return switch_join(sw, 1, &v, &err);
}

/* Entries the reader returns at @now: how many; the first @max into @out */
static unsigned int walk(const struct vswitch *sw, uint32_t now,
			 struct sw_mac *out, unsigned int max)
{
	size_t pos = 0;
	unsigned int n = 0;
	struct sw_mac e;

	while (switch_table_next(sw, &pos, now, &e))
		if (n < max)
			out[n++] = e;
		else
			n++;
	return n;
}

/* The table entry holding @mac on @vlan, NULL if none */
static struct sw_entry *entry_of(struct vswitch *sw, const uint8_t *mac,
				 uint16_t vlan)
{
	size_t i, n = (size_t)sw->nbuckets * SW_WAYS;
	uint64_t key = 0;
	unsigned int k;

	for (k = 0; k < 6; k++)
		key = key << 8 | mac[k];
	key = 1ULL << 63 | key << 12 | vlan;
	for (i = 0; i < n; i++)
		if (atomic_load(&sw->table[i].key) == key)
			return &sw->table[i];
	return NULL;
}

static void test_reads_live_entries(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_member *a, *b;
	struct sw_mac e[4];
	uint8_t ma[6], mb[6];
	unsigned int i, n;

	CHECK(sw);
	CHECK_EQ(walk(sw, NOW, e, 4), 0u);
	a = join(sw, 10);
	b = join(sw, 20);
	CHECK(a && b);
	mac_of(ma, 0xa);
	mac_of(mb, 0xb);
	CHECK(tx_from(a, ma, NOW) > 0);
	CHECK(tx_from(b, mb, NOW + 3) > 0);
	n = walk(sw, NOW + 7, e, 4);
	CHECK_EQ(n, 2u);
	for (i = 0; i < n && i < 4; i++) {
		if (!memcmp(e[i].mac, ma, 6)) {
			CHECK_EQ(e[i].vlan, 10);
			CHECK_EQ(e[i].member, a->idx);
			CHECK_EQ(e[i].age_s, 7u);
		} else {
			CHECK(!memcmp(e[i].mac, mb, 6));
			CHECK_EQ(e[i].vlan, 20);
			CHECK_EQ(e[i].member, b->idx);
			CHECK_EQ(e[i].age_s, 4u);
		}
	}
	/* stamped after the reader's clock: age 0, not aged out */
	n = walk(sw, NOW + 1, e, 4);
	CHECK_EQ(n, 2u);
	for (i = 0; i < n && i < 4; i++)
		if (!memcmp(e[i].mac, mb, 6))
			CHECK_EQ(e[i].age_s, 0u);
	switch_free(sw);
}

static void test_skips_torn_and_aged(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_member *a;
	struct sw_entry *ent;
	struct sw_mac e[4];
	uint8_t ma[6], mb[6];

	CHECK(sw);
	a = join(sw, 1);
	CHECK(a);
	mac_of(ma, 1);
	mac_of(mb, 2);
	CHECK(tx_from(a, ma, NOW) > 0);
	CHECK(tx_from(a, mb, NOW + 100) > 0);
	CHECK_EQ(walk(sw, NOW + 100, e, 4), 2u);
	/* being written or removed: port 0 */
	ent = entry_of(sw, ma, 1);
	CHECK(ent);
	atomic_store(&ent->port, 0);
	CHECK_EQ(walk(sw, NOW + 100, e, 4), 1u);
	CHECK(!memcmp(e[0].mac, mb, 6));
	atomic_store(&ent->port, a->idx + 1);
	/* a port word out of range is never shown */
	atomic_store(&ent->port, SW_MAX_MEMBERS + 1);
	CHECK_EQ(walk(sw, NOW + 100, e, 4), 1u);
	atomic_store(&ent->port, a->idx + 1);
	CHECK_EQ(walk(sw, NOW + 100, e, 4), 2u);
	/* past the ageing time: a lookup misses it, the reader skips it */
	CHECK_EQ(walk(sw, NOW + sw->ageing_s + 1, e, 4), 1u);
	CHECK(!memcmp(e[0].mac, mb, 6));
	CHECK_EQ(walk(sw, NOW + 100 + sw->ageing_s + 1, e, 4), 0u);
	switch_free(sw);
}

int main(void)
{
	RUN(test_reads_live_entries);
	RUN(test_skips_torn_and_aged);
	return test_exit();
}
