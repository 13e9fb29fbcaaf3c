// SPDX-License-Identifier: MIT
/*
 * test_upgrade_state.c - the state one vnetd hands the next on `vnetctl
 * upgrade` (upgrade_state.c): a full round trip keeps every field; a
 * truncated state (every length), a corrupt one (every body byte), a
 * newer format version, a wrong descriptor count and each bad value the
 * decoder checks are refused with a reason, whatever the checksum says.
 * The state filled here carries a dirty log (format version 2);
 * without one the writer falls back to version 1, which still decodes,
 * and a version 2 body under a version 1 header does not. A port with
 * AF_XDP sockets makes it version 3: they round-trip (zero-copy and TX
 * metadata room flags too), and a bad count,
 * a missing descriptor or unknown flags are refused.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"
#include "upgrade_state.h"

static struct upgrade_state st_in, st_out;
static uint8_t buf[1 << 20];
static size_t buf_len;

/* Two ports: one connected (memory, rings, a half message), one idle */
static void fill(struct upgrade_state *st)
{
	struct upgrade_port *p;
	struct upgrade_dev *d;
	unsigned int i;

	upgrade_state_init(st);
	st->ctl_fd = upgrade_state_add_fd(st, 10);
	st->log_fd = upgrade_state_add_fd(st, 2);
	p = &st->ports[st->nports++];
	strcpy(p->name, "vm1");
	p->flags = UPGRADE_P_CONNECTED;
	p->queues = 2;
	p->listen_fd = upgrade_state_add_fd(st, 11);
	p->conn_fd = upgrade_state_add_fd(st, 12);
	p->nqfds = 2;
	p->qfds[0] = upgrade_state_add_fd(st, 13);
	p->qfds[1] = upgrade_state_add_fd(st, 14);
	d = &p->dev;
	d->features = 0x130000000ull | 1;
	d->proto = 0x8001;
	d->features_set = d->owner = true;
	d->status = 0xf;
	d->mtu = 1500;
	d->nregions = 3;
	for (i = 0; i < 3; i++)
		d->regions[i] = (struct upgrade_region){
			0x100000ull * i, 0x100000, 0x7f0000000000ull + 0x100000ull * i,
			0x1000 * i, i + 1, upgrade_state_add_fd(st, 20 + (int)i) };
	d->nrings = 4;
	for (i = 0; i < 4; i++)
		d->rings[i] = (struct upgrade_ring){
			256, 0x1234 + i, i & 1, true, true, i != 3, true,
			0x1000 + i, 0x2000 + i, 0x3000 + i, 0x4000 + i,
			upgrade_state_add_fd(st, 30 + (int)i),
			upgrade_state_add_fd(st, 40 + (int)i),
			i == 0 ? -1 : upgrade_state_add_fd(st, 50 + (int)i) };
	d->rx_got = 20;
	for (i = 0; i < 20; i++)
		d->rx[i] = (uint8_t)(i * 7);
	d->rx_nfds = 1;
	d->rx_fds[0] = upgrade_state_add_fd(st, 60);
	d->log_fd = upgrade_state_add_fd(st, 70);
	d->log_size = 0x2000;
	d->log_offset = 0x1000;
	d->log_notify_fd = upgrade_state_add_fd(st, 71);
	p = &st->ports[st->nports++];
	strcpy(p->name, "idle");
	p->flags = UPGRADE_P_CLIENT;
	p->queues = 1;
	p->listen_fd = p->conn_fd = -1;
}

static int encode(void)
{
	return upgrade_state_encode(&st_in, buf, sizeof(buf), &buf_len);
}

/* Decode @len bytes of buf with the descriptor count the sender had */
static int decode(size_t len, struct reason *why)
{
	uint32_t i;

	upgrade_state_init(&st_out);
	st_out.nfds = st_in.nfds;
	for (i = 0; i < st_in.nfds; i++)
		st_out.fds[i] = -1;	/* nothing to close */
	memset(why, 0, sizeof(*why));
	return upgrade_state_decode(&st_out, buf, len, why);
}

static void put32(size_t at, uint32_t v)
{
	buf[at] = (uint8_t)v;
	buf[at + 1] = (uint8_t)(v >> 8);
	buf[at + 2] = (uint8_t)(v >> 16);
	buf[at + 3] = (uint8_t)(v >> 24);
}

/* Rewrite the header's CRC after a deliberate change in the body */
static void fix_crc(void)
{
	put32(12, upgrade_crc32(buf + UPGRADE_HDR_LEN, buf_len - UPGRADE_HDR_LEN));
}

static void test_round_trip(void)
{
	struct reason why;
	const struct upgrade_dev *a, *b;
	unsigned int i;

	fill(&st_in);
	CHECK_EQ(encode(), 0);
	CHECK(buf_len > UPGRADE_HDR_LEN && buf_len < upgrade_state_max_len());
	CHECK_EQ(decode(buf_len, &why), 0);
	CHECK_EQ(st_out.nports, 2);
	CHECK_EQ(st_out.ctl_fd, st_in.ctl_fd);
	CHECK_EQ(st_out.http_fd, -1);
	CHECK_EQ(st_out.log_fd, st_in.log_fd);
	for (i = 0; i < 2; i++) {
		const struct upgrade_port *p = &st_in.ports[i], *q = &st_out.ports[i];

		CHECK(!strcmp(p->name, q->name));
		CHECK_EQ(p->flags, q->flags);
		CHECK_EQ(p->queues, q->queues);
		CHECK_EQ(p->listen_fd, q->listen_fd);
		CHECK_EQ(p->conn_fd, q->conn_fd);
		CHECK_EQ(p->nqfds, q->nqfds);
		CHECK(!memcmp(p->qfds, q->qfds, p->nqfds * sizeof(p->qfds[0])));
	}
	a = &st_in.ports[0].dev;
	b = &st_out.ports[0].dev;
	CHECK_EQ(a->features, b->features);
	CHECK_EQ(a->proto, b->proto);
	CHECK(a->features_set == b->features_set && a->owner == b->owner);
	CHECK_EQ(a->status, b->status);
	CHECK_EQ(a->mtu, b->mtu);
	CHECK_EQ(a->nregions, b->nregions);
	CHECK(!memcmp(a->regions, b->regions, a->nregions * sizeof(a->regions[0])));
	CHECK_EQ(a->nrings, b->nrings);
	for (i = 0; i < a->nrings; i++)
		CHECK(!memcmp(&a->rings[i], &b->rings[i], sizeof(a->rings[i])));
	CHECK_EQ(a->rx_got, b->rx_got);
	CHECK(!memcmp(a->rx, b->rx, a->rx_got));
	CHECK_EQ(a->rx_nfds, b->rx_nfds);
	CHECK_EQ(a->rx_fds[0], b->rx_fds[0]);
	CHECK_EQ(buf[4], UPGRADE_VERSION_LOG);
	CHECK(a->log_fd >= 0 && a->log_notify_fd >= 0);
	CHECK_EQ(a->log_fd, b->log_fd);
	CHECK_EQ(a->log_size, b->log_size);
	CHECK_EQ(a->log_offset, b->log_offset);
	CHECK_EQ(a->log_notify_fd, b->log_notify_fd);
}

/* No dirty log: version 1, what the previous binary reads; 24 bytes less */
static void test_version1(void)
{
	struct upgrade_dev *d = &st_in.ports[0].dev;
	struct reason why;
	size_t v2_len;

	fill(&st_in);
	CHECK_EQ(encode(), 0);
	v2_len = buf_len;
	buf[4] = 1;		/* a v2 body read as v1: the log is misread */
	CHECK_EQ(decode(buf_len, &why), -EBADMSG);
	CHECK(why.msg[0]);
	d->log_fd = d->log_notify_fd = -1;
	d->log_size = d->log_offset = 0;
	st_in.nfds -= 2;	/* the two log descriptors were the last added */
	CHECK_EQ(encode(), 0);
	CHECK_EQ(buf[4], 1);
	CHECK_EQ(buf[5], 0);
	CHECK_EQ(buf_len, v2_len - 24);
	CHECK_EQ(decode(buf_len, &why), 0);
	CHECK_EQ(st_out.ports[0].dev.log_fd, -1);
	CHECK_EQ(st_out.ports[0].dev.log_notify_fd, -1);
	CHECK_EQ(st_out.ports[0].dev.log_size, 0);
	CHECK_EQ(st_out.ports[0].dev.nrings, 4);
	/* a notification eventfd alone is a log too: version 2 */
	d->log_notify_fd = upgrade_state_add_fd(&st_in, 71);
	CHECK_EQ(encode(), 0);
	CHECK_EQ(buf[4], UPGRADE_VERSION_LOG);
	CHECK_EQ(decode(buf_len, &why), 0);
	CHECK_EQ(st_out.ports[0].dev.log_fd, -1);
	CHECK_EQ(st_out.ports[0].dev.log_notify_fd, d->log_notify_fd);
}

static void test_truncated(void)
{
	struct reason why;
	size_t len;

	fill(&st_in);
	CHECK_EQ(encode(), 0);
	for (len = 0; len < buf_len; len++) {
		if (decode(len, &why) != -EBADMSG) {
			fprintf(stderr, "  a state cut at %zu of %zu bytes was not refused\n",
				len, buf_len);
			CHECK(0);
		}
		CHECK(why.msg[0]);
	}
	CHECK_EQ(decode(buf_len, &why), 0);
}

static void test_corrupt(void)
{
	struct reason why;
	size_t i;

	fill(&st_in);
	CHECK_EQ(encode(), 0);
	for (i = UPGRADE_HDR_LEN; i < buf_len; i++) {
		buf[i] ^= 0x41;
		CHECK_EQ(decode(buf_len, &why), -EBADMSG);
		CHECK(strstr(why.msg, "checksum"));
		buf[i] ^= 0x41;
	}
	buf[0] ^= 1;			/* magic */
	CHECK_EQ(decode(buf_len, &why), -EBADMSG);
	CHECK(strstr(why.msg, "magic"));
	buf[0] ^= 1;
	buf[6] = 25;			/* header length */
	CHECK_EQ(decode(buf_len, &why), -EBADMSG);
	buf[6] = UPGRADE_HDR_LEN;
	CHECK_EQ(decode(buf_len, &why), 0);
}

static void test_newer_version(void)
{
	struct reason why;

	fill(&st_in);
	CHECK_EQ(encode(), 0);
	buf[4] = UPGRADE_VERSION + 1;
	CHECK_EQ(decode(buf_len, &why), -EPROTONOSUPPORT);
	CHECK(strstr(why.msg, "version 5"));
	buf[4] = 0;
	CHECK_EQ(decode(buf_len, &why), -EPROTONOSUPPORT);
}

static void test_fd_count(void)
{
	struct reason why;

	fill(&st_in);
	CHECK_EQ(encode(), 0);
	st_in.nfds--;			/* one descriptor did not arrive */
	CHECK_EQ(decode(buf_len, &why), -EBADMSG);
	CHECK(strstr(why.msg, "descriptors"));
	buf[20] = 0xff;			/* over UPGRADE_MAX_FDS */
	buf[21] = 0xff;
	CHECK_EQ(decode(buf_len, &why), -E2BIG);
}

/* Change st_in with @fn, re-encode, expect a refusal naming @what */
static int refused(void (*fn)(struct upgrade_state *), const char *what)
{
	struct reason why;
	int ret;

	fill(&st_in);
	fn(&st_in);
	if (encode())
		return 0;
	ret = decode(buf_len, &why);
	if (ret != -EBADMSG || !strstr(why.msg, what)) {
		fprintf(stderr, "  expected a refusal naming \"%s\", got %d \"%s\"\n",
			what, ret, why.msg);
		return 0;
	}
	return 1;
}

#define P0(st)	((st)->ports[0])
static void m_queues0(struct upgrade_state *s) { P0(s).queues = 0; }
static void m_queues65(struct upgrade_state *s) { P0(s).queues = 65; }
static void m_flags(struct upgrade_state *s) { P0(s).flags |= 1u << 7; }
static void m_name_empty(struct upgrade_state *s) { P0(s).name[0] = '\0'; }
static void m_name_unterminated(struct upgrade_state *s) { memset(P0(s).name, 'a', UPGRADE_NAME_LEN); }
static void m_name_dup(struct upgrade_state *s) { strcpy(s->ports[1].name, "vm1"); }
static void m_fd_range(struct upgrade_state *s) { P0(s).listen_fd = (int32_t)s->nfds; }
static void m_fd_neg(struct upgrade_state *s) { P0(s).listen_fd = -2; }
static void m_fd_twice(struct upgrade_state *s) { P0(s).dev.rings[1].kick_fd = P0(s).dev.rings[0].kick_fd; }
static void m_ctl_twice(struct upgrade_state *s) { s->http_fd = s->ctl_fd; }
static void m_conn_flag(struct upgrade_state *s) { P0(s).conn_fd = -1; }
static void m_qfds(struct upgrade_state *s) { P0(s).nqfds = 1; }
static void m_qfd_missing(struct upgrade_state *s) { P0(s).qfds[1] = -1; }
static void m_nrings(struct upgrade_state *s) { P0(s).dev.nrings = 2; }
static void m_ring_num(struct upgrade_state *s) { P0(s).dev.rings[2].num = 65536; }
static void m_ring_start(struct upgrade_state *s) { P0(s).dev.rings[2].kicked = false; }
static void m_regions(struct upgrade_state *s) { P0(s).dev.nregions = GMEM_MAX_REGIONS + 1; }
static void m_region_size(struct upgrade_state *s) { P0(s).dev.regions[1].size = 0; }
static void m_region_refs(struct upgrade_state *s) { P0(s).dev.regions[1].refs = 0; }
static void m_region_fd(struct upgrade_state *s) { P0(s).dev.regions[2].fd = -1; }
static void m_rx_fds(struct upgrade_state *s) { P0(s).dev.rx_nfds = UPGRADE_RX_FDS + 1; }
static void m_rx_fd_missing(struct upgrade_state *s) { P0(s).dev.rx_fds[0] = -1; }
static void m_log_nosize(struct upgrade_state *s) { P0(s).dev.log_size = 0; }
static void m_log_nofd(struct upgrade_state *s) { P0(s).dev.log_fd = -1; }
static void m_log_offset(struct upgrade_state *s) { P0(s).dev.log_fd = -1; P0(s).dev.log_size = 0; }
static void m_log_big(struct upgrade_state *s) { P0(s).dev.log_size = (1ULL << 49) + 1; }
static void m_log_wrap(struct upgrade_state *s) { P0(s).dev.log_offset = ~0ULL - 0x1000; }
static void m_log_fd_twice(struct upgrade_state *s) { P0(s).dev.log_fd = P0(s).dev.rx_fds[0]; }
static void m_log_fd_range(struct upgrade_state *s) { P0(s).dev.log_notify_fd = (int32_t)s->nfds; }

static void test_every_field_checked(void)
{
	CHECK(refused(m_queues0, "queue pairs"));
	CHECK(refused(m_queues65, "queue pairs"));
	CHECK(refused(m_flags, "unknown flags"));
	CHECK(refused(m_name_empty, "empty"));
	CHECK(refused(m_name_unterminated, "terminated"));
	CHECK(refused(m_name_dup, "named twice"));
	CHECK(refused(m_fd_range, "outside"));
	CHECK(refused(m_fd_neg, "outside"));
	CHECK(refused(m_fd_twice, "named twice"));
	CHECK(refused(m_ctl_twice, "named twice"));
	CHECK(refused(m_conn_flag, "connected flag"));
	CHECK(refused(m_qfds, "backend queue descriptors"));
	CHECK(refused(m_qfd_missing, "missing"));
	CHECK(refused(m_nrings, "rings for"));
	CHECK(refused(m_ring_num, "over 32768"));
	CHECK(refused(m_ring_start, "started without"));
	CHECK(refused(m_region_size, "memory region 1"));
	CHECK(refused(m_region_refs, "memory region 1"));
	CHECK(refused(m_region_fd, "memory region 2"));
	CHECK(refused(m_rx_fds, "half-received descriptors"));
	CHECK(refused(m_rx_fd_missing, "missing"));
	CHECK(refused(m_log_nosize, "dirty log descriptor"));
	CHECK(refused(m_log_nofd, "dirty log descriptor -1 with size 8192"));
	CHECK(refused(m_log_offset, "offset 4096"));
	CHECK(refused(m_log_big, "dirty log size"));
	CHECK(refused(m_log_wrap, "past 2^64"));
	CHECK(refused(m_log_fd_twice, "dirty log descriptor index"));
	CHECK(refused(m_log_fd_range, "dirty log notification descriptor index"));
	/* the encoder stops at the bound; the count itself is refused */
	fill(&st_in);
	m_regions(&st_in);
	CHECK_EQ(encode(), 0);
	{
		struct reason why;

		CHECK_EQ(decode(buf_len, &why), -EBADMSG);
		CHECK(strstr(why.msg, "memory regions"));
	}
}

/* A third port, af_xdp with 2 pairs: format version 3 */
static void add_xsk(struct upgrade_state *s)
{
	struct upgrade_port *p = &s->ports[s->nports++];
	unsigned int i;

	memset(p, 0, sizeof(*p));
	strcpy(p->name, "xdp");
	p->queues = 2;
	p->listen_fd = upgrade_state_add_fd(s, 80);
	p->conn_fd = -1;
	p->nxsk = 2;
	for (i = 0; i < 2; i++)
		p->xsk[i] = (struct upgrade_xsk){
			upgrade_state_add_fd(s, 81 + 2 * (int)i),
			upgrade_state_add_fd(s, 82 + 2 * (int)i),
			3 + i, i ? UPGRADE_XSK_ZEROCOPY : UPGRADE_XSK_TXMD };
}

static void m_xsk_count(struct upgrade_state *s) { add_xsk(s); s->ports[2].nxsk = 1; }
static void m_xsk_umem(struct upgrade_state *s) { add_xsk(s); s->ports[2].xsk[1].umem_fd = -1; }
static void m_xsk_flags(struct upgrade_state *s) { add_xsk(s); s->ports[2].xsk[0].flags = 4; }
static void m_xsk_twice(struct upgrade_state *s) { add_xsk(s); s->ports[2].xsk[1].sock_fd = s->ports[2].xsk[0].umem_fd; }

static void test_version3_xsk(void)
{
	struct reason why;
	unsigned int i;

	fill(&st_in);
	add_xsk(&st_in);
	CHECK_EQ(encode(), 0);
	CHECK_EQ(buf[4], UPGRADE_VERSION_XSK);
	CHECK_EQ(decode(buf_len, &why), 0);
	CHECK_EQ(st_out.nports, 3);
	CHECK_EQ(st_out.ports[2].nxsk, 2);
	for (i = 0; i < 2; i++)
		CHECK(!memcmp(&st_in.ports[2].xsk[i], &st_out.ports[2].xsk[i],
			      sizeof(st_in.ports[2].xsk[i])));
	CHECK_EQ(st_out.ports[0].nxsk, 0);
	CHECK_EQ(st_out.ports[0].dev.log_size, st_in.ports[0].dev.log_size);
	buf[4] = UPGRADE_VERSION_LOG;	/* a v3 body read as v2: misread */
	fix_crc();
	CHECK_EQ(decode(buf_len, &why), -EBADMSG);
	CHECK(refused(m_xsk_count, "AF_XDP sockets for 2 queue pairs"));
	CHECK(refused(m_xsk_umem, "descriptor missing"));
	CHECK(refused(m_xsk_flags, "unknown AF_XDP flags"));
	CHECK(refused(m_xsk_twice, "named twice"));
}

#define SPEC "name=rt,socket=/run/vnetd/rt.sock,backend=null,queues=2"

/* Offset in buf of the spec's length field (the spec's bytes follow it) */
static size_t spec_at(void)
{
	size_t n = strlen(SPEC), i;

	for (i = UPGRADE_HDR_LEN; i + n <= buf_len; i++)
		if (!memcmp(buf + i, SPEC, n))
			return i - 4;
	return 0;
}

/* Version 4: a run-time port's spec, written only when one exists */
static void test_version4_spec(void)
{
	struct reason why;
	size_t at;

	fill(&st_in);
	strcpy(st_in.ports[1].spec, SPEC);
	CHECK_EQ(encode(), 0);
	CHECK_EQ(buf[4], UPGRADE_VERSION_SPEC);
	CHECK_EQ(decode(buf_len, &why), 0);
	CHECK(!strcmp(st_out.ports[1].spec, SPEC));
	CHECK_EQ(st_out.ports[0].spec[0], '\0');
	CHECK_EQ(st_out.ports[0].dev.log_size, st_in.ports[0].dev.log_size);
	CHECK_EQ(st_out.ports[1].flags, st_in.ports[1].flags);
	at = spec_at();
	CHECK(at > UPGRADE_HDR_LEN);
	/* oversized: a length past UPGRADE_SPEC_LEN - 1 */
	put32(at, UPGRADE_SPEC_LEN);
	fix_crc();
	CHECK_EQ(decode(buf_len, &why), -EBADMSG);
	CHECK(strstr(why.msg, "run-time spec of 1024 bytes, at most 1023"));
	/* a NUL inside */
	put32(at, (uint32_t)strlen(SPEC));
	buf[at + 8] = 0;
	fix_crc();
	CHECK_EQ(decode(buf_len, &why), -EBADMSG);
	CHECK(strstr(why.msg, "has a NUL byte"));
	/* truncated in the middle of the spec */
	CHECK_EQ(encode(), 0);
	buf_len = at + 4 + 10;
	put32(8, (uint32_t)(buf_len - UPGRADE_HDR_LEN));
	fix_crc();
	CHECK_EQ(decode(buf_len, &why), -EBADMSG);
	CHECK(why.msg[0]);
	/* a v4 body read as v3 is misread, never taken */
	CHECK_EQ(encode(), 0);
	buf[4] = UPGRADE_VERSION_XSK;
	fix_crc();
	CHECK_EQ(decode(buf_len, &why), -EBADMSG);
	/* no run-time port: the lowest version, as before */
	fill(&st_in);
	CHECK_EQ(encode(), 0);
	CHECK(buf[4] < UPGRADE_VERSION_SPEC);
}

/* Bytes the encoder cannot produce: flag bytes, rx length, trailing data */
static void test_raw_values(void)
{
	struct reason why;
	size_t at;

	fill(&st_in);
	CHECK_EQ(encode(), 0);
	/* port 0's features_set byte: header, globals, name, 5 u32, 2 qfds, 2 u64 */
	at = UPGRADE_HDR_LEN + 12 + UPGRADE_NAME_LEN + 20 + 8 + 16;
	CHECK_EQ(buf[at], 1);
	buf[at] = 2;
	fix_crc();
	CHECK_EQ(decode(buf_len, &why), -EBADMSG);
	CHECK(strstr(why.msg, "features_set is 2"));
	CHECK_EQ(encode(), 0);
	buf[buf_len] = 0;		/* one byte after the last port */
	buf_len++;
	put32(8, (uint32_t)(buf_len - UPGRADE_HDR_LEN));	/* body length */
	fix_crc();
	CHECK_EQ(decode(buf_len, &why), -EBADMSG);
	CHECK(strstr(why.msg, "after its last port"));
	fill(&st_in);
	st_in.ports[0].dev.rx_got = UPGRADE_RX_MAX + 1;
	CHECK_EQ(encode(), 0);		/* writes the count, not the bytes */
	CHECK_EQ(decode(buf_len, &why), -EBADMSG);
	CHECK(strstr(why.msg, "half-received bytes"));
}

static void test_take_fd(void)
{
	struct upgrade_state *st = calloc(1, sizeof(*st));

	CHECK(st);
	upgrade_state_init(st);
	CHECK_EQ(upgrade_state_add_fd(st, -1), -1);
	CHECK_EQ(upgrade_state_add_fd(st, 7), 0);
	CHECK_EQ(upgrade_state_take_fd(st, 0), 7);
	CHECK_EQ(upgrade_state_take_fd(st, 0), -1);	/* one owner */
	CHECK_EQ(upgrade_state_take_fd(st, 5), -1);
	CHECK_EQ(upgrade_state_take_fd(st, -1), -1);
	st->nfds = UPGRADE_MAX_FDS;
	CHECK_EQ(upgrade_state_add_fd(st, 3), -EMFILE);
	free(st);
}

static void test_crc(void)
{
	/* the standard check value of CRC-32/ISO-HDLC */
	CHECK_EQ(upgrade_crc32((const uint8_t *)"123456789", 9), 0xcbf43926u);
}

int main(void)
{
	RUN(test_crc);
	RUN(test_round_trip);
	RUN(test_version1);
	RUN(test_truncated);
	RUN(test_corrupt);
	RUN(test_newer_version);
	RUN(test_fd_count);
	RUN(test_every_field_checked);
	RUN(test_raw_values);
	RUN(test_version3_xsk);
	RUN(test_version4_spec);
	RUN(test_take_fd);
	return test_exit();
}
