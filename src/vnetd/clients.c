/* SPDX-License-Identifier: MIT */
/*
 * clients.c - a fixed set of non-blocking clients served by the main loop:
 * the slots, the accept batch, and the deadline every client must meet. The
 * control socket (ctl.c) and the metrics listener (metrics_http.c) each keep
 * one set; what a client says and is answered stays theirs.
 *
 * Each client struct starts with a struct client_head; the set only knows
 * where the array is and how long one element is.
 */
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "clients.h"
#include "vnetd.h"


/* #syscalls: accept4 epoll_ctl close */

/**
 * client_set_start() - Bind a set to the main loop's epoll, once
 * @s:		Set (CLIENT_SET())
 * @epfd:	Main loop's epoll descriptor
 */
void client_set_start(struct client_set *s, int epfd)
{
	unsigned int i;

	if (s->epfd >= 0)
		return;
	for (i = 0; i < s->max; i++)
		client_set_at(s, i)->fd = -1;
	s->epfd = epfd;
}

/**
 * client_set_at() - The client in slot @i
 * @s:	Set
 * @i:	Slot, below @s->max
 *
 * Return: its head (fd -1: the slot is free)
 */
struct client_head *client_set_at(const struct client_set *s, unsigned int i)
{
	return (struct client_head *)(void *)(s->base + (size_t)i * s->stride);
}

/**
 * client_set_add() - Give an accepted connection a free slot
 * @s:		Set, not full (the caller answers a full set itself)
 * @fd:		Accepted non-blocking socket
 * @type:	Its event type in the main loop
 *
 * The slot is zeroed, then its head filled and @fd watched for input.
 *
 * Return: the client's head, or NULL with @fd closed (no slot, epoll)
 */
struct client_head *client_set_add(struct client_set *s, int fd,
				   enum vnetd_ev_type type)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
	struct client_head *c = NULL;
	unsigned int i;

	for (i = 0; i < s->max && !c; i++)
		if (client_set_at(s, i)->fd < 0)
			c = client_set_at(s, i);
	if (!c) {	/* n says there is one: our own bug */
		close(fd);
		return NULL;
	}
	memset(c, 0, s->stride);
	c->fd = fd;
	c->start_ms = vu_conn_now_ms();
	c->ev = (struct vnetd_ev){ type, NULL };
	ev.data.ptr = &c->ev;
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		close(fd);
		c->fd = -1;
		return NULL;
	}
	s->n++;
	return c;
}

/**
 * client_set_del() - Close a client and free its slot
 * @s:	Set
 * @c:	Client (its own buffers are the caller's to free)
 */
void client_set_del(struct client_set *s, struct client_head *c)
{
	epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	s->n--;
}

/**
 * client_set_accept() - Accept what waits on @lfd, a batch at a time
 * @lfd:	Listening socket (non-blocking)
 * @batch:	At most this many per call: other sockets get a turn
 * @one:	Takes each accepted (non-blocking) socket
 */
void client_set_accept(int lfd, unsigned int batch, void (*one)(int fd))
{
	unsigned int n;
	int c;

	for (n = 0; n < batch; n++) {
		c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (c < 0)
			return;
		one(c);
	}
}

/**
 * client_set_timeout_ms() - How long the main loop may sleep for the set
 * @s:		Set
 * @now_ms:	vu_conn_now_ms()
 *
 * Return: ms until the first client's deadline, -1 if none is connected
 */
int client_set_timeout_ms(const struct client_set *s, uint64_t now_ms)
{
	uint64_t first = UINT64_MAX;
	struct client_head *c;
	unsigned int i;

	if (!s->n)
		return -1;
	for (i = 0; i < s->max; i++) {
		c = client_set_at(s, i);
		if (c->fd >= 0 && c->start_ms < first)
			first = c->start_ms;
	}
	first += s->deadline_ms;
	return first > now_ms ? (int)(first - now_ms) : 0;
}

/**
 * client_set_expired() - The next client past its deadline
 * @s:		Set
 * @i:		Cursor: start at 0, the same variable for each call
 * @now_ms:	vu_conn_now_ms()
 *
 * Return: a client to close (the caller logs why, then closes it), or NULL
 */
struct client_head *client_set_expired(const struct client_set *s,
				       unsigned int *i, uint64_t now_ms)
{
	struct client_head *c;

	for (; *i < s->max && s->n; (*i)++) {
		c = client_set_at(s, *i);
		if (c->fd >= 0 && now_ms >= c->start_ms + s->deadline_ms) {
			(*i)++;
			return c;
		}
	}
	return NULL;
}
