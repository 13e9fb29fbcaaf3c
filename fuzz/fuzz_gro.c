// SPDX-License-Identifier: MIT
/*
 * fuzz_gro.c - libFuzzer harness for software GRO (gro.c): the first byte
 * is the families the guest takes merged, then frames, each a 2-byte
 * big-endian length and its bytes (at most 16 frames), each copied into a
 * heap buffer of exactly its size (ASan sees any byte read past it). The
 * frames are merged as xsk_ring.c merges a batch; whatever run gro makes
 * of two segments or more, gso.c segments back into the very frames
 * (a checksum of 0 and one of 0xffff count as the same; a run of IPv4
 * segments with one fixed id is only checked to segment into as many).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gro.h"
#include "gso.h"
#include "vnet_hdr.h"

#define FZ_FRAMES	16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* @a (@n bytes, from a segment gso made) equals @b, the wire frame, but
 * for a checksum field holding 0xffff in one and 0 in the other */
static int fz_same(const uint8_t *a, const uint8_t *b, size_t n,
		   const struct gro *g)
{
	size_t fields[2] = { g->l4 + 16, g->v6 ? g->l4 + 16 : g->l3 + 10 };

	for (size_t i = 0; i < n; i++) {
		if (a[i] == b[i])
			continue;
		if ((i == fields[0] || i == fields[1]) && i + 1 < n &&
		    ((a[i] == 0xff && a[i + 1] == 0xff && !b[i] && !b[i + 1]) ||
		     (b[i] == 0xff && b[i + 1] == 0xff && !a[i] && !a[i + 1]))) {
			i++;
			continue;
		}
		return 0;
	}
	return 1;
}

/* Segment the merged frame of @g (frames @f) back; trap on a difference */
static void fz_round_trip(struct gro *g, uint8_t *const *f, const size_t *len)
{
	static uint8_t merged[VNET_FRAME_MAX], out[1 << 16];
	struct virtio_net_hdr_v1 vh;
	size_t mlen = gro_finish(g, &vh), off = g->hlen;
	struct iovec iov = { merged, mlen };
	struct gso s;
	ssize_t r;

	if (mlen > sizeof(merged))
		__builtin_trap();
	memcpy(merged, g->hdr, g->hlen);
	for (uint32_t i = 0; i < g->count; i++) {
		memcpy(merged + off, f[i] + g->hlen, len[i] - g->hlen);
		off += len[i] - g->hlen;
	}
	if (off != mlen || gso_init(&s, &vh, &iov, 1, 0) != (int)g->count)
		__builtin_trap();
	for (uint32_t i = 0; i < g->count; i++) {
		r = gso_next(&s, out, sizeof(out));
		if (r != (ssize_t)len[i])
			__builtin_trap();
		/* an IPv4 run with one fixed id comes back with ids + 1 */
		if ((g->v6 || g->id_step == 1) && !fz_same(out, f[i], len[i], g))
			__builtin_trap();
	}
	if (gso_next(&s, out, sizeof(out)))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *f[FZ_FRAMES];
	size_t len[FZ_FRAMES];
	unsigned int n = 0, fam, at = 0;
	size_t off = 1;
	struct gro g;

	if (size < 1)
		return 0;
	fam = data[0] & (GRO_IPV4 | GRO_IPV6);
	while (n < FZ_FRAMES && off + 2 <= size) {
		size_t l = (size_t)data[off] << 8 | data[off + 1];

		off += 2;
		l = l < size - off ? l : size - off;
		f[n] = malloc(l ? l : 1);
		if (!f[n])
			break;
		memcpy(f[n], data + off, l);
		len[n++] = l;
		off += l;
	}
	/* as xsk_ring.c: a run from each frame not yet taken */
	while (at < n) {
		unsigned int i = at + 1;

		if (at + 1 < n &&
		    !gro_start(&g, f[at], (uint32_t)len[at], fam, VNET_FRAME_MAX)) {
			while (i < n && gro_add(&g, f[i], (uint32_t)len[i]))
				i++;
			if (g.count != i - at)
				__builtin_trap();
			if (g.count > 1)
				fz_round_trip(&g, &f[at], &len[at]);
		}
		at = i;
	}
	while (n)
		free(f[--n]);
	return 0;
}

#ifdef FZ_STANDALONE
#include "fuzz_main.h"
#endif
