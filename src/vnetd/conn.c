// SPDX-License-Identifier: MIT
/*
 * conn.c - what vnetd asks of one connected peer's socket, for port.c and
 * ctl.c: who it is (SO_PEERCRED), whether it is already gone (a closed
 * connection whose hangup the loop has not handled yet) and the one
 * rate-limited line that says why a peer was refused or dropped. Nothing
 * here waits.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/socket.h>

#include "conn.h"
#include "log.h"

/* #syscalls: getsockopt recvfrom poll ppoll shutdown close */

/**
 * conn_peer_pid() - PID of the process at the other end of a UNIX socket
 * @fd:		Connected socket
 *
 * Return: the PID the kernel recorded at connect(), 0 if unknown
 */
pid_t conn_peer_pid(int fd)
{
	struct ucred uc = { 0 };
	socklen_t len = sizeof(uc);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len))
		return 0;
	return uc.pid;
}

/**
 * conn_is_dead() - Has the peer closed (or shut down writing)?
 * @fd:		Connected socket
 *
 * A peer that closed may still have unread bytes queued; it is dead all
 * the same: nothing it sent can be answered.
 *
 * Return: true if the peer hung up or the socket is in error
 */
bool conn_is_dead(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLRDHUP };
	char c;

	if (poll(&pfd, 1, 0) < 0)
		return false;
	if (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))
		return true;
	return recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

/**
 * conn_nonblock() - Make a socket non-blocking
 * @fd:		Socket
 *
 * Return: 0 or -errno
 */
int conn_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK))
		return -errno;
	return 0;
}

/**
 * conn_refuse_log() - One rate-limited warning line for a refused or
 *		       dropped peer
 * @rl:		The rate limit this kind of line shares
 * @fmt:	Line, which names the port (or "control socket"), the PID and
 *		the reason
 */
void conn_refuse_log(struct log_ratelimit *rl, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!log_ratelimit(rl))
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	log_warn("%s", line);
}
