/* SPDX-License-Identifier: MIT */
/*
 * worker_loop.h - a data plane thread as it serves: its rings and pairs
 * (struct wring, struct wpair), the thread (struct worker), the port it
 * serves them for (struct worker_port) and the shared threads (struct
 * worker_pool), and the thread's entry. Private to worker.c (lifecycle)
 * and worker_loop.c (the serving loop); everyone else uses worker.h.
 */
#ifndef VNET_WORKER_LOOP_H
#define VNET_WORKER_LOOP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "host.h"
#include "log.h"
#include "net.h"
#include "pair.h"
#include "rx_policy.h"
#include "worker_types.h"

struct worker_port;


enum worker_ev {
	WEV_CTL = 0,
	WEV_RX_KICK,
	WEV_TX_KICK,
	WEV_HOST_RX,
};

/**
 * struct wring - One ring as its thread sees it
 * @r:		The shared ring (pair.h)
 * @io:		What net.c needs
 * @acc:	Counters of this wake, added to @r->ctr once per wake
 * @qidx:	Virtqueue index (2 * pair, + 1 for TX), for log lines
 * @dead:	Broken: no longer served until the control thread resets it
 * @notify_off:	We asked the guest not to kick this ring
 * @dirty:	@acc may hold counts not yet committed
 * @call_due:	A flush of this pass crossed the driver's notification point:
 *		the guest gets one call when the pass ends (worker_call())
 * @rx_est:	RX: net.c's estimate of the next frame's size (tap)
 */
struct wring {
	struct vnet_ring *r;
	struct net_io io;
	struct ring_counters acc;
	uint32_t rx_est;
	unsigned int qidx;
	bool dead;
	bool notify_off;
	bool dirty;
	bool call_due;
};

/**
 * struct wpair - One queue pair as its thread sees it
 * @p:		The shared pair
 * @rx:		Host to guest
 * @tx:		Guest to host
 * @host_fd:	Host side RX fd, -1 if none
 * @host_armed:	@host_fd is in the epoll set with EPOLLIN
 * @rx_starved:	The guest posted no RX buffer: wait for its RX kick
 * @rx_ready:	The host side may have a frame (it cannot tell us the length)
 * @rx_peek:	The host side tells the next frame's length: always try RX
 * @tx_blocked:	The host side was full: TX waits for RX (loop) or a retry
 * @wport:	The port the pair belongs to (options, host side, connection)
 * @asleep:	Nothing to do until one of its fds fires: passes skip it
 *		(worker_doze())
 */
struct wpair {
	struct vnet_pair *p;
	struct worker_port *wport;
	bool asleep;
	struct wring rx;
	struct wring tx;
	int host_fd;
	bool host_armed;
	bool rx_starved;
	bool rx_ready;
	bool rx_peek;
	bool tx_blocked;
};

/**
 * struct worker - One data plane thread
 * @wport:	Owner, NULL for a thread of a worker_pool
 * @cur:	Port of the pair being served now: its budgets and log name,
 *		and the connection a SIGBUS in guest memory belongs to
 * @lock:	Control handshake only (pause, resume, stop, pairs handed over)
 * @id:		Thread number
 * @thread:	The thread
 * @started:	@thread was created
 * @epfd:	Its epoll set, rebuilt on every resume
 * @hold_epfd:	The same without the host fds: the RX hold sleeps there
 * @ctl_fd:	Control eventfd: a pause or stop request is pending
 * @ctl_pending: Set (under @lock) when a request is pending
 * @pause_count: Pause requests not yet resumed (@lock)
 * @paused:	The thread acknowledged a pause and is parked (@lock)
 * @stop:	The thread must exit (@lock)
 * @cond:	Signals @paused and @pause_count/@stop changes
 * @polling:	Busy-polling right now (rings are checked without kicks)
 * @busy_passes: Passes that moved frames since the last counter commit
 * @rx_moved:	Host RX frames moved since the thread last slept
 * @hold:	The RX hold's state (rx_policy.h)
 * @need_poll_events: A host cannot peek: busy-polling also polls epoll
 * @need_sleep_timeout: A ring without kick fd or a blocked TX: never sleep
 *		for long
 * @npairs:	Pairs served
 * @cap:	Room in @wp (a pool thread's grows while it is paused)
 * @assigned:	Pool thread: pairs of ports given to it, handed over or not
 *		(control thread only)
 * @poll_us:	Busy-poll window: the largest of its ports' --poll-us
 * @wp:		Them
 * @s:		net.c scratch (@s.uring: the thread's TAP io_uring,
 *		tap_uring.h, made when the thread starts; NULL: writev)
 * @rl:		Rate limit of ring break lines
 */
struct worker {
	struct worker_port *wport;
	struct worker_port *cur;
	pthread_mutex_t lock;
	unsigned int id;
	pthread_t thread;
	bool started;
	int epfd;
	int hold_epfd;
	int ctl_fd;
	int ctl_pending;
	unsigned int pause_count;
	bool paused;
	bool stop;
	pthread_cond_t cond;
	bool polling;
	unsigned int busy_passes;
	unsigned int rx_moved;
	struct rx_hold hold;
	bool need_poll_events;
	bool need_sleep_timeout;
	unsigned int npairs;
	unsigned int cap;
	unsigned int assigned;
	unsigned int poll_us;
	struct wpair *wp;
	struct net_scratch s;
	struct log_ratelimit rl;
};

/**
 * struct worker_port - The threads of one port: its own, or some of a
 *			worker_pool's that its pairs were handed to
 * @name:	Port name for log lines
 * @host:		Host side
 * @o:		Options, defaults filled in
 * @pairs:	The port's pairs
 * @npairs:	How many
 * @conn_fd:	Connection socket to shut down on a memory fault, -1: none
 * @fault_logged: The memory fault of this connection was logged
 * @shared:	@w are a worker_pool's (@o.pool): not ours to stop
 * @nworkers:	Threads serving the port's pairs
 * @w:		Them
 * @held:	Pauses this port holds on @w[i] (worker_unpause_all())
 * @thr_of:	Pair index to index in @w
 * @handed:	Shared: the pair is in its thread's list (worker_port_join())
 */
struct worker_port {
	char name[64];
	struct host *host;
	struct worker_opts o;
	struct vnet_pair *pairs;
	unsigned int npairs;
	int conn_fd;
	int fault_logged;
	bool shared;
	unsigned int nworkers;
	struct worker *w[VNET_MAX_PAIRS];
	unsigned int held[VNET_MAX_PAIRS];
	uint8_t thr_of[VNET_MAX_PAIRS];
	bool handed[VNET_MAX_PAIRS];
};

/**
 * struct worker_pool - Threads that the pairs of many ports share
 * @nthreads:	How many
 * @w:		Them; each pair of a port using the pool is on one of them
 */
struct worker_pool {
	unsigned int nthreads;
	struct worker *w[WORKER_POOL_MAX];
};

void *worker_main(void *arg);
void worker_count(int delta);
void worker_signal(int fd);

#endif /* VNET_WORKER_LOOP_H */
