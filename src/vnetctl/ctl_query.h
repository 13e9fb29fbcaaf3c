/* SPDX-License-Identifier: MIT */
/*
 * ctl_query.h - one request on vnetd's control socket (ctl_query.c), for
 * vnetctl status, port and upgrade
 */
#ifndef VNETCTL_CTL_QUERY_H
#define VNETCTL_CTL_QUERY_H

int ctl_query(const char *who, const char *path, const char *req);

#endif /* VNETCTL_CTL_QUERY_H */
