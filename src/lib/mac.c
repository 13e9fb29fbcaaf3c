// SPDX-License-Identifier: MIT
/*
 * mac.c - parse and check a MAC address given on a command line or in a
 * config file: six two-digit hex bytes separated by ':', unicast, not all
 * zeros. A virtio-net device's own MAC must be unicast: a guest refuses (or
 * the network drops) frames from a group address. Callers word the message
 * with their flag; this file only says what is wrong.
 */
#include <stdio.h>
#include <string.h>

#include "mac.h"

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
