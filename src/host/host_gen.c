// SPDX-License-Identifier: MIT
/*
 * host_gen.c - a traffic source for benchmarks: "gen" hands the guest one
 * frame every time it asks (as fast as the guest posts RX buffers) and
 * drops every frame the guest sends, like "null".
 *
 * The frame is built once at open(): an Ethernet/IPv4/UDP frame of
 * host_cfg.gen_size bytes (--gen-size, default 64, without FCS, 60..9000,
 * like testpmd's txonly frames), preceded by an all-zero vnet header of the
 * negotiated length. Per frame, rx() only copies that template into the
 * buffers it is given: no syscall, no allocation.
 *
 * Security model: nothing here reads guest data; rx() writes at most the
 * template's length into the iovecs net.c validated.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/virtio_net.h>

#include "gso.h"
#include "host.h"
#include "host_priv.h"
#include "reason.h"
#include "util.h"
#include "vnet_hdr.h"

#define GEN_SIZE_DEF	HOST_GEN_SIZE_DEF
#define GEN_SIZE_MIN	HOST_GEN_SIZE_MIN
#define GEN_SIZE_MAX	HOST_GEN_SIZE_MAX

/**
 * struct host_gen - Generator state, shared by all pairs (read-only per frame)
 * @len:	Template bytes: vnet header (hdr_len) + frame
 * @frame_len:	Frame bytes
 * @buf:	Template: an all-zero vnet header area of VNET_HDR_MAX bytes,
 *		then the frame; a @hdr_len header starts VNET_HDR_MAX - hdr_len in
 */
struct host_gen {
	size_t len;
	size_t frame_len;
	uint8_t buf[VNET_HDR_MAX + GEN_SIZE_MAX];
};

/* Start of the template for a @hdr_len byte vnet header */
static const uint8_t *host_gen_tmpl(const struct host_gen *g, unsigned int hdr_len)
{
	return g->buf + VNET_HDR_MAX - hdr_len;
}

static void host_gen_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Ethernet (locally administered MACs), IPv4 198.18.0.1 -> .2, UDP 9 -> 9 */
static void host_gen_build(struct host_gen *g, size_t frame_len)
{
	static const uint8_t eth[14] = {
		0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00,
	};
	uint8_t *f = g->buf + VNET_HDR_MAX, *ip = f + 14, *udp = ip + 20;

	memset(g->buf, 0, sizeof(g->buf));
	memcpy(f, eth, sizeof(eth));
	ip[0] = 0x45;
	host_gen_put16(ip + 2, (uint16_t)(frame_len - 14));
	ip[8] = 64;		/* TTL */
	ip[9] = 17;		/* UDP */
	ip[12] = 198, ip[13] = 18, ip[14] = 0, ip[15] = 1;
	ip[16] = 198, ip[17] = 18, ip[18] = 0, ip[19] = 2;
	gso_csum(ip + 10, ip, 20);
	host_gen_put16(udp, 9);
	host_gen_put16(udp + 2, 9);
	host_gen_put16(udp + 4, (uint16_t)(frame_len - 34));
	/* UDP checksum 0: none (RFC 768) */
	g->frame_len = frame_len;
}

static int host_gen_open(struct host *host, const struct host_cfg *cfg,
		       struct reason *why)
{
	struct host_gen *g;
	size_t len;

	if (!cfg->npairs || cfg->npairs > VNET_MAX_PAIRS)
		return reason_set(why, -EINVAL, "gen: %u queue pairs: use 1..%u",
				  cfg->npairs, (unsigned int)VNET_MAX_PAIRS);
	len = cfg->gen_size ? cfg->gen_size : GEN_SIZE_DEF;
	if (len < GEN_SIZE_MIN || len > GEN_SIZE_MAX)
		return reason_set(why, -EINVAL, "gen: --gen-size %zu: use %d..%d bytes",
				  len, GEN_SIZE_MIN, GEN_SIZE_MAX);
	g = calloc(1, sizeof(*g));
	if (!g)
		return reason_set(why, -ENOMEM, "gen: out of memory");
	host_gen_build(g, len);
	g->len = len;	/* + hdr_len once configured */
	host->npairs = cfg->npairs;
	host->hdr_len = 0;
	host->priv = g;
	return 0;
}

static int host_gen_configure(struct host *host, uint64_t features,
			    unsigned int hdr_len)
{
	struct host_gen *g = host->priv;

	if (!g || hdr_len > VNET_HDR_MAX)
		return -EINVAL;
	host->features = features;
	host->hdr_len = hdr_len;
	g->len = hdr_len + g->frame_len;
	return 0;
}

static ssize_t host_gen_rx(struct host *host, unsigned int pair,
			 const struct iovec *iov, unsigned int iovcnt)
{
	const struct host_gen *g = host->priv;

	if (!g || pair >= host->npairs)
		return -EINVAL;
	if (iov_fill(iov, iovcnt, host_gen_tmpl(g, host->hdr_len), g->len))
		return -EMSGSIZE;
	return (ssize_t)g->len;
}

static ssize_t host_gen_rx_peek_len(struct host *host, unsigned int pair)
{
	const struct host_gen *g = host->priv;

	if (!g || pair >= host->npairs)
		return 0;
	return (ssize_t)g->len;
}

/* Always ready: there is nothing to poll, the worker asks when it can */
static int host_gen_fd(struct host *host, unsigned int pair)
{
	(void)host;
	(void)pair;
	return -1;
}

static void host_gen_close(struct host *host)
{
	free(host->priv);
	host->priv = NULL;
	host->npairs = 0;
}

const struct host_ops host_gen_ops = {
	.name = "gen",
	.open = host_gen_open,
	.host_features = host_any_offload,
	.configure = host_gen_configure,
	.tx = host_discard_tx,
	.rx = host_gen_rx,
	.rx_peek_len = host_gen_rx_peek_len,
	.rx_fd = host_gen_fd,
	.queue_fd = host_gen_fd,
	.close = host_gen_close,
};
