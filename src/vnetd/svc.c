// SPDX-License-Identifier: MIT
/*
 * svc.c - vnetd's life as a host service, in order: svc_start() before
 * any port opens (log target, systemd's notify socket, socket-activated
 * fds), svc_ready() once every port listens (--user drop, READY=1), and
 * svc_tick(), the control thread's housekeeping about once a second: turn
 * what the workers flagged into log lines (they never log per packet) and
 * keep systemd's STATUS= line current. Nothing here touches a ring.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "antispoof.h"
#include "cfg.h"
#include "host_tap.h"
#include "privdrop.h"
#include "sd_notify.h"
#include "sockets.h"
#include "svc.h"
#include "vnetd.h"

/* #syscalls: clock_gettime */

#define SVC_TAP_DOWN_LOG_S	10	/* one "tap is down" line per port per 10 s */

static uint64_t svc_tap_down_logged[VNETD_MAX_PORTS];
static int svc_last_connected = -1;
static int svc_last_used = -1;

static uint64_t svc_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec + 1;	/* never 0: 0 means "not yet" */
}

/* A worker's TAP write failed with EIO: the link is down */
static void svc_tap_down(struct vnetd_port *p, unsigned int i, uint64_t now)
{
	const char *dev;

	if (!p->host.ops)
		return;
	dev = host_tap_take_eio(&p->host);
	if (!dev)
		return;
	if (svc_tap_down_logged[i] &&
	    now - svc_tap_down_logged[i] < SVC_TAP_DOWN_LOG_S)
		return;
	svc_tap_down_logged[i] = now;
	log_warn("port %s: tap %s is down: guest frames are dropped (fix: ip link set %s up)",
		 p->cfg.name, dev, dev);
}

/**
 * svc_tick() - Periodic housekeeping
 * @ports:	Ports
 * @nports:	How many
 *
 * Context: main thread, at most once a second and after events
 */
void svc_tick(struct vnetd_port *ports, unsigned int nports)
{
	uint64_t now = svc_now_s();
	unsigned int i, connected = 0, used = 0;

	for (i = 0; i < nports && i < VNETD_MAX_PORTS; i++) {
		if (!ports[i].used)	/* a slot `port del` freed */
			continue;
		used++;
		svc_tap_down(&ports[i], i, now);
		antispoof_tick(&ports[i], i, now);
		connected += port_connected(&ports[i]);
	}
	/* ports come and go at run time (reload.c): either count changes it */
	if ((int)connected != svc_last_connected || (int)used != svc_last_used) {
		svc_last_connected = (int)connected;
		svc_last_used = (int)used;
		(void)sd_notify_send("STATUS=%u port%s, %u frontend%s connected",
			       used, used == 1 ? "" : "s", connected,
			       connected == 1 ? "" : "s");
	}
}

/**
 * svc_start() - Before any port opens: log target, systemd, inherited fds
 * @cfg:	Configuration; socket-activated ports get their fd
 *
 * Return: 0, or -EINVAL after logging why
 */
int svc_start(struct vnetd_cfg *cfg)
{
	struct reason why = { 0 };
	int ret;

	log_init(cfg->log_target, "vnetd");
	ret = sd_notify_init();
	if (ret)
		log_warn("NOTIFY_SOCKET: %s: no readiness notification",
			 strerror(-ret));
	ret = sock_activation(cfg, &why);
	if (ret < 0) {
		log_err("socket activation: %s", why.msg);
		return ret;
	}
	if (ret)
		log_info("socket activation: %d inherited socket%s", ret,
			 ret == 1 ? "" : "s");
	sock_ctl_configure(cfg->ctl_gid);
	return 0;
}

/**
 * svc_ready() - After setup: drop privileges (--user), then tell systemd
 * @cfg:	Configuration
 *
 * Return: 0, or -errno after logging why (the caller exits)
 */
int svc_ready(const struct vnetd_cfg *cfg)
{
	struct reason why = { 0 };
	int ret;

	if (cfg->user_set) {
		ret = privdrop_apply(cfg->user_uid, cfg->user_gid, &why);
		if (ret) {
			log_err("%s", why.msg);
			(void)sd_notify_send("STATUS=failed: %s", why.msg);
			return ret;
		}
		log_info("running as uid %u gid %u, no capabilities",
			 (unsigned int)cfg->user_uid,
			 (unsigned int)cfg->user_gid);
	}
	/* run-time ports get the default socket group too (no CAP_CHOWN then) */
	if (!cfg->user_set && !geteuid() && cfg->defaults.sock_gid >= 0) {
		ret = privdrop_join_group((gid_t)cfg->defaults.sock_gid);
		if (ret)
			log_warn("joining the default socket group (gid %lld): %s: ports added at run time keep vnetd's group",
				 (long long)cfg->defaults.sock_gid, strerror(-ret));
	}
	(void)sd_notify_send("READY=1\nSTATUS=%u port%s, 0 frontends connected",
		       cfg->nports, cfg->nports == 1 ? "" : "s");
	return 0;
}
