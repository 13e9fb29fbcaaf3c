// SPDX-License-Identifier: MIT
/*
 * switch_status.c - vnetd's switches as the control socket shows them:
 * `switch list`, `switch show NAME` (members with their VLANs, state and
 * counters, then the MAC table: MAC, VLAN, port, age), as text or JSON,
 * and the switch families of the Prometheus exposition. Reads the
 * members' counters with relaxed atomic loads and the MAC table through
 * switch_table_next() (torn entries skipped); writes nothing the data path
 * reads. A member is named by the port whose host side it is.
 */
#include <stdio.h>
#include <string.h>

#include "host_switch.h"
#include "sbuf.h"
#include "switch.h"
#include "switch_status.h"
#include "uplink.h"
#include "vnetd.h"

#define SS_LD(x)	((unsigned long long)atomic_load_explicit(&(x), memory_order_relaxed))

/* The port whose host side member @m is, NULL if none (leaving) */
static const struct vnetd_port *ss_port(struct vnetd_port *ports,
					unsigned int nports,
					const struct sw_member *m)
{
	unsigned int i;

	for (i = 0; i < nports; i++)
		if (ports[i].used && ports[i].host.ops &&
		    host_switch_member(&ports[i].host) == m)
			return &ports[i];
	return NULL;
}

/*
 * Member slot @idx's name: its port's, "uplink KIND:IF" for the switch's
 * uplink, else "slot N" (a member leaving) into @buf
 */
static const char *ss_name(struct vnetd_port *ports, unsigned int nports,
			   const struct vswitch *sw, unsigned int idx,
			   char *buf, size_t len)
{
	const struct vnetd_port *p = idx < SW_MAX_MEMBERS ?
		ss_port(ports, nports, &sw->m[idx]) : NULL;
	const struct uplink *u;
	unsigned int i;

	if (p)
		return p->cfg.name;
	for (i = 0; idx < SW_MAX_MEMBERS && (u = uplink_at(i)); i++)
		if (u->m == &sw->m[idx]) {
			snprintf(buf, len, "uplink %s:%s", u->kind, u->ifname);
			return buf;
		}
	snprintf(buf, len, "slot %u", idx);
	return buf;
}

/* Is member slot @i a member now (a port's host side)? */
static bool ss_member(struct vnetd_port *ports, unsigned int nports,
		      const struct vswitch *sw, unsigned int i)
{
	return sw->m[i].used && ss_port(ports, nports, &sw->m[i]);
}

/* One member: text line or JSON object */
static void ss_member_out(struct sbuf *b, const struct sw_member *m,
			  const char *name, bool json)
{
	char v[64];

	switch_vlans_format(&m->vlans, v, sizeof(v));
	if (!json) {
		sbuf_printf(b, "port %s: %s, %s, macs %llu, learned %llu, mac_limit %llu, flooded %llu, drops queue_full=%llu vlan=%llu bad=%llu police=%llu\n",
			    name, v, atomic_load(&m->up) ? "up" : "down",
			    SS_LD(m->nmacs), SS_LD(m->st.learned),
			    SS_LD(m->st.mac_limit), SS_LD(m->st.flooded),
			    SS_LD(m->st.drop_full), SS_LD(m->st.drop_vlan),
			    SS_LD(m->st.drop_bad), SS_LD(m->st.drop_police));
		return;
	}
	sbuf_printf(b, "{\"name\":");
	sbuf_quote(b, name, false);
	sbuf_printf(b, ",\"vlans\":");
	sbuf_quote(b, v, false);
	sbuf_printf(b, ",\"up\":%s,\"macs\":%llu,\"learned\":%llu,\"mac_limit\":%llu,\"flooded\":%llu,\"drops\":{\"queue_full\":%llu,\"vlan\":%llu,\"bad\":%llu,\"police\":%llu}}",
		    atomic_load(&m->up) ? "true" : "false",
		    SS_LD(m->nmacs), SS_LD(m->st.learned),
		    SS_LD(m->st.mac_limit), SS_LD(m->st.flooded),
		    SS_LD(m->st.drop_full), SS_LD(m->st.drop_vlan),
		    SS_LD(m->st.drop_bad), SS_LD(m->st.drop_police));
}

/* The MAC table: one line, or one JSON object, per live entry */
static void ss_table_out(struct sbuf *b, struct vnetd_port *ports,
			 unsigned int nports, const struct vswitch *sw,
			 bool json)
{
	uint32_t now = switch_now_s();
	struct sw_mac e;
	size_t pos = 0;
	unsigned int n = 0;
	char mac[18], slot[40];
	const char *port;

	while (switch_table_next(sw, &pos, now, &e)) {
		snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x",
			 e.mac[0], e.mac[1], e.mac[2], e.mac[3], e.mac[4],
			 e.mac[5]);
		port = ss_name(ports, nports, sw, e.member, slot, sizeof(slot));
		if (!json) {
			sbuf_printf(b, "mac %s vlan %u port %s age %u\n", mac,
				    e.vlan, port, e.age_s);
			continue;
		}
		sbuf_printf(b, "%s{\"mac\":\"%s\",\"vlan\":%u,\"port\":", n++ ? "," : "",
			    mac, e.vlan);
		sbuf_quote(b, port, false);
		sbuf_printf(b, ",\"age_s\":%u}", e.age_s);
	}
}

/* Members of @sw that are ports now */
static unsigned int ss_count(struct vnetd_port *ports, unsigned int nports,
			     const struct vswitch *sw)
{
	unsigned int i, n = 0;

	for (i = 0; i < SW_MAX_MEMBERS; i++)
		n += ss_member(ports, nports, sw, i);
	return n;
}

/* One switch's summary: text line or JSON members (list) */
static void ss_summary(struct sbuf *b, struct vnetd_port *ports,
		       unsigned int nports, const struct vswitch *sw, bool json)
{
	unsigned int i, n = 0;

	if (json) {
		sbuf_printf(b, "{\"name\":");
		sbuf_quote(b, sw->name, false);
		sbuf_printf(b, ",\"macs\":%llu,\"ports\":[", SS_LD(sw->nmacs));
	} else {
		sbuf_printf(b, "switch %s: ports %u, macs %llu", sw->name,
			    ss_count(ports, nports, sw), SS_LD(sw->nmacs));
	}
	for (i = 0; i < SW_MAX_MEMBERS; i++) {
		if (!ss_member(ports, nports, sw, i))
			continue;
		if (json) {
			sbuf_printf(b, "%s", n++ ? "," : "");
			sbuf_quote(b, ss_port(ports, nports, &sw->m[i])->cfg.name,
				      false);
		} else {
			sbuf_printf(b, "%s%s", n++ ? " " : " (",
				    ss_port(ports, nports, &sw->m[i])->cfg.name);
		}
	}
	sbuf_printf(b, "%s", json ? "]}" : n ? ")\n" : "\n");
}

/**
 * switch_status_list() - Every declared switch, one line (or JSON object)
 *			  each: name, member ports, MACs in the table
 * @b:		Output
 * @ports:	Ports
 * @nports:	How many
 * @json:	One JSON document {"switches":[...]} instead of text
 */
void switch_status_list(struct sbuf *b, struct vnetd_port *ports,
			unsigned int nports, bool json)
{
	const struct vswitch *sw;
	unsigned int i, n = 0;

	if (json)
		sbuf_printf(b, "{\"switches\":[");
	for (i = 0; i < HOST_SWITCH_MAX; i++) {
		sw = host_switch_at(i);
		if (!sw)
			continue;
		if (json && n)
			sbuf_printf(b, ",");
		n++;
		ss_summary(b, ports, nports, sw, json);
	}
	if (json)
		sbuf_printf(b, "]}\n");
	else if (!n)
		sbuf_printf(b, "no switches (vnetd --switch NAME declares one)\n");
}

/**
 * switch_status_show() - One switch: its limits, members and MAC table
 * @b:		Output (the refusal too: "error: ...")
 * @ports:	Ports
 * @nports:	How many
 * @name:	Switch name, from the client
 * @json:	One JSON document instead of text
 *
 * Return: 0, or -1 if no switch has that name (refused naming the
 *	   declared ones)
 */
int switch_status_show(struct sbuf *b, struct vnetd_port *ports,
		       unsigned int nports, const char *name, bool json)
{
	const struct vswitch *sw = host_switch_find(name);
	unsigned int i, n = 0;

	if (!sw) {
		sbuf_printf(b, "error: switch show %.40s: no such switch (declared: %s)\n",
			    name, host_switch_names());
		return -1;
	}
	if (!json) {
		sbuf_printf(b, "switch %s: ports %u, macs %llu (at most %u, %u per port), ageing %u s\n",
			    sw->name, ss_count(ports, nports, sw),
			    SS_LD(sw->nmacs), sw->macs_max, sw->macs_port,
			    sw->ageing_s);
	} else {
		sbuf_printf(b, "{\"name\":");
		sbuf_quote(b, sw->name, false);
		sbuf_printf(b, ",\"macs\":%llu,\"macs_max\":%u,\"macs_port\":%u,\"ageing_s\":%u,\"ports\":[",
			    SS_LD(sw->nmacs), sw->macs_max, sw->macs_port,
			    sw->ageing_s);
	}
	for (i = 0; i < SW_MAX_MEMBERS; i++) {
		if (!ss_member(ports, nports, sw, i))
			continue;
		if (json && n)
			sbuf_printf(b, ",");
		n++;
		ss_member_out(b, &sw->m[i],
			      ss_port(ports, nports, &sw->m[i])->cfg.name, json);
	}
	if (json)
		sbuf_printf(b, "],\"table\":[");
	ss_table_out(b, ports, nports, sw, json);
	if (json)
		sbuf_printf(b, "]}\n");
	return 0;
}

/* Prometheus labels {switch="S",port="P"... (left open) */
static void ss_prom_labels(struct sbuf *b, const char *fam,
			   const struct vswitch *sw, const char *port)
{
	sbuf_printf(b, "%s{switch=", fam);
	sbuf_quote(b, sw->name, true);
	if (port) {
		sbuf_printf(b, ",port=");
		sbuf_quote(b, port, true);
	}
}

/* The per-port families of the exposition */
enum ss_ctr { SS_MACS, SS_LEARNED, SS_MAC_LIMIT, SS_FLOODED, SS_DROPS };

/* Each family's name, type and help line */

static const struct {
	const char *family;
	const char *type;
	const char *help;
} ss_fams[] = {
	[SS_MACS] = { "vnetd_switch_port_macs", "gauge",
		      "MAC table entries on a switch port now" },
	[SS_LEARNED] = { "vnetd_switch_learned_total", "counter",
			 "MAC table entries a switch port learned (moves to it included)" },
	[SS_MAC_LIMIT] = { "vnetd_switch_mac_limit_total", "counter",
			   "Source MACs a switch port did not learn: the port's or the switch's MAC limit" },
	[SS_FLOODED] = { "vnetd_switch_flooded_total", "counter",
			 "Frames a switch port sent that were flooded (broadcast, multicast, unknown unicast)" },
	[SS_DROPS] = { "vnetd_switch_drops_total", "counter",
		       "Frames dropped by a switch, by port and reason (queue_full: for the port, its hand-off queue full; vlan, bad, police: sent by the port, police over its policer's rate)" },
};

/* One per-port family (HELP, TYPE, a series per member of every switch) */
static void ss_prom_family(struct sbuf *b, struct vnetd_port *ports,
			   unsigned int nports, enum ss_ctr f)
{
	const struct vswitch *sw;
	const struct sw_member *m;
	const struct vnetd_port *p;
	unsigned int s, i;

	sbuf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", ss_fams[f].family,
		    ss_fams[f].help, ss_fams[f].family, ss_fams[f].type);
	for (s = 0; s < HOST_SWITCH_MAX; s++) {
		sw = host_switch_at(s);
		for (i = 0; sw && i < SW_MAX_MEMBERS; i++) {
			m = &sw->m[i];
			p = m->used ? ss_port(ports, nports, m) : NULL;
			if (!p)
				continue;
			ss_prom_labels(b, ss_fams[f].family, sw, p->cfg.name);
			switch (f) {
			case SS_MACS:
				sbuf_printf(b, "} %llu\n", SS_LD(m->nmacs));
				break;
			case SS_LEARNED:
				sbuf_printf(b, "} %llu\n", SS_LD(m->st.learned));
				break;
			case SS_MAC_LIMIT:
				sbuf_printf(b, "} %llu\n", SS_LD(m->st.mac_limit));
				break;
			case SS_FLOODED:
				sbuf_printf(b, "} %llu\n", SS_LD(m->st.flooded));
				break;
			case SS_DROPS:
				sbuf_printf(b, ",reason=\"queue_full\"} %llu\n",
					    SS_LD(m->st.drop_full));
				ss_prom_labels(b, ss_fams[f].family, sw, p->cfg.name);
				sbuf_printf(b, ",reason=\"vlan\"} %llu\n",
					    SS_LD(m->st.drop_vlan));
				ss_prom_labels(b, ss_fams[f].family, sw, p->cfg.name);
				sbuf_printf(b, ",reason=\"bad\"} %llu\n",
					    SS_LD(m->st.drop_bad));
				ss_prom_labels(b, ss_fams[f].family, sw, p->cfg.name);
				sbuf_printf(b, ",reason=\"police\"} %llu\n",
					    SS_LD(m->st.drop_police));
				break;
			}
		}
	}
}

/**
 * switch_status_prometheus() - The switches' families of the Prometheus
 *				exposition: MACs per switch and per port,
 *				learned, mac_limit, flooded, drops by reason
 * @b:		Output
 * @ports:	Ports (members are labelled by port name)
 * @nports:	How many
 *
 * Nothing (not even HELP lines) when no switch is declared.
 */
void switch_status_prometheus(struct sbuf *b, struct vnetd_port *ports,
			      unsigned int nports)
{
	const struct vswitch *sw;
	unsigned int s, f, n = 0;

	for (s = 0; s < HOST_SWITCH_MAX; s++)
		n += host_switch_at(s) != NULL;
	if (!n)
		return;
	sbuf_printf(b, "# HELP vnetd_switch_macs MAC table entries of a switch now\n# TYPE vnetd_switch_macs gauge\n");
	for (s = 0; s < HOST_SWITCH_MAX; s++) {
		sw = host_switch_at(s);
		if (!sw)
			continue;
		ss_prom_labels(b, "vnetd_switch_macs", sw, NULL);
		sbuf_printf(b, "} %llu\n", SS_LD(sw->nmacs));
	}
	for (f = SS_MACS; f <= SS_DROPS; f++)
		ss_prom_family(b, ports, nports, (enum ss_ctr)f);
}
