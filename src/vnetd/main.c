// SPDX-License-Identifier: MIT
/*
 * main.c - vnetd: the vhost-user-net backend daemon. Parses the command
 * line (cli.c), opens every port (port.c) and the control socket (ctl.c),
 * then runs one epoll loop on the main thread over the listening sockets,
 * the frontend connections, the reconnect timers, the control socket (and
 * its clients) and a signalfd. Nothing in the loop waits on a peer: every
 * socket is non-blocking, and the loop sleeps at most until the next
 * deadline (a partial vhost-user message, a slow control client), then
 * closes what is overdue. The data path runs in the worker threads
 * vu_backend starts.
 * SIGTERM/SIGINT end the loop: every port is closed and its socket file
 * removed. SIGHUP re-reads --config and applies the differences
 * (reload.c). vnetd does not daemonize.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "cfg.h"
#include "cli.h"
#include "crash.h"
#include "ctl.h"
#include "log.h"
#include "metrics_http.h"
#include "port.h"
#include "ports.h"
#include "reload.h"
#include "sandbox.h"
#include "sd_notify.h"
#include "svc.h"
#include "upgrade.h"
#include "uplink.h"
#include "vnetd.h"

/* #syscalls: epoll_wait epoll_pwait epoll_ctl read exit_group */

#define MAIN_MAX_EVENTS	32

/**
 * struct vnetd - The process
 * @cfg:	Configuration
 * @ports:	Ports, @cfg.nports of them: the table of ports.c
 * @epfd:	Event loop
 * @sigfd:	SIGTERM/SIGINT
 * @ctl_fd:	Control socket, -1: none
 * @http_fd:	--metrics-listen socket, -1: none
 */
struct vnetd {
	struct vnetd_cfg cfg;
	struct vnetd_port *ports;
	int epfd;
	int sigfd;
	int ctl_fd;
	int http_fd;
};

/* Large (ports with their configs): static rather than on the stack */
static struct vnetd vnetd;

static const struct vnetd_ev main_sig_ev = { EV_SIGNAL, NULL };
static const struct vnetd_ev main_ctl_ev = { EV_CTL, NULL };
static const struct vnetd_ev main_http_ev = { EV_HTTP, NULL };

static int main_watch(int epfd, int fd, const struct vnetd_ev *ev)
{
	struct epoll_event e = { .events = EPOLLIN,
				 .data.ptr = (void *)(uintptr_t)ev };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &e) ? -errno : 0;
}

/* Block the signals we take by signalfd (workers inherit the mask) */
static int main_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, set, NULL))
		return -errno;
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* --metrics-listen: bound now, before the sandbox; failing it is fatal */
static int main_setup_http(struct vnetd *v)
{
	struct reason why = { 0 };

	if (!v->cfg.metrics_listen[0])
		return 0;
	v->http_fd = metrics_http_open(&v->cfg, &why);
	if (v->http_fd < 0) {
		log_err("%s", why.msg);
		return v->http_fd;
	}
	if (main_watch(v->epfd, v->http_fd, &main_http_ev)) {
		log_err("--metrics-listen %s: epoll: %s", v->cfg.metrics_listen,
			strerror(errno));
		return -errno;
	}
	log_info("metrics: serving GET /metrics on %s", v->cfg.metrics_listen);
	return 0;
}

/* vnetd --takeover: the old process's sockets and ports, not new ones */
static int main_takeover(struct vnetd *v)
{
	int ret;

	ret = upgrade_take(&v->cfg, v->ports, v->epfd, &v->ctl_fd,
			   &v->http_fd);
	if (ret)
		return ret;
	if (v->http_fd >= 0 && main_watch(v->epfd, v->http_fd, &main_http_ev))
		return -errno;
	if (v->ctl_fd >= 0 && main_watch(v->epfd, v->ctl_fd, &main_ctl_ev))
		return -errno;
	return 0;
}

static int main_setup(struct vnetd *v)
{
	struct reason why = { 0 };
	sigset_t set;
	unsigned int i;
	int ret;

	ret = main_signals(&set);
	if (ret) {
		log_err("sigprocmask: %s", strerror(-ret));
		return ret;
	}
	v->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	v->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (v->sigfd < 0 || v->epfd < 0 ||
	    main_watch(v->epfd, v->sigfd, &main_sig_ev)) {
		log_err("signalfd/epoll: %s", strerror(errno));
		return -errno;
	}
	if (upgrade_active())
		return main_takeover(v);
	ret = main_setup_http(v);	/* first: a failure leaves no port behind */
	if (!ret)
		ret = port_pool_init(v->cfg.worker_threads);
	if (ret)
		return ret;
	for (i = 0; i < v->cfg.nports; i++) {
		reason_clear(&why);
		ret = port_init(&v->ports[i], &v->cfg.ports[i], v->epfd, &why);
		if (ret) {
			log_err("port %s: %s", v->cfg.ports[i].name,
				why.msg[0] ? why.msg : strerror(-ret));
			port_cleanup(&v->ports[i]);
			while (i--)
				port_cleanup(&v->ports[i]);
			return ret;
		}
		log_info("port %s: %s %s, backend %s, %u queue pair%s",
			 v->cfg.ports[i].name,
			 v->cfg.ports[i].client ? "connecting to" : "listening on",
			 v->cfg.ports[i].socket, v->cfg.ports[i].backend,
			 v->cfg.ports[i].queues,
			 v->cfg.ports[i].queues > 1 ? "s" : "");
	}
	v->ctl_fd = v->cfg.ctl_path[0] ? ctl_open(v->cfg.ctl_path) : -1;
	if (v->ctl_fd >= 0 && main_watch(v->epfd, v->ctl_fd, &main_ctl_ev)) {
		ctl_close(v->ctl_fd, v->cfg.ctl_path);
		v->ctl_fd = -1;
	}
	return 0;
}

/* Sleep until the first deadline of a port or a control client, -1: none */
static int main_timeout(struct vnetd *v)
{
	uint64_t now = vu_conn_now_ms();
	int t = ctl_timeout_ms(now), pt;
	unsigned int i;

	pt = metrics_http_timeout_ms(now);
	if (pt >= 0 && (t < 0 || pt < t))
		t = pt;

	for (i = 0; i < v->cfg.nports; i++) {
		pt = port_timeout_ms(&v->ports[i], now);
		if (pt >= 0 && (t < 0 || pt < t))
			t = pt;
	}
	return t;
}

static void main_tick(struct vnetd *v)
{
	uint64_t now = vu_conn_now_ms();
	unsigned int i;

	for (i = 0; i < v->cfg.nports; i++)
		port_tick(&v->ports[i], now);
	ctl_tick(now);
	metrics_http_tick(now);
}

/* Run until a signal says stop. Return: 0, or -errno if epoll failed */
static int main_loop(struct vnetd *v)
{
	struct epoll_event evs[MAIN_MAX_EVENTS];
	struct signalfd_siginfo si;
	const struct vnetd_ev *ev;
	int n, i;

	for (;;) {
		main_tick(v);
		svc_tick(v->ports, v->cfg.nports);
		n = epoll_wait(v->epfd, evs, MAIN_MAX_EVENTS, main_timeout(v));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		for (i = 0; i < n; i++) {
			ev = evs[i].data.ptr;
			switch (ev->type) {
			case EV_SIGNAL:
				if (read(v->sigfd, &si, sizeof(si)) !=
				    (ssize_t)sizeof(si))
					break;
				if (si.ssi_signo == SIGHUP) {
					reload_config();
					break;
				}
				log_info("signal %u: exiting", si.ssi_signo);
				(void)sd_notify_send("STOPPING=1");
				return 0;
			case EV_CTL:
				ctl_serve(v->ctl_fd, v->epfd, v->ports,
					  v->cfg.nports);
				break;
			case EV_CTL_CLIENT:
				ctl_client_event(ev, evs[i].events);
				break;
			case EV_HTTP:
				metrics_http_serve(v->http_fd, v->epfd,
						   v->ports, v->cfg.nports);
				break;
			case EV_HTTP_CLIENT:
				metrics_http_client_event(ev, evs[i].events);
				break;
			default:
				/* stopped earlier in this batch (port del, SIGHUP) */
				if (ev->port->used)
					port_event(ev->port, ev->type,
						   evs[i].events);
				break;
			}
		}
	}
}

/* --tap-io: decided once, before the first worker thread starts */
static int main_tap_io(const struct vnetd_cfg *cfg)
{
	struct reason why;
	int ret = tap_uring_select(cfg->tap_io, &why);

	if (ret < 0) {
		log_err("--tap-io uring: io_uring unavailable: %s (use --tap-io auto or writev)",
			why.msg);
		return ret;
	}
	if (cfg->tap_io == TAP_IO_AUTO && ret == TAP_IO_WRITEV && why.msg[0])
		log_warn("--tap-io auto: TAP I/O uses readv/writev: %s", why.msg);
	return 0;
}

/* The switches' uplinks: opened before the sandbox (TAP creation) */
static int main_uplinks(void)
{
	struct reason why = { 0 };
	const struct uplink *u;
	unsigned int i;
	int ret = uplink_start(&why);

	if (ret) {
		log_err("%s", why.msg);
		return ret;
	}
	for (i = 0; (u = uplink_at(i)); i++) {
		char v[64];

		log_info("switch %s: uplink %s:%s, %s", u->sw->name, u->kind,
			 u->ifname, switch_vlans_format(&u->vlans, v, sizeof(v)));
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct vnetd *v = &vnetd;
	unsigned int i;
	int ret;

	crash_report_init();
	v->ports = ports_init(&v->cfg.nports);
	v->sigfd = v->epfd = v->ctl_fd = v->http_fd = -1;
	if (upgrade_begin(&argc, &argv))	/* --takeover: the old argv */
		return 1;
	ret = cli_parse(&v->cfg, argc, argv);
	if (ret)
		return ret;
	if (v->cfg.print_caps) {
		cli_print_capabilities(stdout);
		return 0;
	}
	log_max_level = (enum log_level)v->cfg.log_level;
	port_set_stall_ms(v->cfg.frontend_stall_ms);
	if (svc_start(&v->cfg))
		return 1;	/* svc_start() said why */
	if (main_tap_io(&v->cfg))
		return 1;
	ret = main_setup(v);
	if (ret)
		return 1;	/* main_setup() said why */
	if (main_uplinks())
		return 1;
	reload_init(&v->cfg, v->ports, v->epfd);
	upgrade_init(argc, argv, v->ctl_fd, v->http_fd);
	if (svc_ready(&v->cfg))
		return 1;
	if (upgrade_active() && upgrade_commit(v->ports, v->cfg.nports))
		return 1;	/* the old process serves on: touch nothing */
	if (sandbox_enter(&v->cfg))
		return 1;	/* said why; the kernel closes what setup opened */
	ret = main_loop(v);
	if (ret)
		log_err("event loop: %s", strerror(-ret));
	for (i = 0; i < v->cfg.nports; i++)
		port_cleanup(&v->ports[i]);
	uplink_stop();
	port_pool_cleanup();
	ctl_close(v->ctl_fd, v->cfg.ctl_path);
	metrics_http_close(v->http_fd);
	return ret ? 1 : 0;
}
