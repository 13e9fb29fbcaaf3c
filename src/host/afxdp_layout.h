/* SPDX-License-Identifier: MIT */
/*
 * afxdp_layout.h - the UMEM of one af_xdp queue pair, shared by the host
 * side (host_afxdp.c) and vnetctl, which registers the UMEM of a port
 * added at run time (src/vnetctl/xdp_socks.c): AFXDP_RING entries in each
 * ring, as many RX chunks and as many TX chunks, AFXDP_CHUNK bytes each.
 */
#ifndef VNET_AFXDP_LAYOUT_H
#define VNET_AFXDP_LAYOUT_H

#include <stddef.h>

#define AFXDP_CHUNK	4096	/* libxdp's XSK_UMEM__DEFAULT_FRAME_SIZE */
#define AFXDP_RING	1024
#define AFXDP_UMEM	((size_t)2 * AFXDP_RING * AFXDP_CHUNK)

#endif /* VNET_AFXDP_LAYOUT_H */
