// SPDX-License-Identifier: MIT
/*
 * be_null.c - the null backend: every TX frame is consumed and forgotten,
 * nothing is ever received. For benchmarks of the guest TX path.
 */
#include <errno.h>
#include <stdio.h>
#include <linux/virtio_net.h>

#include "backend.h"
#include "be_priv.h"

#define F(bit)	(1ULL << (bit))

static int be_null_open(struct backend *be, const struct backend_cfg *cfg,
			char *err, size_t errlen)
{
	if (!cfg->npairs || cfg->npairs > BACKEND_MAX_PAIRS) {
		snprintf(err, errlen, "null: %u queue pairs: use 1..%u",
			 cfg->npairs, (unsigned int)BACKEND_MAX_PAIRS);
		return -EINVAL;
	}
	be->npairs = cfg->npairs;
	be->priv = NULL;
	return 0;
}

/**
 * be_any_offload() - host_features of a backend that never hands frames to
 *		      a real host stack: any offload is as good as done
 * @be:		Backend (unused)
 *
 * Return: every checksum and segmentation offload bit, both directions
 */
uint64_t be_any_offload(struct backend *be)
{
	(void)be;
	return F(VIRTIO_NET_F_CSUM) | F(VIRTIO_NET_F_GUEST_CSUM) |
	       F(VIRTIO_NET_F_HOST_TSO4) | F(VIRTIO_NET_F_HOST_TSO6) |
	       F(VIRTIO_NET_F_HOST_ECN) | F(VIRTIO_NET_F_HOST_UFO) |
	       F(VIRTIO_NET_F_GUEST_TSO4) | F(VIRTIO_NET_F_GUEST_TSO6) |
	       F(VIRTIO_NET_F_GUEST_ECN) | F(VIRTIO_NET_F_GUEST_UFO);
}

static int be_null_configure(struct backend *be, uint64_t features,
			     unsigned int hdr_len)
{
	be->features = features;
	be->hdr_len = hdr_len;
	return 0;
}

/**
 * be_discard_tx() - tx of a backend that drops what the guest sends
 * @be:		Backend
 * @pair:	Queue pair
 * @iov:	Frame, vnet header first
 * @iovcnt:	Entries in @iov
 *
 * Return: the frame's length (taken), -EINVAL for a pair out of range
 */
ssize_t be_discard_tx(struct backend *be, unsigned int pair,
		      const struct iovec *iov, unsigned int iovcnt)
{
	size_t n = 0;
	unsigned int i;

	if (pair >= be->npairs)
		return -EINVAL;
	for (i = 0; i < iovcnt; i++)
		n += iov[i].iov_len;
	return (ssize_t)n;
}

static ssize_t be_null_rx(struct backend *be, unsigned int pair,
			  const struct iovec *iov, unsigned int iovcnt)
{
	(void)be;
	(void)pair;
	(void)iov;
	(void)iovcnt;
	return -EAGAIN;
}

static ssize_t be_null_rx_peek_len(struct backend *be, unsigned int pair)
{
	(void)be;
	(void)pair;
	return 0;
}

static int be_null_fd(struct backend *be, unsigned int pair)
{
	(void)be;
	(void)pair;
	return -1;
}

static void be_null_close(struct backend *be)
{
	be->npairs = 0;
}

const struct backend_ops be_null_ops = {
	.name = "null",
	.open = be_null_open,
	.host_features = be_any_offload,
	.configure = be_null_configure,
	.tx = be_discard_tx,
	.rx = be_null_rx,
	.rx_peek_len = be_null_rx_peek_len,
	.rx_fd = be_null_fd,
	.queue_fd = be_null_fd,
	.close = be_null_close,
};
