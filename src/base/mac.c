// SPDX-License-Identifier: MIT
/*
 * mac.c - parse and check a MAC address given on a command line or in a
 * config file: six two-digit hex bytes separated by ':', unicast, not all
 * zeros. A virtio-net device's own MAC must be unicast: a guest refuses (or
 * the network drops) frames from a group address. Callers word the message
 * with their flag; this file only says what is wrong.
 *
 * Also the MAC of a TAP that carries a guest's frames: MAC_TAP_FIRST, then
 * the last five bytes of the guest's MAC. A Linux bridge whose MAC was never
 * set takes the lowest MAC of its ports, so a TAP with a low random MAC (the
 * tun driver's default) becomes the bridge's MAC, and when that TAP goes
 * away (vnetd stops) the bridge's MAC changes under every guest's ARP cache.
 * With 0xfe first the TAP never wins against a real port; and since the
 * guest's MAC is the same after a restart, so is the TAP's, so a bridge of
 * vnetd's TAPs only gets its old MAC back.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <sys/ioctl.h>

#include "mac.h"
#include "reason.h"

/* #syscalls: ioctl */

/**
 * mac_parse() - Parse "xx:xx:xx:xx:xx:xx" into @mac, checking it is usable
 * @s:		Text from the operator
 * @mac:	Parsed bytes (output; unchanged on failure)
 *
 * Return: NULL if @s is a usable MAC, else why not (a static string that
 *	   names the allowed form)
 */
const char *mac_parse(const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	int i;

	if (strlen(s) != 17)
		return "must be a MAC like 52:54:00:12:34:56";
	for (i = 0; i < 17; i++)
		if (i % 3 == 2 ? s[i] != ':' :
				 !strchr("0123456789abcdefABCDEF", s[i]))
			return "must be a MAC like 52:54:00:12:34:56";
	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5]) != 6)
		return "must be a MAC like 52:54:00:12:34:56";
	if (b[0] & 1)
		return "must be a unicast MAC (lowest bit of the first byte clear)";
	if (!(b[0] | b[1] | b[2] | b[3] | b[4] | b[5]))
		return "must not be all zeros";
	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return NULL;
}

/**
 * mac_tap() - The MAC for a TAP that carries @guest's frames
 * @guest:	The guest's MAC (or any six bytes: only the last five are used)
 * @tap:	MAC_TAP_FIRST and @guest's last five bytes (output)
 */
void mac_tap(const uint8_t guest[6], uint8_t tap[6])
{
	memmove(&tap[1], &guest[1], 5);
	tap[0] = MAC_TAP_FIRST;
}

/**
 * mac_tap_set() - Give a TAP the MAC mac_tap() makes of @guest
 * @tun_fd:	A queue fd of the TAP (TUNSETIFF done)
 * @ifname:	The TAP's name, for @why
 * @guest:	The guest's MAC
 * @why:	On failure, one sentence for the operator
 *
 * Context: for a TAP its caller created; an operator's own TAP keeps the
 * MAC the operator gave it. Works on the tun fd, so needs no capability
 * beyond the one that created the TAP.
 *
 * Return: 0 or -errno
 */
int mac_tap_set(int tun_fd, const char *ifname, const uint8_t guest[6],
		struct reason *why)
{
	struct ifreq ifr;
	uint8_t m[6];
	int ret;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	mac_tap(guest, m);
	ifr.ifr_hwaddr.sa_family = ARPHRD_ETHER;
	memcpy(ifr.ifr_hwaddr.sa_data, m, sizeof(m));
	if (ioctl(tun_fd, SIOCSIFHWADDR, &ifr) == 0)
		return 0;
	ret = -errno;
	return reason_set(why, ret, "tap %s: cannot set its MAC to %02x:%02x:%02x:%02x:%02x:%02x: %s",
			  ifname, m[0], m[1], m[2], m[3], m[4], m[5], strerror(-ret));
}
