/* SPDX-License-Identifier: MIT */
/*
 * reload.h - ports at run time: vnetctl port add/del/list and SIGHUP (reload.c)
 */
#ifndef VNETD_RELOAD_H
#define VNETD_RELOAD_H

#include <stdbool.h>

struct sbuf;
struct vnetd_cfg;
struct vnetd_port;

void reload_init(struct vnetd_cfg *cfg, struct vnetd_port *ports, int epfd);
void reload_port_add(struct sbuf *b, const char *spec, const int *fds,
		     unsigned int nfds);
void reload_port_del(struct sbuf *b, const char *name);
void reload_port_list(struct sbuf *b);
void reload_config(void);
bool reload_sock_dir_ok(const char *path);

/* A run-time port's spec, name= and a derived mac= made explicit, and NUL */
#define RELOAD_SPEC_LEN	1024

const char *reload_port_spec(unsigned int slot);
void reload_set_spec(unsigned int slot, const char *spec);

#endif /* VNETD_RELOAD_H */
