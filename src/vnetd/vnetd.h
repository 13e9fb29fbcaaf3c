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
#include "switch.h"
#include "tap_uring.h"
#include "vu_msg.h"
#include "worker.h"
#include "vhost_mode.h"
#include "vu_backend.h"

#define VNETD_MAX_PORTS		64
#define VNETD_NAME_LEN		32
#define VNETD_PATH_LEN		sizeof(((struct sockaddr_un *)0)->sun_path)
#define VNETD_EXIT_USAGE	2	/* bad command line or config file */

/*
 * --frontend-stall-ms: how long a frontend may leave a message half sent or
 * its replies unread (port.c). A VMM writes each message whole and reads
 * each reply before it sends on, so neither state lasts past a few
 * scheduling delays for one; a second is plenty on a loaded host.
 */
#define VNETD_STALL_MS_DEFAULT	1000
#define VNETD_STALL_MS_MIN	100
#define VNETD_STALL_MS_MAX	60000

/* Client-mode reconnect backoff (ms) */
#define VNETD_BACKOFF_MIN_MS	100
#define VNETD_BACKOFF_MAX_MS	5000

/**
 * struct vnetd_port_cfg - One port as the operator configured it
 * @name:		Port name (status, log lines)
 * @socket:		vhost-user UNIX socket path
 * @backend:		Backend name (host_find())
 * @tap:		tap: interface name ("" = kernel picks)
 * @tap_fds:		tap: already-open queue fds
 * @ntap_fds:		How many in @tap_fds
 * @xdp_if:		af_xdp: interface to attach to
 * @xdp_queue:		af_xdp: its queue for pair 0
 * @xdp_mode:		af_xdp: auto, copy or zerocopy
 * @queues:		Queue pairs (1..VNET_MAX_PAIRS)
 * @mac:		MAC for the config space
 * @mtu:		MTU (0: not advertised)
 * @features_mask:	virtio feature bits allowed
 * @client:		Connect to the frontend instead of listening
 * @vhost_net:		Kernel vhost-net offload policy
 * @wopts:		Data path tuning
 * @config_space:	Offer PROTOCOL_F_CONFIG (--config-space on)
 * @fd:			Inherited socket (--fd, socket activation), -1: bind
 * @sock_uid:		Socket file owner, -1: leave
 * @sock_gid:		Socket file group, -1: leave
 * @sock_mode:		Socket file mode
 * @from_config:	Came from a --config line: SIGHUP may stop, restart
 *			or keep it (reload.c)
 */
struct vnetd_port_cfg {
	char name[VNETD_NAME_LEN];
	char socket[VNETD_PATH_LEN];
	char backend[VNETD_NAME_LEN];
	char tap[VNETD_NAME_LEN];
	int tap_fds[VNET_MAX_PAIRS];
	unsigned int ntap_fds;
	char xdp_if[VNETD_NAME_LEN];
	unsigned int xdp_queue;
	enum host_xdp_mode xdp_mode;
	unsigned int queues;
	uint8_t mac[6];
	uint16_t mtu;
	uint64_t features_mask;
	bool client;
	enum vhost_mode vhost_net;
	struct worker_opts wopts;
	bool config_space;
	int fd;
	int64_t sock_uid;
	int64_t sock_gid;
	unsigned int sock_mode;
	bool from_config;
	char sw[VNETD_NAME_LEN];
	uint16_t vlan;
	bool trunk_set;
	struct sw_vlans trunk;
};

/**
 * struct vnetd_cfg - The whole command line / config file
 * @ports:		Ports to serve; at run time slot i is ports[i] of main.c
 * @nports:		How many slots have ever been used (a slot freed by
 *			`port del` stays counted until reused: see
 *			struct vnetd_port @used)
 * @defaults:		Per-port options given outside --port: the template
 *			of every --port, config line and `port add`
 * @config_path:	--config FILE (argv), NULL: none
 * @ctl_path:		Control socket path ("" = none)
 * @log_level:		Log level
 * @print_caps:		--print-capabilities: print and exit
 * @log_target:		--log-target
 * @user_set:		--user given: drop to @user_uid/@user_gid after setup
 * @user_uid:		--user: uid
 * @user_gid:		--user: gid
 * @ctl_gid:		--ctl-group, -1: root (and our own uid) only
 * @sandbox:		--sandbox on (default): sandbox_enter() after setup
 * @metrics_listen:	--metrics-listen as given ("" = no HTTP listener)
 * @metrics_addr:	Its address, parsed (metrics_http_parse())
 * @metrics_addr_len:	Length of @metrics_addr
 * @worker_threads:	--worker-threads: threads of the pool all ports share,
 *			0: each port its own (worker_opts.nthreads)
 * @tap_io:		--tap-io: how guest TX is written into TAPs
 * @frontend_stall_ms:	--frontend-stall-ms (port_set_stall_ms())
 */
struct vnetd_cfg {
	struct vnetd_port_cfg ports[VNETD_MAX_PORTS];
	unsigned int nports;
	struct vnetd_port_cfg defaults;
	const char *config_path;
	char ctl_path[VNETD_PATH_LEN];
	int log_level;
	bool print_caps;
	enum log_target log_target;
	bool user_set;
	uid_t user_uid;
	gid_t user_gid;
	int64_t ctl_gid;
	bool sandbox;
	char metrics_listen[64];
	struct sockaddr_storage metrics_addr;
	socklen_t metrics_addr_len;
	unsigned int worker_threads;
	enum tap_io tap_io;
	unsigned int frontend_stall_ms;
};

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

/* cli.c */
int cli_parse(struct vnetd_cfg *cfg, int argc, char **argv);
void cli_usage(FILE *f);
void cli_print_capabilities(FILE *f);
const char *cli_feature_name(unsigned int bit);
int cli_port_parse(struct vnetd_port_cfg *pc, const struct vnetd_port_cfg *tmpl,
		   const char *text, const char *delims, struct reason *why);
void cli_port_defaults(struct vnetd_port_cfg *t);
int cli_port_check(struct vnetd_port_cfg *pc, unsigned int index, struct reason *why);
int cli_port_clash(const struct vnetd_port_cfg *pc,
		   const struct vnetd_port_cfg *other, struct reason *why);
int cli_config_read(struct vnetd_cfg *cfg, const struct vnetd_port_cfg *tmpl,
		    const char *path, struct reason *why);

#include "svc.h"

/* port.c */
int port_unix_listen(const char *path, struct reason *why);
int port_init(struct vnetd_port *p, const struct vnetd_port_cfg *cfg, int epfd,
	      struct reason *why);
void port_cleanup(struct vnetd_port *p);
void port_set_stall_ms(unsigned int ms);
int port_group_init(unsigned int nthreads);
void port_group_cleanup(void);
const struct worker_group *port_group(void);
void port_event(struct vnetd_port *p, enum vnetd_ev_type type,
		uint32_t events);
bool port_connected(const struct vnetd_port *p);
int port_timeout_ms(const struct vnetd_port *p, uint64_t now_ms);
void port_tick(struct vnetd_port *p, uint64_t now_ms);
int port_adopt(struct vnetd_port *p, int fd);

/* antispoof.c */
int antispoof_setup(struct vnetd_port *p, struct reason *why);
void antispoof_tick(struct vnetd_port *p, unsigned int i, uint64_t now_s);
/* reload.c: ports at run time (vnetctl port ..., SIGHUP) */
struct sbuf;
void reload_init(struct vnetd_cfg *cfg, struct vnetd_port *ports, int epfd);
struct vnetd_port *reload_ports(unsigned int *nports);
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

/**
 * struct sbuf - A growing text buffer for replies (control path only)
 * @s:		Text, NUL-terminated, or NULL before the first write
 * @len:	Bytes used
 * @cap:	Bytes allocated
 * @oom:	An allocation failed: the text is truncated
 */
struct sbuf {
	char *s;
	size_t len;
	size_t cap;
	bool oom;
};

/* metrics.c */
void metrics_printf(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void metrics_free(struct sbuf *b);
void metrics_status_text(struct sbuf *b, struct vnetd_port *ports,
			 unsigned int nports);
void metrics_status_json(struct sbuf *b, struct vnetd_port *ports,
			 unsigned int nports);
void metrics_prometheus(struct sbuf *b, struct vnetd_port *ports,
			unsigned int nports);

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
