// SPDX-License-Identifier: MIT
/*
 * fuzz_gso.c - libFuzzer harness for the software offloads (gso.c): the
 * first 12 bytes are the vnet header, the next one how many pieces the
 * frame (the rest) is cut into, at fuzzer-chosen points. Whatever
 * gso_init() accepts, gso_next() writes into a heap buffer of exactly
 * gso_seg_max() bytes (ASan sees any byte past it), produces as many
 * frames as gso_init() said, and their payload adds up to the frame.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gso.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct virtio_net_hdr_v1 vh;
	struct iovec iov[8];
	unsigned int n, i, segs = 0;
	size_t off = 0, total = 0, room;
	struct gso g;
	uint8_t *buf;
	ssize_t r;
	int ns;

	if (size < 13)
		return 0;
	memcpy(&vh, data, sizeof(vh));
	n = data[12] % 8 + 1;
	data += 13;
	size -= 13;
	for (i = 0; i < n; i++) {
		size_t cut = i + 1 == n ? size - off :
			     (size - off) ? data[off] % (size - off + 1) : 0;

		iov[i].iov_base = (void *)(data + off);
		iov[i].iov_len = cut;
		off += cut;
	}
	ns = gso_init(&g, &vh, iov, n, 0);
	if (ns < 0)
		return 0;
	room = gso_seg_max(&g);
	buf = malloc(room ? room : 1);
	if (!buf)
		return 0;
	while ((r = gso_next(&g, buf, room)) > 0) {
		if ((size_t)r > room)
			__builtin_trap();
		total += (size_t)r - (g.kind >= GSO_KIND_TCP4 ? g.hdr_len : 0);
		segs++;
	}
	free(buf);
	if (r || segs != (unsigned int)ns ||
	    total + (g.kind >= GSO_KIND_TCP4 ? g.hdr_len : 0) != size)
		__builtin_trap();
	return 0;
}

#ifdef FZ_STANDALONE
#include "fuzz_main.h"
#endif
