// SPDX-License-Identifier: MIT
/*
 * provision.c - create and delete the host side of a VM NIC, probe vhost-net.
 *
 * A multi-queue TAP is made with /dev/net/tun (TUNSETIFF with IFF_TAP |
 * IFF_NO_PI | IFF_VNET_HDR | IFF_MULTI_QUEUE, then TUNSETPERSIST,
 * TUNSETOWNER, TUNSETGROUP, and the MAC of mac_tap()) and every requested
 * queue is attached once to prove it can be; a macvtap is made with rtnetlink and its /dev/tapN is
 * opened once per queue. Bridge membership and link state go through
 * rtnetlink. Every create is all-or-nothing: a step that fails undoes what
 * this call made (never a device that was already there). Repeating a
 * create converges on the same device.
 *
 * Security model: runs as root on the operator's behalf with names and ids
 * from the command line; it refuses to delete anything that is not a TAP or
 * macvtap, so a typo cannot remove the host's uplink.
 *
 * Leaves to others: the queue policy (plan.c), printing (vnetctl), opening
 * queues for the data path (the TAP host).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <net/if.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <linux/if_link.h>
#include <linux/if_tun.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "devperm.h"
#include "ids.h"
#include "mac.h"
#include "provision.h"
#include "reason.h"
#include "util.h"

#define PROV_NL_BUF	8192

/**
 * struct provision_link - What rtnetlink says about one interface
 * @ifindex:	Interface index
 * @master:	Index of the master (bridge), 0 if none
 * @link:	Index of the parent (macvtap), 0 if none
 * @kind:	rtnl link kind ("tun", "macvtap", "bridge", ...), "" if none
 * @tun_type:	tun only: IFF_TUN or IFF_TAP, 0 if not reported
 * @tun_mq:	tun only: multi_queue set
 * @tun_vnet_hdr: tun only: vnet_hdr set
 * @tun_queues:	tun only: queues attached now (a VMM or vnetd has them open)
 * @tun_owner:	tun only: owner uid, (uint32_t)-1 for none
 * @tun_group:	tun only: group gid, (uint32_t)-1 for none
 * @macvlan_mode: macvtap only: MACVLAN_MODE_*, 0 if not reported
 */
struct provision_link {
	int ifindex;
	int master;
	int link;
	char kind[32];
	unsigned int tun_type;
	bool tun_mq;
	bool tun_vnet_hdr;
	uint32_t tun_queues;
	uint32_t tun_owner;
	uint32_t tun_group;
	uint32_t macvlan_mode;
};

struct provision_nlreq {
	struct nlmsghdr nh;
	struct ifinfomsg ifi;
	char attrs[512];
};

/* ---- rtnetlink ------------------------------------------------------------ */

static struct rtattr *provision_nla_put(struct provision_nlreq *r, int type,
				   const void *data, size_t len)
{
	size_t at = NLMSG_ALIGN(r->nh.nlmsg_len);
	struct rtattr *rta;

	if (at + RTA_SPACE(len) > sizeof(*r))
		return NULL;
	rta = (struct rtattr *)(void *)((char *)r + at);
	rta->rta_type = (unsigned short)type;
	rta->rta_len = (unsigned short)RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(rta), data, len);
	r->nh.nlmsg_len = (uint32_t)(at + RTA_SPACE(len));
	return rta;
}

static void provision_nla_end(struct provision_nlreq *r, struct rtattr *nest)
{
	nest->rta_len = (unsigned short)((char *)r + r->nh.nlmsg_len -
					 (char *)nest);
}

static void provision_nlreq_init(struct provision_nlreq *r, int type, int flags,
			    int ifindex)
{
	memset(r, 0, sizeof(*r));
	r->nh.nlmsg_len = NLMSG_LENGTH(sizeof(r->ifi));
	r->nh.nlmsg_type = (unsigned short)type;
	r->nh.nlmsg_flags = (unsigned short)(NLM_F_REQUEST | NLM_F_ACK | flags);
	r->nh.nlmsg_seq = 1;
	r->ifi.ifi_family = AF_UNSPEC;
	r->ifi.ifi_index = ifindex;
}

/* IFLA_INFO_DATA: its attribute numbers mean different things per kind */
static void provision_parse_info_data(struct rtattr *data, struct provision_link *l)
{
	int len = (int)RTA_PAYLOAD(data);
	bool tun = !strcmp(l->kind, "tun");
	struct rtattr *d;

	for (d = RTA_DATA(data); RTA_OK(d, len); d = RTA_NEXT(d, len)) {
		if (!RTA_PAYLOAD(d))
			continue;
		if (tun) {
			uint8_t v = *(uint8_t *)RTA_DATA(d);

			if (d->rta_type == IFLA_TUN_TYPE)
				l->tun_type = v;
			else if (d->rta_type == IFLA_TUN_MULTI_QUEUE)
				l->tun_mq = v;
			else if (d->rta_type == IFLA_TUN_VNET_HDR)
				l->tun_vnet_hdr = v;
			else if (RTA_PAYLOAD(d) < sizeof(uint32_t))
				continue;
			else if (d->rta_type == IFLA_TUN_NUM_QUEUES)
				l->tun_queues = *(uint32_t *)RTA_DATA(d);
			else if (d->rta_type == IFLA_TUN_OWNER)
				l->tun_owner = *(uint32_t *)RTA_DATA(d);
			else if (d->rta_type == IFLA_TUN_GROUP)
				l->tun_group = *(uint32_t *)RTA_DATA(d);
		} else if (d->rta_type == IFLA_MACVLAN_MODE &&
			   RTA_PAYLOAD(d) >= sizeof(uint32_t)) {
			l->macvlan_mode = *(uint32_t *)RTA_DATA(d);
		}
	}
}

static void provision_parse_linkinfo(struct rtattr *li, struct provision_link *l)
{
	int len = (int)RTA_PAYLOAD(li);
	struct rtattr *a, *data = NULL;

	for (a = RTA_DATA(li); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == IFLA_INFO_KIND)
			snprintf(l->kind, sizeof(l->kind), "%.*s",
				 (int)RTA_PAYLOAD(a), (char *)RTA_DATA(a));
		else if (a->rta_type == IFLA_INFO_DATA)
			data = a;
	}
	if (data)	/* after the loop: the kind decides how to read it */
		provision_parse_info_data(data, l);
}

static void provision_parse_link(struct nlmsghdr *nh, struct provision_link *l)
{
	struct ifinfomsg *ifi = NLMSG_DATA(nh);
	int len = (int)IFLA_PAYLOAD(nh);
	struct rtattr *a;

	memset(l, 0, sizeof(*l));
	l->ifindex = ifi->ifi_index;
	l->tun_owner = UINT32_MAX;	/* reported only when set */
	l->tun_group = UINT32_MAX;
	for (a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == IFLA_MASTER && RTA_PAYLOAD(a) >= 4)
			l->master = (int)*(uint32_t *)RTA_DATA(a);
		else if (a->rta_type == IFLA_LINK && RTA_PAYLOAD(a) >= 4)
			l->link = (int)*(uint32_t *)RTA_DATA(a);
		else if (a->rta_type == IFLA_LINKINFO)
			provision_parse_linkinfo(a, l);
	}
}

/* Send one request, wait for its ACK; a RTM_NEWLINK reply fills @l */
static int provision_nl_talk(struct provision_nlreq *r, struct provision_link *l)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	char buf[PROV_NL_BUF] __attribute__((aligned(4)));
	int fd, len, ret = -EPROTO;
	struct nlmsghdr *nh;
	ssize_t n;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	if (sendto(fd, r, r->nh.nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0) {
		ret = -errno;
		goto out_close;
	}
	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			ret = -errno;
			goto out_close;
		}
		len = (int)n;
		for (nh = (struct nlmsghdr *)(void *)buf; NLMSG_OK(nh, len);
		     nh = NLMSG_NEXT(nh, len)) {
			if (nh->nlmsg_type == NLMSG_ERROR) {
				ret = ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
				goto out_close;
			}
			if (nh->nlmsg_type == RTM_NEWLINK && l)
				provision_parse_link(nh, l);
		}
	}
out_close:
	close(fd);
	return ret;
}

static int provision_link_get(const char *name, struct provision_link *l)
{
	struct provision_nlreq r;
	int ret;

	if (!*name || strlen(name) >= IFNAMSIZ)
		return -EINVAL;
	provision_nlreq_init(&r, RTM_GETLINK, 0, 0);
	if (!provision_nla_put(&r, IFLA_IFNAME, name, strlen(name) + 1))
		return -ENOSPC;
	memset(l, 0, sizeof(*l));
	ret = provision_nl_talk(&r, l);
	if (!ret && !l->ifindex)
		return -ENODEV;
	return ret;
}

/* Set the link up and, if @master, enslave it to @master */
static int provision_link_up(int ifindex, int master)
{
	struct provision_nlreq r;
	uint32_t m = (uint32_t)master;

	provision_nlreq_init(&r, RTM_NEWLINK, 0, ifindex);
	r.ifi.ifi_flags = IFF_UP;
	r.ifi.ifi_change = IFF_UP;
	if (master && !provision_nla_put(&r, IFLA_MASTER, &m, sizeof(m)))
		return -ENOSPC;
	return provision_nl_talk(&r, NULL);
}

static int provision_link_del(int ifindex)
{
	struct provision_nlreq r;

	provision_nlreq_init(&r, RTM_DELLINK, 0, ifindex);
	return provision_nl_talk(&r, NULL);
}

static uint32_t provision_macvlan_mode(enum provision_macvtap_mode mode)
{
	return mode == PROV_MACVTAP_PASSTHRU ? MACVLAN_MODE_PASSTHRU :
					       MACVLAN_MODE_BRIDGE;
}

static int provision_macvtap_add(const char *name, int parent,
			    enum provision_macvtap_mode mode)
{
	uint32_t p = (uint32_t)parent;
	uint32_t m = provision_macvlan_mode(mode);
	struct rtattr *li, *data;
	struct provision_nlreq r;

	provision_nlreq_init(&r, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, 0);
	if (!provision_nla_put(&r, IFLA_IFNAME, name, strlen(name) + 1) ||
	    !provision_nla_put(&r, IFLA_LINK, &p, sizeof(p)))
		return -ENOSPC;
	li = provision_nla_put(&r, IFLA_LINKINFO, NULL, 0);
	if (!li || !provision_nla_put(&r, IFLA_INFO_KIND, "macvtap", 8))
		return -ENOSPC;
	data = provision_nla_put(&r, IFLA_INFO_DATA, NULL, 0);
	if (!data || !provision_nla_put(&r, IFLA_MACVLAN_MODE, &m, sizeof(m)))
		return -ENOSPC;
	provision_nla_end(&r, data);
	provision_nla_end(&r, li);
	return provision_nl_talk(&r, NULL);
}

/* ---- TAP ------------------------------------------------------------------- */

/* Attach one queue of @name (creating the TAP if it is not there) */
static int provision_tun_attach(const char *name)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR |
					  IFF_MULTI_QUEUE };
	int fd, ret;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		ret = -errno;	/* before close(), which may change errno */
		close(fd);
		return ret;
	}
	return fd;
}

static void provision_close_all(int *fds, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		close(fds[i]);
}

/* An existing device of that name: is it a TAP we can converge on? */
static int provision_tap_existing(const struct provision_tap_req *req,
			     const struct provision_link *l, struct reason *why)
{
	if (strcmp(l->kind, "tun"))
		return reason_set(why, -EEXIST, "%s exists and is a %s device, not a TAP: pick another name",
				  req->name, *l->kind ? l->kind : "plain");
	if (l->tun_type == IFF_TUN || (l->tun_type && (!l->tun_mq ||
						       !l->tun_vnet_hdr))) {
		return reason_set(why, -EEXIST, "%s exists but is not a multi_queue vnet_hdr TAP: delete it first (vnetctl tap delete %s)",
				  req->name, req->name);
	}
	return 0;
}

/* Persistent, owned, and every queue attached once */
static int provision_tap_setup(const struct provision_tap_req *req, int *fds,
			  unsigned int *nfds, struct reason *why)
{
	int fd;

	for (*nfds = 0; *nfds < req->queues; (*nfds)++) {
		fd = provision_tun_attach(req->name);
		if (fd < 0)
			return reason_set(why, fd, "%s: queue %u of %u could not attach: %s",
					  req->name, *nfds + 1, req->queues, strerror(-fd));
		fds[*nfds] = fd;
	}
	if (ioctl(fds[0], TUNSETPERSIST, 1) < 0 ||
	    (req->set_uid && ioctl(fds[0], TUNSETOWNER, (unsigned long)req->uid) < 0) ||
	    (req->set_gid && ioctl(fds[0], TUNSETGROUP, (unsigned long)req->gid) < 0)) {
		fd = -errno;
		return reason_set(why, fd, "%s: setting persist/owner/group failed: %s",
				  req->name, strerror(-fd));
	}
	return 0;
}

/*
 * A TAP this call created: its MAC from the guest's (mac.c says why), or
 * from random bytes when the guest's is not known. A TAP that existed keeps
 * the MAC its creator gave it.
 */
static int provision_tap_mac(const struct provision_tap_req *req, int fd,
			struct reason *why)
{
	uint8_t rnd[6];
	int ret;

	if (req->mac)
		return mac_tap_set(fd, req->name, req->mac, why);
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		ret = -errno;
		return reason_set(why, ret, "%s: no random bytes for its MAC: %s",
				  req->name, strerror(-ret));
	}
	return mac_tap_set(fd, req->name, rnd, why);
}

/*
 * An existing TAP with queues attached belongs to a running VM or vnetd:
 * attaching more queues to check them would change its queue steering, so
 * only verify that owner and group already are what was asked.
 */
static int provision_tap_in_use(const struct provision_tap_req *req,
			   const struct provision_link *l, struct reason *why)
{
	if ((req->set_uid && l->tun_owner != (uint32_t)req->uid) ||
	    (req->set_gid && l->tun_group != (uint32_t)req->gid)) {
		return reason_set(why, -EBUSY, "%s is in use (%u queues attached) with another owner or group: stop its user first",
				  req->name, l->tun_queues);
	}
	return 0;
}

/* Up, and into the bridge: name the bridge's kind if the kernel says no */
static int provision_tap_enslave(const struct provision_tap_req *req, int ifindex,
			    const struct provision_link *br, struct reason *why)
{
	int ret = provision_link_up(ifindex, br ? br->ifindex : 0);

	if (!ret)
		return 0;
	if (br)
		return reason_set(why, ret, "cannot add %s to bridge %s: %s%s%s%s",
				  req->name, req->bridge, strerror(-ret),
				  strcmp(br->kind, "bridge") ? " (" : "",
				  strcmp(br->kind, "bridge") ? req->bridge : "",
				  strcmp(br->kind, "bridge") ? " is not a bridge)" : "");
	return reason_set(why, ret, "cannot set %s up: %s", req->name,
			  strerror(-ret));
}

static int provision_tap_create_tap(const struct provision_tap_req *req,
			       struct provision_tap_res *res, struct reason *why)
{
	int fds[PROV_MAX_QUEUES];
	struct provision_link l, br;
	unsigned int nfds = 0;
	int ret;

	ret = provision_link_get(req->name, &l);
	if (!ret)
		ret = provision_tap_existing(req, &l, why);
	else if (ret == -ENODEV)
		ret = 0;
	else
		reason_set(why, ret, "looking up %s failed: %s", req->name,
			   strerror(-ret));
	if (ret)
		return ret;
	res->existed = l.ifindex > 0;
	if (req->bridge) {
		ret = provision_link_get(req->bridge, &br);
		if (ret)
			return reason_set(why, ret, "bridge %s: %s", req->bridge,
					  ret == -ENODEV ? "no such device" : strerror(-ret));
	}

	if (res->existed && l.tun_queues)
		/* In use: temporary queues would steal its frames; check only */
		ret = provision_tap_in_use(req, &l, why);
	else
		ret = provision_tap_setup(req, fds, &nfds, why);
	if (!ret && !res->existed)
		ret = provision_tap_mac(req, fds[0], why);
	if (ret)
		goto err_undo;
	res->ifindex = (int)if_nametoindex(req->name);
	ret = provision_tap_enslave(req, res->ifindex, req->bridge ? &br : NULL,
			       why);
	if (ret)
		goto err_undo;
	provision_close_all(fds, nfds);
	return 0;

err_undo:
	/* Not persistent any more: the TAP goes away with its last queue */
	if (!res->existed && nfds)
		ioctl(fds[0], TUNSETPERSIST, 0);
	provision_close_all(fds, nfds);
	return ret;
}

/* ---- macvtap --------------------------------------------------------------- */

/*
 * The bridge-port check. A macvtap in passthru mode is unfiltered: the VM
 * gets every frame of the parent and may send with any MAC. On a node whose
 * policy is that VM traffic passes a filter, such a device on a parent that
 * is a bridge port would let the VM bypass the bridge's filtering, so it is
 * refused. (In any mode the kernel itself refuses a macvtap on a bridge port
 * with EBUSY, one rx_handler per device; say so in words before it does.)
 */
static int provision_macvtap_parent_ok(const struct provision_tap_req *req,
				  const struct provision_link *p, struct reason *why)
{
	char master[IF_NAMESIZE] = "?";

	if (!p->master)
		return 0;
	if (!if_indextoname((unsigned int)p->master, master))
		snprintf(master, sizeof(master), "#%d", p->master);
	if (req->mode == PROV_MACVTAP_PASSTHRU && req->filtered_node)
		return reason_set(why, -EPERM, "refusing an unfiltered (passthru) macvtap on %s: %s is a port of bridge %s and this node is filtered; use a TAP on %s (--bridge %s) instead",
				  req->parent, req->parent, master, master, master);
	return reason_set(why, -EBUSY, "cannot put a macvtap on %s: it is a port of bridge %s and the kernel allows one receive handler per device; use a TAP on %s (--bridge %s) instead",
			  req->parent, master, master, master);
}

/* Wait for devtmpfs, then hand /dev/tapN to the owner and open every queue */
static int provision_macvtap_setup(const struct provision_tap_req *req,
			      struct provision_tap_res *res, struct reason *why)
{
	struct timespec ts = { .tv_nsec = 10 * 1000 * 1000 };
	int fds[PROV_MAX_QUEUES], fd = -1, i, ret;
	unsigned int n;

	snprintf(res->devnode, sizeof(res->devnode), "/dev/tap%d", res->ifindex);
	for (i = 0; i < 100 && access(res->devnode, F_OK); i++)
		nanosleep(&ts, NULL);
	if ((req->set_uid || req->set_gid) &&
	    (chown(res->devnode, req->set_uid ? req->uid : (uid_t)-1,
		   req->set_gid ? req->gid : (gid_t)-1) < 0 ||
	     chmod(res->devnode, 0660) < 0)) {
		ret = -errno;
		return reason_set(why, ret, "%s: %s", res->devnode, strerror(-ret));
	}
	for (n = 0; n < req->queues; n++) {
		fd = open(res->devnode, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			break;
		fds[n] = fd;
	}
	ret = fd < 0 ? -errno : 0;
	if (ret)
		reason_set(why, ret, "%s: queue %u of %u could not open: %s",
			   res->devnode, n + 1, req->queues, strerror(-ret));
	provision_close_all(fds, n);
	return ret;
}

static int provision_tap_create_macvtap(const struct provision_tap_req *req,
				   struct provision_tap_res *res, struct reason *why)
{
	struct provision_link p, l;
	int ret;

	if (req->bridge)
		return reason_set(why, -EINVAL, "--bridge does not apply to a macvtap: it joins %s's network directly",
				  req->parent);
	ret = provision_link_get(req->parent, &p);
	if (ret)
		return reason_set(why, ret, "parent %s: %s", req->parent,
				  ret == -ENODEV ? "no such device" : strerror(-ret));
	ret = provision_macvtap_parent_ok(req, &p, why);
	if (ret)
		return ret;

	ret = provision_link_get(req->name, &l);
	if (!ret && (strcmp(l.kind, "macvtap") || l.link != p.ifindex))
		return reason_set(why, -EEXIST, "%s exists and is not a macvtap on %s: pick another name",
				  req->name, req->parent);
	if (!ret && l.macvlan_mode && l.macvlan_mode != provision_macvlan_mode(req->mode))
		return reason_set(why, -EEXIST, "%s exists on %s in another mode: delete it first (vnetctl tap delete %s)",
				  req->name, req->parent, req->name);
	res->existed = !ret;
	if (ret == -ENODEV) {
		ret = provision_macvtap_add(req->name, p.ifindex, req->mode) ?:
		      provision_link_get(req->name, &l);
		if (ret) {
			reason_set(why, ret, "creating macvtap %s on %s: %s",
				   req->name, req->parent, strerror(-ret));
			goto err_del;
		}
	} else if (ret) {
		return reason_set(why, ret, "looking up %s: %s", req->name,
				  strerror(-ret));
	}
	res->ifindex = l.ifindex;
	ret = provision_macvtap_setup(req, res, why);
	if (!ret) {
		ret = provision_link_up(l.ifindex, 0);
		if (ret)
			reason_set(why, ret, "cannot set %s up: %s", req->name,
				   strerror(-ret));
	}
	if (!ret)
		return 0;
err_del:
	if (!res->existed && l.ifindex)
		provision_link_del(l.ifindex);
	return ret;
}

/**
 * provision_tap_create() - Create (or converge on) a multi-queue TAP or a macvtap
 * @req:	What to create
 * @res:	What was done (output)
 * @why:	One sentence for a person (output, on failure)
 *
 * All-or-nothing: on failure, a device this call created is gone again; a
 * device that was already there is left in place.
 *
 * Return: 0 on success, -EINVAL for a bad request, -EEXIST if the name is
 *	   taken by something else, -EPERM/-EBUSY for a refused macvtap
 *	   parent, or the -errno of the step that failed
 */
int provision_tap_create(const struct provision_tap_req *req, struct provision_tap_res *res,
		    struct reason *why)
{
	memset(res, 0, sizeof(*res));
	if (!req->name || !*req->name || strlen(req->name) >= IFNAMSIZ ||
	    strchr(req->name, '/') || strchr(req->name, '%')) {
		return reason_set(why, -EINVAL, "'%s' is not a usable interface name (1..15 characters, no '/' or '%%')",
				  req->name ? req->name : "");
	}
	if (req->queues < 1 || req->queues > PROV_MAX_QUEUES)
		return reason_set(why, -EINVAL, "--queues %u is out of range (allowed 1..%d)",
				  req->queues, PROV_MAX_QUEUES);
	if (req->parent)
		return provision_tap_create_macvtap(req, res, why);
	return provision_tap_create_tap(req, res, why);
}

/**
 * provision_tap_delete() - Delete a TAP or macvtap
 * @name:	Interface name
 * @force:	Delete a TAP even while queues are attached (a VM is using it)
 * @existed:	Whether it was there (output); deleting nothing succeeds
 * @why:	One sentence for a person (output, on failure)
 *
 * Refuses any other kind of device, so a typo cannot remove an uplink.
 *
 * Return: 0 on success (also when there was nothing to delete), -EPERM for
 *	   a device that is not a TAP or macvtap, -EBUSY for a TAP in use
 *	   without @force, else -errno
 */
int provision_tap_delete(const char *name, bool force, bool *existed, struct reason *why)
{
	struct provision_link l;
	int ret;

	*existed = false;
	ret = provision_link_get(name, &l);
	if (ret == -ENODEV)
		return 0;
	if (ret)
		return reason_set(why, ret, "looking up %s: %s", name, strerror(-ret));
	*existed = true;
	if (strcmp(l.kind, "macvtap") &&
	    (strcmp(l.kind, "tun") || l.tun_type == IFF_TUN)) {
		return reason_set(why, -EPERM, "%s is a %s device, not a TAP or macvtap: not deleting it",
				  name, *l.kind ? l.kind : "plain");
	}
	if (l.tun_queues && !force)
		return reason_set(why, -EBUSY, "%s has %u queue%s attached (a VM or vnetd is using it): stop it first, or use --force",
				  name, l.tun_queues, l.tun_queues > 1 ? "s" : "");
	ret = provision_link_del(l.ifindex);
	if (ret)
		return reason_set(why, ret, "deleting %s: %s", name, strerror(-ret));
	return 0;
}

/* ---- users, groups, vhost-net ---------------------------------------------- */

static void provision_mode_string(mode_t m, char s[12])
{
	static const char rwx[] = "rwxrwxrwx";
	int i;

	s[0] = S_ISCHR(m) ? 'c' : S_ISBLK(m) ? 'b' : S_ISDIR(m) ? 'd' :
	       S_ISLNK(m) ? 'l' : S_ISREG(m) ? '-' : '?';
	for (i = 0; i < 9; i++)
		s[i + 1] = (m & (1u << (8 - i))) ? rwx[i] : '-';
	s[10] = '\0';
}

static bool provision_user_in_group(const char *user, gid_t primary, gid_t g)
{
	gid_t groups[256];
	int i, n = ARRAY_SIZE(groups);

	if (primary == g)
		return true;
	if (getgrouplist(user, primary, groups, &n) < 0)
		return false;
	for (i = 0; i < n; i++)
		if (groups[i] == g)
			return true;
	return false;
}

/* Which of read/write the bits lack, as "read-write", "read" or "write" */
static const char *provision_lacks(mode_t m, mode_t r, mode_t w)
{
	if (!(m & r) && !(m & w))
		return "read-write";
	return (m & r) ? "write" : "read";
}

/* Unix permission check for @uid/@gid against @st; fills @p->detail */
static void provision_vhost_dac(const struct devperm *st, uid_t uid, gid_t gid,
			   struct provision_vhost_probe *p)
{
	const char *pre = "", *u = p->user, *grname = st->group;
	char head[224];
	mode_t m = st->mode;

	snprintf(head, sizeof(head), "%s %s: user %s", p->mode, p->owner, u);
	p->state = PROV_VHOST_DENIED;
	if (uid == 0) {
		p->state = PROV_VHOST_USABLE;
	} else if (st->uid == uid) {
		if ((m & (S_IRUSR | S_IWUSR)) == (S_IRUSR | S_IWUSR))
			p->state = PROV_VHOST_USABLE;
		else
			pre = provision_lacks(m, S_IRUSR, S_IWUSR);
		if (*pre)
			snprintf(p->detail, sizeof(p->detail),
				 "%s owns it but the owner lacks %s permission",
				 head, pre);
	} else if (provision_user_in_group(u, gid, st->gid)) {
		if ((m & (S_IRGRP | S_IWGRP)) == (S_IRGRP | S_IWGRP))
			p->state = PROV_VHOST_USABLE;
		else
			snprintf(p->detail, sizeof(p->detail),
				 "%s is in group %s but the group lacks %s permission",
				 head, grname, provision_lacks(m, S_IRGRP, S_IWGRP));
	} else if ((m & (S_IROTH | S_IWOTH)) == (S_IROTH | S_IWOTH)) {
		p->state = PROV_VHOST_USABLE;
	} else if ((m & (S_IRGRP | S_IWGRP)) == (S_IRGRP | S_IWGRP)) {
		snprintf(p->detail, sizeof(p->detail),
			 "%s is not in group %s", head, grname);
	} else {
		snprintf(p->detail, sizeof(p->detail),
			 "%s is not the owner and neither group %s nor others have read-write permission",
			 head, grname);
	}
	if (p->state == PROV_VHOST_USABLE)
		snprintf(p->detail, sizeof(p->detail),
			 "%s can read and write it", head);
}

/* Who the probe is for: @user, or the effective user */
static int provision_probe_user(const char *user, struct provision_vhost_probe *p,
			   uid_t *uid, gid_t *gid, bool *self)
{
	if (user) {
		snprintf(p->user, sizeof(p->user), "%s", user);
		if (ids_uid(user, uid))
			return -ENOENT;
		if (ids_user_gid(*uid, gid))
			*gid = (gid_t)*uid;	/* no passwd entry: its own group */
		*self = *uid == geteuid();
		return 0;
	}
	*uid = geteuid();
	*gid = getegid();
	*self = true;
	devperm_user(*uid, p->user, sizeof(p->user));
	return 0;
}

/**
 * provision_vhost_probe() - Can @user open /dev/vhost-net (or @path)?
 * @path:	Device path (PROV_VHOST_NET_DEV, or another for tests)
 * @user:	User name or uid to check for, NULL for the effective user
 * @p:		Result (output)
 *
 * Checks existence, file type and the Unix permissions for @user and its
 * groups; for the effective user it also opens the device, which catches a
 * node without a driver behind it.
 *
 * Return: 0 (the answer is in @p->state), never fails otherwise
 */
int provision_vhost_probe(const char *path, const char *user,
		     struct provision_vhost_probe *p)
{
	struct devperm st;
	bool self;
	uid_t uid;
	gid_t gid;
	int fd, ret;

	memset(p, 0, sizeof(*p));
	if (provision_probe_user(user, p, &uid, &gid, &self)) {
		p->state = PROV_VHOST_UNKNOWN_USER;
		snprintf(p->detail, sizeof(p->detail), "no such user: %s", user);
		return 0;
	}
	ret = devperm_stat(path, &st);
	if (ret) {
		p->state = ret == -ENOENT ? PROV_VHOST_ABSENT : PROV_VHOST_ERROR;
		snprintf(p->detail, sizeof(p->detail), "%s: %s", path,
			 ret == -ENOENT ? "absent (no vhost-net driver on this host)" :
			 strerror(-ret));
		return 0;
	}
	provision_mode_string(st.mode, p->mode);
	snprintf(p->owner, sizeof(p->owner), "%s:%s", st.owner, st.group);
	if (!S_ISCHR(st.mode)) {
		p->state = PROV_VHOST_NOT_CHARDEV;
		snprintf(p->detail, sizeof(p->detail),
			 "%s %s: %s is not a character device", p->mode,
			 p->owner, path);
		return 0;
	}
	provision_vhost_dac(&st, uid, gid, p);
	if (p->state != PROV_VHOST_USABLE || !self)
		return 0;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	p->state = errno == EACCES || errno == EPERM ? PROV_VHOST_DENIED :
						       PROV_VHOST_ERROR;
	snprintf(p->detail, sizeof(p->detail), "%s %s: opening %s as user %s failed: %s",
		 p->mode, p->owner, path, p->user, strerror(errno));
	return 0;
}
