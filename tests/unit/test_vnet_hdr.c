// SPDX-License-Identifier: MIT
/*
 * test_vnet_hdr.c - the vnet header rules every layer takes from vnet_hdr.c:
 * the header length of each feature set, which lengths exist, and the gso
 * type -> offload feature mapping on both sides (TX: HOST_*, RX: GUEST_*).
 */
#include <linux/virtio_config.h>
#include <linux/virtio_net.h>

#include "testlib.h"
#include "util.h"
#include "vnet_hdr.h"

static void test_len(void)
{
	CHECK_EQ(vnet_hdr_len(0), VNET_HDR_LEGACY);
	CHECK_EQ(vnet_hdr_len(BIT(VIRTIO_NET_F_CSUM)), 10);
	CHECK_EQ(vnet_hdr_len(BIT(VIRTIO_NET_F_MRG_RXBUF)), 12);
	CHECK_EQ(vnet_hdr_len(BIT(VIRTIO_F_VERSION_1)), VNET_HDR_MAX);
	CHECK_EQ(VNET_HDR_MAX, sizeof(struct virtio_net_hdr_v1));
	CHECK_EQ(VNET_HDR_LEGACY, sizeof(struct virtio_net_hdr));
}

static void test_len_valid(void)
{
	unsigned int len, n = 0;

	for (len = 0; len < 64; len++)
		n += vnet_hdr_len_valid(len);
	CHECK_EQ(n, 2);
	CHECK(vnet_hdr_len_valid(10));
	CHECK(vnet_hdr_len_valid(12));
	CHECK(!vnet_hdr_len_valid(11));
}

static void test_gso_feature(void)
{
	CHECK_EQ(vnet_hdr_gso_feature(VIRTIO_NET_HDR_GSO_TCPV4, VNET_HDR_TX),
		 VIRTIO_NET_F_HOST_TSO4);
	CHECK_EQ(vnet_hdr_gso_feature(VIRTIO_NET_HDR_GSO_TCPV6, VNET_HDR_TX),
		 VIRTIO_NET_F_HOST_TSO6);
	CHECK_EQ(vnet_hdr_gso_feature(VIRTIO_NET_HDR_GSO_UDP, VNET_HDR_TX),
		 VIRTIO_NET_F_HOST_UFO);
	CHECK_EQ(vnet_hdr_gso_feature(VIRTIO_NET_HDR_GSO_TCPV4, VNET_HDR_RX),
		 VIRTIO_NET_F_GUEST_TSO4);
	CHECK_EQ(vnet_hdr_gso_feature(VIRTIO_NET_HDR_GSO_TCPV6, VNET_HDR_RX),
		 VIRTIO_NET_F_GUEST_TSO6);
	CHECK_EQ(vnet_hdr_gso_feature(VIRTIO_NET_HDR_GSO_UDP, VNET_HDR_RX),
		 VIRTIO_NET_F_GUEST_UFO);
	CHECK_EQ(vnet_hdr_gso_feature(VIRTIO_NET_HDR_GSO_NONE, VNET_HDR_TX), -1);
	/* ECN is a flag on a type, not a type: callers strip it first */
	CHECK_EQ(vnet_hdr_gso_feature(VIRTIO_NET_HDR_GSO_ECN |
				      VIRTIO_NET_HDR_GSO_TCPV4, VNET_HDR_TX), -1);
	CHECK_EQ(vnet_hdr_gso_feature(2, VNET_HDR_RX), -1);
	CHECK_EQ(vnet_hdr_gso_feature(VIRTIO_NET_HDR_GSO_UDP_L4, VNET_HDR_TX),
		 VIRTIO_NET_F_HOST_USO);
	CHECK_EQ(vnet_hdr_gso_feature(VIRTIO_NET_HDR_GSO_UDP_L4, VNET_HDR_RX), -1);
	CHECK_EQ(vnet_hdr_gso_feature(0xff, VNET_HDR_RX), -1);
}

int main(void)
{
	RUN(test_len);
	RUN(test_len_valid);
	RUN(test_gso_feature);
	return test_exit();
}
