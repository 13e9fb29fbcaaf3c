/* SPDX-License-Identifier: MIT */
/*
 * metrics_http.h - --metrics-listen: GET /metrics over HTTP (metrics_http.c)
 */
#ifndef VNETD_METRICS_HTTP_H
#define VNETD_METRICS_HTTP_H

#include <stdint.h>
#include <sys/socket.h>

#include "reason.h"

struct vnetd_cfg;
struct vnetd_ev;
struct vnetd_port;

int metrics_http_parse(const char *s, struct sockaddr_storage *ss,
		       socklen_t *len);
int metrics_http_open(const struct vnetd_cfg *cfg, struct reason *why);
void metrics_http_close(int fd);
void metrics_http_serve(int fd, int epfd, struct vnetd_port *ports,
			unsigned int nports);
void metrics_http_client_event(const struct vnetd_ev *ev, uint32_t events);
int metrics_http_timeout_ms(uint64_t now_ms);
void metrics_http_tick(uint64_t now_ms);

#endif /* VNETD_METRICS_HTTP_H */
