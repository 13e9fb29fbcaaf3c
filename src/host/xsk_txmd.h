/* SPDX-License-Identifier: MIT */
/*
 * xsk_txmd.h - the kernel's AF_XDP TX metadata ABI (linux/if_xdp.h,
 * kernel Documentation/networking/xsk-tx-metadata.rst), for headers older
 * than it (Debian 12's linux-libc-dev 6.1 has none of it). A UMEM
 * registered with tx_metadata_len reserves that many bytes right before
 * each TX descriptor's address; a descriptor with XDP_TX_METADATA in its
 * options has its struct xsk_tx_metadata there.
 */
#ifndef VNET_XSK_TXMD_H
#define VNET_XSK_TXMD_H

#include <stddef.h>
#include <stdint.h>
#include <linux/if_xdp.h>

/* struct xdp_umem_reg.flags: the kernel fills a requested checksum in
 * software (copy mode; 6.8) */
#ifndef XDP_UMEM_TX_SW_CSUM
#define XDP_UMEM_TX_SW_CSUM		(1 << 1)
#endif
/* struct xdp_umem_reg.flags: tx_metadata_len is meant (6.11; 6.8 to 6.10
 * take tx_metadata_len without it and refuse the flag) */
#ifndef XDP_UMEM_TX_METADATA_LEN
#define XDP_UMEM_TX_METADATA_LEN	(1 << 2)
#endif
/* struct xdp_desc.options: metadata precedes this frame (6.8) */
#ifndef XDP_TX_METADATA
#define XDP_TX_METADATA			(1 << 1)
#endif

/* struct xsk_tx_metadata and its flags (6.8; 6.14 added launch_time
 * after csum_offset, which we neither set nor reserve room for) */
#ifndef XDP_TXMD_FLAGS_CHECKSUM
#define XDP_TXMD_FLAGS_TIMESTAMP	(1 << 0)
#define XDP_TXMD_FLAGS_CHECKSUM		(1 << 1)

struct xsk_tx_metadata {
	uint64_t flags;
	union {
		struct {
			uint16_t csum_start;	/* from the frame's start */
			uint16_t csum_offset;	/* from csum_start */
		} request;
		struct {
			uint64_t tx_timestamp;
		} completion;
	};
};
#endif

/**
 * struct xsk_umem_reg_md - struct xdp_umem_reg as of 6.8 (6.1's lacks
 *			    @tx_metadata_len)
 * @addr:	UMEM start
 * @len:	UMEM bytes
 * @chunk_size:	Chunk bytes
 * @headroom:	RX headroom
 * @flags:	XDP_UMEM_*
 * @tx_metadata_len: Bytes before each TX frame for metadata (a multiple
 *		of 8)
 */
struct xsk_umem_reg_md {
	uint64_t addr;
	uint64_t len;
	uint32_t chunk_size;
	uint32_t headroom;
	uint32_t flags;
	uint32_t tx_metadata_len;
};

/* Metadata room vnetd reserves: flags and the checksum request */
#define XSK_TXMD_LEN	16

_Static_assert(sizeof(struct xsk_umem_reg_md) == 32, "xdp_umem_reg of 6.8");
_Static_assert(offsetof(struct xsk_tx_metadata, request.csum_offset) + 2 <=
	       XSK_TXMD_LEN, "the checksum request fits the room");

#endif /* VNET_XSK_TXMD_H */
