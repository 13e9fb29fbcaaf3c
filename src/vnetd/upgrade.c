// SPDX-License-Identifier: MIT
/*
 * upgrade.c - hand every port of a running vnetd to a new vnetd binary
 * without the frontends noticing (docs/vnetd.md "Upgrading without
 * downtime"). The old process cannot start the new one (its sandbox has
 * no execve, and a child would inherit the sandbox), so `vnetctl upgrade`
 * starts `NEW --takeover CTL [--report-fd N]` and the two meet on the old
 * one's control socket:
 *
 *	new -> old	"upgrade\n" (a control request: root or vnetd's uid)
 *	old -> new	H: its pid and command line (NUL-separated)
 *	new -> old	G: parsed it, ready to receive
 *	old		parks every worker at a ring boundary (nothing in
 *			flight, every used index published)
 *	old -> new	S: the state (upgrade_state.h), then F: its
 *			descriptors, UPGRADE_FDS_PER_MSG per SCM_RIGHTS message
 *	new		rebuilds every port, workers still parked
 *	new -> old	R: ready (or E: the reason it refused)
 *	old -> new	K: committed; the old process exits 0 at once,
 *			closing nothing the frontend could see
 *	new		lets its workers go; serves
 *
 * Anything but R within UPGRADE_STEP_MS (an E, the new process exiting,
 * a timeout) makes the old process let its workers go again: every port
 * resumes exactly where it stopped, one log line says why, and the
 * control client's reply carries the reason. The new process exits
 * without touching a socket file if it gets anything but K.
 *
 * Security model: the new process trusts the old one no more than a
 * frontend (another binary wrote the state): upgrade_state_decode() checks
 * framing and indices, the device replay checks the rest. The old process
 * serves this request only to root or its own uid (ctl.c), like port add.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>

#include "cfg.h"
#include "conn.h"
#include "log.h"
#include "net.h"
#include "port.h"
#include "port_spec.h"
#include "ports.h"
#include "reload.h"
#include "sbuf.h"
#include "sd_notify.h"
#include "upgrade.h"
#include "upgrade_state.h"
#include "vnetd.h"
#include "vu_dev_upgrade.h"

_Static_assert(RELOAD_SPEC_LEN == UPGRADE_SPEC_LEN, "a run-time port's spec");

/* #syscalls: sendmsg recvmsg poll ppoll exit_group getpid dup2 dup3 */

#define UPGRADE_STEP_MS		5000	/* each wait on the other process */
#define UPGRADE_DRAIN_MS	100	/* a loop guest short of RX buffers, all ports */
#define UPGRADE_FDS_PER_MSG	253	/* SCM_MAX_FD */
#define UPGRADE_ARGV_MAX	65536

enum upgrade_frame {
	UPG_HELLO = 'H',
	UPG_GO = 'G',
	UPG_STATE = 'S',
	UPG_FDS = 'F',
	UPG_READY = 'R',
	UPG_OK = 'K',
	UPG_ERROR = 'E',
};

static struct {
	int argc;
	char **argv;		/* this process's command line (old side) */
	int ctl_fd;
	int http_fd;
	/* new side */
	bool active;
	int chan;		/* the channel to the old process */
	int report_fd;		/* vnetctl's pipe, -1: none */
	pid_t old_pid;
	uint64_t go_ms;
	unsigned int nports;
	unsigned int drain_left[VNETD_MAX_PORTS];	/* old side: upgrade_drain() */
	char *new_argv[256];
	char argv_buf[UPGRADE_ARGV_MAX];
} upg = { .ctl_fd = -1, .http_fd = -1, .chan = -1, .report_fd = -1 };

/* -------- blocking I/O with a deadline on a non-blocking socket -------- */

static int upgrade_wait(int fd, short ev, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = ev };
	uint64_t now = vu_conn_now_ms();
	int n;

	if (now >= deadline)
		return -ETIMEDOUT;
	n = poll(&p, 1, (int)(deadline - now));
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	return n ? 0 : -ETIMEDOUT;
}

static int upgrade_send(int fd, const void *buf, size_t len, const int *fds,
		    unsigned int nfds, uint64_t deadline)
{
	char control[CMSG_SPACE(UPGRADE_FDS_PER_MSG * sizeof(int))];
	size_t done = 0;
	int ret;

	while (done < len) {
		struct iovec iov = { (char *)buf + done, len - done };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n;

		if (nfds && !done) {
			struct cmsghdr *cm;

			memset(control, 0, sizeof(control));
			mh.msg_control = control;
			mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
			cm = CMSG_FIRSTHDR(&mh);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
			memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
		}
		n = sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		ret = upgrade_wait(fd, POLLOUT, deadline);
		if (ret)
			return ret;
	}
	return 0;
}

/* Read exactly @len bytes; descriptors that come along go to @fds */
static int upgrade_recv(int fd, void *buf, size_t len, int *fds,
		    unsigned int *nfds, unsigned int max_fds, uint64_t deadline)
{
	char control[CMSG_SPACE(UPGRADE_FDS_PER_MSG * sizeof(int))];
	size_t done = 0;
	int ret;

	while (done < len) {
		struct iovec iov = { (char *)buf + done, len - done };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = control,
				     .msg_controllen = sizeof(control) };
		struct cmsghdr *cm;
		ssize_t n;

		n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		if (n < 0) {
			ret = upgrade_wait(fd, POLLIN, deadline);
			if (ret)
				return ret;
			continue;
		}
		done += (size_t)n;
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			unsigned int k, got;
			int *in = (int *)CMSG_DATA(cm);

			if (cm->cmsg_level != SOL_SOCKET ||
			    cm->cmsg_type != SCM_RIGHTS)
				continue;
			got = (unsigned int)((cm->cmsg_len - CMSG_LEN(0)) /
					     sizeof(int));
			for (k = 0; k < got; k++) {
				if (fds && *nfds < max_fds)
					fds[(*nfds)++] = in[k];
				else
					close(in[k]);	/* not asked for */
			}
		}
		if (mh.msg_flags & MSG_CTRUNC)
			return -EMSGSIZE;
	}
	return 0;
}

static int upgrade_send_frame(int fd, enum upgrade_frame type, const void *p,
			  uint32_t len, uint64_t deadline)
{
	uint32_t h[2] = { type, len };
	int ret;

	ret = upgrade_send(fd, h, sizeof(h), NULL, 0, deadline);
	if (!ret && len)
		ret = upgrade_send(fd, p, len, NULL, 0, deadline);
	return ret;
}

/* A frame header; an E frame's text is read into @why */
static int upgrade_recv_frame(int fd, uint32_t *type, uint32_t *len,
			  struct reason *why, uint64_t deadline)
{
	uint32_t h[2];
	char text[REASON_LEN];
	int ret;

	ret = upgrade_recv(fd, h, sizeof(h), NULL, NULL, 0, deadline);
	if (ret)
		return reason_set(why, ret, "%s", ret == -ECONNRESET ?
				  "the other process closed the channel" :
				  ret == -ETIMEDOUT ? "the other process did not answer in time" :
				  strerror(-ret));
	*type = h[0];
	*len = h[1];
	if (*type != UPG_ERROR)
		return 0;
	if (*len >= sizeof(text))
		return reason_set(why, -EPROTO, "error frame of %u bytes", *len);
	ret = upgrade_recv(fd, text, *len, NULL, NULL, 0, deadline);
	text[ret ? 0 : *len] = '\0';
	return reason_set(why, -ECANCELED, "%s", text);
}

static int upgrade_expect(int fd, enum upgrade_frame want, uint32_t *len,
		      struct reason *why, uint64_t deadline)
{
	uint32_t type, n;
	int ret;

	ret = upgrade_recv_frame(fd, &type, &n, why, deadline);
	if (ret)
		return ret;
	if (type != want)
		return reason_set(why, -EPROTO, "frame %#x where %c was expected",
				  type, want);
	if (len)
		*len = n;
	else if (n)
		return reason_set(why, -EPROTO, "frame %c with %u bytes", want, n);
	return 0;
}

/* -------- old side -------- */

/**
 * upgrade_init() - Remember what a later hand-over passes on
 * @argc:	main()'s argc
 * @argv:	main()'s argv (after upgrade_begin(): the command line this
 *		process runs with)
 * @ctl_fd:	Control socket, -1: none
 * @http_fd:	--metrics-listen socket, -1: none
 */
void upgrade_init(int argc, char **argv, int ctl_fd, int http_fd)
{
	upg.argc = argc;
	upg.argv = argv;
	upg.ctl_fd = ctl_fd;
	upg.http_fd = http_fd;
}

/*
 * The port's host queues that pass as more than a queue fd (af_xdp: per
 * pair the socket and its UMEM), each settled by the host side first
 */
static int upgrade_export_xsk(struct vnetd_port *p, struct upgrade_state *st,
			      struct upgrade_port *o, struct reason *why)
{
	const struct host_ops *ops = p->host.ops;
	unsigned int i, dropped = 0;
	struct host_handover h;
	struct reason inner;
	int ret;

	for (i = 0; ops && ops->hand_over && i < p->cfg.queues; i++) {
		reason_clear(&inner);
		memset(&h, 0, sizeof(h));
		ret = ops->hand_over(&p->host, i, &h, &inner);
		dropped += h.dropped;
		if (ret)
			break;
		o->xsk[i].sock_fd = upgrade_state_add_fd(st, h.fds[0]);
		o->xsk[i].umem_fd = upgrade_state_add_fd(st, h.fds[1]);
		o->xsk[i].qid = h.qid;
		o->xsk[i].flags = (h.zerocopy ? UPGRADE_XSK_ZEROCOPY : 0) |
				  (h.txmd ? UPGRADE_XSK_TXMD : 0);
		o->nxsk = i + 1;
		if (o->xsk[i].sock_fd < 0 || o->xsk[i].umem_fd < 0) {
			ret = reason_set(&inner, -EMFILE, "more than %u descriptors to hand over",
					 UPGRADE_MAX_FDS);
			break;
		}
	}
	/* gone either way: they were off the kernel's ring */
	if (dropped)
		log_warn("port %s: %u frame%s for the guest dropped at the hand-over: no RX buffer for them",
			 p->cfg.name, dropped, dropped == 1 ? "" : "s");
	if (ops && ops->hand_over && i < p->cfg.queues)
		return reason_set(why, ret, "port %s: %s", p->cfg.name, inner.msg);
	return 0;
}

static int upgrade_export_port(struct vnetd_port *p, struct upgrade_state *st,
			   struct reason *why)
{
	struct upgrade_port *o = &st->ports[st->nports];
	const struct host_ops *ops = p->host.ops;
	unsigned int i;
	int ret, fd;

	memset(o, 0, sizeof(*o));
	snprintf(o->name, sizeof(o->name), "%s", p->cfg.name);
	snprintf(o->spec, sizeof(o->spec), "%s",
		 reload_port_spec(ports_slot(p)) ?: "");
	o->queues = p->cfg.queues;
	o->flags = p->cfg.client ? UPGRADE_P_CLIENT : 0;
	o->listen_fd = upgrade_state_add_fd(st, p->listen_fd);
	o->conn_fd = -1;
	for (i = 0; ops && ops->queue_fd && i < p->cfg.queues; i++) {
		fd = ops->queue_fd(&p->host, i);
		if (fd < 0)
			break;
		o->qfds[o->nqfds++] = upgrade_state_add_fd(st, fd);
	}
	if (o->nqfds && o->nqfds != o->queues)
		return reason_set(why, -EINVAL, "port %s: backend has %u queue fds for %u pairs",
				  p->cfg.name, o->nqfds, o->queues);
	ret = upgrade_export_xsk(p, st, o, why);
	if (ret)
		return ret;
	if (port_connected(p)) {
		o->flags |= UPGRADE_P_CONNECTED;
		o->conn_fd = upgrade_state_add_fd(st, vu_dev_sock(p->dev));
		ret = vu_dev_export(p->dev, st, &o->dev, why);
		if (ret) {
			char msg[REASON_LEN];

			snprintf(msg, sizeof(msg), "%s", why->msg);
			return reason_set(why, ret, "port %s: %s", p->cfg.name, msg);
		}
	}
	if (o->listen_fd < -1 || o->conn_fd < -1)
		return reason_set(why, -EMFILE, "more than %u descriptors to hand over",
				  UPGRADE_MAX_FDS);
	st->nports++;
	return 0;
}

/*
 * Frames a loop port's guest sent itself wait in our memory: into its RX
 * rings first (vu_dev_drain_host()). A guest short of RX buffers is given
 * UPGRADE_DRAIN_MS in all, for every port together, to read what it got
 * and post more (the workers stay parked meanwhile). What still waits
 * then is noted in upg.drain_left: lost if the hand-over commits
 * (upgrade_log_dropped()), delivered later if it fails and we go on.
 */
static void upgrade_drain(void)
{
	uint64_t end = vu_conn_now_ms() + UPGRADE_DRAIN_MS;
	unsigned int i, n, waiting;
	struct vnetd_port *ports = ports_get(&n);
	struct net_scratch *s = malloc(sizeof(*s));

	memset(upg.drain_left, 0, sizeof(upg.drain_left));
	if (!s || net_scratch_init(s)) {
		free(s);
		log_warn("upgrade: out of memory for the drain: frames a loop port holds for its guest are dropped at the hand-over");
		return;
	}
	n = MIN(n, VNETD_MAX_PORTS);
	for (;;) {
		waiting = 0;
		for (i = 0; i < n; i++) {
			upg.drain_left[i] = ports[i].used &&
					    port_connected(&ports[i]) ?
					    vu_dev_drain_host(ports[i].dev, s) : 0;
			waiting += upg.drain_left[i];
		}
		if (!waiting || vu_conn_now_ms() >= end)
			break;
		(void)poll(NULL, 0, 1);
	}
	net_scratch_cleanup(s);
	free(s);
}

/*
 * Committed: one line per port whose guest had no RX buffer for its
 * frames. A host that hands its queues over (af_xdp) counted the frames
 * it dropped exactly when it settled them (upgrade_export_xsk()), so it
 * gets no second, coarser line here.
 */
static void upgrade_log_dropped(void)
{
	unsigned int i, n, left;
	struct vnetd_port *ports = ports_get(&n);

	n = MIN(n, VNETD_MAX_PORTS);
	for (i = 0; i < n; i++) {
		left = upg.drain_left[i];
		if (left && !(ports[i].host.ops && ports[i].host.ops->hand_over))
			log_warn("port %s: frames for the guest on %u queue pair%s dropped at the hand-over: no RX buffer for them in %d ms",
				 ports[i].cfg.name, left, left == 1 ? "" : "s",
				 UPGRADE_DRAIN_MS);
	}
}

static int upgrade_build(struct upgrade_state *st, struct reason *why)
{
	unsigned int i, n;
	struct vnetd_port *ports = ports_get(&n);
	int ret;

	upgrade_drain();
	upgrade_state_init(st);
	st->ctl_fd = upgrade_state_add_fd(st, upg.ctl_fd);
	st->http_fd = upgrade_state_add_fd(st, upg.http_fd);
	st->log_fd = upgrade_state_add_fd(st, STDERR_FILENO);
	for (i = 0; i < n; i++) {
		if (!ports[i].used)
			continue;
		ret = upgrade_export_port(&ports[i], st, why);
		if (ret)
			return ret;
	}
	return 0;
}

static void upgrade_quiesce(bool on)
{
	unsigned int i, n;
	struct vnetd_port *ports = ports_get(&n);

	for (i = 0; i < n; i++) {
		if (!ports[i].used || !ports[i].dev)
			continue;
		if (on)
			vu_dev_quiesce(ports[i].dev);
		else
			vu_dev_unquiesce(ports[i].dev);
	}
}

static int upgrade_send_state(int fd, struct upgrade_state *st, uint64_t deadline,
			  struct reason *why)
{
	size_t len = 0, cap = upgrade_state_max_len();
	uint8_t *buf = malloc(cap);
	uint32_t i, n, hdr[2] = { UPG_FDS, 0 };
	int ret;

	if (!buf)
		return reason_set(why, -ENOMEM, "no memory for the state");
	ret = upgrade_state_encode(st, buf, cap, &len);
	if (!ret)
		ret = upgrade_send_frame(fd, UPG_STATE, buf, (uint32_t)len, deadline);
	free(buf);
	for (i = 0; !ret && i < st->nfds; i += n) {
		n = st->nfds - i < UPGRADE_FDS_PER_MSG ? st->nfds - i :
							UPGRADE_FDS_PER_MSG;
		hdr[1] = n;
		ret = upgrade_send(fd, hdr, sizeof(hdr), &st->fds[i], n, deadline);
	}
	if (ret)
		return reason_set(why, ret, "sending the state: %s", strerror(-ret));
	return 0;
}

/* The hand-over itself, the workers parked; returns only on failure */
static int upgrade_hand_over(int fd, pid_t pid, uint64_t t0, uint64_t tq,
			 struct reason *why)
{
	struct upgrade_state *st = calloc(1, sizeof(*st));
	uint64_t deadline = vu_conn_now_ms() + UPGRADE_STEP_MS;
	int ret;

	if (!st)
		return reason_set(why, -ENOMEM, "no memory for the state");
	ret = upgrade_build(st, why);
	if (!ret)
		ret = upgrade_send_state(fd, st, deadline, why);
	if (!ret)
		ret = upgrade_expect(fd, UPG_READY, NULL, why, deadline);
	if (ret) {
		/* an E from the new process already says why */
		free(st);
		return ret;
	}
	/* Committed: from here on the new process serves every ring */
	(void)upgrade_send_frame(fd, UPG_OK, NULL, 0, deadline);
	upgrade_log_dropped();
	log_info("upgrade: %u port%s handed to pid %d in %" PRIu64 " ms (workers parked %" PRIu64 " ms); exiting",
		 st->nports, st->nports == 1 ? "" : "s", (int)pid,
		 vu_conn_now_ms() - t0, vu_conn_now_ms() - tq);
	/* no cleanup, no atexit or sanitizer hook: it all is the new one's */
	fflush(NULL);
	_exit(0);
}

static int upgrade_hello(int fd, uint64_t deadline)
{
	static char buf[UPGRADE_ARGV_MAX];
	size_t len, n;
	int i;

	/* our pid first: the control socket's SO_PEERCRED is its creator's */
	len = (size_t)snprintf(buf, sizeof(buf), "%d", (int)getpid()) + 1;
	for (i = 0; i < upg.argc; i++) {
		n = strlen(upg.argv[i]) + 1;
		if (len + n > sizeof(buf))
			return -E2BIG;
		memcpy(buf + len, upg.argv[i], n);
		len += n;
	}
	return upgrade_send_frame(fd, UPG_HELLO, buf, (uint32_t)len, deadline);
}

/**
 * upgrade_serve() - Hand every port to the process at the other end of a
 *		     control connection (its "upgrade" request)
 * @fd:		Control client socket (non-blocking), the caller's
 * @b:		Reply for the control client on failure
 *
 * Blocks the main loop for the hand-over (each wait at most
 * UPGRADE_STEP_MS). Does not return if the new process took over.
 *
 * Context: main thread
 */
void upgrade_serve(int fd, struct sbuf *b)
{
	uint64_t t0 = vu_conn_now_ms(), tq;
	pid_t pid = conn_peer_pid(fd);
	struct reason why = { 0 };
	int ret;

	log_info("upgrade: pid %d asks to take over", (int)pid);
	ret = upgrade_hello(fd, t0 + UPGRADE_STEP_MS);
	if (ret) {
		reason_set(&why, ret, "sending the command line: %s", strerror(-ret));
		goto out;
	}
	ret = upgrade_expect(fd, UPG_GO, NULL, &why, t0 + UPGRADE_STEP_MS);
	if (ret)
		goto out;
	tq = vu_conn_now_ms();	/* from the first worker parked */
	upgrade_quiesce(true);
	ret = upgrade_hand_over(fd, pid, t0, tq, &why);
	upgrade_quiesce(false);
	/* tell a new process that still listens; it exits on anything but K */
	(void)upgrade_send_frame(fd, UPG_ERROR, why.msg, (uint32_t)strlen(why.msg),
			     vu_conn_now_ms() + 100);
	log_warn("upgrade by pid %d failed: %s; every port resumed as before",
		 (int)pid, why.msg);
	sbuf_printf(b, "error: upgrade: %s\n", why.msg);
	return;
out:
	log_warn("upgrade by pid %d failed before the hand-over: %s; nothing changed",
		 (int)pid, why.msg);
	sbuf_printf(b, "error: upgrade: %s\n", why.msg);
}

/* -------- new side -------- */

static void upgrade_report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One line to vnetctl's pipe (once), then the pipe is closed */
static void upgrade_report(const char *fmt, ...)
{
	char line[REASON_LEN + 64];
	va_list ap;
	int n;

	if (upg.report_fd < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0 && write(upg.report_fd, line,
			   (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1) < 0)
		n = 0;
	close(upg.report_fd);
	upg.report_fd = -1;
}

static int upgrade_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    conn_nonblock(fd)) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

/* The control socket answered text ("error: ...") instead of H */
static int upgrade_text_reply(uint32_t type, uint32_t len, struct reason *why,
			  uint64_t deadline)
{
	char text[REASON_LEN];
	size_t got = 8;
	ssize_t n;

	memcpy(text, &type, 4);
	memcpy(text + 4, &len, 4);
	while (got < sizeof(text) - 1 && !upgrade_wait(upg.chan, POLLIN, deadline)) {
		n = recv(upg.chan, text + got, sizeof(text) - 1 - got, MSG_DONTWAIT);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	text[got] = '\0';
	text[strcspn(text, "\n")] = '\0';
	if (!strncmp(text, "error: unknown request", 22))
		return reason_set(why, -EPROTONOSUPPORT, "the running vnetd does not know the upgrade request (too old?)");
	return reason_set(why, -EPERM, "the running vnetd answered: %s", text);
}

/* H: the old command line, NUL-separated, becomes ours after argv[0] */
static int upgrade_take_argv(char *argv0, int *argc, char ***argv,
			 struct reason *why)
{
	uint64_t deadline = vu_conn_now_ms() + UPGRADE_STEP_MS;
	uint32_t len, i;
	int n = 0, ret;
	char *s;

	ret = upgrade_send(upg.chan, "upgrade\n", 8, NULL, 0, deadline);
	if (ret)
		return reason_set(why, ret, "sending the request: %s", strerror(-ret));
	ret = upgrade_recv_frame(upg.chan, &i, &len, why, deadline);
	if (ret)
		return ret;
	if (i != UPG_HELLO)	/* a text reply: refused, or a vnetd too old */
		return upgrade_text_reply(i, len, why, deadline);
	if (!len || len > sizeof(upg.argv_buf) - 1)
		return reason_set(why, -EPROTO, "command line of %u bytes", len);
	ret = upgrade_recv(upg.chan, upg.argv_buf, len, NULL, NULL, 0, deadline);
	if (ret)
		return reason_set(why, ret, "reading the command line: %s", strerror(-ret));
	upg.argv_buf[len] = '\0';
	if (upg.argv_buf[len - 1] != '\0')
		return reason_set(why, -EPROTO, "command line not NUL-terminated");
	upg.new_argv[n++] = argv0;
	upg.old_pid = atoi(upg.argv_buf);
	s = upg.argv_buf + strlen(upg.argv_buf) + 1;	/* the old argv[0] */
	if (s < upg.argv_buf + len)
		s += strlen(s) + 1;
	for (; s < upg.argv_buf + len; s += strlen(s) + 1) {
		if (n >= (int)(sizeof(upg.new_argv) / sizeof(upg.new_argv[0])) - 1)
			return reason_set(why, -E2BIG, "command line of more than %d arguments", n);
		upg.new_argv[n++] = s;
	}
	upg.new_argv[n] = NULL;
	*argc = n;
	*argv = upg.new_argv;
	return 0;
}

/**
 * upgrade_begin() - `vnetd --takeover CTL [--report-fd N]`: connect to the
 *		     running vnetd and take its command line as ours
 * @argc:	main()'s; replaced by the old process's command line
 * @argv:	main()'s; replaced likewise
 *
 * Without --takeover nothing happens: this process starts afresh.
 *
 * Return: 0, or -errno after one log line and the report to vnetctl
 */
int upgrade_begin(int *argc, char ***argv)
{
	struct reason why = { 0 };
	char **av = *argv;
	int ret;

	if (*argc < 3 || strcmp(av[1], "--takeover"))
		return 0;
	if (*argc == 5 && !strcmp(av[3], "--report-fd"))
		upg.report_fd = atoi(av[4]);
	else if (*argc != 3) {
		fprintf(stderr, "vnetd: usage: vnetd --takeover CONTROL_SOCKET [--report-fd N]\n");
		return -EINVAL;
	}
	if (upg.report_fd >= 0 && fcntl(upg.report_fd, F_SETFD, FD_CLOEXEC))
		upg.report_fd = -1;
	upg.active = true;
	upg.chan = upgrade_connect(av[2]);
	if (upg.chan < 0) {
		ret = reason_set(&why, upg.chan, "--takeover %s: %s", av[2],
				 strerror(-upg.chan));
		goto err;
	}
	ret = upgrade_take_argv(av[0], argc, argv, &why);
	if (!ret)
		return 0;
err:
	log_err("takeover: %s", why.msg);
	upgrade_report("error: %s\n", why.msg);
	return ret;
}

/**
 * upgrade_active() - Is this process taking over from another?
 *
 * Return: true after a successful upgrade_begin() with --takeover
 */
bool upgrade_active(void)
{
	return upg.active;
}

/* Refuse: one log line, the old process and vnetctl told why */
static int upgrade_refuse(struct reason *why)
{
	log_err("takeover from pid %d refused: %s", (int)upg.old_pid, why->msg);
	(void)upgrade_send_frame(upg.chan, UPG_ERROR, why->msg,
			     (uint32_t)strlen(why->msg),
			     vu_conn_now_ms() + UPGRADE_STEP_MS);
	upgrade_report("error: %s\n", why->msg);
	return why->err ? why->err : -EINVAL;
}

#ifdef VNET_TEST_HOOKS
/*
 * Test hook, only in build/test-hooks/vnetd (tests/integration/
 * vnetd-upgrade.sh): VNETD_TAKEOVER_TEST damages what came
 */
static void upgrade_test_hook(uint8_t *buf, size_t *len)
{
	const char *t = getenv("VNETD_TAKEOVER_TEST");

	if (!t)
		return;
	if (!strcmp(t, "corrupt") && *len > UPGRADE_HDR_LEN)
		buf[*len - 1] ^= 0x5a;
	else if (!strcmp(t, "newer"))
		buf[4] = UPGRADE_VERSION + 1;
	else if (!strcmp(t, "truncate") && *len > UPGRADE_HDR_LEN)
		*len -= 7;
	else if (!strcmp(t, "exit"))
		_exit(3);	/* a binary that dies half-way */
}
#else
static void upgrade_test_hook(uint8_t *buf, size_t *len)
{
	(void)buf;
	(void)len;
}
#endif

static int upgrade_recv_state(struct upgrade_state *st, uint8_t **bufp,
			  size_t *lenp, struct reason *why)
{
	uint64_t deadline = vu_conn_now_ms() + UPGRADE_STEP_MS;
	uint32_t len = 0, body, nfds, h[2];
	uint8_t *buf;
	int ret;

	ret = upgrade_expect(upg.chan, UPG_STATE, &len, why, deadline);
	if (ret)
		return ret;
	if (len < UPGRADE_HDR_LEN || len > upgrade_state_max_len())
		return reason_set(why, -EBADMSG, "state of %u bytes, expected %u..%zu",
				  len, UPGRADE_HDR_LEN, upgrade_state_max_len());
	buf = malloc(len);
	if (!buf)
		return reason_set(why, -ENOMEM, "no memory for a state of %u bytes", len);
	*bufp = buf;
	*lenp = len;
	ret = upgrade_recv(upg.chan, buf, len, NULL, NULL, 0, deadline);
	if (ret)
		return reason_set(why, ret, "reading the state: %s", strerror(-ret));
	ret = upgrade_state_header(buf, len, &body, &nfds, why);
	if (ret)
		return ret;
	while (st->nfds < nfds) {
		ret = upgrade_recv(upg.chan, h, sizeof(h), st->fds, &st->nfds,
			       nfds, deadline);
		if (ret)
			return reason_set(why, ret, "reading descriptors: %s", strerror(-ret));
		if (h[0] != UPG_FDS || !h[1] || h[1] > UPGRADE_FDS_PER_MSG)
			return reason_set(why, -EPROTO, "descriptor frame %#x of %u", h[0], h[1]);
	}
	return 0;
}

static struct upgrade_port *upgrade_find(struct upgrade_state *st,
				     const char *name)
{
	unsigned int i;

	for (i = 0; i < st->nports; i++)
		if (!strcmp(st->ports[i].name, name))
			return &st->ports[i];
	return NULL;
}

/* The connection's half-received message, as the old one had it */
static int upgrade_conn_rx(struct vnetd_port *p, struct upgrade_state *st,
		       const struct upgrade_dev *d, struct reason *why)
{
	struct vu_conn *c = &p->conn;
	size_t hdr = sizeof(c->rx.hdr);
	unsigned int i;

	if (!d->rx_got)
		return 0;
	memcpy(&c->rx.hdr, d->rx, d->rx_got < hdr ? d->rx_got : hdr);
	if (d->rx_got > hdr) {
		if (c->rx.hdr.size > sizeof(c->rx.payload) ||
		    d->rx_got - hdr > c->rx.hdr.size)
			return reason_set(why, -EBADMSG, "port %s: half-received message of %u bytes, its header says %u",
					  p->cfg.name, d->rx_got, c->rx.hdr.size);
		memcpy(&c->rx.payload, d->rx + hdr, d->rx_got - hdr);
	}
	c->rx_got = d->rx_got;
	c->rx_start_ms = vu_conn_now_ms();
	for (i = 0; i < d->rx_nfds; i++)
		c->rx.fds[i] = upgrade_state_take_fd(st, d->rx_fds[i]);
	c->rx.nfds = d->rx_nfds;
	return 0;
}

/*
 * The AF_XDP sockets that came for an af_xdp port: bound to the queues its
 * configuration names, adopted as they are (host_cfg.xdp_bound)
 */
static int upgrade_take_xsk(struct vnetd_port_cfg *pc, struct upgrade_state *st,
			    const struct upgrade_port *sp, struct reason *why)
{
	unsigned int i;

	if (!sp->nxsk)
		return 0;
	if (strcmp(pc->backend, "af_xdp"))
		return reason_set(why, -EINVAL, "port %s: AF_XDP sockets handed over, its configuration says backend=%s",
				  pc->name, pc->backend);
	for (i = 0; i < sp->nxsk; i++)
		if (sp->xsk[i].qid != pc->xdp_queue + i)
			return reason_set(why, -EINVAL, "port %s: pair %u: socket bound to queue %u of %s, its configuration says %u (xdp-queue=)",
					  pc->name, i, sp->xsk[i].qid, pc->xdp_if,
					  pc->xdp_queue + i);
	for (i = 0; i < sp->nxsk; i++) {
		pc->xdp_fds[2 * i] = upgrade_state_take_fd(st, sp->xsk[i].sock_fd);
		pc->xdp_fds[2 * i + 1] = upgrade_state_take_fd(st, sp->xsk[i].umem_fd);
	}
	pc->nxdp_fds = 2 * sp->nxsk;
	pc->xdp_bound = true;
	/* an older vnetd's UMEM never has TX metadata room: flag clear */
	pc->xdp_txmd = !!(sp->xsk[0].flags & UPGRADE_XSK_TXMD);
	pc->xdp_mode = sp->xsk[0].flags & UPGRADE_XSK_ZEROCOPY ?
		       HOST_XDP_ZEROCOPY : HOST_XDP_COPY;
	return 0;
}

static int upgrade_take_port(struct vnetd_port *p, const struct vnetd_port_cfg *cfg,
			 int epfd, struct upgrade_state *st,
			 struct upgrade_port *sp, struct reason *why)
{
	struct vnetd_port_cfg pc = *cfg;
	struct reason inner;
	unsigned int i;
	int ret;

	if (sp->queues != cfg->queues || !!(sp->flags & UPGRADE_P_CLIENT) != cfg->client)
		return reason_set(why, -EINVAL, "port %s: %u queue pairs%s handed over, its configuration says %u%s",
				  cfg->name, sp->queues,
				  sp->flags & UPGRADE_P_CLIENT ? " (client)" : "",
				  cfg->queues, cfg->client ? " (client)" : "");
	if (!cfg->client && sp->listen_fd < 0 && cfg->fd < 0 &&
	    !(sp->flags & UPGRADE_P_CONNECTED))
		return reason_set(why, -EINVAL, "port %s: no socket handed over", cfg->name);
	if (sp->listen_fd >= 0)
		pc.fd = upgrade_state_take_fd(st, sp->listen_fd);
	else if (!cfg->client)
		pc.fd = upgrade_state_take_fd(st, sp->conn_fd);	/* --fd */
	for (i = 0; i < sp->nqfds; i++)
		pc.tap_fds[i] = upgrade_state_take_fd(st, sp->qfds[i]);
	pc.ntap_fds = sp->nqfds;
	ret = upgrade_take_xsk(&pc, st, sp, why);
	if (ret)
		return ret;
	reason_clear(&inner);
	ret = port_init(p, &pc, epfd, &inner);
	for (i = 0; i < pc.nxdp_fds; i++)	/* the host side holds duplicates */
		close(pc.xdp_fds[i]);
	if (ret)
		return reason_set(why, ret, "port %s: %s", cfg->name,
				  inner.msg[0] ? inner.msg : strerror(-ret));
	p->cfg.fd = cfg->fd;		/* who owns the socket file: as before */
	p->cfg.nxdp_fds = 0;		/* configured as before (reload compares) */
	p->cfg.xdp_bound = false;
	p->cfg.xdp_txmd = false;
	p->cfg.xdp_mode = cfg->xdp_mode;
	vu_dev_quiesce(p->dev);		/* until the old process commits */
	upg.nports++;
	if (!(sp->flags & UPGRADE_P_CONNECTED))
		return 0;
	if (sp->listen_fd >= 0 || cfg->client) {
		ret = port_adopt(p, upgrade_state_take_fd(st, sp->conn_fd));
		if (ret)
			return reason_set(why, ret, "port %s: cannot watch the connection: %s",
					  cfg->name, strerror(-ret));
	}
	p->fresh = false;
	ret = vu_dev_import(p->dev, st, &sp->dev, why);
	if (ret) {
		char msg[REASON_LEN];

		snprintf(msg, sizeof(msg), "%s", why->msg);
		return reason_set(why, ret, "port %s: %s", cfg->name, msg);
	}
	return upgrade_conn_rx(p, st, &sp->dev, why);
}

/*
 * A port the old process had from `vnetctl port add`: parse its spec as
 * port add does (reload.c) into the next free slot of @cfg. A port of the
 * same name in the command line or --config wins (the caller looks there
 * first). Return: 0, or -errno with @why set
 */
static int upgrade_add_runtime(struct vnetd_cfg *cfg, const struct upgrade_port *sp,
			       struct reason *why)
{
	struct vnetd_port_cfg *pc = &cfg->ports[cfg->nports];
	struct reason inner = { 0 };
	unsigned int k;

	if (!sp->spec[0])
		return reason_set(why, -ENOENT, "port %s is not in the command line or --config, and the old process did not say it was added with vnetctl port add: add it to the configuration first",
				  sp->name);
	if (cfg->nports >= VNETD_MAX_PORTS)
		return reason_set(why, -ENOSPC, "port %s (added at run time): no free slot, at most %d ports",
				  sp->name, VNETD_MAX_PORTS);
	if (cli_port_parse(pc, &cfg->defaults, sp->spec, ",", &inner) ||
	    cli_port_check(pc, cfg->nports, &inner))
		return reason_set(why, -EINVAL, "port %s (added at run time): its spec is refused: %s",
				  sp->name, inner.msg);
	if (strcmp(pc->name, sp->name))
		return reason_set(why, -EINVAL, "port %s (added at run time): its spec names port %s",
				  sp->name, pc->name);
	if (pc->fd >= 0 || pc->ntap_fds)
		return reason_set(why, -EINVAL, "port %s (added at run time): fd= or tap-fd= in its spec",
				  sp->name);
	for (k = 0; k < cfg->nports; k++)
		if (cli_port_clash(pc, &cfg->ports[k], &inner))
			return reason_set(why, -EEXIST, "port %s (added at run time): %s",
					  sp->name, inner.msg);
	pc->from_config = false;
	reload_set_spec(cfg->nports, sp->spec);
	cfg->nports++;
	return 0;
}

static int upgrade_take_ports(struct vnetd_cfg *cfg, struct vnetd_port *ports,
			  int epfd, struct upgrade_state *st, struct reason *why)
{
	struct upgrade_port *sp;
	struct reason inner;
	unsigned int i, n;
	int ret;

	for (i = 0; i < st->nports; i++) {
		for (n = 0; n < cfg->nports; n++)
			if (!strcmp(cfg->ports[n].name, st->ports[i].name))
				break;
		if (n < cfg->nports)
			continue;
		ret = upgrade_add_runtime(cfg, &st->ports[i], why);
		if (ret)
			return ret;
	}
	for (i = 0; i < cfg->nports; i++) {
		sp = upgrade_find(st, cfg->ports[i].name);
		if (sp) {
			ret = upgrade_take_port(&ports[i], &cfg->ports[i], epfd, st,
					    sp, why);
		} else {	/* new in --config (or removed with port del) */
			reason_clear(&inner);
			ret = port_init(&ports[i], &cfg->ports[i], epfd, &inner);
			if (ret)
				reason_set(why, ret, "new port %s: %s",
					   cfg->ports[i].name,
					   inner.msg[0] ? inner.msg : strerror(-ret));
		}
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * upgrade_take() - Receive the old process's state and rebuild every port
 * @cfg:	Configuration, parsed from the old process's command line
 * @ports:	Port slots, in @cfg's order (output)
 * @epfd:	Main loop's epoll descriptor
 * @ctl_fd:	The control socket handed over (output), -1: none
 * @http_fd:	The metrics listener handed over (output), -1: none
 *
 * The ports' workers stay parked until upgrade_commit(). On failure the
 * caller exits at once, without closing a port (the old process serves
 * them again).
 *
 * Return: 0, or -errno after one log line (the old process was told why)
 */
int upgrade_take(struct vnetd_cfg *cfg, struct vnetd_port *ports, int epfd,
		 int *ctl_fd, int *http_fd)
{
	struct upgrade_state *st = calloc(1, sizeof(*st));
	struct reason why = { 0 };
	uint8_t *buf = NULL;
	size_t len = 0;
	int ret, log_fd;

	if (!st) {
		reason_set(&why, -ENOMEM, "no memory for the state");
		return upgrade_refuse(&why);
	}
	upgrade_state_init(st);
	upg.go_ms = vu_conn_now_ms();
	ret = upgrade_send_frame(upg.chan, UPG_GO, NULL, 0, upg.go_ms + UPGRADE_STEP_MS);
	if (ret) {
		reason_set(&why, ret, "the old process went away: %s", strerror(-ret));
		goto err;
	}
	ret = upgrade_recv_state(st, &buf, &len, &why);
	if (!ret) {
		upgrade_test_hook(buf, &len);
		ret = upgrade_state_decode(st, buf, len, &why);
	}
	free(buf);
	if (ret)
		goto err;
	log_fd = upgrade_state_take_fd(st, st->log_fd);
	if (log_fd >= 0) {	/* log where the old process logged; let go of vnetctl's */
		dup2(log_fd, STDERR_FILENO);
		dup2(log_fd, STDOUT_FILENO);
		close(log_fd);
	}
	ret = upgrade_take_ports(cfg, ports, epfd, st, &why);
	if (ret)
		goto err;
	*ctl_fd = upgrade_state_take_fd(st, st->ctl_fd);
	*http_fd = upgrade_state_take_fd(st, st->http_fd);
	upgrade_state_close_fds(st);
	free(st);
	return 0;
err:
	upgrade_state_close_fds(st);
	free(st);
	return upgrade_refuse(&why);
}

/**
 * upgrade_commit() - Tell the old process we are ready; once it has let
 *		      go, start the workers
 * @ports:	Ports
 * @nports:	How many slots
 *
 * Return: 0, or -errno: the old process resumed instead (the caller exits
 *	   without touching a port)
 */
int upgrade_commit(struct vnetd_port *ports, unsigned int nports)
{
	uint64_t deadline = vu_conn_now_ms() + UPGRADE_STEP_MS, gap;
	struct reason why = { 0 };
	unsigned int i;
	int ret;

	/*
	 * systemd (NotifyAccess=all) follows the main PID before the old one
	 * exits: this datagram is queued before R, and R before the old exit
	 */
	(void)sd_notify_send("MAINPID=%d", (int)getpid());
	ret = upgrade_send_frame(upg.chan, UPG_READY, NULL, 0, deadline);
	if (!ret)
		ret = upgrade_expect(upg.chan, UPG_OK, NULL, &why, deadline);
	else
		reason_set(&why, ret, "sending ready: %s", strerror(-ret));
	if (ret) {
		(void)sd_notify_send("MAINPID=%d", (int)upg.old_pid);
		log_err("takeover from pid %d abandoned: %s", (int)upg.old_pid, why.msg);
		upgrade_report("error: %s\n", why.msg);
		return ret;
	}
	for (i = 0; i < nports; i++)
		if (ports[i].used && ports[i].dev)
			vu_dev_unquiesce(ports[i].dev);
	gap = vu_conn_now_ms() - upg.go_ms;
	close(upg.chan);
	upg.chan = -1;
	log_info("takeover: serving %u port%s from pid %d; traffic paused %" PRIu64 " ms",
		 upg.nports, upg.nports == 1 ? "" : "s", (int)upg.old_pid, gap);
	upgrade_report("ok pid %d ports %u paused_ms %" PRIu64 "\n", (int)getpid(),
		   upg.nports, gap);
	return 0;
}
