// SPDX-License-Identifier: MIT
/*
 * ctl.c - vnetd's control socket: a UNIX stream socket that takes one
 * request line and answers it, then closes. Requests:
 *
 *	status		human-readable status of every port and queue
 *	status json	the same as one JSON document
 *	metrics		Prometheus text exposition (format 0.0.4)
 *	port add KEY=VAL,...	start a port (the keys of --port; reload.c)
 *	port del NAME		stop a port (add, del: root or vnetd's uid only)
 *	port list		one line per running port
 *
 * An unknown request gets "error: unknown request ..." and the connection
 * closes. The socket is created mode 0600 (owner only; 0660 with
 * --ctl-group) and each client's SO_PEERCRED is checked (sockets.c).
 * Rendering is metrics.c's; this file only moves bytes.
 *
 * Security model: a local client of the control socket is trusted as far
 * as the file mode lets it in, but it still cannot stall the main loop (and
 * with it every port's vhost-user messages): every client socket is
 * non-blocking, at most CTL_MAX_CLIENTS are served at once (one more gets
 * a one-line refusal and is closed), a request longer than CTL_REQ_MAX - 1
 * bytes is refused, and each client must have sent its request and taken
 * its reply within CTL_DEADLINE_MS of being accepted, else it is closed.
 * Each refusal is one rate-limited log line naming the client's PID.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "svc.h"
#include "util.h"
#include "vnetd.h"

/* #syscalls: accept4 recvfrom sendto setsockopt getsockopt geteuid close unlink
 * #syscalls: poll ppoll */

#define CTL_REQ_MAX		1024	/* "port add " and a --port spec */
#define CTL_MAX_CLIENTS		64
#define CTL_DEADLINE_MS		2000
#define CTL_ACCEPT_BATCH	256	/* per wakeup: other ports get a turn */

/**
 * struct ctl_client - One control connection being served
 * @fd:		Socket, -1: slot free
 * @pid:	Client PID (SO_PEERCRED), 0: unknown
 * @req:	Request bytes so far
 * @got:	Bytes in @req
 * @reply:	Rendered reply, once the request is whole
 * @sent:	Bytes of @reply sent
 * @start_ms:	When it was accepted (vu_conn_now_ms())
 * @ev:		Its epoll reference
 */
struct ctl_client {
	int fd;
	pid_t pid;
	char req[CTL_REQ_MAX];
	size_t got;
	struct sbuf reply;
	size_t sent;
	uint64_t start_ms;
	struct vnetd_ev ev;
};

static struct {
	int epfd;
	struct vnetd_port *ports;
	unsigned int nports;
	unsigned int nclients;
	struct ctl_client c[CTL_MAX_CLIENTS];
	struct log_ratelimit rl;
	uint64_t refused[CTL_REFUSE_MAX];
} ctl = { .epfd = -1 };

/**
 * ctl_open() - Create and listen on the control socket
 * @path:	Socket path; its directory is created (0755) if missing
 *
 * Return: listening descriptor, or -errno (logged)
 */
int ctl_open(const char *path)
{
	char dir[VNETD_PATH_LEN], err[256] = "";
	char *slash;
	mode_t old;
	int fd;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST)
			log_warn("control socket: mkdir %s: %s", dir,
				 strerror(errno));
	}
	old = umask(0077);
	fd = port_unix_listen(path, err, sizeof(err));
	umask(old);
	if (fd >= 0 && sock_ctl_perms(path))
		log_warn("control socket %s: --ctl-group: %s", path,
			 strerror(errno));
	if (fd < 0)
		log_warn("control socket: %s; vnetctl status will not work",
			 err[0] ? err : strerror(-fd));
	return fd;
}

/**
 * ctl_close() - Close the clients, stop listening, remove the socket file
 * @fd:		Listening descriptor (ignored if negative)
 * @path:	Its path
 */
static void ctl_client_close(struct ctl_client *c);

void ctl_close(int fd, const char *path)
{
	unsigned int i;

	if (fd < 0)
		return;
	for (i = 0; i < CTL_MAX_CLIENTS && ctl.nclients; i++)
		if (ctl.c[i].fd >= 0)
			ctl_client_close(&ctl.c[i]);
	close(fd);
	unlink(path);
}

static void ctl_client_close(struct ctl_client *c)
{
	epoll_ctl(ctl.epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	metrics_free(&c->reply);
	memset(&c->reply, 0, sizeof(c->reply));
	ctl.nclients--;
}

/*
 * port add/del create and remove files as vnetd: root or vnetd's own uid
 * only, not every --ctl-group member (SO_PEERCRED, read again here)
 */
static bool ctl_may_change(int fd)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len))
		return false;
	return uc.uid == 0 || uc.uid == geteuid();
}

/* Render the answer to the whole request in @c->req */
static void ctl_answer(struct ctl_client *c, bool too_long)
{
	struct sbuf *b = &c->reply;
	char *req = c->req;

	req[c->got] = '\0';
	req[strcspn(req, "\r\n")] = '\0';
	ctl.refused[CTL_REFUSE_TOO_LONG] += too_long;
	ctl.ports = reload_ports(&ctl.nports);	/* port add/del change them */
	if (too_long)
		metrics_printf(b, "error: request longer than %u bytes\n",
			       (unsigned int)CTL_REQ_MAX - 1);
	else if (!strcmp(req, "status") || !strcmp(req, "status text"))
		metrics_status_text(b, ctl.ports, ctl.nports);
	else if (!strcmp(req, "status json"))
		metrics_status_json(b, ctl.ports, ctl.nports);
	else if (!strcmp(req, "metrics"))
		metrics_prometheus(b, ctl.ports, ctl.nports);
	else if ((!strncmp(req, "port add ", 9) ||
		  !strncmp(req, "port del ", 9)) && !ctl_may_change(c->fd))
		metrics_printf(b, "error: %.8s: refused: only root or vnetd's own user may change ports (--ctl-group members may read status and port list)\n",
			       req);
	else if (!strncmp(req, "port add ", 9))
		reload_port_add(b, req + 9);
	else if (!strncmp(req, "port del ", 9))
		reload_port_del(b, req + 9);
	else if (!strcmp(req, "port list"))
		reload_port_list(b);
	else
		metrics_printf(b, "error: unknown request \"%.64s\" (try: status, status json, metrics, port add|del|list)\n",
			       req);
	if (b->oom)
		metrics_printf(b, "\nerror: out of memory, reply truncated\n");
	c->sent = 0;
}

/* Send what the socket takes. Return: 0 all sent, -EAGAIN more, -errno */
static int ctl_client_send(struct ctl_client *c)
{
	ssize_t n;

	while (c->reply.s && c->sent < c->reply.len) {
		n = send(c->fd, c->reply.s + c->sent, c->reply.len - c->sent,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? -EAGAIN : -errno;
		c->sent += (size_t)n;
	}
	return 0;
}

/* Read what the socket has. Return: 1 request whole, 0 not yet, -errno */
static int ctl_client_read(struct ctl_client *c, bool *too_long)
{
	ssize_t n;

	for (;;) {
		if (c->got >= CTL_REQ_MAX - 1) {
			*too_long = true;
			return 1;
		}
		n = recv(c->fd, c->req + c->got, CTL_REQ_MAX - 1 - c->got,
			 MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		if (n == 0)	/* EOF ends a request without a newline */
			return c->got ? 1 : -ECONNRESET;
		c->got += (size_t)n;
		if (memchr(c->req, '\n', c->got))
			return 1;
	}
}

/**
 * ctl_client_event() - A control client's socket is ready
 * @ev:		Its epoll reference (embedded in its client state)
 * @events:	epoll events (not trusted: the socket is asked)
 *
 * Context: main thread
 */
void ctl_client_event(const struct vnetd_ev *ev, uint32_t events)
{
	struct ctl_client *c = container_of(ev, struct ctl_client, ev);
	bool too_long = false;
	int ret;

	(void)events;
	if (c->fd < 0)
		return;		/* closed earlier in the same epoll batch */
	if (!c->reply.s) {
		ret = ctl_client_read(c, &too_long);
		if (ret <= 0) {
			if (ret < 0)
				ctl_client_close(c);
			return;
		}
		ctl_answer(c, too_long);
	}
	ret = ctl_client_send(c);
	if (ret == -EAGAIN) {
		struct epoll_event e = { .events = EPOLLOUT,
					 .data.ptr = &c->ev };

		if (!epoll_ctl(ctl.epfd, EPOLL_CTL_MOD, c->fd, &e))
			return;
	}
	ctl_client_close(c);
}

/* No slot free: one line to the client, one (rate-limited) to the log */
static void ctl_refuse(int fd, pid_t pid)
{
	static const char msg[] = "error: too many control clients, try again\n";

	(void)!send(fd, msg, sizeof(msg) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	close(fd);
	ctl.refused[CTL_REFUSE_CLIENTS]++;
	conn_refuse_log(&ctl.rl,
			"control socket: refusing client pid %d: %u clients already (the limit)",
			(int)pid, (unsigned int)CTL_MAX_CLIENTS);
}

/* A peer that is neither root, vnetd's user nor in --ctl-group (svc.c) */
static void ctl_refuse_peer(int fd, const char *why)
{
	char msg[224];
	int n;

	ctl.refused[CTL_REFUSE_PEER]++;
	/* logged before the reply: a client that reads it finds the line */
	conn_refuse_log(&ctl.rl, "control socket: refused: %s", why);
	n = snprintf(msg, sizeof(msg), "error: refused: %s\n", why);
	if (n > 0)
		(void)!send(fd, msg, (size_t)MIN(n, (int)sizeof(msg) - 1),
			    MSG_NOSIGNAL | MSG_DONTWAIT);
	close(fd);
}

static void ctl_accept_one(int fd)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
	struct ctl_client *c = NULL;
	char why[160];
	unsigned int i;

	if (ctl.nclients >= CTL_MAX_CLIENTS) {
		ctl_refuse(fd, conn_peer_pid(fd));
		return;
	}
	if (sock_ctl_check(fd, why, sizeof(why))) {
		ctl_refuse_peer(fd, why);
		return;
	}
	for (i = 0; i < CTL_MAX_CLIENTS && !c; i++)
		if (ctl.c[i].fd < 0)
			c = &ctl.c[i];
	if (!c) {	/* nclients says there is one: our own bug */
		close(fd);
		return;
	}
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->pid = conn_peer_pid(fd);
	c->start_ms = vu_conn_now_ms();
	c->ev = (struct vnetd_ev){ EV_CTL_CLIENT, NULL };
	ev.data.ptr = &c->ev;
	if (epoll_ctl(ctl.epfd, EPOLL_CTL_ADD, fd, &ev)) {
		close(fd);
		c->fd = -1;
		return;
	}
	ctl.nclients++;
}

/**
 * ctl_serve() - Accept the waiting control connections
 * @fd:		Listening control socket (non-blocking)
 * @epfd:	Main loop's epoll descriptor (clients are watched there)
 * @ports:	Ports to report on
 * @nports:	How many
 *
 * Context: main thread
 */
void ctl_serve(int fd, int epfd, struct vnetd_port *ports,
	       unsigned int nports)
{
	unsigned int i, n;
	int c;

	if (ctl.epfd < 0) {
		for (i = 0; i < CTL_MAX_CLIENTS; i++)
			ctl.c[i].fd = -1;
		ctl.epfd = epfd;
	}
	ctl.ports = ports;
	ctl.nports = nports;
	for (n = 0; n < CTL_ACCEPT_BATCH; n++) {
		c = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (c < 0)
			return;
		ctl_accept_one(c);
	}
}

/**
 * ctl_timeout_ms() - How long the main loop may sleep for the clients
 * @now_ms:	vu_conn_now_ms()
 *
 * Return: ms until the first client's deadline, -1 if none is connected
 */
int ctl_timeout_ms(uint64_t now_ms)
{
	uint64_t first = UINT64_MAX;
	unsigned int i;

	if (!ctl.nclients)
		return -1;
	for (i = 0; i < CTL_MAX_CLIENTS; i++)
		if (ctl.c[i].fd >= 0 && ctl.c[i].start_ms < first)
			first = ctl.c[i].start_ms;
	first += CTL_DEADLINE_MS;
	return first > now_ms ? (int)(first - now_ms) : 0;
}

/**
 * ctl_tick() - Close the clients past their deadline
 * @now_ms:	vu_conn_now_ms()
 *
 * Context: main thread, after every loop wakeup
 */
void ctl_tick(uint64_t now_ms)
{
	struct ctl_client *c;
	unsigned int i;

	for (i = 0; i < CTL_MAX_CLIENTS && ctl.nclients; i++) {
		c = &ctl.c[i];
		if (c->fd < 0 || now_ms < c->start_ms + CTL_DEADLINE_MS)
			continue;
		ctl.refused[CTL_REFUSE_DEADLINE]++;
		conn_refuse_log(&ctl.rl,
				"control socket: client pid %d: %s not done within %u ms, closing",
				(int)c->pid, c->reply.s ? "reply" : "request",
				(unsigned int)CTL_DEADLINE_MS);
		ctl_client_close(c);
	}
}

/**
 * ctl_refused() - Control clients refused or dropped for one reason
 * @why:	Reason
 *
 * Context: main thread
 * Return: how many since start
 */
uint64_t ctl_refused(enum ctl_refuse why)
{
	return why < CTL_REFUSE_MAX ? ctl.refused[why] : 0;
}
