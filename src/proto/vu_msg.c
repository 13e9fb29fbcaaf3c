// SPDX-License-Identifier: MIT
/*
 * vu_msg.c - vhost-user message framing over a UNIX stream socket.
 *
 * Security model: the peer is untrusted. A header whose size exceeds the
 * payload union, a short read, truncated ancillary data (MSG_CTRUNC) or more
 * than VHOST_USER_MAX_FDS descriptors is a framing error: every descriptor
 * that arrived is closed and -EBADMSG returned, and the caller drops the
 * connection. Whether a request may carry fds, and how many, is checked by
 * the dispatcher (vu_backend.c), not here.
 *
 * The buffered form (vu_conn_*) never waits: it reads at most the bytes of
 * the message being assembled (so the descriptors that arrive, which the
 * kernel hands out with the first byte of the sendmsg() that carried them,
 * always belong to that message), keeps a partial message for the next
 * call and notes when its first byte came, so the caller can bound a whole
 * message's time (a peer sending a byte every few seconds). What the
 * socket does not take of a reply is queued, one reply at most
 * (VU_CONN_TXQ_MAX): a second reply while one waits is -ENOBUFS, so the
 * caller stops reading requests until vu_conn_flush() empties the queue,
 * and a peer that never reads its replies costs vnetd one reply's bytes.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include "util.h"
#include "vu_msg.h"

/* #syscalls: recvmsg sendmsg close */

static const char *const vu_names[VHOST_USER_MAX] = {
	[VHOST_USER_GET_FEATURES] = "GET_FEATURES",
	[VHOST_USER_SET_FEATURES] = "SET_FEATURES",
	[VHOST_USER_SET_OWNER] = "SET_OWNER",
	[VHOST_USER_RESET_OWNER] = "RESET_OWNER",
	[VHOST_USER_SET_MEM_TABLE] = "SET_MEM_TABLE",
	[VHOST_USER_SET_LOG_BASE] = "SET_LOG_BASE",
	[VHOST_USER_SET_LOG_FD] = "SET_LOG_FD",
	[VHOST_USER_SET_VRING_NUM] = "SET_VRING_NUM",
	[VHOST_USER_SET_VRING_ADDR] = "SET_VRING_ADDR",
	[VHOST_USER_SET_VRING_BASE] = "SET_VRING_BASE",
	[VHOST_USER_GET_VRING_BASE] = "GET_VRING_BASE",
	[VHOST_USER_SET_VRING_KICK] = "SET_VRING_KICK",
	[VHOST_USER_SET_VRING_CALL] = "SET_VRING_CALL",
	[VHOST_USER_SET_VRING_ERR] = "SET_VRING_ERR",
	[VHOST_USER_GET_PROTOCOL_FEATURES] = "GET_PROTOCOL_FEATURES",
	[VHOST_USER_SET_PROTOCOL_FEATURES] = "SET_PROTOCOL_FEATURES",
	[VHOST_USER_GET_QUEUE_NUM] = "GET_QUEUE_NUM",
	[VHOST_USER_SET_VRING_ENABLE] = "SET_VRING_ENABLE",
	[VHOST_USER_SEND_RARP] = "SEND_RARP",
	[VHOST_USER_NET_SET_MTU] = "NET_SET_MTU",
	[VHOST_USER_SET_BACKEND_REQ_FD] = "SET_BACKEND_REQ_FD",
	[VHOST_USER_IOTLB_MSG] = "IOTLB_MSG",
	[VHOST_USER_SET_VRING_ENDIAN] = "SET_VRING_ENDIAN",
	[VHOST_USER_GET_CONFIG] = "GET_CONFIG",
	[VHOST_USER_SET_CONFIG] = "SET_CONFIG",
	[VHOST_USER_CREATE_CRYPTO_SESSION] = "CREATE_CRYPTO_SESSION",
	[VHOST_USER_CLOSE_CRYPTO_SESSION] = "CLOSE_CRYPTO_SESSION",
	[VHOST_USER_POSTCOPY_ADVISE] = "POSTCOPY_ADVISE",
	[VHOST_USER_POSTCOPY_LISTEN] = "POSTCOPY_LISTEN",
	[VHOST_USER_POSTCOPY_END] = "POSTCOPY_END",
	[VHOST_USER_GET_INFLIGHT_FD] = "GET_INFLIGHT_FD",
	[VHOST_USER_SET_INFLIGHT_FD] = "SET_INFLIGHT_FD",
	[VHOST_USER_GPU_SET_SOCKET] = "GPU_SET_SOCKET",
	[VHOST_USER_RESET_DEVICE] = "RESET_DEVICE",
	[VHOST_USER_VRING_KICK] = "VRING_KICK",
	[VHOST_USER_GET_MAX_MEM_SLOTS] = "GET_MAX_MEM_SLOTS",
	[VHOST_USER_ADD_MEM_REG] = "ADD_MEM_REG",
	[VHOST_USER_REM_MEM_REG] = "REM_MEM_REG",
	[VHOST_USER_SET_STATUS] = "SET_STATUS",
	[VHOST_USER_GET_STATUS] = "GET_STATUS",
};

/**
 * vu_request_name() - Name of a request code, for log lines
 * @request:	Request code from a header (untrusted)
 *
 * Return: static string, "UNKNOWN" for codes outside the table
 */
const char *vu_request_name(uint32_t request)
{
	if (request < VHOST_USER_MAX && vu_names[request])
		return vu_names[request];
	return "UNKNOWN";
}

/**
 * vu_msg_close_fds() - Close every descriptor a message still holds
 * @m:	Message
 */
void vu_msg_close_fds(struct vu_msg *m)
{
	unsigned int i;

	for (i = 0; i < m->nfds && i < VHOST_USER_MAX_FDS; i++) {
		if (m->fds[i] >= 0)
			close(m->fds[i]);
		m->fds[i] = -1;
	}
	m->nfds = 0;
}

/**
 * vu_msg_take_fd() - Take ownership of one received descriptor
 * @m:	Message
 * @i:	Index into @m->fds
 *
 * The message forgets the descriptor, so vu_msg_close_fds() will not close it.
 *
 * Return: the descriptor, -1 if there is none at @i
 */
int vu_msg_take_fd(struct vu_msg *m, unsigned int i)
{
	int fd;

	if (i >= m->nfds || i >= VHOST_USER_MAX_FDS)
		return -1;
	fd = m->fds[i];
	m->fds[i] = -1;
	return fd;
}

/* Read exactly @len bytes; 0 on success, -ECONNRESET on EOF, -errno */
static int read_full(int sock, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = recv(sock, (char *)buf + done, len - done, 0);

		if (n == 0)
			return -ECONNRESET;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		done += (size_t)n;
	}
	return 0;
}

/*
 * Take the SCM_RIGHTS descriptors of one recvmsg() into @m (closing any
 * beyond VHOST_USER_MAX_FDS). Return: 0, -EBADMSG if some were lost
 * (MSG_CTRUNC) or there were too many: the message cannot be trusted.
 */
static int vu_msg_take_cmsg(struct msghdr *mh, struct vu_msg *m)
{
	struct cmsghdr *cmsg;
	int ret = 0;

	for (cmsg = CMSG_FIRSTHDR(mh); cmsg; cmsg = CMSG_NXTHDR(mh, cmsg)) {
		size_t nfd, i;

		if (cmsg->cmsg_level != SOL_SOCKET ||
		    cmsg->cmsg_type != SCM_RIGHTS)
			continue;
		nfd = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < nfd; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cmsg) + i * sizeof(int),
			       sizeof(fd));
			if (m->nfds < VHOST_USER_MAX_FDS) {
				m->fds[m->nfds++] = fd;
			} else {
				close(fd);
				ret = -EBADMSG;
			}
		}
	}
	if (mh->msg_flags & MSG_CTRUNC)
		ret = -EBADMSG;
	return ret;
}

/**
 * vu_msg_recv() - Receive one message and the descriptors sent with it
 * @sock:	Connected UNIX stream socket (blocking)
 * @m:		Message to fill; on error it holds no descriptor
 *
 * Context: control thread
 * Return: 0 on success, -ECONNRESET if the peer closed before a header,
 *	   -EBADMSG on a framing error, other -errno from recvmsg()
 */
int vu_msg_recv(int sock, struct vu_msg *m)
{
	char control[CMSG_SPACE(VHOST_USER_MAX_FDS * sizeof(int))];
	struct iovec iov = { .iov_base = &m->hdr, .iov_len = sizeof(m->hdr) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control, .msg_controllen = sizeof(control),
	};
	ssize_t n;
	int ret;

	m->nfds = 0;
	do {
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n == 0)
		return -ECONNRESET;
	if (n < 0)
		return -errno;

	/* More than VHOST_USER_MAX_FDS: the extra ones closed, the rest kept */
	(void)vu_msg_take_cmsg(&mh, m);
	if (mh.msg_flags & MSG_CTRUNC) {
		ret = -EBADMSG;		/* fds were lost: cannot trust the message */
		goto err;
	}
	if ((size_t)n < sizeof(m->hdr)) {
		ret = read_full(sock, (char *)&m->hdr + n, sizeof(m->hdr) - n);
		if (ret)
			goto err;
	}
	if (m->hdr.size > sizeof(m->payload)) {
		ret = -EBADMSG;
		goto err;
	}
	ret = read_full(sock, &m->payload, m->hdr.size);
	if (ret)
		goto err;
	return 0;

err:
	vu_msg_close_fds(m);
	return ret == -ECONNRESET && n > 0 ? -EBADMSG : ret;
}

/**
 * vu_msg_send() - Send one message with @m->nfds descriptors
 * @sock:	Connected UNIX stream socket
 * @m:		Message; @m->hdr.size bytes of payload are sent
 *
 * The descriptors stay owned by the caller.
 *
 * Return: 0 on success, -EINVAL for a bad message, -errno from sendmsg()
 */
int vu_msg_send(int sock, const struct vu_msg *m)
{
	char control[CMSG_SPACE(VHOST_USER_MAX_FDS * sizeof(int))] = { 0 };
	struct iovec iov[2] = {
		{ .iov_base = (void *)&m->hdr, .iov_len = sizeof(m->hdr) },
		{ .iov_base = (void *)&m->payload, .iov_len = m->hdr.size },
	};
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	size_t total = sizeof(m->hdr) + m->hdr.size, done = 0;
	ssize_t n;

	if (m->hdr.size > sizeof(m->payload) || m->nfds > VHOST_USER_MAX_FDS)
		return -EINVAL;
	if (m->nfds) {
		struct cmsghdr *cmsg;

		mh.msg_control = control;
		mh.msg_controllen = CMSG_SPACE(m->nfds * sizeof(int));
		cmsg = CMSG_FIRSTHDR(&mh);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(m->nfds * sizeof(int));
		memcpy(CMSG_DATA(cmsg), m->fds, m->nfds * sizeof(int));
	}
	do {
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	done = (size_t)n;
	/* Rare short write: the fds went with the first chunk, send the rest */
	while (done < total) {
		const char *p;
		size_t left;

		if (done < sizeof(m->hdr)) {
			p = (const char *)&m->hdr + done;
			left = sizeof(m->hdr) - done;
		} else {
			p = (const char *)&m->payload + (done - sizeof(m->hdr));
			left = total - done;
		}
		n = send(sock, p, left, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		done += (size_t)n;
	}
	return 0;
}

/* -------- buffered, per connection -------- */

/**
 * vu_conn_now_ms() - The clock vu_conn deadlines are on
 *
 * Return: CLOCK_MONOTONIC in milliseconds, never 0
 */
uint64_t vu_conn_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000 + 1;
}

/**
 * vu_conn_init() - Start buffering for a newly connected peer
 * @c:		Connection state (may hold garbage)
 * @sock:	Its socket (stays the caller's)
 */
void vu_conn_init(struct vu_conn *c, int sock)
{
	c->sock = sock;
	c->rx.nfds = 0;
	c->rx_got = 0;
	c->rx_start_ms = 0;
	c->tx_head = c->tx_len = 0;
}

/**
 * vu_conn_reset() - Forget a partial message (closing its fds) and the
 *		     unsent replies; the socket is left alone
 * @c:		Connection state
 */
void vu_conn_reset(struct vu_conn *c)
{
	vu_msg_close_fds(&c->rx);
	vu_conn_init(c, -1);
}

/* Where the next byte of the message being assembled goes, and how many */
static size_t vu_conn_want(struct vu_conn *c, char **at)
{
	if (c->rx_got < sizeof(c->rx.hdr)) {
		*at = (char *)&c->rx.hdr + c->rx_got;
		return sizeof(c->rx.hdr) - c->rx_got;
	}
	*at = (char *)&c->rx.payload + (c->rx_got - sizeof(c->rx.hdr));
	return sizeof(c->rx.hdr) + c->rx.hdr.size - c->rx_got;
}

/**
 * vu_conn_recv() - Read what the socket has of the next message, never
 *		    waiting; hand it over once whole
 * @c:		Connection state
 * @m:		Filled with the message and its descriptors (now the
 *		caller's) when 0 is returned
 *
 * Reads never go past the message being assembled, so the socket stays
 * readable while more messages wait (level-triggered callers come back).
 *
 * Context: control thread
 * Return: 0: a whole message is in @m; -EAGAIN: not yet (the partial one
 *	   is kept, see @c->rx_start_ms); -ECONNRESET: the peer closed
 *	   between messages; -EBADMSG: framing error or close mid-message
 *	   (every descriptor closed); other -errno from recvmsg()
 */
int vu_conn_recv(struct vu_conn *c, struct vu_msg *m)
{
	char control[CMSG_SPACE(VHOST_USER_MAX_FDS * sizeof(int))];
	struct iovec iov;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	size_t want;
	ssize_t n;
	char *at;
	int ret;

	for (;;) {
		want = vu_conn_want(c, &at);
		if (!want && c->rx_got >= sizeof(c->rx.hdr))
			break;		/* header with size 0, or payload done */
		iov.iov_base = at;
		iov.iov_len = want;
		mh.msg_control = control;
		mh.msg_controllen = sizeof(control);
		mh.msg_flags = 0;
		n = recvmsg(c->sock, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return -EAGAIN;
		if (n < 0) {
			ret = -errno;
			goto err;
		}
		if (n == 0) {
			ret = c->rx_got ? -EBADMSG : -ECONNRESET;
			goto err;
		}
		if (!c->rx_got)
			c->rx_start_ms = vu_conn_now_ms();
		ret = vu_msg_take_cmsg(&mh, &c->rx);
		if (ret)
			goto err;
		c->rx_got += (size_t)n;
		if (c->rx_got == sizeof(c->rx.hdr) &&
		    c->rx.hdr.size > sizeof(c->rx.payload)) {
			ret = -EBADMSG;
			goto err;
		}
	}
	*m = c->rx;
	c->rx.nfds = 0;		/* the fds are the caller's now */
	c->rx_got = 0;
	c->rx_start_ms = 0;
	return 0;

err:
	vu_msg_close_fds(&c->rx);
	c->rx_got = 0;
	c->rx_start_ms = 0;
	return ret;
}

/**
 * vu_conn_flush() - Send queued reply bytes the socket takes now
 * @c:		Connection state
 *
 * Return: 0 if nothing is left queued, -EAGAIN if some is (wait for
 *	   POLLOUT), other -errno: the peer is gone
 */
int vu_conn_flush(struct vu_conn *c)
{
	ssize_t n;

	while (c->tx_head < c->tx_len) {
		n = send(c->sock, c->txq + c->tx_head, c->tx_len - c->tx_head,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return -EAGAIN;
		if (n < 0)
			return -errno;
		c->tx_head += (size_t)n;
	}
	c->tx_head = c->tx_len = 0;
	return 0;
}

/**
 * vu_conn_tx_pending() - Reply bytes still queued
 * @c:		Connection state
 *
 * Return: bytes; non-zero means the caller should wait for POLLOUT
 */
size_t vu_conn_tx_pending(const struct vu_conn *c)
{
	return c->tx_len - c->tx_head;
}

/**
 * vu_conn_send() - Send one message now, or queue what the socket does
 *		    not take
 * @c:		Connection state, with no reply waiting (vu_conn_tx_pending()
 *		is 0: the caller reads no request while one waits)
 * @m:		Message, without descriptors (a backend's replies carry none)
 *
 * Return: 0 (sent, or the rest of it queued), -EINVAL for a bad message or
 *	   one with descriptors, -ENOBUFS if a reply is waiting already,
 *	   other -errno: the peer is gone
 */
int vu_conn_send(struct vu_conn *c, const struct vu_msg *m)
{
	size_t total = sizeof(m->hdr) + m->hdr.size, done;
	struct iovec iov[2] = {
		{ .iov_base = (void *)&m->hdr, .iov_len = sizeof(m->hdr) },
		{ .iov_base = (void *)&m->payload, .iov_len = m->hdr.size },
	};
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	ssize_t n;

	if (m->hdr.size > sizeof(m->payload) || m->nfds)
		return -EINVAL;
	if (vu_conn_tx_pending(c))
		return -ENOBUFS;
	do {
		n = sendmsg(c->sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	} while (n < 0 && errno == EINTR);
	if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
		return -errno;
	done = n < 0 ? 0 : (size_t)n;
	if (done == total)
		return 0;
	/* total <= VU_CONN_TXQ_MAX: the size was checked against the union */
	c->tx_head = 0;
	c->tx_len = total - done;
	if (done < sizeof(m->hdr)) {
		memcpy(c->txq, (const char *)&m->hdr + done,
		       sizeof(m->hdr) - done);
		memcpy(c->txq + sizeof(m->hdr) - done, &m->payload, m->hdr.size);
	} else {
		memcpy(c->txq, (const char *)&m->payload + (done - sizeof(m->hdr)),
		       total - done);
	}
	return 0;
}
