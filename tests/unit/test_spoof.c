// SPDX-License-Identifier: MIT
/*
 * test_spoof.c - the anti-spoofing policy (spoof.c): --allow-ip lists
 * accepted and refused, and frames allowed and refused by --mac-lock and
 * --allow-ip: Ethernet source, ARP sender, IPv4 and IPv6 sources, the
 * addresses a booting guest needs, VLAN-tagged frames, truncated headers.
 * The TX path that calls it (copy, check, send the copy) is test_net.c's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "testlib.h"
#include "spoof.h"
#include "spoof_tc.h"

#include <linux/pkt_cls.h>

static const uint8_t port_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const uint8_t other_mac[6] = { 0x52, 0x54, 0x00, 0x66, 0x66, 0x66 };

/* Ethernet header from @src with @type (and one VLAN tag if @vlan) */
static size_t eth(uint8_t *f, const uint8_t *src, uint16_t type, bool vlan)
{
	size_t off = 12;

	memset(f, 0xff, 6);
	memcpy(f + 6, src, 6);
	if (vlan) {
		f[off++] = 0x81;
		f[off++] = 0x00;
		f[off++] = 0x00;
		f[off++] = 0x0a;
	}
	f[off++] = (uint8_t)(type >> 8);
	f[off++] = (uint8_t)type;
	return off;
}

static size_t ipv4(uint8_t *f, const uint8_t *src, const char *ip, bool vlan)
{
	size_t off = eth(f, src, 0x0800, vlan);

	memset(f + off, 0, 20);
	f[off] = 0x45;
	inet_pton(AF_INET, ip, f + off + 12);
	return off + 20;
}

static size_t ipv6(uint8_t *f, const uint8_t *src, const char *ip, bool vlan)
{
	size_t off = eth(f, src, 0x86dd, vlan);

	memset(f + off, 0, 40);
	f[off] = 0x60;
	inet_pton(AF_INET6, ip, f + off + 8);
	return off + 40;
}

static size_t arp(uint8_t *f, const uint8_t *src, const uint8_t *sha,
		  const char *spa)
{
	static const uint8_t h[] = { 0, 1, 8, 0, 6, 4, 0, 1 };
	size_t off = eth(f, src, 0x0806, false);

	memset(f + off, 0, 28);
	memcpy(f + off, h, sizeof(h));
	memcpy(f + off + 8, sha, 6);
	inet_pton(AF_INET, spa, f + off + 14);
	return off + 28;
}

static void policy(struct spoof_policy *p, bool mac_lock, const char *ips)
{
	memset(p, 0, sizeof(*p));
	p->mac_lock = mac_lock;
	if (ips && spoof_parse_list(p, ips, ','))
		abort();
	spoof_finish(p, port_mac);
}

static void test_parse(void)
{
	struct spoof_policy p;

	memset(&p, 0, sizeof(p));
	CHECK(!spoof_active(&p));
	CHECK(spoof_parse_list(&p, "10.0.0.2,10.1.0.0/16,2001:db8::/64", ',') == NULL);
	CHECK(p.ip_lock && spoof_active(&p));
	CHECK_EQ(p.n4, 2);
	CHECK_EQ(p.n6, 1);
	CHECK_EQ(p.v4[1].mask, 0xffff0000u);
	/* ':' lists (--port, config file): IPv6 in brackets */
	memset(&p, 0, sizeof(p));
	CHECK(spoof_parse_list(&p, "10.0.0.2:[2001:db8::1]:[fe80::/10]", ':') == NULL);
	CHECK_EQ(p.n4, 1);
	CHECK_EQ(p.n6, 2);
	CHECK_EQ(p.v6[1].len, 10);
	/* host bits are cleared */
	memset(&p, 0, sizeof(p));
	CHECK(spoof_parse_list(&p, "10.0.0.77/24", ',') == NULL);
	CHECK_EQ(p.v4[0].addr, 0x0a000000u);
	/* refused */
	CHECK(spoof_parse_list(&p, "", ',') != NULL);
	CHECK(spoof_parse_list(&p, "10.0.0.1/33", ',') != NULL);
	CHECK(spoof_parse_list(&p, "10.0.0.1/", ',') != NULL);
	CHECK(spoof_parse_list(&p, "10.0.0.1/x", ',') != NULL);
	CHECK(spoof_parse_list(&p, "2001:db8::/129", ',') != NULL);
	CHECK(spoof_parse_list(&p, "host.example", ',') != NULL);
	CHECK(spoof_parse_list(&p, "10.0.0.1,,10.0.0.2", ',') != NULL);
	CHECK(spoof_parse_list(&p, "[2001:db8::1", ':') != NULL);
	CHECK(spoof_parse_list(&p, "2001:db8::1", ':') != NULL);
}

static void test_parse_limit(void)
{
	char list[512] = "";
	struct spoof_policy p;
	int i;

	memset(&p, 0, sizeof(p));
	for (i = 0; i < SPOOF_MAX_PREFIXES; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%s10.0.%d.1", i ? "," : "", i);
	CHECK(spoof_parse_list(&p, list, ',') == NULL);
	CHECK(spoof_parse_list(&p, "10.9.9.9", ',') != NULL);
}

static void test_mac_lock(void)
{
	struct spoof_policy p;
	uint8_t f[64];
	size_t n;

	policy(&p, true, NULL);
	n = ipv4(f, port_mac, "198.51.100.7", false);
	CHECK(spoof_frame_ok(&p, f, n));	/* no IP lock: any source */
	n = ipv4(f, other_mac, "198.51.100.7", false);
	CHECK(!spoof_frame_ok(&p, f, n));
	n = eth(f, port_mac, 0x88cc, false);	/* LLDP */
	CHECK(spoof_frame_ok(&p, f, n));
	CHECK(!spoof_frame_ok(&p, f, 13));	/* shorter than Ethernet */
	/* ARP: the sender hardware address too */
	n = arp(f, port_mac, port_mac, "10.0.0.2");
	CHECK(spoof_frame_ok(&p, f, n));
	n = arp(f, port_mac, other_mac, "10.0.0.2");
	CHECK(!spoof_frame_ok(&p, f, n));
	n = arp(f, port_mac, port_mac, "10.0.0.2");
	CHECK(!spoof_frame_ok(&p, f, n - 1));	/* truncated ARP */
	/* a VLAN tag does not hide the source MAC */
	n = ipv4(f, other_mac, "10.0.0.2", true);
	CHECK(!spoof_frame_ok(&p, f, n));
}

static void test_ipv4_arp(void)
{
	struct spoof_policy p;
	uint8_t f[64];
	size_t n;

	policy(&p, false, "10.0.0.2,192.0.2.0/28");
	n = ipv4(f, other_mac, "10.0.0.2", false);	/* no MAC lock */
	CHECK(spoof_frame_ok(&p, f, n));
	n = ipv4(f, port_mac, "192.0.2.15", false);
	CHECK(spoof_frame_ok(&p, f, n));
	n = ipv4(f, port_mac, "192.0.2.16", false);
	CHECK(!spoof_frame_ok(&p, f, n));
	n = ipv4(f, port_mac, "10.0.0.3", false);
	CHECK(!spoof_frame_ok(&p, f, n));
	n = ipv4(f, port_mac, "0.0.0.0", false);	/* DHCP discover */
	CHECK(spoof_frame_ok(&p, f, n));
	n = ipv4(f, port_mac, "10.0.0.2", false);
	CHECK(!spoof_frame_ok(&p, f, n - 1));		/* truncated header */
	f[14] = 0x65;					/* version 6 in 0x0800 */
	CHECK(!spoof_frame_ok(&p, f, n));
	/* ARP sender IP; 0.0.0.0 is an ARP probe (RFC 5227) */
	n = arp(f, port_mac, port_mac, "10.0.0.2");
	CHECK(spoof_frame_ok(&p, f, n));
	n = arp(f, port_mac, port_mac, "10.0.0.9");
	CHECK(!spoof_frame_ok(&p, f, n));
	n = arp(f, port_mac, port_mac, "0.0.0.0");
	CHECK(spoof_frame_ok(&p, f, n));
	f[14 + 2] = 0x86;				/* ptype not IPv4 */
	CHECK(!spoof_frame_ok(&p, f, n));
	/* no IPv6 listed: only ::, the MAC's link-local */
	n = ipv6(f, port_mac, "2001:db8::2", false);
	CHECK(!spoof_frame_ok(&p, f, n));
	n = ipv6(f, port_mac, "fe80::5054:ff:fe12:3456", false);
	CHECK(spoof_frame_ok(&p, f, n));
}

static void test_ipv6(void)
{
	struct spoof_policy p;
	uint8_t f[64];
	size_t n;

	policy(&p, true, "2001:db8:0:1::/64,2001:db8::1");
	n = ipv6(f, port_mac, "2001:db8:0:1::99", false);
	CHECK(spoof_frame_ok(&p, f, n));
	n = ipv6(f, port_mac, "2001:db8::1", false);
	CHECK(spoof_frame_ok(&p, f, n));
	n = ipv6(f, port_mac, "2001:db8::2", false);
	CHECK(!spoof_frame_ok(&p, f, n));
	n = ipv6(f, port_mac, "2001:db8:0:2::99", false);
	CHECK(!spoof_frame_ok(&p, f, n));
	n = ipv6(f, port_mac, "::", false);		/* DAD */
	CHECK(spoof_frame_ok(&p, f, n));
	/* EUI-64 link-local of 52:54:00:12:34:56; other link-locals not */
	n = ipv6(f, port_mac, "fe80::5054:ff:fe12:3456", false);
	CHECK(spoof_frame_ok(&p, f, n));
	n = ipv6(f, port_mac, "fe80::1", false);
	CHECK(!spoof_frame_ok(&p, f, n));
	n = ipv6(f, port_mac, "2001:db8::1", false);
	CHECK(!spoof_frame_ok(&p, f, n - 1));		/* truncated */
	/* a prefix that ends inside a byte */
	policy(&p, false, "fe80::/10");
	n = ipv6(f, port_mac, "febf::1", false);
	CHECK(spoof_frame_ok(&p, f, n));
	n = ipv6(f, port_mac, "fec0::1", false);
	CHECK(!spoof_frame_ok(&p, f, n));
}

/*
 * spoof_set_mac(): the link-local of the new MAC replaces the old one's
 * (SIGHUP keeps a running port's MAC for a line without mac=); the lists
 * and the locks stay
 */
static void test_set_mac(void)
{
	static const uint8_t other[6] = { 0x02, 0x01, 0xaa, 0xbb, 0xcc, 0xdd };
	struct spoof_policy p, q;
	uint8_t f[64];
	size_t n;

	memset(&p, 0, sizeof(p));
	p.mac_lock = true;
	CHECK(spoof_parse_list(&p, "10.0.0.2,2001:db8::1", ',') == NULL);
	spoof_finish(&p, other);
	spoof_set_mac(&p, port_mac);
	policy(&q, true, "10.0.0.2,2001:db8::1");
	CHECK(spoof_same(&p, &q));
	CHECK_EQ(p.n6, 2);
	n = ipv6(f, port_mac, "fe80::5054:ff:fe12:3456", false);
	CHECK(spoof_frame_ok(&p, f, n));
	n = ipv6(f, port_mac, "fe80::1:aaff:febb:ccdd", false);
	CHECK(!spoof_frame_ok(&p, f, n));	/* the old MAC's link-local */
	n = ipv6(f, port_mac, "2001:db8::1", false);
	CHECK(spoof_frame_ok(&p, f, n));
	n = ipv4(f, other, "10.0.0.2", false);
	CHECK(!spoof_frame_ok(&p, f, n));	/* mac-lock: the new MAC */
	/* without --allow-ip nothing was added: only the MAC changes */
	policy(&p, true, NULL);
	spoof_set_mac(&p, other);
	CHECK_EQ(p.n6, 0);
	CHECK(!memcmp(p.mac, other, 6));
}

/* spoof_same(): every part counts, what lies past the lists does not */
static void test_same(void)
{
	struct spoof_policy a, b;

	policy(&a, false, "10.0.0.2,2001:db8::1");
	policy(&b, false, "10.0.0.2,2001:db8::1");
	b.v4[5].addr = 0x01020304;		/* unused entry */
	CHECK(spoof_same(&a, &b));
	policy(&b, false, "10.0.0.3,2001:db8::1");
	CHECK(!spoof_same(&a, &b));
	policy(&b, false, "10.0.0.2/31,2001:db8::1");
	CHECK(!spoof_same(&a, &b));
	policy(&b, false, "10.0.0.2,2001:db8::2");
	CHECK(!spoof_same(&a, &b));
	policy(&b, false, "10.0.0.2,2001:db8::1/127");
	CHECK(!spoof_same(&a, &b));
	policy(&b, false, "10.0.0.2");
	CHECK(!spoof_same(&a, &b));
	policy(&b, true, "10.0.0.2,2001:db8::1");
	CHECK(!spoof_same(&a, &b));
	policy(&b, false, NULL);
	CHECK(!spoof_same(&a, &b));
	policy(&b, false, "10.0.0.2,2001:db8::1");
	b.mac[5] ^= 1;
	CHECK(!spoof_same(&a, &b));
}

static void test_vlan(void)
{
	struct spoof_policy p;
	uint8_t f[80];
	size_t n;

	policy(&p, true, "10.0.0.2,2001:db8::2");
	/* one tag: the inner frame is checked */
	n = ipv4(f, port_mac, "10.0.0.2", true);
	CHECK(spoof_frame_ok(&p, f, n));
	n = ipv4(f, port_mac, "10.0.0.3", true);
	CHECK(!spoof_frame_ok(&p, f, n));
	n = ipv6(f, port_mac, "2001:db8::2", true);
	CHECK_EQ(n, SPOOF_HDR_MAX);
	CHECK(spoof_frame_ok(&p, f, n));
	n = ipv6(f, port_mac, "2001:db8::3", true);
	CHECK(!spoof_frame_ok(&p, f, n));
	CHECK(!spoof_frame_ok(&p, f, 17));		/* tag cut short */
	/* two tags (QinQ): refused, not looked into */
	n = ipv4(f + 4, port_mac, "10.0.0.2", true);
	memmove(f, f + 4, 12);
	memcpy(f + 12, "\x88\xa8\x00\x05", 4);
	CHECK(!spoof_frame_ok(&p, f, n + 4));
	/* ... but with only --mac-lock, tags are not looked into */
	policy(&p, true, NULL);
	CHECK(spoof_frame_ok(&p, f, n + 4));
}

/*
 * A classic BPF interpreter for what spoof_tc_prog() emits, with the
 * kernel's rule that a load past the end returns 0 (TC_ACT_OK). Frames
 * reach tc ingress with one VLAN tag already taken off (a tag cut short:
 * the frame is freed there): so here too.
 */
static int bpf_run(const struct sock_filter *f, int n, const uint8_t *pkt,
		   size_t len)
{
	uint8_t buf[128];
	uint32_t A = 0;
	int pc;

	if ((pkt[12] == 0x81 && pkt[13] == 0) ||
	    (pkt[12] == 0x88 && pkt[13] == 0xa8)) {
		if (len < 18)	/* skb_vlan_untag() frees it */
			return TC_ACT_SHOT;
		memcpy(buf, pkt, 12);
		memcpy(buf + 12, pkt + 16, len - 16);
		pkt = buf;
		len -= 4;
	}
	for (pc = 0; pc < n; pc++) {
		const struct sock_filter *i = &f[pc];
		uint32_t k = i->k;

		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (k + 4 > len)
				return 0;
			A = (uint32_t)pkt[k] << 24 | (uint32_t)pkt[k + 1] << 16 |
			    (uint32_t)pkt[k + 2] << 8 | pkt[k + 3];
			break;
		case BPF_LD | BPF_H | BPF_ABS:
			if (k + 2 > len)
				return 0;
			A = (uint32_t)(pkt[k] << 8 | pkt[k + 1]);
			break;
		case BPF_LD | BPF_B | BPF_ABS:
			if (k + 1 > len)
				return 0;
			A = pkt[k];
			break;
		case BPF_LD | BPF_W | BPF_LEN:
			A = (uint32_t)len;
			break;
		case BPF_ALU | BPF_AND | BPF_K:
			A &= k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += A == k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			pc += A >= k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JA:
			pc += (int)k;
			break;
		case BPF_RET | BPF_K:
			return (int)k;
		default:
			return -100;	/* an instruction we do not emit */
		}
	}
	return -101;			/* fell off the end */
}

/*
 * The tc program and spoof_frame_ok() agree on every frame of a corpus
 * (allowed and refused, tagged, truncated at every length)
 */
static void test_tc_matches_userspace(void)
{
	static const char *const v4[] = { "10.0.0.2", "10.0.0.3", "0.0.0.0",
					  "192.0.2.9", "192.0.2.200" };
	static const char *const v6[] = { "2001:db8::2", "2001:db8::3", "::",
					  "fe80::5054:ff:fe12:3456", "fe80::1",
					  "2001:db8:1:2::7", "2001:db8:1:3::7" };
	static const char *const lists[] = { NULL, "10.0.0.2,192.0.2.0/25",
		"2001:db8::2,2001:db8:1:2::/63,10.0.0.0/31", "0.0.0.0/0,::/0" };
	static struct sock_filter prog[SPOOF_TC_MAX_INSNS];
	const uint8_t *macs[] = { port_mac, other_mac };
	unsigned int li, lock, mi, vl, i, cut, frames = 0;
	struct spoof_policy p;
	char code[8192];
	uint8_t f[80];
	size_t n;
	int np;

	for (li = 0; li < sizeof(lists) / sizeof(lists[0]); li++) {
		for (lock = 0; lock < 2; lock++) {
			if (!lists[li] && !lock)
				continue;
			policy(&p, lock, lists[li]);
			np = spoof_tc_prog(&p, prog, SPOOF_TC_MAX_INSNS);
			CHECK(np > 0);
			CHECK_EQ(spoof_tc_bytecode(prog, (unsigned int)np, code,
						   sizeof(code)), 0);
			for (mi = 0; mi < 2; mi++)
			for (vl = 0; vl < 2; vl++)
			for (i = 0; i < 5 + 7 + 5; i++) {
				if (i < 5)
					n = ipv4(f, macs[mi], v4[i], vl);
				else if (i < 12)
					n = ipv6(f, macs[mi], v6[i - 5], vl);
				else if (!vl)
					n = arp(f, port_mac, macs[mi], v4[i - 12]);
				else
					continue;
				for (cut = 14; cut <= n; cut++) {
					bool ok = spoof_frame_ok(&p, f, cut);
					int r = bpf_run(prog, np, f, cut);

					if (r != (ok ? TC_ACT_OK : TC_ACT_SHOT))
						fprintf(stderr, "  list %u lock %u mac %u vlan %u frame %u len %u: userspace %d tc %d\n",
							li, lock, mi, vl, i, cut, ok, r);
					CHECK_EQ(r, ok ? TC_ACT_OK : TC_ACT_SHOT);
					frames++;
				}
			}
		}
	}
	CHECK(frames > 1000);
	/* too many prefixes for 8-bit jumps: refused, not mis-compiled */
	memset(&p, 0, sizeof(p));
	CHECK(spoof_parse_list(&p, "2001:db8:0:1::/127,2001:db8:0:2::/127,2001:db8:0:3::/127,2001:db8:0:4::/127,2001:db8:0:5::/127,2001:db8:0:6::/127,2001:db8:0:7::/127,2001:db8:0:8::/127,2001:db8:0:9::/127,2001:db8:0:a::/127,2001:db8:0:b::/127,2001:db8:0:c::/127,2001:db8:0:d::/127,2001:db8:0:e::/127,2001:db8:0:f::/127,2001:db8:0:10::/127", ',') == NULL);
	spoof_finish(&p, port_mac);
	np = spoof_tc_prog(&p, prog, SPOOF_TC_MAX_INSNS);
	CHECK(np > 0 || np == -E2BIG);
}

int main(void)
{
	RUN(test_parse);
	RUN(test_parse_limit);
	RUN(test_mac_lock);
	RUN(test_ipv4_arp);
	RUN(test_ipv6);
	RUN(test_set_mac);
	RUN(test_same);
	RUN(test_vlan);
	RUN(test_tc_matches_userspace);
	return t_failed ? 1 : 0;
}
