// SPDX-License-Identifier: MIT
/*
 * worker_loop.c - what a data plane thread does: serve the queue pairs given
 * to it round-robin, a budget each per pass. It sleeps in epoll on the
 * guest's kick eventfds, the host side's RX fd and its control eventfd, and
 * on each wake moves frames with net.c in budgets of packets and bytes, one
 * used-ring flush and at most one call per ring per batch. Which thread
 * serves which pair, and starting, pausing and stopping threads, is
 * worker.c's.
 *
 * Leaves to others: ring layouts and EVENT_IDX (vq.h), the vnet header and
 * buffer handling (net.c), the host side (host.h), when to hold host RX
 * (rx_policy.h), the threads' lifecycle (worker.c).
 *
 * The thread's side of the control handshake (worker.c has the other):
 * when it sees its ctl_pending flag it parks under its lock until resumed;
 * a paused thread touches none of its pairs; on resume it rebuilds its
 * epoll set from the pairs' fds (a fresh epoll instance: a kick fd the
 * frontend still holds would otherwise stay registered after we closed
 * ours), serves RX once and signals each started RX ring once.
 *
 * Per packet: no allocation, no lock, no log line, no syscall (with the
 * null and gen hosts), no clock read. Counters are kept in thread-local
 * accumulators and added to the shared ones (relaxed atomics) when a pass
 * finds no work, every WORKER_COMMIT_EVERY busy passes, before sleeping
 * and before parking. With --poll-us the thread spins while frames keep
 * coming and reads the clock only on empty passes (every
 * WORKER_CLOCK_EVERY of them) to end the poll window.
 *
 * RX hold (moderate load, without --poll-us; rx_policy.h says why): when
 * rx_hold_next() says so, the thread sleeps on a second epoll set that
 * lacks the host fds (kicks and control still wake it) for the hold's
 * length, then reads what gathered meanwhile in one batch.
 *
 * A broken ring (guest fault) is no longer served:
 * its error eventfd is written once and one rate-limited line names the
 * port, the queue and the reason; the other rings go on.
 *
 * Guest memory that vanishes (guard.h): each thread arms one recovery
 * point (sigsetjmp) around its whole serving loop, so a wake costs nothing
 * extra. A SIGBUS on the port's guest memory or dirty log jumps back there:
 * every ring of the thread is broken (they all belong to the one
 * connection whose memory it is), one line names the port and the memory,
 * and the connection socket is shut down so the control thread closes it.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "guard.h"
#include "log.h"
#include "net.h"
#include "rx_policy.h"
#include "tap_uring.h"
#include "vq_chain.h"
#include "worker_loop.h"
#include "util.h"

/* #syscalls: epoll_create1 epoll_ctl epoll_wait epoll_pwait epoll_pwait2 read write
 * #syscalls: clock_gettime clock_nanosleep nanosleep futex
 * #syscalls: rseq madvise munmap mprotect exit prctl shutdown sched_yield sched_getaffinity
 */

#define WORKER_MAX_EVENTS	64
#define WORKER_RETRY_MS		1	/* sleep when a ring polls or is blocked */
/* Busy passes that moved frames between two counter commits */
#define WORKER_COMMIT_EVERY	64
/* Empty busy-poll passes between two clock reads (--poll-us) */
#define WORKER_CLOCK_EVERY	8

static uint64_t worker_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t worker_now_us(void)
{
	return worker_now_ns() / 1000u;
}

/*
 * Busy time: a ring that moved frames is charged the time since *@clk (the
 * start of the pass, or the end of the last ring charged in it), which
 * moves on. One clock read per pass and one per ring that did work, never
 * per frame; an idle ring's quick look is charged to the next busy one.
 */
static void worker_charge(struct wring *t, uint64_t *clk)
{
	uint64_t now = worker_now_ns();

	t->acc.busy_ns += now - *clk;
	*clk = now;
	t->dirty = true;
}

void worker_signal(int fd)
{
	static const uint64_t one = 1;

	if (fd >= 0 && write(fd, &one, sizeof(one)) < 0)
		return;	/* counter saturated: the reader wakes anyway */
}

static void worker_drain(int fd)
{
	uint64_t v;

	if (fd >= 0 && read(fd, &v, sizeof(v)) < 0)
		return;	/* nothing to drain */
}

/*
 * Add the counters accumulated since the last commit to the shared ones.
 * Called when a pass moved nothing, every WORKER_COMMIT_EVERY busy passes,
 * before sleeping and before parking: never per packet.
 */
static void worker_commit(struct wring *t)
{
	struct ring_counters *a = &t->acc, *c = &t->r->ctr;
	unsigned int i;

	if (!t->dirty)
		return;
	t->dirty = false;

#define WORKER_ADD(f) \
	do { if (a->f) __atomic_fetch_add(&c->f, a->f, __ATOMIC_RELAXED); } while (0)
#define WORKER_ADD_CTR(f, prom, help, div)	WORKER_ADD(f);
	RING_COUNTERS(WORKER_ADD_CTR)
	for (i = 0; i < DROP_MAX; i++)
		WORKER_ADD(drops[i]);
#undef WORKER_ADD_CTR
#undef WORKER_ADD
	memset(a, 0, sizeof(*a));
}

/*
 * Publish the batch. The call it may owe waits for the end of the pass
 * (worker_call()): a pass flushes once per turn, and a guest woken by
 * interrupts still gets at most one call per ring and pass.
 */
static void worker_flush(struct wring *t)
{
	uint64_t before = t->io.vq->stats.flushes;

	t->call_due |= vq_flush(t->io.vq);
	if (t->io.vq->stats.flushes != before) {
		t->acc.batches += t->io.vq->stats.flushes - before;
		t->dirty = true;
	}
}

/* The pass is over: the one call a flush of it owes the guest, if any */
static void worker_call(struct wring *t)
{
	if (!t->call_due)
		return;
	t->call_due = false;
	worker_signal(t->r->call_fd);
	t->acc.calls++;
}

static void worker_host_arm(struct worker *w, struct wpair *wp, bool on)
{
	struct epoll_event ev;

	if (wp->host_fd < 0 || wp->host_armed == on)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.events = on ? EPOLLIN : 0;
	ev.data.u64 = WEV_HOST_RX | (uint64_t)(wp - w->wp) << 8;
	if (epoll_ctl(w->epfd, EPOLL_CTL_MOD, wp->host_fd, &ev) == 0)
		wp->host_armed = on;
}

/* A guest fault stopped @t: signal, count, log once (rate-limited) */
static void worker_break(struct worker *w, struct wpair *wp, struct wring *t)
{
	t->dead = true;
	t->acc.breaks++;
	t->dirty = true;
	worker_signal(t->r->err_fd);
	if (t == &wp->rx)
		worker_host_arm(w, wp, false);
	if (log_ratelimit(&w->rl))
		log_warn("port %s: virtqueue %u (pair %u %s) broken, stopped: %s",
			 w->cur->name, t->qidx, t->qidx / 2, t->qidx % 2 ? "TX" : "RX",
			 vq_broken_reason(t->io.vq));
}

static void worker_notify_off(struct wring *t)
{
	if (!t->notify_off) {
		vq_disable_notify(t->io.vq);
		t->notify_off = true;
	}
}

/**
 * struct wturn - What a ring may still move in this pass, and in this turn
 * @pkts:	Frames left of the pass's budget (--budget-pkts)
 * @bytes:	Bytes left of the pass's budget (--budget-bytes)
 * @cap:	This turn ends at WORKER_TURN frames (else at the budget)
 * @full:	Set when a turn stopped at its cap with budget left: the ring
 *		may have more, and the pair takes another turn
 */
struct wturn {
	unsigned int pkts;
	uint64_t bytes;
	bool cap;
	bool full;
};

/* Frames at most this turn: WORKER_TURN if capped, never past the budget */
static unsigned int worker_turn_max(const struct wturn *b)
{
	return b->cap && b->pkts > WORKER_TURN ? WORKER_TURN : b->pkts;
}

/*
 * Charge a turn's frames to the pass's budget. Return: true if the budget
 * is spent (serve the pair again in the next pass); sets @full if the turn
 * stopped at its cap instead.
 */
static bool worker_turn_end(struct wturn *b, unsigned int pkts,
			    uint64_t bytes)
{
	b->pkts -= pkts;
	b->bytes -= MIN(bytes, b->bytes);
	if (!b->pkts || !b->bytes)
		return true;
	b->full = b->cap && pkts == WORKER_TURN;
	return false;
}

/*
 * Guest TX: send (or, disabled, drop) up to a turn.
 * Return: chains consumed; *@more set if the pass's budget ran out; busy
 * time charged from *@clk
 */
static unsigned int worker_tx(struct worker *w, struct wpair *wp,
			      struct wturn *b, bool *more, uint64_t *clk)
{
	struct wring *t = &wp->tx;
	unsigned int pkts = 0, max = worker_turn_max(b);
	uint64_t bytes = 0;
	bool retried = false;
	int ret = 0;

	if (!t->r->started || t->dead || !max)
		return 0;
	worker_notify_off(t);
	while (pkts < max && bytes < b->bytes) {
		if (t->r->enabled) {
			uint64_t n;

			pkts += net_tx_burst(&t->io, max - pkts, &n, &ret);
			bytes += n;
		} else {
			ret = net_tx_drop_one(&t->io);
			pkts += ret >= 0;
		}
		if (ret >= 0)
			continue;
		if (ret != -ENOSPC || retried)
			break;
		worker_flush(t);	/* chains in flight hold the spill area */
		retried = true;
	}
	wp->tx_blocked = ret == -EBUSY;
	worker_flush(t);
	if (ret == -EBADMSG)
		worker_break(w, wp, t);
	t->dirty |= pkts || ret != -EAGAIN;
	if (pkts)
		worker_charge(t, clk);
	*more |= worker_turn_end(b, pkts, bytes);
	return pkts;
}

/*
 * No RX buffers: wait for the guest's kick, stop polling the host side.
 * With --poll-us the ring is polled instead and kicks stay off until the
 * thread goes to sleep (worker_notify_on()): a guest that sees kicks off
 * makes no eventfd write each time it posts buffers.
 */
static bool worker_rx_starve(struct worker *w, struct wpair *wp)
{
	struct wring *t = &wp->rx;

	if (!w->cur->o.poll_us) {
		t->notify_off = false;
		if (vq_enable_notify(t->io.vq))
			return true;	/* buffers came meanwhile */
	}
	wp->rx_starved = true;
	worker_host_arm(w, wp, false);
	return false;
}

static void worker_rx_unstarve(struct worker *w, struct wpair *wp)
{
	wp->rx_starved = false;
	wp->rx_ready = true;
	if (wp->rx.r->started && wp->rx.r->enabled && !wp->rx.dead)
		worker_host_arm(w, wp, true);
}

/*
 * Host RX into the guest up to a turn.
 * Return: frames handled; *@more set if the ring should be served again in
 * the next pass; busy time charged from *@clk
 */
static unsigned int worker_rx(struct worker *w, struct wpair *wp,
			      struct wturn *b, bool *more, uint64_t *clk)
{
	struct wring *t = &wp->rx;
	unsigned int pkts = 0, max = worker_turn_max(b);
	uint64_t bytes = 0;
	int ret = 0;

	if (!t->r->started || !t->r->enabled || t->dead || !max)
		return 0;
	if (wp->rx_starved) {
		/* no kick will come while polling or without a kick fd */
		if ((!w->polling && t->r->kick_fd >= 0) ||
		    !vq_avail_pending(t->io.vq))
			return 0;
		worker_rx_unstarve(w, wp);
	}
	if (!wp->rx_peek && !wp->rx_ready)
		return 0;
	/* nothing waiting (null): no ring work at all */
	if (wp->rx_peek && !t->io.host->ops->rx_peek_len(t->io.host, t->io.pair))
		return 0;
	worker_notify_off(t);
	pkts = net_rx_burst(&t->io, max, b->bytes, &bytes, &ret);
	if (ret == -ENOSPC)
		*more = true;
	else if (ret == -EAGAIN)
		wp->rx_ready = false;
	else if (ret == -ENOBUFS)
		*more |= worker_rx_starve(w, wp);
	worker_flush(t);
	if (ret == -EBADMSG)
		worker_break(w, wp, t);
	t->dirty = true;
	if (pkts)
		worker_charge(t, clk);
	w->rx_moved += pkts;
	*more |= worker_turn_end(b, pkts, bytes);
	return pkts;
}

/*
 * One pass over a pair, within its budgets (--budget-pkts, --budget-bytes:
 * per ring and pass). While both directions have frames, TX and RX take
 * turns of WORKER_TURN frames, each turn ending in a used-ring flush: a
 * guest that polls sees its frames as they are done instead of after the
 * whole budget, and where the host loops back or answers, a reply goes out
 * in the same pass. A direction alone is served to its budget in one go:
 * one flush, as a flush costs the cache lines the guest's CPU polls. The
 * first TX turn is capped (its frames may be RX's work: loop); the calls
 * the flushes owe go out once, when the pass ends.
 * Return: frames moved; *@more: serve again at once
 */
static unsigned int worker_serve_pair(struct worker *w, struct wpair *wp,
				      bool *more, uint64_t *clk)
{
	struct wturn tx = { w->cur->o.budget_pkts, w->cur->o.budget_bytes,
			    true, false };
	struct wturn rx = tx;
	unsigned int n = 0, txn, rxn;

	for (;;) {
		txn = worker_tx(w, wp, &tx, more, clk);
		rx.cap = txn;
		rxn = worker_rx(w, wp, &rx, more, clk);
		n += txn + rxn;
		/* loop host: RX made room for a blocked TX */
		if (wp->tx_blocked && rxn)
			*more = true;
		if (!tx.full && !rx.full)	/* neither stopped at its cap */
			break;
		tx.cap = rxn;
		tx.full = rx.full = false;
	}
	worker_call(&wp->tx);
	worker_call(&wp->rx);
	return n;
}

static unsigned int worker_serve(struct worker *w, bool *more)
{
	uint64_t clk = worker_now_ns();
	unsigned int i, n = 0;

	*more = false;
	for (i = 0; i < w->npairs; i++) {
		if (w->wp[i].asleep)
			continue;
		w->cur = w->wp[i].wport;
		n += worker_serve_pair(w, &w->wp[i], more, &clk);
	}
	return n;
}

static void worker_commit_all(struct worker *w)
{
	unsigned int i;

	for (i = 0; i < w->npairs; i++) {
		worker_commit(&w->wp[i].rx);
		worker_commit(&w->wp[i].tx);
	}
	w->busy_passes = 0;
}

static bool worker_tx_any_blocked(const struct worker *w)
{
	unsigned int i;

	for (i = 0; i < w->npairs; i++)
		if (w->wp[i].tx_blocked)
			return true;
	return false;
}

/*
 * Going to sleep with kicks on: a pair whose rings can only get work
 * through one of its fds (a kick, the host side's RX fd) is skipped by
 * the next passes until that fd fires. A thread serving many pairs (a
 * worker_pool's) then pays per wake for the pairs that woke it, not for
 * all of them. Pairs the host side must be asked about (a generator with
 * frames to give) stay awake.
 */
static void worker_doze(struct worker *w)
{
	unsigned int i;

	if (w->npairs < 2)
		return;
	for (i = 0; i < w->npairs; i++) {
		struct wpair *wp = &w->wp[i];
		struct wring *rx = &wp->rx, *tx = &wp->tx;
		bool tx_idle, rx_idle;

		if (wp->asleep)
			continue;
		tx_idle = !tx->r->started || tx->dead ||
			  (!tx->notify_off && !wp->tx_blocked);
		rx_idle = !rx->r->started || !rx->r->enabled || rx->dead ||
			  (wp->rx_starved && !rx->notify_off);
		if (!rx_idle && !wp->rx_starved) {
			w->cur = wp->wport;
			rx_idle = wp->rx_peek ?
				  !rx->io.host->ops->rx_peek_len(rx->io.host,
								 rx->io.pair) :
				  !wp->rx_ready;
		}
		wp->asleep = tx_idle && rx_idle;
	}
}

/* Before sleeping: ask for kicks again and recheck (2.7.10 / 2.8.21) */
static bool worker_notify_on(struct worker *w)
{
	bool pending = false;
	struct wring *t;
	unsigned int i;

	for (i = 0; i < w->npairs; i++) {
		struct wpair *wp = &w->wp[i];

		if (wp->asleep)
			continue;	/* kicks are on already */
		w->cur = wp->wport;	/* guest memory next: see worker_fault() */
		t = &wp->rx;	/* starved while polling: kicks were off */
		if (wp->rx_starved && t->notify_off && !t->dead &&
		    t->r->started) {
			t->notify_off = false;
			if (vq_enable_notify(t->io.vq)) {
				worker_rx_unstarve(w, wp);
				pending = true;
			}
		}
		t = &wp->tx;
		if (!t->notify_off || t->dead || !t->r->started ||
		    wp->tx_blocked)
			continue;
		t->notify_off = false;
		pending |= vq_enable_notify(t->io.vq);
	}
	return pending;
}

static void worker_event(struct worker *w, uint64_t tag)
{
	/* slots are < npairs: the epoll set is rebuilt whenever they change */
	struct wpair *wp = &w->wp[(tag >> 8) % w->cap];

	wp->asleep = false;	/* WEV_CTL: slot 0, served again: harmless */
	switch (tag & 0xff) {
	case WEV_CTL:
		worker_drain(w->ctl_fd);
		break;
	case WEV_RX_KICK:
		worker_drain(wp->p->rx.kick_fd);
		wp->rx.acc.kicks++;
		wp->rx.dirty = true;
		if (wp->rx_starved)
			worker_rx_unstarve(w, wp);
		break;
	case WEV_TX_KICK:
		worker_drain(wp->p->tx.kick_fd);
		wp->tx.acc.kicks++;
		wp->tx.dirty = true;
		break;
	case WEV_HOST_RX:
		wp->rx_ready = true;
		break;
	}
}

static void worker_wait(struct worker *w, int timeout_ms)
{
	struct epoll_event ev[WORKER_MAX_EVENTS];
	int i, n;

	if (w->epfd < 0) {
		if (timeout_ms)
			usleep(WORKER_RETRY_MS * 1000);
		return;
	}
	n = epoll_wait(w->epfd, ev, WORKER_MAX_EVENTS, timeout_ms);
	for (i = 0; i < n; i++)
		worker_event(w, ev[i].data.u64);
}

/*
 * Before sleeping: hold host RX, and how long? Only where the host side
 * wakes us per frame (need_poll_events) and nothing else keeps the thread
 * from sleeping; rx_hold_next() decides.
 */
static bool worker_should_hold(struct worker *w)
{
	unsigned int moved = w->rx_moved;

	if (!w->need_poll_events || w->hold_epfd < 0 ||
	    w->need_sleep_timeout || w->poll_us)
		return false;
	w->rx_moved = 0;
	return rx_hold_next(&w->hold, moved, worker_now_ns());
}
/*
 * The RX hold: sleep @w->hold.hold_ns on the set without host fds, then
 * look at every armed host fd once, as if it had woken us.
 */
static void worker_hold(struct worker *w)
{
	struct timespec hold = { 0, (long)w->hold.hold_ns };
	struct epoll_event ev[WORKER_MAX_EVENTS];
	unsigned int i;
	int n;

	n = epoll_pwait2(w->hold_epfd, ev, WORKER_MAX_EVENTS, &hold, NULL);
	for (i = 0; (int)i < n; i++)
		worker_event(w, ev[i].data.u64);
	for (i = 0; i < w->npairs; i++)
		if (w->wp[i].host_armed) {
			w->wp[i].rx_ready = true;
			w->wp[i].asleep = false;	/* see worker_doze() */
		}
}

static void worker_ep_add(struct worker *w, int fd, uint64_t tag)
{
	struct epoll_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.u64 = tag;
	if (fd >= 0 && epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		log_warn("port %s: worker %u: epoll_ctl(fd %d): %s",
			 w->cur ? w->cur->name : "-", w->id, fd, strerror(errno));
	/* the hold set: everything but the host fds (on failure: no hold) */
	if (fd >= 0 && w->hold_epfd >= 0 && (tag & 0xff) != WEV_HOST_RX &&
	    epoll_ctl(w->hold_epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		close(w->hold_epfd);
		w->hold_epfd = -1;
	}
}

static void worker_ring_setup(struct worker *w, struct wpair *wp,
			      struct wring *t, struct vnet_ring *r, bool tx)
{
	t->r = r;
	t->io.vq = &r->vq;
	t->io.host = wp->wport->host;
	t->io.pair = wp->p->index;
	t->io.hdr_len = wp->p->hdr_len;
	t->io.features = wp->p->features;
	t->io.s = &w->s;
	t->io.acc = &t->acc;
	t->rx_est = 0;
	t->io.rx_est = tx ? NULL : &t->rx_est;
	t->io.spoof = tx && spoof_active(&wp->wport->o.spoof) ?
		      &wp->wport->o.spoof : NULL;
	t->qidx = 2 * wp->p->index + tx;
	/* p->kernel: the kernel's vhost-net runs this pair: not ours to serve */
	t->dead = vq_is_broken(&r->vq) || wp->p->kernel;
	t->notify_off = false;
	t->dirty = false;
	t->call_due = false;
	memset(&t->acc, 0, sizeof(t->acc));
	if (r->started && !t->dead && r->kick_fd < 0)
		w->need_sleep_timeout = true;
}

static void worker_pair_setup(struct worker *w, struct wpair *wp)
{
	struct host *host = wp->wport->host;
	unsigned int slot = (unsigned int)(wp - w->wp);
	struct vnet_pair *p = wp->p;

	w->cur = wp->wport;
	w->poll_us = MAX(w->poll_us, wp->wport->o.poll_us);
	worker_ring_setup(w, wp, &wp->rx, &p->rx, false);
	worker_ring_setup(w, wp, &wp->tx, &p->tx, true);
	wp->asleep = false;
	wp->rx_starved = false;
	wp->rx_ready = true;
	wp->tx_blocked = false;
	wp->host_armed = false;
	wp->host_fd = host->ops->rx_fd(host, p->index);
	/* a host with an fd tells lengths only of frames it holds (tap) */
	wp->rx_peek = wp->host_fd < 0 &&
		      host->ops->rx_peek_len(host, p->index) >= 0;
	if (wp->host_fd >= 0 && !wp->rx_peek)
		w->need_poll_events = true;
	if (p->rx.started && !p->kernel)
		worker_ep_add(w, p->rx.kick_fd, WEV_RX_KICK | (uint64_t)slot << 8);
	if (p->tx.started && !p->kernel)
		worker_ep_add(w, p->tx.kick_fd, WEV_TX_KICK | (uint64_t)slot << 8);
	if (wp->host_fd >= 0 && p->rx.started && p->rx.enabled && !wp->rx.dead) {
		worker_ep_add(w, wp->host_fd, WEV_HOST_RX | (uint64_t)slot << 8);
		wp->host_armed = true;
	}
}

/* Re-read every pair after a resume; serve RX and signal each RX ring once */
static void worker_rearm(struct worker *w)
{
	unsigned int i;

	if (w->epfd >= 0)
		close(w->epfd);
	if (w->hold_epfd >= 0)
		close(w->hold_epfd);
	w->hold_epfd = epoll_create1(EPOLL_CLOEXEC);	/* -1: no RX hold */
	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (w->epfd < 0)
		log_err("worker %u: epoll_create1: %s: polling every %d ms",
			w->id, strerror(errno), WORKER_RETRY_MS);
	w->cur = NULL;	/* a port handed back may be gone */
	w->need_sleep_timeout = w->epfd < 0;
	w->need_poll_events = false;
	w->poll_us = 0;
	worker_ep_add(w, w->ctl_fd, WEV_CTL);
	for (i = 0; i < w->npairs; i++)
		worker_pair_setup(w, &w->wp[i]);
	/* "After every ring start, check RX and signal once" */
	for (i = 0; i < w->npairs; i++) {
		struct wpair *wp = &w->wp[i];

		if (!wp->p->rx.started || !wp->p->rx.enabled || wp->rx.dead)
			continue;
		uint64_t clk = worker_now_ns();
		bool more = false;
		struct wturn b;

		w->cur = wp->wport;
		b = (struct wturn){ w->cur->o.budget_pkts,
				    w->cur->o.budget_bytes, false, false };
		worker_rx(w, wp, &b, &more, &clk);
		wp->rx.call_due = false;	/* called here in any case */
		worker_signal(wp->p->rx.call_fd);
		__atomic_fetch_add(&wp->p->rx.ctr.calls, 1, __ATOMIC_RELAXED);
	}
	worker_commit_all(w);
}

/* A pause or stop request is pending. Return: true if the thread must exit */
static bool worker_control(struct worker *w)
{
	bool stop;

	pthread_mutex_lock(&w->lock);
	__atomic_store_n(&w->ctl_pending, 0, __ATOMIC_RELAXED);
	if (w->pause_count && !w->stop) {
		w->paused = true;
		pthread_cond_broadcast(&w->cond);
		while (w->pause_count && !w->stop)
			pthread_cond_wait(&w->cond, &w->lock);
		w->paused = false;
	}
	stop = w->stop;
	pthread_mutex_unlock(&w->lock);
	if (!stop)
		worker_rearm(w);
	return stop;
}

/* Worker threads running, and the CPUs this process may run on (read at
 * the first start): more threads than CPUs makes polling threads share
 * CPUs (worker_cpus_shared()) */
static _Atomic unsigned int worker_live;
static unsigned int worker_ncpus = 1;
static pthread_once_t worker_ncpus_once = PTHREAD_ONCE_INIT;

static void worker_ncpus_read(void)
{
	cpu_set_t cpus;

	if (!sched_getaffinity(0, sizeof(cpus), &cpus) && CPU_COUNT(&cpus) > 0)
		worker_ncpus = (unsigned int)CPU_COUNT(&cpus);
}

/**
 * worker_count() - A worker thread started (+1) or was joined (-1)
 * @delta:	+1 or -1
 *
 * Context: control thread
 */
void worker_count(int delta)
{
	pthread_once(&worker_ncpus_once, worker_ncpus_read);
	if (delta > 0)
		atomic_fetch_add(&worker_live, 1);
	else
		atomic_fetch_sub(&worker_live, 1);
}

/*
 * Do worker threads outnumber the CPUs we may use? Then polling workers
 * take turns on a CPU: an empty polling pass yields instead of spinning out
 * its time slice. A relaxed load, on idle passes only.
 */
static bool worker_cpus_shared(void)
{
	return atomic_load_explicit(&worker_live, memory_order_relaxed) >
	       worker_ncpus;
}

/*
 * --poll-us: true while the empty passes since @idle_since (0: none yet)
 * stay under @poll_us. The clock is read on the first empty pass and then
 * every WORKER_CLOCK_EVERY empty passes, never per packet.
 */
static bool worker_keep_polling(unsigned int poll_us, uint64_t *idle_since,
				unsigned int *spins)
{
	uint64_t now;

	if (*idle_since && ++*spins % WORKER_CLOCK_EVERY)
		return true;
	now = worker_now_us();
	if (!*idle_since) {
		*idle_since = now;
		*spins = 0;
		return true;
	}
	return now - *idle_since < poll_us;
}

/*
 * A SIGBUS on guest memory or the dirty log came back here: whatever ring
 * was being walked is in an unknown state, and all the rings of that port
 * (@w->cur: a pool thread serves other ports too, which go on) use the
 * same memory. Break them (vq_break: they stay dead across resumes until
 * the connection's rings are reset), log once per connection, and shut the
 * socket down: the control thread sees the hangup and closes the
 * connection. Not per packet.
 */
static void worker_fault(struct worker *w)
{
	struct worker_port *wport = w->cur;
	unsigned int i;
	char what[160];
	int fd;

	if (!wport)
		abort();	/* our bug: guest memory touched outside a pair */
	for (i = 0; i < w->npairs; i++) {
		struct wpair *wp = &w->wp[i];

		if (wp->wport != wport)
			continue;
		vq_break(&wp->p->rx.vq, "guest memory vanished");
		vq_break(&wp->p->tx.vq, "guest memory vanished");
		wp->rx.dead = wp->tx.dead = true;
		worker_host_arm(w, wp, false);
	}
	guard_describe(what, sizeof(what));
	if (!__atomic_exchange_n(&wport->fault_logged, 1, __ATOMIC_RELAXED))
		log_err("port %s: guest %s: closing the connection", wport->name,
			what);
	fd = __atomic_load_n(&wport->conn_fd, __ATOMIC_ACQUIRE);
	if (fd >= 0)
		shutdown(fd, SHUT_RDWR);
}

/* The serving loop; returns when the thread must exit */
static void worker_loop(struct worker *w)
{
	unsigned int poll_us = w->poll_us, spins = 0;
	uint64_t idle_since = 0;
	bool more;

	for (;;) {
		if (__atomic_load_n(&w->ctl_pending, __ATOMIC_ACQUIRE)) {
			worker_commit_all(w);
			if (worker_control(w))
				break;
			poll_us = w->poll_us;	/* the pairs may have changed */
		}
		if ((worker_serve(w, &more) || more) && (more || poll_us)) {
			/* busy: no clock read, counters every N passes */
			idle_since = 0;
			if (++w->busy_passes >= WORKER_COMMIT_EVERY)
				worker_commit_all(w);
			/* busy with some pairs: see the others' kicks (a
			 * starved RX, a dozing pair) once per pass */
			if (more && w->npairs > 1)
				worker_wait(w, 0);
			if (!more) {
				w->polling = true;
				if (w->need_poll_events)
					worker_wait(w, 0);
			}
			continue;
		}
		worker_commit_all(w);
		/* what a blocked TX waits for (a switch member's queue
		 * draining) may be another thread on this CPU: let it run */
		if (worker_tx_any_blocked(w))
			sched_yield();
		if (poll_us && worker_keep_polling(poll_us, &idle_since, &spins)) {
			w->polling = true;
			if (w->need_poll_events)
				worker_wait(w, 0);
			/* a worker sharing our CPU runs now, not when our
			 * time slice ends */
			if (worker_cpus_shared())
				sched_yield();
			continue;
		}
		w->polling = false;
		idle_since = 0;
		if (worker_notify_on(w))
			continue;
		if (worker_should_hold(w)) {
			worker_hold(w);
			continue;
		}
		if (w->need_sleep_timeout || worker_tx_any_blocked(w)) {
			worker_wait(w, WORKER_RETRY_MS);
			continue;
		}
		worker_doze(w);
		worker_wait(w, -1);
	}
}

/* A TX burst fits the ring with every earlier request reaped */
_Static_assert(NET_TX_BURST <= TAP_URING_ENTRIES, "TX burst larger than the TAP TX ring");

/*
 * The thread's TAP ring (TX bursts, RX batches), for its whole life
 * (never made on the hot path): a port's own thread makes one if the
 * port's host batches, a pool's thread always (any port may come). A
 * refusal, unless the operator chose writev, is one line; the thread then
 * writes and reads per frame.
 */

static void worker_uring_init(struct worker *w)
{
	struct reason why;
	int ret;

	if (w->wport && !w->wport->host->ops->tx_batch)
		return;
	ret = tap_uring_create(&w->s.uring, &why);
	if (!ret || ret == -EOPNOTSUPP)
		return;
	if (w->wport)
		log_warn("port %s: worker %u: tap I/O uses readv/writev: %s",
			 w->wport->name, w->id, why.msg);
	else
		log_warn("worker pool thread %u: tap I/O uses readv/writev: %s",
			 w->id, why.msg);
}

/* The thread: serve until told to stop (worker_stop()) */
void *worker_main(void *arg)
{
	struct worker *w = arg;
	sigjmp_buf jb;
	char name[16];
	sigset_t sb;

	if (w->wport)
		snprintf(name, sizeof(name), "vnet-%.6s-w%u", w->wport->name, w->id);
	else
		snprintf(name, sizeof(name), "vnetd-w%u", w->id);
	pthread_setname_np(pthread_self(), name);
	guard_thread_init();
	sigemptyset(&sb);
	sigaddset(&sb, WORKER_SIG_SANDBOX);
	pthread_sigmask(SIG_UNBLOCK, &sb, NULL);
	worker_uring_init(w);
	/*
	 * One recovery point for the thread's life: no local of this frame
	 * changes after sigsetjmp(), and worker_loop() starts afresh after a
	 * fault. Every guest access of the thread (serve, rearm, notify) runs
	 * inside; none runs under @lock.
	 */
	if (sigsetjmp(jb, 0))
		worker_fault(w);
	guard_arm(&jb);
	worker_rearm(w);
	worker_loop(w);
	guard_disarm();
	worker_commit_all(w);
	tap_uring_destroy(w->s.uring);
	w->s.uring = NULL;
	return NULL;
}
