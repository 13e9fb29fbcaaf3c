/* SPDX-License-Identifier: MIT */
/*
 * clients.h - a fixed set of non-blocking clients of the main loop (clients.c)
 */
#ifndef VNETD_CLIENTS_H
#define VNETD_CLIENTS_H

#include <stddef.h>
#include <stdint.h>

#include "vnetd.h"

/**
 * struct client_head - What every client of a struct client_set starts with
 * @fd:		Socket, -1: slot free
 * @start_ms:	When it was accepted (vu_conn_now_ms()): its deadline counts
 *		from here
 * @ev:		Its epoll reference
 */
struct client_head {
	int fd;
	uint64_t start_ms;
	struct vnetd_ev ev;
};

/**
 * struct client_set - A fixed array of clients served by the main loop
 * @base:	The array; each element starts with a struct client_head
 * @stride:	Bytes per element
 * @max:	Elements
 * @n:		Slots in use
 * @epfd:	Main loop's epoll descriptor, -1 until client_set_start()
 * @deadline_ms: From accept to the last byte of the reply
 */
struct client_set {
	char *base;
	size_t stride;
	unsigned int max;
	unsigned int n;
	int epfd;
	uint64_t deadline_ms;
};

#define CLIENT_SET(arr, deadline)					\
	{ (char *)(arr), sizeof((arr)[0]), sizeof(arr) / sizeof((arr)[0]),	\
	  0, -1, (deadline) }

void client_set_start(struct client_set *s, int epfd);
struct client_head *client_set_at(const struct client_set *s, unsigned int i);
struct client_head *client_set_add(struct client_set *s, int fd,
				   enum vnetd_ev_type type);
void client_set_del(struct client_set *s, struct client_head *c);
void client_set_accept(int lfd, unsigned int batch, void (*one)(int fd));
int client_set_timeout_ms(const struct client_set *s, uint64_t now_ms);
struct client_head *client_set_expired(const struct client_set *s,
				       unsigned int *i, uint64_t now_ms);

#endif /* VNETD_CLIENTS_H */
