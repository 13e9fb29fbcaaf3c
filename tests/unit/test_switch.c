// SPDX-License-Identifier: MIT
/*
 * test_switch.c - the learning switch's core without vnetd: learning,
 * ageing, flooding, never back to the source, per-port and per-switch MAC
 * limits (a flooding port cannot evict another's entries), VLAN isolation,
 * trunk tags added and stripped, a full queue drops and counts, the
 * need-wakeup handshake writes the eventfd once per burst, leaving and
 * reset forget MACs, a sending burst holds its receivers once until its
 * flush (a leave waits for it), a frame whose vnet header and bytes come in pieces,
 * the inline path of the common frame (switch_tx_fast()) takes only what
 * switch_tx() would queue the same way, switch_rx_fast() writes what
 * switch_rx() writes, the MAC table's time read once
 * per burst, the VLAN list parser, and no
 * allocation per frame.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "testlib.h"
#include "switch.h"
#include "switch_testutil.h"
#ifndef VNET_SANITIZED
#include "alloc_count.h"
#endif

#define HDR	TSW_HDR
#define NOW	1000

static const uint8_t BCAST[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* The helpers of switch_testutil.c under this file's short names */
static void mac_of(uint8_t *mac, unsigned int n)
{
	test_sw_mac(mac, 0, n);
}

static int tx(struct sw_member *m, const uint8_t *dst, const uint8_t *src,
	      int vid, uint32_t seq, uint32_t now)
{
	return test_sw_tx(m, dst, src, vid, seq, now);
}

/* Receive one frame into @f (64 bytes); Return: length or -errno */
static int rx(struct sw_member *m, uint8_t *f)
{
	return test_sw_rx(m, f, 64);
}

static int rx_count(struct sw_member *m)
{
	return test_sw_rx_count(m, NULL, 0);
}

static struct sw_member *join(struct vswitch *sw, uint16_t vlan)
{
	return test_sw_join(sw, vlan);
}

/* Three access members of VLAN 1, checked */
static void join3(struct vswitch *sw, struct sw_member **a, struct sw_member **b,
		  struct sw_member **c)
{
	*a = join(sw, 1);
	*b = join(sw, 1);
	*c = join(sw, 1);
	CHECK(*a && *b && *c);
}

static void test_learn_flood_unicast(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_member *a, *b, *c;
	uint8_t ma[6], mb[6], f[64];

	CHECK(sw);
	join3(sw, &a, &b, &c);
	mac_of(ma, 1);
	mac_of(mb, 2);
	/* unknown unicast: flooded to every other member, never to A */
	CHECK_EQ(tx(a, mb, ma, -1, 7, NOW), HDR + 18);
	CHECK_EQ(switch_lookup(sw, ma, 1, NOW), (int)a->idx);
	CHECK_EQ(rx(b, f), HDR + 18);
	CHECK(!memcmp(f + HDR, mb, 6) && !memcmp(f + HDR + 6, ma, 6));
	CHECK_EQ(rx_count(c), 1);
	CHECK_EQ(rx_count(a), 0);
	CHECK_EQ(a->st.flooded, 1);
	/* B answers A: A is known, only A gets it */
	CHECK(tx(b, ma, mb, -1, 8, NOW) > 0);
	CHECK_EQ(rx_count(a), 1);
	CHECK_EQ(rx_count(c), 0);
	CHECK_EQ(b->st.flooded, 0);
	CHECK_EQ(b->st.learned, 1);
	/* A to B, known now */
	CHECK(tx(a, mb, ma, -1, 9, NOW) > 0);
	CHECK_EQ(rx_count(b), 1);
	CHECK_EQ(rx_count(c), 0);
	switch_free(sw);
}

static void test_never_back_to_source(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_member *a, *b;
	uint8_t ma[6], mb[6];

	CHECK(sw);
	a = join(sw, 1);
	b = join(sw, 1);
	mac_of(ma, 1);
	mac_of(mb, 2);
	CHECK(tx(a, BCAST, ma, -1, 0, NOW) > 0);
	CHECK_EQ(rx_count(a), 0);
	CHECK_EQ(rx_count(b), 1);
	/* to its own learned MAC: nobody gets it */
	CHECK(tx(a, ma, ma, -1, 0, NOW) > 0);
	CHECK_EQ(rx_count(a), 0);
	CHECK_EQ(rx_count(b), 0);
	/* a multicast source is not learned */
	mb[0] |= 1;
	CHECK(tx(b, BCAST, mb, -1, 0, NOW) > 0);
	CHECK_EQ(switch_lookup(sw, mb, 1, NOW), -1);
	CHECK_EQ(b->st.learned, 0);
	switch_free(sw);
}

static void test_ageing(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_member *a, *b, *c;
	uint8_t ma[6], mb[6];

	CHECK(sw);
	join3(sw, &a, &b, &c);
	mac_of(ma, 1);
	mac_of(mb, 2);
	CHECK(tx(a, BCAST, ma, -1, 0, NOW) > 0);
	rx_count(b);
	rx_count(c);
	CHECK_EQ(switch_lookup(sw, ma, 1, NOW + SW_AGEING_S), (int)a->idx);
	CHECK_EQ(switch_lookup(sw, ma, 1, NOW + SW_AGEING_S + 1), -1);
	/* a frame refreshes it: alive until its time + ageing */
	CHECK(tx(a, BCAST, ma, -1, 0, NOW + 200) > 0);
	rx_count(b);
	rx_count(c);
	CHECK_EQ(switch_lookup(sw, ma, 1, NOW + 200 + SW_AGEING_S), (int)a->idx);
	CHECK_EQ(atomic_load(&a->nmacs), 1);
	/* stale: floods; the sender's frame runs the sweep that removes it */
	CHECK(tx(b, ma, mb, -1, 0, NOW + 201 + SW_AGEING_S) > 0);
	CHECK_EQ(rx_count(c), 1);
	CHECK_EQ(rx_count(a), 1);
	CHECK_EQ(atomic_load(&a->nmacs), 0);
	CHECK_EQ(atomic_load(&sw->nmacs), 1);	/* B's, just learned */
	switch_age(sw, NOW + 202 + 2 * SW_AGEING_S);
	CHECK_EQ(atomic_load(&sw->nmacs), 0);
	CHECK_EQ(atomic_load(&b->nmacs), 0);
	switch_free(sw);
}

/*
 * Workers read the clock before they take a frame; one preempted across a
 * second boundary sweeps or looks up with a time older than an entry's.
 * That entry is younger than the ageing time, not four billion seconds old.
 */
static void test_ageing_clock_behind(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_member *a, *b;
	uint8_t ma[6];

	CHECK(sw);
	a = join(sw, 1);
	b = join(sw, 1);
	mac_of(ma, 1);
	CHECK(tx(a, BCAST, ma, -1, 0, NOW + 1) > 0);
	rx_count(b);
	CHECK_EQ(switch_lookup(sw, ma, 1, NOW), (int)a->idx);
	switch_age(sw, NOW);
	CHECK_EQ(atomic_load(&a->nmacs), 1);
	/* a refresh with the older time does not move the entry's back */
	CHECK(tx(a, BCAST, ma, -1, 0, NOW) > 0);
	rx_count(b);
	CHECK_EQ(switch_lookup(sw, ma, 1, NOW + 1 + SW_AGEING_S), (int)a->idx);
	CHECK_EQ(a->st.learned, 1);
	switch_free(sw);
}

/* The port's own MAC is known before its guest sends: unicast, no flood */
static void test_learn_port_mac(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_vlans tr;
	struct sw_member *a, *b, *c, *t;
	uint8_t ma[6], mb[6], mt[6];

	CHECK(sw);
	join3(sw, &a, &b, &c);
	memset(&tr, 0, sizeof(tr));
	tr.trunk[0] = 0x02;	/* VLAN 1 */
	t = switch_join(sw, 1, &tr, &(int){ 0 });
	CHECK(t);
	mac_of(ma, 1);
	mac_of(mb, 2);
	mac_of(mt, 3);
	switch_learn_port(b, mb, NOW);
	CHECK_EQ(switch_lookup(sw, mb, 1, NOW), (int)b->idx);
	CHECK(tx(a, mb, ma, -1, 0, NOW) > 0);
	CHECK_EQ(rx_count(b), 1);
	CHECK_EQ(rx_count(c), 0);
	CHECK_EQ(rx_count(t), 0);
	CHECK_EQ(atomic_load(&a->st.flooded), 0);
	/* a trunk's guest VLAN is unknown: nothing learned for it */
	switch_learn_port(t, mt, NOW);
	CHECK_EQ(switch_lookup(sw, mt, 1, NOW), -1);
	/* within the port's limits: a second call is a refresh */
	switch_learn_port(b, mb, NOW);
	CHECK_EQ(atomic_load(&b->nmacs), 1);
	switch_free(sw);
}

static void test_port_limit_no_evict(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_member *a, *b, *c;
	uint8_t mb[6], mc[6], m[6];
	unsigned int i;

	CHECK(sw);
	sw->macs_port = 4;	/* test hooks: the limits are fields */
	join3(sw, &a, &b, &c);
	mac_of(mb, 0x100);
	mac_of(mc, 0x200);
	CHECK(tx(b, BCAST, mb, -1, 0, NOW) > 0);
	CHECK(tx(c, BCAST, mc, -1, 0, NOW) > 0);
	for (i = 0; i < 1000; i++) {
		mac_of(m, 0x10000 + i);
		tx(a, BCAST, m, -1, i, NOW);
		rx_count(b);
		rx_count(c);
	}
	CHECK_EQ(atomic_load(&a->nmacs), 4);
	CHECK_EQ(a->st.learned, 4);
	CHECK_EQ(a->st.mac_limit, 996);
	CHECK_EQ(switch_lookup(sw, mb, 1, NOW), (int)b->idx);
	CHECK_EQ(switch_lookup(sw, mc, 1, NOW), (int)c->idx);
	/* the switch's limit: A fills it, B and C keep theirs */
	sw->macs_port = 256;
	sw->macs_max = 20;
	for (i = 0; i < 1000; i++) {
		mac_of(m, 0x20000 + i);
		tx(a, BCAST, m, -1, i, NOW);
		rx_count(b);
		rx_count(c);
	}
	CHECK_EQ(atomic_load(&sw->nmacs), 20);
	CHECK_EQ(switch_lookup(sw, mb, 1, NOW), (int)b->idx);
	CHECK_EQ(switch_lookup(sw, mc, 1, NOW), (int)c->idx);
	mac_of(m, 0x300);
	CHECK(tx(c, BCAST, m, -1, 0, NOW) > 0);	/* switch full: not learned */
	CHECK_EQ(switch_lookup(sw, m, 1, NOW), -1);
	CHECK_EQ(c->st.mac_limit, 1);
	switch_free(sw);
}

static void test_vlan_isolation(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_member *a, *b, *c;
	uint8_t ma[6], mc[6];

	CHECK(sw);
	a = join(sw, 10);
	b = join(sw, 10);
	c = join(sw, 20);
	mac_of(ma, 1);
	mac_of(mc, 3);
	CHECK(tx(a, BCAST, ma, -1, 0, NOW) > 0);
	CHECK_EQ(rx_count(b), 1);
	CHECK_EQ(rx_count(c), 0);
	CHECK(tx(c, BCAST, mc, -1, 0, NOW) > 0);
	CHECK(tx(c, ma, mc, -1, 0, NOW) > 0);	/* A's MAC is on vlan 10 */
	CHECK_EQ(rx_count(a), 0);
	CHECK_EQ(rx_count(b), 0);
	/* a tagged frame from an access port is dropped */
	CHECK_EQ(tx(a, BCAST, ma, 20, 0, NOW), -EPROTO);
	CHECK_EQ(a->st.drop_vlan, 1);
	CHECK_EQ(rx_count(c), 0);
	switch_free(sw);
}

static void test_trunk_tags(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_member *a, *c, *t;
	struct sw_vlans v;
	uint8_t ma[6], mt[6], f[64];
	uint32_t seq;
	int err, n;

	CHECK(sw);
	CHECK(!switch_vlans_parse(&v, "10,20-30", true, ':'));
	t = switch_join(sw, 1, &v, &err);
	a = join(sw, 10);
	c = join(sw, 25);
	CHECK(t && a && c);
	mac_of(ma, 1);
	mac_of(mt, 9);
	/* access -> trunk: tag added after the MACs */
	CHECK(tx(a, BCAST, ma, -1, 42, NOW) > 0);
	n = rx(t, f);
	CHECK_EQ(n, HDR + 22);
	CHECK_EQ(f[HDR + 12], 0x81);
	CHECK_EQ(f[HDR + 13], 0x00);
	CHECK_EQ(f[HDR + 14] << 8 | f[HDR + 15], 10);
	CHECK_EQ(f[HDR + 16], 0x08);
	memcpy(&seq, f + HDR + 18, 4);
	CHECK_EQ(seq, 42);
	CHECK_EQ(rx_count(c), 0);
	/* trunk -> access: tag stripped, only that VLAN's members */
	CHECK(tx(t, BCAST, mt, 25, 43, NOW) > 0);
	n = rx(c, f);
	CHECK_EQ(n, HDR + 18);
	CHECK_EQ(f[HDR + 12], 0x08);
	memcpy(&seq, f + HDR + 14, 4);
	CHECK_EQ(seq, 43);
	CHECK_EQ(rx_count(a), 0);
	CHECK_EQ(switch_lookup(sw, mt, 25, NOW), (int)t->idx);
	CHECK_EQ(switch_lookup(sw, mt, 10, NOW), -1);
	/* not in the trunk's list, or untagged: dropped */
	CHECK_EQ(tx(t, BCAST, mt, 40, 0, NOW), -EPROTO);
	CHECK_EQ(tx(t, BCAST, mt, -1, 0, NOW), -EPROTO);
	CHECK_EQ(t->st.drop_vlan, 2);
	CHECK_EQ(rx_count(a) + rx_count(c), 0);
	switch_free(sw);
}

/*
 * A frame for one receiver whose queue is full waits with the sender
 * (-EAGAIN: it stays in the guest's ring) while the receiver reads; once
 * the receiver has read nothing for SW_STALL_NS it is dropped and counted.
 * A flooded frame never waits.
 */
static void test_queue_full(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_member *a, *b, *c;
	uint8_t ma[6], mb[6], f[64];
	struct timespec pause = { 0, SW_STALL_NS + 2000000 };
	unsigned int i, ok = 0;
	uint32_t seq;

	CHECK(sw);
	a = join(sw, 1);
	b = join(sw, 1);
	mac_of(ma, 1);
	mac_of(mb, 2);
	CHECK(tx(b, BCAST, mb, -1, 0, NOW) > 0);
	CHECK_EQ(rx_count(a), 1);
	for (i = 0; i < SW_QUEUE_SLOTS; i++)
		ok += tx(a, mb, ma, -1, i, NOW) > 0;
	CHECK_EQ(ok, SW_QUEUE_SLOTS);
	/* full, the receiver has not stalled yet: the frame waits */
	CHECK_EQ(tx(a, mb, ma, -1, i, NOW), -EAGAIN);
	CHECK_EQ(tx(a, mb, ma, -1, i, NOW), -EAGAIN);
	CHECK_EQ(b->st.drop_full, 0);
	/* the receiver reads one: the same frame goes in next */
	CHECK(rx(b, f) > 0);
	CHECK(tx(a, mb, ma, -1, i, NOW) > 0);
	i++;
	CHECK_EQ(tx(a, mb, ma, -1, i, NOW), -EAGAIN);
	/* the receiver reads nothing for SW_STALL_NS: dropped, counted */
	nanosleep(&pause, NULL);
	CHECK_EQ(tx(a, mb, ma, -1, i, NOW), -ENOBUFS);
	CHECK_EQ(tx(a, mb, ma, -1, i + 1, NOW), -ENOBUFS);
	CHECK_EQ(b->st.drop_full, 2);
	/* a flooded frame never waits: dropped at the full receiver */
	c = join(sw, 1);
	CHECK(tx(a, BCAST, ma, -1, 0, NOW) > 0);
	CHECK_EQ(b->st.drop_full, 3);
	CHECK_EQ(rx_count(c), 1);
	for (i = 1; i <= SW_QUEUE_SLOTS; i++) {
		CHECK(rx(b, f) > 0);
		memcpy(&seq, f + HDR + 14, 4);
		CHECK_EQ(seq, i);	/* in order, none lost while it read */
	}
	CHECK_EQ(rx(b, f), -EAGAIN);
	/* it reads again: frames for it wait again */
	for (i = 0; i < SW_QUEUE_SLOTS; i++)
		CHECK(tx(a, mb, ma, -1, i, NOW) > 0);
	CHECK_EQ(tx(a, mb, ma, -1, i, NOW), -EAGAIN);
	CHECK(rx(b, f) > 0);
	CHECK(tx(a, mb, ma, -1, i, NOW) > 0);
	switch_free(sw);
}

static int efd_ready(const struct sw_member *m)
{
	struct pollfd p = { .fd = m->rxq[0].efd, .events = POLLIN };

	return poll(&p, 1, 0);
}

static void test_wakeup_once_per_burst(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_member *a, *b;
	uint8_t ma[6], mb[6], f[64];
	struct iovec iov;
	unsigned int i;

	CHECK(sw);
	a = join(sw, 1);
	b = join(sw, 1);
	mac_of(ma, 1);
	mac_of(mb, 2);
	/* B starts asleep: the first burst wakes it, once */
	for (i = 0; i < 5; i++) {
		iov.iov_base = f;
		iov.iov_len = test_sw_frame(f, BCAST, ma, -1, i);
		CHECK(switch_tx(a, 0, &iov, 1, HDR, NOW) > 0);
	}
	CHECK_EQ(efd_ready(b), 0);	/* nothing before the flush */
	switch_flush(a, 0);
	CHECK_EQ(efd_ready(b), 1);
	CHECK_EQ(atomic_load(&b->rxq[0].kicks), 1);
	/* B busy (frames seen): bursts write nothing */
	CHECK(switch_rx_peek_len(b, 0, HDR) > 0);
	CHECK(tx(a, BCAST, ma, -1, 9, NOW) > 0);
	CHECK_EQ(atomic_load(&b->rxq[0].kicks), 1);
	CHECK_EQ(rx_count(b), 6);	/* the last peek arms and empties efd */
	CHECK_EQ(efd_ready(b), 0);
	CHECK(tx(a, BCAST, ma, -1, 10, NOW) > 0);
	CHECK_EQ(atomic_load(&b->rxq[0].kicks), 2);
	CHECK_EQ(efd_ready(b), 1);
	CHECK_EQ(rx_count(b), 1);
	CHECK_EQ(efd_ready(b), 0);
	/*
	 * A producer takes the flag for a frame the consumer reads without
	 * peeking again (its look after asking found it): the consumer's
	 * next empty look must ask again, or it sleeps for ever.
	 */
	CHECK(tx(a, BCAST, ma, -1, 11, NOW) > 0);	/* takes the flag */
	CHECK_EQ(atomic_load(&b->rxq[0].need_wakeup), 0);
	iov.iov_base = f;
	iov.iov_len = sizeof(f);
	CHECK(switch_rx(b, 0, &iov, 1, HDR) > 0);
	CHECK_EQ(switch_rx_peek_len(b, 0, HDR), 0);
	CHECK_EQ(atomic_load(&b->rxq[0].need_wakeup), 1);
	CHECK(tx(a, BCAST, ma, -1, 12, NOW) > 0);
	CHECK_EQ(efd_ready(b), 1);
	switch_free(sw);
}

static void test_leave_reset_forget(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_member *a, *b, *c;
	uint8_t ma[6], mb[6];
	int fds = test_count_fds();

	CHECK(sw);
	join3(sw, &a, &b, &c);
	mac_of(ma, 1);
	mac_of(mb, 2);
	CHECK(tx(a, BCAST, ma, -1, 0, NOW) > 0);
	CHECK(tx(b, BCAST, mb, -1, 0, NOW) > 0);
	CHECK_EQ(atomic_load(&sw->nmacs), 2);
	/* reset: B's MACs and queued frames gone, still a member */
	CHECK(tx(a, BCAST, ma, -1, 0, NOW) > 0);
	switch_reset(b);
	CHECK_EQ(switch_lookup(sw, mb, 1, NOW), -1);
	CHECK_EQ(rx_count(b), 0);
	CHECK_EQ(atomic_load(&sw->nmacs), 1);
	/* down until its next guest: nothing queued for it meanwhile */
	CHECK(tx(a, BCAST, ma, -1, 0, NOW) > 0);
	switch_set_up(b, true);
	CHECK_EQ(rx_count(b), 0);
	CHECK(tx(a, BCAST, ma, -1, 0, NOW) > 0);
	CHECK_EQ(rx_count(b), 1);
	/* leave: A's MAC gone, frames no longer reach it */
	switch_leave(a);
	CHECK_EQ(switch_lookup(sw, ma, 1, NOW), -1);
	CHECK_EQ(atomic_load(&sw->nmacs), 0);
	rx_count(c);
	CHECK(tx(b, ma, mb, -1, 0, NOW) > 0);
	CHECK_EQ(rx_count(c), 1);
	switch_leave(b);
	switch_leave(c);
	CHECK_EQ(test_count_fds(), fds);
	switch_free(sw);
}

/* Frame @seq from @src to @dst without the flush: a burst goes on */
static int tx_burst(struct sw_member *m, const uint8_t *dst,
		    const uint8_t *src, uint32_t seq)
{
	uint8_t f[64];
	struct iovec iov = { f, 0 };

	iov.iov_len = test_sw_frame(f, dst, src, -1, seq);
	return switch_tx(m, 0, &iov, 1, HDR, NOW);
}

static _Atomic bool left;

static void *leave_thread(void *arg)
{
	switch_leave(arg);
	atomic_store(&left, true);
	return NULL;
}

/*
 * A sending burst marks each receiver used once, at its first frame to it,
 * and switch_flush() releases it: a leave in the middle of the burst waits
 * for the flush, and the burst's later frames no longer reach the member.
 * A member that leaves or resets releases what its own pairs held.
 */
static void test_burst_holds_receiver(void)
{
	struct vswitch *sw = switch_new("s0");
	struct timespec ms20 = { 0, 20000000 };
	struct sw_member *a, *b, *c;
	uint8_t ma[6], mb[6], mc[6];
	pthread_t th;
	unsigned int i;

	CHECK(sw);
	join3(sw, &a, &b, &c);
	mac_of(ma, 1);
	mac_of(mb, 2);
	mac_of(mc, 3);
	CHECK(tx(b, BCAST, mb, -1, 0, NOW) > 0);
	CHECK(tx(c, BCAST, mc, -1, 0, NOW) > 0);
	CHECK_EQ(atomic_load(&b->users), 0);
	for (i = 0; i < 4; i++)
		CHECK(tx_burst(a, mb, ma, i) > 0);
	CHECK_EQ(atomic_load(&b->users), 1);	/* once for the burst */
	CHECK_EQ(atomic_load(&c->users), 0);
	atomic_store(&left, false);
	CHECK_EQ(pthread_create(&th, NULL, leave_thread, b), 0);
	nanosleep(&ms20, NULL);
	CHECK(!atomic_load(&left));		/* waits for the burst */
	CHECK(tx_burst(a, mb, ma, 4) > 0);	/* the burst goes on */
	CHECK_EQ(b->st.drop_full, 0);
	switch_flush(a, 0);
	CHECK_EQ(pthread_join(th, NULL), 0);
	CHECK(atomic_load(&left));
	CHECK_EQ(atomic_load(&c->users), 0);
	/* a sender whose session ends mid-burst holds nothing after */
	CHECK(tx_burst(a, mc, ma, 5) > 0);
	CHECK_EQ(atomic_load(&c->users), 1);
	switch_reset(a);
	CHECK_EQ(atomic_load(&c->users), 0);
	switch_flush(a, 0);
	CHECK_EQ(atomic_load(&c->users), 0);	/* released once only */
	switch_set_up(a, true);
	CHECK(tx_burst(a, mc, ma, 6) > 0);
	switch_leave(a);
	CHECK_EQ(atomic_load(&c->users), 0);
	switch_free(sw);
}

/*
 * A sender's cached decision (the same two MACs in the same second) ends
 * the moment the table changes: the destination moves to another port, is
 * forgotten (its port's session ended), or ages out
 */
static void test_last_decision_follows_table(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_member *a, *b, *c;
	uint8_t ma[6], mb[6], mc[6];

	CHECK(sw);
	join3(sw, &a, &b, &c);
	mac_of(ma, 1);
	mac_of(mb, 2);
	mac_of(mc, 3);
	CHECK(tx(b, BCAST, mb, -1, 0, NOW) > 0);
	CHECK(tx(c, BCAST, mc, -1, 0, NOW) > 0);
	rx_count(a);
	rx_count(b);
	rx_count(c);
	/* twice to B: the second is a cache hit, B only */
	CHECK(tx(a, mb, ma, -1, 1, NOW) > 0);
	CHECK(tx(a, mb, ma, -1, 2, NOW) > 0);
	CHECK_EQ(rx_count(b), 2);
	CHECK_EQ(rx_count(c), 0);
	CHECK_EQ(a->st.flooded, 0);
	/* B's MAC moves to C (a migrated guest's announcement), same second */
	CHECK(tx(c, BCAST, mb, -1, 0, NOW) > 0);
	rx_count(a);
	rx_count(b);
	CHECK(tx(a, mb, ma, -1, 3, NOW) > 0);
	CHECK_EQ(rx_count(c), 1);
	CHECK_EQ(rx_count(b), 0);
	/* C's session ends: the MAC is forgotten, A's next frame floods */
	CHECK(tx(a, mb, ma, -1, 4, NOW) > 0);
	CHECK_EQ(rx_count(c), 1);
	switch_reset(c);
	switch_set_up(c, true);
	CHECK(tx(a, mb, ma, -1, 5, NOW) > 0);
	CHECK_EQ(a->st.flooded, 1);
	CHECK_EQ(rx_count(b), 1);
	CHECK_EQ(rx_count(c), 1);
	/* learned again on B, then aged out: the sweep ends the decision */
	CHECK(tx(b, ma, mb, -1, 0, NOW) > 0);
	rx_count(a);
	CHECK(tx(a, mb, ma, -1, 6, NOW) > 0);
	CHECK(tx(a, mb, ma, -1, 7, NOW) > 0);
	CHECK_EQ(rx_count(b), 2);
	CHECK(tx(a, mb, ma, -1, 8, NOW + SW_AGEING_S + 1) > 0);
	CHECK_EQ(switch_lookup(sw, mb, 1, NOW + SW_AGEING_S + 1), -1);
	CHECK_EQ(a->st.flooded, 2);
	switch_free(sw);
}

static void test_vlans_parse(void)
{
	struct sw_vlans v;

	CHECK(!switch_vlans_parse(&v, "1", false, ','));
	CHECK_EQ(v.access, 1);
	CHECK(!switch_vlans_parse(&v, "4094", false, ','));
	CHECK(switch_vlans_parse(&v, "0", false, ','));
	CHECK(switch_vlans_parse(&v, "4095", false, ','));
	CHECK(switch_vlans_parse(&v, "10,20", false, ','));
	CHECK(switch_vlans_parse(&v, "", false, ','));
	CHECK(!switch_vlans_parse(&v, "10:20-30", true, ':'));
	CHECK_EQ(v.access, 0);
	CHECK(v.trunk[10 / 8] & (1 << (10 % 8)));
	CHECK(v.trunk[25 / 8] & (1 << (25 % 8)));
	CHECK(!(v.trunk[31 / 8] & (1 << (31 % 8))));
	CHECK(!(v.trunk[11 / 8] & (1 << (11 % 8))));
	CHECK(switch_vlans_parse(&v, "30-20", true, ','));
	CHECK(switch_vlans_parse(&v, "10,", true, ','));
	CHECK(switch_vlans_parse(&v, "1-4095", true, ','));
	CHECK(switch_vlans_parse(&v, "a", true, ','));
}

/*
 * The table's generation ends every sender's cached decision: a sweep
 * that removes entries bumps it once, after them (ageing and a member's
 * reset), and one that removes none leaves it
 */
static void test_generation_once_per_sweep(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_member *a, *b, *c;
	uint8_t mac[6];
	uint32_t gen;
	unsigned int i;

	CHECK(sw);
	join3(sw, &a, &b, &c);
	for (i = 0; i < 3; i++) {
		mac_of(mac, 10 + i);
		CHECK(tx(a, BCAST, mac, -1, 0, NOW) > 0);
		mac_of(mac, 20 + i);
		CHECK(tx(b, BCAST, mac, -1, 0, NOW + 100) > 0);
	}
	CHECK_EQ(sw->nmacs, 6);
	gen = sw->gen;
	switch_age(sw, NOW + 50);		/* none stale */
	CHECK_EQ(sw->gen, gen);
	switch_age(sw, NOW + SW_AGEING_S + 1);	/* A's three */
	CHECK_EQ(sw->nmacs, 3);
	CHECK_EQ(sw->gen, gen + 1);
	switch_reset(b);			/* B's three */
	CHECK_EQ(sw->nmacs, 0);
	CHECK_EQ(sw->gen, gen + 2);
	switch_free(sw);
}

/*
 * A frame whose vnet header is an iovec of its own (net_tx_prepare()'s
 * host copy) and whose bytes come in pieces: the receiver gets the same
 * bytes as from one piece; untagged (the guest's iovecs handed on as
 * they are) and tagged from a trunk (the tag cut out of the pieces).
 */
static void test_header_apart(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_member *a, *b, *t;
	struct sw_vlans v;
	uint8_t ma[6], mb[6], mt[6], f[64], g[64], want[64];
	struct iovec iov[4];
	size_t n;
	int err, wn;

	CHECK(sw);
	CHECK(!switch_vlans_parse(&v, "10", true, ':'));
	a = join(sw, 10);
	b = join(sw, 10);
	t = switch_join(sw, 1, &v, &err);
	CHECK(a && b && t);
	mac_of(ma, 1);
	mac_of(mb, 2);
	mac_of(mt, 9);
	CHECK(tx(b, BCAST, mb, -1, 0, NOW) > 0);	/* B is learned */
	rx_count(a);
	rx_count(t);
	/* the reference: one piece */
	CHECK(tx(a, mb, ma, -1, 77, NOW) > 0);
	wn = rx(b, want);
	CHECK_EQ(wn, HDR + 18);
	/* header apart, the frame whole */
	n = test_sw_frame(f, mb, ma, -1, 77);
	iov[0] = (struct iovec){ f, HDR };
	iov[1] = (struct iovec){ f + HDR, n - HDR };
	CHECK_EQ(switch_tx(a, 0, iov, 2, HDR, NOW), (int)n);
	switch_flush(a, 0);
	memset(g, 0xaa, sizeof(g));
	CHECK_EQ(rx(b, g), wn);
	CHECK(!memcmp(g, want, (size_t)wn));
	/* header apart, the frame in three pieces (one cuts the MACs) */
	iov[1] = (struct iovec){ f + HDR, 5 };
	iov[2] = (struct iovec){ f + HDR + 5, 10 };
	iov[3] = (struct iovec){ f + HDR + 15, n - HDR - 15 };
	CHECK_EQ(switch_tx(a, 0, iov, 4, HDR, NOW), (int)n);
	switch_flush(a, 0);
	memset(g, 0xaa, sizeof(g));
	CHECK_EQ(rx(b, g), wn);
	CHECK(!memcmp(g, want, (size_t)wn));
	CHECK_EQ(rx_count(t), 0);	/* unicast: B alone */
	/* from the trunk, tagged, header apart: untagged at the access port */
	n = test_sw_frame(f, mb, mt, 10, 77);
	iov[0] = (struct iovec){ f, HDR };
	iov[1] = (struct iovec){ f + HDR, 14 };	/* the tag cut in two */
	iov[2] = (struct iovec){ f + HDR + 14, n - HDR - 14 };
	CHECK_EQ(switch_tx(t, 0, iov, 3, HDR, NOW), (int)n);
	switch_flush(t, 0);
	memset(g, 0xaa, sizeof(g));
	CHECK_EQ(rx(b, g), wn);
	CHECK(!memcmp(g + HDR + 12, want + HDR + 12, (size_t)wn - HDR - 12));
	CHECK(!memcmp(g + HDR + 6, mt, 6));
	CHECK_EQ(rx_count(a), 0);
	switch_free(sw);
}

/*
 * Frame @seq from @src to @dst (@vid: its tag, -1 none) as vnetd's TX path
 * hands it (the vnet header apart), through switch_tx_fast() first as
 * host_switch_tx() does, without the flush. @flags: its vnet header's
 * flags byte. Return: its result; *@fast: switch_tx_fast() took it
 */
static int tx_fast(struct sw_member *m, const uint8_t *dst,
		   const uint8_t *src, int vid, uint32_t seq, uint8_t flags,
		   bool *fast)
{
	uint8_t f[64];
	size_t n = test_sw_frame(f, dst, src, vid, seq);
	struct iovec iov[2] = { { f, HDR }, { f + HDR, n - HDR } };
	ssize_t r;

	f[0] = flags;
	r = switch_tx_fast(m, 0, iov, 2, HDR, NOW);
	*fast = r > 0;
	if (r > 0)
		return (int)r;
	return (int)switch_tx(m, 0, iov, 2, HDR, NOW);
}

/* Read @n frames of @m: their seqs must be @first, @first + 1, ...; then
 * @more frames of any seq, and no more */
static void rx_in_order(struct sw_member *m, uint32_t first, unsigned int n,
			int more)
{
	uint8_t f[64];
	uint32_t seq;
	unsigned int i;

	for (i = 0; i < n; i++) {
		CHECK_EQ(rx(m, f), HDR + 18);
		memcpy(&seq, f + HDR + 14, 4);
		CHECK_EQ(seq, first + i);
	}
	CHECK_EQ(rx_count(m), more);
}

/*
 * switch_tx_fast() takes a frame only after switch_tx() queued one of the
 * same decision, only while that decision holds and its receiver takes
 * frames (held once per burst);
 * what it takes arrives as switch_tx() would deliver it, in order with
 * the frames switch_tx() queued. A tagged frame, an offload request, a
 * policed member, a moved MAC or a full queue go to switch_tx().
 */
static void test_tx_fast(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_police_cfg pc = { .pps = 1000000 };
	struct sw_member *a, *b, *c;
	uint8_t ma[6], mb[6], mc[6], g[64];
	unsigned int i, fast = 0;
	uint32_t seq0 = 0;
	bool f;

	CHECK(sw);
	join3(sw, &a, &b, &c);
	mac_of(ma, 1);
	mac_of(mb, 2);
	mac_of(mc, 3);
	CHECK(tx(b, BCAST, mb, -1, 0, NOW) > 0);
	CHECK(tx(c, BCAST, mc, -1, 0, NOW) > 0);
	CHECK(tx(a, BCAST, ma, -1, 0, NOW) > 0);	/* all three learned */
	rx_count(a);
	rx_count(b);
	rx_count(c);
	/* a burst of 5 to B: the first decides, the others go inline */
	for (i = 0; i < 5; i++) {
		CHECK_EQ(tx_fast(a, mb, ma, -1, i, 0, &f), HDR + 18);
		fast += f;
		CHECK_EQ(f, i > 0);
	}
	/* a broadcast between (switch_tx()), then inline again: in order */
	CHECK_EQ(tx_fast(a, BCAST, ma, -1, 5, 0, &f), HDR + 18);
	CHECK(!f);
	CHECK_EQ(tx_fast(a, mb, ma, -1, 6, 0, &f), HDR + 18);
	CHECK(!f);	/* the flood was the last decision */
	CHECK_EQ(tx_fast(a, mb, ma, -1, 7, 0, &f), HDR + 18);
	CHECK(f);
	/* tagged on an access port, an offload asked for: not inline */
	CHECK_EQ(tx_fast(a, mb, ma, 1, 99, 0, &f), -EPROTO);
	CHECK(!f);
	CHECK_EQ(a->st.drop_vlan, 1);
	CHECK_EQ(tx_fast(a, mb, ma, -1, 8, 0, &f), HDR + 18);
	CHECK(f);
	CHECK_EQ(tx_fast(a, mb, ma, -1, 9, 1, &f), -EMSGSIZE);
	CHECK(!f);	/* NEEDS_CSUM without a checksum in the frame */
	switch_flush(a, 0);
	rx_in_order(b, 0, 9, 0);
	CHECK_EQ(rx_count(c), 1);	/* the broadcast */
	/* a new burst holds B again at its first frame, inline, once */
	CHECK_EQ(atomic_load(&b->users), 0);
	CHECK_EQ(tx_fast(a, mb, ma, -1, 10, 0, &f), HDR + 18);
	CHECK(f);
	CHECK_EQ(tx_fast(a, mb, ma, -1, 11, 0, &f), HDR + 18);
	CHECK(f);
	CHECK_EQ(atomic_load(&b->users), 1);
	/* B's MAC moves to C: the decision ends, the frame goes to C */
	CHECK(tx(c, BCAST, mb, -1, 0, NOW) > 0);
	CHECK_EQ(tx_fast(a, mb, ma, -1, 12, 0, &f), HDR + 18);
	CHECK(!f);
	switch_flush(a, 0);
	rx_count(a);
	rx_in_order(b, 10, 2, 1);	/* and C's broadcast */
	rx_in_order(c, 12, 1, 0);
	/* B's queue fills inline; the frame that finds it full waits
	 * (switch_tx()), the next goes in once B read one */
	CHECK(tx(b, BCAST, mb, -1, 0, NOW) > 0);
	rx_count(a);
	rx_count(c);
	for (i = 0; i < SW_QUEUE_SLOTS; i++)
		CHECK_EQ(tx_fast(a, mb, ma, -1, i, 0, &f), HDR + 18);
	CHECK_EQ(tx_fast(a, mb, ma, -1, i, 0, &f), -EAGAIN);
	CHECK(!f);
	CHECK_EQ(b->st.drop_full, 0);
	CHECK_EQ(rx(b, g), HDR + 18);
	CHECK(!memcmp(g + HDR + 14, &seq0, 4));
	CHECK_EQ(tx_fast(a, mb, ma, -1, i, 0, &f), HDR + 18);
	CHECK(f);	/* it was held: not policed, no policer anyway */
	switch_flush(a, 0);
	rx_in_order(b, 1, SW_QUEUE_SLOTS, 0);
	CHECK_EQ(atomic_load(&b->users), 0);
	/* B down at a burst's first frame to it: not queued, as by
	 * switch_tx() (it drops the frame) */
	switch_set_up(b, false);
	CHECK_EQ(tx_fast(a, mb, ma, -1, 0, 0, &f), HDR + 18);
	CHECK(!f);
	CHECK_EQ(tx_fast(a, mb, ma, -1, 1, 0, &f), HDR + 18);
	CHECK(!f);
	switch_flush(a, 0);
	CHECK_EQ(atomic_load(&b->users), 0);
	switch_set_up(b, true);
	CHECK_EQ(rx_count(b), 0);
	/* a policed member's frames all go through switch_tx() */
	switch_set_police(a, &pc);
	for (i = 0; i < 3; i++) {
		CHECK_EQ(tx_fast(a, mb, ma, -1, i, 0, &f), HDR + 18);
		CHECK(!f);
	}
	switch_flush(a, 0);
	rx_in_order(b, 0, 3, 0);
	CHECK_EQ(fast, 4);
	switch_free(sw);
}

/*
 * switch_hold() as switch_tx_fast() calls it from here: the test links with
 * -Wl,--wrap=switch_hold (Makefile), so that a hook can run between the
 * fast path's look at the cached decision and its hold on the receiver.
 */
bool __real_switch_hold(struct sw_member *m, unsigned int pair,
			unsigned int idx);
bool __wrap_switch_hold(struct sw_member *m, unsigned int pair,
			unsigned int idx);
static void (*hold_hook)(void);

bool __wrap_switch_hold(struct sw_member *m, unsigned int pair,
			unsigned int idx)
{
	void (*h)(void) = hold_hook;

	hold_hook = NULL;
	if (h)
		h();
	return __real_switch_hold(m, pair, idx);
}

static struct sw_member *race_leaver, *race_joiner;

/* B leaves and a new member takes its slot, as the control thread may do
 * between a sender's look and its hold */
static void leave_and_rejoin(void)
{
	struct vswitch *sw = race_leaver->sw;
	unsigned int idx = race_leaver->idx;

	switch_leave(race_leaver);
	race_joiner = join(sw, 1);
	CHECK(race_joiner);
	CHECK_EQ(race_joiner->idx, idx);
}

/*
 * A receiver that leaves after switch_tx_fast() matched the cached
 * decision, and a new member in its slot before the hold: the frame must
 * not go to the queue the decision named (freed with the member that
 * left) but through switch_tx() (flooded: the MAC is forgotten).
 */
static void test_tx_fast_leave_race(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_member *a, *b, *c;
	uint8_t ma[6], mb[6], mc[6];
	bool f;

	CHECK(sw);
	join3(sw, &a, &b, &c);
	mac_of(ma, 1);
	mac_of(mb, 2);
	mac_of(mc, 3);
	CHECK(tx(b, BCAST, mb, -1, 0, NOW) > 0);
	CHECK(tx(c, BCAST, mc, -1, 0, NOW) > 0);
	CHECK(tx(a, BCAST, ma, -1, 0, NOW) > 0);	/* all three learned */
	rx_count(a);
	rx_count(b);
	rx_count(c);
	CHECK_EQ(tx_fast(a, mb, ma, -1, 0, 0, &f), HDR + 18);
	CHECK(!f);		/* decides, caches B's queue */
	switch_flush(a, 0);	/* the next burst holds B again */
	CHECK_EQ(rx_count(b), 1);
	race_leaver = b;
	hold_hook = leave_and_rejoin;
	CHECK_EQ(tx_fast(a, mb, ma, -1, 1, 0, &f), HDR + 18);
	CHECK(!hold_hook);	/* the fast path got as far as the hold */
	CHECK(!f);
	switch_flush(a, 0);
	CHECK_EQ(rx_count(c), 1);		/* flooded */
	CHECK_EQ(rx_count(race_joiner), 1);
	switch_free(sw);
}

/*
 * switch_rx_fast() writes what switch_rx() writes: the common frame (an
 * access member, a 12-byte header, one buffer that takes it) inline, and
 * hands every other to switch_rx(): buffers in pieces, a trunk member's
 * tagged frame, another header size, none waiting
 */
static void test_rx_fast(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_member *a, *b, *t;
	struct sw_vlans v;
	uint8_t ma[6], want[64], g[64], h[64];
	struct iovec one = { g, sizeof(g) };
	struct iovec two[2] = { { g, 20 }, { h, 44 } };
	unsigned int i;
	size_t pos;
	int err, wn, tn;

	CHECK(sw);
	CHECK(!switch_vlans_parse(&v, "1", true, ':'));
	a = join(sw, 1);
	b = join(sw, 1);
	t = switch_join(sw, 1, &v, &err);
	CHECK(a && b && t);
	mac_of(ma, 1);
	for (i = 0; i < 4; i++)
		CHECK(tx(a, BCAST, ma, -1, 5, NOW) > 0);
	/* the reference: switch_rx() */
	memset(want, 0x55, sizeof(want));
	wn = rx(b, want);
	CHECK_EQ(wn, HDR + 18);
	memset(g, 0xaa, sizeof(g));
	CHECK_EQ(switch_rx_fast(b, 0, &one, 1, HDR), wn);
	CHECK(!memcmp(g, want, (size_t)wn));
	CHECK_EQ(g[wn], 0xaa);
	/* a first buffer too short for the frame: in pieces, as switch_rx() */
	memset(g, 0xaa, sizeof(g));
	memset(h, 0xaa, sizeof(h));
	CHECK_EQ(switch_rx_fast(b, 0, two, 2, HDR), wn);
	CHECK(!memcmp(g, want, 20));
	CHECK_EQ(g[20], 0xaa);
	CHECK(!memcmp(h, want + 20, (size_t)wn - 20));
	/* a 10-byte header: as switch_rx() */
	memset(g, 0xaa, sizeof(g));
	CHECK_EQ(switch_rx_fast(b, 0, &one, 1, 10), wn - 2);
	CHECK(!memcmp(g, want, 10));
	CHECK(!memcmp(g + 10, want + HDR, (size_t)wn - HDR));
	CHECK_EQ(switch_rx_fast(b, 0, &one, 1, HDR), -EAGAIN);
	/* a slot with the sender's vnet header (an offload passed on): its
	 * header to the guest, as switch_rx() writes it */
	memset(h, 0, SW_VNET_HDR);
	h[1] = VIRTIO_NET_HDR_GSO_NONE;
	memcpy(h + SW_VNET_HDR, want + HDR, (size_t)wn - HDR);
	h[0] = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	h[2] = 7;	/* hdr_len */
	/* as sw_offl_push() queues it: the length is the frame's */
	CHECK_EQ(swq_reserve(&b->rxq[0].q, 1, &pos), 0);
	memcpy(swq_slot_buf(&b->rxq[0].q, pos), h, SW_VNET_HDR + (size_t)wn - HDR);
	swq_publish(&b->rxq[0].q, pos, (uint32_t)wn - HDR, 1 | SW_META_VNET);
	CHECK_EQ(switch_rx_fast(b, 0, &one, 1, HDR), wn);
	CHECK(!memcmp(g, h, SW_VNET_HDR));
	CHECK(!memcmp(g + HDR, want + HDR, (size_t)wn - HDR));
	/* a trunk gets the tag, as from switch_rx() */
	tn = switch_rx(t, 0, &one, 1, HDR);
	CHECK_EQ(tn, HDR + 22);
	memcpy(h, g, (size_t)tn);
	memset(g, 0xaa, sizeof(g));
	CHECK_EQ(switch_rx_fast(t, 0, &one, 1, HDR), tn);
	CHECK(!memcmp(g, h, (size_t)tn));
	switch_free(sw);
}

static unsigned int clock_reads;

/* switch_tx_now()'s clock for test_tx_now_per_burst(): counts its reads */
static uint32_t counting_clock(void)
{
	return NOW + clock_reads++;
}

/*
 * The MAC table's time is read at a burst's first frame and every
 * SW_SEC_FRAMES frames, and again after switch_flush() or switch_reset()
 */
static void test_tx_now_per_burst(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_member *a;
	unsigned int i;

	CHECK(sw);
	a = join(sw, 1);
	CHECK(a);
	clock_reads = 0;
	for (i = 0; i < SW_SEC_FRAMES; i++)
		CHECK_EQ(switch_tx_now(a, 0, counting_clock), NOW);
	CHECK_EQ(clock_reads, 1);
	CHECK_EQ(switch_tx_now(a, 0, counting_clock), NOW + 1);
	CHECK_EQ(clock_reads, 2);
	CHECK_EQ(switch_tx_now(a, 0, counting_clock), NOW + 1);
	switch_flush(a, 0);	/* the burst ends */
	CHECK_EQ(switch_tx_now(a, 0, counting_clock), NOW + 2);
	CHECK_EQ(clock_reads, 3);
	switch_reset(a);
	switch_set_up(a, true);
	CHECK_EQ(switch_tx_now(a, 0, counting_clock), NOW + 3);
	CHECK_EQ(clock_reads, 4);
	switch_free(sw);
}

#ifndef VNET_SANITIZED
static void test_no_alloc_per_frame(void)
{
	struct vswitch *sw = switch_new("s0");
	struct sw_member *a, *b, *c;
	uint8_t ma[6], mb[6], f[64];
	unsigned long n;
	unsigned int i;

	CHECK(sw);
	a = join(sw, 1);
	b = join(sw, 1);
	c = join(sw, 2);
	mac_of(ma, 1);
	mac_of(mb, 2);
	alloc_count_start();
	for (i = 0; i < 20000; i++) {
		tx(a, i % 2 ? mb : BCAST, ma, -1, i, NOW + i / 1000);
		tx(b, ma, mb, -1, i, NOW + i / 1000);
		while (rx(a, f) > 0 || rx(b, f) > 0)
			;
	}
	n = alloc_count_stop();
	CHECK_EQ(n, 0);
	CHECK_EQ(rx_count(c), 0);
	switch_free(sw);
}
#else
static void test_no_alloc_per_frame(void)
{
	SKIP("sanitizer build: ASan owns the allocator, run the release build");
}
#endif

int main(void)
{
	RUN(test_learn_flood_unicast);
	RUN(test_never_back_to_source);
	RUN(test_ageing);
	RUN(test_ageing_clock_behind);
	RUN(test_learn_port_mac);
	RUN(test_port_limit_no_evict);
	RUN(test_vlan_isolation);
	RUN(test_trunk_tags);
	RUN(test_queue_full);
	RUN(test_wakeup_once_per_burst);
	RUN(test_leave_reset_forget);
	RUN(test_burst_holds_receiver);
	RUN(test_last_decision_follows_table);
	RUN(test_generation_once_per_sweep);
	RUN(test_header_apart);
	RUN(test_tx_fast);
	RUN(test_tx_fast_leave_race);
	RUN(test_rx_fast);
	RUN(test_tx_now_per_burst);
	RUN(test_vlans_parse);
	RUN(test_no_alloc_per_frame);
	return test_exit();
}
