/* SPDX-License-Identifier: MIT */
/*
 * vu_proto.h - vhost-user wire format (QEMU docs/interop/vhost-user.rst):
 * request codes, flag and feature bits, payload layouts. Shared by the
 * backend (vu_backend.c) and the frontend (src/driver/vu_frontend_ctl.c).
 */
#ifndef VNET_VU_PROTO_H
#define VNET_VU_PROTO_H

#include <stdint.h>

enum vu_request {
	VHOST_USER_NONE = 0,
	VHOST_USER_GET_FEATURES = 1,
	VHOST_USER_SET_FEATURES = 2,
	VHOST_USER_SET_OWNER = 3,
	VHOST_USER_RESET_OWNER = 4,
	VHOST_USER_SET_MEM_TABLE = 5,
	VHOST_USER_SET_LOG_BASE = 6,
	VHOST_USER_SET_LOG_FD = 7,
	VHOST_USER_SET_VRING_NUM = 8,
	VHOST_USER_SET_VRING_ADDR = 9,
	VHOST_USER_SET_VRING_BASE = 10,
	VHOST_USER_GET_VRING_BASE = 11,
	VHOST_USER_SET_VRING_KICK = 12,
	VHOST_USER_SET_VRING_CALL = 13,
	VHOST_USER_SET_VRING_ERR = 14,
	VHOST_USER_GET_PROTOCOL_FEATURES = 15,
	VHOST_USER_SET_PROTOCOL_FEATURES = 16,
	VHOST_USER_GET_QUEUE_NUM = 17,
	VHOST_USER_SET_VRING_ENABLE = 18,
	VHOST_USER_SEND_RARP = 19,
	VHOST_USER_NET_SET_MTU = 20,
	VHOST_USER_SET_BACKEND_REQ_FD = 21,
	VHOST_USER_IOTLB_MSG = 22,
	VHOST_USER_SET_VRING_ENDIAN = 23,
	VHOST_USER_GET_CONFIG = 24,
	VHOST_USER_SET_CONFIG = 25,
	VHOST_USER_CREATE_CRYPTO_SESSION = 26,
	VHOST_USER_CLOSE_CRYPTO_SESSION = 27,
	VHOST_USER_POSTCOPY_ADVISE = 28,
	VHOST_USER_POSTCOPY_LISTEN = 29,
	VHOST_USER_POSTCOPY_END = 30,
	VHOST_USER_GET_INFLIGHT_FD = 31,
	VHOST_USER_SET_INFLIGHT_FD = 32,
	VHOST_USER_GPU_SET_SOCKET = 33,
	VHOST_USER_RESET_DEVICE = 34,
	VHOST_USER_VRING_KICK = 35,
	VHOST_USER_GET_MAX_MEM_SLOTS = 36,
	VHOST_USER_ADD_MEM_REG = 37,
	VHOST_USER_REM_MEM_REG = 38,
	VHOST_USER_SET_STATUS = 39,
	VHOST_USER_GET_STATUS = 40,
	VHOST_USER_MAX
};

/* Header flags (spec: "Message Specification") */
#define VHOST_USER_VERSION		0x1
#define VHOST_USER_VERSION_MASK		0x3
#define VHOST_USER_REPLY		0x4
#define VHOST_USER_NEED_REPLY		0x8

/* Feature bit 30 of GET_FEATURES: protocol features are supported */
#define VHOST_USER_F_PROTOCOL_FEATURES	30
/* vhost feature bit: dirty logging of every guest write */
#define VHOST_F_LOG_ALL_BIT		26

/* Protocol feature bits */
#define VHOST_USER_PROTOCOL_F_MQ			0
#define VHOST_USER_PROTOCOL_F_LOG_SHMFD			1
#define VHOST_USER_PROTOCOL_F_RARP			2
#define VHOST_USER_PROTOCOL_F_REPLY_ACK			3
#define VHOST_USER_PROTOCOL_F_NET_MTU			4
#define VHOST_USER_PROTOCOL_F_BACKEND_REQ		5
#define VHOST_USER_PROTOCOL_F_CROSS_ENDIAN		6
#define VHOST_USER_PROTOCOL_F_CRYPTO_SESSION		7
#define VHOST_USER_PROTOCOL_F_PAGEFAULT			8
#define VHOST_USER_PROTOCOL_F_CONFIG			9
#define VHOST_USER_PROTOCOL_F_BACKEND_SEND_FD		10
#define VHOST_USER_PROTOCOL_F_HOST_NOTIFIER		11
#define VHOST_USER_PROTOCOL_F_INFLIGHT_SHMFD		12
#define VHOST_USER_PROTOCOL_F_RESET_DEVICE		13
#define VHOST_USER_PROTOCOL_F_INBAND_NOTIFICATIONS	14
#define VHOST_USER_PROTOCOL_F_CONFIGURE_MEM_SLOTS	15
#define VHOST_USER_PROTOCOL_F_STATUS			16

/* SET_VRING_KICK/CALL/ERR payload: bits 0-7 ring index, bit 8 "no fd" */
#define VHOST_USER_VRING_IDX_MASK	0xff
#define VHOST_USER_VRING_NOFD_MASK	(1u << 8)

#define VHOST_USER_MAX_FDS		8	/* per message, spec */
#define VHOST_USER_MEM_REGIONS_MAX	8	/* SET_MEM_TABLE */
#define VHOST_USER_CONFIG_SPACE_MAX	256

/**
 * struct vu_hdr - Message header, 12 bytes, host byte order (spec)
 */
struct vu_hdr {
	uint32_t request;
	uint32_t flags;
	uint32_t size;
} __attribute__((packed));

struct vu_vring_state {
	uint32_t index;
	uint32_t num;
};

struct vu_vring_addr {
	uint32_t index;
	uint32_t flags;			/* bit 0: VHOST_VRING_F_LOG */
	uint64_t desc_user_addr;
	uint64_t used_user_addr;
	uint64_t avail_user_addr;
	uint64_t log_guest_addr;
};

struct vu_mem_region {
	uint64_t guest_phys_addr;
	uint64_t memory_size;
	uint64_t userspace_addr;
	uint64_t mmap_offset;
};

struct vu_mem_table {
	uint32_t nregions;
	uint32_t padding;
	struct vu_mem_region regions[VHOST_USER_MEM_REGIONS_MAX];
};

struct vu_mem_single {
	uint64_t padding;
	struct vu_mem_region region;
};

struct vu_log {
	uint64_t mmap_size;
	uint64_t mmap_offset;
};

struct vu_config {
	uint32_t offset;
	uint32_t size;
	uint32_t flags;
	uint8_t region[VHOST_USER_CONFIG_SPACE_MAX];
};

/* Header of a config payload, without the space itself */
#define VU_CONFIG_HDR_SIZE	(3 * sizeof(uint32_t))

union vu_payload {
	uint64_t u64;
	struct vu_vring_state state;
	struct vu_vring_addr addr;
	struct vu_mem_table mem;
	struct vu_mem_single mem_reg;
	struct vu_log log;
	struct vu_config config;
	uint8_t raw[sizeof(struct vu_config)];
};

/**
 * struct vu_msg - A received or outgoing message with its descriptors
 * @hdr:	Header
 * @payload:	Payload, @hdr.size bytes valid
 * @fds:	Descriptors that came (or go) with it, SCM_RIGHTS
 * @nfds:	How many of @fds are valid
 */
struct vu_msg {
	struct vu_hdr hdr;
	union vu_payload payload;
	int fds[VHOST_USER_MAX_FDS];
	unsigned int nfds;
};

#endif /* VNET_VU_PROTO_H */
