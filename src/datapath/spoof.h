/* SPDX-License-Identifier: MIT */
/*
 * spoof.h - who may send frames as whom: a port's anti-spoofing policy
 * (--mac-lock, --allow-ip), its parser and the per-frame check the TX path
 * (net.c) runs on a local copy of a guest frame's first bytes.
 */
#ifndef VNET_SPOOF_H
#define VNET_SPOOF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPOOF_MAX_PREFIXES	16	/* per family */
/* Bytes of a frame the check reads: Ethernet, one VLAN tag, IPv6 header */
#define SPOOF_HDR_MAX		(14 + 4 + 40)

/**
 * struct spoof_v4 - One allowed IPv4 prefix, host order
 * @addr:	Network address (host bits cleared)
 * @mask:	Prefix mask
 */
struct spoof_v4 {
	uint32_t addr;
	uint32_t mask;
};

/**
 * struct spoof_v6 - One allowed IPv6 prefix
 * @addr:	Network address (host bits cleared), network order
 * @len:	Prefix length, 0..128
 */
struct spoof_v6 {
	uint8_t addr[16];
	uint8_t len;
};

/**
 * struct spoof_policy - A port's anti-spoofing rules; all false/0: off
 * @mac_lock:	Guest frames must come from @mac (Ethernet and ARP sender)
 * @ip_lock:	--allow-ip given: IPv4/IPv6/ARP sources must be in the lists
 * @mac:	The port's MAC (config space, --mac)
 * @n4:		Entries in @v4
 * @n6:		Entries in @v6 (the last may be the link-local derived from
 *		@mac, added by spoof_finish())
 * @v4:		Allowed IPv4 prefixes
 * @v6:		Allowed IPv6 prefixes
 */
struct spoof_policy {
	bool mac_lock;
	bool ip_lock;
	uint8_t mac[6];
	uint8_t n4;
	uint8_t n6;
	struct spoof_v4 v4[SPOOF_MAX_PREFIXES];
	struct spoof_v6 v6[SPOOF_MAX_PREFIXES + 1];
};

const char *spoof_parse_list(struct spoof_policy *p, const char *list,
			     char sep);
void spoof_finish(struct spoof_policy *p, const uint8_t mac[6]);
void spoof_set_mac(struct spoof_policy *p, const uint8_t mac[6]);
bool spoof_same(const struct spoof_policy *a, const struct spoof_policy *b);
bool spoof_active(const struct spoof_policy *p);
bool spoof_frame_ok(const struct spoof_policy *p, const uint8_t *f,
		    size_t len);

#endif /* VNET_SPOOF_H */
