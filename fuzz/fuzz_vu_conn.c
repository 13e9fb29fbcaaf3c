// SPDX-License-Identifier: MIT
/*
 * fuzz_vu_conn.c - libFuzzer harness for the buffered vhost-user framing
 * (vu_conn_recv(), vu_conn_send(), vu_conn_flush() in vu_msg.c): a message
 * stream written into a socketpair in chunks of fuzzed sizes, some chunks
 * carrying a descriptor, with vu_conn_recv() called after every chunk the
 * way vnetd's loop does (non-blocking, partial messages kept).
 *
 * Oracle: a plain one-pass parse of the whole stream. Every message
 * vu_conn_recv() hands over must be the reference's next one (header and
 * payload), an oversize header must fail where the reference fails, and
 * the end of the stream must read as a clean close (-ECONNRESET) exactly
 * when it ends between messages. Each message is echoed back with
 * vu_conn_send() over a tiny send buffer, so replies queue and flush; the
 * echoed bytes must be the messages' bytes in order. No descriptor may
 * leak (each one sent is counted open and closed).
 *
 * Input: u8 n (0..31 chunk sizes follow), n bytes of chunk sizes (bit 7:
 * this chunk carries an fd, at most 8 per input; bits 0-6 + 1: its length),
 * then the stream. With n = 0 the stream goes in one chunk.
 *
 * Build: make fuzz-build (clang); -DFZ_STANDALONE adds a main() that runs
 * the files named on the command line once each.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "fuzz_target.h"
#include "vu_msg.h"

#define FZ_MAX_FDS	8

static struct vu_conn fz_conn;
static uint8_t fz_echo[1 << 17], fz_want[1 << 17];

/* The reference: offset of message @k's header, or where parsing stops */
struct fz_ref {
	const uint8_t *s;
	size_t len;
	size_t off;	/* next message */
	int end;	/* 0 clean, 1 partial tail, 2 oversize header */
};

/* Next complete message in the reference: 1 and its bounds, or 0 */
static int fz_ref_next(struct fz_ref *r, size_t *at, size_t *mlen)
{
	struct vu_hdr h;

	if (r->len - r->off < sizeof(h)) {
		r->end = r->len == r->off ? 0 : 1;
		return 0;
	}
	memcpy(&h, r->s + r->off, sizeof(h));
	if (h.size > sizeof(union vu_payload)) {
		r->end = 2;
		return 0;
	}
	if (r->len - r->off - sizeof(h) < h.size) {
		r->end = 1;
		return 0;
	}
	*at = r->off;
	*mlen = sizeof(h) + h.size;
	r->off += *mlen;
	return 1;
}

static int fz_send_chunk(int fd, const uint8_t *p, size_t len, bool with_fd)
{
	char control[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = (void *)p, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int nfd = -1;
	ssize_t n;

	if (with_fd) {
		struct cmsghdr *c;

		nfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		mh.msg_control = control;
		mh.msg_controllen = sizeof(control);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &nfd, sizeof(int));
	}
	n = sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (nfd >= 0)
		close(nfd);	/* the kernel holds its own reference in flight */
	return n == (ssize_t)len ? 0 : -1;
}

/* Read what the echo side has, keep flushing the queued replies */
static void fz_pump(int peer, size_t *echoed)
{
	ssize_t n;

	for (;;) {
		(void)vu_conn_flush(&fz_conn);
		n = recv(peer, fz_echo + *echoed, sizeof(fz_echo) - *echoed,
			 MSG_DONTWAIT);
		if (n <= 0)
			return;
		*echoed += (size_t)n;
	}
}

static int fz_count_fds(void)
{
	int n = 0, fd;

	for (fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

/* Receive what is there; compare with the reference. Return: last result */
static int fz_drain(struct fz_ref *ref, size_t *wanted, int peer,
		    size_t *echoed)
{
	struct vu_msg m;
	size_t at, mlen;
	int ret;

	for (;;) {
		ret = vu_conn_recv(&fz_conn, &m);
		if (ret)
			return ret;
		if (!fz_ref_next(ref, &at, &mlen) ||
		    memcmp(&m.hdr, ref->s + at, sizeof(m.hdr)) ||
		    memcmp(&m.payload, ref->s + at + sizeof(m.hdr),
			   m.hdr.size))
			abort();	/* a message the stream does not hold */
		if (m.nfds > FZ_MAX_FDS)
			abort();
		vu_msg_close_fds(&m);
		/* The peer reads after every message: the queue never fills */
		if (vu_conn_send(&fz_conn, &m))
			abort();
		memcpy(fz_want + *wanted, ref->s + at, mlen);
		*wanted += mlen;
		fz_pump(peer, echoed);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t nchunks, off, ci = 0, wanted = 0, echoed = 0, len;
	struct fz_ref ref = { 0 };
	int sv[2], ret, before, sndbuf = 4096, nfd = 0;
	bool with_fd;

	if (size < 1 || size > 60000)
		return 0;
	nchunks = data[0] & 31;
	if (size < 1 + nchunks)
		return 0;
	before = fz_count_fds();
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return 0;
	(void)setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	vu_conn_init(&fz_conn, sv[1]);
	ref.s = data + 1 + nchunks;
	ref.len = size - 1 - nchunks;
	ret = -EAGAIN;
	for (off = 0; off < ref.len && ret == -EAGAIN; off += len) {
		uint8_t cs = nchunks ? data[1 + ci++ % nchunks] : 0;

		len = nchunks ? (size_t)(cs & 127) + 1 : ref.len;
		len = len < ref.len - off ? len : ref.len - off;
		with_fd = (cs & 128) && nfd < FZ_MAX_FDS;
		nfd += with_fd;
		if (fz_send_chunk(sv[0], ref.s + off, len, with_fd))
			abort();	/* 60000 bytes fit a socketpair's buffer */
		ret = fz_drain(&ref, &wanted, sv[0], &echoed);
	}
	if (ret == -EAGAIN) {
		shutdown(sv[0], SHUT_WR);
		ret = fz_drain(&ref, &wanted, sv[0], &echoed);
	}
	/* Where the reference stopped decides how the stream must have ended */
	{
		size_t at, mlen;

		if (fz_ref_next(&ref, &at, &mlen))
			abort();	/* vu_conn stopped before a whole message */
	}
	if ((ref.end == 0 && ret != -ECONNRESET) ||
	    (ref.end != 0 && ret != -EBADMSG))
		abort();
	fz_pump(sv[0], &echoed);
	if (vu_conn_tx_pending(&fz_conn) || echoed != wanted ||
	    memcmp(fz_echo, fz_want, wanted))
		abort();	/* replies lost, reordered or corrupted */
	vu_conn_reset(&fz_conn);
	close(sv[0]);
	close(sv[1]);
	if (fz_count_fds() != before)
		abort();	/* a received descriptor leaked */
	return 0;
}

#ifdef FZ_STANDALONE
#include "fuzz_main.h"
#endif
