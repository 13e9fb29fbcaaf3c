// SPDX-License-Identifier: MIT
/*
 * sessions.c - `vnet-bench --sessions N`: many short sessions against one
 * backend socket, each a fresh frontend: connect, set up, send a burst of
 * frames on pair 0, take every one back (loop backend), then send one more
 * burst it does not wait for and disconnect. A session passes only if each
 * of its counted frames came back exactly once and no frame of another
 * session showed up: the last session's unread burst must not reach the
 * next one (a session ends with its frames). Odd sessions stop their rings
 * (SET_VRING_ENABLE 0, GET_VRING_BASE) before hanging up, even ones do not.
 * This is the reconnect stress and soak of docs/testing.md: the port's
 * next connection must find nothing left of the last one.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define SESS_WAIT_MS	3000	/* per session, for its frames to return */

/**
 * struct sess_rx - What one session's RX callback counts
 * @session:	This session's number
 * @seen:	Per frame: times it came back
 * @nframes:	Frames sent
 * @got:	Frames of this session received
 * @foreign:	Frames that are not this session's
 */
struct sess_rx {
	uint32_t session;
	uint8_t seen[4096];
	unsigned int nframes;
	unsigned int got;
	unsigned int foreign;
};

static double sess_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Frame: broadcast dst, local src, ethertype, magic, session, seq */
static void sess_frame(uint8_t *f, uint32_t len, uint32_t session,
		       uint32_t seq)
{
	uint32_t w[3] = { BENCH_MAGIC, session, seq };

	memset(f, 0, len);
	memset(f, 0xff, 6);
	f[6] = 0x02;
	f[11] = 0x01;
	f[12] = BENCH_ETHERTYPE >> 8;
	f[13] = BENCH_ETHERTYPE & 0xff;
	memcpy(f + 14, w, sizeof(w));
}

static void sess_rx_cb(void *opaque, const struct virtio_net_hdr_v1 *hdr,
		       const struct iovec *iov, unsigned int niov, uint32_t len)
{
	struct sess_rx *r = opaque;
	uint8_t buf[26];
	uint32_t w[3];
	size_t off = 0, n;
	unsigned int i;

	(void)hdr;
	for (i = 0; i < niov && off < sizeof(buf); i++) {
		n = MIN(iov[i].iov_len, sizeof(buf) - off);
		memcpy(buf + off, iov[i].iov_base, n);
		off += n;
	}
	if (len < sizeof(buf) || off < sizeof(buf)) {
		r->foreign++;
		return;
	}
	memcpy(w, buf + 14, sizeof(w));
	if (w[0] != BENCH_MAGIC || w[1] != r->session || w[2] >= r->nframes) {
		r->foreign++;
		return;
	}
	r->seen[w[2]]++;
	r->got++;
}

/* Connect a fresh frontend, retrying while the socket is not there yet */
static int sess_connect(struct vu_frontend *fe, const struct bench_cfg *c,
			const char *path)
{
	struct vu_frontend_opts o = {
		.ring_size = c->ring, .packed = c->packed,
		.features = c->features, .max_frame = bench_max_frame(c),
		.no_reply_ack = c->no_reply_ack,
		.no_mem_slots = c->no_mem_slots,
	};
	unsigned int i;
	int ret;

	for (i = 0; i < 100; i++) {
		ret = vu_frontend_init(fe, &o);
		if (ret)
			return ret;
		ret = vu_frontend_connect(fe, path);
		if (ret != -ECONNREFUSED && ret != -ENOENT &&
		    ret != -ECONNRESET && ret != -EPIPE)
			return ret;
		vu_frontend_cleanup(fe);
		usleep(20000);
	}
	return ret;
}

static void sess_leftovers(struct vu_frontend *fe, const struct bench_cfg *c,
			   uint32_t session, uint32_t first, uint8_t *frame)
{
	unsigned int n = fe->ring_size + 64, i = 0;
	double end = sess_now() + 0.2;

	while (i < n && sess_now() < end) {
		sess_frame(frame, c->size, session, first + i);
		if (vu_frontend_tx(fe, 0, NULL, frame, c->size)) {
			(void)vu_frontend_tx_flush(fe, 0);
			usleep(100);
			vu_frontend_tx_reclaim(fe, 0);
			continue;
		}
		i++;
	}
	(void)vu_frontend_tx_flush(fe, 0);
	usleep(1000);	/* let the backend take the last burst */
}

/* Send the burst, take it back. Return: 0, or -errno with a reason printed */
static int sess_one(const struct bench_cfg *c, const char *path,
		    uint32_t session, struct sess_rx *r, uint8_t *frame)
{
	struct vu_frontend fe;
	unsigned int sent = 0, i;
	double end;
	int ret;

	memset(r, 0, sizeof(*r));
	r->session = session;
	r->nframes = c->session_frames;
	ret = sess_connect(&fe, c, path);
	if (ret) {
		fprintf(stderr, "vnet-bench: session %u: connect: %s\n",
			session, vu_frontend_error(&fe));
		vu_frontend_cleanup(&fe);
		return ret;
	}
	end = sess_now() + SESS_WAIT_MS / 1000.0;
	while ((sent < r->nframes || r->got < r->nframes) && sess_now() < end &&
	       !bench_interrupted) {
		for (; sent < r->nframes; sent++) {
			sess_frame(frame, c->size, session, sent);
			ret = vu_frontend_tx(&fe, 0, NULL, frame, c->size);
			if (ret == -EAGAIN)
				break;
			if (ret)
				goto out;
		}
		ret = vu_frontend_tx_flush(&fe, 0);
		if (ret)
			goto out;
		vu_frontend_tx_reclaim(&fe, 0);
		ret = vu_frontend_rx(&fe, 0, sess_rx_cb, r, 256);
		if (ret < 0)
			goto out;
		if (!ret && r->got < r->nframes)
			(void)vu_frontend_wait(&fe, 0, 10);
	}
	ret = 0;
	for (i = 0; i < r->nframes; i++)
		if (r->seen[i] != 1)
			ret = -EPROTO;
	if (r->foreign)
		ret = -EPROTO;
	/*
	 * Frames left at disconnect, more than our RX ring holds, so that
	 * some wait in the host's queue: the next session must not see them
	 */
	if (!ret)
		sess_leftovers(&fe, c, session, r->nframes, frame);
	/*
	 * Odd sessions stop their rings first (SET_VRING_ENABLE 0 and
	 * GET_VRING_BASE with the leftovers in flight), even ones just
	 * hang up: both ways a session can end
	 */
	if (!ret && (session & 1) && vu_frontend_stop(&fe)) {
		fprintf(stderr, "vnet-bench: session %u: stop: %s\n", session,
			vu_frontend_error(&fe));
		ret = -EIO;
	}
out:
	if (ret)
		fprintf(stderr, "vnet-bench: session %u: %u of %u frames sent, %u back, %u foreign%s%s\n",
			session, sent, r->nframes, r->got, r->foreign,
			ret == -EPROTO ? "" : ": ",
			ret == -EPROTO ? "" : vu_frontend_error(&fe));
	vu_frontend_disconnect(&fe);
	vu_frontend_cleanup(&fe);
	return ret;
}

/**
 * bench_sessions() - Run --sessions short sessions one after the other
 * @c:		Options (session count and frames per session set)
 * @path:	Backend socket
 *
 * Return: 0 if every session got all of its frames back and nothing else,
 *	   1 if one did not, 2 if a session could not be set up
 */
int bench_sessions(const struct bench_cfg *c, const char *path)
{
	static struct sess_rx r;
	static uint8_t frame[65536];
	uint64_t frames = 0;
	unsigned int s, bad = 0;
	double t0 = sess_now(), secs;
	int ret;

	for (s = 0; s < c->sessions && !bench_interrupted; s++) {
		ret = sess_one(c, path, s, &r, frame);
		frames += r.got;
		if (ret == -EPROTO)
			bad++;
		else if (ret)
			return 2;
		if (bad) {
			s++;
			break;	/* the first bad session is the interesting one */
		}
	}
	secs = sess_now() - t0;
	if (c->json)
		printf("{\"sessions\": %u, \"failed\": %u, \"frames_per_session\": %u, \"frames_back\": %llu, \"seconds\": %.3f, \"packed\": %s}\n",
		       s, bad, c->session_frames, (unsigned long long)frames,
		       secs, c->packed ? "true" : "false");
	else
		printf("%u sessions (%s), %u frames each: %llu frames back, %u failed, %.2f s (%.1f ms/session)\n",
		       s, c->packed ? "packed" : "split", c->session_frames,
		       (unsigned long long)frames, bad, secs,
		       s ? secs * 1000 / s : 0.0);
	return bad ? 1 : 0;
}
