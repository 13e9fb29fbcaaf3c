// SPDX-License-Identifier: MIT
/*
 * test_vu_frontend.c - the frontend library against a scripted fake backend
 * on a socketpair: message order, negotiation rules, refusals with their
 * errors, borrowed versus owned descriptors, stop and resume positions, and
 * no descriptor leaks (counted in /proc/self/fd).
 *
 * The TX data path is checked here against a device the test plays on the
 * ring (kick suppression, no used notifications while polling, lazy burst
 * reclaim, slot = buffer id, reserve/commit); end to end it is exercised by
 * tests/integration/bench-*.sh.
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/virtio_config.h>

#include "testlib.h"
#include "util.h"
#include "vu_frontend.h"
#include "vu_msg.h"

#define F(b)		(1ULL << (b))
#define BASE_FEATURES	(F(VIRTIO_F_VERSION_1) | F(VIRTIO_NET_F_MRG_RXBUF) | \
			 F(VIRTIO_RING_F_EVENT_IDX) | F(VIRTIO_NET_F_MAC) | \
			 F(VIRTIO_RING_F_INDIRECT_DESC) | F(VIRTIO_F_RING_PACKED) | \
			 F(VHOST_USER_F_PROTOCOL_FEATURES))
#define PF(b)		(1ULL << VHOST_USER_PROTOCOL_F_##b)
#define MAX_LOG		512

/**
 * struct fake - A scripted backend and what it saw
 */
struct fake {
	int sock;
	pthread_t th;
	uint64_t features, protocol;
	uint64_t queue_num;
	uint32_t refuse_req;		/* ack this request with 1 */
	uint32_t vring_base_reply;
	uint8_t mac[6];
	/* what it saw */
	uint32_t req[MAX_LOG];
	uint32_t nfds[MAX_LOG];
	uint32_t flags[MAX_LOG];
	unsigned int n;
	uint32_t set_base[16];
	uint64_t acked_features;
	uint64_t mem_gpa0;
};

static bool fd_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

static void fake_reply(struct fake *k, struct vu_msg *m, uint32_t size)
{
	m->hdr.flags = VHOST_USER_VERSION | VHOST_USER_REPLY;
	m->hdr.size = size;
	m->nfds = 0;
	vu_msg_send(k->sock, m);
}

static void fake_handle(struct fake *k, struct vu_msg *m)
{
	uint32_t r = m->hdr.request;

	switch (r) {
	case VHOST_USER_GET_FEATURES:
		m->payload.u64 = k->features;
		return fake_reply(k, m, 8);
	case VHOST_USER_GET_PROTOCOL_FEATURES:
		m->payload.u64 = k->protocol;
		return fake_reply(k, m, 8);
	case VHOST_USER_GET_QUEUE_NUM:
		m->payload.u64 = k->queue_num;
		return fake_reply(k, m, 8);
	case VHOST_USER_GET_MAX_MEM_SLOTS:
		m->payload.u64 = 32;
		return fake_reply(k, m, 8);
	case VHOST_USER_GET_CONFIG:
		memcpy(m->payload.config.region, k->mac, 6);
		return fake_reply(k, m, m->hdr.size);
	case VHOST_USER_GET_VRING_BASE:
		m->payload.state.num = k->vring_base_reply +
				       m->payload.state.index;
		return fake_reply(k, m, sizeof(m->payload.state));
	case VHOST_USER_SET_VRING_BASE:
		if (m->payload.state.index < 16)
			k->set_base[m->payload.state.index] =
				m->payload.state.num;
		break;
	case VHOST_USER_SET_FEATURES:
		k->acked_features = m->payload.u64;
		break;
	case VHOST_USER_SET_MEM_TABLE:
		k->mem_gpa0 = m->payload.mem.regions[0].guest_phys_addr;
		break;
	}
	if (m->hdr.flags & VHOST_USER_NEED_REPLY) {
		m->payload.u64 = r == k->refuse_req;
		fake_reply(k, m, 8);
	}
}

static void *fake_main(void *arg)
{
	struct fake *k = arg;
	struct vu_msg m;

	while (!vu_msg_recv(k->sock, &m)) {
		if (k->n < MAX_LOG) {
			k->req[k->n] = m.hdr.request;
			k->nfds[k->n] = m.nfds;
			k->flags[k->n] = m.hdr.flags;
			k->n++;
		}
		vu_msg_close_fds(&m);
		fake_handle(k, &m);
	}
	return NULL;
}

/* Start a fake; returns the frontend's end of the socketpair */
static int fake_start(struct fake *k, uint64_t features, uint64_t protocol)
{
	int sv[2];

	memset(k, 0, sizeof(*k));
	k->features = features;
	k->protocol = protocol;
	k->queue_num = 4;
	k->vring_base_reply = 42;
	memcpy(k->mac, (const uint8_t[]){ 0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee }, 6);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -1;
	k->sock = sv[1];
	if (pthread_create(&k->th, NULL, fake_main, k)) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	return sv[0];
}

/* Wait for the fake to see the frontend's end closed, then tidy up */
static void fake_join(struct fake *k)
{
	pthread_join(k->th, NULL);
	close(k->sock);
}

static int fake_find(const struct fake *k, uint32_t req)
{
	unsigned int i;

	for (i = 0; i < k->n; i++)
		if (k->req[i] == req)
			return (int)i;
	return -1;
}

static unsigned int fake_count(const struct fake *k, uint32_t req)
{
	unsigned int i, c = 0;

	for (i = 0; i < k->n; i++)
		c += k->req[i] == req;
	return c;
}

/* ---- refusals before any I/O ---- */

static void test_ring_size_not_power_of_two(void)
{
	struct vu_frontend_opts o = { .ring_size = 100 };
	struct vu_frontend f;

	CHECK_EQ(vu_frontend_init(&f, &o), -EINVAL);
	CHECK(strstr(vu_frontend_error(&f), "power of two"));
	o.packed = true;	/* packed rings take any size */
	CHECK_EQ(vu_frontend_init(&f, &o), 0);
	o.ring_size = 65536;
	CHECK_EQ(vu_frontend_init(&f, &o), -EINVAL);
}

static void test_too_many_pairs_for_library(void)
{
	struct vu_frontend_opts o = { .pairs = VU_FRONTEND_MAX_PAIRS + 1 };
	struct vu_frontend f;

	CHECK_EQ(vu_frontend_init(&f, &o), -EINVAL);
	CHECK(strstr(vu_frontend_error(&f), "queue pairs"));
}

/* ---- negotiation ---- */

static void test_refuses_without_version_1(void)
{
	struct vu_frontend_opts o = { 0 };
	struct vu_frontend f;
	struct fake k;
	int fds = test_count_fds(), s;

	s = fake_start(&k, BASE_FEATURES & ~F(VIRTIO_F_VERSION_1), 0);
	CHECK(s >= 0);
	CHECK_EQ(vu_frontend_init(&f, &o), 0);
	CHECK_EQ(vu_frontend_adopt(&f, s, VU_FRONTEND_TAKE_FD), -ENOTSUP);
	CHECK(strstr(vu_frontend_error(&f), "VERSION_1"));
	vu_frontend_cleanup(&f);
	fake_join(&k);
	CHECK_EQ(fake_find(&k, VHOST_USER_SET_FEATURES), -1);
	CHECK_EQ(test_count_fds(), fds);
}

static void test_message_order_like_qemu(void)
{
	static const uint32_t order[] = {
		VHOST_USER_GET_FEATURES, VHOST_USER_GET_PROTOCOL_FEATURES,
		VHOST_USER_SET_PROTOCOL_FEATURES, VHOST_USER_GET_QUEUE_NUM,
		VHOST_USER_SET_OWNER, VHOST_USER_SET_FEATURES,
		VHOST_USER_SET_MEM_TABLE, VHOST_USER_SET_VRING_NUM,
		VHOST_USER_SET_VRING_BASE, VHOST_USER_SET_VRING_ADDR,
		VHOST_USER_SET_VRING_KICK, VHOST_USER_SET_VRING_CALL,
		VHOST_USER_SET_VRING_ENABLE,
	};
	struct vu_frontend_opts o = { .pairs = 2 };
	struct vu_frontend f;
	unsigned int i;
	struct fake k;
	int s, prev = -1;

	s = fake_start(&k, BASE_FEATURES, PF(MQ) | PF(REPLY_ACK));
	CHECK(s >= 0);
	CHECK_EQ(vu_frontend_init(&f, &o), 0);
	CHECK_EQ(vu_frontend_adopt(&f, s, VU_FRONTEND_TAKE_FD), 0);
	CHECK_EQ(f.pairs, 2);
	vu_frontend_cleanup(&f);
	fake_join(&k);
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		int at = fake_find(&k, order[i]);

		if (at <= prev)
			fprintf(stderr, "  %s at %d, before %d\n",
				vu_request_name(order[i]), at, prev);
		CHECK(at > prev);
		prev = at;
	}
	CHECK_EQ(k.req[0], VHOST_USER_GET_FEATURES);
	CHECK_EQ(fake_count(&k, VHOST_USER_SET_VRING_KICK), 4);
	CHECK_EQ(fake_count(&k, VHOST_USER_SET_VRING_ENABLE), 4);
	CHECK_EQ(fake_find(&k, VHOST_USER_GET_CONFIG), -1);	/* no CONFIG */
	/* REPLY_ACK: every SET_* but SET_PROTOCOL_FEATURES asks for an ack */
	i = (unsigned int)fake_find(&k, VHOST_USER_SET_MEM_TABLE);
	CHECK(k.flags[i] & VHOST_USER_NEED_REPLY);
	CHECK_EQ(k.nfds[i], 1);
	CHECK(k.acked_features & F(VHOST_USER_F_PROTOCOL_FEATURES));
	CHECK(k.acked_features & F(VIRTIO_F_VERSION_1));
	CHECK(!(k.acked_features & F(VIRTIO_F_RING_PACKED)));	/* split asked */
	CHECK_EQ(k.set_base[0], 0);
}

static void test_no_protocol_features_one_pair(void)
{
	struct vu_frontend_opts o = { .pairs = 1 };
	struct vu_frontend f;
	struct fake k;
	int s;

	s = fake_start(&k, BASE_FEATURES & ~F(VHOST_USER_F_PROTOCOL_FEATURES), 0);
	CHECK(s >= 0);
	CHECK_EQ(vu_frontend_init(&f, &o), 0);
	CHECK_EQ(vu_frontend_adopt(&f, s, VU_FRONTEND_TAKE_FD), 0);
	vu_frontend_cleanup(&f);
	fake_join(&k);
	CHECK_EQ(fake_find(&k, VHOST_USER_GET_PROTOCOL_FEATURES), -1);
	CHECK_EQ(fake_find(&k, VHOST_USER_GET_QUEUE_NUM), -1);
	CHECK_EQ(fake_find(&k, VHOST_USER_SET_VRING_ENABLE), -1);
	CHECK(!(k.acked_features & F(VHOST_USER_F_PROTOCOL_FEATURES)));
	CHECK(!(k.flags[fake_find(&k, VHOST_USER_SET_MEM_TABLE)] &
		VHOST_USER_NEED_REPLY));
	/* No acks: a GET_FEATURES round trip is the barrier before traffic */
	CHECK_EQ(fake_count(&k, VHOST_USER_GET_FEATURES), 2);
	CHECK_EQ(k.req[k.n - 1], VHOST_USER_GET_FEATURES);
}

static void test_pairs_need_protocol_mq(void)
{
	struct vu_frontend_opts o = { .pairs = 2 };
	struct vu_frontend f;
	struct fake k;
	int s, fds = test_count_fds();

	s = fake_start(&k, BASE_FEATURES, PF(REPLY_ACK));
	CHECK(s >= 0);
	CHECK_EQ(vu_frontend_init(&f, &o), 0);
	CHECK_EQ(vu_frontend_adopt(&f, s, VU_FRONTEND_TAKE_FD), -ENOTSUP);
	CHECK(strstr(vu_frontend_error(&f), "PROTOCOL_F_MQ"));
	vu_frontend_cleanup(&f);
	fake_join(&k);
	CHECK_EQ(fake_find(&k, VHOST_USER_GET_QUEUE_NUM), -1);
	CHECK_EQ(test_count_fds(), fds);
}

static void test_more_pairs_than_backend(void)
{
	struct vu_frontend_opts o = { .pairs = 5 };
	struct vu_frontend f;
	struct fake k;
	int s, fds = test_count_fds();

	s = fake_start(&k, BASE_FEATURES, PF(MQ));
	CHECK(s >= 0);
	CHECK_EQ(vu_frontend_init(&f, &o), 0);
	CHECK_EQ(vu_frontend_adopt(&f, s, VU_FRONTEND_TAKE_FD), -ERANGE);
	CHECK(strstr(vu_frontend_error(&f), "backend reports 4"));
	vu_frontend_cleanup(&f);
	fake_join(&k);
	CHECK_EQ(fake_find(&k, VHOST_USER_SET_MEM_TABLE), -1);
	CHECK_EQ(test_count_fds(), fds);
}

static void test_packed_needs_offer(void)
{
	struct vu_frontend_opts o = { .packed = true };
	struct vu_frontend f;
	struct fake k;
	int s;

	s = fake_start(&k, BASE_FEATURES & ~F(VIRTIO_F_RING_PACKED), 0);
	CHECK(s >= 0);
	CHECK_EQ(vu_frontend_init(&f, &o), 0);
	CHECK_EQ(vu_frontend_adopt(&f, s, VU_FRONTEND_TAKE_FD), -ENOTSUP);
	CHECK(strstr(vu_frontend_error(&f), "RING_PACKED"));
	vu_frontend_cleanup(&f);
	fake_join(&k);
}

static void test_mac_from_config_only_when_negotiated(void)
{
	struct vu_frontend_opts o = { 0 };
	struct vu_frontend f;
	struct fake k;
	int s;

	s = fake_start(&k, BASE_FEATURES, PF(CONFIG));
	CHECK(s >= 0);
	CHECK_EQ(vu_frontend_init(&f, &o), 0);
	CHECK_EQ(vu_frontend_adopt(&f, s, VU_FRONTEND_TAKE_FD), 0);
	CHECK(!memcmp(f.mac, k.mac, 6));
	vu_frontend_cleanup(&f);
	fake_join(&k);
	CHECK(fake_find(&k, VHOST_USER_GET_CONFIG) > 0);

	/* The caller's MAC wins and no GET_CONFIG is needed */
	o.mac[0] = 0x02;
	o.mac[5] = 0x07;
	s = fake_start(&k, BASE_FEATURES, PF(CONFIG));
	CHECK(s >= 0);
	CHECK_EQ(vu_frontend_init(&f, &o), 0);
	CHECK_EQ(vu_frontend_adopt(&f, s, VU_FRONTEND_TAKE_FD), 0);
	CHECK_EQ(f.mac[5], 0x07);
	vu_frontend_cleanup(&f);
	fake_join(&k);
	CHECK_EQ(fake_find(&k, VHOST_USER_GET_CONFIG), -1);
}

static void test_reply_ack_refusal_fails(void)
{
	struct vu_frontend_opts o = { 0 };
	struct vu_frontend f;
	struct fake k;
	int s, fds = test_count_fds();

	s = fake_start(&k, BASE_FEATURES, PF(REPLY_ACK));
	CHECK(s >= 0);
	k.refuse_req = VHOST_USER_SET_MEM_TABLE;
	CHECK_EQ(vu_frontend_init(&f, &o), 0);
	CHECK_EQ(vu_frontend_adopt(&f, s, VU_FRONTEND_TAKE_FD), -EIO);
	CHECK(strstr(vu_frontend_error(&f), "SET_MEM_TABLE"));
	vu_frontend_cleanup(&f);
	fake_join(&k);
	CHECK_EQ(fake_find(&k, VHOST_USER_SET_VRING_NUM), -1);
	CHECK_EQ(test_count_fds(), fds);
}

static void test_add_mem_reg_with_mem_slots(void)
{
	struct vu_frontend_opts o = { .mem_regions = 3, .pairs = 2 };
	struct vu_frontend f;
	unsigned int i;
	struct fake k;
	int s;

	s = fake_start(&k, BASE_FEATURES, PF(CONFIGURE_MEM_SLOTS) | PF(MQ));
	CHECK(s >= 0);
	CHECK_EQ(vu_frontend_init(&f, &o), 0);
	CHECK_EQ(vu_frontend_adopt(&f, s, VU_FRONTEND_TAKE_FD), 0);
	vu_frontend_cleanup(&f);
	fake_join(&k);
	CHECK_EQ(fake_count(&k, VHOST_USER_ADD_MEM_REG), 3);
	CHECK_EQ(fake_find(&k, VHOST_USER_SET_MEM_TABLE), -1);
	CHECK(fake_find(&k, VHOST_USER_GET_MAX_MEM_SLOTS) <
	      fake_find(&k, VHOST_USER_SET_OWNER));
	for (i = 0; i < k.n; i++)
		if (k.req[i] == VHOST_USER_ADD_MEM_REG)
			CHECK_EQ(k.nfds[i], 1);

	/* Without the protocol feature: one SET_MEM_TABLE with three fds */
	s = fake_start(&k, BASE_FEATURES, PF(MQ));
	CHECK(s >= 0);
	CHECK_EQ(vu_frontend_init(&f, &o), 0);
	CHECK_EQ(vu_frontend_adopt(&f, s, VU_FRONTEND_TAKE_FD), 0);
	vu_frontend_cleanup(&f);
	fake_join(&k);
	CHECK_EQ(fake_find(&k, VHOST_USER_ADD_MEM_REG), -1);
	CHECK_EQ(k.nfds[fake_find(&k, VHOST_USER_SET_MEM_TABLE)], 3);
}

/* ---- descriptors: borrowed stays the caller's, owned is closed ---- */

static void test_borrowed_socket_and_eventfds(void)
{
	struct vu_frontend_opts o = { 0 };
	struct vu_msg m = { .hdr = { .request = VHOST_USER_GET_FEATURES,
				     .flags = VHOST_USER_VERSION } };
	int kick[2], call[2], fds, s, i;
	struct vu_frontend f;
	struct fake k;
	uint64_t v = 0;

	fds = test_count_fds();
	for (i = 0; i < 2; i++) {
		kick[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		call[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	}
	o.kick_fds = kick;
	o.call_fds = call;
	s = fake_start(&k, BASE_FEATURES, PF(REPLY_ACK));
	CHECK(s >= 0);
	CHECK_EQ(vu_frontend_init(&f, &o), 0);
	CHECK_EQ(vu_frontend_adopt(&f, s, 0), 0);
	vu_frontend_disconnect(&f);
	CHECK(fd_open(s));
	vu_frontend_cleanup(&f);
	/* Still open and still usable: a request gets its reply */
	CHECK(fd_open(s));
	CHECK_EQ(vu_msg_send(s, &m), 0);
	CHECK_EQ(vu_msg_recv(s, &m), 0);
	CHECK_EQ(m.payload.u64, BASE_FEATURES);
	for (i = 0; i < 2; i++) {
		CHECK(fd_open(kick[i]) && fd_open(call[i]));
		CHECK_EQ(eventfd_write(call[i], 3), 0);
		CHECK_EQ(eventfd_read(call[i], &v), 0);
		CHECK_EQ(v, 3);
	}
	/* The library kicked the caller's RX kick fd at start */
	CHECK_EQ(eventfd_read(kick[0], &v), 0);
	CHECK(v >= 1);
	close(s);
	fake_join(&k);
	for (i = 0; i < 2; i++) {
		close(kick[i]);
		close(call[i]);
	}
	CHECK_EQ(test_count_fds(), fds);
}

static void test_owned_socket_closed(void)
{
	struct vu_frontend_opts o = { 0 };
	struct vu_frontend f;
	struct fake k;
	int s, fds = test_count_fds();

	s = fake_start(&k, BASE_FEATURES, 0);
	CHECK(s >= 0);
	CHECK_EQ(vu_frontend_init(&f, &o), 0);
	CHECK_EQ(vu_frontend_adopt(&f, s, VU_FRONTEND_TAKE_FD), 0);
	CHECK(test_count_fds() > fds);	/* memfd, eventfds */
	vu_frontend_cleanup(&f);
	CHECK(!fd_open(s));
	fake_join(&k);
	CHECK_EQ(test_count_fds(), fds);
}

static void test_adopt_closed_fd_refused(void)
{
	struct vu_frontend_opts o = { 0 };
	struct vu_frontend f;

	CHECK_EQ(vu_frontend_init(&f, &o), 0);
	CHECK_EQ(vu_frontend_adopt(&f, -1, 0), -EBADF);
	CHECK_EQ(vu_frontend_connect(&f, "/nonexistent/vnet.sock"), -ENOENT);
	CHECK(strstr(vu_frontend_error(&f), "/nonexistent/vnet.sock"));
	vu_frontend_cleanup(&f);
}

/* ---- caller memory ---- */

static int region_try(const struct vu_frontend_region *r, int *err,
		      char *msg, size_t len)
{
	struct vu_frontend_opts o = { .regions = r, .nregions = 1 };
	struct vu_frontend f;
	struct fake k;
	int s;

	s = fake_start(&k, BASE_FEATURES, 0);
	if (s < 0)
		return -1;
	*err = vu_frontend_init(&f, &o);
	if (!*err)
		*err = vu_frontend_adopt(&f, s, VU_FRONTEND_TAKE_FD);
	else
		close(s);
	snprintf(msg, len, "%s", vu_frontend_error(&f));
	vu_frontend_cleanup(&f);
	fake_join(&k);
	return k.mem_gpa0 == r->gpa && !*err ? 1 : 0;
}

static void test_caller_memory_refusals(void)
{
	struct vu_frontend_region r = { .fd = -1, .gpa = 0x100000,
					.size = 16 << 20 };
	int err, fds = test_count_fds(), p[2];
	char msg[VU_FRONTEND_ERR_LEN];

	CHECK(region_try(&r, &err, msg, sizeof(msg)) >= 0);
	CHECK_EQ(err, -EBADF);
	CHECK(strstr(msg, "cannot be shared"));

	CHECK_EQ(pipe(p), 0);		/* not mmap-able */
	r.fd = p[0];
	CHECK(region_try(&r, &err, msg, sizeof(msg)) >= 0);
	CHECK(err < 0);
	CHECK(strstr(msg, "cannot be shared"));
	CHECK(fd_open(p[0]));		/* the caller's fd is left alone */
	close(p[0]);
	close(p[1]);

	r.fd = memfd_create("small", MFD_CLOEXEC);	/* would SIGBUS */
	CHECK(r.fd >= 0);
	CHECK_EQ(ftruncate(r.fd, 4096), 0);
	CHECK(region_try(&r, &err, msg, sizeof(msg)) >= 0);
	CHECK_EQ(err, -EINVAL);
	CHECK(strstr(msg, "bytes"));

	CHECK_EQ(ftruncate(r.fd, 256 << 10), 0);	/* too small for the rings */
	r.size = 256 << 10;
	CHECK(region_try(&r, &err, msg, sizeof(msg)) >= 0);
	CHECK_EQ(err, -ENOSPC);
	close(r.fd);
	CHECK_EQ(test_count_fds(), fds);
}

static void test_caller_memory_used(void)
{
	struct vu_frontend_region r = { .gpa = 0x40000000, .size = 32 << 20 };
	int err, fds = test_count_fds();
	char msg[VU_FRONTEND_ERR_LEN];

	r.fd = memfd_create("guest", MFD_CLOEXEC);
	CHECK(r.fd >= 0);
	CHECK_EQ(ftruncate(r.fd, (off_t)r.size), 0);
	CHECK_EQ(region_try(&r, &err, msg, sizeof(msg)), 1);
	CHECK_EQ(err, 0);
	CHECK(fd_open(r.fd));		/* borrowed: still ours */
	close(r.fd);
	CHECK_EQ(test_count_fds(), fds);
}

/* ---- lifecycle: stop saves positions, resume sends them ---- */

static void test_stop_and_resume_positions(void)
{
	struct vu_frontend_opts o = { .pairs = 2 };
	struct vu_frontend f;
	unsigned int i;
	struct fake k;
	int s, fds = test_count_fds();

	s = fake_start(&k, BASE_FEATURES, PF(MQ) | PF(REPLY_ACK));
	CHECK(s >= 0);
	CHECK_EQ(vu_frontend_init(&f, &o), 0);
	CHECK_EQ(vu_frontend_adopt(&f, s, VU_FRONTEND_TAKE_FD), 0);
	CHECK_EQ(vu_frontend_stop(&f), 0);
	vu_frontend_disconnect(&f);
	fake_join(&k);
	CHECK_EQ(fake_count(&k, VHOST_USER_GET_VRING_BASE), 4);
	CHECK(fake_find(&k, VHOST_USER_GET_VRING_BASE) >
	      fake_find(&k, VHOST_USER_SET_VRING_ENABLE));
	for (i = 0; i < 4; i++)
		CHECK_EQ(vu_frontend_ring_base(&f, i), 42 + i);

	/* A "restarted backend": same features, positions sent back */
	s = fake_start(&k, BASE_FEATURES, PF(MQ) | PF(REPLY_ACK));
	CHECK(s >= 0);
	CHECK_EQ(vu_frontend_adopt(&f, s, VU_FRONTEND_TAKE_FD), 0);
	for (i = 0; i < 4; i++)
		CHECK_EQ(k.set_base[i], 42 + i);
	vu_frontend_disconnect(&f);
	fake_join(&k);

	/* A backend that now offers less is refused */
	s = fake_start(&k, BASE_FEATURES & ~F(VIRTIO_NET_F_MRG_RXBUF),
		       PF(MQ) | PF(REPLY_ACK));
	CHECK(s >= 0);
	CHECK_EQ(vu_frontend_adopt(&f, s, VU_FRONTEND_TAKE_FD), -EPROTO);
	fake_join(&k);
	vu_frontend_cleanup(&f);
	CHECK_EQ(test_count_fds(), fds);
}

/* Backend gone without a stop: positions come from the rings themselves */
static void test_resume_after_backend_crash(void)
{
	struct vu_frontend_opts o = { .packed = true };
	struct vu_frontend f;
	struct fake k;
	int s, fds = test_count_fds();

	s = fake_start(&k, BASE_FEATURES, PF(REPLY_ACK));
	CHECK(s >= 0);
	CHECK_EQ(vu_frontend_init(&f, &o), 0);
	CHECK_EQ(vu_frontend_adopt(&f, s, VU_FRONTEND_TAKE_FD), 0);
	CHECK_EQ(k.set_base[0], 0x8000);	/* slot 0, wrap counter 1 */
	vu_frontend_disconnect(&f);		/* no GET_VRING_BASE */
	fake_join(&k);
	CHECK_EQ(fake_find(&k, VHOST_USER_GET_VRING_BASE), -1);

	s = fake_start(&k, BASE_FEATURES, PF(REPLY_ACK));
	CHECK(s >= 0);
	memset(k.set_base, 0xff, sizeof(k.set_base));
	CHECK_EQ(vu_frontend_adopt(&f, s, VU_FRONTEND_TAKE_FD), 0);
	CHECK_EQ(k.set_base[0], 0x8000);	/* nothing was used yet */
	CHECK_EQ(k.set_base[1], 0x8000);
	vu_frontend_cleanup(&f);
	fake_join(&k);
	CHECK_EQ(test_count_fds(), fds);
}

/* A GSO header without the matching feature never reaches the ring */
static void test_tx_offload_needs_feature(void)
{
	struct virtio_net_hdr_v1 h = { .gso_type = VIRTIO_NET_HDR_GSO_TCPV4,
				       .gso_size = 1448, .hdr_len = 54 };
	struct vu_frontend_opts o = { .max_frame = 9000 };
	uint8_t frame[9000] = { 0 };
	struct vu_frontend f;
	struct fake k;
	int s;

	s = fake_start(&k, BASE_FEATURES | F(VIRTIO_NET_F_CSUM), 0);
	CHECK(s >= 0);
	CHECK_EQ(vu_frontend_init(&f, &o), 0);
	CHECK_EQ(vu_frontend_adopt(&f, s, VU_FRONTEND_TAKE_FD), 0);
	CHECK_EQ(vu_frontend_tx(&f, 0, &h, frame, sizeof(frame)), -EOPNOTSUPP);
	h.gso_type = VIRTIO_NET_HDR_GSO_NONE;
	h.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	CHECK_EQ(vu_frontend_tx(&f, 0, &h, frame, 1500), 0);	/* CSUM is there */
	CHECK_EQ(vu_frontend_tx(&f, 0, NULL, frame, 9001), -EMSGSIZE);
	CHECK_EQ(vu_frontend_tx(&f, 1, NULL, frame, 64), -ENOTCONN);	/* no pair 1 */
	CHECK_EQ(vu_frontend_stats(&f, 1)->frames, 1);
	vu_frontend_cleanup(&f);
	fake_join(&k);
}

static void test_data_path_refuses_when_stopped(void)
{
	struct vu_frontend_opts o = { 0 };
	struct vu_frontend f;
	uint8_t frame[64] = { 0 };

	CHECK_EQ(vu_frontend_init(&f, &o), 0);
	CHECK_EQ(vu_frontend_tx(&f, 0, NULL, frame, sizeof(frame)), -ENOTCONN);
	CHECK_EQ(vu_frontend_wait(&f, 0, 0), -ENOTCONN);
	CHECK(!vu_frontend_stats(&f, 0));
	vu_frontend_cleanup(&f);
}

/* ---- data path against a device played by the test on the TX ring ---- */

/* Complete TX buffers @from..@to-1 (heads in that order) as the device */
static void dev_complete(struct vq_drv *vq, uint16_t from, uint16_t to)
{
	struct vring_used *u = vq->split.used;
	uint16_t i;

	for (i = from; i != to; i++) {
		u->ring[i % vq->num].id = htole32(i % vq->num);
		u->ring[i % vq->num].len = 0;
	}
	__atomic_store_n(&u->idx, htole16(to), __ATOMIC_RELEASE);
}

/* The device's avail_event (after the used ring, virtio 1.2 2.7.10) */
static void dev_avail_event(struct vq_drv *vq, uint16_t v)
{
	v = htole16(v);
	memcpy(&vq->split.used->ring[vq->num], &v, sizeof(v));
}

/* Polling TX asks for no used notifications, kicks only when the backend
 * asks (EVENT_IDX avail_event), reclaims lazily and in one burst, and a
 * frame's slot is its buffer id */
static void test_tx_notifications_and_reclaim(void)
{
	struct vu_frontend_opts o = { 0 };
	uint8_t frame[64] = { 0 };
	struct vu_frontend_queue *q;
	struct vu_frontend f;
	uint16_t used_event;
	struct fake k;
	uint32_t slot;
	uint8_t *p;
	int s, i;

	s = fake_start(&k, BASE_FEATURES, 0);
	CHECK(s >= 0);
	CHECK_EQ(vu_frontend_init(&f, &o), 0);
	CHECK_EQ(vu_frontend_adopt(&f, s, VU_FRONTEND_TAKE_FD), 0);
	CHECK(f.features & F(VIRTIO_RING_F_EVENT_IDX));
	q = &f.q[1];
	CHECK_EQ(q->st.kicks, 1);		/* the one after connecting */

	for (i = 0; i < 40; i++)
		CHECK_EQ(vu_frontend_tx(&f, 0, NULL, frame, sizeof(frame)), 0);
	CHECK_EQ(vu_frontend_tx_flush(&f, 0), 0);
	CHECK_EQ(q->st.kicks, 2);		/* avail_event 0 crossed */
	/* The backend polls: avail_event left far behind, no kick */
	dev_avail_event(&q->vq, 30000);
	for (i = 0; i < 10; i++)
		CHECK_EQ(vu_frontend_tx(&f, 0, NULL, frame, sizeof(frame)), 0);
	CHECK_EQ(vu_frontend_tx_flush(&f, 0), 0);
	CHECK_EQ(q->st.kicks, 2);
	/* It asks again at 55: crossed by the next flush */
	dev_avail_event(&q->vq, 55);
	for (i = 0; i < 10; i++)
		CHECK_EQ(vu_frontend_tx(&f, 0, NULL, frame, sizeof(frame)), 0);
	CHECK_EQ(vu_frontend_tx_flush(&f, 0), 0);
	CHECK_EQ(q->st.kicks, 3);

	/* The device completes 40: plenty is free, nothing reclaimed yet */
	dev_complete(&q->vq, 0, 40);
	CHECK_EQ(vu_frontend_tx(&f, 0, NULL, frame, sizeof(frame)), 0);
	CHECK_EQ(q->vq.drv_last_used, 0);
	/* used_event stays half a ring away: the device never signals */
	used_event = le16toh(q->vq.split.avail->ring[q->vq.num]);
	CHECK(!vring_need_event(used_event, 40, 0));

	/* Fill the ring: the last eighth triggers one burst reclaim */
	for (i = 61; i < 256 + 40; i++)
		CHECK_EQ(vu_frontend_tx(&f, 0, NULL, frame, sizeof(frame)), 0);
	CHECK_EQ(q->vq.drv_last_used, 40);
	CHECK_EQ(vu_frontend_tx(&f, 0, NULL, frame, sizeof(frame)), -EAGAIN);
	CHECK_EQ(q->st.full, 1);
	CHECK(!vring_need_event(le16toh(q->vq.split.avail->ring[q->vq.num]),
				40, 0));

	/* Zero copy: the slot is the buffer id, its descriptor points at it */
	dev_complete(&q->vq, 40, 41);
	CHECK_EQ(vu_frontend_tx_commit(&f, 0, NULL), -EINVAL);
	CHECK_EQ(vu_frontend_tx_reserve(&f, 0, 60, (void **)&p, &slot), 0);
	CHECK_EQ(slot, 40);		/* completed first, reused first */
	CHECK(p == q->buf_host + 40 * q->buf_len + f.hdr_len);
	memset(p, 0x5a, 60);
	CHECK_EQ(vu_frontend_tx_commit(&f, 0, NULL), 0);
	CHECK_EQ(le64toh(q->vq.split.desc[40].addr), q->buf_gpa + 40 * q->buf_len);
	CHECK_EQ(le32toh(q->vq.split.desc[40].len), f.hdr_len + 60);
	CHECK_EQ(vu_frontend_tx_commit(&f, 0, NULL), -EINVAL);
	CHECK_EQ(vu_frontend_stats(&f, 1)->frames, 256 + 40 + 1);
	vu_frontend_cleanup(&f);
	fake_join(&k);
}

/*
 * opts.notify: a caller sleeping on the call eventfds itself keeps used
 * notifications on: the RX ring's used_event asks for the next frame,
 * before and after a vu_frontend_wait(); without it, it never does
 */
static void test_notify_option_keeps_notifications(void)
{
	struct vu_frontend_opts o = { 0 };
	struct vu_frontend_queue *q;
	struct vu_frontend f;
	struct fake k;
	int s, notify;

	for (notify = 0; notify < 2; notify++) {
		o.notify = notify;
		s = fake_start(&k, BASE_FEATURES, 0);
		CHECK(s >= 0);
		CHECK_EQ(vu_frontend_init(&f, &o), 0);
		CHECK_EQ(vu_frontend_adopt(&f, s, VU_FRONTEND_TAKE_FD), 0);
		CHECK(f.features & F(VIRTIO_RING_F_EVENT_IDX));
		q = &f.q[0];
		/* the first RX completion (used idx 0 -> 1) is signalled? */
		CHECK_EQ(vring_need_event(le16toh(q->vq.split.avail->ring[q->vq.num]),
					  1, 0), notify);
		CHECK_EQ(vu_frontend_wait(&f, 0, 0), 0);
		CHECK_EQ(vring_need_event(le16toh(q->vq.split.avail->ring[q->vq.num]),
					  1, 0), notify);
		vu_frontend_cleanup(&f);
		fake_join(&k);
	}
}

int main(void)
{
	int fds = test_count_fds();

	RUN(test_ring_size_not_power_of_two);
	RUN(test_notify_option_keeps_notifications);
	RUN(test_too_many_pairs_for_library);
	RUN(test_refuses_without_version_1);
	RUN(test_message_order_like_qemu);
	RUN(test_no_protocol_features_one_pair);
	RUN(test_pairs_need_protocol_mq);
	RUN(test_more_pairs_than_backend);
	RUN(test_packed_needs_offer);
	RUN(test_mac_from_config_only_when_negotiated);
	RUN(test_reply_ack_refusal_fails);
	RUN(test_add_mem_reg_with_mem_slots);
	RUN(test_borrowed_socket_and_eventfds);
	RUN(test_owned_socket_closed);
	RUN(test_adopt_closed_fd_refused);
	RUN(test_caller_memory_refusals);
	RUN(test_caller_memory_used);
	RUN(test_stop_and_resume_positions);
	RUN(test_resume_after_backend_crash);
	RUN(test_tx_offload_needs_feature);
	RUN(test_data_path_refuses_when_stopped);
	RUN(test_tx_notifications_and_reclaim);
	if (test_count_fds() != fds) {
		printf("not ok %d - no_fd_leak_overall (%d -> %d)\n", ++t_num,
		       fds, test_count_fds());
		t_failed++;
	} else {
		printf("ok %d - no_fd_leak_overall\n", ++t_num);
	}
	return test_exit();
}
