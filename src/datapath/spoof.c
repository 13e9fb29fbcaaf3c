// SPDX-License-Identifier: MIT
/*
 * spoof.c - a port's anti-spoofing policy: the --allow-ip list parser and
 * the check of one guest TX frame's headers against --mac-lock and the
 * lists. The caller (net.c) hands a local copy of the frame's first bytes
 * and sends that copy, so what was checked is what leaves; counting and
 * dropping are the caller's too.
 *
 * Security model: the frame bytes are guest-controlled; they are read only
 * from the caller's copy, every offset is checked against the copied
 * length, and a frame too short for the header its ethertype announces is
 * refused. What is checked (docs/vnetd.md, "Anti-spoofing"):
 * - --mac-lock: the Ethernet source and an ARP/RARP sender hardware address
 *   are the port's MAC.
 * - --allow-ip: an ARP sender IP, IPv4 source or IPv6 source is in the
 *   lists, or is one a booting guest needs: 0.0.0.0 (DHCP discover, ARP
 *   probe), :: (DAD, MLD before an address), and the link-local address
 *   derived from the port's MAC (EUI-64, SLAAC's default); other link-local
 *   addresses need fe80::/10 in the list.
 * - One VLAN tag (802.1Q or 802.1ad): the inner frame is checked; with
 *   --allow-ip, a second tag is refused (not looked into).
 * - Other ethertypes (LLDP, ...) carry no IP source and pass.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "eth.h"
#include "spoof.h"

#define SPOOF_ARP_LEN	28	/* Ethernet/IPv4 ARP body */

static uint16_t spoof_be16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

static uint32_t spoof_be32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

/* One item: ADDR or ADDR/LEN, IPv4 or IPv6; NULL or why not */
static const char *spoof_parse_item(struct spoof_policy *p, char *item)
{
	char *slash = strchr(item, '/'), *end;
	unsigned long len;
	uint8_t a6[16];
	struct in_addr a4;
	unsigned int i;

	if (slash)
		*slash++ = '\0';
	if (inet_pton(AF_INET, item, &a4) == 1) {
		len = 32;
		if (slash && (!*slash || (len = strtoul(slash, &end, 10), *end) ||
			      len > 32))
			return "IPv4 prefix length must be 0..32";
		if (p->n4 >= SPOOF_MAX_PREFIXES)
			return "at most 16 IPv4 entries";
		p->v4[p->n4].mask = len ? ~0u << (32 - len) : 0;
		p->v4[p->n4].addr = ntohl(a4.s_addr) & p->v4[p->n4].mask;
		p->n4++;
		return NULL;
	}
	if (inet_pton(AF_INET6, item, a6) != 1)
		return "must be IPv4 or IPv6 addresses or CIDRs like 192.0.2.10, 10.0.0.0/24, 2001:db8::/64 (in a ':' list IPv6 goes in brackets: [2001:db8::/64])";
	len = 128;
	if (slash && (!*slash || (len = strtoul(slash, &end, 10), *end) ||
		      len > 128))
		return "IPv6 prefix length must be 0..128";
	if (p->n6 >= SPOOF_MAX_PREFIXES)
		return "at most 16 IPv6 entries";
	for (i = 0; i < 16; i++) {
		unsigned int bits = len > i * 8 ? (unsigned int)len - i * 8 : 0;

		p->v6[p->n6].addr[i] = bits >= 8 ? a6[i] :
			(uint8_t)(a6[i] & (0xff00 >> bits));
	}
	p->v6[p->n6].len = (uint8_t)len;
	p->n6++;
	return NULL;
}

/**
 * spoof_parse_list() - Add an --allow-ip list to a policy
 * @p:		Policy (zeroed before the first list)
 * @list:	Items separated by @sep; an item may be in brackets, as IPv6
 *		must be where @sep is ':' ([2001:db8::/64])
 * @sep:	',' on the command line, ':' in --port and config files
 *
 * Return: NULL, or why the list is refused (names the allowed forms)
 */
const char *spoof_parse_list(struct spoof_policy *p, const char *list,
			     char sep)
{
	char item[64];
	const char *s = list, *e, *why;
	size_t n;

	if (!*list)
		return "must list at least one address";
	while (*s) {
		if (*s == '[') {
			e = strchr(++s, ']');
			if (!e || (e[1] && e[1] != sep))
				return "'[' without ']' before the next item";
			n = (size_t)(e - s);
			e++;
		} else {
			e = strchr(s, sep);
			if (!e)
				e = s + strlen(s);
			n = (size_t)(e - s);
		}
		if (!n || n >= sizeof(item))
			return "empty or overlong item (IPv6 in a ':' list goes in brackets: [2001:db8::1])";
		memcpy(item, s, n);
		item[n] = '\0';
		why = spoof_parse_item(p, item);
		if (why)
			return why;
		s = *e ? e + 1 : e;
	}
	p->ip_lock = true;
	return NULL;
}

/**
 * spoof_finish() - Complete a parsed policy with the port's MAC
 * @p:		Policy
 * @mac:	The port's MAC (config space)
 *
 * With --allow-ip, the MAC's EUI-64 link-local address (fe80::/64 with
 * the universal/local bit flipped, RFC 4291 2.5.1) is allowed too.
 */
void spoof_finish(struct spoof_policy *p, const uint8_t mac[6])
{
	struct spoof_v6 *ll = &p->v6[p->n6];

	memcpy(p->mac, mac, 6);
	if (!p->ip_lock || p->n6 > SPOOF_MAX_PREFIXES)
		return;
	memset(ll, 0, sizeof(*ll));
	ll->addr[0] = 0xfe;
	ll->addr[1] = 0x80;
	ll->addr[8] = mac[0] ^ 0x02;
	ll->addr[9] = mac[1];
	ll->addr[10] = mac[2];
	ll->addr[11] = 0xff;
	ll->addr[12] = 0xfe;
	ll->addr[13] = mac[3];
	ll->addr[14] = mac[4];
	ll->addr[15] = mac[5];
	ll->len = 128;
	p->n6++;
}

/**
 * spoof_set_mac() - Give a finished policy another MAC
 * @p:		Policy, spoof_finish() done
 * @mac:	The port's MAC now (a SIGHUP that keeps a running port's MAC
 *		for a config line without mac=)
 *
 * The link-local address spoof_finish() added for the old MAC (with
 * --allow-ip, always the last IPv6 entry: the lists hold at most
 * SPOOF_MAX_PREFIXES) is replaced by @mac's.
 */
void spoof_set_mac(struct spoof_policy *p, const uint8_t mac[6])
{
	if (p->ip_lock && p->n6)
		p->n6--;
	spoof_finish(p, mac);
}

/**
 * spoof_same() - Whether two finished policies check the same
 * @a:		Policy
 * @b:		Policy
 *
 * Field by field, the used list entries only (what lies past them and
 * struct padding are not compared), in order: the same addresses listed
 * in another order compare different.
 *
 * Return: true if @a and @b hold the same MAC, locks and lists
 */
bool spoof_same(const struct spoof_policy *a, const struct spoof_policy *b)
{
	unsigned int i;

	if (a->mac_lock != b->mac_lock || a->ip_lock != b->ip_lock ||
	    memcmp(a->mac, b->mac, 6) || a->n4 != b->n4 || a->n6 != b->n6)
		return false;
	for (i = 0; i < a->n4; i++)
		if (a->v4[i].addr != b->v4[i].addr ||
		    a->v4[i].mask != b->v4[i].mask)
			return false;
	for (i = 0; i < a->n6; i++)
		if (memcmp(a->v6[i].addr, b->v6[i].addr, 16) ||
		    a->v6[i].len != b->v6[i].len)
			return false;
	return true;
}

/**
 * spoof_active() - Whether a policy checks anything
 * @p:		Policy
 *
 * Return: true with --mac-lock or --allow-ip
 */
bool spoof_active(const struct spoof_policy *p)
{
	return p->mac_lock || p->ip_lock;
}

static bool spoof_v4_ok(const struct spoof_policy *p, uint32_t a)
{
	unsigned int i;

	if (!a)		/* 0.0.0.0: DHCP discover/request, ARP probe */
		return true;
	for (i = 0; i < p->n4; i++)
		if ((a & p->v4[i].mask) == p->v4[i].addr)
			return true;
	return false;
}

static bool spoof_v6_match(const struct spoof_v6 *e, const uint8_t *a)
{
	unsigned int full = e->len / 8, rest = e->len % 8;

	if (memcmp(e->addr, a, full))
		return false;
	return !rest || (a[full] & (0xff00 >> rest)) == e->addr[full];
}

static bool spoof_v6_ok(const struct spoof_policy *p, const uint8_t *a)
{
	static const uint8_t any[16];
	unsigned int i;

	if (!memcmp(a, any, sizeof(any)))	/* ::, DAD and early MLD */
		return true;
	for (i = 0; i < p->n6; i++)
		if (spoof_v6_match(&p->v6[i], a))
			return true;
	return false;
}

/* ARP and RARP: Ethernet/IPv4 only; @b is the body, @len its bytes */
static bool spoof_arp_ok(const struct spoof_policy *p, const uint8_t *b,
			 size_t len)
{
	if (len < SPOOF_ARP_LEN || spoof_be16(b) != 1 ||
	    spoof_be16(b + 2) != ETH_P_IP_ || b[4] != 6 || b[5] != 4)
		return false;
	if (p->mac_lock && memcmp(b + 8, p->mac, 6))
		return false;
	return !p->ip_lock || spoof_v4_ok(p, spoof_be32(b + 14));
}

/**
 * spoof_frame_ok() - Whether a guest may send this frame
 * @p:		Policy, spoof_active()
 * @f:		Local copy of the frame's first bytes (Ethernet header on)
 * @len:	Bytes in @f: the frame's length or SPOOF_HDR_MAX, the smaller
 *
 * Return: true to send it, false to drop it (also for a frame too short
 *	   for the headers it announces)
 */
bool spoof_frame_ok(const struct spoof_policy *p, const uint8_t *f,
		    size_t len)
{
	size_t off = 14;
	uint16_t type;

	if (len < 14 || (p->mac_lock && memcmp(f + 6, p->mac, 6)))
		return false;
	type = spoof_be16(f + 12);
	if (type == ETH_P_8021Q_ || type == ETH_P_8021AD_) {
		if (len < 18)
			return false;
		type = spoof_be16(f + 16);
		off = 18;
		if (p->ip_lock && (type == ETH_P_8021Q_ || type == ETH_P_8021AD_))
			return false;
	}
	switch (type) {
	case ETH_P_ARP_:
	case ETH_P_RARP_:
		return spoof_arp_ok(p, f + off, len - off);
	case ETH_P_IP_:
		if (!p->ip_lock)
			return true;
		return len - off >= 20 && (f[off] >> 4) == 4 &&
		       spoof_v4_ok(p, spoof_be32(f + off + 12));
	case ETH_P_IPV6_:
		if (!p->ip_lock)
			return true;
		return len - off >= 40 && (f[off] >> 4) == 6 &&
		       spoof_v6_ok(p, f + off + 8);
	default:
		return true;
	}
}
