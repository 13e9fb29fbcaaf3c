// SPDX-License-Identifier: MIT
/*
 * reload.c - ports at run time: `vnetctl port add|del|list` (requests on
 * the control socket, ctl.c) and SIGHUP (main.c), which re-reads --config
 * and applies only the differences. Parsing is port_spec.c's (the same
 * cli_port_parse()/cli_port_check() as --port and config lines); opening
 * and closing a port is port.c's. This file decides which slot of the
 * fixed port array (VNETD_MAX_PORTS) a port takes and whether a request
 * may change anything.
 *
 * Every request is checked whole before anything changes: a bad key or
 * value, a duplicate name or socket, no free slot, a socket outside the
 * directories the sandbox allows, an fd= or tap-fd= (fd numbers cannot be
 * passed over the control socket) all get one line of reason and change
 * nothing. A port that passes the checks and still fails to open (its
 * socket in use, a TAP it may not attach to) is closed again and its slot
 * stays free.
 *
 * SIGHUP only touches ports that came from --config: a port from the
 * command line or from `port add` is left alone (a config line with its
 * name or socket is refused, and the reload with it). A port whose line
 * is unchanged is not disturbed: its connection and workers stay up.
 * SIGHUP declares the switches of new "--switch NAME" lines before it
 * checks the ports (which may join them) and frees the switches of
 * removed lines after the ports stopped; removing a switch that a port
 * keeps using (a command line or `port add` port, or a config line) is
 * refused, and the reload with it. A switch of the command line stays.
 *
 * After the sandbox (sandbox.c) vnetd has no capabilities and Landlock
 * lets it create sockets only in the directories known at start: that of
 * --ctl-socket, /run/vnetd and those of the ports given at start. It
 * cannot create a TAP (no CAP_NET_ADMIN); it may attach to an existing
 * persistent TAP its user may open (vnetctl tap create NAME --user ...).
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "afxdp_room.h"
#include "cfg.h"
#include "config.h"
#include "host_switch.h"
#include "log.h"
#include "port.h"
#include "port_spec.h"
#include "reload.h"
#include "sbuf.h"
#include "sockets.h"
#include "spoof.h"
#include "util.h"
#include "vnetd.h"

/* #syscalls: socket bind listen connect fchmod fchownat chown fchown
 * #syscalls: umask unlink unlinkat mkdir mkdirat newfstatat fstat openat
 * #syscalls: read close timerfd_create epoll_ctl fcntl */

/**
 * struct reload_state - What the run-time changes work on (main thread)
 * @cfg:	The process configuration; cfg->ports[i] is slot i's
 * @ports:	The port array, VNETD_MAX_PORTS slots
 * @epfd:	Main loop's epoll descriptor
 * @nfirst:	Ports before the config file's at start (default names)
 * @dirs:	Directories sockets may be created in (sandbox on)
 * @ndirs:	How many
 */
static struct {
	struct vnetd_cfg *cfg;
	struct vnetd_port *ports;
	int epfd;
	unsigned int nfirst;
	char dirs[VNETD_MAX_PORTS + 2][VNETD_PATH_LEN];
	unsigned int ndirs;
} rl;

/* The next config (SIGHUP): large, so static */
static struct vnetd_cfg reload_next;

static void reload_add_dir(const char *file)
{
	char buf[VNETD_PATH_LEN];
	const char *d;
	unsigned int i;

	if (!file[0])
		return;
	snprintf(buf, sizeof(buf), "%s", file);
	d = dirname(buf);
	for (i = 0; i < rl.ndirs; i++)
		if (!strcmp(rl.dirs[i], d))
			return;
	if (rl.ndirs < ARRAY_SIZE(rl.dirs))
		snprintf(rl.dirs[rl.ndirs++], VNETD_PATH_LEN, "%s", d);
}

/**
 * reload_init() - Remember what run-time changes work on
 * @cfg:	Configuration, ports already started
 * @ports:	Port array (VNETD_MAX_PORTS)
 * @epfd:	Main loop's epoll descriptor
 *
 * Context: main thread, after setup, before the sandbox
 */
void reload_init(struct vnetd_cfg *cfg, struct vnetd_port *ports, int epfd)
{
	unsigned int i;
	int ret;

	rl.cfg = cfg;
	rl.ports = ports;
	rl.epfd = epfd;
	rl.ndirs = 0;
	rl.nfirst = 0;
	for (i = 0; i < cfg->nports; i++) {
		rl.nfirst += !cfg->ports[i].from_config;
		if (!cfg->ports[i].client)
			reload_add_dir(cfg->ports[i].socket);
	}
	reload_add_dir(cfg->ctl_path);
	reload_add_dir(SOCK_RUN_DIR "/x");
	/* Landlock can only be given a directory that exists: make it now */
	ret = cfg->sandbox && !geteuid() ? sock_run_dir(SOCK_RUN_DIR "/x") : 0;
	if (ret)
		log_warn("mkdir %s: %s: port add there will fail", SOCK_RUN_DIR,
			 strerror(-ret));
}

/**
 * reload_sock_dir_ok() - May a socket be created at @path after the sandbox?
 * @path:	Socket path
 *
 * Return: true with --sandbox off, or if @path's directory is one known
 *	   at start (see the top of this file)
 */
bool reload_sock_dir_ok(const char *path)
{
	char buf[VNETD_PATH_LEN];
	const char *d;
	unsigned int i;

	if (!rl.cfg->sandbox)
		return true;
	snprintf(buf, sizeof(buf), "%s", path);
	d = dirname(buf);
	for (i = 0; i < rl.ndirs; i++)
		if (!strcmp(rl.dirs[i], d))
			return true;
	return false;
}

static void reload_dirs_text(char *out, size_t len)
{
	size_t n = 0;
	unsigned int i;

	out[0] = '\0';
	for (i = 0; i < rl.ndirs && n < len; i++)
		n += (size_t)snprintf(out + n, len - n, "%s%s", i ? ", " : "",
				      rl.dirs[i]);
}

/*
 * The spec each slot's port was added with (`port add`), "" for a port of
 * the command line or --config: vnetctl upgrade hands it to the next
 * process, which adds the port again from it (upgrade.c). Indexed by slot.
 */
static char reload_specs[VNETD_MAX_PORTS][RELOAD_SPEC_LEN];

/**
 * reload_port_spec() - The spec a run-time port was added with
 * @slot:	Port slot
 *
 * Return: the spec (name= and a derived mac= explicit), NULL if the
 *	   slot's port came from the command line or --config
 */
const char *reload_port_spec(unsigned int slot)
{
	if (slot >= VNETD_MAX_PORTS || !reload_specs[slot][0])
		return NULL;
	return reload_specs[slot];
}

/**
 * reload_set_spec() - Note that @slot's port was added at run time
 * @slot:	Port slot
 * @spec:	Its spec, NULL or "": not a run-time port (any more)
 */
void reload_set_spec(unsigned int slot, const char *spec)
{
	if (slot < VNETD_MAX_PORTS)
		snprintf(reload_specs[slot], sizeof(reload_specs[slot]), "%s",
			 spec ? spec : "");
}

/*
 * @spec as given, with the name and MAC cli_port_check() chose by slot
 * made explicit: the next process may put the port in another slot.
 * Return: 0, -ENAMETOOLONG if that does not fit RELOAD_SPEC_LEN
 */
static int reload_note_spec(unsigned int slot, const char *spec,
			    bool named, const struct vnetd_port_cfg *pc)
{
	char *out = reload_specs[slot];
	const size_t len = sizeof(reload_specs[slot]);
	const uint8_t *m = pc->mac;
	int n;

	n = snprintf(out, len, "%s", spec);
	if (n >= 0 && !named && (size_t)n < len)
		n += snprintf(out + n, len - (size_t)n, ",name=%s", pc->name);
	if (n >= 0 && pc->mac_derived && (size_t)n < len)
		n += snprintf(out + n, len - (size_t)n,
			      ",mac=%02x:%02x:%02x:%02x:%02x:%02x",
			      m[0], m[1], m[2], m[3], m[4], m[5]);
	if (n < 0 || (size_t)n >= len) {
		out[0] = '\0';
		return -ENAMETOOLONG;
	}
	return 0;
}

static struct vnetd_port *reload_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < rl.cfg->nports; i++)
		if (rl.ports[i].used && !strcmp(rl.ports[i].cfg.name, name))
			return &rl.ports[i];
	return NULL;
}

/* A free slot (a freed one first), -1: all VNETD_MAX_PORTS in use */
static int reload_free_slot(void)
{
	unsigned int i;

	for (i = 0; i < rl.cfg->nports; i++)
		if (!rl.ports[i].used)
			return (int)i;
	return rl.cfg->nports < VNETD_MAX_PORTS ? (int)rl.cfg->nports : -1;
}

static unsigned int reload_used(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < rl.cfg->nports; i++)
		n += rl.ports[i].used;
	return n;
}

/*
 * Checks of one new port that need the running ones: @skip_config leaves
 * config ports out of the clash check (SIGHUP replaces them). Return: 0 or
 * -errno with @why set
 */
static int reload_check(const struct vnetd_port_cfg *pc, bool skip_config,
			struct reason *why)
{
	char dirs[256];
	unsigned int i;

	if (pc->fd >= 0 || pc->ntap_fds) {
		return reason_set(why, -EINVAL, "port %s: %s: only at start (a descriptor number cannot be passed over the control socket or a reload)",
				  pc->name, pc->fd >= 0 ? "fd=" : "tap-fd=");
	}
	if (!strcmp(pc->backend, "af_xdp") && !pc->nxdp_fds) {
		return reason_set(why, -EPERM, "port %s: backend=af_xdp at run time needs its AF_XDP sockets, one per queue pair (vnetd cannot make them or load the XDP program after setup: no CAP_NET_RAW, no bpf()): add the port with vnetctl port add as root, which makes and passes them, or restart vnetd with the port",
				  pc->name);
	}
	if (!strcmp(pc->backend, "tap") && !pc->tap[0]) {
		return reason_set(why, -EPERM, "port %s: backend=tap at run time needs tap=NAME of an existing persistent TAP (vnetd cannot create one after setup: no CAP_NET_ADMIN); create it first: vnetctl tap create NAME --user USER",
				  pc->name);
	}
	for (i = 0; i < rl.cfg->nports; i++) {
		const struct vnetd_port *p = &rl.ports[i];

		if (!p->used || (skip_config && p->cfg.from_config))
			continue;
		if (cli_port_clash(pc, &p->cfg, why))
			return -EEXIST;
	}
	if (!pc->client && !reload_sock_dir_ok(pc->socket)) {
		reload_dirs_text(dirs, sizeof(dirs));
		return reason_set(why, -EACCES, "port %s: socket %s: after the sandbox vnetd may create sockets only in %s (restart vnetd with the port, or use one of those)",
				  pc->name, pc->socket, dirs);
	}
	return 0;
}

/* Open @pc in slot @slot. Return: 0 or -errno with @why set */
static int reload_start(const struct vnetd_port_cfg *pc, unsigned int slot,
			struct reason *why)
{
	const struct vnetd_port_cfg *d = &rl.cfg->defaults;
	struct vnetd_port *p = &rl.ports[slot];
	struct vnetd_port_cfg plain;
	struct reason inner = { 0 };
	int ret;

	ret = port_init(p, pc, rl.epfd, &inner);
	/*
	 * The default socket group (kvm, when started as root) cannot be
	 * applied after the sandbox (no CAP_CHOWN): the socket keeps vnetd's
	 * group. One that was asked for (socket-group=) is an error.
	 */
	if (ret == -EPERM && pc->sock_gid == d->sock_gid &&
	    pc->sock_uid == d->sock_uid && (d->sock_gid >= 0 || d->sock_uid >= 0)) {
		port_cleanup(p);
		plain = *pc;
		plain.sock_uid = plain.sock_gid = -1;
		reason_clear(&inner);
		ret = port_init(p, &plain, rl.epfd, &inner);
		if (!ret)
			log_warn("port %s: socket %s keeps vnetd's group: the default socket group (gid %lld) needs CAP_CHOWN, gone after the sandbox (give socket-mode=, or start vnetd with the port)",
				 pc->name, pc->socket, (long long)d->sock_gid);
	}
	if (ret) {
		port_cleanup(p);
		return reason_set(why, ret, "port %s: %s%s", pc->name,
				  inner.msg[0] ? inner.msg : strerror(-ret),
				  !strcmp(pc->backend, "tap") &&
				  (ret == -EPERM || ret == -EACCES) ?
				  " (at run time vnetd cannot create a TAP: create it first with vnetctl tap create NAME --user USER)" :
				  "");
	}
	rl.cfg->ports[slot] = *pc;
	if (slot == rl.cfg->nports)
		rl.cfg->nports++;
	log_info("port %s: %s %s, backend %s, %u queue pair%s (slot %u)",
		 pc->name, pc->client ? "connecting to" : "listening on",
		 pc->socket, pc->backend, pc->queues,
		 pc->queues > 1 ? "s" : "", slot);
	return 0;
}

static void reload_stop(struct vnetd_port *p, const char *why)
{
	log_info("port %s: stopped (%s)", p->cfg.name, why);
	port_cleanup(p);
	reload_set_spec((unsigned int)(p - rl.ports), NULL);
}

/*
 * The descriptors that came with `port add`: AF_XDP sockets and their UMEM
 * memfds for an af_xdp port, which needs them (after setup vnetd cannot make the sockets nor
 * load the program: no CAP_NET_RAW, no bpf()), and @room bytes of TX
 * metadata room in those UMEMs (xdp-txmd=, afxdp_room.h), which only they
 * can have. Return: 0 or -errno, @why set
 */
static int reload_take_fds(struct vnetd_port_cfg *pc, const int *fds,
			   unsigned int nfds, unsigned int room,
			   struct reason *why)
{
	bool xdp = !strcmp(pc->backend, "af_xdp");

	if (nfds && !xdp)
		return reason_set(why, -EINVAL, "port %s: %u descriptors passed: only backend=af_xdp takes descriptors (its AF_XDP sockets)",
				  pc->name, nfds);
	if (xdp && nfds && nfds != 2 * pc->queues)
		return reason_set(why, -EINVAL, "port %s: %u descriptors passed for queues=%u: pass an AF_XDP socket and its UMEM memfd per queue pair",
				  pc->name, nfds, pc->queues);
	if (room && !nfds)
		return reason_set(why, -EINVAL, "port %s: %s=%u: only with the AF_XDP sockets and UMEMs passed with the request (vnetctl port add ...backend=af_xdp adds it): leave it out",
				  pc->name, AFXDP_ROOM_KEY, room);
	memcpy(pc->xdp_fds, fds, nfds * sizeof(*fds));
	pc->nxdp_fds = nfds;
	pc->xdp_txmd = room != 0;
	return 0;
}

/**
 * reload_port_add() - `port add KEY=VAL,...`: check, then start a port
 * @b:		Reply: "ok: ..." or "error: port add...: reason"
 * @spec:	The port spec, as for --port, and for backend=af_xdp the
 *		request key xdp-txmd= (afxdp_room.h), taken off here
 * @fds:	Descriptors passed with the request (the caller closes them)
 * @nfds:	How many: an AF_XDP socket and its UMEM memfd per pair for
 *		backend=af_xdp, else 0
 *
 * Context: main thread (control socket)
 */
void reload_port_add(struct sbuf *b, const char *spec, const int *fds,
		     unsigned int nfds)
{
	char text[CLI_SPEC_MAX];
	struct vnetd_port_cfg pc;
	struct reason why = { 0 };
	unsigned int room;
	bool named;
	int slot;

	snprintf(text, sizeof(text), "%s", spec);	/* ctl.c: < 1024 B */
	if (afxdp_room_take(text, &room, &why)) {
		sbuf_printf(b, "error: port add: %s\n", why.msg);
		return;
	}
	if (cli_port_parse(&pc, &rl.cfg->defaults, text, ",", &why)) {
		sbuf_printf(b, "error: port add%s\n", why.msg);
		return;
	}
	named = pc.name[0];
	if (nfds > 2 * VNET_MAX_PAIRS)
		nfds = 2 * VNET_MAX_PAIRS;	/* ctl.c keeps no more */
	slot = reload_free_slot();
	if (slot < 0) {
		sbuf_printf(b, "error: port add: too many ports (at most %d): remove one first (vnetctl port del NAME)\n",
			       VNETD_MAX_PORTS);
		return;
	}
	if (cli_port_check(&pc, (unsigned int)slot, &why) ||
	    reload_take_fds(&pc, fds, nfds, room, &why) ||
	    reload_check(&pc, false, &why) ||
	    reload_start(&pc, (unsigned int)slot, &why)) {
		log_warn("control socket: port add refused: %s", why.msg);
		sbuf_printf(b, "error: port add: %s\n", why.msg);
		return;
	}
	/* the host side holds duplicates; ctl.c closes these */
	rl.cfg->ports[slot].nxdp_fds = 0;
	rl.ports[slot].cfg.nxdp_fds = 0;
	rl.cfg->ports[slot].xdp_txmd = rl.ports[slot].cfg.xdp_txmd = false;
	/* without xdp-txmd=: the next vnetd learns the room from the
	 * hand-over (upgrade.c), and parses the spec as a port spec */
	if (reload_note_spec((unsigned int)slot, text, named, &pc))
		log_warn("port %s: its spec with name= and mac= is over %d bytes: vnetctl upgrade will refuse while it exists",
			 pc.name, RELOAD_SPEC_LEN - 1);
	sbuf_printf(b, "ok: port %s added (%s %s)\n", pc.name,
		       pc.client ? "connecting to" : "listening on", pc.socket);
}

/**
 * reload_port_del() - `port del NAME`: stop a port, free its slot
 * @b:		Reply
 * @name:	Port name
 *
 * Context: main thread (control socket)
 */
void reload_port_del(struct sbuf *b, const char *name)
{
	struct vnetd_port *p = reload_find(name);

	if (!p) {
		sbuf_printf(b, "error: port del %.64s: no such port (vnetctl port list shows them)\n",
			       name);
		return;
	}
	reload_stop(p, "port del");
	sbuf_printf(b, "ok: port %s removed\n", name);
}

/**
 * reload_port_list() - `port list`: one line per running port
 * @b:		Reply: "NAME socket=PATH backend=B queues=N from=WHERE STATE"
 *
 * Context: main thread (control socket)
 */
void reload_port_list(struct sbuf *b)
{
	unsigned int i;

	for (i = 0; i < rl.cfg->nports; i++) {
		const struct vnetd_port *p = &rl.ports[i];

		if (!p->used)
			continue;
		sbuf_printf(b, "%s socket=%s backend=%s queues=%u from=%s %s\n",
			       p->cfg.name, p->cfg.socket[0] ? p->cfg.socket : "(fd)",
			       p->cfg.backend, p->cfg.queues,
			       p->cfg.from_config ? "config" : "start-or-add",
			       port_connected(p) ? "connected" :
			       p->cfg.client ? "connecting" : "listening");
	}
	if (!reload_used())
		sbuf_printf(b, "(no ports)\n");
}

/* Is @name one of the @n names of @list? */
static bool reload_sw_in(const char (*list)[VNETD_NAME_LEN], unsigned int n,
			 const char *name)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(list[i], name))
			return true;
	return false;
}

/* Is switch @name gone after the reload to @n (a config line, not cli)? */
static bool reload_sw_gone(const struct vnetd_cfg *n, const char *name)
{
	return !reload_sw_in((const char (*)[VNETD_NAME_LEN])n->sw_conf,
			     n->nsw_conf, name) &&
	       !reload_sw_in((const char (*)[VNETD_NAME_LEN])rl.cfg->sw_cli,
			     rl.cfg->nsw_cli, name);
}

/*
 * SIGHUP step 0: the --switch lines. A removed switch that a port keeps
 * using after the reload refuses it; the new ones are declared (so the
 * ports' check finds them), their names in @added. Return: 0 or -errno
 * with @why set (then nothing changed)
 */
static int reload_switches(const struct vnetd_cfg *n, struct reason *why,
			   char (*added)[VNETD_NAME_LEN], unsigned int *nadded)
{
	struct reason inner = { 0 };
	unsigned int i, k;
	const char *s;
	int ret;

	*nadded = 0;
	for (i = 0; i < rl.cfg->nsw_conf; i++) {
		s = rl.cfg->sw_conf[i];
		if (!reload_sw_gone(n, s))
			continue;
		for (k = 0; k < n->nports; k++)
			if (!strcmp(n->ports[k].sw, s))
				return reason_set(why, -EBUSY, "--switch %s: removed, but port %s of --config still joins it (switch=%s): move or remove the port too",
						  s, n->ports[k].name, s);
		for (k = 0; k < VNETD_MAX_PORTS; k++)
			if (rl.ports[k].used && !rl.ports[k].cfg.from_config &&
			    !strcmp(rl.ports[k].cfg.sw, s))
				return reason_set(why, -EBUSY, "--switch %s: removed, but port %s (command line or port add) is on it: remove it first (vnetctl port del %s)",
						  s, rl.ports[k].cfg.name, rl.ports[k].cfg.name);
	}
	for (i = 0; i < n->nsw_conf; i++) {
		if (host_switch_find(n->sw_conf[i]))
			continue;
		ret = host_switch_declare(n->sw_conf[i], &inner);
		if (ret) {
			while (*nadded)
				host_switch_remove(added[--*nadded]);
			return reason_set(why, ret, "--switch %s: %s", n->sw_conf[i],
					  inner.msg);
		}
		snprintf(added[(*nadded)++], VNETD_NAME_LEN, "%s", n->sw_conf[i]);
	}
	return 0;
}

/* SIGHUP after the ports changed: free the switches whose lines went */
static void reload_switches_done(const struct vnetd_cfg *n)
{
	unsigned int i;

	for (i = 0; i < rl.cfg->nsw_conf; i++) {
		if (!reload_sw_gone(n, rl.cfg->sw_conf[i]))
			continue;
		if (host_switch_remove(rl.cfg->sw_conf[i]))
			log_warn("SIGHUP: --switch %s: removed from --config, but a port is still on it: kept",
				 rl.cfg->sw_conf[i]);
		else
			log_info("SIGHUP: --switch %s: removed", rl.cfg->sw_conf[i]);
	}
	memcpy(rl.cfg->sw_conf, n->sw_conf, sizeof(n->sw_conf));
	rl.cfg->nsw_conf = n->nsw_conf;
}

/*
 * SIGHUP step 1: give every line of @n its defaults and check it against
 * the others and the ports SIGHUP does not own; a line for a running
 * config port keeps that port's MAC unless it names one. Return: 0 or
 * -errno with @why set (then nothing changes)
 */
static int reload_plan(struct vnetd_cfg *n, struct reason *why)
{
	unsigned int k, j, used = reload_used(), adds = 0, dels = 0;
	struct vnetd_port *old;

	for (k = 0; k < n->nports; k++) {
		struct vnetd_port_cfg *pc = &n->ports[k];
		bool mac_given = pc->mac[0] | pc->mac[1] | pc->mac[2] |
				 pc->mac[3] | pc->mac[4] | pc->mac[5];

		if (cli_port_check(pc, rl.nfirst + k, why))
			return -EINVAL;
		for (j = 0; j < k; j++)
			if (cli_port_clash(pc, &n->ports[j], why))
				return -EEXIST;
		old = reload_find(pc->name);
		if (old && old->cfg.from_config && !mac_given) {
			memcpy(pc->mac, old->cfg.mac, sizeof(pc->mac));
			/* the policy was finished with the slot's MAC */
			spoof_set_mac(&pc->wopts.spoof, pc->mac);
		}
		/* socket activation gave it its fd at start: the line cannot */
		if (old && old->cfg.from_config && old->cfg.fd >= 0 &&
		    pc->fd < 0 && !pc->socket[0] == !old->cfg.socket[0]) {
			pc->fd = old->cfg.fd;
			if (!cli_port_same(pc, &old->cfg)) {
				return reason_set(why, -EBUSY, "port %s: its socket was inherited (fd %d, socket activation): changing it needs a restart of vnetd",
						  pc->name, pc->fd);
			}
		}
		if (old && old->cfg.from_config && cli_port_same(pc, &old->cfg))
			continue;
		if (reload_check(pc, true, why))
			return -EINVAL;
		adds += !old;
	}
	for (j = 0; j < rl.cfg->nports; j++) {
		if (!rl.ports[j].used || !rl.ports[j].cfg.from_config)
			continue;
		for (k = 0; k < n->nports; k++)
			if (!strcmp(n->ports[k].name, rl.ports[j].cfg.name))
				break;
		dels += k == n->nports;
	}
	if (used - dels + adds > VNETD_MAX_PORTS) {
		return reason_set(why, -ENOSPC, "%u ports after the reload: at most %d",
				  used - dels + adds, VNETD_MAX_PORTS);
	}
	return 0;
}

/* SIGHUP step 2: stop the removed and changed ports, start the new ones */
static void reload_apply(const struct vnetd_cfg *n)
{
	unsigned int k, j, added = 0, removed = 0, restarted = 0, kept = 0;
	unsigned int failed = 0;
	struct reason why = { 0 };
	struct vnetd_port *old;
	int slot;

	for (j = 0; j < rl.cfg->nports; j++) {
		struct vnetd_port *p = &rl.ports[j];

		if (!p->used || !p->cfg.from_config)
			continue;
		for (k = 0; k < n->nports; k++)
			if (!strcmp(n->ports[k].name, p->cfg.name))
				break;
		if (k == n->nports) {
			reload_stop(p, "removed from --config");
			removed++;
		} else if (!cli_port_same(&n->ports[k], &p->cfg)) {
			reload_stop(p, "changed in --config, restarting");
			restarted++;
		}
	}
	for (k = 0; k < n->nports; k++) {
		old = reload_find(n->ports[k].name);
		if (old) {
			kept++;
			continue;
		}
		slot = reload_free_slot();
		if (slot >= 0 &&
		    !reload_start(&n->ports[k], (unsigned int)slot, &why)) {
			added++;
			continue;
		}
		failed++;
		log_err("SIGHUP: %s", slot < 0 ? "no free port slot" : why.msg);
	}
	log_info("SIGHUP: --config %s applied: %u added, %u restarted, %u removed, %u untouched, %u failed",
		 rl.cfg->config_path, added - MIN(added, restarted), restarted,
		 removed, kept, failed);
}

/**
 * reload_config() - SIGHUP: re-read --config, apply only the differences
 *
 * Added lines start, removed ones stop, changed ones restart, unchanged
 * ones are not disturbed. A file that does not parse or check changes
 * nothing (one log line says why).
 *
 * Context: main thread
 */
void reload_config(void)
{
	static char added[VNETD_MAX_SWITCHES][VNETD_NAME_LEN];
	struct vnetd_cfg *n = &reload_next;
	struct reason why = { 0 };
	unsigned int nadded = 0;

	if (!rl.cfg->config_path) {
		log_warn("SIGHUP: no --config to re-read: nothing changed");
		return;
	}
	memset(n, 0, sizeof(*n));
	if (cli_config_read(n, &rl.cfg->defaults, rl.cfg->config_path, &why) ||
	    reload_switches(n, &why, added, &nadded)) {
		log_err("SIGHUP: %s: nothing changed", why.msg);
		return;
	}
	if (reload_plan(n, &why)) {
		while (nadded)
			host_switch_remove(added[--nadded]);
		log_err("SIGHUP: %s: nothing changed", why.msg);
		return;
	}
	reload_apply(n);
	reload_switches_done(n);
}
