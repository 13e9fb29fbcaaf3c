/* SPDX-License-Identifier: MIT */
/*
 * vnet_hdr.h - the virtio-net header as every layer sees it (virtio 1.x
 * 5.1.6): its length for a feature set, and which offload feature each gso
 * type needs on either side. The lowest virtio-net layer, above util.h
 * only: the device data path (net.c), the host sides (host_*.c), the
 * kernel offload (vhost_pair.c) and the frontend all take these rules from
 * here, so they cannot disagree.
 */
#ifndef VNET_VNET_HDR_H
#define VNET_VNET_HDR_H

#include <stdbool.h>
#include <stdint.h>

#define VNET_HDR_MAX		12	/* struct virtio_net_hdr_v1 */
#define VNET_HDR_LEGACY		10	/* struct virtio_net_hdr */
/* Older uapi headers lack USO (virtio 1.2 5.1.3, 5.1.6) */
#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4	5
#endif
#ifndef VIRTIO_NET_F_HOST_USO
#define VIRTIO_NET_F_HOST_USO		56
#endif

/* Largest frame after the vnet header: 64 KiB GSO frame + L2 headers */
#define VNET_FRAME_MAX		65550

/* Which side of the device a header travels: who must have acked the offload */
enum vnet_hdr_dir {
	VNET_HDR_TX,	/* guest to host: the device's HOST_* features */
	VNET_HDR_RX,	/* host to guest: the driver's GUEST_* features */
};

unsigned int vnet_hdr_len(uint64_t features);
bool vnet_hdr_len_valid(unsigned int len);
int vnet_hdr_gso_feature(uint8_t gso_type, enum vnet_hdr_dir dir);

#endif /* VNET_VNET_HDR_H */
