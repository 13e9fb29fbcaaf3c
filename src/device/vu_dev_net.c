// SPDX-License-Identifier: MIT
/*
 * vu_dev_net.c - the vhost-user device's virtio-net layer (vu_dev_net.h),
 * on vu_dev_mem and vu_dev_core: the features offered and acked (with the
 * vnet header length they imply), GET_QUEUE_NUM (MQ), NET_SET_MTU, the
 * config space and SEND_RARP. Generic vhost-user negotiation (owner,
 * protocol features, status) is the dispatcher's (vu_backend.c), which has
 * checked size, descriptor count and negotiation state before any handler
 * here runs.
 *
 * Security model: payloads come from the untrusted frontend; each value is
 * read once into a local and checked there: acked features against the
 * offered set, the MTU against 68..the configured maximum, config reads
 * against the config space's size. The config space is read-only.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <linux/virtio_config.h>
#include <linux/virtio_net.h>
#include <linux/virtio_ring.h>

#include "log.h"
#include "vnet_hdr.h"
#include "vu_dev_net.h"
#include "vu_msg.h"

/* Offloads offered only where the backend's host side honours them */
#define VU_OFFLOAD_FEATURES						\
	(BIT(VIRTIO_NET_F_CSUM) | BIT(VIRTIO_NET_F_GUEST_CSUM) |	\
	 BIT(VIRTIO_NET_F_HOST_TSO4) | BIT(VIRTIO_NET_F_HOST_TSO6) |	\
	 BIT(VIRTIO_NET_F_GUEST_TSO4) | BIT(VIRTIO_NET_F_GUEST_TSO6) |	\
	 BIT(VIRTIO_NET_F_HOST_ECN) | BIT(VIRTIO_NET_F_GUEST_ECN) |	\
	 BIT(VIRTIO_NET_F_HOST_UFO) | BIT(VIRTIO_NET_F_GUEST_UFO) |	\
	 BIT(VIRTIO_NET_F_HOST_USO))

/*
 * Always offered. Not offered: CTRL_VQ (no control queue here; QEMU runs
 * its own) and so GUEST_ANNOUNCE, which needs CTRL_VQ (virtio 5.1.3.1):
 * without it QEMU announces a migrated guest with SEND_RARP instead.
 */
#define VU_BASE_FEATURES						\
	(BIT(VIRTIO_F_VERSION_1) | BIT(VIRTIO_NET_F_MRG_RXBUF) |	\
	 BIT(VIRTIO_RING_F_EVENT_IDX) | BIT(VIRTIO_RING_F_INDIRECT_DESC) | \
	 BIT(VIRTIO_F_RING_PACKED) | BIT(VIRTIO_F_IN_ORDER) |		\
	 BIT(VIRTIO_NET_F_MAC) | BIT(VIRTIO_NET_F_STATUS) |		\
	 BIT(VHOST_F_LOG_ALL_BIT) | BIT(VHOST_USER_F_PROTOCOL_FEATURES))

/**
 * vu_net_offer() - The virtio features a port offers, fixed at create
 * @cfg:	Port configuration: host side, queues, MTU, --features mask
 *
 * Return: the base set, the host side's offloads, MQ and MTU where they
 *	   apply, masked by @cfg->features_mask
 */
uint64_t vu_net_offer(const struct vu_dev_cfg *cfg)
{
	uint64_t f = VU_BASE_FEATURES;

	if (cfg->host && cfg->host->ops->host_features)
		f |= cfg->host->ops->host_features(cfg->host) & VU_OFFLOAD_FEATURES;
	if (cfg->queues > 1)
		f |= BIT(VIRTIO_NET_F_MQ);
	if (cfg->mtu)
		f |= BIT(VIRTIO_NET_F_MTU);
	return f & cfg->features_mask;
}

/**
 * vu_get_features() - GET_FEATURES: the features offered
 * @d:		Device
 * @m:		Message; the u64 reply is built in it
 * @idx:	Unused
 *
 * Return: 0
 */
int vu_get_features(struct vu_dev *d, struct vu_msg *m,
		    unsigned int idx UNUSED)
{
	vu_reply_u64(m, d->offered);
	return 0;
}

static void vu_rarp_tx(struct vu_dev *d, const uint8_t mac[6]);

static int vu_apply_features(struct vu_dev *d, uint64_t f)
{
	uint64_t changed = (f ^ d->features) & ~BIT(VHOST_F_LOG_ALL_BIT);
	unsigned int i, hdr_len = vnet_hdr_len(f);
	struct host *host = d->cfg.host;
	int ret;

	if (host && host->ops->configure && (changed || !d->features_set)) {
		ret = host->ops->configure(host, f, hdr_len);
		if (ret)
			return vu_fail(d, ret, "backend refused features %#llx",
				       (unsigned long long)f);
	}
	d->features = f;
	d->features_set = true;
	for (i = 0; i < d->cfg.queues; i++) {
		d->pairs[i].features = f;
		d->pairs[i].hdr_len = hdr_len;
	}
	/* vhost-user "Ring states": no PROTOCOL_FEATURES, rings enabled now */
	if (!(f & BIT(VHOST_USER_F_PROTOCOL_FEATURES)))
		for (i = 0; i < 2 * d->cfg.queues; i++)
			vu_vring(d, i)->enabled = true;
	for (i = 0; i < 2 * d->cfg.queues; i++)
		vu_ring_update_log(d, i);
	return 0;
}

/**
 * vu_set_features() - SET_FEATURES: the features the frontend acks
 * @d:		Device
 * @m:		Message: u64 features
 * @idx:	Unused
 *
 * Only VHOST_F_LOG_ALL may change while rings run (migration); the host
 * side is told of a new vnet header length before the pairs see it.
 *
 * Return: -EINVAL for a bit not offered, -EBUSY for a change (other than
 *	   LOG_ALL) under a running ring, -errno from the host side or vhost-net
 */
int vu_set_features(struct vu_dev *d, struct vu_msg *m,
		    unsigned int idx UNUSED)
{
	uint64_t f = m->payload.u64, changed, was_log;
	unsigned int i;
	int ret;

	if (f & ~d->offered)
		return vu_fail(d, -EINVAL, "features %#llx not offered",
			       (unsigned long long)(f & ~d->offered));
	/* Only LOG_ALL may change under running rings (migration) */
	changed = (f ^ d->features) & ~BIT(VHOST_F_LOG_ALL_BIT);
	for (i = 0; changed && d->features_set && i < 2 * d->cfg.queues; i++)
		if (vu_vring(d, i)->started)
			return vu_fail(d, -EBUSY,
				       "features %#llx changed while ring %u runs",
				       (unsigned long long)changed, i);
	vu_pause_all(d);
	was_log = d->features & BIT(VHOST_F_LOG_ALL_BIT);
	ret = vu_apply_features(d, f);
	/* Dirty logging switched on or off under offloaded pairs */
	if (!ret && was_log != (f & BIT(VHOST_F_LOG_ALL_BIT)))
		ret = vu_offload_log(d);
	/* Live migration: the announcement held since before the device started */
	if (!ret && d->rarp_pending) {
		d->rarp_pending = false;
		vu_rarp_tx(d, d->rarp_mac);
	}
	vu_resume_all(d);
	return ret;
}

/**
 * vu_get_queue_num() - GET_QUEUE_NUM: the queue pairs a frontend may use
 * @d:		Device
 * @m:		Message; the u64 reply is built in it
 * @idx:	Unused
 *
 * Return: 0
 */
int vu_get_queue_num(struct vu_dev *d, struct vu_msg *m,
		     unsigned int idx UNUSED)
{
	vu_reply_u64(m, d->cfg.queues);
	return 0;
}

/* An RFC 903 reverse ARP request for @mac, as QEMU's announce sends */
static size_t vu_rarp_frame(uint8_t *f, const uint8_t mac[6])
{
	static const uint8_t hdr[] = {
		0x80, 0x35,		/* ethertype RARP */
		0x00, 0x01, 0x08, 0x00,	/* htype Ethernet, ptype IPv4 */
		6, 4, 0x00, 0x03,	/* hlen, plen, op: request reverse */
	};

	memset(f, 0, 60);
	memset(f, 0xff, 6);
	memcpy(f + 6, mac, 6);
	memcpy(f + 12, hdr, sizeof(hdr));
	memcpy(f + 22, mac, 6);		/* sender hardware address */
	memcpy(f + 32, mac, 6);		/* target hardware address */
	return 60;			/* padded to the Ethernet minimum */
}

/* Send the RARP for @mac on pair 0's host queue; the caller paused pair 0 */
static void vu_rarp_tx(struct vu_dev *d, const uint8_t mac[6])
{
	uint8_t hdr[sizeof(struct virtio_net_hdr_mrg_rxbuf)] = { 0 };
	struct host *host = d->cfg.host;
	uint8_t frame[60];
	struct iovec iov[2];
	ssize_t n;

	iov[0].iov_base = hdr;
	iov[0].iov_len = d->pairs[0].hdr_len;
	iov[1].iov_base = frame;
	iov[1].iov_len = vu_rarp_frame(frame, mac);
	n = host->ops->tx(host, 0, iov, 2);
	if (host->ops->tx_flush)
		host->ops->tx_flush(host, 0);
	if (n < 0)	/* host side trouble, not the frontend's fault */
		log_warn("%s: SEND_RARP: backend tx failed: %s", d->cfg.name,
			 strerror((int)-n));
}

/**
 * vu_send_rarp() - SEND_RARP: the guest moved; announce its MAC on the
 *		    host side
 * @d:		Device
 * @m:		Message: the MAC in the first 6 payload bytes
 * @idx:	Unused
 *
 * The frame goes out through pair 0's host queue with the pair paused
 * (backend tx is the pair worker's call otherwise). A migration
 * destination announces before it starts the device: before SET_FEATURES
 * the host side's vnet header length is unknown, so the frame is held and
 * sent by vu_set_features() (once, the latest MAC; dropped if the session
 * ends first).
 *
 * Return: 0 (a host side that cannot send is logged, not the frontend's
 *	   fault)
 */
int vu_send_rarp(struct vu_dev *d, struct vu_msg *m,
		 unsigned int idx UNUSED)
{
	struct host *host = d->cfg.host;
	uint8_t mac[6];

	memcpy(mac, m->payload.raw, sizeof(mac));
	if (!host || !host->ops->tx) {
		log_info("%s: SEND_RARP for %02x:%02x:%02x:%02x:%02x:%02x accepted, no host queue to send it on",
			 d->cfg.name, mac[0], mac[1], mac[2], mac[3], mac[4],
			 mac[5]);
		return 0;
	}
	if (!d->features_set) {
		memcpy(d->rarp_mac, mac, sizeof(mac));
		d->rarp_pending = true;
		log_info("%s: SEND_RARP for %02x:%02x:%02x:%02x:%02x:%02x before the device started: sent when it starts",
			 d->cfg.name, mac[0], mac[1], mac[2], mac[3], mac[4],
			 mac[5]);
		return 0;
	}
	vu_pause(d, 0);
	vu_rarp_tx(d, mac);
	vu_resume(d, 0);
	return 0;
}

/**
 * vu_net_set_mtu() - NET_SET_MTU: the MTU the guest uses
 * @d:		Device
 * @m:		Message: u64 MTU
 * @idx:	Unused
 *
 * Return: 0, -EINVAL outside 68..the configured MTU (65535 if none)
 */
int vu_net_set_mtu(struct vu_dev *d, struct vu_msg *m,
		   unsigned int idx UNUSED)
{
	uint64_t mtu = m->payload.u64;

	/* virtio 5.1.4.1: the device offers the maximum; 68 is IPv4's minimum */
	if (mtu < 68 || mtu > 65535 || (d->cfg.mtu && mtu > d->cfg.mtu))
		return vu_fail(d, -EINVAL, "MTU %llu outside 68..%u",
			       (unsigned long long)mtu,
			       d->cfg.mtu ? d->cfg.mtu : 65535);
	d->mtu = (uint16_t)mtu;
	return 0;
}

static void vu_fill_config(const struct vu_dev *d, struct virtio_net_config *c)
{
	memset(c, 0, sizeof(*c));
	memcpy(c->mac, d->cfg.mac, sizeof(c->mac));
	/* virtio 1.x config space is little endian */
	c->status = htole16(VIRTIO_NET_S_LINK_UP);
	c->max_virtqueue_pairs = htole16((uint16_t)d->cfg.queues);
	c->mtu = htole16(d->mtu ? d->mtu : d->cfg.mtu);
	c->speed = htole32(UINT32_MAX);		/* unknown */
	c->duplex = 0xff;			/* unknown */
}

/**
 * vu_get_config() - GET_CONFIG: read the virtio-net config space
 * @d:		Device
 * @m:		Message: offset, size, flags; the reply (same header, the bytes
 *		asked) is built in it
 * @idx:	Unused
 *
 * Return: 0, -EINVAL for a size or range outside the config space
 */
int vu_get_config(struct vu_dev *d, struct vu_msg *m,
		  unsigned int idx UNUSED)
{
	uint32_t off = m->payload.config.offset, len = m->payload.config.size;
	struct virtio_net_config c;

	if (len > VHOST_USER_CONFIG_SPACE_MAX ||
	    m->hdr.size != VU_CONFIG_HDR_SIZE + len)
		return vu_fail(d, -EINVAL, "config size %u, payload %u", len,
			       m->hdr.size);
	if (off > sizeof(c) || len > sizeof(c) - off)
		return vu_fail(d, -EINVAL, "config bytes %u+%u beyond %zu",
			       off, len, sizeof(c));
	vu_fill_config(d, &c);
	memcpy(m->payload.config.region, (const uint8_t *)&c + off, len);
	return 0;
}

/**
 * vu_set_config() - SET_CONFIG: refused, the net config space is read-only
 *		    to a virtio 1.x driver (virtio 5.1.4)
 * @d:		Device
 * @m:		Unused
 * @idx:	Unused
 *
 * Return: -EPERM
 */
int vu_set_config(struct vu_dev *d, struct vu_msg *m UNUSED,
		  unsigned int idx UNUSED)
{
	return vu_fail(d, -EPERM, "config space is read-only");
}
