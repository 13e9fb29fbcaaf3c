// SPDX-License-Identifier: MIT
/*
 * antispoof.c - a port's anti-spoofing beyond vnetd's own TX check
 * (net.c/spoof.c): on a TAP, whose frames the kernel's vhost-net may move
 * without vnetd, the same policy goes on the TAP's ingress as a tc filter
 * (spoof_tc.c), installed at port setup, before the sandbox drops
 * CAP_NET_ADMIN and exec. It stays for the port's life (the TAP's).
 *
 * A TAP port started after the sandbox (`port add`, a SIGHUP that starts
 * or restarts it) cannot have one installed or replaced: a filter from
 * start stays on the TAP with the policy it had. Such a port that may use
 * vhost-net fails to start (the kernel path would not have its policy);
 * a userspace-only one starts with one warning, vnetd checks its frames.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <net/if.h>
#include <linux/if_tun.h>

#include "antispoof.h"
#include "cfg.h"
#include "sandbox.h"
#include "spoof_tc.h"
#include "vnetd.h"

/* fork, exec and wait happen at setup only: the seccomp list needs none */

/* After the sandbox: no tc. Return: 0 or -EPERM with @why set */
static int antispoof_late(struct vnetd_port *p, const char *tap,
			  struct reason *why)
{
	if (p->vhost.use)
		return reason_set(why, -EPERM, "tap %s: the anti-spoofing tc filter cannot be installed after the sandbox (no exec, no CAP_NET_ADMIN): the kernel vhost-net path would bypass --mac-lock/--allow-ip (or keep the policy of a filter from start); restart vnetd with the port, or give it vhost-net=off",
				  tap);
	log_warn("port %s: tap %s: the anti-spoofing tc filter cannot be installed after the sandbox: one from vnetd's start stays with its policy (tc filter show dev %s ingress pref %d; delete it or restart vnetd for the new one); vnetd checks the frames",
		 p->cfg.name, tap, tap, SPOOF_TC_PREF);
	return 0;
}

/**
 * antispoof_setup() - Install the port's policy where frames bypass vnetd
 * @p:		Port, backend open, --vhost-net decided
 * @why:	One sentence on failure
 *
 * Nothing to do without a policy or without a TAP queue. If tc cannot
 * install the filter, a port that may use the kernel's vhost-net fails
 * (its guest could otherwise bypass the policy); a userspace-only port
 * logs it once and relies on vnetd's own check.
 *
 * After the sandbox (a port started at run time) tc cannot run: a port
 * that may use vhost-net fails, a userspace-only one warns once.
 *
 * Context: setup, or main thread at run time (port add, SIGHUP)
 * Return: 0 or -errno
 */
int antispoof_setup(struct vnetd_port *p, struct reason *why)
{
	const struct spoof_policy *sp = &p->cfg.wopts.spoof;
	struct reason inner = { 0 };
	struct ifreq ifr;
	int fd, ret;

	if (!spoof_active(sp) || !p->host.ops->queue_fd)
		return 0;
	fd = p->host.ops->queue_fd(&p->host, 0);
	if (fd < 0)
		return 0;	/* not a TAP: every frame crosses vnetd */
	memset(&ifr, 0, sizeof(ifr));
	if (ioctl(fd, TUNGETIFF, &ifr) < 0) {
		ret = -errno;
		reason_set(&inner, ret, "tap fd %d: TUNGETIFF: %s", fd,
			   strerror(-ret));
	} else if (sandbox_entered()) {
		ifr.ifr_name[IFNAMSIZ - 1] = '\0';
		return antispoof_late(p, ifr.ifr_name, why);
	} else {
		ifr.ifr_name[IFNAMSIZ - 1] = '\0';
		ret = spoof_tc_install(ifr.ifr_name, sp, &inner);
	}
	if (!ret) {
		log_info("port %s: anti-spoofing: tc ingress filter on %s (pref %d) for the kernel vhost-net path",
			 p->cfg.name, ifr.ifr_name, SPOOF_TC_PREF);
		return 0;
	}
	if (p->vhost.use) {
		return reason_set(why, ret, "%s; the kernel vhost-net path would bypass --mac-lock/--allow-ip: fix that or use --vhost-net off",
				  inner.msg);
	}
	log_warn("port %s: %s; frames are checked by vnetd only (userspace data path)",
		 p->cfg.name, inner.msg);
	return 0;
}

#define ANTISPOOF_LOG_S	10	/* one "dropped as spoofed" line per port per 10 s */

static uint64_t antispoof_seen[VNETD_MAX_PORTS];
static uint64_t antispoof_logged_s[VNETD_MAX_PORTS];

/**
 * antispoof_tick() - Turn a port's new spoofed-frame drops into a log line
 * @p:		Port
 * @i:		Its index (0..VNETD_MAX_PORTS-1)
 * @now_s:	Monotonic seconds, never 0
 *
 * The workers only count (drop reason "spoofed"); this reads the TX rings'
 * counters and logs at most one line per port per ANTISPOOF_LOG_S seconds
 * with the frames dropped since the last line.
 *
 * Context: main thread, from svc_tick()
 */
void antispoof_tick(struct vnetd_port *p, unsigned int i, uint64_t now_s)
{
	unsigned int npairs = 0, k;
	struct vnet_pair *vp;
	uint64_t sum = 0;

	if (i >= VNETD_MAX_PORTS || !p->dev ||
	    !spoof_active(&p->cfg.wopts.spoof))
		return;
	if (antispoof_logged_s[i] && now_s - antispoof_logged_s[i] < ANTISPOOF_LOG_S)
		return;
	vp = vu_dev_pairs(p->dev, &npairs);
	for (k = 0; vp && k < npairs; k++)
		sum += __atomic_load_n(&vp[k].tx.ctr.drops[DROP_SPOOF],
				       __ATOMIC_RELAXED);
	if (sum < antispoof_seen[i])	/* counters were reset */
		antispoof_seen[i] = 0;
	if (sum == antispoof_seen[i])
		return;
	log_warn("port %s: %llu guest frame%s dropped: source MAC/IP not the port's (--mac-lock/--allow-ip; drop reason spoofed)",
		 p->cfg.name, (unsigned long long)(sum - antispoof_seen[i]),
		 sum - antispoof_seen[i] == 1 ? "" : "s");
	antispoof_seen[i] = sum;
	antispoof_logged_s[i] = now_s;
}
