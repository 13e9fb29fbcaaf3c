/* SPDX-License-Identifier: MIT */
/*
 * cfg.h - vnetd's configuration as the command line, config file and
 * `vnetctl port add` give it (types only): one port's settings (struct
 * vnetd_port_cfg, filled by port_spec.c) and the whole process's (struct
 * vnetd_cfg, filled by cli.c), with their bounds.
 */
#ifndef VNETD_CFG_H
#define VNETD_CFG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#include "host.h"
#include "log.h"
#include "switch.h"
#include "tap_uring.h"
#include "vhost_mode.h"
#include "worker.h"

#define VNETD_MAX_PORTS		64
#define VNETD_NAME_LEN		32
#define VNETD_MAX_SWITCHES	16	/* host_switch.h's HOST_SWITCH_MAX */
#define VNETD_PATH_LEN		sizeof(((struct sockaddr_un *)0)->sun_path)
#define VNETD_EXIT_USAGE	2	/* bad command line or config file */

#define SOCK_DEFAULT_MODE	0660
#define SOCK_DEFAULT_GROUP	"kvm"	/* libvirt's QEMU: libvirt-qemu:kvm */
#define SOCK_RUN_DIR		"/run/vnetd"

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
 * @xdp_fds:		af_xdp: per pair an AF_XDP socket and its UMEM memfd,
 *			passed with `port add` (the control client's, closed
 *			after the port started)
 * @nxdp_fds:		How many in @xdp_fds (0 once the port runs)
 * @xdp_bound:		af_xdp: @xdp_fds were handed over by the previous
 *			vnetd, bound and settled (false once the port runs)
 * @xdp_txmd:		af_xdp: the UMEMs of @xdp_fds have TX metadata room
 *			(handed over: the previous vnetd's flag; `port add`:
 *			its xdp-txmd=; false once the port runs)
 * @gen_size:		gen: frame bytes, 0: the default
 * @queues:		Queue pairs (1..VNET_MAX_PAIRS)
 * @mac:		MAC for the config space
 * @mac_derived:	@mac was made up from the socket path (no mac=): the
 *		guest may well use another one
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
 * @sw:			switch: the --switch it joins ("": not a member)
 * @vlan:		switch: access VLAN (1..4094), 0 with @trunk_set
 * @trunk_set:		switch: a trunk port, of the VLANs in @trunk
 * @trunk:		switch: the trunk's VLANs
 * @police:		switch: the ingress policer (police-pps=, police-bps=,
 *			police-burst=; all 0: none)
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
	int xdp_fds[2 * VNET_MAX_PAIRS];
	unsigned int nxdp_fds;
	bool xdp_bound;
	bool xdp_txmd;
	unsigned int gen_size;
	unsigned int queues;
	uint8_t mac[6];
	bool mac_derived;
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
	struct sw_police_cfg police;
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
 * @sw_cli:		--switch names of the command line
 * @nsw_cli:		How many
 * @sw_conf:		--switch lines of --config (SIGHUP may change them)
 * @nsw_conf:		How many
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
	char sw_cli[VNETD_MAX_SWITCHES][VNETD_NAME_LEN];
	unsigned int nsw_cli;
	char sw_conf[VNETD_MAX_SWITCHES][VNETD_NAME_LEN];
	unsigned int nsw_conf;
};

#endif /* VNETD_CFG_H */
