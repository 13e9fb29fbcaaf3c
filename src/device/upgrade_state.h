/* SPDX-License-Identifier: MIT */
/*
 * upgrade_state.h - what one vnetd hands the next when it is upgraded in
 * place (docs/vnetd.md "Upgrading without downtime"): every port's
 * sockets, backend queue fds and vhost-user device state, as a versioned,
 * checksummed byte string plus a table of descriptors that travel beside
 * it (SCM_RIGHTS). Descriptors are named in the state by their index in
 * that table. This layer only encodes and decodes (upgrade_state.c); what
 * the device state is made of is vu_dev_upgrade.c's, the hand-over
 * protocol is vnetd's upgrade.c.
 *
 * Wire format, all little endian: a 24-byte header (magic "VNUP", version,
 * header length, body length, CRC-32 of the body, port count, descriptor
 * count), then the body: the process's own descriptors (control socket,
 * metrics listener, log), then one record per port.
 *
 * Versions: 1, and 2 = 1 plus, at the end of each connected port's device
 * record, its dirty log (a live migration running: the log's descriptor,
 * size and offset, the SET_LOG_FD eventfd). A reader reads every version
 * up to its own and refuses a newer one rather than guess; a writer writes
 * the lowest version that holds the state (1 unless a port has a dirty
 * log), so going back to the previous binary works outside a migration.
 * 3 = 2 plus, after each port's backend queue descriptors, its AF_XDP
 * sockets (per pair the socket, its UMEM's memfd, the interface queue and
 * how it was bound), written only when a port has some. Its flags gained
 * UPGRADE_XSK_TXMD later, in the same version: a reader without it
 * refuses such a socket (unknown flag), which is right, since it would
 * send TX frames where the kernel expects the metadata; without the flag
 * (an older writer) the UMEM has no room.
 * 4 = 3 plus, at the end of each port's record before its device, the
 * spec a port added at run time (`vnetctl port add`) was added with (a
 * 32-bit length, 0 for any other port, then the bytes, no NUL), written
 * only when such a port exists.
 */
#ifndef VNET_UPGRADE_STATE_H
#define VNET_UPGRADE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gmem.h"
#include "reason.h"
#include "util.h"

#define UPGRADE_MAGIC		0x50554e56u	/* "VNUP" */
#define UPGRADE_VERSION		4	/* the newest this binary reads */
#define UPGRADE_VERSION_LOG	2	/* the first with the dirty log */
#define UPGRADE_VERSION_XSK	3	/* the first with AF_XDP sockets */
#define UPGRADE_VERSION_SPEC	4	/* the first with run-time port specs */
#define UPGRADE_SPEC_LEN	1024	/* a spec's bytes and its NUL */
#define UPGRADE_HDR_LEN		24
#define UPGRADE_MAX_PORTS	64
#define UPGRADE_MAX_PAIRS	64
#define UPGRADE_MAX_RINGS	(2 * UPGRADE_MAX_PAIRS)
#define UPGRADE_NAME_LEN	32
#define UPGRADE_RX_MAX		(12 + 272)	/* vu_hdr + union vu_payload */
#define UPGRADE_RX_FDS		8
#define UPGRADE_MAX_FDS		16384

/* struct upgrade_port @flags */
#define UPGRADE_P_CONNECTED	(1u << 0)	/* a frontend is attached */
#define UPGRADE_P_CLIENT	(1u << 1)	/* client mode (we dialled) */
#define UPGRADE_P_FLAGS		(UPGRADE_P_CONNECTED | UPGRADE_P_CLIENT)

/**
 * struct upgrade_region - One guest memory region
 * @gpa:	Guest physical address
 * @size:	Bytes (never 0)
 * @uva:	Frontend virtual address
 * @mmap_offset: Offset of @gpa in its fd
 * @refs:	How many times the frontend added it (>= 1)
 * @fd:		Descriptor index
 */
struct upgrade_region {
	uint64_t gpa;
	uint64_t size;
	uint64_t uva;
	uint64_t mmap_offset;
	uint32_t refs;
	int32_t fd;
};

/**
 * struct upgrade_ring - One ring as the frontend set it up, and where the
 *			 old process stopped it
 * @num:	SET_VRING_NUM, 0: never set
 * @base:	Position in SET_VRING_BASE's encoding (split: next avail
 *		index, every popped chain used; packed: both indices, wraps)
 * @addr_flags:	SET_VRING_ADDR flags
 * @addr_set:	SET_VRING_ADDR accepted
 * @kicked:	SET_VRING_KICK seen since the last stop
 * @enabled:	SET_VRING_ENABLE state
 * @started:	The ring was running
 * @desc:	Descriptor area (frontend address)
 * @avail:	Avail ring / driver area
 * @used:	Used ring / device area
 * @log_gpa:	Used ring guest address for the dirty log
 * @kick_fd:	Descriptor index, -1: none (polled)
 * @call_fd:	Descriptor index, -1: none
 * @err_fd:	Descriptor index, -1: none
 */
struct upgrade_ring {
	uint32_t num;
	uint32_t base;
	uint32_t addr_flags;
	bool addr_set;
	bool kicked;
	bool enabled;
	bool started;
	uint64_t desc;
	uint64_t avail;
	uint64_t used;
	uint64_t log_gpa;
	int32_t kick_fd;
	int32_t call_fd;
	int32_t err_fd;
};

/**
 * struct upgrade_dev - A connected port's vhost-user device
 * @features:	Acked virtio features
 * @proto:	Acked protocol features
 * @features_set: SET_FEATURES seen
 * @owner:	SET_OWNER seen
 * @status:	SET_STATUS value
 * @mtu:	NET_SET_MTU value, 0: none
 * @nregions:	Entries of @regions
 * @regions:	Memory table
 * @nrings:	Entries of @rings (2 * queues)
 * @rings:	Rings
 * @rx_got:	Bytes of a half-received vhost-user message
 * @rx:		Those bytes (header, then payload)
 * @rx_nfds:	Descriptors that came with them
 * @rx_fds:	Their indices
 * @log_fd:	Dirty log (SET_LOG_BASE) descriptor index, -1: none
 *		(format version 2)
 * @log_size:	Its SET_LOG_BASE mmap_size, 0 without @log_fd
 * @log_offset:	Its SET_LOG_BASE mmap_offset, 0 without @log_fd
 * @log_notify_fd: SET_LOG_FD eventfd index, -1: none (version 2)
 */
struct upgrade_dev {
	uint64_t features;
	uint64_t proto;
	bool features_set;
	bool owner;
	uint8_t status;
	uint16_t mtu;
	uint32_t nregions;
	struct upgrade_region regions[GMEM_MAX_REGIONS];
	uint32_t nrings;
	struct upgrade_ring rings[UPGRADE_MAX_RINGS];
	uint32_t rx_got;
	uint8_t rx[UPGRADE_RX_MAX];
	uint32_t rx_nfds;
	int32_t rx_fds[UPGRADE_RX_FDS];
	int32_t log_fd;
	uint64_t log_size;
	uint64_t log_offset;
	int32_t log_notify_fd;
};

/* struct upgrade_xsk @flags */
#define UPGRADE_XSK_ZEROCOPY	(1u << 0)	/* bound with XDP_ZEROCOPY */
#define UPGRADE_XSK_TXMD	(1u << 1)	/* UMEM with TX metadata room */
#define UPGRADE_XSK_FLAGS	(UPGRADE_XSK_ZEROCOPY | UPGRADE_XSK_TXMD)

/**
 * struct upgrade_xsk - One pair's AF_XDP socket (format version 3)
 * @sock_fd:	The socket's descriptor index, bound, its rings settled
 * @umem_fd:	Its UMEM's memfd's index
 * @qid:	Interface queue it is bound to
 * @flags:	UPGRADE_XSK_*
 */
struct upgrade_xsk {
	int32_t sock_fd;
	int32_t umem_fd;
	uint32_t qid;
	uint32_t flags;
};

/**
 * struct upgrade_port - One port
 * @name:	Port name, NUL-terminated, not empty
 * @flags:	UPGRADE_P_*
 * @queues:	Queue pairs (1..UPGRADE_MAX_PAIRS)
 * @listen_fd:	Listening socket's index, -1: none (client mode, --fd)
 * @conn_fd:	Frontend connection's index, -1 unless connected
 * @nqfds:	Backend queue descriptors (TAP queues), 0 or @queues
 * @qfds:	Their indices, pair order
 * @nxsk:	AF_XDP sockets (af_xdp), 0 or @queues (version 3)
 * @xsk:	They, pair order
 * @spec:	The KEY=VAL,... spec of a port added at run time, NUL-
 *		terminated; empty for a port of the command line or --config
 *		(version 4)
 * @dev:	Device state, valid if UPGRADE_P_CONNECTED
 */
struct upgrade_port {
	char name[UPGRADE_NAME_LEN];
	uint32_t flags;
	uint32_t queues;
	int32_t listen_fd;
	int32_t conn_fd;
	uint32_t nqfds;
	int32_t qfds[UPGRADE_MAX_PAIRS];
	uint32_t nxsk;
	struct upgrade_xsk xsk[UPGRADE_MAX_PAIRS];
	char spec[UPGRADE_SPEC_LEN];
	struct upgrade_dev dev;
};

/**
 * struct upgrade_state - Everything handed over (about 2 MiB: heap)
 * @ctl_fd:	Control socket's index, -1: none
 * @http_fd:	--metrics-listen socket's index, -1: none
 * @log_fd:	Where the old process's stderr went, -1: none
 * @nports:	Entries of @ports
 * @ports:	Ports
 * @nfds:	Descriptors in @fds
 * @fds:	The descriptors: borrowed on the sending side, owned by the
 *		receiver (upgrade_state_close_fds() closes what no port took)
 */
struct upgrade_state {
	int32_t ctl_fd;
	int32_t http_fd;
	int32_t log_fd;
	uint32_t nports;
	struct upgrade_port ports[UPGRADE_MAX_PORTS];
	uint32_t nfds;
	int fds[UPGRADE_MAX_FDS];
};

void upgrade_state_init(struct upgrade_state *st);
int upgrade_state_add_fd(struct upgrade_state *st, int fd);
int upgrade_state_take_fd(struct upgrade_state *st, int32_t idx);
void upgrade_state_close_fds(struct upgrade_state *st);
size_t upgrade_state_max_len(void);
int upgrade_state_encode(const struct upgrade_state *st, uint8_t *buf,
			 size_t cap, size_t *len);
int upgrade_state_header(const uint8_t *buf, size_t len, uint32_t *body_len,
			 uint32_t *nfds, struct reason *why);
int upgrade_state_decode(struct upgrade_state *st, const uint8_t *buf,
			 size_t len, struct reason *why);
uint32_t upgrade_crc32(const uint8_t *p, size_t len);

#endif /* VNET_UPGRADE_STATE_H */
