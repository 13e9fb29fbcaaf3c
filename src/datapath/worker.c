// SPDX-License-Identifier: MIT
/*
 * worker.c - the data plane threads' lifecycle: a port's own threads (pair
 * i on thread i % nthreads), or a worker_pool's that the pairs of every
 * port are handed to (least loaded thread first, through the pause
 * handshake below: the thread parks, takes the pair into its list, rebuilds
 * its epoll set; taken back the same way). What a thread does while it
 * runs is worker_loop.c's.
 *
 * Control handshake: a mutex and a condition variable per thread, used only
 * by worker_pause()/worker_resume() and by a thread that sees its
 * ctl_pending flag (worker_loop.c): never per packet. vu_backend.c pauses a
 * pair's thread around every change of the pair with worker_pause() and
 * worker_resume().
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

#include "log.h"
#include "net.h"
#include "worker.h"
#include "worker_loop.h"
#include "util.h"

/* #syscalls: eventfd2 write futex clone clone3 set_robust_list rseq mprotect madvise munmap
 */

static void worker_free(struct worker *w)
{
	if (!w)
		return;
	if (w->epfd >= 0)
		close(w->epfd);
	if (w->hold_epfd >= 0)
		close(w->hold_epfd);
	if (w->ctl_fd >= 0)
		close(w->ctl_fd);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	net_scratch_cleanup(&w->s);
	free(w->wp);
	free(w);
}

/* A thread not started yet, with room for @cap pairs; @owner NULL: a pool's */
static int worker_new(struct worker_port *owner, unsigned int id,
		      unsigned int cap, struct worker **out)
{
	struct worker *w;
	int ret;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->wport = owner;
	w->id = id;
	w->epfd = -1;
	w->hold_epfd = -1;
	w->ctl_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	w->cap = MAX(cap, 1u);
	w->wp = calloc(w->cap, sizeof(*w->wp));
	ret = w->ctl_fd < 0 ? -errno : !w->wp ? -ENOMEM : net_scratch_init(&w->s);
	if (ret) {
		worker_free(w);
		return ret;
	}
	*out = w;
	return 0;
}

static int worker_start(struct worker *w)
{
	sigset_t all, old;
	int ret;

	/* signals are the main thread's: workers start with all blocked */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&w->thread, NULL, worker_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	w->started = !ret;
	if (w->started)
		worker_count(1);
	return ret;
}

/* Stop, join and free @w (NULL: nothing) */
static void worker_stop(struct worker *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	__atomic_store_n(&w->ctl_pending, 1, __ATOMIC_RELEASE);
	worker_signal(w->ctl_fd);
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	if (w->started) {
		pthread_join(w->thread, NULL);
		worker_count(-1);
	}
	worker_free(w);
}

/* Called with @w->lock held; returns with @w parked */
static void worker_pause_locked(struct worker *w)
{
	if (w->pause_count++)
		return;		/* already parked (or parking) for someone */
	__atomic_store_n(&w->ctl_pending, 1, __ATOMIC_RELEASE);
	worker_signal(w->ctl_fd);
	while (!w->paused && w->started && !w->stop)
		pthread_cond_wait(&w->cond, &w->lock);
}

static void worker_resume_locked(struct worker *w)
{
	if (!w->pause_count)
		return;		/* unbalanced resume: ignore */
	if (!--w->pause_count)
		pthread_cond_broadcast(&w->cond);
}

/*
 * Room for @n pairs in pool thread @w's list. Growing moves the list the
 * thread reads, so it is parked meanwhile; the room doubles, so that
 * happens a few times in the thread's life, not per port.
 */
static int worker_reserve(struct worker *w, unsigned int n)
{
	struct wpair *wp;
	unsigned int cap;
	int ret = 0;

	if (n <= w->cap)
		return 0;
	for (cap = w->cap; cap < n; cap *= 2)
		;
	pthread_mutex_lock(&w->lock);
	worker_pause_locked(w);
	wp = realloc(w->wp, cap * sizeof(*wp));
	if (wp) {
		w->wp = wp;
		w->cap = cap;
	} else {
		ret = -ENOMEM;
	}
	worker_resume_locked(w);
	pthread_mutex_unlock(&w->lock);
	return ret;
}

/*
 * Pair @i of @wport goes into parked pool thread @w's list (room reserved
 * by worker_port_join()); on resume the thread takes it into its epoll set
 * (worker_rearm()). The thread reads its list only while not parked: no
 * lock on the data path. Called with @w->lock held, @w parked.
 */
static void worker_adopt_locked(struct worker *w, struct worker_port *wport,
				unsigned int i)
{
	struct wpair *wp = &w->wp[w->npairs++];

	memset(wp, 0, sizeof(*wp));
	wp->p = &wport->pairs[i];
	wp->wport = wport;
	wport->handed[i] = true;
}

/* Parked @w: adopt the pairs of @pool assigned to it (slot @k) not yet handed */
static void worker_adopt_pending(struct worker_port *wport, unsigned int k)
{
	unsigned int i;

	for (i = 0; i < wport->npairs; i++)
		if (wport->thr_of[i] == k && !wport->handed[i])
			worker_adopt_locked(wport->w[k], wport, i);
}

/* Take back every pair of @pool from @w (slot @k); its counters were
 * committed when it parked. A thread never handed one is not paused. */
static void worker_take_back(struct worker_port *wport, unsigned int k)
{
	struct worker *w = wport->w[k];
	unsigned int i, n = 0, mine = 0;
	bool handed = false;

	for (i = 0; i < wport->npairs; i++)
		if (wport->thr_of[i] == k) {
			mine++;
			handed |= wport->handed[i];
		}
	w->assigned -= mine;
	if (!handed)
		return;
	pthread_mutex_lock(&w->lock);
	worker_pause_locked(w);
	for (i = 0; i < w->npairs; i++)
		if (w->wp[i].wport != wport)
			w->wp[n++] = w->wp[i];
	w->npairs = n;
	worker_resume_locked(w);
	pthread_mutex_unlock(&w->lock);
}

/* Index of @w in @wport->w, added if new */
static unsigned int worker_port_slot(struct worker_port *wport, struct worker *w)
{
	unsigned int k;

	for (k = 0; k < wport->nworkers; k++)
		if (wport->w[k] == w)
			return k;
	wport->w[wport->nworkers] = w;
	return wport->nworkers++;
}

/*
 * The port's pairs are assigned to the pool's least loaded threads, one
 * at a time. A pair with a started ring is handed over now; the others
 * (a port just made: no frontend yet) when their thread is first paused
 * for them (worker_pause(), worker_pause_all(): the frontend's first
 * message that touches them), so a port that never connects never stops
 * the threads other ports run on.
 */
static int worker_port_join(struct worker_port *wport, struct worker_pool *g)
{
	unsigned int i, k;
	int ret;

	for (i = 0; i < wport->npairs; i++) {
		struct worker *best = g->w[0];
		struct vnet_pair *p = &wport->pairs[i];

		for (k = 1; k < g->nthreads; k++)
			if (g->w[k]->assigned < best->assigned)
				best = g->w[k];
		ret = worker_reserve(best, best->assigned + 1);
		if (ret)
			return ret;
		best->assigned++;
		k = worker_port_slot(wport, best);
		wport->thr_of[i] = (uint8_t)k;
		if (p->rx.started || p->tx.started) {
			pthread_mutex_lock(&best->lock);
			worker_pause_locked(best);
			worker_adopt_locked(best, wport, i);
			worker_resume_locked(best);
			pthread_mutex_unlock(&best->lock);
		}
	}
	return 0;
}

/* The port's own threads: pair i on thread i % nworkers */
static int worker_port_spawn(struct worker_port *wport)
{
	unsigned int i, n;
	int ret;

	n = wport->o.nthreads ? MIN(wport->o.nthreads, wport->npairs) : wport->npairs;
	for (i = 0; i < n; i++) {
		ret = worker_new(wport, i, (wport->npairs + n - 1) / n, &wport->w[i]);
		if (ret)
			return ret;
		wport->nworkers++;
	}
	for (i = 0; i < wport->npairs; i++) {
		struct worker *w = wport->w[i % n];
		struct wpair *wp = &w->wp[w->npairs++];

		wp->p = &wport->pairs[i];
		wp->wport = wport;
		wport->thr_of[i] = (uint8_t)(i % n);
	}
	for (i = 0; i < n; i++) {
		ret = worker_start(wport->w[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * worker_port_create() - Start serving the pairs of a port
 * @wportp:	Output: the port's threads
 * @port_name:	For log lines
 * @pairs:	The port's pairs, @pairs[i].index == i; they stay owned by the
 *		caller and must outlive the pool
 * @npairs:	1..VNET_MAX_PAIRS
 * @host:	Opened host side
 * @o:		Options (zero fields take defaults); NULL for all defaults.
 *		With @o->pool the pairs are handed to the pool's least
 *		loaded threads (@o->nthreads is ignored), else the port gets
 *		@o->nthreads threads of its own (0: one per pair)
 *
 * Threads start serving at once; pairs that are not started are not
 * touched. Pause a pair before changing it.
 *
 * Context: control thread
 * Return: 0, -EINVAL, -ENOMEM, or pthread_create()'s error
 */
int worker_port_create(struct worker_port **wportp, const char *port_name,
		       struct vnet_pair *pairs, unsigned int npairs,
		       struct host *host, const struct worker_opts *o)
{
	struct worker_port *wport;
	int ret;

	if (!npairs || npairs > VNET_MAX_PAIRS || !pairs || !host || !host->ops)
		return -EINVAL;
	wport = calloc(1, sizeof(*wport));
	if (!wport)
		return -ENOMEM;
	snprintf(wport->name, sizeof(wport->name), "%s", port_name ? port_name : "?");
	wport->host = host;
	wport->pairs = pairs;
	wport->npairs = npairs;
	wport->conn_fd = -1;
	if (o)
		wport->o = *o;
	if (!wport->o.budget_pkts)
		wport->o.budget_pkts = 256;
	if (!wport->o.budget_bytes)
		wport->o.budget_bytes = 1u << 20;
	wport->shared = wport->o.pool != NULL;
	ret = wport->shared ? worker_port_join(wport, wport->o.pool) :
			     worker_port_spawn(wport);
	if (ret) {
		worker_port_destroy(wport);
		return ret;
	}
	*wportp = wport;
	return 0;
}

/**
 * worker_port_destroy() - Stop serving the port's pairs, free them
 * @wport:		The port's threads, or NULL
 *
 * Its own threads are stopped and joined; a pool's threads hand its
 * pairs back and go on serving other ports. The pairs, their fds and the
 * host side stay the caller's.
 *
 * Context: control thread
 */
void worker_port_destroy(struct worker_port *wport)
{
	unsigned int k;

	if (!wport)
		return;
	worker_unpause_all(wport);
	for (k = 0; k < wport->nworkers; k++) {
		if (wport->shared)
			worker_take_back(wport, k);
		else
			worker_stop(wport->w[k]);
	}
	free(wport);
}

/**
 * worker_pause() - Stop the thread serving @pair from touching it
 * @wport:		The port's threads
 * @pair:	Pair index
 *
 * Returns once that thread is parked (it serves no pair until resumed,
 * a pool thread none of any port). Pauses nest: each needs its
 * worker_resume().
 *
 * Context: control thread; not per packet
 */
void worker_pause(struct worker_port *wport, unsigned int pair)
{
	struct worker *w;

	if (!wport || pair >= wport->npairs)
		return;
	w = wport->w[wport->thr_of[pair]];
	pthread_mutex_lock(&w->lock);
	worker_pause_locked(w);
	if (wport->shared && !wport->handed[pair])
		worker_adopt_locked(w, wport, pair);
	wport->held[wport->thr_of[pair]]++;
	pthread_mutex_unlock(&w->lock);
}

/**
 * worker_resume() - Let the thread serving @pair go on
 * @wport:		The port's threads
 * @pair:	Pair index
 *
 * After the last resume the thread re-reads its pairs (fds, started,
 * enabled, features), serves RX and signals each started RX ring once.
 *
 * Context: control thread
 */
void worker_resume(struct worker_port *wport, unsigned int pair)
{
	unsigned int k;

	if (!wport || pair >= wport->npairs)
		return;
	k = wport->thr_of[pair];
	if (!wport->held[k])
		return;		/* unbalanced resume: ignore */
	pthread_mutex_lock(&wport->w[k]->lock);
	wport->held[k]--;
	worker_resume_locked(wport->w[k]);
	pthread_mutex_unlock(&wport->w[k]->lock);
}

/**
 * worker_pause_all() - worker_pause() every thread serving the pool
 * @wport:		The port's threads
 *
 * Context: control thread
 */
void worker_pause_all(struct worker_port *wport)
{
	unsigned int k;

	if (!wport)
		return;
	for (k = 0; k < wport->nworkers; k++) {
		pthread_mutex_lock(&wport->w[k]->lock);
		worker_pause_locked(wport->w[k]);
		if (wport->shared)
			worker_adopt_pending(wport, k);
		wport->held[k]++;
		pthread_mutex_unlock(&wport->w[k]->lock);
	}
}

/**
 * worker_resume_all() - Undo worker_pause_all()
 * @wport:		The port's threads
 *
 * Context: control thread
 */
void worker_resume_all(struct worker_port *wport)
{
	unsigned int k;

	if (!wport)
		return;
	for (k = 0; k < wport->nworkers; k++) {
		if (!wport->held[k])
			continue;
		pthread_mutex_lock(&wport->w[k]->lock);
		wport->held[k]--;
		worker_resume_locked(wport->w[k]);
		pthread_mutex_unlock(&wport->w[k]->lock);
	}
}

/**
 * worker_port_set_conn() - The connection a memory fault must close
 * @wport:	The port's threads, or NULL
 * @fd:		Connected socket (stays the caller's), -1: none
 *
 * On a recovered SIGBUS in guest memory a worker shuts @fd down (and logs
 * one line per connection); the control thread then sees the hangup. The
 * threads are paused around the change, so no worker still holds an old
 * fd (which may be closed and reused) once this returns.
 *
 * Context: control thread, before the fd is closed
 */
void worker_port_set_conn(struct worker_port *wport, int fd)
{
	if (!wport)
		return;
	worker_pause_all(wport);
	__atomic_store_n(&wport->conn_fd, fd, __ATOMIC_RELEASE);
	__atomic_store_n(&wport->fault_logged, 0, __ATOMIC_RELAXED);
	worker_resume_all(wport);
}

/**
 * worker_unpause_all() - Drop every pause this pool holds on its threads
 * @wport:	The port's threads, or NULL
 *
 * For the control thread after a recovered SIGBUS: the message it was
 * handling may have paused threads and never got to resume them. Pauses
 * other ports hold on a shared thread stay.
 *
 * Context: control thread
 */
void worker_unpause_all(struct worker_port *wport)
{
	unsigned int k;

	if (!wport)
		return;
	for (k = 0; k < wport->nworkers; k++) {
		if (!wport->w[k])
			continue;
		pthread_mutex_lock(&wport->w[k]->lock);
		for (; wport->held[k]; wport->held[k]--)
			worker_resume_locked(wport->w[k]);
		pthread_mutex_unlock(&wport->w[k]->lock);
	}
}

/**
 * worker_pool_create() - Start a pool of threads that ports share
 * @poolp:		Output: the pool
 * @nthreads:	Threads, 1..WORKER_POOL_MAX
 *
 * The threads start with no pair and sleep until a port created with
 * worker_opts.pool hands them some (worker_port_create()).
 *
 * Context: control thread
 * Return: 0, -EINVAL, -ENOMEM, or pthread_create()'s error
 */
int worker_pool_create(struct worker_pool **poolp, unsigned int nthreads)
{
	struct worker_pool *g;
	unsigned int i;
	int ret = 0;

	if (!nthreads || nthreads > WORKER_POOL_MAX)
		return -EINVAL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	for (i = 0; i < nthreads && !ret; i++) {
		ret = worker_new(NULL, i, 4, &g->w[i]);
		if (!ret) {
			g->nthreads++;
			ret = worker_start(g->w[i]);
		}
	}
	if (ret) {
		worker_pool_destroy(g);
		return ret;
	}
	*poolp = g;
	return 0;
}

/**
 * worker_pool_destroy() - Stop and join the pool's threads, free it
 * @g:		Pool, or NULL; every port using it destroyed first
 *
 * Context: control thread
 */
void worker_pool_destroy(struct worker_pool *g)
{
	unsigned int i;

	if (!g)
		return;
	for (i = 0; i < g->nthreads; i++)
		worker_stop(g->w[i]);
	free(g);
}

/**
 * worker_pool_pairs() - Pairs a pool thread serves now
 * @g:		Pool
 * @i:		Thread, 0..worker_pool_threads() - 1
 *
 * Context: control thread (the only one that changes them)
 * Return: pairs handed to thread @i, 0 if there is no such thread
 */
unsigned int worker_pool_pairs(const struct worker_pool *g, unsigned int i)
{
	return g && i < g->nthreads ? g->w[i]->npairs : 0;
}

/**
 * worker_pool_threads() - Threads of the pool
 * @g:		Pool, or NULL
 *
 * Return: their number, 0 for NULL
 */
unsigned int worker_pool_threads(const struct worker_pool *g)
{
	return g ? g->nthreads : 0;
}
