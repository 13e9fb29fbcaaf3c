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
#include <sys/un.h>

#include "cmd_opts.h"
#include "ctl_query.h"

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
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	bool error = false, first = true;
	char buf[4096];
	ssize_t n;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "%s: --socket %s: path too long (at most %zu bytes)\n",
			who, path, sizeof(sa.sun_path) - 1);
		return CMD_USAGE;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "%s: cannot reach vnetd at %s: %s (is it running? see --socket)\n",
			who, path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return CMD_FAIL;
	}
	/* EPIPE/ECONNRESET: vnetd refused us at accept (SO_PEERCRED, client
	 * limit) and closed; its one-line reason may still be ours to read */
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) < 0 &&
	    errno != EPIPE && errno != ECONNRESET) {
		fprintf(stderr, "%s: %s: %s\n", who, path, strerror(errno));
		close(fd);
		return CMD_FAIL;
	}
	shutdown(fd, SHUT_WR);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (first && n >= 6 && !memcmp(buf, "error:", 6))
			error = true;
		first = false;
		fwrite(buf, 1, (size_t)n, error ? stderr : stdout);
	}
	close(fd);
	/* a reset after a refusal line: the line was the whole reply */
	if (n < 0 && errno == ECONNRESET && error)
		n = 0;
	if (n < 0) {
		fprintf(stderr, "%s: reading the reply: %s\n", who, strerror(errno));
		return CMD_FAIL;
	}
	if (first) {
		fprintf(stderr, "%s: empty reply from %s\n", who, path);
		return CMD_FAIL;
	}
	return error ? CMD_FAIL : CMD_OK;
}
