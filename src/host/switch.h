/* SPDX-License-Identifier: MIT */
/*
 * switch.h - a learning Ethernet switch between vnetd's ports: the switch
 * object, its members, the MAC table and the forwarding decision, without
 * vnetd around it (host_switch.c makes a member port's host side of it).
 *
 * Threads: members join and leave from the control thread. Any member
 * pair's worker sends (switch_tx_fast(), switch_tx(), switch_flush()): it
 * learns the source MAC, looks up the destination, and copies the frame
 * into a hand-off queue (switch_queue.h) of each receiving member's pair;
 * only the receiving pair's worker reads that queue (switch_rx_peek_len(),
 * switch_rx_fast(), switch_rx()), so each RX ring keeps one writer. The MAC table is shared
 * without locks: each entry is a key word (MAC and VLAN) and a port word
 * that changes hands by compare-and-swap (see switch.c).
 */
#ifndef VNET_SWITCH_H
#define VNET_SWITCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "eth.h"
#include "switch_offl.h"
#include "switch_police.h"
#include "switch_queue.h"
#include "util.h"

#define SW_NAME_LEN		32	/* with the NUL */
#define SW_MAX_MEMBERS		64
#define SW_VLAN_MAX		4094
#define SW_AGEING_S		300	/* MAC table ageing */
#define SW_MACS_PORT		256	/* MACs one port may hold */
#define SW_MACS_SWITCH		4096	/* MACs one switch may hold */
#define SW_QUEUE_SLOTS		256	/* hand-off queue, per receiving pair */
#define SW_FRAME_MAX		9018	/* Ethernet frame, 802.1Q tag included */
#define SW_IOV_MAX		64	/* pieces of one frame from the guest */
#define SW_STALL_NS		5000000	/* a full queue whose consumer has not
					 * moved this long drops, not waits */
#define SW_SLOT_SIZE		(12 + SW_FRAME_MAX)	/* vnet header + frame */

/**
 * struct sw_vlans - Which VLANs a member carries
 * @access:	Access port: its VLAN (1..4094), untagged at the guest;
 *		0: a trunk port
 * @trunk:	Trunk port: bit N set = VLAN N, tagged at the guest
 */
struct sw_vlans {
	uint16_t access;
	uint8_t trunk[4096 / 8];
};

/**
 * struct sw_stats - One member's counters (relaxed atomics: any worker)
 * @learned:	MAC table entries it learned (moves to it included)
 * @mac_limit:	Source MACs not learned: its or the switch's limit
 * @flooded:	Frames it sent that were flooded (broadcast, multicast,
 *		unknown unicast)
 * @drop_full:	Frames for it dropped: its hand-off queue was full
 * @drop_vlan:	Frames it sent dropped: VLAN not its (a tag on an access
 *		port, none or a foreign one on a trunk)
 * @drop_bad:	Frames it sent dropped: shorter than an Ethernet header,
 *		longer than SW_FRAME_MAX, in too many pieces, or an offload
 *		request gso refused (switch_offl.c)
 * @drop_police: Frames it sent dropped: over its policer's rate
 */
struct sw_stats {
	_Atomic uint64_t learned;
	_Atomic uint64_t mac_limit;
	_Atomic uint64_t flooded;
	_Atomic uint64_t drop_full;
	_Atomic uint64_t drop_vlan;
	_Atomic uint64_t drop_bad;
	_Atomic uint64_t drop_police;
};

/**
 * struct sw_wait - What a sending pair waits on: a full queue
 * @q:		The queue (NULL: none yet)
 * @consumed:	Its consumer's position when the wait began
 * @since_ns:	When it began (CLOCK_MONOTONIC)
 */
struct sw_wait {
	const struct swq *q;
	size_t consumed;
	uint64_t since_ns;
};

/**
 * struct sw_last - A sending pair's last unicast decision, valid while
 *		    nothing in the table changed and within the same second
 * @macs:	The frame's first 8 bytes (destination MAC, 2 bytes of the
 *		source), as they lie in memory: compared, not decoded
 * @tail:	Its bytes 8..11 (the rest of the source MAC) in the low 32
 *		bits, its VLAN in the high ones
 * @when:	The table's generation (vswitch.gen) read before the lookup
 *		in the low 32 bits; in the high ones the second it was made
 *		in (the source's entry was refreshed then; a new second
 *		learns again, refreshing it once a second)
 * @port:	Where the destination lives: member slot + 1; 0: no decision
 * @q:		The queue a frame of this decision went to, set once one did
 *		(a plain frame to a member of one pair): switch_tx_fast()
 *		queues the next ones there; NULL: none yet
 *
 * Three 64-bit words, so that a frame is checked against it with three
 * compares folded into one branch.
 */
struct sw_last {
	uint64_t macs;
	uint64_t tail;
	uint64_t when;
	uint32_t port;
	struct swq *q;
};

/**
 * struct sw_txp - One sending pair's state (its worker's alone)
 * @pol:	Its view of the port's policer (off unless
 *		switch_set_police())
 * @now_ns:	The policer's clock, read once per burst
 * @clk_left:	Frames until @now_ns is read again (0: at the next frame;
 *		switch_flush() zeroes it)
 * @sec:	The MAC table's time (seconds) for this burst's frames
 *		(switch_tx_now())
 * @sec_left:	Frames until @sec is read again (0: at the next frame;
 *		switch_flush() zeroes it)
 * @held:	Its next frame was policed and waits on a full queue (it is
 *		not policed again when it is sent again)
 * @wait:	The full queue that frame waits on
 * @touchq:	Per receiving member slot: its pairs queued to in this
 *		burst (bit = pair), for switch_flush()
 * @holds:	Receiving member slots whose @users this pair holds, one
 *		each, from the burst's first frame to that member until
 *		switch_flush() (bit = slot)
 * @live:	Of @holds, the members that were active and up when this
 *		burst took them: its later frames to them skip that check
 * @last:	The last unicast frame's forwarding decision (a hit skips
 *		learning and the lookup, see switch_tx())
 */
struct sw_txp {
	struct sw_police pol;
	uint64_t now_ns;
	unsigned int clk_left;
	uint32_t sec;
	unsigned int sec_left;
	bool held;
	struct sw_wait wait;
	uint64_t touchq[SW_MAX_MEMBERS];
	uint64_t holds;
	uint64_t live;
	struct sw_last last;
};

/**
 * struct sw_rxq - One receiving pair: its hand-off queue and wake-up
 * @q:		Hand-off queue; the pair's worker consumes
 * @need_wakeup: Set by the consumer before it may sleep; a producer that
 *		clears it writes @efd (once per burst: switch_flush())
 * @kicks:	@efd writes done, bumped after each write
 * @kicks_seen:	Consumer: @kicks when it last read @efd empty
 * @efd:	eventfd: the pair's rx_fd
 */
struct sw_rxq {
	struct swq q;
	_Alignas(64) _Atomic int need_wakeup;
	_Atomic unsigned int kicks;
	_Alignas(64) unsigned int kicks_seen;
	int efd;
};

struct vswitch;

/**
 * struct sw_member - One port on a switch (a slot of the switch's array,
 *		      never freed while the switch lives)
 * @sw:		Its switch
 * @idx:	Its slot
 * @used:	Control thread: the slot is taken
 * @active:	Data path: frames may be queued to it (set last on join,
 *		cleared first on leave)
 * @up:		A guest takes frames (the host side's configure() until its
 *		reset()); frames for it are queued only then
 * @users:	Sending pairs inside a burst that handed (or tried to hand)
 *		it a frame: one per pair per burst, released by
 *		switch_flush()
 * @npairs:	Its queue pairs
 * @vlans:	The VLANs it carries
 * @rxq:	Per pair: its hand-off queue (allocated on join)
 * @txp:	Per sending pair: policer, the queue it waits on, the
 *		members held and the pairs queued to in this burst
 * @police:	Its policer's limits, as set (status)
 * @pol:	Its policer's buckets, shared by its sending pairs
 * @nmacs:	MAC table entries pointing to it
 * @macs_max:	MACs it may hold, 0: the switch's per-port limit (set
 *		after switch_join(): an uplink holds as many as the switch)
 * @st:		Counters
 * @offl:	Offloads its guest takes (switch_offl.h's mask; 0 until
 *		switch_set_offloads()): senders read it per frame
 */
struct sw_member {
	struct vswitch *sw;
	unsigned int idx;
	bool used;
	_Atomic bool active;
	_Atomic bool up;
	_Atomic unsigned int users;
	unsigned int npairs;
	struct sw_vlans vlans;
	struct sw_rxq *rxq;
	struct sw_txp *txp;
	struct sw_police_cfg police;
	struct sw_police_port pol;
	_Atomic unsigned int nmacs;
	unsigned int macs_max;
	struct sw_stats st;
	_Atomic uint32_t offl;
};

/**
 * struct sw_entry - One MAC table entry
 * @key:	0: free; else SW_KEY_VALID | MAC << 12 | VLAN
 * @port:	Member slot + 1; 0 while being written or removed
 * @seen:	Last time (seconds) the MAC sent on that port
 */
struct sw_entry {
	_Atomic uint64_t key;
	_Atomic uint32_t port;
	_Atomic uint32_t seen;
};

/**
 * struct vswitch - One switch
 * @name:	As --switch gave it
 * @ageing_s:	Entries unseen this long are gone (SW_AGEING_S)
 * @macs_port:	MACs one member may hold (SW_MACS_PORT)
 * @macs_max:	MACs the switch may hold (SW_MACS_SWITCH)
 * @nmacs:	Entries in use
 * @next_sweep:	When (seconds) the next ageing sweep is due
 * @gen:	Bumped after every change of an entry's port (learned, moved;
 *		removed: once per sweep, after its removals): the senders'
 *		cached decisions (sw_last) end
 * @nbuckets:	Buckets of SW_WAYS entries in @table (a power of two)
 * @table:	The MAC table
 * @clock_ns:	The policers' clock (CLOCK_MONOTONIC; tests inject one)
 * @m:		Member slots
 */
struct vswitch {
	char name[SW_NAME_LEN];
	uint32_t ageing_s;
	unsigned int macs_port;
	unsigned int macs_max;
	_Atomic unsigned int nmacs;
	_Atomic uint32_t next_sweep;
	_Atomic uint32_t gen;
	unsigned int nbuckets;
	struct sw_entry *table;
	uint64_t (*clock_ns)(void);
	struct sw_member m[SW_MAX_MEMBERS];
};

#define SW_WAYS		8

struct vswitch *switch_new(const char *name);
void switch_free(struct vswitch *sw);
struct sw_member *switch_join(struct vswitch *sw, unsigned int npairs,
			      const struct sw_vlans *vlans, int *err);
void switch_leave(struct sw_member *m);
void switch_reset(struct sw_member *m);
void switch_set_up(struct sw_member *m, bool up);
void switch_learn_port(struct sw_member *m, const uint8_t *mac, uint32_t now);
void switch_set_police(struct sw_member *m, const struct sw_police_cfg *cfg);
void switch_set_offloads(struct sw_member *m, uint64_t features,
			 unsigned int hdr_len);
ssize_t switch_tx(struct sw_member *m, unsigned int pair, const struct iovec *iov,
		  unsigned int iovcnt, unsigned int hdr_len, uint32_t now);
void switch_flush(struct sw_member *m, unsigned int pair);
bool switch_hold(struct sw_member *m, unsigned int pair, unsigned int idx);
int switch_rx_peek_idle(struct sw_member *m, unsigned int pair,
			unsigned int hdr_len);
int switch_rx(struct sw_member *m, unsigned int pair, const struct iovec *iov,
	      unsigned int iovcnt, unsigned int hdr_len);
void switch_age(struct vswitch *sw, uint32_t now);
int switch_lookup(struct vswitch *sw, const uint8_t *mac, uint16_t vlan,
		  uint32_t now);
bool switch_carries(const struct sw_member *m, uint16_t vlan);
const char *switch_vlans_parse(struct sw_vlans *v, const char *text,
			       bool trunk, char sep);
char *switch_vlans_format(const struct sw_vlans *v, char *buf, size_t len);

/**
 * struct sw_mac - One MAC table entry as the control plane reads it
 *		   (switch_table_next(), switch_show.c)
 * @mac:	MAC
 * @vlan:	VLAN
 * @member:	Member slot it lives on
 * @age_s:	Seconds since it last sent there
 */
struct sw_mac {
	uint8_t mac[6];
	uint16_t vlan;
	unsigned int member;
	uint32_t age_s;
};

uint32_t switch_now_s(void);
bool switch_table_next(const struct vswitch *sw, size_t *pos, uint32_t now,
		       struct sw_mac *out);

#define SW_SEC_FRAMES	64	/* switch_tx_now(): re-read within a burst */

/**
 * switch_tx_now() - The MAC table's time for a sending pair's next frame
 * @m:		Sending member
 * @pair:	Its pair (the calling worker owns it)
 * @clock_s:	Reads the time, seconds (the caller's clock)
 *
 * Read at a burst's first frame and every SW_SEC_FRAMES frames, not per
 * frame: a burst's frames share its second.
 *
 * Return: seconds
 */
static inline uint32_t switch_tx_now(struct sw_member *m, unsigned int pair,
				     uint32_t (*clock_s)(void))
{
	struct sw_txp *t = &m->txp[pair];

	if (!t->sec_left) {
		t->sec = clock_s();
		t->sec_left = SW_SEC_FRAMES;
	}
	t->sec_left--;
	return t->sec;
}

/**
 * switch_tx_now_due() - Does switch_tx_now() read the clock for a sending
 *			 pair's next frame?
 * @m:		Sending member
 * @pair:	Its pair (the calling worker owns it)
 *
 * A caller may take that frame out of line, so that the others make no
 * call but switch_tx().
 *
 * Return: true at a burst's first frame and every SW_SEC_FRAMES frames
 */
static inline bool switch_tx_now_due(const struct sw_member *m,
				     unsigned int pair)
{
	return !m->txp[pair].sec_left;
}

/**
 * switch_tx_fast() - switch_tx() of the common frame, inline
 * @m:		Sending member
 * @pair:	Its pair (the calling worker owns it)
 * @iov:	The frame, vnet header first (checked as for switch_tx())
 * @iovcnt:	Entries in @iov
 * @hdr_len:	vnet header bytes
 * @now:	Time, seconds (switch_tx_now())
 *
 * The common frame: the vnet header alone in @iov[0] (net_tx_prepare()'s
 * host copy) asking for no offload, the frame whole in @iov[1], untagged,
 * from a member without a policer, to the destination of the pair's last
 * decision while that holds (sw_last: the same MACs and VLAN, table and
 * second, see sw_decide()), which takes frames (the burst holds it from
 * its first frame to it: switch_hold()) and whose queue a frame of the
 * decision went to (sw_last.q). It is queued as switch_tx() queues it, without the
 * checks that frame passed. An access member's VLAN is in the compared
 * key; a trunk's untagged frame (VLAN 0 there) never matches.
 *
 * Return: the frame's bytes with header (queued); 0: not this frame, or
 *	   the queue is full: call switch_tx() for it
 */
static inline ssize_t switch_tx_fast(struct sw_member *m, unsigned int pair,
				     const struct iovec *iov,
				     unsigned int iovcnt, unsigned int hdr_len,
				     uint32_t now)
{
	struct sw_txp *t = &m->txp[pair];
	const struct sw_last *c = &t->last;
	const uint8_t *eh;
	uint64_t macs, tail, when;
	uint32_t macs_end, gen;
	size_t flen;

	if (iovcnt != 2 || iov[0].iov_len != hdr_len || !c->q ||
	    switch_police_on(&t->pol) || sw_offl_asked(iov, hdr_len))
		return 0;
	flen = iov[1].iov_len;
	eh = iov[1].iov_base;
	/* 18: switch_tx() reads a tag's bytes too */
	if (flen < 18 || flen > SW_FRAME_MAX ||
	    (eh[12] << 8 | eh[13]) == ETH_P_8021Q_)
		return 0;
	gen = atomic_load_explicit(&m->sw->gen, memory_order_acquire);
	memcpy(&macs, eh, sizeof(macs));
	memcpy(&macs_end, eh + 8, sizeof(macs_end));
	tail = macs_end | (uint64_t)m->vlans.access << 32;
	when = gen | (uint64_t)now << 32;
	if ((c->macs ^ macs) | (c->tail ^ tail) | (c->when ^ when))
		return 0;
	/*
	 * The burst's first frame to it holds the receiver; then the table's
	 * generation again: a member that left after the compare above and
	 * a new one that took its slot before the hold would pass the hold,
	 * while c->q is the queue the one that left freed. The hold's
	 * seq_cst ops order that leave's generation bump before this load.
	 * (A live bit set earlier in the burst held the member since before
	 * the compare: it cannot have left.) Hold kept either way:
	 * switch_flush() releases it.
	 */
	if (unlikely(!(t->live & (1ULL << (c->port - 1)))) &&
	    (!switch_hold(m, pair, c->port - 1) ||
	     atomic_load_explicit(&m->sw->gen, memory_order_acquire) != gen))
		return 0;
	if (swq_push_buf(c->q, eh, flen, m->vlans.access))
		return 0;
	t->touchq[c->port - 1] |= 1;	/* its pair 0 */
	return (ssize_t)(hdr_len + flen);
}

/**
 * switch_rx_fast() - switch_rx(), with its common frame inline
 * @m:		Receiving member
 * @pair:	Its pair (the calling worker owns it)
 * @iov:	Guest buffers
 * @iovcnt:	Entries in @iov
 * @hdr_len:	vnet header bytes
 *
 * The common frame: a plain one (no offload header) to an access member
 * whose guest takes a 12-byte vnet header, and whose first buffer holds
 * header and frame: written here as switch_rx() writes it, a header of
 * zeros and the frame. Any other, or none waiting: switch_rx(), called
 * before anything else is live (no register saves for the common frame).
 *
 * Return: as switch_rx()
 */
static inline int switch_rx_fast(struct sw_member *m, unsigned int pair,
				 const struct iovec *iov, unsigned int iovcnt,
				 unsigned int hdr_len)
{
	struct swq *q = &m->rxq[pair].q;
	const uint8_t *f;
	uint32_t meta, len;

	if (hdr_len != SW_VNET_HDR || !m->vlans.access)
		return switch_rx(m, pair, iov, iovcnt, hdr_len);
	f = swq_peek_frame(q, &meta, &len);
	if (!f || (meta & SW_META_VNET) || iov[0].iov_len < SW_VNET_HDR + len)
		return switch_rx(m, pair, iov, iovcnt, hdr_len);
	memset(iov[0].iov_base, 0, SW_VNET_HDR);
	memcpy((uint8_t *)iov[0].iov_base + SW_VNET_HDR, f, len);
	swq_pop(q);
	return (int)(SW_VNET_HDR + len);
}

/**
 * switch_rx_peek_len() - Length of the next frame for a member's pair
 * @m:		Receiving member
 * @pair:	Its pair (the calling worker owns it)
 * @hdr_len:	The vnet header bytes the guest gets
 *
 * Inline for a busy queue; with none waiting, switch_rx_peek_idle() says
 * it may sleep (need_wakeup), empties its eventfd if a producer wrote it,
 * and looks once more.
 *
 * Return: bytes the guest gets (header, tag included), 0 if none
 */
static inline int switch_rx_peek_len(struct sw_member *m, unsigned int pair,
				     unsigned int hdr_len)
{
	struct sw_rxq *r = &m->rxq[pair];
	uint32_t len = swq_peek_len(&r->q);

	if (!len)
		return switch_rx_peek_idle(m, pair, hdr_len);
	/* busy: producers need not write the eventfd */
	if (atomic_load_explicit(&r->need_wakeup, memory_order_relaxed))
		atomic_store_explicit(&r->need_wakeup, 0, memory_order_relaxed);
	return (int)(len + hdr_len + (m->vlans.access ? 0 : 4));
}

#endif /* VNET_SWITCH_H */
