// SPDX-License-Identifier: MIT
/*
 * host_switch.c - the switch host: a port whose host side is its member
 * port on one of vnetd's switches (switch.h), so that frames between VMs
 * of one host go from one guest's TX ring to another's RX ring inside
 * vnetd, without the kernel.
 *
 * tx() (the sending pair's worker) learns, decides and copies the frame
 * into each receiving member's hand-off queue; tx_flush() wakes each
 * receiving pair that said it may sleep, once per burst. rx_peek_len() and
 * rx() (the receiving pair's worker) drain the pair's own queue into its
 * RX ring, which no other thread writes; rx_fd() is the pair's eventfd.
 * Two copies per frame (guest TX ring -> slot -> guest RX ring), as
 * OVS-DPDK's vhost -> mbuf -> vhost.
 *
 * Offloads pass through (host_features()): a guest may send partial
 * checksums and TSO/USO frames, and take partial checksums and TSO; what
 * its guest acked is the member's offload mask (switch_set_offloads()),
 * so that each sender gives it a frame as it is or does the offload in
 * software for it (switch_offl.c). Slots hold a frame of at most
 * SW_FRAME_MAX bytes: a larger TSO frame is cut or segmented.
 *
 * The switches live in this file's table, declared from the control
 * thread at start (--switch) and kept until the process exits.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/virtio_net.h>

#include "host.h"
#include "host_priv.h"
#include "host_switch.h"
#include "reason.h"
#include "switch.h"
#include "util.h"
#include "vnet_hdr.h"

static struct vswitch *host_switches[HOST_SWITCH_MAX];

/**
 * struct switch_priv - One port's switch host
 * @m:		Its member slot
 * @mode:	mode()'s line
 * @mac:	The guest's MAC (learned when a guest comes up)
 * @has_mac:	@mac is set
 */
struct switch_priv {
	struct sw_member *m;
	char mode[160];
	uint8_t mac[6];
	bool has_mac;
};

/**
 * host_switch_name_check() - Is @name a valid switch name?
 * @name:	Name
 * @why:	On failure, the reason (to follow "--switch NAME: ")
 *
 * Return: 0, or -EINVAL with @why set
 */
int host_switch_name_check(const char *name, struct reason *why)
{
	const char *c;

	if (!*name || strlen(name) >= SW_NAME_LEN)
		return reason_set(why, -EINVAL, "must be a name of 1..%d bytes",
				  SW_NAME_LEN - 1);
	for (c = name; *c; c++) {
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '-' || *c == '_' ||
		      *c == '.'))
			return reason_set(why, -EINVAL, "must be letters, digits, '-', '_' or '.'");
	}
	return 0;
}

/**
 * host_switch_declare() - Make a switch (--switch NAME)
 * @name:	Its name: 1..31 bytes of letters, digits, '-', '_', '.'
 * @why:	On failure, the reason (to follow "--switch NAME: ")
 *
 * Context: control thread, at start
 * Return: 0 (also if it exists already), -EINVAL, -ENOSPC, -ENOMEM
 */
int host_switch_declare(const char *name, struct reason *why)
{
	unsigned int i;

	if (host_switch_name_check(name, why))
		return -EINVAL;
	if (host_switch_find(name))
		return 0;
	for (i = 0; i < HOST_SWITCH_MAX; i++) {
		if (host_switches[i])
			continue;
		host_switches[i] = switch_new(name);
		if (!host_switches[i])
			return reason_set(why, -ENOMEM, "out of memory");
		return 0;
	}
	return reason_set(why, -ENOSPC, "too many switches (at most %d)",
			  HOST_SWITCH_MAX);
}

/**
 * host_switch_remove() - Free a switch no port is a member of (a --switch
 *			  line gone from --config at SIGHUP)
 * @name:	Its name
 *
 * Context: control thread
 * Return: 0 (also if none has that name), -EBUSY if a port is a member
 */
int host_switch_remove(const char *name)
{
	unsigned int i, m;

	for (i = 0; i < HOST_SWITCH_MAX; i++) {
		if (!host_switches[i] || strcmp(host_switches[i]->name, name))
			continue;
		for (m = 0; m < SW_MAX_MEMBERS; m++)
			if (host_switches[i]->m[m].used)
				return -EBUSY;
		switch_free(host_switches[i]);
		host_switches[i] = NULL;
	}
	return 0;
}

/**
 * host_switch_find() - A declared switch by name
 * @name:	Name
 *
 * Return: the switch, NULL if none has that name
 */
struct vswitch *host_switch_find(const char *name)
{
	unsigned int i;

	for (i = 0; name && i < HOST_SWITCH_MAX; i++)
		if (host_switches[i] && !strcmp(host_switches[i]->name, name))
			return host_switches[i];
	return NULL;
}

/**
 * host_switch_at() - The @i-th switch slot, for listing them
 * @i:		0..HOST_SWITCH_MAX-1
 *
 * Return: the switch, NULL if the slot is empty or @i out of range
 */
struct vswitch *host_switch_at(unsigned int i)
{
	return i < HOST_SWITCH_MAX ? host_switches[i] : NULL;
}

/**
 * host_switch_names() - The declared switches, for error messages
 *
 * Context: control thread (a static buffer)
 * Return: names separated by ", ", or "none"
 */
const char *host_switch_names(void)
{
	static char buf[HOST_SWITCH_MAX * (SW_NAME_LEN + 2)];
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < HOST_SWITCH_MAX; i++) {
		if (!host_switches[i])
			continue;
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s",
					off ? ", " : "", host_switches[i]->name);
	}
	return off ? buf : "none";
}

/**
 * host_switch_member() - A switch port's member, for its status
 * @host:	Any port's host side
 *
 * Return: the member, NULL if @host is not a switch port or not open
 */
const struct sw_member *host_switch_member(const struct host *host)
{
	const struct switch_priv *p;

	if (host->ops != &host_switch_ops || !host->priv)
		return NULL;
	p = host->priv;
	return p->m;
}

/* Add the policer's limits to the mode line */
static void host_switch_police_mode(struct switch_priv *p)
{
	const struct sw_police_cfg *c = &p->m->police;
	size_t off = strlen(p->mode);

	off += (size_t)snprintf(p->mode + off, sizeof(p->mode) - off, ", police");
	if (c->pps && off < sizeof(p->mode))
		off += (size_t)snprintf(p->mode + off, sizeof(p->mode) - off,
					" %llu frames/s", (unsigned long long)c->pps);
	if (c->bps && off < sizeof(p->mode))
		off += (size_t)snprintf(p->mode + off, sizeof(p->mode) - off,
					" %llu bits/s", (unsigned long long)c->bps);
	if (off < sizeof(p->mode))
		snprintf(p->mode + off, sizeof(p->mode) - off, " burst %u ms",
			 c->burst_ms ? c->burst_ms : SW_POLICE_BURST_DEF);
}

static void host_switch_close(struct host *host)
{
	struct switch_priv *p = host->priv;

	if (!p)
		return;
	switch_leave(p->m);
	free(p);
	host->priv = NULL;
	host->npairs = 0;
}

static int host_switch_open(struct host *host, const struct host_cfg *cfg,
			    struct reason *why)
{
	struct vswitch *sw = host_switch_find(cfg->sw_name);
	struct switch_priv *p;
	int err = 0;

	if (!sw)
		return reason_set(why, -ENOENT, "switch %s: no such switch (declared: %s)",
				  cfg->sw_name ? cfg->sw_name : "(none)",
				  host_switch_names());
	if (!cfg->sw_vlans)
		return reason_set(why, -EINVAL, "switch %s: no VLAN given", sw->name);
	if (!cfg->npairs || cfg->npairs > VNET_MAX_PAIRS)
		return reason_set(why, -EINVAL, "switch: %u queue pairs: use 1..%u",
				  cfg->npairs, (unsigned int)VNET_MAX_PAIRS);
	p = calloc(1, sizeof(*p));
	if (!p)
		return reason_set(why, -ENOMEM, "switch %s: out of memory", sw->name);
	p->m = switch_join(sw, cfg->npairs, cfg->sw_vlans, &err);
	if (!p->m) {
		free(p);
		if (err == -ENOSPC)
			return reason_set(why, err, "switch %s: full (at most %d ports)",
					  sw->name, SW_MAX_MEMBERS);
		return reason_set(why, err, "switch %s: %s", sw->name, strerror(-err));
	}
	/* down until a guest acks features; a frame a sender's burst queued
	 * while it was briefly up on joining is dropped */
	switch_reset(p->m);
	if (cfg->mac && cfg->mac_given) {
		memcpy(p->mac, cfg->mac, sizeof(p->mac));
		p->has_mac = true;
	}
	if (cfg->sw_police)
		switch_set_police(p->m, cfg->sw_police);
	if (cfg->sw_vlans->access)
		snprintf(p->mode, sizeof(p->mode), "switch %s, vlan %u (access)",
			 sw->name, cfg->sw_vlans->access);
	else
		snprintf(p->mode, sizeof(p->mode), "switch %s, trunk", sw->name);
	if (p->m->police.pps || p->m->police.bps)
		host_switch_police_mode(p);
	host->priv = p;
	host->npairs = cfg->npairs;
	return 0;
}

/*
 * Offloads both ways: what a sender asks for, a receiver that did not
 * ack it gets done in software (switch_offl.c). GUEST_USO is not among
 * them: vnet_hdr_gso_feature() gives USO to no guest, a USO frame is
 * segmented for every receiver.
 */
static uint64_t host_switch_features(struct host *host)
{
	(void)host;
	return BIT(VIRTIO_NET_F_CSUM) | BIT(VIRTIO_NET_F_HOST_TSO4) |
	       BIT(VIRTIO_NET_F_HOST_TSO6) | BIT(VIRTIO_NET_F_HOST_USO) |
	       BIT(VIRTIO_NET_F_GUEST_CSUM) | BIT(VIRTIO_NET_F_GUEST_TSO4) |
	       BIT(VIRTIO_NET_F_GUEST_TSO6);
}

/*
 * Seconds for the MAC table: the coarse clock, a vDSO read, no syscall.
 * Out of line: inlined, its timespec would give host_switch_tx() a stack
 * canary and register saves per frame for a read made once per burst.
 */
static NOINLINE uint32_t host_switch_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint32_t)ts.tv_sec;
}

static int host_switch_configure(struct host *host, uint64_t features,
				 unsigned int hdr_len)
{
	struct switch_priv *p = host->priv;

	if (hdr_len > VNET_HDR_MAX)
		return -EINVAL;
	host->features = features;
	host->hdr_len = hdr_len;
	if (p) {
		switch_set_offloads(p->m, features, hdr_len);
		switch_set_up(p->m, true);	/* a guest is there */
		if (p->has_mac)
			switch_learn_port(p->m, p->mac, host_switch_now());
	}
	return 0;
}

/* switch_tx_now() at a burst's first frame (it reads the clock): out of
 * line, see host_switch_now() */
static NOINLINE uint32_t host_switch_tx_clock(struct sw_member *m,
					      unsigned int pair)
{
	return switch_tx_now(m, pair, host_switch_now);
}

/*
 * The common frame is queued inline (switch_tx_fast()); any other makes
 * one call, switch_tx(). The clock is read out of line, once per burst.
 */
static ssize_t host_switch_tx(struct host *host, unsigned int pair,
			      const struct iovec *iov, unsigned int iovcnt)
{
	struct switch_priv *p = host->priv;
	uint32_t now;
	ssize_t n;

	if (!p || pair >= host->npairs)
		return -EINVAL;
	if (unlikely(switch_tx_now_due(p->m, pair)))
		now = host_switch_tx_clock(p->m, pair);
	else
		now = switch_tx_now(p->m, pair, host_switch_now);
	n = switch_tx_fast(p->m, pair, iov, iovcnt, host->hdr_len, now);
	if (likely(n > 0))
		return n;
	return switch_tx(p->m, pair, iov, iovcnt, host->hdr_len, now);
}

static void host_switch_tx_flush(struct host *host, unsigned int pair)
{
	struct switch_priv *p = host->priv;

	if (p && pair < host->npairs)
		switch_flush(p->m, pair);
}

static ssize_t host_switch_rx(struct host *host, unsigned int pair,
			      const struct iovec *iov, unsigned int iovcnt)
{
	struct switch_priv *p = host->priv;

	if (!p || pair >= host->npairs)
		return -EINVAL;
	return switch_rx_fast(p->m, pair, iov, iovcnt, host->hdr_len);
}

static ssize_t host_switch_rx_peek_len(struct host *host, unsigned int pair)
{
	struct switch_priv *p = host->priv;

	if (!p || pair >= host->npairs)
		return -EINVAL;
	return switch_rx_peek_len(p->m, pair, host->hdr_len);
}

static int host_switch_rx_fd(struct host *host, unsigned int pair)
{
	struct switch_priv *p = host->priv;

	if (!p || pair >= host->npairs)
		return -1;
	return p->m->rxq[pair].efd;
}

static int host_switch_queue_fd(struct host *host, unsigned int pair)
{
	(void)host;
	(void)pair;
	return -1;
}

static void host_switch_reset(struct host *host)
{
	struct switch_priv *p = host->priv;

	if (p)
		switch_reset(p->m);
}

static const char *host_switch_mode(struct host *host)
{
	struct switch_priv *p = host->priv;

	return p ? p->mode : NULL;
}

const struct host_ops host_switch_ops = {
	.name = "switch",
	.open = host_switch_open,
	.host_features = host_switch_features,
	.configure = host_switch_configure,
	.tx = host_switch_tx,
	.tx_flush = host_switch_tx_flush,
	.rx = host_switch_rx,
	.rx_peek_len = host_switch_rx_peek_len,
	.rx_fd = host_switch_rx_fd,
	.queue_fd = host_switch_queue_fd,
	.reset = host_switch_reset,
	.mode = host_switch_mode,
	.close = host_switch_close,
};
