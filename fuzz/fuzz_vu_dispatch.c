// SPDX-License-Identifier: MIT
/*
 * fuzz_vu_dispatch.c - libFuzzer harness for the vhost-user dispatcher
 * (vu_backend.c and the vu_dev_* layers below it): sequences of messages,
 * with real descriptors (memfds, a too-small memfd, eventfds) attached, fed to
 * vu_dev_dispatch() on a device with no worker threads. The device is
 * reused across inputs and disconnected after each, as the daemon does, so
 * state left behind by one input (leaks, stale rings) shows up in others.
 *
 * Input: one byte of options (bit 0: run a canned set-up first: owner,
 * every protocol feature, features, a 64 KiB memory table at uva
 * FZ_UVA; bit 1: with RING_PACKED), then up to FZ_MAX_MSGS records:
 *   u8 request, u8 flags (bit 0 need_reply, bit 1 bad version),
 *   u8 fds (bits 0-3 count, bit 4 eventfds, bit 5 a 4 KiB memfd),
 *   u16 size (little endian), then size payload bytes.
 *
 * Build: make fuzz-build (clang); without libFuzzer, -DFZ_STANDALONE adds
 * a main() that runs the files named on the command line once each.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/virtio_config.h>

#include "fuzz_vu_dispatch.h"
#include "log.h"
#include "vu_backend.h"
#include "vu_msg.h"

#define FZ_MAX_MSGS	64
#define FZ_MEM_SIZE	(64 * 1024)
#define FZ_UVA		0x10000ULL

static struct vu_dev *fz_dev;
static int fz_mem_fd = -1, fz_small_fd = -1;

static int fz_memfd(size_t len)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd >= 0 && ftruncate(fd, (off_t)len)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int fz_init(void)
{
	struct vu_dev_cfg c = {
		.name = "fuzz", .queues = 4, .features_mask = ~0ULL,
		.mac = { 0x52, 0x54, 0, 1, 2, 3 }, .mtu = 1500,
		.no_workers = true, .config_space = true,	/* keep GET_CONFIG reachable */
	};

	log_max_level = LOG_ERR;
	fz_mem_fd = fz_memfd(FZ_MEM_SIZE);
	fz_small_fd = fz_memfd(4096);
	if (fz_mem_fd < 0 || fz_small_fd < 0)
		return -1;
	return vu_dev_create(&fz_dev, &c);
}

/* Empty whatever replies the device sent, so the socket never fills */
static void fz_drain(int sock)
{
	char buf[4096];

	while (recv(sock, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

static void fz_attach(struct vu_msg *m, uint8_t spec)
{
	unsigned int n = spec & 0xf, i;

	if (n > VHOST_USER_MAX_FDS)
		n = VHOST_USER_MAX_FDS;
	for (i = 0; i < n; i++) {
		int fd;

		if (spec & 0x10)
			fd = eventfd(0, EFD_CLOEXEC);
		else
			fd = fcntl((spec & 0x20) ? fz_small_fd : fz_mem_fd,
				   F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			break;
		m->fds[m->nfds++] = fd;
	}
}

static int fz_send(int peer, uint32_t req, const void *p, uint32_t len,
		   uint8_t fdspec)
{
	struct vu_msg m;
	int ret;

	memset(&m, 0, sizeof(m));
	m.hdr.request = req;
	m.hdr.flags = VHOST_USER_VERSION;
	m.hdr.size = len;
	if (len)
		memcpy(&m.payload, p, len);
	fz_attach(&m, fdspec);
	ret = vu_dev_dispatch(fz_dev, &m);
	fz_drain(peer);
	return ret;
}

static int fz_setup(int peer, bool packed)
{
	uint64_t pf = (1ULL << VHOST_USER_PROTOCOL_F_MQ) |
		(1ULL << VHOST_USER_PROTOCOL_F_LOG_SHMFD) |
		(1ULL << VHOST_USER_PROTOCOL_F_RARP) |
		(1ULL << VHOST_USER_PROTOCOL_F_REPLY_ACK) |
		(1ULL << VHOST_USER_PROTOCOL_F_NET_MTU) |
		(1ULL << VHOST_USER_PROTOCOL_F_CONFIG) |
		(1ULL << VHOST_USER_PROTOCOL_F_CONFIGURE_MEM_SLOTS) |
		(1ULL << VHOST_USER_PROTOCOL_F_STATUS);
	uint64_t f = vu_dev_offered_features(fz_dev);
	struct vu_mem_table t = { .nregions = 1 };

	if (!packed)
		f &= ~(1ULL << VIRTIO_F_RING_PACKED);
	t.regions[0].memory_size = FZ_MEM_SIZE;
	t.regions[0].userspace_addr = FZ_UVA;
	if (fz_send(peer, VHOST_USER_SET_OWNER, NULL, 0, 0) ||
	    fz_send(peer, VHOST_USER_SET_PROTOCOL_FEATURES, &pf, 8, 0) ||
	    fz_send(peer, VHOST_USER_SET_FEATURES, &f, 8, 0) ||
	    fz_send(peer, VHOST_USER_SET_MEM_TABLE, &t, 8 + 32, 1))
		return -1;
	return 0;
}

/* One record from @data into @m; bytes consumed, 0 at the end */
static size_t fz_parse(const uint8_t *data, size_t size, struct vu_msg *m)
{
	size_t len;

	if (size < 5)
		return 0;
	memset(m, 0, sizeof(*m));
	m->hdr.request = data[0];
	m->hdr.flags = (data[1] & 2) ? 2 : VHOST_USER_VERSION;
	if (data[1] & 1)
		m->hdr.flags |= VHOST_USER_NEED_REPLY;
	len = (size_t)data[3] | (size_t)data[4] << 8;
	if (len > sizeof(m->payload))
		len = sizeof(m->payload);
	m->hdr.size = (uint32_t)len;
	if (len > size - 5)
		len = size - 5;
	memcpy(&m->payload, data + 5, len);
	fz_attach(m, data[2]);
	return 5 + len;
}

/**
 * fz_vu_dispatch_dev() - The device the harness dispatches to
 *
 * Return: the device, NULL before the first input
 */
struct vu_dev *fz_vu_dispatch_dev(void)
{
	return fz_dev;
}

#ifdef FZ_STANDALONE
/* How far an input got: messages accepted and rings running */
static void fz_report(unsigned int n)
{
	unsigned int np, i, started = 0;
	struct vnet_pair *p = vu_dev_pairs(fz_dev, &np);

	for (i = 0; i < np; i++)
		started += p[i].rx.started + p[i].tx.started;
	printf("%u messages accepted, %u rings started\n", n, started);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vu_msg m;
	unsigned int n = 0;
	size_t used;
	int sv[2];

	if (!fz_dev && fz_init())
		abort();	/* harness set-up, not input-driven */
	if (size < 1 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return 0;
	vu_dev_connect(fz_dev, sv[1]);
	if ((data[0] & 1) && fz_setup(sv[0], data[0] & 2))
		goto out;
	data++;
	size--;
	for (n = 0; n < FZ_MAX_MSGS; n++) {
		used = fz_parse(data, size, &m);
		if (!used)
			break;
		data += used;
		size -= used;
		if (vu_dev_dispatch(fz_dev, &m))
			break;		/* the daemon would disconnect */
		fz_drain(sv[0]);
	}
out:
#ifdef FZ_STANDALONE
	fz_report(n);
#endif
	vu_dev_disconnect(fz_dev);
	close(sv[0]);
	return 0;
}

#ifdef FZ_STANDALONE
#define FZ_MAIN_CLEANUP()	vu_dev_destroy(fz_dev)
#include "fuzz_main.h"
#endif
