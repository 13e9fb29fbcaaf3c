// SPDX-License-Identifier: MIT
/*
 * vnet_hdr.c - the rules of the virtio-net header that more than one layer
 * needs: its length for a feature set and the gso type <-> offload feature
 * mapping. Pure functions of their arguments; validating a guest's header
 * against its frame is net.c's (net_hdr_check()).
 */
#include <linux/virtio_config.h>
#include <linux/virtio_net.h>

#include "util.h"
#include "vnet_hdr.h"

/**
 * vnet_hdr_len() - vnet header length for a feature set
 * @features:	Negotiated virtio-net features
 *
 * virtio 1.x 5.1.6: the header has num_buffers (12 bytes) with VERSION_1 or
 * MRG_RXBUF, else it is the legacy 10 byte header.
 *
 * Return: VNET_HDR_MAX (12) or VNET_HDR_LEGACY (10)
 */
unsigned int vnet_hdr_len(uint64_t features)
{
	if (features & (BIT(VIRTIO_F_VERSION_1) | BIT(VIRTIO_NET_F_MRG_RXBUF)))
		return VNET_HDR_MAX;
	return VNET_HDR_LEGACY;
}

/**
 * vnet_hdr_len_valid() - Is @len a vnet header length some feature set has?
 * @len:	Length to check
 *
 * Return: true for VNET_HDR_LEGACY and VNET_HDR_MAX
 */
bool vnet_hdr_len_valid(unsigned int len)
{
	return len == VNET_HDR_LEGACY || len == VNET_HDR_MAX;
}

/**
 * vnet_hdr_gso_feature() - The offload feature a gso type needs
 * @gso_type:	gso_type of a header; the ECN bit is not a type: callers
 *		that allow it strip it (and check HOST/GUEST_ECN) first
 * @dir:	VNET_HDR_TX: the HOST_* feature the device must have offered
 *		for a guest to send it; VNET_HDR_RX: the GUEST_* feature the
 *		driver must have acked to be given it
 *
 * Return: the feature bit number, or -1 for GSO_NONE (no feature needed),
 *	   UDP_L4 towards the guest and any other value (no feature allows it)
 */
int vnet_hdr_gso_feature(uint8_t gso_type, enum vnet_hdr_dir dir)
{
	bool tx = dir == VNET_HDR_TX;

	switch (gso_type) {
	case VIRTIO_NET_HDR_GSO_TCPV4:
		return tx ? VIRTIO_NET_F_HOST_TSO4 : VIRTIO_NET_F_GUEST_TSO4;
	case VIRTIO_NET_HDR_GSO_TCPV6:
		return tx ? VIRTIO_NET_F_HOST_TSO6 : VIRTIO_NET_F_GUEST_TSO6;
	case VIRTIO_NET_HDR_GSO_UDP:
		return tx ? VIRTIO_NET_F_HOST_UFO : VIRTIO_NET_F_GUEST_UFO;
	case VIRTIO_NET_HDR_GSO_UDP_L4:
		/* the guest side needs GUEST_USO4 or 6 by IP version: not
		 * given to guests here */
		return tx ? VIRTIO_NET_F_HOST_USO : -1;
	default:
		return -1;
	}
}
