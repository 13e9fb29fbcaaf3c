// SPDX-License-Identifier: MIT
/*
 * metrics_http.c - the optional HTTP listener (--metrics-listen ADDR:PORT)
 * that lets Prometheus scrape vnetd directly: GET /metrics answers the
 * same text exposition (format 0.0.4) as the control request "metrics";
 * any other path is 404, any other method 405, a request that is not HTTP
 * 400. One request per connection (Connection: close). Rendering is
 * metrics.c's; this file parses the address, moves bytes and keeps time.
 * The socket is bound in setup, before the sandbox (main.c), like every
 * other socket.
 *
 * Security model: whoever reaches the address may scrape, nothing more
 * (bind it to loopback or a management network; the counters name ports,
 * not guests' data). A client cannot stall the main loop, and with it
 * every port's vhost-user messages (the same rules as ctl.c): every socket
 * is non-blocking, at most MHTTP_MAX_CLIENTS are served at once (one more
 * gets a 503 and is closed), a request head longer than MHTTP_REQ_MAX - 1
 * bytes gets a 431, and each client must have sent its request and taken
 * its reply within MHTTP_DEADLINE_MS of being accepted, else it is closed.
 * Each refusal is one rate-limited log line.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cfg.h"
#include "clients.h"
#include "conn.h"
#include "ctl.h"
#include "log.h"
#include "metrics.h"
#include "metrics_http.h"
#include "port.h"
#include "sbuf.h"
#include "util.h"
#include "vnetd.h"

/* #syscalls: accept4 recvfrom sendto close epoll_ctl */

#define MHTTP_REQ_MAX		2048
#define MHTTP_MAX_CLIENTS	16
#define MHTTP_DEADLINE_MS	2000
#define MHTTP_ACCEPT_BATCH	64	/* per wakeup: other ports get a turn */
#define MHTTP_BACKLOG		64
#define MHTTP_CTYPE		"text/plain; version=0.0.4; charset=utf-8"

/**
 * struct mhttp_client - One HTTP connection being served
 * @h:		Socket, accept time, epoll reference (clients.c)
 * @req:	Request head bytes so far
 * @got:	Bytes in @req
 * @head:	Status line and headers of the reply, once the request is whole
 * @head_len:	Bytes in @head
 * @body:	Reply body (the exposition or a one-line error)
 * @sent:	Bytes of @head, then of @body, sent
 * @answered:	@head and @body are rendered
 */
struct mhttp_client {
	struct client_head h;
	char req[MHTTP_REQ_MAX];
	size_t got;
	char head[256];
	size_t head_len;
	struct sbuf body;
	size_t sent;
	bool answered;
};

static struct mhttp_client mhttp_clients[MHTTP_MAX_CLIENTS];

static struct {
	struct vnetd_port *ports;
	unsigned int nports;
	struct client_set set;
	struct log_ratelimit rl;
} mhttp = { .set = CLIENT_SET(mhttp_clients, MHTTP_DEADLINE_MS) };

/* "PORT" after the address: 1..65535, decimal */
static int metrics_http_port(const char *s, uint16_t *port)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || !v || v > 65535)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

/**
 * metrics_http_parse() - Parse --metrics-listen ADDR:PORT
 * @s:		Text: IPV4:PORT, [IPV6]:PORT or localhost:PORT (127.0.0.1)
 * @ss:		Socket address (output)
 * @len:	Its length (output)
 *
 * Return: 0, or -EINVAL (the caller names the flag and the allowed form)
 */
int metrics_http_parse(const char *s, struct sockaddr_storage *ss,
		       socklen_t *len)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon;
	uint16_t port;
	size_t n;

	memset(ss, 0, sizeof(*ss));
	if (*s == '[') {		/* [IPv6]:PORT */
		colon = strstr(s, "]:");
		if (!colon || (size_t)(colon - s - 1) >= sizeof(host))
			return -EINVAL;
		n = (size_t)(colon - s - 1);
		memcpy(host, s + 1, n);
		host[n] = '\0';
		if (metrics_http_port(colon + 2, &port) ||
		    inet_pton(AF_INET6, host, &s6->sin6_addr) != 1)
			return -EINVAL;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		*len = sizeof(*s6);
		return 0;
	}
	colon = strrchr(s, ':');
	if (!colon || (size_t)(colon - s) >= sizeof(host))
		return -EINVAL;
	n = (size_t)(colon - s);
	memcpy(host, s, n);
	host[n] = '\0';
	if (metrics_http_port(colon + 1, &port))
		return -EINVAL;
	if (!strcmp(host, "localhost"))
		strcpy(host, "127.0.0.1");
	if (inet_pton(AF_INET, host, &s4->sin_addr) != 1)
		return -EINVAL;
	s4->sin_family = AF_INET;
	s4->sin_port = htons(port);
	*len = sizeof(*s4);
	return 0;
}

/**
 * metrics_http_open() - Bind and listen on --metrics-listen
 * @cfg:	Configuration (its metrics_addr, already parsed)
 * @why:	One sentence for the operator on failure
 *
 * Context: setup, before the sandbox
 * Return: listening, non-blocking descriptor or -errno
 */
int metrics_http_open(const struct vnetd_cfg *cfg, struct reason *why)
{
	const struct sockaddr *sa = (const struct sockaddr *)&cfg->metrics_addr;
	int fd, one = 1, ret;

	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    0);
	if (fd < 0)
		goto err;
	/* A restart must not wait for TIME_WAIT of the last scrape */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (sa->sa_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one))) ||
	    bind(fd, sa, cfg->metrics_addr_len) || listen(fd, MHTTP_BACKLOG))
		goto err_close;
	return fd;

err_close:
	ret = -errno;		/* before close(), which may change errno */
	close(fd);
	errno = -ret;
err:
	ret = -errno;
	return reason_set(why, ret, "--metrics-listen %s: %s", cfg->metrics_listen,
			  strerror(-ret));
}

static void metrics_http_client_close(struct mhttp_client *c)
{
	client_set_del(&mhttp.set, &c->h);
	sbuf_free(&c->body);
}

/**
 * metrics_http_close() - Close the clients and the listening socket
 * @fd:		Listening descriptor (ignored if negative)
 */
void metrics_http_close(int fd)
{
	unsigned int i;

	if (fd < 0)
		return;
	for (i = 0; i < MHTTP_MAX_CLIENTS && mhttp.set.n; i++)
		if (mhttp_clients[i].h.fd >= 0)
			metrics_http_client_close(&mhttp_clients[i]);
	close(fd);
}

/* Status line and headers for @code, the body being ready */
static void metrics_http_head(struct mhttp_client *c, int code,
			      const char *reason, const char *ctype)
{
	int n;

	n = snprintf(c->head, sizeof(c->head),
		     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%sConnection: close\r\n\r\n",
		     code, reason, ctype, c->body.len,
		     code == 405 ? "Allow: GET, HEAD\r\n" : "");
	c->head_len = n > 0 ? MIN((size_t)n, sizeof(c->head) - 1) : 0;
}

static void metrics_http_error(struct mhttp_client *c, int code,
			       const char *reason)
{
	sbuf_printf(&c->body, "%d %s\n", code, reason);
	metrics_http_head(c, code, reason, "text/plain; charset=utf-8");
}

/*
 * Answer the request head in @c->req (HTTP/1.1, RFC 9112 section 3: the
 * request line is METHOD SP TARGET SP VERSION)
 */
static void metrics_http_answer(struct mhttp_client *c, bool too_long)
{
	char *method = c->req, *target, *version, *eol;
	uint64_t ctl_refusals[CTL_REFUSE_MAX];
	unsigned int i;
	bool head;

	c->answered = true;
	c->req[c->got] = '\0';
	if (too_long) {
		metrics_http_error(c, 431, "Request Header Fields Too Large");
		return;
	}
	eol = strpbrk(c->req, "\r\n");
	if (eol)
		*eol = '\0';
	target = strchr(method, ' ');
	version = target ? strchr(target + 1, ' ') : NULL;
	if (!version || strncmp(version + 1, "HTTP/1.", 7)) {
		metrics_http_error(c, 400, "Bad Request");
		return;
	}
	*target++ = '\0';
	*version = '\0';
	head = !strcmp(method, "HEAD");
	if (!head && strcmp(method, "GET")) {
		metrics_http_error(c, 405, "Method Not Allowed");
		return;
	}
	target[strcspn(target, "?")] = '\0';	/* Prometheus may add params */
	if (strcmp(target, "/metrics")) {
		metrics_http_error(c, 404, "Not Found");
		return;
	}
	for (i = 0; i < CTL_REFUSE_MAX; i++)
		ctl_refusals[i] = ctl_refused((enum ctl_refuse)i);
	metrics_prometheus(&c->body, mhttp.ports, mhttp.nports, port_pool(),
			   ctl_refusals);
	if (c->body.oom) {
		sbuf_free(&c->body);
		metrics_http_error(c, 503, "Service Unavailable");
		return;
	}
	metrics_http_head(c, 200, "OK", MHTTP_CTYPE);
	if (head)
		c->body.len = 0;	/* Content-Length stays the GET one */
}

/* Send what the socket takes. Return: 0 all sent, -EAGAIN more, -errno */
static int metrics_http_send(struct mhttp_client *c)
{
	size_t total = c->head_len + c->body.len;
	const char *p;
	size_t left;
	ssize_t n;

	while (c->sent < total) {
		if (c->sent < c->head_len) {
			p = c->head + c->sent;
			left = c->head_len - c->sent;
		} else {
			p = c->body.s + (c->sent - c->head_len);
			left = total - c->sent;
		}
		n = send(c->h.fd, p, left, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? -EAGAIN : -errno;
		c->sent += (size_t)n;
	}
	return 0;
}

/* Read what the socket has. Return: 1 head whole, 0 not yet, -errno */
static int metrics_http_read(struct mhttp_client *c, bool *too_long)
{
	ssize_t n;

	for (;;) {
		if (c->got >= MHTTP_REQ_MAX - 1) {
			*too_long = true;
			return 1;
		}
		n = recv(c->h.fd, c->req + c->got, MHTTP_REQ_MAX - 1 - c->got,
			 MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		if (n == 0)	/* EOF: answer what came, if anything */
			return c->got ? 1 : -ECONNRESET;
		c->got += (size_t)n;
		c->req[c->got] = '\0';
		if (strstr(c->req, "\r\n\r\n") || strstr(c->req, "\n\n"))
			return 1;
	}
}

/**
 * metrics_http_client_event() - An HTTP client's socket is ready
 * @ev:		Its epoll reference (embedded in its client state)
 * @events:	epoll events (not trusted: the socket is asked)
 *
 * Context: main thread
 */
void metrics_http_client_event(const struct vnetd_ev *ev, uint32_t events)
{
	struct mhttp_client *c = container_of(ev, struct mhttp_client, h.ev);
	bool too_long = false;
	int ret;

	(void)events;
	if (c->h.fd < 0)
		return;		/* closed earlier in the same epoll batch */
	if (!c->answered) {
		ret = metrics_http_read(c, &too_long);
		if (ret <= 0) {
			if (ret < 0)
				metrics_http_client_close(c);
			return;
		}
		metrics_http_answer(c, too_long);
	}
	ret = metrics_http_send(c);
	if (ret == -EAGAIN) {
		struct epoll_event e = { .events = EPOLLOUT,
					 .data.ptr = &c->h.ev };

		if (!epoll_ctl(mhttp.set.epfd, EPOLL_CTL_MOD, c->h.fd, &e))
			return;
	}
	metrics_http_client_close(c);
}

/* No slot free: a 503 to the client, one (rate-limited) line to the log */
static void metrics_http_refuse(int fd)
{
	static const char msg[] =
		"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";

	(void)!send(fd, msg, sizeof(msg) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	close(fd);
	conn_refuse_log(&mhttp.rl,
			"metrics listener: refusing a client: %u clients already (the limit)",
			(unsigned int)MHTTP_MAX_CLIENTS);
}

static void metrics_http_accept_one(int fd)
{
	if (mhttp.set.n >= MHTTP_MAX_CLIENTS) {
		metrics_http_refuse(fd);
		return;
	}
	client_set_add(&mhttp.set, fd, EV_HTTP_CLIENT);
}

/**
 * metrics_http_serve() - Accept the waiting HTTP connections
 * @fd:		Listening socket (non-blocking)
 * @epfd:	Main loop's epoll descriptor (clients are watched there)
 * @ports:	Ports to report on
 * @nports:	How many
 *
 * Context: main thread
 */
void metrics_http_serve(int fd, int epfd, struct vnetd_port *ports,
			unsigned int nports)
{
	client_set_start(&mhttp.set, epfd);
	mhttp.ports = ports;
	mhttp.nports = nports;
	client_set_accept(fd, MHTTP_ACCEPT_BATCH, metrics_http_accept_one);
}

/**
 * metrics_http_timeout_ms() - How long the main loop may sleep for the
 *			       HTTP clients
 * @now_ms:	vu_conn_now_ms()
 *
 * Return: ms until the first client's deadline, -1 if none is connected
 */
int metrics_http_timeout_ms(uint64_t now_ms)
{
	return client_set_timeout_ms(&mhttp.set, now_ms);
}

/**
 * metrics_http_tick() - Close the HTTP clients past their deadline
 * @now_ms:	vu_conn_now_ms()
 *
 * Context: main thread, after every loop wakeup
 */
void metrics_http_tick(uint64_t now_ms)
{
	struct client_head *h;
	struct mhttp_client *c;
	unsigned int i = 0;

	while ((h = client_set_expired(&mhttp.set, &i, now_ms))) {
		c = container_of(h, struct mhttp_client, h);
		conn_refuse_log(&mhttp.rl,
				"metrics listener: a client's %s was not done within %u ms, closing",
				c->answered ? "reply" : "request",
				(unsigned int)MHTTP_DEADLINE_MS);
		metrics_http_client_close(c);
	}
}
