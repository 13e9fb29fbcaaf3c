/* SPDX-License-Identifier: MIT */
/*
 * dp_flow.h - traffic through dp_testutil.h's environment: frames of
 * known lengths and first bytes sent on a pair's TX, checked as they come
 * back on its RX (the loop backend), for test_worker.c, the tap system
 * test and bench/test_worker_rate.c. Like dp_testutil.h it is a template:
 * struct dp_env is sized by the includer's DP_RING, so the bodies stay here.
 */
#ifndef VNET_DP_FLOW_H
#define VNET_DP_FLOW_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <linux/virtio_config.h>
#include <linux/virtio_net.h>

#include "dp_testutil.h"

#define F(b)		(1ULL << (b))
#define F_V1		F(VIRTIO_F_VERSION_1)
#define F_MRG		F(VIRTIO_NET_F_MRG_RXBUF)
#define F_EIDX		F(VIRTIO_RING_F_EVENT_IDX)
#define DEADLINE_NS	(20ull * 1000000000ull)

static inline uint32_t frame_len(unsigned long k)
{
	return 60 + (uint32_t)(k * 37 % 1400);
}

/**
 * struct flow - Per pair traffic state of the test's "guest"
 */
struct flow {
	unsigned long sent, got, bad;
};

/* One round over pair @i: post RX, send up to @burst, reap, receive */
static inline void flow_step(struct dp_env *e, unsigned int i,
			     struct flow *f, unsigned long total, unsigned int burst,
			     bool fixed64)
{
	unsigned int n;
	uint32_t ok, want;
	uint8_t first;
	int len;

	dp_post_rx(e, i);
	dp_reap_tx(e, i);
	for (n = 0; n < burst && f->sent < total; n++) {
		want = fixed64 ? 64 : frame_len(f->sent);
		if (dp_send(e, i, want, (uint8_t)f->sent, false))
			break;
		f->sent++;
	}
	if (n)
		dp_kick(&e->pairs[i].tx, &e->tx[i]);
	while ((len = dp_recv(e, i, &first, fixed64 ? NULL : &ok)) != -EAGAIN) {
		want = fixed64 ? 64 : frame_len(f->got);
		if (len != (int)want ||
		    (!fixed64 && (first != (uint8_t)f->got || ok != want)))
			f->bad++;
		f->got++;
	}
}

/* Run @total frames per pair through the loop; returns 0 when all came */
static inline int run_traffic(struct dp_env *e, unsigned long total, bool fixed64)
{
	struct flow fl[DP_MAX_PAIRS] = { 0 };
	uint64_t deadline = dp_now_ns() + DEADLINE_NS;
	unsigned int i, done;

	do {
		done = 0;
		for (i = 0; i < e->npairs; i++) {
			flow_step(e, i, &fl[i], total, 64, fixed64);
			if (fl[i].bad) {
				fprintf(stderr, "  pair %u: %lu bad frames\n",
					i, fl[i].bad);
				return -1;
			}
			done += fl[i].got == total;
		}
		if (dp_now_ns() > deadline) {
			for (i = 0; i < e->npairs; i++)
				fprintf(stderr, "  pair %u: sent %lu got %lu\n",
					i, fl[i].sent, fl[i].got);
			return -1;
		}
	} while (done < e->npairs);
	return 0;
}

#endif /* VNET_DP_FLOW_H */
