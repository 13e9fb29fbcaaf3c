// SPDX-License-Identifier: MIT
/*
 * switch.c - the learning switch's core (see switch.h): members, the MAC
 * table, VLANs, the forwarding decision and the hand-off to the receiving
 * pairs' queues.
 *
 * The MAC table is open-addressed, SW_WAYS entries per bucket, shared by
 * every sending worker without locks. An entry's key word is claimed from
 * 0 by compare-and-swap, then its time and port are written; a reader
 * takes an entry whose port is 0 as absent, and re-reads the key after
 * the port so that an entry reused meanwhile is a miss (a flood), never a
 * wrong port. The port word changes hands only by compare-and-swap: a
 * move to another member, removal by ageing or by its member leaving; the
 * winner adjusts the members' counts. A member at its limit (or the
 * switch at its) learns nothing more and never takes another member's
 * entry: nothing is evicted to make room.
 *
 * Every change of an entry's port bumps the table's generation (a sweep
 * that removes entries, once after them). A sending pair keeps its last
 * unicast decision (both MACs, the second, the generation) and reuses it
 * for the next frame with the same MACs while neither the generation nor
 * the second changed (sw_decide()): a stream's frames skip learning and
 * the lookup. Once a plain frame of that decision was queued to a
 * receiver of one pair, the decision keeps that queue (sw_last.q), and
 * the stream's next plain frames are queued there inline by the host side
 * (switch_tx_fast()), which holds the receiver as sw_hold() does
 * (switch_hold()); a full queue or any other frame comes here.
 *
 * Members are slots of the switch, never freed while it lives. A sending
 * pair marks itself a user of a receiving member at its burst's first
 * frame to it, then checks the member is active and up (sw_hold()), and
 * stays a user until switch_flush() ends the burst. A leaving member
 * clears active first and waits until it has no users before it frees
 * its queues (a resetting one clears up, waits the same way, then drops
 * what is queued): no locks on the frame path, and no locked instruction
 * per frame either. Both sides' accesses are sequentially consistent:
 * either the sender's increment comes first and the leaver waits for its
 * flush, or the leaver's store comes first and the sender sees the member
 * gone. A burst that found the member there hands it its later frames
 * without looking again: they reach the queues the leave frees or the
 * reset empties after the flush, as if sent before the leave or reset.
 * The wait is bounded because every burst ends in switch_flush(): the
 * data path's net_tx_burst() flushes on every way out, frames left in the
 * guest's ring (-EAGAIN) included, and so do the uplink's burst and
 * SEND_RARP; nothing between a burst's frames and its flush sleeps or
 * waits for the control thread.
 */
#include <endian.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "eth.h"
#include "iov.h"
#include "switch.h"
#include "switch_hash.h"
#include "switch_offl.h"
#include "util.h"

#define SW_KEY_VALID	(1ULL << 63)
#define SW_CLK_FRAMES	64	/* the policer's clock: re-read within a burst */

/* The policers' clock: a vDSO read, no syscall */
static uint64_t sw_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static inline uint64_t sw_key(const uint8_t *mac, uint16_t vlan)
{
	uint32_t hi;
	uint16_t lo;
	uint64_t k;

	/* the MAC as a big-endian number: two loads, not six */
	memcpy(&hi, mac, 4);
	memcpy(&lo, mac + 4, 2);
	k = (uint64_t)be32toh(hi) << 16 | be16toh(lo);
	return SW_KEY_VALID | k << 12 | vlan;
}

static inline struct sw_entry *sw_bucket(const struct vswitch *sw, uint64_t key)
{
	uint64_t h = (key * 0x9E3779B97F4A7C15ULL) >> 32;

	return &sw->table[(h & (sw->nbuckets - 1)) * SW_WAYS];
}

/**
 * switch_new() - Make an empty switch
 * @name:	Its name, 1..SW_NAME_LEN-1 bytes
 *
 * Context: control thread
 * Return: the switch, NULL with errno set (EINVAL: bad name, ENOMEM)
 */
struct vswitch *switch_new(const char *name)
{
	struct vswitch *sw;
	unsigned int i;

	if (!name || !*name || strlen(name) >= SW_NAME_LEN) {
		errno = EINVAL;
		return NULL;
	}
	sw = calloc(1, sizeof(*sw));
	if (!sw)
		return NULL;
	strcpy(sw->name, name);
	sw->ageing_s = SW_AGEING_S;
	sw->macs_port = SW_MACS_PORT;
	sw->macs_max = SW_MACS_SWITCH;
	sw->nbuckets = 2 * SW_MACS_SWITCH / SW_WAYS;
	sw->clock_ns = sw_clock_ns;
	sw->table = calloc((size_t)sw->nbuckets * SW_WAYS, sizeof(*sw->table));
	if (!sw->table) {
		free(sw);
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < SW_MAX_MEMBERS; i++) {
		sw->m[i].sw = sw;
		sw->m[i].idx = i;
	}
	return sw;
}

/*
 * Release what @m's sending pair @pair holds (sw_hold()) without waking
 * anyone: its burst was cut short (@m's workers no longer run).
 */
static void sw_unhold(struct sw_member *m, unsigned int pair)
{
	uint64_t h = m->txp[pair].holds;

	m->txp[pair].holds = 0;
	m->txp[pair].live = 0;
	memset(m->txp[pair].touchq, 0, sizeof(m->txp[pair].touchq));
	while (h) {
		atomic_fetch_sub_explicit(&m->sw->m[__builtin_ctzll(h)].users, 1,
					  memory_order_release);
		h &= h - 1;
	}
}

/* Release every sending pair's holds of @m (its workers no longer run) */
static void sw_unhold_all(struct sw_member *m)
{
	unsigned int i;

	for (i = 0; m->txp && i < m->npairs; i++)
		sw_unhold(m, i);
}

/**
 * switch_free() - Free a switch whose members all left
 * @sw:		Switch, or NULL
 */
void switch_free(struct vswitch *sw)
{
	unsigned int i;

	if (!sw)
		return;
	for (i = 0; i < SW_MAX_MEMBERS; i++)	/* no worker runs: no burst */
		if (sw->m[i].used)
			sw_unhold_all(&sw->m[i]);
	for (i = 0; i < SW_MAX_MEMBERS; i++)
		if (sw->m[i].used)
			switch_leave(&sw->m[i]);
	free(sw->table);
	free(sw);
}

/**
 * switch_carries() - Does @m carry @vlan?
 * @m:		Member
 * @vlan:	VLAN, 1..4094
 *
 * Return: true if frames of @vlan may enter and leave @m
 */
bool switch_carries(const struct sw_member *m, uint16_t vlan)
{
	if (m->vlans.access)
		return m->vlans.access == vlan;
	return vlan < 4096 && (m->vlans.trunk[vlan / 8] & (1u << (vlan % 8)));
}

static void sw_member_free(struct sw_member *m)
{
	unsigned int i;

	if (m->rxq) {
		for (i = 0; i < m->npairs; i++) {
			swq_fini(&m->rxq[i].q);
			if (m->rxq[i].efd >= 0)
				close(m->rxq[i].efd);
		}
	}
	free(m->rxq);
	free(m->txp);
	m->rxq = NULL;
	m->txp = NULL;
	m->npairs = 0;
	m->used = false;
}

/**
 * switch_join() - Add a member
 * @sw:		Switch
 * @npairs:	The member's queue pairs, 1..64
 * @vlans:	The VLANs it carries (an access VLAN, or a trunk's set)
 * @err:	Output on failure: -ENOSPC (SW_MAX_MEMBERS already),
 *		-EINVAL (@npairs or no VLAN), -ENOMEM, or an eventfd() error
 *
 * Allocates the member's hand-off queues and eventfds, the only
 * allocation of its life.
 *
 * Context: control thread
 * Return: the member, NULL on failure
 */
struct sw_member *switch_join(struct vswitch *sw, unsigned int npairs,
			      const struct sw_vlans *vlans, int *err)
{
	struct sw_member *m = NULL;
	unsigned int i;
	int ret;

	if (!npairs || npairs > 64 ||
	    (vlans->access > SW_VLAN_MAX)) {
		*err = -EINVAL;
		return NULL;
	}
	for (i = 0; i < SW_MAX_MEMBERS && !m; i++)
		if (!sw->m[i].used)
			m = &sw->m[i];
	if (!m) {
		*err = -ENOSPC;
		return NULL;
	}
	m->used = true;
	m->vlans = *vlans;
	atomic_store(&m->offl, 0);
	m->macs_max = 0;
	memset(&m->st, 0, sizeof(m->st));
	atomic_store(&m->nmacs, 0);
	m->rxq = calloc(npairs, sizeof(*m->rxq));
	m->txp = calloc(npairs, sizeof(*m->txp));
	memset(&m->police, 0, sizeof(m->police));
	if (!m->rxq || !m->txp) {
		ret = -ENOMEM;
		goto err;
	}
	for (i = 0; i < npairs; i++)
		m->rxq[i].efd = -1;
	m->npairs = npairs;
	for (i = 0; i < npairs; i++) {
		struct sw_rxq *r = &m->rxq[i];

		ret = swq_init(&r->q, SW_QUEUE_SLOTS, SW_SLOT_SIZE);
		if (ret)
			goto err;
		r->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (r->efd < 0) {
			ret = -errno;
			goto err;
		}
		/* the consumer is asleep until told otherwise */
		atomic_store(&r->need_wakeup, 1);
	}
	atomic_store(&m->up, true);
	atomic_store(&m->active, true);
	return m;

err:
	sw_member_free(m);
	*err = ret;
	return NULL;
}

/* An entry's port changed: every sender's cached decision ends */
static inline void sw_changed(struct vswitch *sw)
{
	atomic_fetch_add_explicit(&sw->gen, 1, memory_order_release);
}

/* Remove every entry pointing to member slot @idx (any thread) */
static void sw_forget(struct vswitch *sw, unsigned int idx)
{
	size_t i, n = (size_t)sw->nbuckets * SW_WAYS;
	uint32_t want = idx + 1;
	bool changed = false;

	for (i = 0; i < n; i++) {
		struct sw_entry *e = &sw->table[i];

		if (atomic_load_explicit(&e->port, memory_order_relaxed) != want)
			continue;
		if (!atomic_compare_exchange_strong(&e->port, &want, 0)) {
			want = idx + 1;
			continue;
		}
		atomic_fetch_sub(&sw->m[idx].nmacs, 1);
		atomic_fetch_sub(&sw->nmacs, 1);
		atomic_store(&e->key, 0);
		changed = true;
	}
	if (changed)
		sw_changed(sw);	/* once per sweep: after every removal */
}

/**
 * switch_leave() - Remove a member: it forgets its MACs, its queued
 *		    frames are dropped and its queues freed
 * @m:		Member (its own workers no longer run)
 *
 * Waits (yielding) until no sending pair is inside a burst that handed
 * @m a frame (at most one burst: switch_flush() ends each). What @m's own
 * pairs hold of others is released first.
 *
 * Context: control thread
 */
void switch_leave(struct sw_member *m)
{
	if (!m || !m->used)
		return;
	sw_unhold_all(m);
	atomic_store(&m->active, false);
	while (atomic_load(&m->users))
		sched_yield();
	sw_forget(m->sw, m->idx);
	/* also without entries: a sender's cached decision (sw_last.q) may
	 * name its queue, which is freed now (see switch_tx_fast()) */
	sw_changed(m->sw);
	sw_member_free(m);
}

/**
 * switch_set_up() - Say whether a guest takes a member's frames
 * @m:		Member (a new one is up)
 * @up:		true: frames for it are queued; false: they are not (no
 *		guest: they would reach the next session stale)
 */
void switch_set_up(struct sw_member *m, bool up)
{
	atomic_store(&m->up, up);
}

/**
 * switch_set_police() - Set a member's ingress policer
 * @m:		Member, before its guest sends (its workers do not run)
 * @cfg:	Limits (checked where they entered); all 0: no policer
 *
 * The buckets are the port's, full, shared by its sending pairs
 * (switch_police.h).
 *
 * Context: control thread
 */
void switch_set_police(struct sw_member *m, const struct sw_police_cfg *cfg)
{
	uint64_t now = m->sw->clock_ns();
	unsigned int i;

	m->police = *cfg;
	switch_police_init(&m->pol, cfg, m->npairs, now);
	for (i = 0; i < m->npairs; i++) {
		switch_police_pair(&m->txp[i].pol, &m->pol);
		m->txp[i].clk_left = 0;
	}
}

/**
 * switch_set_offloads() - Say which offloads a member's guest takes
 * @m:		Member (down: before switch_set_up(true))
 * @features:	Its guest's negotiated virtio-net features
 * @hdr_len:	Its vnet header bytes
 *
 * Senders then pass frames asking for those offloads on as they are and
 * do the others in software for it (switch_offl.c).
 */
void switch_set_offloads(struct sw_member *m, uint64_t features,
			 unsigned int hdr_len)
{
	atomic_store(&m->offl, sw_offl_mask(features, hdr_len));
}

/**
 * switch_reset() - A member's session ended: forget its MACs and drop the
 *		    frames queued for it; it is down until switch_set_up()
 * @m:		Member; its workers are paused, other members go on
 *
 * Context: control thread
 */
void switch_reset(struct sw_member *m)
{
	unsigned int i;
	uint64_t v;

	atomic_store(&m->up, false);
	sw_unhold_all(m);	/* its own bursts were cut short, if at all */
	while (atomic_load(&m->users))
		sched_yield();	/* a burst handing to it ends first */
	sw_forget(m->sw, m->idx);
	for (i = 0; i < m->npairs; i++) {
		swq_drain(&m->rxq[i].q);
		if (read(m->rxq[i].efd, &v, sizeof(v)) < 0)
			v = 0;	/* nothing written: nothing to drain */
		atomic_store(&m->rxq[i].need_wakeup, 1);
		m->rxq[i].kicks_seen = atomic_load(&m->rxq[i].kicks);
		memset(&m->txp[i].wait, 0, sizeof(m->txp[i].wait));
		m->txp[i].held = false;
		m->txp[i].last.port = 0;
		m->txp[i].last.q = NULL;
		m->txp[i].clk_left = 0;
		m->txp[i].sec_left = 0;
	}
}

/*
 * Not seen for longer than the ageing time. Signed: a sender whose @now is
 * a second behind another's (read before it was preempted) sees that
 * entry's time as ahead of it, not as 4 billion seconds old.
 */
static inline bool sw_stale(const struct vswitch *sw, uint32_t now,
			    const struct sw_entry *e)
{
	int32_t age = (int32_t)(now - atomic_load_explicit(&e->seen,
							   memory_order_relaxed));

	return age > (int32_t)sw->ageing_s;
}

/*
 * Find @key's live entry. Return: its member slot + 1, 0 if absent or
 * stale; *@ep: the entry if its key matched
 */
static uint32_t sw_find(struct vswitch *sw, uint64_t key, uint32_t now,
			struct sw_entry **ep)
{
	struct sw_entry *b = sw_bucket(sw, key);
	unsigned int w;
	uint32_t port;

	*ep = NULL;
	for (w = 0; w < SW_WAYS; w++) {
		if (atomic_load_explicit(&b[w].key, memory_order_acquire) != key)
			continue;
		port = atomic_load_explicit(&b[w].port, memory_order_acquire);
		if (atomic_load_explicit(&b[w].key, memory_order_acquire) != key)
			return 0;	/* reused meanwhile: a miss */
		*ep = &b[w];
		if (port && sw_stale(sw, now, &b[w]))
			return 0;	/* stale: flood until the sweep */
		return port;
	}
	return 0;
}

/**
 * switch_lookup() - Where a MAC lives
 * @sw:		Switch
 * @mac:	MAC
 * @vlan:	VLAN
 * @now:	Time, seconds
 *
 * Return: member slot, -1 if unknown (or aged)
 */
int switch_lookup(struct vswitch *sw, const uint8_t *mac, uint16_t vlan,
		  uint32_t now)
{
	struct sw_entry *e;
	uint32_t port = sw_find(sw, sw_key(mac, vlan), now, &e);

	return port ? (int)port - 1 : -1;
}

/* Take one of the limits for @m; false (counted) if at one */
static bool sw_reserve(struct sw_member *m)
{
	struct vswitch *sw = m->sw;

	if (atomic_fetch_add(&m->nmacs, 1) >=
	    (m->macs_max ? m->macs_max : sw->macs_port)) {
		atomic_fetch_sub(&m->nmacs, 1);
		goto limit;
	}
	if (atomic_fetch_add(&sw->nmacs, 1) >= sw->macs_max) {
		atomic_fetch_sub(&sw->nmacs, 1);
		atomic_fetch_sub(&m->nmacs, 1);
		goto limit;
	}
	return true;
limit:
	atomic_fetch_add_explicit(&m->st.mac_limit, 1, memory_order_relaxed);
	return false;
}

static void sw_unreserve(struct sw_member *m)
{
	atomic_fetch_sub(&m->nmacs, 1);
	atomic_fetch_sub(&m->sw->nmacs, 1);
}

/* Learn that @mac (its key @key: sw_key(@mac, its VLAN)) sent from @m */
static void sw_learn(struct sw_member *m, const uint8_t *mac, uint64_t key,
		     uint32_t now)
{
	struct vswitch *sw = m->sw;
	uint64_t zero;
	uint32_t want = m->idx + 1, port;
	struct sw_entry *e, *b;
	unsigned int w;

	if (mac[0] & 1)
		return;		/* a group address is nobody's source */
	port = sw_find(sw, key, now, &e);
	if (e) {
		uint32_t cur = atomic_load_explicit(&e->port, memory_order_relaxed);

		if (cur == want) {
			if ((int32_t)(now - atomic_load_explicit(&e->seen,
					memory_order_relaxed)) > 0)
				atomic_store_explicit(&e->seen, now,
						      memory_order_relaxed);
			return;
		}
		if (!cur)
			return;		/* being written or removed */
		(void)port;
		/* the station moved here: take the entry if within limits */
		if (!sw_reserve(m))
			return;
		atomic_store_explicit(&e->seen, now, memory_order_relaxed);
		if (!atomic_compare_exchange_strong(&e->port, &cur, want)) {
			sw_unreserve(m);
			return;
		}
		atomic_fetch_sub(&sw->m[cur - 1].nmacs, 1);
		atomic_fetch_sub(&sw->nmacs, 1);
		sw_changed(sw);
		atomic_fetch_add_explicit(&m->st.learned, 1, memory_order_relaxed);
		return;
	}
	if (!sw_reserve(m))
		return;
	b = sw_bucket(sw, key);
	for (w = 0; w < SW_WAYS; w++) {
		zero = 0;
		if (atomic_load_explicit(&b[w].key, memory_order_relaxed))
			continue;
		if (!atomic_compare_exchange_strong(&b[w].key, &zero, key)) {
			if (zero == key)
				break;	/* another sender learned it now */
			continue;
		}
		atomic_store_explicit(&b[w].seen, now, memory_order_relaxed);
		atomic_store_explicit(&b[w].port, want, memory_order_release);
		sw_changed(sw);
		atomic_fetch_add_explicit(&m->st.learned, 1, memory_order_relaxed);
		return;
	}
	/* bucket full (or raced): nothing is evicted */
	sw_unreserve(m);
	if (w == SW_WAYS)
		atomic_fetch_add_explicit(&m->st.mac_limit, 1, memory_order_relaxed);
}

/**
 * switch_learn_port() - Learn the MAC a member's guest was given, before
 *			 it sends anything
 * @m:		Member (access port: the MAC is learned on its VLAN)
 * @mac:	The port's MAC (the one in the guest's config space)
 * @now:	Time, seconds (the entry ages as a learned one)
 *
 * As libvirt's macTableManager="libvirt" programs a bridge's table: frames
 * to a guest that has not spoken yet (it only receives, or it has just
 * connected or migrated here) go to it alone instead of being flooded.
 * Within the member's limits like any learning; a trunk learns nothing
 * here (its guest's VLAN is not known).
 *
 * Context: control thread, when the member's guest is up
 */
void switch_learn_port(struct sw_member *m, const uint8_t *mac, uint32_t now)
{
	if (m->vlans.access)
		sw_learn(m, mac, sw_key(mac, m->vlans.access), now);
}

/**
 * switch_age() - Remove the entries not seen for the ageing time
 * @sw:		Switch
 * @now:	Time, seconds
 *
 * Context: any thread (switch_tx() calls it once a second)
 */
void switch_age(struct vswitch *sw, uint32_t now)
{
	size_t i, n = (size_t)sw->nbuckets * SW_WAYS;
	bool changed = false;

	for (i = 0; i < n; i++) {
		struct sw_entry *e = &sw->table[i];
		uint32_t port = atomic_load_explicit(&e->port, memory_order_relaxed);

		if (!port || !sw_stale(sw, now, e))
			continue;
		if (!atomic_compare_exchange_strong(&e->port, &port, 0))
			continue;
		atomic_fetch_sub(&sw->m[port - 1].nmacs, 1);
		atomic_fetch_sub(&sw->nmacs, 1);
		atomic_store(&e->key, 0);
		changed = true;
	}
	if (changed)
		sw_changed(sw);	/* once per sweep: after every removal */
}

/*
 * The frame's bytes from @off of @iov, without the 4 tag bytes at frame
 * offset 12 if @untag, into @out (SW_IOV_MAX + 1 entries).
 * Return: entries used
 */
static unsigned int sw_slice(struct iovec *out, const struct iovec *iov,
			     unsigned int cnt, size_t off, bool untag)
{
	size_t tag = untag ? off + 12 : SIZE_MAX, start = 0, a, b;
	unsigned int i, n = 0;

	for (i = 0; i < cnt; start += iov[i].iov_len, i++) {
		const uint8_t *base = iov[i].iov_base;

		a = MAX(start, off);
		b = start + iov[i].iov_len;
		if (a >= b)
			continue;
		if (tag != SIZE_MAX && a < tag + 4 && b > tag) {
			/* this piece holds (part of) the tag: cut it out */
			if (a < tag) {
				out[n].iov_base = (void *)(base + (a - start));
				out[n++].iov_len = tag - a;
			}
			a = tag + 4;
			if (a >= b)
				continue;
		}
		out[n].iov_base = (void *)(base + (a - start));
		out[n++].iov_len = b - a;
	}
	return n;
}

/**
 * struct sw_flow - A frame's flow hash, made when a receiver first needs it
 * @iov:	The frame, vnet header first
 * @iovcnt:	Entries in @iov
 * @hdr_len:	vnet header bytes
 * @len:	Frame bytes after the header (a tag included)
 * @vlan:	Its VLAN
 * @hashed:	@hash is made
 * @hash:	switch_flow_hash()
 */
struct sw_flow {
	const struct iovec *iov;
	unsigned int iovcnt;
	unsigned int hdr_len;
	size_t len;
	uint16_t vlan;
	bool hashed;
	uint32_t hash;
};

/* The pair of @npairs that takes the frame of @fl: its flow's (one pair:
 * no hash) */
static unsigned int sw_flow_pair(struct sw_flow *fl, unsigned int npairs)
{
	uint8_t buf[SW_HASH_BYTES];
	const uint8_t *p = buf;
	size_t n;

	if (npairs == 1)
		return 0;
	if (!fl->hashed) {
		n = MIN(fl->len, (size_t)SW_HASH_BYTES);
		if (fl->iov[0].iov_len >= fl->hdr_len + n)
			p = (const uint8_t *)fl->iov[0].iov_base + fl->hdr_len;
		else
			iov_to_buf(fl->iov, fl->iovcnt, fl->hdr_len, buf, n);
		fl->hash = switch_flow_hash(p, n, fl->vlan);
		fl->hashed = true;
	}
	return switch_hash_pick(fl->hash, npairs);
}

/*
 * A full queue @q holds the sending pair's next frame: may it wait in the
 * guest's TX ring (true) or is it dropped? It waits while @q's consumer
 * moves, so a receiver that is slower, or shares the sender's CPU, slows
 * the sender instead of losing frames; a receiver that has read nothing
 * for SW_STALL_NS (its guest stopped reading) gets its frames dropped, so
 * it holds no sender up for longer. The clock is read only here, on a
 * full queue.
 */
static bool sw_may_wait(struct sw_member *m, unsigned int pair,
			const struct swq *q)
{
	struct sw_wait *w = &m->txp[pair].wait;
	size_t consumed = swq_consumed((struct swq *)q);
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	if (w->q != q || w->consumed != consumed) {
		w->q = q;
		w->consumed = consumed;
		w->since_ns = now;
		return true;
	}
	return now - w->since_ns < SW_STALL_NS;
}

/*
 * The burst's first frame to @d (or one since @d was found gone): make the
 * sending pair of @t a user of @d until switch_flush(), then look whether
 * @d takes frames; if so its later frames in this burst need not look
 * again (see the top of the file). A locked instruction per burst and
 * member, not two per frame. Return: @d takes frames
 */
static bool sw_hold(struct sw_txp *t, struct sw_member *d, uint64_t bit)
{
	if (!(t->holds & bit)) {
		atomic_fetch_add(&d->users, 1);
		t->holds |= bit;
	}
	if (!atomic_load(&d->active) || !atomic_load(&d->up))
		return false;
	t->live |= bit;
	return true;
}

/**
 * switch_hold() - sw_hold() for switch_tx_fast(): the burst's first frame
 *		   to member slot @idx
 * @m:		Sending member
 * @pair:	Its pair (the calling worker owns it)
 * @idx:	The receiving member's slot
 *
 * Out of line: once per burst and receiver.
 *
 * Return: the receiver takes frames (its later frames in this burst need
 *	   not look again)
 */
NOINLINE bool switch_hold(struct sw_member *m, unsigned int pair,
			  unsigned int idx)
{
	return sw_hold(&m->txp[pair], &m->sw->m[idx], 1ULL << idx);
}

/*
 * Queue the frame @seg for @d's pair of its flow @fl, for sender pair
 * @pair; @o: its offload request, NULL for a plain frame. With @may_wait
 * (the frame has this one receiver), a full queue whose consumer moves
 * leaves the frame with the sender. Inline: the arguments would go on the
 * stack per frame. Return: 0, -ENOENT (@d left, or not of @vlan), -EAGAIN
 * (full: wait and send it again), -ENOSPC (full: dropped, counted at @d)
 */
static ALWAYS_INLINE int sw_hand(struct sw_member *m, struct sw_member *d,
				 unsigned int pair, const struct iovec *seg,
				 unsigned int nseg, uint16_t vlan,
				 bool may_wait, struct sw_flow *fl,
				 const struct sw_offl *o)
{
	struct sw_txp *t = &m->txp[pair];
	uint64_t bit = 1ULL << d->idx;
	struct swq *q;
	unsigned int qi;
	int ret;

	if (unlikely(!(t->live & bit)) && !sw_hold(t, d, bit))
		return -ENOENT;
	if (!switch_carries(d, vlan))
		return -ENOENT;
	qi = d->npairs == 1 ? 0 : sw_flow_pair(fl, d->npairs);
	q = &d->rxq[qi].q;
	ret = likely(!o) ? swq_push(q, seg, nseg, vlan) :
	      sw_offl_push(q, atomic_load_explicit(&d->offl,
						   memory_order_relaxed),
			   o, seg, nseg, vlan);
	if (!ret || (may_wait && sw_may_wait(m, pair, q))) {
		/* queued, or waiting: wake its consumer either way */
		t->touchq[d->idx] |= 1ULL << qi;
		if (ret)
			ret = -EAGAIN;
	} else {
		atomic_fetch_add_explicit(&d->st.drop_full, 1, memory_order_relaxed);
	}
	return ret;
}

/* @m's policer for pair @pair: may a frame of @len bytes pass? (counted
 * if not). The clock is read at a burst's first frame and every
 * SW_CLK_FRAMES frames, not per frame */
static bool sw_police(struct sw_member *m, unsigned int pair, size_t len)
{
	struct sw_txp *t = &m->txp[pair];

	if (!t->clk_left) {
		t->now_ns = m->sw->clock_ns();
		t->clk_left = SW_CLK_FRAMES;
	}
	t->clk_left--;
	if (switch_police_pass(&t->pol, (uint32_t)MIN(len, (size_t)SW_FRAME_MAX + 4),
			       t->now_ns))
		return true;
	atomic_fetch_add_explicit(&m->st.drop_police, 1, memory_order_relaxed);
	return false;
}

/*
 * Learn the frame's source and find its destination: member slot + 1, 0
 * to flood (group or unknown). The ageing sweep runs here once a second.
 * A sending pair's frames mostly repeat the last pair of MACs: while the
 * table's generation, the second and both keys are the last decision's,
 * that decision holds (the source was refreshed this second, no entry
 * moved or went) and the table is not read. Only a unicast hit is kept: a
 * flood is decided afresh each time.
 */
static ALWAYS_INLINE uint32_t sw_decide(struct sw_member *m, unsigned int pair,
					const uint8_t *eh, uint16_t vlan,
					uint32_t now)
{
	struct vswitch *sw = m->sw;
	struct sw_last *c = &m->txp[pair].last;
	uint32_t gen = atomic_load_explicit(&sw->gen, memory_order_acquire);
	uint32_t sweep, port = 0, macs_end;
	uint64_t macs, src, tail, when;
	struct sw_entry *e;

	/* the MACs compared as the bytes they are: two loads, no decoding */
	memcpy(&macs, eh, sizeof(macs));
	memcpy(&macs_end, eh + 8, sizeof(macs_end));
	tail = macs_end | (uint64_t)vlan << 32;
	when = gen | (uint64_t)now << 32;
	if (c->port && !((c->macs ^ macs) | (c->tail ^ tail) | (c->when ^ when)))
		return c->port;
	src = sw_key(eh + 6, vlan);
	sweep = atomic_load_explicit(&sw->next_sweep, memory_order_relaxed);
	if ((int32_t)(now - sweep) >= 0 &&
	    atomic_compare_exchange_strong(&sw->next_sweep, &sweep, now + 1))
		switch_age(sw, now);
	sw_learn(m, eh + 6, src, now);
	if (!(eh[0] & 1))
		port = sw_find(sw, sw_key(eh, vlan), now, &e);
	*c = (struct sw_last){ .macs = macs, .tail = tail, .when = when,
			       .port = port };
	return port;
}

/**
 * switch_tx() - Switch one frame a member's guest sent
 * @m:		Sending member
 * @pair:	Its pair (the calling worker owns it)
 * @iov:	The frame, vnet header first (already checked: length,
 *		anti-spoofing)
 * @iovcnt:	Entries in @iov
 * @hdr_len:	vnet header bytes
 * @now:	Time, seconds (ageing)
 *
 * Learns the source, then queues the frame (untagged, without the vnet
 * header) to the member the destination lives on, or floods it to every
 * other member of its VLAN. Never to @m itself. A receiver with several
 * pairs gets it on the pair of its flow (switch_hash.h). A frame whose
 * vnet header asks for a checksum or segmentation goes to each receiver
 * as that one takes it (switch_offl.h). A frame for one member whose
 * queue is full waits with the sender while that member reads
 * (sw_may_wait()); a flooded frame is dropped for a full receiver. Drops
 * are counted at the receiver. With a policer (switch_set_police()) a
 * frame over the rate is dropped first, before it is learned; a frame
 * that waits is policed once. Call switch_flush() after the burst.
 *
 * Return: the frame's bytes with header (taken), -EAGAIN (not taken: its
 *	   receiver's queue is full, send it again), or -errno: dropped
 *	   (-EPROTO: VLAN not the member's, -EMSGSIZE: runt, too long or an
 *	   offload request gso refused, -ENOBUFS: its one receiver's queue
 *	   stayed full, -EDQUOT: over the policer's rate)
 */
ssize_t switch_tx(struct sw_member *m, unsigned int pair, const struct iovec *iov,
		  unsigned int iovcnt, unsigned int hdr_len, uint32_t now)
{
	struct vswitch *sw = m->sw;
	struct iovec seg[SW_IOV_MAX + 1];
	const struct iovec *sg = seg;
	struct sw_flow fl;
	const struct sw_offl *o = NULL;
	struct sw_offl offl;
	struct sw_member *d;
	uint8_t eh[18];
	size_t total = 0, len;
	unsigned int nseg, i;
	uint16_t vlan, tpid;
	uint32_t dst;
	bool tagged;
	int ret;

	if (iovcnt > SW_IOV_MAX)
		goto bad;
	for (i = 0; i < iovcnt; i++)	/* inline: a call per frame costs more */
		total += iov[i].iov_len;
	if (total < hdr_len + ETH_HLEN_)
		goto bad;
	len = total - hdr_len;
	if (switch_police_on(&m->txp[pair].pol) && !m->txp[pair].held &&
	    !sw_police(m, pair, len))
		return -EDQUOT;
	m->txp[pair].held = false;
	/* the Ethernet header in one piece: after the vnet header in the
	 * first buffer, or first in the second (a header-only first one) */
	if (iov[0].iov_len >= hdr_len + sizeof(eh))
		memcpy(eh, (const uint8_t *)iov[0].iov_base + hdr_len, sizeof(eh));
	else if (iov[0].iov_len == hdr_len && iovcnt > 1 &&
		 iov[1].iov_len >= sizeof(eh))
		memcpy(eh, iov[1].iov_base, sizeof(eh));
	else
		iov_to_buf(iov, iovcnt, hdr_len, eh, MIN(sizeof(eh), len));
	tpid = (uint16_t)(eh[12] << 8 | eh[13]);
	tagged = tpid == ETH_P_8021Q_;
	if (tagged) {
		if (len < ETH_HLEN_ + 4 || m->vlans.access)
			goto vlan;
		vlan = (uint16_t)((eh[14] << 8 | eh[15]) & 0xfff);
		if (!vlan || vlan > SW_VLAN_MAX || !switch_carries(m, vlan))
			goto vlan;
		len -= 4;
	} else {
		if (!m->vlans.access)
			goto vlan;	/* no native VLAN on a trunk */
		vlan = m->vlans.access;
	}
	if (unlikely(sw_offl_asked(iov, hdr_len))) {
		int r = sw_offl_init(&offl, iov, iovcnt, hdr_len, tagged,
				     SW_FRAME_MAX, SW_QUEUE_SLOTS);

		if (r < 0)
			goto bad;
		if (!r)
			o = &offl;
	}
	if (len > SW_FRAME_MAX && !o)
		goto bad;
	if (!tagged && iov[0].iov_len == hdr_len && iovcnt > 1) {
		/* the vnet header alone first (net_tx_prepare()'s host copy):
		 * the frame is the rest of @iov as it is */
		sg = iov + 1;
		nseg = iovcnt - 1;
	} else {
		nseg = sw_slice(seg, iov, iovcnt, hdr_len, tagged);
	}
	fl = (struct sw_flow){ .iov = iov, .iovcnt = iovcnt, .hdr_len = hdr_len,
			       .len = total - hdr_len, .vlan = vlan };
	dst = sw_decide(m, pair, eh, vlan, now);
	if (dst) {
		if (dst == m->idx + 1)
			return (int)total;	/* never back to its source */
		d = &sw->m[dst - 1];
		ret = sw_hand(m, d, pair, sg, nseg, vlan, true, &fl, o);
		if (ret == -EAGAIN) {
			m->txp[pair].held = true;	/* policed */
			return ret;
		}
		if (!ret && !o && d->npairs == 1)	/* switch_tx_fast() */
			m->txp[pair].last.q = &d->rxq[0].q;
		return ret == -ENOSPC ? -ENOBUFS : (int)total;
	}
	atomic_fetch_add_explicit(&m->st.flooded, 1, memory_order_relaxed);
	for (i = 0; i < SW_MAX_MEMBERS; i++) {
		if (i != m->idx && atomic_load_explicit(&sw->m[i].active,
						       memory_order_relaxed))
			sw_hand(m, &sw->m[i], pair, sg, nseg, vlan, false, &fl, o);
	}
	return (int)total;

vlan:
	atomic_fetch_add_explicit(&m->st.drop_vlan, 1, memory_order_relaxed);
	return -EPROTO;
bad:
	atomic_fetch_add_explicit(&m->st.drop_bad, 1, memory_order_relaxed);
	return -EMSGSIZE;
}

/* Wake @d's pairs in @qs that said they may sleep (the caller holds @d) */
static void sw_wake(struct sw_member *d, uint64_t qs)
{
	uint64_t one = 1;
	struct sw_rxq *r;
	unsigned int q;

	while (atomic_load(&d->active) && qs) {
		q = (unsigned int)__builtin_ctzll(qs);
		qs &= qs - 1;
		if (q >= d->npairs)
			continue;	/* left and joined again since */
		r = &d->rxq[q];
		if (atomic_load_explicit(&r->need_wakeup, memory_order_relaxed) &&
		    atomic_exchange(&r->need_wakeup, 0)) {
			if (write(r->efd, &one, sizeof(one)) < 0)
				one = 1;	/* counter full: awake anyway */
			atomic_fetch_add_explicit(&r->kicks, 1,
						  memory_order_release);
		}
	}
}

/**
 * switch_flush() - A sending pair's burst is over: wake each receiving
 *		    pair it queued to that said it may sleep, once, and
 *		    release the members it held (sw_hold()); the next burst
 *		    reads the policer's clock afresh
 * @m:		Sending member
 * @pair:	Its pair (the calling worker owns it)
 *
 * Every caller of switch_tx() or switch_tx_fast() calls it at the end of
 * each burst, on every path: a member's leave or reset waits for it.
 */
void switch_flush(struct sw_member *m, unsigned int pair)
{
	struct sw_txp *tp = &m->txp[pair];
	uint64_t h = tp->holds, qs;
	bool fenced = false;
	struct sw_member *d;

	tp->clk_left = 0;	/* the next burst reads the clock */
	tp->sec_left = 0;	/* and the seconds (switch_tx_now()) */
	if (!h)
		return;	/* queued only to members it holds */
	tp->holds = 0;
	tp->live = 0;
	while (h) {
		d = &m->sw->m[__builtin_ctzll(h)];
		h &= h - 1;
		qs = tp->touchq[d->idx];
		if (qs) {
			tp->touchq[d->idx] = 0;
			if (!fenced)	/* the frames before need_wakeup's look */
				atomic_thread_fence(memory_order_seq_cst);
			fenced = true;
			sw_wake(d, qs);
		}
		atomic_fetch_sub_explicit(&d->users, 1, memory_order_release);
	}
}

/**
 * switch_rx_peek_idle() - switch_rx_peek_len() when no frame waits
 * @m:		Receiving member
 * @pair:	Its pair (the calling worker owns it)
 * @hdr_len:	The vnet header bytes the guest gets
 *
 * Says it may sleep (need_wakeup), empties its eventfd if a producer
 * wrote it, and looks once more.
 *
 * Return: as switch_rx_peek_len()
 */
int switch_rx_peek_idle(struct sw_member *m, unsigned int pair,
			unsigned int hdr_len)
{
	struct sw_rxq *r = &m->rxq[pair];
	unsigned int extra = hdr_len + (m->vlans.access ? 0 : 4);
	unsigned int kicks;
	uint32_t len;
	uint64_t v;

	kicks = atomic_load_explicit(&r->kicks, memory_order_acquire);
	if (kicks != r->kicks_seen) {
		r->kicks_seen = kicks;
		if (read(r->efd, &v, sizeof(v)) < 0)
			v = 0;	/* already empty */
	}
	/*
	 * About to sleep: ask for a wake-up, then look again (a producer
	 * that published before it saw the flag will not write). Set it
	 * whatever it was: a producer may have taken it for frames this
	 * consumer has already read.
	 */
	atomic_store(&r->need_wakeup, 1);
	atomic_thread_fence(memory_order_seq_cst);
	len = swq_peek_len(&r->q);
	return len ? (int)(len + extra) : 0;
}

/*
 * The vnet header of an offload frame (the slot's first SW_VNET_HDR
 * bytes) into @out (16 bytes, zero-padded) as @m's guest gets it: a trunk
 * member's frame carries the tag, 4 bytes more before the checksum and
 * the headers
 */
static void sw_rx_vnet(const struct sw_member *m, const uint8_t *f,
		       uint8_t *out)
{
	struct virtio_net_hdr_v1 vh;

	memcpy(&vh, f, SW_VNET_HDR);
	if (!m->vlans.access) {
		if (vh.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
			vh.csum_start = htole16((uint16_t)(le16toh(vh.csum_start) + 4));
		if (vh.hdr_len)
			vh.hdr_len = htole16((uint16_t)(le16toh(vh.hdr_len) + 4));
	}
	memset(out, 0, 16);
	memcpy(out, &vh, SW_VNET_HDR);
}

/* sw_rx_copy() but for its common case: out of line, 9 arguments */
static NOINLINE int sw_rx_copy_gen(const struct sw_member *m,
				   struct sw_rxq *r, const uint8_t *vh,
				   unsigned int hdr_len, const uint8_t *f,
				   uint32_t len, uint16_t vlan,
				   const struct iovec *iov, unsigned int iovcnt)
{
	size_t off, total = hdr_len + len + (m->vlans.access ? 0 : 4);
	uint8_t tag[4];

	if (iov_len(iov, iovcnt) < total) {
		swq_pop(&r->q);
		return -EMSGSIZE;
	}
	off = iov_from_buf(iov, iovcnt, 0, vh, hdr_len);
	if (m->vlans.access) {
		off += iov_from_buf(iov, iovcnt, off, f, len);
	} else {
		tag[0] = ETH_P_8021Q_ >> 8;
		tag[1] = ETH_P_8021Q_ & 0xff;
		tag[2] = (uint8_t)(vlan >> 8);
		tag[3] = (uint8_t)vlan;
		off += iov_from_buf(iov, iovcnt, off, f, 12);
		off += iov_from_buf(iov, iovcnt, off, tag, 4);
		off += iov_from_buf(iov, iovcnt, off, f + 12, len - 12);
	}
	swq_pop(&r->q);
	return (int)off;
}

/*
 * Write the slot's frame @f of @len bytes, its vnet header @vh (@hdr_len
 * bytes) first, to @iov, the tag of @vlan after the MACs for a trunk
 * member, and hand the slot back. The common case, an access member's
 * frame that one guest buffer takes whole, inline: no call with its
 * arguments on the stack per frame. Return: bytes written, -EMSGSIZE if
 * they do not fit (dropped)
 */
static ALWAYS_INLINE int sw_rx_copy(const struct sw_member *m,
				    struct sw_rxq *r, const uint8_t *vh,
				    unsigned int hdr_len, const uint8_t *f,
				    uint32_t len, uint16_t vlan,
				    const struct iovec *iov, unsigned int iovcnt)
{
	size_t total = hdr_len + len;

	if (likely(m->vlans.access && iov[0].iov_len >= total)) {
		/* the usual header size copied as a constant (no call) */
		if (hdr_len == 12)
			memcpy(iov[0].iov_base, vh, 12);
		else
			memcpy(iov[0].iov_base, vh, hdr_len);
		memcpy((uint8_t *)iov[0].iov_base + hdr_len, f, len);
		swq_pop(&r->q);
		return (int)total;
	}
	return sw_rx_copy_gen(m, r, vh, hdr_len, f, len, vlan, iov, iovcnt);
}

/*
 * switch_rx() for a slot that holds a vnet header (SW_META_VNET): out of
 * line, the plain frame never comes here. Return: as switch_rx()
 */
static NOINLINE int sw_rx_offl(struct sw_member *m, struct sw_rxq *r,
			       const uint8_t *f, uint32_t meta,
			       const struct iovec *iov, unsigned int iovcnt,
			       unsigned int hdr_len)
{
	uint32_t len = swq_peek_len(&r->q);
	uint16_t vlan = (uint16_t)(meta & SW_META_VLAN);
	uint8_t vh[16];

	if (hdr_len > sizeof(vh)) {
		swq_pop(&r->q);
		return -EMSGSIZE;
	}
	sw_rx_vnet(m, f, vh);
	return sw_rx_copy(m, r, vh, hdr_len, f + SW_VNET_HDR, len, vlan, iov,
			  iovcnt);
}

/**
 * switch_rx() - Copy the next frame for a member's pair out to its guest
 * @m:		Receiving member
 * @pair:	Its pair (the calling worker owns it)
 * @iov:	Guest buffers
 * @iovcnt:	Entries in @iov
 * @hdr_len:	vnet header bytes: zeros for a plain frame, the offload
 *		header the sender wrote for one that passes an offload on
 *		(switch_offl.c; only to a member that takes it)
 *
 * A trunk member gets the 802.1Q tag of the frame's VLAN after the MACs.
 *
 * Return: bytes written, -EAGAIN if none waits, -EMSGSIZE if it did not
 *	   fit (dropped)
 */
int switch_rx(struct sw_member *m, unsigned int pair, const struct iovec *iov,
	      unsigned int iovcnt, unsigned int hdr_len)
{
	static const uint8_t zero[16];
	struct sw_rxq *r = &m->rxq[pair];
	const uint8_t *f;
	uint32_t vlan, len;

	f = swq_peek_frame(&r->q, &vlan, &len);
	if (!f)
		return -EAGAIN;
	if (unlikely(vlan & SW_META_VNET))
		return sw_rx_offl(m, r, f, vlan, iov, iovcnt, hdr_len);
	if (hdr_len > sizeof(zero)) {
		swq_pop(&r->q);
		return -EMSGSIZE;
	}
	return sw_rx_copy(m, r, zero, hdr_len, f, len, (uint16_t)vlan, iov,
			  iovcnt);
}

/*
 * One VLAN number of a list: "N", 1..4094. Return: NULL or what is allowed
 */
static const char *sw_vlan_num(const char *s, const char **end, unsigned int *v)
{
	char *e;
	unsigned long n;

	if (*s < '0' || *s > '9')
		return "must be a VLAN number 1..4094";
	errno = 0;
	n = strtoul(s, &e, 10);
	if (errno || n < 1 || n > SW_VLAN_MAX)
		return "must be a VLAN number 1..4094";
	*end = e;
	*v = (unsigned int)n;
	return NULL;
}

/**
 * switch_vlans_parse() - Parse vlan=N or trunk=LIST into @v
 * @v:		VLANs (output: replaced)
 * @text:	"N" (@trunk false), or "N", "N-M" separated by @sep (@trunk)
 * @trunk:	Which of the two
 * @sep:	List separator (',' as an option, ':' inside a --port group)
 *
 * Return: NULL, or what is allowed (for "--vlan VALUE: ...")
 */
const char *switch_vlans_parse(struct sw_vlans *v, const char *text,
			       bool trunk, char sep)
{
	unsigned int a, b, i;
	const char *s = text, *why;

	memset(v, 0, sizeof(*v));
	if (!trunk) {
		why = sw_vlan_num(s, &s, &a);
		if (why || *s)
			return "must be a VLAN number 1..4094";
		v->access = (uint16_t)a;
		return NULL;
	}
	for (;;) {
		why = sw_vlan_num(s, &s, &a);
		if (why)
			return "must be a list of VLANs 1..4094 and ranges N-M (e.g. 10,20-30)";
		b = a;
		if (*s == '-') {
			why = sw_vlan_num(s + 1, &s, &b);
			if (why || b < a)
				return "must be a list of VLANs 1..4094 and ranges N-M with N <= M (e.g. 10,20-30)";
		}
		for (i = a; i <= b; i++)
			v->trunk[i / 8] |= (uint8_t)(1u << (i % 8));
		if (!*s)
			return NULL;
		if (*s != sep && *s != ',')
			return "must be a list of VLANs 1..4094 and ranges N-M (e.g. 10,20-30)";
		s++;
	}
}

/**
 * switch_vlans_format() - A member's VLANs as switch_vlans_parse() reads them
 * @v:		VLANs
 * @buf:	Output: "vlan N" or "trunk N,N-M" (cut short if @len is small)
 * @len:	Bytes of @buf
 *
 * Return: @buf
 */
char *switch_vlans_format(const struct sw_vlans *v, char *buf, size_t len)
{
	unsigned int a, b;
	size_t off;

	if (v->access) {
		snprintf(buf, len, "vlan %u", v->access);
		return buf;
	}
	off = (size_t)snprintf(buf, len, "trunk ");
	for (a = 1; a <= SW_VLAN_MAX && off < len; a++) {
		if (!(v->trunk[a / 8] & (1u << (a % 8))))
			continue;
		for (b = a; b < SW_VLAN_MAX &&
		     (v->trunk[(b + 1) / 8] & (1u << ((b + 1) % 8))); b++)
			;
		if (b == a)
			off += (size_t)snprintf(buf + off, len - off, "%s%u",
						buf[off - 1] == ' ' ? "" : ",", a);
		else
			off += (size_t)snprintf(buf + off, len - off, "%s%u-%u",
						buf[off - 1] == ' ' ? "" : ",", a, b);
		a = b;
	}
	return buf;
}
