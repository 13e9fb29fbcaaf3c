// SPDX-License-Identifier: MIT
/*
 * test_vu_conn.c - the buffered vhost-user framing (vu_conn_*): a message
 * sent a few bytes at a time with its fd on the first chunk arrives whole
 * with the fd; a partial message reports when it started; a close
 * mid-message is -EBADMSG with the fd closed; replies the peer does not
 * read stop at one queued reply (what the socket did not take of it),
 * the next is -ENOBUFS, and all come out in order once the peer reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "testlib.h"
#include "vu_msg.h"

static struct vu_conn conn;

static void send_with_fd(int s, const void *p, size_t len, int fd)
{
	char control[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = (void *)p, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = control,
			     .msg_controllen = sizeof(control) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	CHECK_EQ(sendmsg(s, &mh, 0), (ssize_t)len);
}

static void test_chunks_with_fd(void)
{
	struct vu_msg out = { 0 }, in;
	int sv[2], before, fd;
	size_t total = sizeof(out.hdr) + sizeof(uint64_t), i;
	char p[sizeof(out.hdr) + sizeof(uint64_t)];	/* as on the wire */

	before = test_count_fds();
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	out.hdr.request = VHOST_USER_SET_VRING_KICK;
	out.hdr.flags = VHOST_USER_VERSION;
	out.hdr.size = sizeof(uint64_t);
	out.payload.u64 = 1;
	memcpy(p, &out.hdr, sizeof(out.hdr));
	memcpy(p + sizeof(out.hdr), &out.payload.u64, sizeof(uint64_t));
	vu_conn_init(&conn, sv[1]);
	fd = open("/dev/null", O_RDONLY);
	send_with_fd(sv[0], p, 3, fd);	/* the fd rides on the first bytes */
	close(fd);
	CHECK_EQ(vu_conn_recv(&conn, &in), -EAGAIN);
	CHECK(conn.rx_start_ms != 0);
	for (i = 3; i < total - 1; i++) {
		CHECK_EQ(send(sv[0], p + i, 1, 0), 1);
		CHECK_EQ(vu_conn_recv(&conn, &in), -EAGAIN);
	}
	CHECK_EQ(send(sv[0], p + i, 1, 0), 1);
	CHECK_EQ(vu_conn_recv(&conn, &in), 0);
	CHECK_EQ(in.hdr.request, VHOST_USER_SET_VRING_KICK);
	CHECK_EQ(in.payload.u64, 1);
	CHECK_EQ(in.nfds, 1);
	CHECK_EQ(conn.rx_start_ms, 0);
	vu_msg_close_fds(&in);
	CHECK_EQ(vu_conn_recv(&conn, &in), -EAGAIN);
	close(sv[0]);
	CHECK_EQ(vu_conn_recv(&conn, &in), -ECONNRESET);	/* between messages */
	close(sv[1]);
	CHECK_EQ(test_count_fds(), before);
}

static void test_close_mid_message(void)
{
	struct vu_msg out = { 0 }, in;
	int sv[2], before, fd;

	before = test_count_fds();
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	out.hdr.request = VHOST_USER_SET_VRING_CALL;
	out.hdr.size = sizeof(uint64_t);
	vu_conn_init(&conn, sv[1]);
	fd = open("/dev/null", O_RDONLY);
	send_with_fd(sv[0], &out, 14, fd);
	close(fd);
	CHECK_EQ(vu_conn_recv(&conn, &in), -EAGAIN);
	close(sv[0]);
	CHECK_EQ(vu_conn_recv(&conn, &in), -EBADMSG);
	close(sv[1]);
	CHECK_EQ(test_count_fds(), before);	/* the fd of the partial one */
}

static void test_replies_queue_then_enobufs(void)
{
	struct vu_msg r = { 0 }, in;
	int sv[2], small = 4096, ret = 0;
	unsigned int sent = 0, got = 0;

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	CHECK(setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small)) == 0);
	vu_conn_init(&conn, sv[1]);
	r.hdr.request = VHOST_USER_GET_FEATURES;
	r.hdr.flags = VHOST_USER_VERSION | VHOST_USER_REPLY;
	r.hdr.size = sizeof(uint64_t);
	while (sent < 100000) {
		r.payload.u64 = sent;
		ret = vu_conn_send(&conn, &r);
		if (ret)
			break;
		sent++;
	}
	CHECK_EQ(ret, -ENOBUFS);
	/* One reply's worth queued, never more */
	CHECK(vu_conn_tx_pending(&conn) > 0);
	CHECK(vu_conn_tx_pending(&conn) <= sizeof(r.hdr) + sizeof(uint64_t));
	CHECK(VU_CONN_TXQ_MAX <= sizeof(r.hdr) + sizeof(r.payload));
	CHECK_EQ(vu_conn_send(&conn, &(struct vu_msg){ .nfds = 1 }), -EINVAL);
	/* The peer reads: every reply in order, the queue drains */
	while (got < sent) {
		(void)vu_conn_flush(&conn);
		if (vu_msg_recv(sv[0], &in))
			break;
		CHECK_EQ(in.payload.u64, got);
		if (in.payload.u64 != got)
			break;
		got++;
	}
	CHECK_EQ(got, sent);
	CHECK_EQ(vu_conn_flush(&conn), 0);
	CHECK_EQ(vu_conn_tx_pending(&conn), 0);
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	RUN(test_chunks_with_fd);
	RUN(test_close_mid_message);
	RUN(test_replies_queue_then_enobufs);
	return test_exit();
}
