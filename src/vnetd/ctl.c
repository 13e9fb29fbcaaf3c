// SPDX-License-Identifier: MIT
/*
 * ctl.c - vnetd's control socket: a UNIX stream socket that takes one
 * request line and answers it, then closes. Requests:
 *
 *	status		human-readable status of every port and queue
 *	status json	the same as one JSON document
 *	metrics		Prometheus text exposition (format 0.0.4)
 *	port add KEY=VAL,...	start a port (the keys of --port; reload.c);
 *			backend=af_xdp comes with an AF_XDP socket and its
 *			UMEM memfd per queue pair, as SCM_RIGHTS on the
 *			request bytes, and xdp-txmd=16 when the UMEMs have
 *			TX metadata room (afxdp_room.h)
 *	port del NAME		stop a port (add, del: root or vnetd's uid only)
 *	port list		one line per running port
 *	switch list [json]	one line per switch (switch_status.c)
 *	switch show NAME [json]	a switch's members, counters and MAC table
 *	upgrade			hand every port to a new vnetd (upgrade.c)
 *	pid			the serving process (changes with upgrade)
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

#include "cfg.h"
#include "clients.h"
#include "conn.h"
#include "ctl.h"
#include "log.h"
#include "metrics.h"
#include "port.h"
#include "ports.h"
#include "reload.h"
#include "sbuf.h"
#include "sockets.h"
#include "switch_status.h"
#include "upgrade.h"
#include "util.h"
#include "vnetd.h"

/* #syscalls: accept4 recvfrom recvmsg sendto setsockopt getsockopt geteuid close unlink
 * #syscalls: poll ppoll */

#define CTL_REQ_MAX		1024	/* "port add " and a --port spec */
#define CTL_MAX_CLIENTS		64
#define CTL_DEADLINE_MS		2000
#define CTL_ACCEPT_BATCH	256	/* per wakeup: other ports get a turn */

/**
 * struct ctl_client - One control connection being served
 * @h:		Socket, accept time, epoll reference (clients.c)
 * @pid:	Client PID (SO_PEERCRED), 0: unknown
 * @req:	Request bytes so far
 * @got:	Bytes in @req
 * @fds:	Descriptors that came with the request (SCM_RIGHTS), ours
 *		to close
 * @nfds:	How many in @fds
 * @fds_lost:	More came than @fds holds (the kernel dropped the rest)
 * @reply:	Rendered reply, once the request is whole
 * @sent:	Bytes of @reply sent
 */
struct ctl_client {
	struct client_head h;
	pid_t pid;
	char req[CTL_REQ_MAX];
	size_t got;
	int fds[2 * VNET_MAX_PAIRS];
	unsigned int nfds;
	bool fds_lost;
	struct sbuf reply;
	size_t sent;
};

static struct ctl_client ctl_clients[CTL_MAX_CLIENTS];

static struct {
	struct vnetd_port *ports;
	unsigned int nports;
	struct client_set set;
	struct log_ratelimit rl;
	uint64_t refused[CTL_REFUSE_MAX];
} ctl = { .set = CLIENT_SET(ctl_clients, CTL_DEADLINE_MS) };

/**
 * ctl_open() - Create and listen on the control socket
 * @path:	Socket path; its directory is created (0755) if missing
 *
 * Return: listening descriptor, or -errno (logged)
 */
int ctl_open(const char *path)
{
	struct reason why = { 0 };
	char dir[VNETD_PATH_LEN];
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
	fd = sock_unix_listen(path, &why);
	umask(old);
	if (fd >= 0 && sock_ctl_perms(path))
		log_warn("control socket %s: --ctl-group: %s", path,
			 strerror(errno));
	if (fd < 0)
		log_warn("control socket: %s; vnetctl status will not work",
			 why.msg[0] ? why.msg : strerror(-fd));
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
	for (i = 0; i < CTL_MAX_CLIENTS && ctl.set.n; i++)
		if (ctl_clients[i].h.fd >= 0)
			ctl_client_close(&ctl_clients[i]);
	close(fd);
	unlink(path);
}

/* Close the descriptors @c passed that no port took */
static void ctl_client_fds_close(struct ctl_client *c)
{
	while (c->nfds)
		close(c->fds[--c->nfds]);
	c->fds_lost = false;
}

static void ctl_client_close(struct ctl_client *c)
{
	ctl_client_fds_close(c);
	client_set_del(&ctl.set, &c->h);
	sbuf_free(&c->reply);
	memset(&c->reply, 0, sizeof(c->reply));
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

/* "switch show NAME [json]": @arg is what follows "switch show " */
static void ctl_switch_show(struct sbuf *b, char *arg)
{
	size_t n = strlen(arg);
	bool json = n > 5 && !strcmp(arg + n - 5, " json");

	if (json)
		arg[n - 5] = '\0';
	switch_status_show(b, ctl.ports, ctl.nports, arg, json);
}

/* Render the answer to the whole request in @c->req */
static void ctl_answer(struct ctl_client *c, bool too_long)
{
	struct sbuf *b = &c->reply;
	char *req = c->req;

	req[c->got] = '\0';
	req[strcspn(req, "\r\n")] = '\0';
	ctl.refused[CTL_REFUSE_TOO_LONG] += too_long;
	ctl.ports = ports_get(&ctl.nports);	/* port add/del change them */
	if (too_long)
		sbuf_printf(b, "error: request longer than %u bytes\n",
			       (unsigned int)CTL_REQ_MAX - 1);
	else if (!strcmp(req, "status") || !strcmp(req, "status text"))
		metrics_status_text(b, ctl.ports, ctl.nports);
	else if (!strcmp(req, "status json"))
		metrics_status_json(b, ctl.ports, ctl.nports);
	else if (!strcmp(req, "metrics"))
		metrics_prometheus(b, ctl.ports, ctl.nports, port_pool(),
				   ctl.refused);
	else if ((!strncmp(req, "port add ", 9) || !strcmp(req, "upgrade") ||
		  !strncmp(req, "port del ", 9)) && !ctl_may_change(c->h.fd))
		sbuf_printf(b, "error: %.8s: refused: only root or vnetd's own user may change ports (--ctl-group members may read status and port list)\n",
			       req);
	else if (!strncmp(req, "port add ", 9) && c->fds_lost)
		sbuf_printf(b, "error: port add: more than %u descriptors passed (an AF_XDP socket and its UMEM per queue pair, at most %u pairs)\n",
			       (unsigned int)(2 * VNET_MAX_PAIRS), (unsigned int)VNET_MAX_PAIRS);
	else if (!strncmp(req, "port add ", 9))
		reload_port_add(b, req + 9, c->fds, c->nfds);
	else if (!strncmp(req, "port del ", 9))
		reload_port_del(b, req + 9);
	else if (!strcmp(req, "port list"))
		reload_port_list(b);
	else if (!strcmp(req, "switch list") || !strcmp(req, "switch list json"))
		switch_status_list(b, ctl.ports, ctl.nports, req[11] != '\0');
	else if (!strncmp(req, "switch show ", 12))
		ctl_switch_show(b, req + 12);
	else if (!strcmp(req, "pid"))	/* SO_PEERCRED names the socket's creator */
		sbuf_printf(b, "%d\n", (int)getpid());
	else if (!strcmp(req, "upgrade"))	/* returns only if it failed */
		upgrade_serve(c->h.fd, b);
	else
		sbuf_printf(b, "error: unknown request \"%.64s\" (try: status, status json, metrics, port add|del|list, switch list|show)\n",
			       req);
	if (b->oom)
		sbuf_printf(b, "\nerror: out of memory, reply truncated\n");
	ctl_client_fds_close(c);	/* a port took duplicates */
	c->sent = 0;
}

/* Send what the socket takes. Return: 0 all sent, -EAGAIN more, -errno */
static int ctl_client_send(struct ctl_client *c)
{
	ssize_t n;

	while (c->reply.s && c->sent < c->reply.len) {
		n = send(c->h.fd, c->reply.s + c->sent, c->reply.len - c->sent,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? -EAGAIN : -errno;
		c->sent += (size_t)n;
	}
	return 0;
}

/* Keep the descriptors of an SCM_RIGHTS message @m in @c */
static void ctl_client_take_fds(struct ctl_client *c, struct msghdr *m)
{
	struct cmsghdr *cm;
	unsigned int i, n;
	int fd;

	c->fds_lost |= !!(m->msg_flags & MSG_CTRUNC);
	for (cm = CMSG_FIRSTHDR(m); cm; cm = CMSG_NXTHDR(m, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		n = (unsigned int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		for (i = 0; i < n; i++) {
			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(fd));
			if (c->nfds < ARRAY_SIZE(c->fds)) {
				c->fds[c->nfds++] = fd;
			} else {
				close(fd);
				c->fds_lost = true;
			}
		}
	}
}

/* Read what the socket has. Return: 1 request whole, 0 not yet, -errno */
static int ctl_client_read(struct ctl_client *c, bool *too_long)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 2 * VNET_MAX_PAIRS)];
		struct cmsghdr align;
	} cbuf;
	struct iovec iov;
	struct msghdr m;
	ssize_t n;

	for (;;) {
		if (c->got >= CTL_REQ_MAX - 1) {
			*too_long = true;
			return 1;
		}
		iov.iov_base = c->req + c->got;
		iov.iov_len = CTL_REQ_MAX - 1 - c->got;
		memset(&m, 0, sizeof(m));
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		m.msg_control = cbuf.buf;
		m.msg_controllen = sizeof(cbuf.buf);
		n = recvmsg(c->h.fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n >= 0)
			ctl_client_take_fds(c, &m);
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
	struct ctl_client *c = container_of(ev, struct ctl_client, h.ev);
	bool too_long = false;
	int ret;

	(void)events;
	if (c->h.fd < 0)
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
					 .data.ptr = &c->h.ev };

		if (!epoll_ctl(ctl.set.epfd, EPOLL_CTL_MOD, c->h.fd, &e))
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
	struct client_head *h;
	struct reason why = { 0 };

	if (ctl.set.n >= CTL_MAX_CLIENTS) {
		ctl_refuse(fd, conn_peer_pid(fd));
		return;
	}
	if (sock_ctl_check(fd, &why)) {
		ctl_refuse_peer(fd, why.msg);
		return;
	}
	h = client_set_add(&ctl.set, fd, EV_CTL_CLIENT);
	if (h)	/* zeroed: no descriptors yet */
		container_of(h, struct ctl_client, h)->pid = conn_peer_pid(fd);
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
	client_set_start(&ctl.set, epfd);
	ctl.ports = ports;
	ctl.nports = nports;
	client_set_accept(fd, CTL_ACCEPT_BATCH, ctl_accept_one);
}

/**
 * ctl_timeout_ms() - How long the main loop may sleep for the clients
 * @now_ms:	vu_conn_now_ms()
 *
 * Return: ms until the first client's deadline, -1 if none is connected
 */
int ctl_timeout_ms(uint64_t now_ms)
{
	return client_set_timeout_ms(&ctl.set, now_ms);
}

/**
 * ctl_tick() - Close the clients past their deadline
 * @now_ms:	vu_conn_now_ms()
 *
 * Context: main thread, after every loop wakeup
 */
void ctl_tick(uint64_t now_ms)
{
	struct client_head *h;
	struct ctl_client *c;
	unsigned int i = 0;

	while ((h = client_set_expired(&ctl.set, &i, now_ms))) {
		c = container_of(h, struct ctl_client, h);
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
