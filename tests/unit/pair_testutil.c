// SPDX-License-Identifier: MIT
/*
 * pair_testutil.c - a queue pair of configured device-side split rings
 * over plain memory (pair_testutil.h), built once into
 * build/libvnet-test.a.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <linux/virtio_config.h>

#include "pair_testutil.h"

#define TP_F_V1	(1ULL << VIRTIO_F_VERSION_1)

void *test_ring_mem[2][3];

/* A configured device-side split ring with eventfds, base @base */
static int ring_init(struct vnet_ring *r, struct gmem *mem, int which,
		     uint16_t base)
{
	uint64_t len[3];
	int i;

	memset(r, 0, sizeof(*r));
	if (vq_init(&r->vq, VQ_SPLIT, TP_NUM, TP_F_V1))
		return -1;
	vq_ring_sizes(VQ_SPLIT, TP_NUM, &len[0], &len[1], &len[2]);
	for (i = 0; i < 3; i++) {
		test_ring_mem[which][i] = aligned_alloc(4096, 4096);
		if (!test_ring_mem[which][i] || len[i] > 4096)
			return -1;
		memset(test_ring_mem[which][i], 0, 4096);
	}
	if (vq_set_addr(&r->vq, test_ring_mem[which][0],
			test_ring_mem[which][1], test_ring_mem[which][2]))
		return -1;
	vq_set_mem(&r->vq, mem);
	vq_set_base(&r->vq, base);
	r->kick_fd = eventfd(0, EFD_CLOEXEC);
	r->call_fd = eventfd(0, EFD_CLOEXEC);
	r->err_fd = -1;
	r->enabled = true;
	return r->kick_fd < 0 || r->call_fd < 0 ? -1 : 0;
}

static void ring_fini(struct vnet_ring *r, int which)
{
	int i;

	close(r->kick_fd);
	close(r->call_fd);
	vq_cleanup(&r->vq);
	for (i = 0; i < 3; i++)
		free(test_ring_mem[which][i]);
}

/**
 * test_pair_init() - Set up @p: VERSION_1, a 12-byte header, both rings
 * @p:		Pair, filled in
 * @mem:	Guest memory the rings translate through
 *
 * Return: 0, or -1 when memory or an eventfd cannot be had
 */
int test_pair_init(struct vnet_pair *p, struct gmem *mem)
{
	memset(p, 0, sizeof(*p));
	p->features = TP_F_V1;
	p->hdr_len = 12;
	return ring_init(&p->rx, mem, 0, TP_RX_BASE) ||
	       ring_init(&p->tx, mem, 1, TP_TX_BASE) ? -1 : 0;
}

/**
 * test_pair_fini() - Free what test_pair_init() set up
 * @p:		Pair
 */
void test_pair_fini(struct vnet_pair *p)
{
	ring_fini(&p->rx, 0);
	ring_fini(&p->tx, 1);
}

/**
 * test_next_fd() - The lowest free descriptor number
 *
 * A leak shows as a higher number than before.
 *
 * Return: that number, -1 if none is free
 */
int test_next_fd(void)
{
	int fd = dup(0), n = fd;

	if (fd >= 0)
		close(fd);
	return n;
}
