// SPDX-License-Identifier: MIT
/*
 * host_null.c - the null host: every TX frame is consumed and forgotten,
 * nothing is ever received. For benchmarks of the guest TX path.
 */
#include <errno.h>
#include <stdio.h>
#include <linux/virtio_net.h>

#include "host.h"
#include "host_priv.h"
#include "reason.h"
#include "util.h"


static int host_null_open(struct host *host, const struct host_cfg *cfg,
			struct reason *why)
{
	if (!cfg->npairs || cfg->npairs > VNET_MAX_PAIRS)
		return reason_set(why, -EINVAL, "null: %u queue pairs: use 1..%u",
				  cfg->npairs, (unsigned int)VNET_MAX_PAIRS);
	host->npairs = cfg->npairs;
	host->priv = NULL;
	return 0;
}

/**
 * host_any_offload() - host_features of a host that never hands frames to
 *		      a real host stack: any offload is as good as done
 * @host:		Host side (unused)
 *
 * Return: every checksum and segmentation offload bit, both directions
 */
uint64_t host_any_offload(struct host *host)
{
	(void)host;
	return BIT(VIRTIO_NET_F_CSUM) | BIT(VIRTIO_NET_F_GUEST_CSUM) |
	       BIT(VIRTIO_NET_F_HOST_TSO4) | BIT(VIRTIO_NET_F_HOST_TSO6) |
	       BIT(VIRTIO_NET_F_HOST_ECN) | BIT(VIRTIO_NET_F_HOST_UFO) |
	       BIT(VIRTIO_NET_F_GUEST_TSO4) | BIT(VIRTIO_NET_F_GUEST_TSO6) |
	       BIT(VIRTIO_NET_F_GUEST_ECN) | BIT(VIRTIO_NET_F_GUEST_UFO);
}

static int host_null_configure(struct host *host, uint64_t features,
			     unsigned int hdr_len)
{
	host->features = features;
	host->hdr_len = hdr_len;
	return 0;
}

/**
 * host_discard_tx() - tx of a host that drops what the guest sends
 * @host:		Host side
 * @pair:	Queue pair
 * @iov:	Frame, vnet header first
 * @iovcnt:	Entries in @iov
 *
 * Return: the frame's length (taken), -EINVAL for a pair out of range
 */
ssize_t host_discard_tx(struct host *host, unsigned int pair,
		      const struct iovec *iov, unsigned int iovcnt)
{
	size_t n = 0;
	unsigned int i;

	if (pair >= host->npairs)
		return -EINVAL;
	for (i = 0; i < iovcnt; i++)
		n += iov[i].iov_len;
	return (ssize_t)n;
}

static ssize_t host_null_rx(struct host *host, unsigned int pair,
			  const struct iovec *iov, unsigned int iovcnt)
{
	(void)host;
	(void)pair;
	(void)iov;
	(void)iovcnt;
	return -EAGAIN;
}

static ssize_t host_null_rx_peek_len(struct host *host, unsigned int pair)
{
	(void)host;
	(void)pair;
	return 0;
}

static int host_null_fd(struct host *host, unsigned int pair)
{
	(void)host;
	(void)pair;
	return -1;
}

static void host_null_close(struct host *host)
{
	host->npairs = 0;
}

const struct host_ops host_null_ops = {
	.name = "null",
	.open = host_null_open,
	.host_features = host_any_offload,
	.configure = host_null_configure,
	.tx = host_discard_tx,
	.rx = host_null_rx,
	.rx_peek_len = host_null_rx_peek_len,
	.rx_fd = host_null_fd,
	.queue_fd = host_null_fd,
	.close = host_null_close,
};
