// SPDX-License-Identifier: MIT
/*
 * ctl.c - vnetd's control socket: a UNIX stream socket that takes one
 * request line and answers it, then closes. Requests:
 *
 *	status		human-readable status of every port and queue
 *	status json	the same as one JSON document
 *	metrics		Prometheus text exposition (format 0.0.4)
 *
 * An unknown request gets "error: unknown request ..." and the connection
 * closes. The socket is created mode 0600 (owner only). Rendering is
 * metrics.c's; this file only moves bytes.
 *
 * Security model: a local client of the control socket is trusted as far
 * as the file mode lets it in, but it still cannot stall the main loop: the
 * request is read and the reply written with one-second timeouts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "vnetd.h"

/* #syscalls: accept4 recvfrom sendto setsockopt close unlink poll ppoll */

#define CTL_REQ_MAX	128

/**
 * ctl_open() - Create and listen on the control socket
 * @path:	Socket path; its directory is created (0755) if missing
 *
 * Return: listening descriptor, or -errno (logged)
 */
int ctl_open(const char *path)
{
	char dir[VNETD_PATH_LEN], err[256] = "";
	char *slash;
	mode_t old;
	int fd;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST)
			log_warn("control socket: mkdir %s: %s", dir,
				 strerror(errno));
	}
	old = umask(0077);
	fd = port_unix_listen(path, err, sizeof(err));
	umask(old);
	if (fd < 0)
		log_warn("control socket: %s; vnetctl status will not work",
			 err[0] ? err : strerror(-fd));
	return fd;
}

/**
 * ctl_close() - Stop listening and remove the socket file
 * @fd:		Listening descriptor (ignored if negative)
 * @path:	Its path
 */
void ctl_close(int fd, const char *path)
{
	if (fd < 0)
		return;
	close(fd);
	unlink(path);
}

/* Read one request line (without the newline) within the socket timeout */
static int ctl_read_request(int fd, char *req, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len - 1) {
		n = recv(fd, req + got, len - 1 - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
		if (memchr(req, '\n', got))
			break;
	}
	req[got] = '\0';
	req[strcspn(req, "\r\n")] = '\0';
	return 0;
}

static void ctl_reply(int fd, const char *s, size_t len)
{
	ssize_t n;

	while (len) {
		n = send(fd, s, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		s += n;
		len -= (size_t)n;
	}
}

/**
 * ctl_serve() - Accept one control connection, answer its request, close
 * @fd:		Listening control socket
 * @ports:	Ports to report on
 * @nports:	How many
 *
 * Context: main thread
 */
void ctl_serve(int fd, struct vnetd_port *ports, unsigned int nports)
{
	struct timeval tv = { .tv_sec = 1 };
	char req[CTL_REQ_MAX];
	struct sbuf b = { 0 };
	int c;

	c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return;
	(void)setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void)setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (ctl_read_request(c, req, sizeof(req)))
		goto out;
	if (!strcmp(req, "status") || !strcmp(req, "status text"))
		metrics_status_text(&b, ports, nports);
	else if (!strcmp(req, "status json"))
		metrics_status_json(&b, ports, nports);
	else if (!strcmp(req, "metrics"))
		metrics_prometheus(&b, ports, nports);
	else
		metrics_printf(&b, "error: unknown request \"%.64s\" (try: status, status json, metrics)\n",
			    req);
	if (b.oom)
		metrics_printf(&b, "\nerror: out of memory, reply truncated\n");
	if (b.s)
		ctl_reply(c, b.s, b.len);
	metrics_free(&b);
out:
	close(c);
}
