// SPDX-License-Identifier: MIT
/*
 * uplink.c - a switch's uplink: a member of the switch whose far side is
 * a TAP on the host, so that the switch joins the host's bridge or fabric
 * (the TAP enslaved to a Linux bridge, or given an address).
 *
 * To the switch the uplink is a member like any other (switch.c knows
 * nothing of it): the MACs behind it are learned on it, broadcast,
 * multicast and unknown unicast are flooded to it as to every member of
 * the VLAN, a frame from it is switched like a guest's TX, and nothing it
 * sends comes back to it. Its VLANs are an access VLAN (untagged on the
 * TAP, default 1) or a trunk (802.1Q tags on the TAP), as a port's.
 * It may hold as many MACs as the switch (a host bridge has many
 * stations behind one member), not a port's SW_MACS_PORT.
 *
 * Threads. One thread per uplink owns its member's one pair: it reads the
 * TAP and hands each frame to the switch (switch_tx(), one switch_flush()
 * per batch), and it drains the member's hand-off queue and writes the
 * TAP. So the TAP has one reader and one writer, and the hand-off queue
 * one consumer, as a guest pair's worker is for its rings; no lock and
 * no allocation per frame. The TAP I/O is the tap host's (host_tap.c,
 * reached through host_find("tap")): readv/writev per frame, or through
 * the thread's own io_uring (tap_uring.c) a batch of reads (rx_fill) and
 * a burst of up to UPLINK_BATCH writes (tx_batch) per syscall, as a
 * worker does for a tap port. The thread sleeps in poll() on the TAP,
 * the hand-off queue's eventfd and its stop eventfd.
 *
 * Offloads: none. The TAP carries a 12-byte vnet header (IFF_VNET_HDR,
 * as the tap host opens it) with TUNSETOFFLOAD 0, so the kernel hands
 * over only complete frames with their checksums done, and every frame
 * the switch writes is one too; a frame longer than the switch's
 * SW_FRAME_MAX is dropped at the switch (counted "bad" on the uplink).
 *
 * Declared with its switch, before start-up (uplink_declare()); opened,
 * joined and started by uplink_start() before the sandbox (creating a TAP
 * needs CAP_NET_ADMIN); stopped at exit.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "host.h"
#include "host_switch.h"
#include "tap_uring.h"
#include "uplink.h"
#include "util.h"
#include "vnet_hdr.h"
#include "worker_types.h"

/* #syscalls: poll ppoll read write eventfd2 */

#define UPLINK_BATCH	32	/* frames per pass each way */
#define UPLINK_HDR	VNET_HDR_MAX	/* struct virtio_net_hdr_v1 */
/* one frame for the TAP: header, the switch's largest frame, a tag */
#define UPLINK_OUT_SLOT	(UPLINK_HDR + SW_FRAME_MAX + 4)
/* one frame from the TAP: as large as the tun driver may give, a byte more */
#define UPLINK_IN_SLOT	(VNET_HDR_MAX + VNET_FRAME_MAX + 1)

static struct uplink uplinks[HOST_SWITCH_MAX];
static unsigned int nuplinks;

/* An uplink= value: "tap:IFNAME". Return: NULL, or what is allowed */
static const char *uplink_parse_target(const char *v, char *ifname)
{
	const char *name;

	if (strncmp(v, "tap:", 4))
		return "must be tap:IFNAME (the only uplink kind)";
	name = v + 4;
	if (!*name || strlen(name) >= IFNAMSIZ || strchr(name, '/') ||
	    strchr(name, ' ') || strchr(name, ':'))
		return "must be tap:IFNAME with IFNAME 1..15 bytes, no '/', ':' or space";
	strcpy(ifname, name);
	return NULL;
}

/* Two uplink declarations say the same: a repeated one is no conflict */
static bool uplink_same(const struct uplink *a, const char *ifname,
			const struct sw_vlans *v)
{
	return !strcmp(a->ifname, ifname) && !memcmp(&a->vlans, v, sizeof(*v));
}

/**
 * uplink_declare() - Declare a switch, with its uplink if it has one
 *		      (--switch NAME[,uplink=tap:IFNAME][,uplink-vlan=N|
 *		      uplink-trunk=LIST])
 * @spec:	The --switch value; the one parser for the command line,
 *		config lines and anything else that declares a switch
 * @why:	On failure, the reason, naming the key and value and what is
 *		allowed (to follow "--switch SPEC: ")
 *
 * Nothing is declared unless all of @spec is valid. One uplink per
 * switch: a second one (another interface or other VLANs) is refused
 * naming both; the same declaration again is no change. An interface is
 * the uplink of one switch at most.
 *
 * Context: control thread, before uplink_start()
 * Return: 0, -EINVAL (bad key or value), -EEXIST (a second uplink),
 *	   or host_switch_declare()'s error
 */
int uplink_declare(const char *spec, struct reason *why)
{
	char buf[256], ifname[IFNAMSIZ] = "", *tok, *save = NULL, *name, *val;
	bool vlan_set = false, trunk_set = false;
	struct sw_vlans v = { .access = 1 };
	struct vswitch *sw;
	const char *w;
	unsigned int i;
	int ret;

	if (strlen(spec) >= sizeof(buf))
		return reason_set(why, -EINVAL, "must be at most %zu bytes",
				  sizeof(buf) - 1);
	strcpy(buf, spec);
	name = strtok_r(buf, ",", &save);
	if (!name || spec[0] == ',')
		return reason_set(why, -EINVAL, "must start with the switch's name");
	while ((tok = strtok_r(NULL, ",", &save))) {
		val = strchr(tok, '=');
		if (!val)
			return reason_set(why, -EINVAL, "'%s': must be KEY=VALUE (keys: uplink, uplink-vlan, uplink-trunk)",
					  tok);
		*val++ = '\0';
		if (!strcmp(tok, "uplink")) {
			if (ifname[0])
				return reason_set(why, -EEXIST, "uplink=%s: one uplink per switch (uplink=tap:%s given already)",
						  val, ifname);
			w = uplink_parse_target(val, ifname);
		} else if (!strcmp(tok, "uplink-vlan")) {
			w = switch_vlans_parse(&v, val, false, ':');
			vlan_set = true;
		} else if (!strcmp(tok, "uplink-trunk")) {
			w = switch_vlans_parse(&v, val, true, ':');
			trunk_set = true;
		} else {
			return reason_set(why, -EINVAL, "unknown key '%s' (keys: uplink=tap:IFNAME, uplink-vlan=N, uplink-trunk=LIST)",
					  tok);
		}
		if (w)
			return reason_set(why, -EINVAL, "'%s=%s': %s", tok, val, w);
	}
	if (vlan_set && trunk_set)
		return reason_set(why, -EINVAL, "uplink-vlan: cannot be combined with uplink-trunk=");
	if ((vlan_set || trunk_set) && !ifname[0])
		return reason_set(why, -EINVAL, "%s: only with uplink=tap:IFNAME",
				  vlan_set ? "uplink-vlan=" : "uplink-trunk=");
	if (ifname[0]) {
		for (i = 0; i < nuplinks; i++) {
			const struct uplink *u = &uplinks[i];

			if (!strcmp(u->sw->name, name)) {
				if (uplink_same(u, ifname, &v))
					return 0;
				return reason_set(why, -EEXIST, "uplink=tap:%s: switch %s has the uplink tap:%s already (one uplink per switch)",
						  ifname, name, u->ifname);
			}
			if (!strcmp(u->ifname, ifname))
				return reason_set(why, -EEXIST, "uplink=tap:%s: already the uplink of switch %s",
						  ifname, u->sw->name);
		}
	}
	ret = host_switch_declare(name, why);
	if (ret || !ifname[0])
		return ret;
	sw = host_switch_find(name);
	if (!sw || nuplinks >= HOST_SWITCH_MAX)
		return reason_set(why, -ENOSPC, "too many uplinks (at most %d)",
				  HOST_SWITCH_MAX);
	uplinks[nuplinks] = (struct uplink){ .sw = sw, .kind = "tap",
					     .vlans = v, .stop_fd = -1 };
	strcpy(uplinks[nuplinks].ifname, ifname);
	nuplinks++;
	return 0;
}

/* Seconds for the MAC table: the coarse clock, a vDSO read, no syscall */
static inline uint32_t uplink_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint32_t)ts.tv_sec;
}

/*
 * Frames from the TAP into the switch, up to UPLINK_BATCH. Batched reads
 * when the tap host holds a batch (rx_fill through @ring, when its policy
 * says so). Return: frames read, cut ones included (0: the TAP is empty or failed)
 */
static unsigned int uplink_from_host(struct uplink *u, struct tap_uring *ring)
{
	const struct host_ops *ops = u->host.ops;
	uint8_t *in = u->buf + UPLINK_BATCH * UPLINK_OUT_SLOT;
	struct iovec iov = { in, UPLINK_IN_SLOT }, frame = { in, 0 };
	uint32_t now = uplink_now();
	unsigned int k;
	ssize_t n;

	for (k = 0; k < UPLINK_BATCH; k++) {
		if (ring && ops->rx_fill && ops->rx_peek_len(&u->host, 0) < 0 &&
		    ops->rx_fill(&u->host, 0, ring) == 0)
			break;
		n = ops->rx(&u->host, 0, &iov, 1);
		if (n == -EAGAIN)
			break;
		if (n < 0) {
			atomic_fetch_add_explicit(&u->st.host_errors, 1,
						  memory_order_relaxed);
			if (n == -EMSGSIZE)
				continue;	/* one cut frame, consumed */
			break;		/* poll() tells whether the queue is gone */
		}
		atomic_fetch_add_explicit(&u->st.from_host, 1, memory_order_relaxed);
		frame.iov_len = (size_t)n;
		/* dropped frames are counted by the switch, at the uplink */
		(void)switch_tx(u->m, 0, &frame, 1, UPLINK_HDR, now);
	}
	if (k)
		switch_flush(u->m, 0);
	return k;
}

/* Count a write's result @res (bytes or -errno) */
static void uplink_sent(struct uplink *u, long res)
{
	if (res >= 0)
		atomic_fetch_add_explicit(&u->st.to_host, 1, memory_order_relaxed);
	else
		atomic_fetch_add_explicit(&u->st.host_drops, 1, memory_order_relaxed);
}

/*
 * Frames the switch queued for the uplink out through the TAP, up to
 * UPLINK_BATCH: one burst through @ring if there is one, else a writev
 * each. A refused write drops the frame (a tun queue never says "full").
 * Return: frames taken from the hand-off queue (0: it is empty, and the
 * switch was asked for a wake-up)
 */
static unsigned int uplink_to_host(struct uplink *u, struct tap_uring *ring)
{
	const struct host_ops *ops = u->host.ops;
	struct iovec iov[UPLINK_BATCH], *iovp[UPLINK_BATCH];
	unsigned int cnt[UPLINK_BATCH], n = 0, k, taken = 0;
	int res[UPLINK_BATCH], len;

	while (taken < UPLINK_BATCH &&
	       switch_rx_peek_len(u->m, 0, UPLINK_HDR) > 0) {
		taken++;
		iov[n].iov_base = u->buf + (size_t)n * UPLINK_OUT_SLOT;
		iov[n].iov_len = UPLINK_OUT_SLOT;
		len = switch_rx(u->m, 0, &iov[n], 1, UPLINK_HDR);
		if (len < 0) {
			uplink_sent(u, len);
			continue;
		}
		iov[n].iov_len = (size_t)len;
		iovp[n] = &iov[n];
		cnt[n++] = 1;
	}
	if (!n)
		return taken;
	if (ring && ops->tx_batch &&
	    !ops->tx_batch(&u->host, 0, ring, iovp, cnt, n, res)) {
		for (k = 0; k < n; k++)
			uplink_sent(u, res[k]);
		return taken;
	}
	for (k = 0; k < n; k++)
		uplink_sent(u, (long)ops->tx(&u->host, 0, &iov[k], 1));
	return taken;
}

/* The uplink's thread: serve both directions until told to stop */
static void *uplink_main(void *arg)
{
	struct uplink *u = arg;
	struct tap_uring *ring = NULL;
	struct pollfd pfd[3];
	struct reason why;
	char name[16];
	sigset_t sb;
	unsigned int busy;

	snprintf(name, sizeof(name), "vnetd-up-%.6s", u->sw->name);
	pthread_setname_np(pthread_self(), name);
	sigemptyset(&sb);
	sigaddset(&sb, WORKER_SIG_SANDBOX);	/* the sandbox reaches us */
	pthread_sigmask(SIG_UNBLOCK, &sb, NULL);
	if (tap_uring_create(&ring, &why))
		ring = NULL;	/* per frame readv/writev, as a worker then */
	pfd[0] = (struct pollfd){ .fd = u->stop_fd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = u->host.ops->rx_fd(&u->host, 0),
				  .events = POLLIN };
	pfd[2] = (struct pollfd){ .fd = u->m->rxq[0].efd, .events = POLLIN };
	for (;;) {
		busy = pfd[1].fd >= 0 ? uplink_from_host(u, ring) : 0;
		busy += uplink_to_host(u, ring);
		if (busy)
			continue;
		if (poll(pfd, 3, -1) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents)
			break;
		/*
		 * The TAP went away under us (deleted: the tun driver says
		 * POLLERR for ever): stop reading it rather than spin; writes
		 * to it fail and count as host_drops
		 */
		if (pfd[1].revents & (POLLERR | POLLHUP | POLLNVAL))
			pfd[1].fd = -1;
	}
	tap_uring_destroy(ring);
	return NULL;
}

/* Open one uplink's TAP, join its switch, start its thread */
static int uplink_open(struct uplink *u, struct reason *why)
{
	struct host_cfg cfg = { .npairs = 1, .tap_name = u->ifname };
	sigset_t all, old;
	int err = 0, ret;

	u->host.ops = host_find(u->kind);
	if (!u->host.ops)
		return reason_set(why, -ENOENT, "no %s host", u->kind);
	ret = u->host.ops->open(&u->host, &cfg, why);
	if (ret)
		return ret;
	ret = u->host.ops->configure(&u->host, 0, UPLINK_HDR);	/* offloads off */
	if (ret) {
		reason_set(why, ret, "tap %s: vnet header and offloads: %s",
			   u->ifname, strerror(-ret));
		goto err_host;
	}
	u->buf = malloc((size_t)UPLINK_BATCH * UPLINK_OUT_SLOT + UPLINK_IN_SLOT);
	u->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!u->buf || u->stop_fd < 0) {
		ret = reason_set(why, -ENOMEM, "out of memory or file descriptors");
		goto err_buf;
	}
	u->m = switch_join(u->sw, 1, &u->vlans, &err);
	if (!u->m) {
		ret = reason_set(why, err, "cannot join: %s", err == -ENOSPC ?
				 "the switch is full" : strerror(-err));
		goto err_buf;
	}
	u->m->macs_max = u->sw->macs_max;
	/* the thread starts with every signal blocked but the sandbox's */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = -pthread_create(&u->thread, NULL, uplink_main, u);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		reason_set(why, ret, "thread: %s", strerror(-ret));
		goto err_join;
	}
	u->running = true;
	return 0;

err_join:
	switch_leave(u->m);
	u->m = NULL;
err_buf:
	if (u->stop_fd >= 0)
		close(u->stop_fd);
	u->stop_fd = -1;
	free(u->buf);
	u->buf = NULL;
err_host:
	u->host.ops->close(&u->host);
	return ret;
}

/**
 * uplink_start() - Open every declared uplink and start its thread
 * @why:	On failure, the reason, starting "switch NAME: uplink tap:IF: "
 *
 * Context: control thread, at start-up, before the sandbox (a TAP it
 *	    creates needs CAP_NET_ADMIN)
 * Return: 0, or the first failure's -errno (the uplinks started before it
 *	   keep running; uplink_stop() ends them)
 */
int uplink_start(struct reason *why)
{
	struct reason w = { 0 };
	unsigned int i;
	int ret;

	for (i = 0; i < nuplinks; i++) {
		struct uplink *u = &uplinks[i];

		if (u->running)
			continue;
		reason_clear(&w);
		ret = uplink_open(u, &w);
		if (ret)
			return reason_set(why, ret, "switch %s: uplink tap:%s: %s",
					  u->sw->name, u->ifname, w.msg);
	}
	return 0;
}

/**
 * uplink_stop() - Stop every uplink's thread, leave its switch, close
 *		   its TAP
 *
 * Context: control thread, at exit
 */
void uplink_stop(void)
{
	uint64_t one = 1;
	unsigned int i;

	for (i = 0; i < nuplinks; i++) {
		struct uplink *u = &uplinks[i];

		if (!u->running)
			continue;
		/* an eventfd write fails only at a full counter: set already */
		if (write(u->stop_fd, &one, sizeof(one)) < 0)
			one = 1;
		pthread_join(u->thread, NULL);
		u->running = false;
		switch_leave(u->m);
		u->m = NULL;
		u->host.ops->close(&u->host);
		close(u->stop_fd);
		u->stop_fd = -1;
		free(u->buf);
		u->buf = NULL;
	}
}

/**
 * uplink_at() - The @i-th declared uplink, for status
 * @i:		0, 1, ...
 *
 * Return: the uplink (its member NULL if not started), NULL past the last
 */
const struct uplink *uplink_at(unsigned int i)
{
	return i < nuplinks ? &uplinks[i] : NULL;
}
