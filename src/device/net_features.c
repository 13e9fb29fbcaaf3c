// SPDX-License-Identifier: MIT
/*
 * net_features.c - the virtio-net feature bits by name (virtio 1.2 spec,
 * 5.1.3 and 6), one table for the parser of --features and the status
 * renderers. Names are the spec's VIRTIO_NET_F_ and VIRTIO_F_ suffixes in
 * lower case.
 */
#include <stddef.h>
#include <strings.h>

#include "net_features.h"
#include "util.h"

/* virtio feature bits by name (virtio 1.2 spec, 5.1.3 and 6) */
static const struct {
	const char *name;
	unsigned int bit;
} net_features[] = {
	{ "csum", 0 }, { "guest_csum", 1 }, { "ctrl_guest_offloads", 2 },
	{ "mtu", 3 }, { "mac", 5 }, { "guest_tso4", 7 }, { "guest_tso6", 8 },
	{ "guest_ecn", 9 }, { "guest_ufo", 10 }, { "host_tso4", 11 },
	{ "host_tso6", 12 }, { "host_ecn", 13 }, { "host_ufo", 14 },
	{ "mrg_rxbuf", 15 }, { "status", 16 }, { "ctrl_vq", 17 },
	{ "ctrl_rx", 18 }, { "ctrl_vlan", 19 }, { "guest_announce", 21 },
	{ "mq", 22 }, { "ctrl_mac_addr", 23 }, { "indirect_desc", 28 },
	{ "event_idx", 29 }, { "version_1", 32 }, { "access_platform", 33 },
	{ "packed", 34 }, { "in_order", 35 }, { "order_platform", 36 },
	{ "notification_data", 38 },
};

/**
 * net_feature_name() - Name of a virtio feature bit, for status
 * @bit:	Bit number
 *
 * Return: name, or NULL if unknown
 */
const char *net_feature_name(unsigned int bit)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(net_features); i++)
		if (net_features[i].bit == bit)
			return net_features[i].name;
	return NULL;
}

/**
 * net_feature_bit() - Bit of a virtio feature name, case-insensitive
 * @name:	Name as net_feature_name() gives it
 *
 * Return: bit number, or -1 if unknown
 */
int net_feature_bit(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(net_features); i++)
		if (!strcasecmp(net_features[i].name, name))
			return (int)net_features[i].bit;
	return -1;
}
