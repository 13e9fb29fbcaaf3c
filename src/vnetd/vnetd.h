/* SPDX-License-Identifier: MIT */
/*
 * vnetd.h - the types the files of the vnetd program share: a port at run
 * time (struct vnetd_port, served by port.c, listed in the table of
 * ports.c, rendered by metrics.c), what an epoll event points to (struct
 * vnetd_ev: main.c's loop dispatches on it) and the reasons a port or the
 * control socket refuses, counted per reason. Types and inlines only: each
 * file's functions are declared in its own header.
 */
#ifndef VNETD_H
#define VNETD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cfg.h"
#include "host.h"
#include "log.h"
#include "vhost_mode.h"
#include "vu_backend.h"
#include "vu_msg.h"

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

#endif /* VNETD_H */
