/* SPDX-License-Identifier: MIT */
/*
 * ctl_query.c - one request on vnetd's control socket, its reply printed:
 * the client side that vnetctl status and vnetctl port share.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>

#include "cmd_opts.h"
#include "ctl_query.h"
#include "util.h"

/**
 * ctl_query() - Send @req to vnetd, copy its reply out
 * @who:	Command for messages, e.g. "vnetctl status"
 * @path:	Control socket
 * @req:	Request line
 *
 * A reply that starts with "error:" goes to stderr, anything else to stdout.
 *
 * Return: CMD_OK, CMD_FAIL (unreachable, an error reply, no reply) or
 *	   CMD_USAGE (@path too long for a UNIX socket)
 */
int ctl_query(const char *who, const char *path, const char *req)
{
	return ctl_query_fds(who, path, req, NULL, 0);
}

/* Send @req with @nfds descriptors (SCM_RIGHTS) on the first bytes */
static ssize_t ctl_query_send(int fd, const char *req, const int *fds,
			      unsigned int nfds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * CTL_QUERY_MAX_FDS)];
		struct cmsghdr align;
	} cbuf;
	struct iovec iov = { (void *)req, strlen(req) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (nfds) {
		memset(&cbuf, 0, sizeof(cbuf));
		m.msg_control = cbuf.buf;
		m.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
	}
	return sendmsg(fd, &m, MSG_NOSIGNAL);
}

/**
 * struct ctl_reply - Where a reply goes
 * @buf:	Kept here (NUL-terminated, the rest dropped), NULL: printed,
 *		an error reply to stderr
 * @len:	Size of @buf
 * @got:	Bytes kept
 * @error:	The reply starts with "error:"
 * @first:	Nothing came yet
 */
struct ctl_reply {
	char *buf;
	size_t len;
	size_t got;
	bool error;
	bool first;
};

/* @n bytes of the reply, to @r */
static void ctl_reply_add(struct ctl_reply *r, const char *s, size_t n)
{
	if (r->first && n >= 6 && !memcmp(s, "error:", 6))
		r->error = true;
	r->first = false;
	if (!r->buf) {
		fwrite(s, 1, n, r->error ? stderr : stdout);
		return;
	}
	n = MIN(n, r->len - 1 - r->got);
	memcpy(r->buf + r->got, s, n);
	r->got += n;
	r->buf[r->got] = '\0';
}

/* Connect to @path and send @req with @fds. Return: the socket, or -CMD_* */
static int ctl_query_open(const char *who, const char *path, const char *req,
			  const int *fds, unsigned int nfds)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "%s: --socket %s: path too long (at most %zu bytes)\n",
			who, path, sizeof(sa.sun_path) - 1);
		return -CMD_USAGE;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "%s: cannot reach vnetd at %s: %s (is it running? see --socket)\n",
			who, path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -CMD_FAIL;
	}
	/* EPIPE/ECONNRESET: vnetd refused us at accept (SO_PEERCRED, client
	 * limit) and closed; its one-line reason may still be ours to read */
	if (nfds > CTL_QUERY_MAX_FDS) {
		fprintf(stderr, "%s: %u descriptors, at most %u\n", who, nfds,
			(unsigned int)CTL_QUERY_MAX_FDS);
		close(fd);
		return -CMD_USAGE;
	}
	if (ctl_query_send(fd, req, fds, nfds) < 0 &&
	    errno != EPIPE && errno != ECONNRESET) {
		fprintf(stderr, "%s: %s: %s\n", who, path, strerror(errno));
		close(fd);
		return -CMD_FAIL;
	}
	shutdown(fd, SHUT_WR);
	return fd;
}

/* Send @req, the reply to @r. Return: as ctl_query() */
static int ctl_query_run(const char *who, const char *path, const char *req,
			 const int *fds, unsigned int nfds, struct ctl_reply *r)
{
	char buf[4096];
	ssize_t n;
	int fd;

	fd = ctl_query_open(who, path, req, fds, nfds);
	if (fd < 0)
		return -fd;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		ctl_reply_add(r, buf, (size_t)n);
	close(fd);
	/* a reset after a refusal line: the line was the whole reply */
	if (n < 0 && errno == ECONNRESET && r->error)
		n = 0;
	if (n < 0) {
		fprintf(stderr, "%s: reading the reply: %s\n", who, strerror(errno));
		return CMD_FAIL;
	}
	if (r->first) {
		fprintf(stderr, "%s: empty reply from %s\n", who, path);
		return CMD_FAIL;
	}
	return r->error ? CMD_FAIL : CMD_OK;
}

/**
 * ctl_query_fds() - ctl_query() passing descriptors with the request
 * @who:	Command for messages
 * @path:	Control socket
 * @req:	Request line
 * @fds:	Descriptors to pass (SCM_RIGHTS), NULL: none
 * @nfds:	How many (at most CTL_QUERY_MAX_FDS)
 *
 * Return: as ctl_query()
 */
int ctl_query_fds(const char *who, const char *path, const char *req,
		  const int *fds, unsigned int nfds)
{
	struct ctl_reply r = { .first = true };

	return ctl_query_run(who, path, req, fds, nfds, &r);
}

/**
 * ctl_query_keep() - ctl_query_fds() keeping the reply instead of printing it
 * @who:	Command for messages (failures to reach vnetd are printed)
 * @path:	Control socket
 * @req:	Request line
 * @fds:	Descriptors to pass (SCM_RIGHTS), NULL: none
 * @nfds:	How many (at most CTL_QUERY_MAX_FDS)
 * @reply:	Out: the reply, NUL-terminated, cut to @len - 1 bytes ("" if
 *		none came)
 * @len:	Its size (at least 1)
 *
 * Return: as ctl_query()
 */
int ctl_query_keep(const char *who, const char *path, const char *req,
		   const int *fds, unsigned int nfds, char *reply, size_t len)
{
	struct ctl_reply r = { .buf = reply, .len = len, .first = true };

	reply[0] = '\0';
	return ctl_query_run(who, path, req, fds, nfds, &r);
}
