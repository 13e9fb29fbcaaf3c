/* SPDX-License-Identifier: MIT */
/*
 * conn.h - what vnetd asks of a connected peer (conn.c)
 */
#ifndef VNETD_CONN_H
#define VNETD_CONN_H

#include <stdbool.h>
#include <sys/types.h>

struct log_ratelimit;

pid_t conn_peer_pid(int fd);
bool conn_is_dead(int fd);
int conn_nonblock(int fd);
void conn_refuse_log(struct log_ratelimit *rl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* VNETD_CONN_H */
