// SPDX-License-Identifier: MIT
/*
 * port.c - one vnetd port on the main thread: its backend, its vhost-user
 * device and the socket a frontend reaches it by. Server mode listens and
 * serves one frontend at a time (a second one is accepted and closed at
 * once, with a log line); client mode connects to the frontend's socket and
 * reconnects with exponential backoff (100 ms .. 5 s) driven by a timerfd.
 * What a frontend says is vu_backend's business; this file only feeds it
 * readable sockets and tears the connection down when it returns an error.
 *
 * Security model: the frontend is untrusted and the main thread serves
 * every port, so nothing here waits on one frontend. Its socket is
 * non-blocking: a partial message is kept in the port's vu_conn and must
 * be whole within --frontend-stall-ms of its first byte (a byte every few
 * hundred ms does not keep it alive); a reply it does not read is queued
 * (one at most, VU_CONN_TXQ_MAX: the frontend is not read meanwhile) and
 * must be taken within the same time. A connection past either deadline
 * is stalled and closed, with one line naming the port, the PID and which
 * of the two it was. A second frontend that connects while the connection
 * is mid-message or owes a reply is held, unread, until that connection
 * either goes idle (the second is refused, as always while a frontend is
 * connected) or is closed (the second takes the port, as after any
 * disconnect): one process cannot keep a port from its VM by stalling,
 * and cannot push a working frontend off it either. Any error from
 * vu_dev_handle() closes that connection only, with one line naming the
 * port, the frontend's PID and the reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>

#include "antispoof.h"
#include "cfg.h"
#include "conn.h"
#include "log.h"
#include "port.h"
#include "sockets.h"
#include "vhost_port.h"
#include "vnetd.h"

/* #syscalls: accept4 socket connect close setsockopt getsockopt unlink read
 * #syscalls: timerfd_settime epoll_ctl */


/* --worker-threads: the threads every port hands its pairs to, NULL: none */
static struct worker_pool *port_pool_threads;

/* --frontend-stall-ms: mid-message or owing a reply longer is a stall */
static unsigned int port_stall_ms = VNETD_STALL_MS_DEFAULT;

static void port_conn_ready(struct vnetd_port *p, uint32_t events);

/**
 * port_set_stall_ms() - How long a connection may stay mid-message or owe
 *			 a reply before it counts as stalled
 * @ms:		--frontend-stall-ms (cli.c checked its range)
 *
 * Context: main thread, before the first port_init()
 */
void port_set_stall_ms(unsigned int ms)
{
	port_stall_ms = ms;
}

/**
 * port_pool_init() - Start the pool of threads all ports share
 * @nthreads:	--worker-threads, 0: none (each port starts its own)
 *
 * Before the first port_init(): ports made afterwards, at start or at run
 * time, hand their pairs to these threads (worker_port_create()).
 *
 * Context: main thread, before any port
 * Return: 0 or -errno from worker_pool_create()
 */
int port_pool_init(unsigned int nthreads)
{
	int ret;

	if (!nthreads)
		return 0;
	ret = worker_pool_create(&port_pool_threads, nthreads);
	if (ret)
		log_err("--worker-threads %u: cannot start the threads: %s",
			nthreads, strerror(-ret));
	else
		log_info("worker pool: %u threads serve the pairs of all ports (--worker-threads)",
			 nthreads);
	return ret;
}

/**
 * port_pool_cleanup() - Stop the shared threads, after every port_cleanup()
 */
void port_pool_cleanup(void)
{
	worker_pool_destroy(port_pool_threads);
	port_pool_threads = NULL;
}

/**
 * port_pool() - The shared threads, for status and metrics
 *
 * Return: the pool, NULL without --worker-threads
 */
const struct worker_pool *port_pool(void)
{
	return port_pool_threads;
}

/* Hand a connected socket to the device, buffered, and watch it */
static int port_attach(struct vnetd_port *p, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP,
				  .data.ptr = &p->conn_ev };
	int ret;

	ret = conn_nonblock(fd);
	if (!ret && epoll_ctl(p->epfd, EPOLL_CTL_ADD, fd, &ev))
		ret = -errno;
	if (ret) {
		close(fd);
		return ret;
	}
	p->peer_pid = conn_peer_pid(fd);
	p->conn_out = false;
	vu_dev_connect(p->dev, fd);
	vu_conn_init(&p->conn, fd);
	vu_dev_set_conn(p->dev, &p->conn);
	/* Listening: counted and logged at the first byte (port_spoke()) */
	p->fresh = !p->cfg.client;
	return 0;
}

/**
 * port_adopt() - Serve a connection the previous vnetd handed over
 * @p:		Port, just port_init()ed
 * @fd:		Connected frontend socket, owned from now on
 *
 * The connection is not new to the frontend: it is neither counted nor
 * logged as one, and a client-mode port does not dial again.
 *
 * Return: 0 or -errno (@fd closed)
 */
int port_adopt(struct vnetd_port *p, int fd)
{
	struct itimerspec off = { 0 };
	int ret;

	if (fd < 0)
		return -EBADF;
	if (p->timer_fd >= 0)
		timerfd_settime(p->timer_fd, 0, &off, NULL);
	ret = port_attach(p, fd);
	p->fresh = false;
	return ret;
}

/*
 * A listening port's connection counts, and is logged, once it sends its
 * first byte: a liveness check (connect, close: another vnetd's
 * sock_unix_listen() on the same path) is neither. Return: false if the
 * peer closed (or failed) without sending anything
 */
static bool port_spoke(struct vnetd_port *p)
{
	char c;

	ssize_t n;

	if (!p->fresh)
		return true;
	n = recv(vu_dev_sock(p->dev), &c, 1, MSG_PEEK | MSG_DONTWAIT);
	if (n < 0 && errno == EAGAIN)
		return true;	/* nothing yet: not a close either */
	if (n != 1)
		return false;
	p->fresh = false;
	p->connects++;
	log_info("port %s: frontend pid %d connected on %s", p->cfg.name,
		 (int)p->peer_pid, p->cfg.socket[0] ? p->cfg.socket : "--fd");
	return true;
}

static void port_timer_arm(struct vnetd_port *p, unsigned int ms)
{
	struct itimerspec its = {
		.it_value = { .tv_sec = ms / 1000,
			      .tv_nsec = (long)(ms % 1000) * 1000000 + 1 },
	};

	if (timerfd_settime(p->timer_fd, 0, &its, NULL))
		log_err("port %s: timerfd_settime: %s", p->cfg.name,
			strerror(errno));
}

/* Client mode: one connection attempt; on failure, back off */
static void port_client_try(struct vnetd_port *p)
{
	struct sockaddr_un sa;
	int fd, ret = -ENAMETOOLONG;

	if (sock_unix_addr(p->cfg.socket, &sa))
		goto retry;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		ret = -errno;
		goto retry;
	}
	/* Non-blocking: a full backlog is EAGAIN and a retry, never a wait */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		ret = -errno;
		close(fd);
		goto retry;
	}
	ret = port_attach(p, fd);
	if (ret)
		goto retry;
	p->connects++;	/* a connection handed over (port_adopt()) is not one */
	log_info("port %s: connected to %s", p->cfg.name, p->cfg.socket);
	p->backoff_ms = VNETD_BACKOFF_MIN_MS;
	return;

retry:
	log_debug("port %s: connect %s: %s, retrying in %u ms", p->cfg.name,
		  p->cfg.socket, strerror(-ret), p->backoff_ms);
	port_timer_arm(p, p->backoff_ms);
	p->backoff_ms = p->backoff_ms * 2 > VNETD_BACKOFF_MAX_MS ?
			VNETD_BACKOFF_MAX_MS : p->backoff_ms * 2;
}

/* A protocol error's reason for the metrics, from port_drop()'s errno */
static enum port_perr port_perr_of(int why)
{
	switch (why) {
	case -EFAULT:
		return PORT_PERR_MEM_FAULT;	/* vu_backend's guard */
	case -ENOBUFS:
		return PORT_PERR_REPLY_FULL;	/* vu_conn_send() */
	default:
		return PORT_PERR_BAD_MESSAGE;
	}
}

/* Tear down the connection; client mode schedules a reconnect */
static void port_drop(struct vnetd_port *p, int why)
{
	int fd = vu_dev_sock(p->dev);

	if (fd >= 0)
		epoll_ctl(p->epfd, EPOLL_CTL_DEL, fd, NULL);
	vu_dev_disconnect(p->dev);	/* closes fd */
	vu_conn_reset(&p->conn);
	p->conn_out = false;
	p->tx_since_ms = 0;
	/* vu_backend already logged the one line naming a bad message */
	if (p->fresh) {
		p->fresh = false;
		log_debug("port %s: a connection closed before its first byte (a liveness check?)",
			  p->cfg.name);
	} else if (why == -ECONNRESET || why == -EPIPE || why == -ENOTCONN) {
		log_info("port %s: frontend (pid %d) disconnected", p->cfg.name,
			 (int)p->peer_pid);
	} else if (why == -ETIMEDOUT) {
		p->errors++;	/* port_tick() said why, and counted it */
	} else {
		p->errors++;
		p->errors_by[port_perr_of(why)]++;
		conn_refuse_log(&p->refuse_rl,
				"port %s: closed the connection of frontend pid %d: %s",
				p->cfg.name, (int)p->peer_pid, strerror(-why));
	}
	p->peer_pid = 0;
	if (p->cfg.client) {
		p->backoff_ms = VNETD_BACKOFF_MIN_MS;
		port_timer_arm(p, p->backoff_ms);
	}
}

/*
 * When the connection's stall clock started: the first byte of its partial
 * message, or when its reply began to wait (never both: no request is read
 * while a reply waits). 0: not connected, or idle between whole messages
 * with nothing owed
 */
static uint64_t port_busy_since(const struct vnetd_port *p)
{
	if (!port_connected(p))
		return 0;
	return p->conn.rx_got ? p->conn.rx_start_ms : p->tx_since_ms;
}

/* Close a second frontend, counted and logged; @why ends the line */
static void port_refuse(struct vnetd_port *p, int fd, pid_t pid,
			const char *why)
{
	conn_refuse_log(&p->refuse_rl,
			"port %s: refusing a second frontend (pid %d) on %s: pid %d is connected%s",
			p->cfg.name, (int)pid, p->cfg.socket, (int)p->peer_pid,
			why);
	p->refused++;
	p->refused_by[PORT_REFUSE_SECOND]++;
	close(fd);
}

/*
 * The waiting second frontend, once the connection has shown what it is:
 * seen idle (@idle: it finished its message or took its reply; or it is
 * idle now), it is a working frontend and keeps the port, the second is
 * refused; gone (stalled and closed by port_tick(), or hung up), the second
 * takes the port, set up from scratch as after any disconnect. Still busy
 * past the second's own deadline without being overdue itself (a clock
 * restarted by progress), the connection keeps the port too.
 */
static void port_wait_resolve(struct vnetd_port *p, bool idle)
{
	uint64_t now = vu_conn_now_ms(), since = port_busy_since(p);
	int fd = p->wait_fd;

	if (fd < 0)
		return;
	if (port_connected(p) && !idle && since &&
	    (now < p->wait_since_ms + port_stall_ms ||
	     now >= since + port_stall_ms))
		return;		/* not decided yet, or port_tick() closes it */
	p->wait_fd = -1;
	if (port_connected(p)) {
		port_refuse(p, fd, p->wait_pid,
			    ", which finished its message or took its reply while this one waited");
		return;
	}
	if (conn_is_dead(fd)) {
		log_debug("port %s: frontend pid %d, waiting for the port, closed before it got it",
			  p->cfg.name, (int)p->wait_pid);
		close(fd);
		return;
	}
	if (port_attach(p, fd)) {
		p->refused_by[PORT_REFUSE_ATTACH]++;
		log_err("port %s: cannot watch the new connection of pid %d",
			p->cfg.name, (int)p->wait_pid);
	}
}

static void port_accept(struct vnetd_port *p)
{
	pid_t pid;
	int fd;

	fd = accept4(p->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			log_warn("port %s: accept: %s", p->cfg.name,
				 strerror(errno));
		return;
	}
	pid = conn_peer_pid(fd);
	/* A quick reconnect: the old connection closed, its hangup not yet seen */
	if (vu_dev_connected(p->dev) && conn_is_dead(vu_dev_sock(p->dev))) {
		log_info("port %s: frontend pid %d connected while the old connection (pid %d) was closing: dropping the old one",
			 p->cfg.name, (int)pid, (int)p->peer_pid);
		port_drop(p, -ECONNRESET);
		port_wait_resolve(p, false);	/* one waiting came first */
	}
	/* Judge the connection by what it sent, not by when the loop read it */
	if (vu_dev_connected(p->dev) && p->wait_fd < 0)
		port_conn_ready(p, EPOLLIN);
	if (vu_dev_connected(p->dev) && p->wait_fd < 0 && port_busy_since(p)) {
		p->wait_fd = fd;
		p->wait_pid = pid;
		p->wait_since_ms = vu_conn_now_ms();
		conn_refuse_log(&p->refuse_rl,
				"port %s: frontend pid %d connected while pid %d is %s: it waits up to %u ms for that one to finish (then it is refused) or stall (then it takes the port)",
				p->cfg.name, (int)pid, (int)p->peer_pid,
				p->conn.rx_got ? "mid-message" : "owing a reply",
				port_stall_ms);
		return;
	}
	if (vu_dev_connected(p->dev)) {
		port_refuse(p, fd, pid, p->wait_fd >= 0 ?
			    " (and another frontend waits for the port)" : "");
		return;
	}
	if (port_attach(p, fd)) {
		p->refused_by[PORT_REFUSE_ATTACH]++;
		log_err("port %s: cannot watch the new connection of pid %d",
			p->cfg.name, (int)pid);
	}
}

/*
 * While a reply is queued, watch EPOLLOUT instead of EPOLLIN: a frontend
 * that does not read its replies is not read either (it cannot make the
 * main thread spin answering a flood, nor queue more than one reply), and
 * must take it within --frontend-stall-ms (port_tick()). The clock runs
 * from when a reply began to wait with none taken since.
 */
static int port_watch_out(struct vnetd_port *p)
{
	bool want = vu_conn_tx_pending(&p->conn) != 0;
	struct epoll_event ev = {
		.events = EPOLLRDHUP | (want ? EPOLLOUT : EPOLLIN),
		.data.ptr = &p->conn_ev,
	};

	if (!want)
		p->tx_since_ms = 0;
	else if (!p->tx_since_ms)
		p->tx_since_ms = vu_conn_now_ms();
	if (want == p->conn_out)
		return 0;
	if (epoll_ctl(p->epfd, EPOLL_CTL_MOD, vu_dev_sock(p->dev), &ev))
		return -errno;
	p->conn_out = want;
	return 0;
}

/*
 * The connection's socket is ready. Events may be stale (the connection
 * they were for replaced in the same epoll batch): everything here is
 * non-blocking and asks the socket itself, so a stale event costs one
 * EAGAIN, never the new connection.
 */
static void port_conn_ready(struct vnetd_port *p, uint32_t events)
{
	bool idle = false;	/* seen between whole messages, owing nothing */
	int ret = 0;

	if (vu_conn_tx_pending(&p->conn)) {
		ret = vu_conn_flush(&p->conn);
		if (!ret) {		/* the frontend took its reply */
			p->tx_since_ms = 0;
			idle = true;
		}
		if (ret == -EAGAIN)
			ret = 0;
	}
	if (!ret && !vu_conn_tx_pending(&p->conn) &&
	    (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)))
		ret = port_spoke(p) ? vu_dev_handle(p->dev) : -ECONNRESET;
	if (!ret)
		ret = port_watch_out(p);
	if (ret < 0)
		port_drop(p, ret);
	else if (!port_busy_since(p))
		idle = true;
	port_wait_resolve(p, idle);
}

/**
 * port_timeout_ms() - How long the main loop may sleep for this port
 * @p:		Port
 * @now_ms:	vu_conn_now_ms()
 *
 * Return: ms until the connection would be stalled (mid-message or owing a
 *	   reply) or a waiting second frontend's wait ends, -1 if neither
 *	   clock runs
 */
int port_timeout_ms(const struct vnetd_port *p, uint64_t now_ms)
{
	uint64_t since = port_busy_since(p), at = UINT64_MAX;

	if (since)
		at = since + port_stall_ms;
	if (p->wait_fd >= 0 && p->wait_since_ms + port_stall_ms < at)
		at = p->wait_since_ms + port_stall_ms;
	if (at == UINT64_MAX)
		return -1;
	return at > now_ms ? (int)MIN(at - now_ms, (uint64_t)INT_MAX) : 0;
}

/* One line says which stall it was, then the connection goes */
static void port_stalled(struct vnetd_port *p, uint64_t age_ms)
{
	bool rx = p->conn.rx_got != 0;
	char next[64] = "";

	p->errors_by[rx ? PORT_PERR_MSG_DEADLINE : PORT_PERR_REPLY_DEADLINE]++;
	if (p->wait_fd >= 0)
		snprintf(next, sizeof(next), "; pid %d, waiting, takes the port",
			 (int)p->wait_pid);
	if (rx)
		conn_refuse_log(&p->refuse_rl,
				"port %s: frontend pid %d stalled mid-message: %zu bytes of it in %" PRIu64 " ms (--frontend-stall-ms %u), closing the connection%s",
				p->cfg.name, (int)p->peer_pid, p->conn.rx_got,
				age_ms, port_stall_ms, next);
	else
		conn_refuse_log(&p->refuse_rl,
				"port %s: frontend pid %d stalled owing a reply: %zu reply bytes not read in %" PRIu64 " ms (--frontend-stall-ms %u), closing the connection%s",
				p->cfg.name, (int)p->peer_pid,
				vu_conn_tx_pending(&p->conn), age_ms,
				port_stall_ms, next);
	port_drop(p, -ETIMEDOUT);
}

/**
 * port_tick() - Close the connection if it is stalled, and settle a
 *		 waiting second frontend
 * @p:		Port
 * @now_ms:	vu_conn_now_ms()
 *
 * Context: main thread, after every loop wakeup
 */
void port_tick(struct vnetd_port *p, uint64_t now_ms)
{
	uint64_t since = port_busy_since(p);

	if (since && now_ms >= since + port_stall_ms) {
		/*
		 * Take what the socket holds first: bytes or room that came
		 * while the loop was busy elsewhere are not the frontend's
		 * stall
		 */
		port_conn_ready(p, EPOLLIN);
		since = port_busy_since(p);
		if (since && now_ms >= since + port_stall_ms)
			port_stalled(p, now_ms - since);
	}
	port_wait_resolve(p, false);
}

/**
 * port_event() - Something happened on one of @p's descriptors
 * @p:		Port
 * @type:	Which descriptor (EV_LISTEN, EV_CONN, EV_TIMER)
 * @events:	epoll events
 *
 * Context: main thread
 */
void port_event(struct vnetd_port *p, enum vnetd_ev_type type,
		uint32_t events)
{
	uint64_t expirations;

	switch (type) {
	case EV_LISTEN:
		port_accept(p);
		break;
	case EV_TIMER:
		if (read(p->timer_fd, &expirations, sizeof(expirations)) < 0 &&
		    errno != EAGAIN)
			log_warn("port %s: timerfd: %s", p->cfg.name,
				 strerror(errno));
		if (!vu_dev_connected(p->dev))
			port_client_try(p);
		break;
	case EV_CONN:
		if (vu_dev_connected(p->dev))
			port_conn_ready(p, events);
		break;
	default:
		break;
	}
}

static int port_open_backend(struct vnetd_port *p, struct reason *why)
{
	struct sw_vlans vlans;
	struct host_cfg bc = {
		.npairs = p->cfg.queues,
		.tap_name = p->cfg.tap,
		.tap_fds = p->cfg.ntap_fds ? p->cfg.tap_fds : NULL,
		.ntap_fds = p->cfg.ntap_fds,
		.mac = p->cfg.mac,
		.mac_given = !p->cfg.mac_derived,
		.xdp_if = p->cfg.xdp_if,
		.xdp_queue = p->cfg.xdp_queue,
		.xdp_mode = p->cfg.xdp_mode,
		.xdp_fds = p->cfg.nxdp_fds ? p->cfg.xdp_fds : NULL,
		.nxdp_fds = p->cfg.nxdp_fds,
		.xdp_bound = p->cfg.xdp_bound,
		.xdp_txmd = p->cfg.xdp_txmd,
		.gen_size = p->cfg.gen_size,
		.sw_name = p->cfg.sw[0] ? p->cfg.sw : NULL,
		.sw_vlans = &vlans,
		.sw_police = &p->cfg.police,
	};
	struct reason inner = { 0 };
	int ret;

	if (p->cfg.trunk_set) {
		vlans = p->cfg.trunk;
	} else {
		memset(&vlans, 0, sizeof(vlans));
		vlans.access = p->cfg.vlan ? p->cfg.vlan : 1;
	}

	p->host.ops = host_find(p->cfg.backend);
	if (!p->host.ops) {
		return reason_set(why, -ENOENT, "unknown backend %s", p->cfg.backend);
	}
	ret = p->host.ops->open(&p->host, &bc, &inner);
	if (ret) {
		reason_set(why, ret, "backend %s: %s", p->cfg.backend,
			   inner.msg[0] ? inner.msg : strerror(-ret));
		p->host.ops = NULL;
	} else if (p->host.ops->mode && p->host.ops->mode(&p->host)) {
		log_info("port %s: backend %s: %s", p->cfg.name, p->cfg.backend,
			 p->host.ops->mode(&p->host));
	}
	return ret;
}

static int port_open_socket(struct vnetd_port *p, struct reason *why)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ret, conn_fd;

	if (p->cfg.client) {
		p->timer_fd = timerfd_create(CLOCK_MONOTONIC,
					     TFD_NONBLOCK | TFD_CLOEXEC);
		if (p->timer_fd < 0)
			goto err_errno;
		ev.data.ptr = &p->timer_ev;
		if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->timer_fd, &ev))
			goto err_errno;
		p->backoff_ms = VNETD_BACKOFF_MIN_MS;
		port_timer_arm(p, 0);	/* first try right away */
		return 0;
	}
	ret = sock_port_open(&p->cfg, &p->listen_fd, &conn_fd, why);
	if (ret)
		return ret;
	if (conn_fd >= 0)	/* --fd: connected already, as QEMU passes it */
		return port_attach(p, conn_fd);
	ev.data.ptr = &p->listen_ev;
	if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->listen_fd, &ev))
		goto err_errno;
	return 0;

err_errno:
	return reason_set(why, -errno, "%s", strerror(errno));
}

/*
 * --vhost-net: decided once, before any feature is offered, by the library
 * (vhost_port_decide(): only a TAP queue can be handed to vhost-net; "on"
 * without one, or without a usable device, refuses to start the port).
 */
static int port_vhost_decide(struct vnetd_port *p, struct reason *why)
{
	const struct host_ops *ops = p->host.ops;
	bool queue = ops->queue_fd && ops->queue_fd(&p->host, 0) >= 0;
	int ret;

	ret = vhost_port_decide(&p->vhost, p->cfg.vhost_net, NULL,
				p->cfg.backend, queue);
	if (ret) {
		return reason_set(why, ret, "%s", p->vhost.msg[0] ? p->vhost.msg :
				  p->vhost.reason);
	}
	log_info("port %s: vhost-net %s: %s", p->cfg.name,
		 vhost_mode_name(p->cfg.vhost_net), p->vhost.reason);
	return 0;
}

/**
 * port_init() - Open a port's backend, device and socket
 * @p:		Port (output); port_cleanup() it even on failure
 * @cfg:	Configuration
 * @epfd:	Main loop's epoll descriptor
 * @why:	One sentence for the operator on failure
 *
 * Return: 0 or -errno
 */
int port_init(struct vnetd_port *p, const struct vnetd_port_cfg *cfg, int epfd,
	      struct reason *why)
{
	struct vu_dev_cfg dc = { 0 };
	int ret;

	memset(p, 0, sizeof(*p));
	p->cfg = *cfg;
	p->epfd = epfd;
	p->listen_fd = -1;
	p->timer_fd = -1;
	p->wait_fd = -1;
	p->conn_ev = (struct vnetd_ev){ EV_CONN, p };
	p->listen_ev = (struct vnetd_ev){ EV_LISTEN, p };
	p->timer_ev = (struct vnetd_ev){ EV_TIMER, p };

	ret = port_open_backend(p, why);
	if (ret)
		return ret;
	ret = port_vhost_decide(p, why);
	if (!ret)
		ret = antispoof_setup(p, why);
	if (ret)
		return ret;
	dc.name = p->cfg.name;
	dc.queues = p->cfg.queues;
	dc.features_mask = p->cfg.features_mask;
	memcpy(dc.mac, p->cfg.mac, sizeof(dc.mac));
	dc.mtu = p->cfg.mtu;
	dc.host = &p->host;
	dc.wopts = p->cfg.wopts;
	/* threads=N: the port keeps threads of its own */
	dc.wopts.pool = p->cfg.wopts.nthreads ? NULL : port_pool_threads;
	dc.vhost = &p->vhost;	/* decided once above, adopted by the device */
	dc.config_space = p->cfg.config_space;
	ret = vu_dev_create(&p->dev, &dc);
	if (ret) {
		p->dev = NULL;
		return reason_set(why, ret, "cannot create the device: %s",
				  strerror(-ret));
	}
	ret = port_open_socket(p, why);
	p->used = !ret;
	return ret;
}

/**
 * port_cleanup() - Close everything port_init() opened, remove the socket
 * @p:		Port
 */
void port_cleanup(struct vnetd_port *p)
{
	p->used = false;
	if (p->wait_fd >= 0) {
		close(p->wait_fd);
		p->wait_fd = -1;
	}
	if (p->dev) {
		if (vu_dev_connected(p->dev)) {
			epoll_ctl(p->epfd, EPOLL_CTL_DEL, vu_dev_sock(p->dev),
				  NULL);
			vu_dev_disconnect(p->dev);
			vu_conn_reset(&p->conn);
		}
		vu_dev_destroy(p->dev);
		p->dev = NULL;
	}
	if (p->host.ops) {
		p->host.ops->close(&p->host);
		p->host.ops = NULL;
	}
	if (p->listen_fd >= 0) {
		close(p->listen_fd);
		p->listen_fd = -1;
		if (p->cfg.fd < 0)	/* an inherited socket's file is not ours */
			unlink(p->cfg.socket);
	}
	if (p->timer_fd >= 0) {
		close(p->timer_fd);
		p->timer_fd = -1;
	}
}
