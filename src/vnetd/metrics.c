// SPDX-License-Identifier: MIT
/*
 * metrics.c - render the status of every port and queue: plain text for
 * people, JSON for programs, Prometheus text exposition for scrapers. Reads
 * the workers' counters with relaxed atomic loads (pair.h: written by the
 * owning worker only) and never writes anything the data path reads.
 *
 * Direction names follow the guest: "rx" is the RX virtqueue (host to
 * guest), "tx" the TX virtqueue (guest to host).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "host_switch.h"
#include "log.h"
#include "metrics.h"
#include "net_features.h"
#include "sbuf.h"
#include "switch_status.h"
#include "uplink.h"
#include "vnetd.h"

/*
 * The ring counters as every format reads them, made from pair.h's
 * RING_COUNTERS(): text and JSON name a counter by its field, Prometheus
 * by its family. One table, so the three formats cannot disagree.
 */
static const struct metrics_ctr {
	const char *name;
	const char *family;
	const char *help;
	size_t off;
	unsigned long long div;
} metrics_ctrs[] = {
#define METRICS_CTR(f, prom, h, d) \
	{ #f, "vnetd_queue_" prom, h, offsetof(struct ring_counters, f), d },
	RING_COUNTERS(METRICS_CTR)
#undef METRICS_CTR
};

static const char *const metrics_drop_names[DROP_MAX] = {
#define METRICS_DROP(e, label)	[e] = label,
	RING_DROPS(METRICS_DROP)
#undef METRICS_DROP
};

#define METRICS_DROPS_FAMILY	"vnetd_queue_drops_total"
#define METRICS_DROPS_HELP	"Frames dropped, by reason"

/* Reason labels of vnetd.h's per-port and control socket counters */
#define METRICS_LABEL(e, label)	[e] = label,
static const char *const metrics_refuse_names[PORT_REFUSE_MAX] = {
	PORT_REFUSALS(METRICS_LABEL)
};
static const char *const metrics_perr_names[PORT_PERR_MAX] = {
	PORT_PERRS(METRICS_LABEL)
};
static const char *const metrics_ctl_names[CTL_REFUSE_MAX] = {
	CTL_REFUSALS(METRICS_LABEL)
};
#undef METRICS_LABEL

/* Append @s quoted for JSON (or, @prom, for a Prometheus label value) */
static void metrics_quote(struct sbuf *b, const char *s, bool prom)
{
	sbuf_quote(b, s, prom);
}

static uint64_t metrics_ld(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* Counter @i of metrics_ctrs[] in @c */
static unsigned long long metrics_ctr(const struct ring_counters *c,
				      size_t i)
{
	const char *base = (const char *)c;

	return (unsigned long long)
	       metrics_ld((const uint64_t *)(const void *)(base +
							   metrics_ctrs[i].off));
}

/* The data path a pair uses now, and why */
static const char *metrics_datapath(const struct vnet_pair *vp,
				    const char **why)
{
	const char *dp = __atomic_load_n(&vp->datapath, __ATOMIC_RELAXED);

	*why = vp->why;
	if (!dp || !*dp) {
		*why = "no frontend has started this pair";
		return "idle";
	}
	return dp;
}

static uint64_t metrics_negotiated(struct vnetd_port *p)
{
	return port_connected(p) ? vu_dev_acked_features(p->dev) : 0;
}

static void metrics_feature_list(struct sbuf *b, uint64_t f, bool json)
{
	const char *name;
	unsigned int bit;
	bool first = true;

	for (bit = 0; bit < 64; bit++) {
		if (!(f & (1ULL << bit)))
			continue;
		name = net_feature_name(bit);
		if (json) {
			sbuf_printf(b, "%s\"", first ? "" : ",");
			if (name)
				sbuf_printf(b, "%s\"", name);
			else
				sbuf_printf(b, "bit%u\"", bit);
		} else if (name) {
			sbuf_printf(b, " %s", name);
		} else {
			sbuf_printf(b, " bit%u", bit);
		}
		first = false;
	}
}

static void metrics_ring_text(struct sbuf *b, const char *dir,
			      const struct vnet_ring *r)
{
	const struct ring_counters *c = &r->ctr;
	unsigned int i;

	if (!r->vq.num)
		sbuf_printf(b, "    %s: not set up,", dir);
	else
		sbuf_printf(b, "    %s: %s ring of %u, %s, %s,", dir,
			       r->vq.layout == VQ_PACKED ? "packed" : "split",
			       (unsigned int)r->vq.num,
			       __atomic_load_n(&r->started, __ATOMIC_RELAXED) ?
			       "started" : "stopped",
			       __atomic_load_n(&r->enabled, __ATOMIC_RELAXED) ?
			       "enabled" : "disabled");
	for (i = 0; i < ARRAY_SIZE(metrics_ctrs); i++)
		sbuf_printf(b, " %s %llu", metrics_ctrs[i].name,
			       metrics_ctr(c, i));
	sbuf_printf(b, " drops");
	for (i = 0; i < DROP_MAX; i++)
		sbuf_printf(b, " %s=%llu", metrics_drop_names[i],
			    (unsigned long long)metrics_ld(&c->drops[i]));
	sbuf_printf(b, "\n");
}

/* Dirty logging (live migration) of a port, one line */
static void metrics_migration_text(struct sbuf *b, const struct vnetd_port *p)
{
	uint64_t pages;
	bool on = vu_dev_log_state(p->dev, &pages);

	sbuf_printf(b, "  migration: dirty log %s, pages logged %llu\n",
		       on ? "on" : "off", (unsigned long long)pages);
}

/* The TAP TX engine workers use (--tap-io, decided at start-up) */
static const char *metrics_tap_io(void)
{
	return tap_uring_mode() == TAP_IO_URING ?
	       "io_uring, a TX burst or an RX batch per io_uring_enter (--tap-io)" :
	       "readv/writev, one per frame (--tap-io)";
}

/* What the port's host side says of itself (af_xdp), NULL if nothing */
static const char *metrics_host_mode(struct vnetd_port *p)
{
	if (!p->host.ops || !p->host.ops->mode)
		return NULL;
	return p->host.ops->mode(&p->host);
}

/* A switch port's counters (see struct sw_stats), NULL if not one */
static const struct sw_member *metrics_switch(const struct vnetd_port *p)
{
	return p->host.ops ? host_switch_member(&p->host) : NULL;
}

#define SW_LD(x)	((unsigned long long)atomic_load_explicit(&(x), memory_order_relaxed))

static void metrics_switch_text(struct sbuf *b, const struct vnetd_port *p)
{
	const struct sw_member *m = metrics_switch(p);
	char v[64];

	if (!m)
		return;
	sbuf_printf(b, "  switch %s: %s, macs %llu, learned %llu, mac_limit %llu, flooded %llu, drops queue_full=%llu vlan=%llu bad=%llu police=%llu\n",
		       m->sw->name, switch_vlans_format(&m->vlans, v, sizeof(v)),
		       SW_LD(m->nmacs), SW_LD(m->st.learned),
		       SW_LD(m->st.mac_limit), SW_LD(m->st.flooded),
		       SW_LD(m->st.drop_full), SW_LD(m->st.drop_vlan),
		       SW_LD(m->st.drop_bad), SW_LD(m->st.drop_police));
}

static void metrics_switch_json(struct sbuf *b, const struct vnetd_port *p)
{
	const struct sw_member *m = metrics_switch(p);
	char v[64];

	sbuf_printf(b, ",\"switch\":");
	if (!m) {
		sbuf_printf(b, "null");
		return;
	}
	sbuf_printf(b, "{\"name\":");
	metrics_quote(b, m->sw->name, false);
	sbuf_printf(b, ",\"vlans\":");
	metrics_quote(b, switch_vlans_format(&m->vlans, v, sizeof(v)), false);
	sbuf_printf(b, ",\"macs\":%llu,\"learned\":%llu,\"mac_limit\":%llu,\"flooded\":%llu,\"drops\":{\"queue_full\":%llu,\"vlan\":%llu,\"bad\":%llu,\"police\":%llu}}",
		       SW_LD(m->nmacs), SW_LD(m->st.learned),
		       SW_LD(m->st.mac_limit), SW_LD(m->st.flooded),
		       SW_LD(m->st.drop_full), SW_LD(m->st.drop_vlan),
		       SW_LD(m->st.drop_bad), SW_LD(m->st.drop_police));
}

/* The switches' uplinks, one line each (after the ports) */
static void metrics_uplinks_text(struct sbuf *b)
{
	const struct uplink *u;
	const struct sw_member *m;
	unsigned int i;
	char v[64];

	for (i = 0; (u = uplink_at(i)); i++) {
		if (!(m = u->m))
			continue;
		sbuf_printf(b, "switch %s: uplink %s:%s, %s, macs %llu, learned %llu, mac_limit %llu, flooded %llu, drops queue_full=%llu vlan=%llu bad=%llu, from host %llu, to host %llu, host drops %llu, host errors %llu\n",
			    u->sw->name, u->kind, u->ifname,
			    switch_vlans_format(&m->vlans, v, sizeof(v)),
			    SW_LD(m->nmacs), SW_LD(m->st.learned),
			    SW_LD(m->st.mac_limit), SW_LD(m->st.flooded),
			    SW_LD(m->st.drop_full), SW_LD(m->st.drop_vlan),
			    SW_LD(m->st.drop_bad), SW_LD(u->st.from_host),
			    SW_LD(u->st.to_host), SW_LD(u->st.host_drops),
			    SW_LD(u->st.host_errors));
	}
}

/* The uplinks as the JSON status's "uplinks" array */
static void metrics_uplinks_json(struct sbuf *b)
{
	const struct uplink *u;
	const struct sw_member *m;
	unsigned int i, n = 0;
	char v[64];

	sbuf_printf(b, ",\"uplinks\":[");
	for (i = 0; (u = uplink_at(i)); i++) {
		if (!(m = u->m))
			continue;
		sbuf_printf(b, "%s{\"switch\":", n++ ? "," : "");
		metrics_quote(b, u->sw->name, false);
		sbuf_printf(b, ",\"kind\":\"%s\",\"interface\":", u->kind);
		metrics_quote(b, u->ifname, false);
		sbuf_printf(b, ",\"vlans\":");
		metrics_quote(b, switch_vlans_format(&m->vlans, v, sizeof(v)), false);
		sbuf_printf(b, ",\"macs\":%llu,\"learned\":%llu,\"mac_limit\":%llu,\"flooded\":%llu,\"drops\":{\"queue_full\":%llu,\"vlan\":%llu,\"bad\":%llu},\"from_host\":%llu,\"to_host\":%llu,\"host_drops\":%llu,\"host_errors\":%llu}",
			    SW_LD(m->nmacs), SW_LD(m->st.learned),
			    SW_LD(m->st.mac_limit), SW_LD(m->st.flooded),
			    SW_LD(m->st.drop_full), SW_LD(m->st.drop_vlan),
			    SW_LD(m->st.drop_bad), SW_LD(u->st.from_host),
			    SW_LD(u->st.to_host), SW_LD(u->st.host_drops),
			    SW_LD(u->st.host_errors));
	}
	sbuf_printf(b, "]");
}

/**
 * metrics_status_text() - Status of every port and queue for people
 * @b:		Output
 * @ports:	Ports
 * @nports:	How many
 */
void metrics_status_text(struct sbuf *b, struct vnetd_port *ports,
			 unsigned int nports)
{
	unsigned int i, q, npairs;
	struct vnet_pair *vp;
	const char *why, *dp;
	uint64_t neg;

	for (i = 0; i < nports; i++) {
		struct vnetd_port *p = &ports[i];

		if (!p->used)
			continue;	/* a slot freed by port del */
		neg = metrics_negotiated(p);
		sbuf_printf(b, "port %s: socket %s (%s), backend %s, %s, queues %u, vhost-net %s\n",
			    p->cfg.name, p->cfg.socket,
			    p->cfg.client ? "client" : "server", p->cfg.backend,
			    port_connected(p) ? "connected" : "not connected",
			    p->cfg.queues, vhost_mode_name(p->cfg.vhost_net));
		sbuf_printf(b, "  vhost-net: %s\n", p->vhost.reason);
		if (!strcmp(p->cfg.backend, "tap"))
			sbuf_printf(b, "  tap I/O: %s\n", metrics_tap_io());
		if (metrics_host_mode(p))
			sbuf_printf(b, "  host side: %s\n", metrics_host_mode(p));
		metrics_switch_text(b, p);
		sbuf_printf(b, "  connections %llu, refused %llu, closed on error %llu\n",
			    (unsigned long long)p->connects,
			    (unsigned long long)p->refused,
			    (unsigned long long)p->errors);
		metrics_migration_text(b, p);
		sbuf_printf(b, "  features offered 0x%llx, negotiated 0x%llx:",
			    (unsigned long long)vu_dev_offered_features(p->dev),
			    (unsigned long long)neg);
		metrics_feature_list(b, neg, false);
		sbuf_printf(b, "\n");
		vp = vu_dev_pairs(p->dev, &npairs);
		for (q = 0; vp && q < npairs; q++) {
			dp = metrics_datapath(&vp[q], &why);
			sbuf_printf(b, "  pair %u: %s (%s)\n", q, dp, why);
			metrics_ring_text(b, "rx", &vp[q].rx);
			metrics_ring_text(b, "tx", &vp[q].tx);
		}
	}
	metrics_uplinks_text(b);
}

static void metrics_ring_json(struct sbuf *b, const struct vnet_ring *r)
{
	const struct ring_counters *c = &r->ctr;
	unsigned int i;

	sbuf_printf(b, "{\"ring\":\"%s\",\"size\":%u,\"started\":%s,\"enabled\":%s",
		    r->vq.layout == VQ_PACKED ? "packed" : "split",
		    (unsigned int)r->vq.num,
		    __atomic_load_n(&r->started, __ATOMIC_RELAXED) ?
		    "true" : "false",
		    __atomic_load_n(&r->enabled, __ATOMIC_RELAXED) ?
		    "true" : "false");
	for (i = 0; i < ARRAY_SIZE(metrics_ctrs); i++)
		sbuf_printf(b, ",\"%s\":%llu", metrics_ctrs[i].name,
			       metrics_ctr(c, i));
	sbuf_printf(b, ",\"drops\":{");
	for (i = 0; i < DROP_MAX; i++)
		sbuf_printf(b, "%s\"%s\":%llu", i ? "," : "",
			    metrics_drop_names[i],
			    (unsigned long long)metrics_ld(&c->drops[i]));
	sbuf_printf(b, "}}");
}

static void metrics_port_json(struct sbuf *b, struct vnetd_port *p)
{
	unsigned int q, npairs;
	struct vnet_pair *vp;
	const char *why, *dp;
	uint64_t neg = metrics_negotiated(p), pages;
	bool log_on;

	sbuf_printf(b, "{\"name\":");
	metrics_quote(b, p->cfg.name, false);
	sbuf_printf(b, ",\"socket\":");
	metrics_quote(b, p->cfg.socket, false);
	sbuf_printf(b, ",\"mode\":\"%s\",\"backend\":\"%s\",\"connected\":%s,\"queues\":%u,\"vhost_net\":\"%s\",\"connections\":%llu,\"refused\":%llu,\"errors\":%llu,\"features_offered\":\"0x%llx\",\"features_negotiated\":\"0x%llx\",\"features\":[",
		    p->cfg.client ? "client" : "server", p->cfg.backend,
		    port_connected(p) ? "true" : "false", p->cfg.queues,
		    vhost_mode_name(p->cfg.vhost_net),
		    (unsigned long long)p->connects,
		    (unsigned long long)p->refused,
		    (unsigned long long)p->errors,
		    (unsigned long long)vu_dev_offered_features(p->dev),
		    (unsigned long long)neg);
	metrics_feature_list(b, neg, true);
	log_on = vu_dev_log_state(p->dev, &pages);
	sbuf_printf(b, "],\"dirty_log\":%s,\"pages_logged\":%llu",
		       log_on ? "true" : "false", (unsigned long long)pages);
	sbuf_printf(b, ",\"vhost_net_reason\":");
	metrics_quote(b, p->vhost.reason, false);
	if (!strcmp(p->cfg.backend, "tap"))
		sbuf_printf(b, ",\"tap_io\":\"%s\"", tap_io_name(tap_uring_mode()));
	else
		sbuf_printf(b, ",\"tap_io\":null");
	sbuf_printf(b, ",\"host_side\":");
	if (metrics_host_mode(p))
		metrics_quote(b, metrics_host_mode(p), false);
	else
		sbuf_printf(b, "null");
	metrics_switch_json(b, p);
	sbuf_printf(b, ",\"pairs\":[");
	vp = vu_dev_pairs(p->dev, &npairs);
	for (q = 0; vp && q < npairs; q++) {
		dp = metrics_datapath(&vp[q], &why);
		sbuf_printf(b, "%s{\"pair\":%u,\"datapath\":\"%s\",\"reason\":",
			    q ? "," : "", q, dp);
		metrics_quote(b, why, false);
		sbuf_printf(b, ",\"rx\":");
		metrics_ring_json(b, &vp[q].rx);
		sbuf_printf(b, ",\"tx\":");
		metrics_ring_json(b, &vp[q].tx);
		sbuf_printf(b, "}");
	}
	sbuf_printf(b, "]}");
}

/**
 * metrics_status_json() - Status of every port and queue as one JSON object
 * @b:		Output
 * @ports:	Ports
 * @nports:	How many
 */
void metrics_status_json(struct sbuf *b, struct vnetd_port *ports,
			 unsigned int nports)
{
	unsigned int i, n = 0;

	sbuf_printf(b, "{\"ports\":[");
	for (i = 0; i < nports; i++) {
		if (!ports[i].used)
			continue;
		if (n++)
			sbuf_printf(b, ",");
		metrics_port_json(b, &ports[i]);
	}
	sbuf_printf(b, "]");
	metrics_uplinks_json(b);
	sbuf_printf(b, "}\n");
}

static void metrics_prom_labels(struct sbuf *b, const struct vnetd_port *p,
				unsigned int q, const char *dir)
{
	sbuf_printf(b, "{port=");
	metrics_quote(b, p->cfg.name, true);
	sbuf_printf(b, ",queue=\"%u\",dir=\"%s\"", q, dir);
}

/* "} VALUE\n", VALUE in the family's base unit (raw / @div) */
static void metrics_prom_value(struct sbuf *b, unsigned long long v,
			       unsigned long long div)
{
	if (div == 1)
		sbuf_printf(b, "} %llu\n", v);
	else	/* a float: Prometheus values are float64 anyway */
		sbuf_printf(b, "} %.9f\n", (double)v / (double)div);
}

/*
 * One Prometheus family per ring counter: @f indexes metrics_ctrs[], and
 * ARRAY_SIZE(metrics_ctrs) is the drops family (one series per reason)
 */
static void metrics_prom_family(struct sbuf *b, struct vnetd_port *ports,
				unsigned int nports, size_t f)
{
	bool drops = f == ARRAY_SIZE(metrics_ctrs);
	const char *name = drops ? METRICS_DROPS_FAMILY : metrics_ctrs[f].family;
	unsigned int i, q, d, r, npairs;
	struct vnet_pair *vp;

	sbuf_printf(b, "# HELP %s %s\n# TYPE %s counter\n", name,
		       drops ? METRICS_DROPS_HELP : metrics_ctrs[f].help, name);
	for (i = 0; i < nports; i++) {
		vp = ports[i].used ? vu_dev_pairs(ports[i].dev, &npairs) : NULL;
		for (q = 0; vp && q < npairs; q++) {
			for (d = 0; d < 2; d++) {
				const struct vnet_ring *ring = d ? &vp[q].tx :
								   &vp[q].rx;

				if (!drops) {
					sbuf_printf(b, "%s", name);
					metrics_prom_labels(b, &ports[i], q,
							    d ? "tx" : "rx");
					metrics_prom_value(b, metrics_ctr(&ring->ctr, f),
							   metrics_ctrs[f].div);
					continue;
				}
				for (r = 0; r < DROP_MAX; r++) {
					sbuf_printf(b, "%s", name);
					metrics_prom_labels(b, &ports[i], q,
							    d ? "tx" : "rx");
					sbuf_printf(b, ",reason=\"%s\"} %llu\n",
						    metrics_drop_names[r],
						    (unsigned long long)
						    metrics_ld(&ring->ctr.drops[r]));
				}
			}
		}
	}
}

/* vnetd_port_refused_total (@errors false) or ..._protocol_errors_total */
static void metrics_prom_reasons(struct sbuf *b, struct vnetd_port *ports,
				 unsigned int nports, bool errors)
{
	const char *fam = errors ? "vnetd_port_protocol_errors_total" :
				   "vnetd_port_refused_total";
	unsigned int i, r, n = errors ? PORT_PERR_MAX : PORT_REFUSE_MAX;

	sbuf_printf(b, "# HELP %s %s\n# TYPE %s counter\n", fam,
		       errors ? "Frontend connections closed on a protocol error, by reason" :
				"Frontend connections refused, by reason", fam);
	for (i = 0; i < nports; i++) {
		for (r = 0; r < n; r++) {
			sbuf_printf(b, "%s{port=", fam);
			metrics_quote(b, ports[i].cfg.name, true);
			sbuf_printf(b, ",reason=\"%s\"} %llu\n",
				       errors ? metrics_perr_names[r] :
						metrics_refuse_names[r],
				       (unsigned long long)(errors ?
					ports[i].errors_by[r] :
					ports[i].refused_by[r]));
		}
	}
}

/**
 * metrics_prom_per_port() - One family with a sample per port
 * @b:		Output
 * @ports:	Ports
 * @nports:	How many
 * @fam:	Family name
 * @type:	"counter" or "gauge"
 * @help:	Its HELP text
 * @has:	Per port: has a sample (a slot freed by `port del` has none)
 * @v:		Per port: the value, read where @has is set
 *
 * The family's HELP and TYPE lines are always written.
 */
static void metrics_prom_per_port(struct sbuf *b, const struct vnetd_port *ports,
				  unsigned int nports, const char *fam,
				  const char *type, const char *help,
				  const bool *has, const uint64_t *v)
{
	unsigned int i;

	sbuf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", fam, help, fam, type);
	for (i = 0; i < nports && i < VNETD_MAX_PORTS; i++) {
		if (!has[i])
			continue;
		sbuf_printf(b, "%s{port=", fam);
		metrics_quote(b, ports[i].cfg.name, true);
		sbuf_printf(b, "} %llu\n", (unsigned long long)v[i]);
	}
}

/* Dirty logging (live migration): on/off gauge, pages counter */
static void metrics_prom_migration(struct sbuf *b, struct vnetd_port *ports,
				   unsigned int nports)
{
	uint64_t pages[VNETD_MAX_PORTS], on[VNETD_MAX_PORTS];
	bool used[VNETD_MAX_PORTS];
	unsigned int i;

	for (i = 0; i < nports && i < VNETD_MAX_PORTS; i++) {
		used[i] = ports[i].used;
		on[i] = used[i] && vu_dev_log_state(ports[i].dev, &pages[i]);
	}
	metrics_prom_per_port(b, ports, nports, "vnetd_port_dirty_log", "gauge",
			      "1 while the frontend has dirty logging on (VHOST_F_LOG_ALL and a log base: live migration)",
			      used, on);
	metrics_prom_per_port(b, ports, nports, "vnetd_port_dirty_pages_total", "counter",
			      "Guest pages vnetd newly marked in the dirty log",
			      used, pages);
}

/**
 * metrics_prom_gro() - The host side's software GRO (af_xdp), per port
 * @b:		Output
 * @ports:	Ports
 * @nports:	How many
 *
 * vnetd_port_gro_segments_total (frames from the network merged) and
 * vnetd_port_gro_frames_total (GSO frames made of them), for the ports
 * whose host side has GRO; the families are always declared.
 */
static void metrics_prom_gro(struct sbuf *b, struct vnetd_port *ports,
			     unsigned int nports)
{
	uint64_t segs[VNETD_MAX_PORTS], frames[VNETD_MAX_PORTS];
	bool has[VNETD_MAX_PORTS];
	unsigned int i;

	for (i = 0; i < nports && i < VNETD_MAX_PORTS; i++) {
		has[i] = ports[i].used && ports[i].host.ops &&
			 ports[i].host.ops->gro;
		if (has[i])
			ports[i].host.ops->gro(&ports[i].host, &segs[i],
					       &frames[i]);
	}
	metrics_prom_per_port(b, ports, nports, "vnetd_port_gro_segments_total", "counter",
			      "Frames from the network the host side's GRO merged into GSO frames for the guest (af_xdp)",
			      has, segs);
	metrics_prom_per_port(b, ports, nports, "vnetd_port_gro_frames_total", "counter",
			      "GSO frames the host side's GRO made for the guest (af_xdp)",
			      has, frames);
}

/* --worker-threads: how the pool's threads share the pairs of all ports */
static void metrics_prom_workers(struct sbuf *b,
				 const struct worker_pool *g)
{
	unsigned int i;

	if (!g)
		return;
	sbuf_printf(b, "# HELP vnetd_worker_thread_pairs Queue pairs a thread of the shared worker pool serves (--worker-threads)\n# TYPE vnetd_worker_thread_pairs gauge\n");
	for (i = 0; i < worker_pool_threads(g); i++)
		sbuf_printf(b, "vnetd_worker_thread_pairs{thread=\"%u\"} %u\n", i,
			       worker_pool_pairs(g, i));
}

static void metrics_prom_ports(struct sbuf *b, struct vnetd_port *ports,
			       unsigned int nports,
			       const struct worker_pool *group,
			       const uint64_t *ctl_refusals)
{
	unsigned int i, q, npairs;
	struct vnet_pair *vp;
	const char *why, *dp;

	sbuf_printf(b, "# HELP vnetd_port_connected 1 if a frontend is attached\n# TYPE vnetd_port_connected gauge\n");
	for (i = 0; i < nports; i++) {
		if (!ports[i].used)
			continue;
		sbuf_printf(b, "vnetd_port_connected{port=");
		metrics_quote(b, ports[i].cfg.name, true);
		sbuf_printf(b, "} %d\n", port_connected(&ports[i]) ? 1 : 0);
	}
	sbuf_printf(b, "# HELP vnetd_port_connections_total Frontend connections served\n# TYPE vnetd_port_connections_total counter\n");
	for (i = 0; i < nports; i++) {
		if (!ports[i].used)
			continue;
		sbuf_printf(b, "vnetd_port_connections_total{port=");
		metrics_quote(b, ports[i].cfg.name, true);
		sbuf_printf(b, "} %llu\n", (unsigned long long)ports[i].connects);
	}
	metrics_prom_reasons(b, ports, nports, false);
	metrics_prom_reasons(b, ports, nports, true);
	metrics_prom_migration(b, ports, nports);
	metrics_prom_gro(b, ports, nports);
	sbuf_printf(b, "# HELP vnetd_control_refused_total Control socket clients refused or dropped, by reason\n# TYPE vnetd_control_refused_total counter\n");
	for (i = 0; i < CTL_REFUSE_MAX; i++)
		sbuf_printf(b, "vnetd_control_refused_total{reason=\"%s\"} %llu\n",
			       metrics_ctl_names[i],
			       (unsigned long long)ctl_refusals[i]);
	sbuf_printf(b, "# HELP vnetd_queue_datapath Data path of a queue pair (the label), always 1\n# TYPE vnetd_queue_datapath gauge\n");
	for (i = 0; i < nports; i++) {
		vp = ports[i].used ? vu_dev_pairs(ports[i].dev, &npairs) : NULL;
		for (q = 0; vp && q < npairs; q++) {
			dp = metrics_datapath(&vp[q], &why);
			sbuf_printf(b, "vnetd_queue_datapath{port=");
			metrics_quote(b, ports[i].cfg.name, true);
			sbuf_printf(b, ",queue=\"%u\",datapath=\"%s\"} 1\n", q, dp);
		}
	}
	metrics_prom_workers(b, group);
}

/**
 * metrics_prometheus() - Prometheus text exposition of every counter
 * @b:		Output
 * @ports:	Ports
 * @nports:	How many
 * @group:	The worker pool all ports share (--worker-threads), NULL: none
 * @ctl_refusals: Control socket refusals by enum ctl_refuse, CTL_REFUSE_MAX
 */
void metrics_prometheus(struct sbuf *b, struct vnetd_port *ports,
			unsigned int nports, const struct worker_pool *group,
			const uint64_t *ctl_refusals)
{
	size_t f;

	metrics_prom_ports(b, ports, nports, group, ctl_refusals);
	for (f = 0; f <= ARRAY_SIZE(metrics_ctrs); f++)	/* <=: the drops */
		metrics_prom_family(b, ports, nports, f);
	switch_status_prometheus(b, ports, nports);
}
