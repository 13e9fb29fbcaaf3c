// SPDX-License-Identifier: MIT
/*
 * test_vu_msg.c - vhost-user framing: round trip with fds, oversize header,
 * truncated payload, too many fds, and no fd leaked on any path.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "testlib.h"
#include "vu_msg.h"

static void test_roundtrip_with_fds(void)
{
	struct vu_msg out = { 0 }, in;
	int sv[2], before;

	before = test_count_fds();
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	out.hdr.request = VHOST_USER_SET_VRING_KICK;
	out.hdr.flags = VHOST_USER_VERSION;
	out.hdr.size = sizeof(uint64_t);
	out.payload.u64 = 3;
	out.fds[0] = open("/dev/null", O_RDONLY);
	out.nfds = 1;
	CHECK_EQ(vu_msg_send(sv[0], &out), 0);
	CHECK_EQ(vu_msg_recv(sv[1], &in), 0);
	CHECK_EQ(in.hdr.request, VHOST_USER_SET_VRING_KICK);
	CHECK_EQ(in.payload.u64, 3);
	CHECK_EQ(in.nfds, 1);
	CHECK(in.fds[0] >= 0 && in.fds[0] != out.fds[0]);
	close(out.fds[0]);
	vu_msg_close_fds(&in);
	close(sv[0]);
	close(sv[1]);
	CHECK_EQ(test_count_fds(), before);
}

static void test_oversize_rejected(void)
{
	struct vu_hdr h = { VHOST_USER_GET_FEATURES, VHOST_USER_VERSION,
			    sizeof(union vu_payload) + 1 };
	struct vu_msg in;
	int sv[2];

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	CHECK(write(sv[0], &h, sizeof(h)) == (ssize_t)sizeof(h));
	CHECK_EQ(vu_msg_recv(sv[1], &in), -EBADMSG);
	close(sv[0]);
	close(sv[1]);
}

static void test_truncated_payload(void)
{
	struct vu_hdr h = { VHOST_USER_SET_FEATURES, VHOST_USER_VERSION, 8 };
	struct vu_msg in;
	int sv[2];

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	CHECK(write(sv[0], &h, sizeof(h)) == (ssize_t)sizeof(h));
	CHECK(write(sv[0], "abc", 3) == 3);
	close(sv[0]);
	CHECK_EQ(vu_msg_recv(sv[1], &in), -EBADMSG);
	CHECK_EQ(vu_msg_recv(sv[1], &in), -ECONNRESET);
	close(sv[1]);
}

static void test_too_many_fds_closed(void)
{
	struct vu_msg out = { 0 }, in;
	int sv[2], before, i, ret;
	int fds[12];
	char control[CMSG_SPACE(sizeof(fds))];
	struct vu_hdr h = { VHOST_USER_SET_MEM_TABLE, VHOST_USER_VERSION, 0 };
	struct iovec iov = { &h, sizeof(h) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = control,
			     .msg_controllen = sizeof(control) };
	struct cmsghdr *c;

	(void)out;
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	for (i = 0; i < 12; i++)
		fds[i] = open("/dev/null", O_RDONLY);
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(c), fds, sizeof(fds));
	CHECK(sendmsg(sv[0], &mh, 0) == (ssize_t)sizeof(h));
	for (i = 0; i < 12; i++)
		close(fds[i]);
	before = test_count_fds();
	/* 12 fds do not fit our control buffer: MSG_CTRUNC, all closed */
	ret = vu_msg_recv(sv[1], &in);
	CHECK_EQ(ret, -EBADMSG);
	CHECK_EQ(test_count_fds(), before);
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	RUN(test_roundtrip_with_fds);
	RUN(test_oversize_rejected);
	RUN(test_truncated_payload);
	RUN(test_too_many_fds_closed);
	return test_exit();
}
