/* SPDX-License-Identifier: MIT */
/*
 * vnetd.h - what the files of the vnetd program share: the parsed
 * configuration (cli.c), the ports with their sockets (port.c), the control
 * socket (ctl.c) and the status/metrics renderers (metrics.c). main.c owns
 * the event loop.
 */
#ifndef VNETD_H
#define VNETD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#include <sys/types.h>

#include "host.h"
#include "log.h"
#include "ctl_path.h"
#include "log.h"
#include "reason.h"
#include "tap_uring.h"
#include "vu_msg.h"
#include "worker.h"
#include "vhost_mode.h"
#include "vu_backend.h"
#include "cfg.h"
#include "port_spec.h"
#include "ports.h"
#include "sbuf.h"

/* What an epoll event's data.ptr points to */
enum vnetd_ev_type {
	EV_SIGNAL,
	EV_LISTEN,	/* a port's listening socket */
	EV_CONN,	/* a port's frontend connection */
	EV_TIMER,	/* a port's client-mode reconnect timer */
	EV_CTL,		/* the control socket */
	EV_CTL_CLIENT,	/* one control client */
	EV_HTTP,	/* the --metrics-listen socket */
	EV_HTTP_CLIENT,	/* one HTTP client */
};

struct vnetd_port;

/*
 * Why a port refused a connection, X(enum name, reason label): the label
 * is vnetd_port_refused_total's reason="" (metrics.c)
 */
#define PORT_REFUSALS(X)						\
	X(PORT_REFUSE_SECOND, "second_frontend")  /* one is connected already */ \
	X(PORT_REFUSE_ATTACH, "attach_failed")	  /* could not watch it (EMFILE...) */

/*
 * Why a port closed a connection on a protocol error, X(enum, label):
 * vnetd_port_protocol_errors_total's reason=""
 */
#define PORT_PERRS(X)							\
	X(PORT_PERR_BAD_MESSAGE, "bad_message")	/* framing, or a refused request */ \
	X(PORT_PERR_MEM_FAULT, "memory_fault")	/* guest memory shrank under us */ \
	X(PORT_PERR_REPLY_FULL, "reply_queue_full") /* replies not read */	\
	X(PORT_PERR_MSG_DEADLINE, "message_deadline") /* message not whole in time */ \
	X(PORT_PERR_REPLY_DEADLINE, "reply_deadline") /* replies not taken in time */

/* Why the control socket refused or dropped a client: X(enum, label) */
#define CTL_REFUSALS(X)							\
	X(CTL_REFUSE_CLIENTS, "control_clients")  /* CTL_MAX_CLIENTS reached */ \
	X(CTL_REFUSE_PEER, "peer_credentials")	  /* SO_PEERCRED not allowed */ \
	X(CTL_REFUSE_DEADLINE, "deadline")	  /* request or reply too slow */ \
	X(CTL_REFUSE_TOO_LONG, "request_too_long")

#define VNETD_REASON_ENUM(e, label)	e,
enum port_refuse { PORT_REFUSALS(VNETD_REASON_ENUM) PORT_REFUSE_MAX };
enum port_perr { PORT_PERRS(VNETD_REASON_ENUM) PORT_PERR_MAX };
enum ctl_refuse { CTL_REFUSALS(VNETD_REASON_ENUM) CTL_REFUSE_MAX };
#undef VNETD_REASON_ENUM

/**
 * struct vnetd_ev - epoll reference: what became ready
 * @type:	Kind of descriptor
 * @port:	Its port (EV_LISTEN, EV_CONN, EV_TIMER)
 *
 * EV_CTL_CLIENT references are embedded in ctl.c's client state.
 */
struct vnetd_ev {
	enum vnetd_ev_type type;
	struct vnetd_port *port;
};

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

/* clients.c */
void client_set_start(struct client_set *s, int epfd);
struct client_head *client_set_at(const struct client_set *s, unsigned int i);
struct client_head *client_set_add(struct client_set *s, int fd,
				   enum vnetd_ev_type type);
void client_set_del(struct client_set *s, struct client_head *c);
void client_set_accept(int lfd, unsigned int batch, void (*one)(int fd));
int client_set_timeout_ms(const struct client_set *s, uint64_t now_ms);
struct client_head *client_set_expired(const struct client_set *s,
				       unsigned int *i, uint64_t now_ms);

/**
 * struct vnetd_port - A port at run time (main thread only)
 * @cfg:	Configuration
 * @host:	Host side (tap, null, loop, gen)
 * @dev:	vhost-user device
 * @listen_fd:	Server mode: listening socket, -1 otherwise
 * @timer_fd:	Client mode: reconnect timer, -1 otherwise
 * @backoff_ms:	Client mode: next reconnect delay
 * @conn_ev:	epoll reference of the connection
 * @listen_ev:	epoll reference of @listen_fd
 * @timer_ev:	epoll reference of @timer_fd
 * @vhost:	--vhost-net decision, made once at port start
 * @epfd:	The main loop's epoll descriptor
 * @connects:	Connections served
 * @refused:	Connections refused (one already active)
 * @errors:	Connections closed on a protocol error
 * @refused_by:	@refused by enum port_refuse reason (metrics)
 * @errors_by:	@errors by enum port_perr reason (metrics)
 * @fresh:	Listening port: the connection has not sent a byte yet
 * @conn:	The connection's buffered framing (partial message, replies)
 * @peer_pid:	The connected frontend's PID (SO_PEERCRED), 0: unknown
 * @conn_out:	EPOLLOUT is being watched (replies queued in @conn)
 * @tx_since_ms: When replies began to wait in @conn, 0: none waiting
 * @wait_fd:	A second frontend that connected while @conn was mid-message
 *		or owed replies: it gets the port if that connection stalls,
 *		is refused if it goes idle (port_wait_resolve()); -1: none
 * @wait_pid:	Its PID (SO_PEERCRED), for the log
 * @wait_since_ms: When it was accepted (vu_conn_now_ms())
 * @refuse_rl:	Rate limit of this port's refusal and drop lines
 * @used:	The slot holds a running port (port_init() succeeded, not
 *		yet port_cleanup()): renderers and loops skip free slots
 */
struct vnetd_port {
	struct vnetd_port_cfg cfg;
	struct host host;
	struct vu_dev *dev;
	int listen_fd;
	int timer_fd;
	unsigned int backoff_ms;
	struct vnetd_ev conn_ev;
	struct vnetd_ev listen_ev;
	struct vnetd_ev timer_ev;
	struct vhost_decision vhost;
	int epfd;
	uint64_t connects;
	uint64_t refused;
	uint64_t errors;
	uint64_t refused_by[PORT_REFUSE_MAX];
	uint64_t errors_by[PORT_PERR_MAX];
	bool fresh;
	struct vu_conn conn;
	pid_t peer_pid;
	bool conn_out;
	uint64_t tx_since_ms;
	int wait_fd;
	pid_t wait_pid;
	uint64_t wait_since_ms;
	struct log_ratelimit refuse_rl;
	bool used;
};

/**
 * port_connected() - Is a frontend attached?
 * @p:		Port
 *
 * Return: true if connected
 */
static inline bool port_connected(const struct vnetd_port *p)
{
	return p->dev && vu_dev_connected(p->dev);
}

/* cli.c */
int cli_parse(struct vnetd_cfg *cfg, int argc, char **argv);
void cli_usage(FILE *f);
void cli_print_capabilities(FILE *f);
int cli_config_read(struct vnetd_cfg *cfg, const struct vnetd_port_cfg *tmpl,
		    const char *path, struct reason *why);

#include "svc.h"

/* port.c */
int port_init(struct vnetd_port *p, const struct vnetd_port_cfg *cfg, int epfd,
	      struct reason *why);
void port_cleanup(struct vnetd_port *p);
void port_set_stall_ms(unsigned int ms);
int port_group_init(unsigned int nthreads);
void port_group_cleanup(void);
const struct worker_group *port_group(void);
void port_event(struct vnetd_port *p, enum vnetd_ev_type type,
		uint32_t events);
int port_timeout_ms(const struct vnetd_port *p, uint64_t now_ms);
void port_tick(struct vnetd_port *p, uint64_t now_ms);
int port_adopt(struct vnetd_port *p, int fd);

/* antispoof.c */
int antispoof_setup(struct vnetd_port *p, struct reason *why);
void antispoof_tick(struct vnetd_port *p, unsigned int i, uint64_t now_s);
/* reload.c: ports at run time (vnetctl port ..., SIGHUP) */
void reload_init(struct vnetd_cfg *cfg, struct vnetd_port *ports, int epfd);
void reload_port_add(struct sbuf *b, const char *spec);
void reload_port_del(struct sbuf *b, const char *name);
void reload_port_list(struct sbuf *b);
void reload_config(void);
bool reload_sock_dir_ok(const char *path);

/* upgrade.c: hand every port to a new binary (vnetctl upgrade) */
void upgrade_init(int argc, char **argv, int ctl_fd, int http_fd);
void upgrade_serve(int fd, struct sbuf *b);
int upgrade_begin(int *argc, char ***argv);
bool upgrade_active(void);
int upgrade_take(struct vnetd_cfg *cfg, struct vnetd_port *ports, int epfd,
		 int *ctl_fd, int *http_fd);
int upgrade_commit(struct vnetd_port *ports, unsigned int nports);

/* conn.c */
pid_t conn_peer_pid(int fd);
bool conn_is_dead(int fd);
int conn_nonblock(int fd);
void conn_refuse_log(struct log_ratelimit *rl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ctl.c */
int ctl_open(const char *path);
void ctl_close(int fd, const char *path);
void ctl_serve(int fd, int epfd, struct vnetd_port *ports,
	       unsigned int nports);
void ctl_client_event(const struct vnetd_ev *ev, uint32_t events);
int ctl_timeout_ms(uint64_t now_ms);
void ctl_tick(uint64_t now_ms);
uint64_t ctl_refused(enum ctl_refuse why);

/* metrics.c */
void metrics_status_text(struct sbuf *b, struct vnetd_port *ports,
			 unsigned int nports);
void metrics_status_json(struct sbuf *b, struct vnetd_port *ports,
			 unsigned int nports);
void metrics_prometheus(struct sbuf *b, struct vnetd_port *ports,
			unsigned int nports, const struct worker_group *group,
			const uint64_t *ctl_refused);

/* metrics_http.c */
int metrics_http_parse(const char *s, struct sockaddr_storage *ss,
		       socklen_t *len);
int metrics_http_open(const struct vnetd_cfg *cfg, struct reason *why);
void metrics_http_close(int fd);
void metrics_http_serve(int fd, int epfd, struct vnetd_port *ports,
			unsigned int nports);
void metrics_http_client_event(const struct vnetd_ev *ev, uint32_t events);
int metrics_http_timeout_ms(uint64_t now_ms);
void metrics_http_tick(uint64_t now_ms);

#endif /* VNETD_H */
