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
 * Security model: the frontend is untrusted. Its socket gets receive and
 * send timeouts so a frontend that stalls mid-message cannot hold the main
 * thread (and with it every other port) for more than VNETD_IO_TIMEOUT_S;
 * any error from vu_dev_handle() closes that connection only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"
#include "vnetd.h"

/* #syscalls: accept4 socket connect close setsockopt getsockopt unlink read
 * #syscalls: timerfd_settime epoll_ctl */

#define VNETD_IO_TIMEOUT_S	5

static int port_sockaddr(const char *path, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	strcpy(sa->sun_path, path);
	return 0;
}

/**
 * port_unix_listen() - Listen on a UNIX socket path, replacing a stale one
 * @path:	Socket path
 * @err:	One sentence for the operator on failure
 * @errlen:	Size of @err
 *
 * A socket file nobody listens on (left by a crash) is removed; one that
 * answers, or a file that is not a socket, is left alone and is an error.
 *
 * Return: listening, non-blocking descriptor or -errno
 */
int port_unix_listen(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sa;
	struct stat st;
	int fd, ret;

	if (port_sockaddr(path, &sa)) {
		snprintf(err, errlen, "%s: path too long", path);
		return -ENAMETOOLONG;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (!lstat(path, &st)) {
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(err, errlen, "%s exists and is not a socket", path);
			ret = -EEXIST;
			goto err_close;
		}
		if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			snprintf(err, errlen, "%s is in use by a running process", path);
			ret = -EADDRINUSE;
			goto err_close;
		}
		/* connect() failed: nothing listens, the file is stale */
		close(fd);
		unlink(path);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(fd, 8) || fcntl(fd, F_SETFL, O_NONBLOCK)) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		goto err_close;
	}
	return fd;

err_close:
	close(fd);
	return ret;
}

static void port_sock_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = VNETD_IO_TIMEOUT_S };

	/* Best effort: without them a stalled frontend only delays us */
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* Hand a connected socket to the device and watch it */
static int port_attach(struct vnetd_port *p, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP,
				  .data.ptr = &p->conn_ev };

	port_sock_timeouts(fd);
	if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	vu_dev_connect(p->dev, fd);
	p->connects++;
	return 0;
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

	if (port_sockaddr(p->cfg.socket, &sa))
		goto retry;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ret = -errno;
		goto retry;
	}
	/* Also bounds connect(): it waits while the frontend's backlog is full */
	port_sock_timeouts(fd);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		ret = -errno;
		close(fd);
		goto retry;
	}
	ret = port_attach(p, fd);
	if (ret)
		goto retry;
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

static void port_accept(struct vnetd_port *p)
{
	int fd;

	fd = accept4(p->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			log_warn("port %s: accept: %s", p->cfg.name,
				 strerror(errno));
		return;
	}
	if (vu_dev_connected(p->dev)) {
		log_warn("port %s: refusing a second frontend on %s: one is already connected",
			 p->cfg.name, p->cfg.socket);
		p->refused++;
		close(fd);
		return;
	}
	if (port_attach(p, fd)) {
		log_err("port %s: cannot watch the new connection",
			p->cfg.name);
		return;
	}
	log_info("port %s: frontend connected on %s", p->cfg.name,
		 p->cfg.socket);
}

/* Tear down the connection; client mode schedules a reconnect */
static void port_drop(struct vnetd_port *p, int why)
{
	int fd = vu_dev_sock(p->dev);

	if (fd >= 0)
		epoll_ctl(p->epfd, EPOLL_CTL_DEL, fd, NULL);
	vu_dev_disconnect(p->dev);
	/* vu_backend already logged the one line naming a bad message */
	if (why == -ECONNRESET || why == -EPIPE || why == -ENOTCONN) {
		log_info("port %s: frontend disconnected", p->cfg.name);
	} else {
		p->errors++;
		log_debug("port %s: connection closed: %s", p->cfg.name,
			  strerror(-why));
	}
	if (p->cfg.client) {
		p->backoff_ms = VNETD_BACKOFF_MIN_MS;
		port_timer_arm(p, p->backoff_ms);
	}
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
	int ret;

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
		if (!vu_dev_connected(p->dev))
			break;
		ret = (events & EPOLLIN) ? vu_dev_handle(p->dev) : -ECONNRESET;
		if (ret < 0)
			port_drop(p, ret);
		break;
	default:
		break;
	}
}

/**
 * port_connected() - Is a frontend attached?
 * @p:		Port
 *
 * Return: true if connected
 */
bool port_connected(const struct vnetd_port *p)
{
	return p->dev && vu_dev_connected(p->dev);
}

static int port_open_backend(struct vnetd_port *p, char *err, size_t errlen)
{
	struct host_cfg bc = {
		.npairs = p->cfg.queues,
		.tap_name = p->cfg.tap,
		.tap_fds = p->cfg.ntap_fds ? p->cfg.tap_fds : NULL,
		.ntap_fds = p->cfg.ntap_fds,
	};
	char why[128] = "";
	int ret;

	p->host.ops = host_find(p->cfg.backend);
	if (!p->host.ops) {
		snprintf(err, errlen, "unknown backend %s", p->cfg.backend);
		return -ENOENT;
	}
	ret = p->host.ops->open(&p->host, &bc, why, sizeof(why));
	if (ret) {
		snprintf(err, errlen, "backend %s: %s", p->cfg.backend,
			 why[0] ? why : strerror(-ret));
		p->host.ops = NULL;
	}
	return ret;
}

static int port_open_socket(struct vnetd_port *p, char *err, size_t errlen)
{
	struct epoll_event ev = { .events = EPOLLIN };

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
	p->listen_fd = port_unix_listen(p->cfg.socket, err, errlen);
	if (p->listen_fd < 0)
		return p->listen_fd;
	ev.data.ptr = &p->listen_ev;
	if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->listen_fd, &ev))
		goto err_errno;
	return 0;

err_errno:
	snprintf(err, errlen, "%s", strerror(errno));
	return -errno;
}

/*
 * --vhost-net: decided once, before any feature is offered. Only a TAP has
 * kernel queues to hand to vhost-net; "on" without a usable device refuses
 * to start the port.
 */
static int port_vhost_decide(struct vnetd_port *p, char *err, size_t errlen)
{
	int ret;

	if (!p->host.ops->queue_fd || p->host.ops->queue_fd(&p->host, 0) < 0) {
		p->vhost.mode = p->cfg.vhost_net;
		snprintf(p->vhost.reason, sizeof(p->vhost.reason),
			 "backend %s has no kernel queue: userspace only",
			 p->cfg.backend);
		return 0;
	}
	ret = vhost_mode_decide(&p->vhost, p->cfg.vhost_net, NULL, NULL);
	if (ret) {
		snprintf(err, errlen, "%s", p->vhost.msg[0] ? p->vhost.msg :
			 p->vhost.reason);
		return ret;
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
 * @err:	One sentence for the operator on failure
 * @errlen:	Size of @err
 *
 * Return: 0 or -errno
 */
int port_init(struct vnetd_port *p, const struct vnetd_port_cfg *cfg, int epfd,
	      char *err, size_t errlen)
{
	struct vu_dev_cfg dc = { 0 };
	int ret;

	memset(p, 0, sizeof(*p));
	p->cfg = *cfg;
	p->epfd = epfd;
	p->listen_fd = -1;
	p->timer_fd = -1;
	p->conn_ev = (struct vnetd_ev){ EV_CONN, p };
	p->listen_ev = (struct vnetd_ev){ EV_LISTEN, p };
	p->timer_ev = (struct vnetd_ev){ EV_TIMER, p };

	ret = port_open_backend(p, err, errlen);
	if (ret)
		return ret;
	ret = port_vhost_decide(p, err, errlen);
	if (ret)
		return ret;
	dc.name = p->cfg.name;
	dc.queues = p->cfg.queues;
	dc.features_mask = p->cfg.features_mask;
	memcpy(dc.mac, p->cfg.mac, sizeof(dc.mac));
	dc.mtu = p->cfg.mtu;
	dc.host = &p->host;
	dc.wopts = p->cfg.wopts;
	dc.vhost = &p->vhost;	/* decided once above, adopted by the device */
	ret = vu_dev_create(&p->dev, &dc);
	if (ret) {
		p->dev = NULL;
		snprintf(err, errlen, "cannot create the device: %s",
			 strerror(-ret));
		return ret;
	}
	return port_open_socket(p, err, errlen);
}

/**
 * port_cleanup() - Close everything port_init() opened, remove the socket
 * @p:		Port
 */
void port_cleanup(struct vnetd_port *p)
{
	if (p->dev) {
		if (vu_dev_connected(p->dev)) {
			epoll_ctl(p->epfd, EPOLL_CTL_DEL, vu_dev_sock(p->dev),
				  NULL);
			vu_dev_disconnect(p->dev);
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
		unlink(p->cfg.socket);
	}
	if (p->timer_fd >= 0) {
		close(p->timer_fd);
		p->timer_fd = -1;
	}
}
