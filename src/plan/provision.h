/* SPDX-License-Identifier: MIT */
/*
 * provision.h - create and delete the host devices a VM NIC needs (a
 * multi-queue TAP, or a macvtap on a parent), and probe /dev/vhost-net for
 * a given user. Control path only; every function is synchronous, returns
 * 0 or -errno and records a sentence for a person in the caller's @why
 * (a struct reason).
 */
#ifndef VNET_PROVISION_H
#define VNET_PROVISION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "reason.h"

#define PROV_MAX_QUEUES		256	/* the kernel's MAX_TAP_QUEUES */
#define PROV_VHOST_NET_DEV	"/dev/vhost-net"

enum provision_macvtap_mode {
	PROV_MACVTAP_BRIDGE,	/* filtered: frames by destination MAC */
	PROV_MACVTAP_PASSTHRU,	/* unfiltered: the VM owns the parent */
};

/**
 * struct provision_tap_req - A TAP or macvtap to create
 * @name:	Interface name, 1..15 characters
 * @queues:	Queue count, 1..PROV_MAX_QUEUES: each is checked to attach
 * @set_uid:	Set @uid as owner (TAP: TUNSETOWNER; macvtap: /dev/tapN)
 * @uid:	Owner
 * @set_gid:	Set @gid as group
 * @gid:	Group
 * @bridge:	TAP only: bridge to enslave the TAP to, or NULL
 * @parent:	NULL for a TAP; else create a macvtap on this parent
 * @mode:	macvtap mode
 * @filtered_node: The node requires frames to pass a filter (bridge rules,
 *		MAC filters): refuse an unfiltered macvtap on a bridge port
 * @mac:	TAP only: the guest's MAC, or NULL; a TAP this call creates
 *		gets mac_tap() of it (of random bytes if NULL)
 */
struct provision_tap_req {
	const char *name;
	unsigned int queues;
	bool set_uid;
	uid_t uid;
	bool set_gid;
	gid_t gid;
	const char *bridge;
	const char *parent;
	enum provision_macvtap_mode mode;
	bool filtered_node;
	const uint8_t *mac;
};

/**
 * struct provision_tap_res - What provision_tap_create() did
 * @existed:	The device was there already (nothing was created)
 * @ifindex:	Interface index
 * @devnode:	macvtap: the character device, e.g. "/dev/tap12"; else ""
 */
struct provision_tap_res {
	bool existed;
	int ifindex;
	char devnode[32];
};

enum provision_vhost_state {
	PROV_VHOST_USABLE,	/* a character device the user can read and write */
	PROV_VHOST_ABSENT,	/* no such file */
	PROV_VHOST_NOT_CHARDEV,	/* something else is there */
	PROV_VHOST_DENIED,	/* present, but not for this user */
	PROV_VHOST_UNKNOWN_USER,
	PROV_VHOST_ERROR,	/* stat() failed otherwise, or the open failed */
};

/**
 * struct provision_vhost_probe - Result of provision_vhost_probe()
 * @state:	What was found
 * @user:	The user it was checked for
 * @mode:	ls-style mode string, e.g. "crw-rw----" (empty if absent)
 * @owner:	"user:group" of the file (empty if absent)
 * @detail:	One sentence saying what was found and why
 */
struct provision_vhost_probe {
	enum provision_vhost_state state;
	char user[64];
	char mode[12];
	char owner[136];
	char detail[512];
};

int provision_tap_create(const struct provision_tap_req *req, struct provision_tap_res *res,
		    struct reason *why);
int provision_tap_delete(const char *name, bool force, bool *existed, struct reason *why);
int provision_vhost_probe(const char *path, const char *user,
		     struct provision_vhost_probe *p);

#endif /* VNET_PROVISION_H */
