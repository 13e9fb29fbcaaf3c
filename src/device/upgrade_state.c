// SPDX-License-Identifier: MIT
/*
 * upgrade_state.c - encode and decode the state one vnetd hands the next
 * (upgrade_state.h): fixed-width little-endian fields written and read one
 * by one, so the format does not depend on a compiler's struct layout.
 * Whether the values make sense for a vhost-user device is decided later,
 * by replaying them through the device's own message handlers
 * (vu_dev_upgrade.c); this layer checks the framing and every value that
 * sizes or indexes something.
 *
 * Security model: the reader does not trust the bytes (another binary,
 * maybe another version, wrote them; they crossed a socket). The header is
 * checked first (magic, version, lengths, checksum), then every count
 * against its bound before it sizes a loop, every descriptor index against
 * the table and against being named twice (each descriptor gets exactly
 * one owner), every string for its terminator and every flag byte for
 * 0 or 1. The body must be consumed exactly. Any failure is -errno with a
 * one-line reason, and the state is then unusable as a whole.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "upgrade_state.h"
#include "vu_proto.h"

_Static_assert(UPGRADE_RX_MAX == sizeof(struct vu_hdr) + sizeof(union vu_payload),
	       "UPGRADE_RX_MAX must hold a whole vhost-user message");
_Static_assert(UPGRADE_RX_FDS == VHOST_USER_MAX_FDS, "fds per message");

/* Encoded sizes, for the bound upgrade_state_max_len() returns */
#define UPG_GLOBALS_LEN	(3 * 4)
#define UPG_REGION_LEN	(4 * 8 + 4 + 4)
#define UPG_RING_LEN	(3 * 4 + 4 + 4 * 8 + 3 * 4)
#define UPG_LOG_LEN	(4 + 8 + 8 + 4)		/* version 2 */
#define UPG_DEV_LEN_MAX	(8 + 8 + 4 + 4 + 4 + GMEM_MAX_REGIONS * UPG_REGION_LEN + \
			 4 + UPGRADE_MAX_RINGS * UPG_RING_LEN + 4 + UPGRADE_RX_MAX + \
			 4 + UPGRADE_RX_FDS * 4 + UPG_LOG_LEN)
/* The bitmap for every 64-bit guest address: 2^64 / 4 KiB pages / 8 bits */
#define UPG_LOG_SIZE_MAX (1ULL << 49)
#define UPG_XSK_LEN	(4 * 4)			/* version 3 */
#define UPG_PORT_LEN_MAX (UPGRADE_NAME_LEN + 4 * 5 + UPGRADE_MAX_PAIRS * 4 + \
			  4 + UPGRADE_MAX_PAIRS * UPG_XSK_LEN + \
			  4 + UPGRADE_SPEC_LEN - 1 + UPG_DEV_LEN_MAX)

/* A cursor over a buffer; @err latches the first overrun */
struct upgrade_state_cur {
	uint8_t *w;		/* writer */
	const uint8_t *r;	/* reader */
	size_t len;
	size_t at;
	bool err;
	unsigned int version;	/* of the state written or read */
};

static void upgrade_state_put(struct upgrade_state_cur *c, const void *p, size_t n)
{
	if (c->err || n > c->len - c->at) {
		c->err = true;
		return;
	}
	memcpy(c->w + c->at, p, n);
	c->at += n;
}

static void upgrade_state_put_uint(struct upgrade_state_cur *c, uint64_t v, unsigned int bytes)
{
	uint8_t b[8];
	unsigned int i;

	for (i = 0; i < bytes; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	upgrade_state_put(c, b, bytes);
}

#define upgrade_state_put8(c, v)	upgrade_state_put_uint((c), (v), 1)
#define upgrade_state_put16(c, v)	upgrade_state_put_uint((c), (v), 2)
#define upgrade_state_put32(c, v)	upgrade_state_put_uint((c), (uint32_t)(v), 4)
#define upgrade_state_put64(c, v)	upgrade_state_put_uint((c), (v), 8)

static void upgrade_state_get(struct upgrade_state_cur *c, void *p, size_t n)
{
	if (c->err || n > c->len - c->at) {
		c->err = true;
		memset(p, 0, n);
		return;
	}
	memcpy(p, c->r + c->at, n);
	c->at += n;
}

static uint64_t upgrade_state_get_uint(struct upgrade_state_cur *c, unsigned int bytes)
{
	uint8_t b[8];
	uint64_t v = 0;
	unsigned int i;

	upgrade_state_get(c, b, bytes);
	for (i = 0; i < bytes; i++)
		v |= (uint64_t)b[i] << (8 * i);
	return v;
}

#define upgrade_state_get8(c)	((uint8_t)upgrade_state_get_uint((c), 1))
#define upgrade_state_get16(c)	((uint16_t)upgrade_state_get_uint((c), 2))
#define upgrade_state_get32(c)	((uint32_t)upgrade_state_get_uint((c), 4))
#define upgrade_state_get64(c)	upgrade_state_get_uint((c), 8)

/**
 * upgrade_crc32() - CRC-32 (IEEE 802.3, as zlib) of a buffer
 * @p:		Bytes
 * @len:	How many
 *
 * Bitwise: it runs once per upgrade, over a few hundred KiB at most.
 *
 * Return: the CRC
 */
uint32_t upgrade_crc32(const uint8_t *p, size_t len)
{
	uint32_t crc = 0xffffffffu;
	size_t i;
	int k;

	for (i = 0; i < len; i++) {
		crc ^= p[i];
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return ~crc;
}

/**
 * upgrade_state_init() - An empty state: no port, no descriptor
 * @st:		State
 */
void upgrade_state_init(struct upgrade_state *st)
{
	memset(st, 0, sizeof(*st));
	st->ctl_fd = st->http_fd = st->log_fd = -1;
}

/**
 * upgrade_state_add_fd() - Put a descriptor in the table (sending side)
 * @st:		State
 * @fd:		Descriptor, borrowed; negative: none
 *
 * Return: its index, -1 for a negative @fd, -EMFILE if the table is full
 */
int upgrade_state_add_fd(struct upgrade_state *st, int fd)
{
	if (fd < 0)
		return -1;
	if (st->nfds >= UPGRADE_MAX_FDS)
		return -EMFILE;
	st->fds[st->nfds] = fd;
	return (int)st->nfds++;
}

/**
 * upgrade_state_take_fd() - Take a received descriptor out of the table
 * @st:		State (receiving side, decoded: indices checked)
 * @idx:	Index, -1: none
 *
 * Return: the descriptor, now the caller's, or -1
 */
int upgrade_state_take_fd(struct upgrade_state *st, int32_t idx)
{
	int fd;

	if (idx < 0 || (uint32_t)idx >= st->nfds)
		return -1;
	fd = st->fds[idx];
	st->fds[idx] = -1;
	return fd;
}

/**
 * upgrade_state_close_fds() - Close every received descriptor not taken
 * @st:		State (receiving side)
 */
void upgrade_state_close_fds(struct upgrade_state *st)
{
	uint32_t i;

	for (i = 0; i < st->nfds; i++)
		if (st->fds[i] >= 0) {
			close(st->fds[i]);
			st->fds[i] = -1;
		}
}

/**
 * upgrade_state_max_len() - Bytes the largest state encodes to
 *
 * Return: the bound
 */
size_t upgrade_state_max_len(void)
{
	return UPGRADE_HDR_LEN + UPG_GLOBALS_LEN +
	       (size_t)UPGRADE_MAX_PORTS * UPG_PORT_LEN_MAX;
}

static void upgrade_state_put_ring(struct upgrade_state_cur *c, const struct upgrade_ring *r)
{
	upgrade_state_put32(c, r->num);
	upgrade_state_put32(c, r->base);
	upgrade_state_put32(c, r->addr_flags);
	upgrade_state_put8(c, r->addr_set);
	upgrade_state_put8(c, r->kicked);
	upgrade_state_put8(c, r->enabled);
	upgrade_state_put8(c, r->started);
	upgrade_state_put64(c, r->desc);
	upgrade_state_put64(c, r->avail);
	upgrade_state_put64(c, r->used);
	upgrade_state_put64(c, r->log_gpa);
	upgrade_state_put32(c, r->kick_fd);
	upgrade_state_put32(c, r->call_fd);
	upgrade_state_put32(c, r->err_fd);
}

static void upgrade_state_put_dev(struct upgrade_state_cur *c, const struct upgrade_dev *d)
{
	uint32_t i;

	upgrade_state_put64(c, d->features);
	upgrade_state_put64(c, d->proto);
	upgrade_state_put8(c, d->features_set);
	upgrade_state_put8(c, d->owner);
	upgrade_state_put8(c, d->status);
	upgrade_state_put8(c, 0);
	upgrade_state_put16(c, d->mtu);
	upgrade_state_put16(c, 0);
	upgrade_state_put32(c, d->nregions);
	for (i = 0; i < d->nregions && i < GMEM_MAX_REGIONS; i++) {
		const struct upgrade_region *r = &d->regions[i];

		upgrade_state_put64(c, r->gpa);
		upgrade_state_put64(c, r->size);
		upgrade_state_put64(c, r->uva);
		upgrade_state_put64(c, r->mmap_offset);
		upgrade_state_put32(c, r->refs);
		upgrade_state_put32(c, r->fd);
	}
	upgrade_state_put32(c, d->nrings);
	for (i = 0; i < d->nrings && i < UPGRADE_MAX_RINGS; i++)
		upgrade_state_put_ring(c, &d->rings[i]);
	upgrade_state_put32(c, d->rx_got);
	upgrade_state_put(c, d->rx, d->rx_got <= UPGRADE_RX_MAX ? d->rx_got : 0);
	upgrade_state_put32(c, d->rx_nfds);
	for (i = 0; i < d->rx_nfds && i < UPGRADE_RX_FDS; i++)
		upgrade_state_put32(c, d->rx_fds[i]);
	if (c->version < UPGRADE_VERSION_LOG)
		return;
	upgrade_state_put32(c, d->log_fd);
	upgrade_state_put64(c, d->log_size);
	upgrade_state_put64(c, d->log_offset);
	upgrade_state_put32(c, d->log_notify_fd);
}

/* The lowest version that holds @st: what the previous binary reads */
static unsigned int upgrade_state_version(const struct upgrade_state *st)
{
	unsigned int v = 1;
	uint32_t i;

	for (i = 0; i < st->nports && i < UPGRADE_MAX_PORTS; i++)
		if (st->ports[i].spec[0])
			return UPGRADE_VERSION_SPEC;
	for (i = 0; i < st->nports && i < UPGRADE_MAX_PORTS; i++) {
		const struct upgrade_port *p = &st->ports[i];

		if (p->nxsk)
			return UPGRADE_VERSION_XSK;
		if ((p->flags & UPGRADE_P_CONNECTED) &&
		    (p->dev.log_fd >= 0 || p->dev.log_notify_fd >= 0))
			v = UPGRADE_VERSION_LOG;
	}
	return v;
}

static void upgrade_state_put_port(struct upgrade_state_cur *c, const struct upgrade_port *p)
{
	uint32_t i;

	upgrade_state_put(c, p->name, sizeof(p->name));
	upgrade_state_put32(c, p->flags);
	upgrade_state_put32(c, p->queues);
	upgrade_state_put32(c, p->listen_fd);
	upgrade_state_put32(c, p->conn_fd);
	upgrade_state_put32(c, p->nqfds);
	for (i = 0; i < p->nqfds && i < UPGRADE_MAX_PAIRS; i++)
		upgrade_state_put32(c, p->qfds[i]);
	if (c->version >= UPGRADE_VERSION_XSK) {
		upgrade_state_put32(c, p->nxsk);
		for (i = 0; i < p->nxsk && i < UPGRADE_MAX_PAIRS; i++) {
			upgrade_state_put32(c, p->xsk[i].sock_fd);
			upgrade_state_put32(c, p->xsk[i].umem_fd);
			upgrade_state_put32(c, p->xsk[i].qid);
			upgrade_state_put32(c, p->xsk[i].flags);
		}
	}
	if (c->version >= UPGRADE_VERSION_SPEC) {
		size_t n = strnlen(p->spec, sizeof(p->spec) - 1);

		upgrade_state_put32(c, n);
		upgrade_state_put(c, p->spec, n);
	}
	if (p->flags & UPGRADE_P_CONNECTED)
		upgrade_state_put_dev(c, &p->dev);
}

/**
 * upgrade_state_encode() - Write @st in the wire format
 * @st:		State (sending side)
 * @buf:	Output
 * @cap:	Its size (upgrade_state_max_len() always suffices)
 * @len:	Bytes written (output)
 *
 * Return: 0, -ENOSPC if @cap is too small
 */
int upgrade_state_encode(const struct upgrade_state *st, uint8_t *buf,
			 size_t cap, size_t *len)
{
	struct upgrade_state_cur c = { .w = buf, .len = cap, .at = UPGRADE_HDR_LEN,
			     .version = upgrade_state_version(st) };
	uint32_t i, body;

	if (cap < UPGRADE_HDR_LEN)
		return -ENOSPC;
	upgrade_state_put32(&c, st->ctl_fd);
	upgrade_state_put32(&c, st->http_fd);
	upgrade_state_put32(&c, st->log_fd);
	for (i = 0; i < st->nports && i < UPGRADE_MAX_PORTS; i++)
		upgrade_state_put_port(&c, &st->ports[i]);
	if (c.err)
		return -ENOSPC;
	*len = c.at;
	body = (uint32_t)(c.at - UPGRADE_HDR_LEN);
	c.at = 0;
	upgrade_state_put32(&c, UPGRADE_MAGIC);
	upgrade_state_put16(&c, c.version);
	upgrade_state_put16(&c, UPGRADE_HDR_LEN);
	upgrade_state_put32(&c, body);
	upgrade_state_put32(&c, upgrade_crc32(buf + UPGRADE_HDR_LEN, body));
	upgrade_state_put32(&c, st->nports);
	upgrade_state_put32(&c, st->nfds);
	return 0;
}

/**
 * upgrade_state_header() - Check the header of a received state
 * @buf:	At least UPGRADE_HDR_LEN bytes
 * @len:	Bytes in @buf
 * @body_len:	Body length the header announces (output)
 * @nfds:	Descriptors it announces (output)
 * @why:	Reason on failure
 *
 * The receiver reads the header first to know how much body and how many
 * descriptors follow; the checksum is checked by upgrade_state_decode().
 *
 * Return: 0, -EBADMSG (not a state, or too short), -EPROTONOSUPPORT (a
 *	   version this binary does not know: 0, or newer than
 *	   UPGRADE_VERSION), -E2BIG (counts over bounds)
 */
int upgrade_state_header(const uint8_t *buf, size_t len, uint32_t *body_len,
			 uint32_t *nfds, struct reason *why)
{
	struct upgrade_state_cur c = { .r = buf, .len = len };
	uint32_t magic, body, nports;
	uint16_t version, hlen;

	if (len < UPGRADE_HDR_LEN)
		return reason_set(why, -EBADMSG, "state truncated: %zu of %u header bytes",
				  len, UPGRADE_HDR_LEN);
	magic = upgrade_state_get32(&c);
	version = upgrade_state_get16(&c);
	hlen = upgrade_state_get16(&c);
	body = upgrade_state_get32(&c);
	(void)upgrade_state_get32(&c);		/* crc: upgrade_state_decode() */
	nports = upgrade_state_get32(&c);
	*nfds = upgrade_state_get32(&c);
	if (magic != UPGRADE_MAGIC)
		return reason_set(why, -EBADMSG, "state magic %#x, expected %#x: not a vnetd upgrade state",
				  magic, UPGRADE_MAGIC);
	if (!version || version > UPGRADE_VERSION)
		return reason_set(why, -EPROTONOSUPPORT, "state format version %u, this vnetd reads versions 1..%u",
				  version, UPGRADE_VERSION);
	if (hlen != UPGRADE_HDR_LEN)
		return reason_set(why, -EBADMSG, "state header length %u, expected %u",
				  hlen, UPGRADE_HDR_LEN);
	if (nports > UPGRADE_MAX_PORTS || *nfds > UPGRADE_MAX_FDS ||
	    body > upgrade_state_max_len() - UPGRADE_HDR_LEN)
		return reason_set(why, -E2BIG, "state of %u ports, %u descriptors, %u bytes: over 0..%u, 0..%u, 0..%zu",
				  nports, *nfds, body, UPGRADE_MAX_PORTS,
				  UPGRADE_MAX_FDS,
				  upgrade_state_max_len() - UPGRADE_HDR_LEN);
	*body_len = body;
	return 0;
}

/* A descriptor index: -1, or in the table and not named before */
static int upgrade_state_fd(struct upgrade_state_cur *c, uint8_t *seen, uint32_t nfds,
		  const char *what, const char *port, struct reason *why,
		  int32_t *out)
{
	int32_t idx = (int32_t)upgrade_state_get32(c);

	*out = -1;
	if (c->err || idx == -1)
		return 0;
	if (idx < 0 || (uint32_t)idx >= nfds)
		return reason_set(why, -EBADMSG, "port %s: %s descriptor index %d outside 0..%u",
				  port, what, idx, nfds ? nfds - 1 : 0);
	if (seen[idx])
		return reason_set(why, -EBADMSG, "port %s: %s descriptor index %d named twice",
				  port, what, idx);
	seen[idx] = 1;
	*out = idx;
	return 0;
}

static int upgrade_state_bool(struct upgrade_state_cur *c, bool *out, const char *what,
		    const char *port, struct reason *why)
{
	uint8_t v = upgrade_state_get8(c);

	*out = v;
	if (v > 1)
		return reason_set(why, -EBADMSG, "port %s: %s is %u, expected 0 or 1",
				  port, what, v);
	return 0;
}

struct upgrade_state_dec {
	struct upgrade_state_cur c;
	uint8_t *seen;
	uint32_t nfds;
	struct reason *why;
};

static int upgrade_state_get_ring(struct upgrade_state_dec *x, struct upgrade_ring *r,
			const char *port, unsigned int i)
{
	char what[32];
	int ret = 0;

	r->num = upgrade_state_get32(&x->c);
	r->base = upgrade_state_get32(&x->c);
	r->addr_flags = upgrade_state_get32(&x->c);
	snprintf(what, sizeof(what), "ring %u flags", i);
	ret = upgrade_state_bool(&x->c, &r->addr_set, what, port, x->why);
	ret = ret ?: upgrade_state_bool(&x->c, &r->kicked, what, port, x->why);
	ret = ret ?: upgrade_state_bool(&x->c, &r->enabled, what, port, x->why);
	ret = ret ?: upgrade_state_bool(&x->c, &r->started, what, port, x->why);
	if (ret)
		return ret;
	r->desc = upgrade_state_get64(&x->c);
	r->avail = upgrade_state_get64(&x->c);
	r->used = upgrade_state_get64(&x->c);
	r->log_gpa = upgrade_state_get64(&x->c);
	snprintf(what, sizeof(what), "ring %u kick", i);
	ret = upgrade_state_fd(&x->c, x->seen, x->nfds, what, port, x->why, &r->kick_fd);
	snprintf(what, sizeof(what), "ring %u call", i);
	ret = ret ?: upgrade_state_fd(&x->c, x->seen, x->nfds, what, port, x->why,
			    &r->call_fd);
	snprintf(what, sizeof(what), "ring %u err", i);
	ret = ret ?: upgrade_state_fd(&x->c, x->seen, x->nfds, what, port, x->why,
			    &r->err_fd);
	if (ret)
		return ret;
	/* virtio 2.7: Queue Size <= 32768; the device checks the rest */
	if (r->num > 32768)
		return reason_set(x->why, -EBADMSG, "port %s: ring %u size %u over 32768",
				  port, i, r->num);
	if (r->started && (!r->num || !r->addr_set || !r->kicked))
		return reason_set(x->why, -EBADMSG, "port %s: ring %u started without size, addresses or kick",
				  port, i);
	return 0;
}

static int upgrade_state_get_regions(struct upgrade_state_dec *x, struct upgrade_dev *d,
			   const char *port)
{
	uint32_t i;
	int ret;

	d->nregions = upgrade_state_get32(&x->c);
	if (d->nregions > GMEM_MAX_REGIONS)
		return reason_set(x->why, -EBADMSG, "port %s: %u memory regions, at most %u",
				  port, d->nregions, GMEM_MAX_REGIONS);
	for (i = 0; i < d->nregions && !x->c.err; i++) {
		struct upgrade_region *r = &d->regions[i];

		r->gpa = upgrade_state_get64(&x->c);
		r->size = upgrade_state_get64(&x->c);
		r->uva = upgrade_state_get64(&x->c);
		r->mmap_offset = upgrade_state_get64(&x->c);
		r->refs = upgrade_state_get32(&x->c);
		ret = upgrade_state_fd(&x->c, x->seen, x->nfds, "memory region", port,
			     x->why, &r->fd);
		if (ret)
			return ret;
		if (x->c.err)
			break;
		if (!r->size || !r->refs || r->fd < 0 || r->refs > 65536)
			return reason_set(x->why, -EBADMSG, "port %s: memory region %u: size %llu, %u references, descriptor %d",
					  port, i, (unsigned long long)r->size,
					  r->refs, r->fd);
	}
	return 0;
}

static int upgrade_state_get_rx(struct upgrade_state_dec *x, struct upgrade_dev *d,
		      const char *port)
{
	uint32_t i;
	int ret;

	d->rx_got = upgrade_state_get32(&x->c);
	if (d->rx_got > UPGRADE_RX_MAX)
		return reason_set(x->why, -EBADMSG, "port %s: %u half-received bytes, at most %u",
				  port, d->rx_got, UPGRADE_RX_MAX);
	upgrade_state_get(&x->c, d->rx, d->rx_got);
	d->rx_nfds = upgrade_state_get32(&x->c);
	if (d->rx_nfds > UPGRADE_RX_FDS)
		return reason_set(x->why, -EBADMSG, "port %s: %u half-received descriptors, at most %u",
				  port, d->rx_nfds, UPGRADE_RX_FDS);
	for (i = 0; i < d->rx_nfds; i++) {
		ret = upgrade_state_fd(&x->c, x->seen, x->nfds, "half-received message",
			     port, x->why, &d->rx_fds[i]);
		if (ret)
			return ret;
		if (d->rx_fds[i] < 0 && !x->c.err)
			return reason_set(x->why, -EBADMSG, "port %s: half-received descriptor %u missing",
					  port, i);
	}
	return 0;
}

/* Version 2: the dirty log of a live migration running, or none */
static int upgrade_state_get_log(struct upgrade_state_dec *x, struct upgrade_dev *d,
		       const char *port)
{
	int ret;

	d->log_fd = d->log_notify_fd = -1;
	d->log_size = d->log_offset = 0;
	if (x->c.version < UPGRADE_VERSION_LOG)
		return 0;
	ret = upgrade_state_fd(&x->c, x->seen, x->nfds, "dirty log", port, x->why,
		     &d->log_fd);
	d->log_size = upgrade_state_get64(&x->c);
	d->log_offset = upgrade_state_get64(&x->c);
	ret = ret ?: upgrade_state_fd(&x->c, x->seen, x->nfds, "dirty log notification",
			    port, x->why, &d->log_notify_fd);
	if (ret || x->c.err)
		return ret;
	if ((d->log_fd >= 0) != (d->log_size != 0) ||
	    (d->log_fd < 0 && d->log_offset))
		return reason_set(x->why, -EBADMSG, "port %s: dirty log descriptor %d with size %llu, offset %llu: a log has both a descriptor and a size, no log neither",
				  port, d->log_fd, (unsigned long long)d->log_size,
				  (unsigned long long)d->log_offset);
	if (d->log_size > UPG_LOG_SIZE_MAX ||
	    d->log_offset > UINT64_MAX - d->log_size)
		return reason_set(x->why, -EBADMSG, "port %s: dirty log size %#llx at offset %#llx: size over %#llx or the end past 2^64",
				  port, (unsigned long long)d->log_size,
				  (unsigned long long)d->log_offset,
				  (unsigned long long)UPG_LOG_SIZE_MAX);
	return 0;
}

static int upgrade_state_get_dev(struct upgrade_state_dec *x, struct upgrade_dev *d,
		       const char *port, uint32_t queues)
{
	uint32_t i;
	int ret;

	d->features = upgrade_state_get64(&x->c);
	d->proto = upgrade_state_get64(&x->c);
	ret = upgrade_state_bool(&x->c, &d->features_set, "features_set", port, x->why);
	ret = ret ?: upgrade_state_bool(&x->c, &d->owner, "owner", port, x->why);
	if (ret)
		return ret;
	d->status = upgrade_state_get8(&x->c);
	(void)upgrade_state_get8(&x->c);
	d->mtu = upgrade_state_get16(&x->c);
	(void)upgrade_state_get16(&x->c);
	ret = upgrade_state_get_regions(x, d, port);
	if (ret)
		return ret;
	d->nrings = upgrade_state_get32(&x->c);
	if (!x->c.err && d->nrings != 2 * queues)
		return reason_set(x->why, -EBADMSG, "port %s: %u rings for %u queue pairs",
				  port, d->nrings, queues);
	for (i = 0; i < d->nrings && !x->c.err; i++) {
		ret = upgrade_state_get_ring(x, &d->rings[i], port, i);
		if (ret)
			return ret;
	}
	ret = upgrade_state_get_rx(x, d, port);
	return ret ?: upgrade_state_get_log(x, d, port);
}

/* Version 3: the port's AF_XDP sockets, each with both descriptors */
static int upgrade_state_get_xsk(struct upgrade_state_dec *x, struct upgrade_port *p)
{
	struct upgrade_xsk *k;
	uint32_t i;
	int ret;

	p->nxsk = 0;
	if (x->c.version < UPGRADE_VERSION_XSK)
		return 0;
	p->nxsk = upgrade_state_get32(&x->c);
	if (!x->c.err && p->nxsk && p->nxsk != p->queues)
		return reason_set(x->why, -EBADMSG, "port %s: %u AF_XDP sockets for %u queue pairs",
				  p->name, p->nxsk, p->queues);
	for (i = 0; i < p->nxsk && !x->c.err; i++) {
		k = &p->xsk[i];
		ret = upgrade_state_fd(&x->c, x->seen, x->nfds, "AF_XDP socket",
				       p->name, x->why, &k->sock_fd);
		ret = ret ?: upgrade_state_fd(&x->c, x->seen, x->nfds, "UMEM",
					      p->name, x->why, &k->umem_fd);
		if (ret)
			return ret;
		k->qid = upgrade_state_get32(&x->c);
		k->flags = upgrade_state_get32(&x->c);
		if (x->c.err)
			return 0;
		if (k->sock_fd < 0 || k->umem_fd < 0)
			return reason_set(x->why, -EBADMSG, "port %s: pair %u: AF_XDP socket or UMEM descriptor missing",
					  p->name, i);
		if (k->flags & ~UPGRADE_XSK_FLAGS)
			return reason_set(x->why, -EBADMSG, "port %s: pair %u: unknown AF_XDP flags %#x",
					  p->name, i, k->flags & ~UPGRADE_XSK_FLAGS);
	}
	return 0;
}

/* Version 4: the spec of a port added at run time, "" for any other */
static int upgrade_state_get_spec(struct upgrade_state_dec *x, struct upgrade_port *p)
{
	uint32_t n;

	p->spec[0] = '\0';
	if (x->c.version < UPGRADE_VERSION_SPEC)
		return 0;
	n = upgrade_state_get32(&x->c);
	if (x->c.err)
		return 0;
	if (n > sizeof(p->spec) - 1)
		return reason_set(x->why, -EBADMSG, "port %s: run-time spec of %u bytes, at most %u",
				  p->name, n, UPGRADE_SPEC_LEN - 1);
	upgrade_state_get(&x->c, p->spec, n);
	p->spec[x->c.err ? 0 : n] = '\0';
	if (!x->c.err && strlen(p->spec) != n)
		return reason_set(x->why, -EBADMSG, "port %s: run-time spec has a NUL byte",
				  p->name);
	return 0;
}

static int upgrade_state_get_port(struct upgrade_state_dec *x, struct upgrade_port *p)
{
	uint32_t i;
	int ret;

	upgrade_state_get(&x->c, p->name, sizeof(p->name));
	if (x->c.err)
		return 0;
	if (!p->name[0] || !memchr(p->name, '\0', sizeof(p->name)))
		return reason_set(x->why, -EBADMSG, "a port name is empty or not terminated within %u bytes",
				  UPGRADE_NAME_LEN);
	p->flags = upgrade_state_get32(&x->c);
	p->queues = upgrade_state_get32(&x->c);
	if (p->flags & ~UPGRADE_P_FLAGS)
		return reason_set(x->why, -EBADMSG, "port %s: unknown flags %#x",
				  p->name, p->flags & ~UPGRADE_P_FLAGS);
	if (!x->c.err && (!p->queues || p->queues > UPGRADE_MAX_PAIRS))
		return reason_set(x->why, -EBADMSG, "port %s: %u queue pairs, expected 1..%u",
				  p->name, p->queues, UPGRADE_MAX_PAIRS);
	ret = upgrade_state_fd(&x->c, x->seen, x->nfds, "listening socket", p->name,
		     x->why, &p->listen_fd);
	ret = ret ?: upgrade_state_fd(&x->c, x->seen, x->nfds, "connection", p->name,
			    x->why, &p->conn_fd);
	if (ret)
		return ret;
	if (!x->c.err && (p->conn_fd >= 0) != !!(p->flags & UPGRADE_P_CONNECTED))
		return reason_set(x->why, -EBADMSG, "port %s: connection descriptor %d but connected flag %u",
				  p->name, p->conn_fd,
				  !!(p->flags & UPGRADE_P_CONNECTED));
	p->nqfds = upgrade_state_get32(&x->c);
	if (!x->c.err && p->nqfds && p->nqfds != p->queues)
		return reason_set(x->why, -EBADMSG, "port %s: %u backend queue descriptors for %u queue pairs",
				  p->name, p->nqfds, p->queues);
	for (i = 0; i < p->nqfds && !x->c.err; i++) {
		ret = upgrade_state_fd(&x->c, x->seen, x->nfds, "backend queue", p->name,
			     x->why, &p->qfds[i]);
		if (ret)
			return ret;
		if (p->qfds[i] < 0 && !x->c.err)
			return reason_set(x->why, -EBADMSG, "port %s: backend queue %u descriptor missing",
					  p->name, i);
	}
	ret = upgrade_state_get_xsk(x, p);
	ret = ret ?: upgrade_state_get_spec(x, p);
	if (ret)
		return ret;
	if (p->flags & UPGRADE_P_CONNECTED)
		return upgrade_state_get_dev(x, &p->dev, p->name, p->queues);
	return 0;
}

/**
 * upgrade_state_decode() - Parse and check a received state
 * @st:		State (output): upgrade_state_init()ed, with @st->fds and
 *		@st->nfds already holding the received descriptors
 * @buf:	Header and body
 * @len:	Bytes in @buf
 * @why:	Reason on failure
 *
 * Return: 0, or -errno (see upgrade_state_header(); -EBADMSG for a bad
 *	   checksum, a truncated body, trailing bytes or any bad value)
 */
int upgrade_state_decode(struct upgrade_state *st, const uint8_t *buf,
			 size_t len, struct reason *why)
{
	static uint8_t seen[UPGRADE_MAX_FDS];	/* control thread only */
	struct upgrade_state_dec x = { .c = { .r = buf, .len = len }, .seen = seen,
			     .why = why };
	uint32_t body, nfds, crc, nports, i, n;
	int ret;

	ret = upgrade_state_header(buf, len, &body, &nfds, why);
	if (ret)
		return ret;
	if (len - UPGRADE_HDR_LEN != body)
		return reason_set(why, -EBADMSG, "state truncated: %zu body bytes, header says %u",
				  len - UPGRADE_HDR_LEN, body);
	if (nfds != st->nfds)
		return reason_set(why, -EBADMSG, "%u descriptors received, state names %u",
				  st->nfds, nfds);
	x.c.at = 4;
	x.c.version = upgrade_state_get16(&x.c);	/* checked: 1..UPGRADE_VERSION */
	x.c.at = 12;
	crc = upgrade_state_get32(&x.c);
	nports = upgrade_state_get32(&x.c);
	if (crc != upgrade_crc32(buf + UPGRADE_HDR_LEN, body))
		return reason_set(why, -EBADMSG, "state checksum %#x does not match its body (%#x): corrupt",
				  crc, upgrade_crc32(buf + UPGRADE_HDR_LEN, body));
	memset(seen, 0, sizeof(seen));
	x.nfds = nfds;
	x.c.at = UPGRADE_HDR_LEN;
	ret = upgrade_state_fd(&x.c, seen, nfds, "control socket", "-", why, &st->ctl_fd);
	ret = ret ?: upgrade_state_fd(&x.c, seen, nfds, "metrics listener", "-", why,
			    &st->http_fd);
	ret = ret ?: upgrade_state_fd(&x.c, seen, nfds, "log", "-", why, &st->log_fd);
	for (i = 0; !ret && i < nports && !x.c.err; i++)
		ret = upgrade_state_get_port(&x, &st->ports[i]);
	if (ret)
		return ret;
	if (x.c.err)
		return reason_set(why, -EBADMSG, "state body truncated: %u bytes do not hold its %u ports",
				  body, nports);
	if (x.c.at != len)
		return reason_set(why, -EBADMSG, "state body has %zu bytes after its last port",
				  len - x.c.at);
	for (i = 0; i < nports; i++)
		for (n = 0; n < i; n++)
			if (!strcmp(st->ports[i].name, st->ports[n].name))
				return reason_set(why, -EBADMSG, "port %s named twice",
						  st->ports[i].name);
	st->nports = nports;
	return 0;
}
