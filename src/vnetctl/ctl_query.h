/* SPDX-License-Identifier: MIT */
/*
 * ctl_query.h - one request on vnetd's control socket (ctl_query.c), for
 * vnetctl status, port and upgrade
 */
#ifndef VNETCTL_CTL_QUERY_H
#define VNETCTL_CTL_QUERY_H

#include <stddef.h>

#define CTL_QUERY_MAX_FDS	128	/* vnetd takes two per queue pair */

int ctl_query(const char *who, const char *path, const char *req);
int ctl_query_fds(const char *who, const char *path, const char *req,
		  const int *fds, unsigned int nfds);
int ctl_query_keep(const char *who, const char *path, const char *req,
		   const int *fds, unsigned int nfds, char *reply, size_t len);

#endif /* VNETCTL_CTL_QUERY_H */
