// SPDX-License-Identifier: MIT
/*
 * fuzz_net_hdr.c - libFuzzer harness for the guest TX vnet header path:
 * arbitrary bytes, cut into up to 8 descriptors at fuzzer-chosen points,
 * with fuzzer-chosen features and header length, through net_tx_prepare().
 * Invariants: no crash; on success the first iovec is our header copy, the
 * rest covers exactly the frame, and the copy passes net_hdr_check() (so
 * its checksum field lies inside the frame).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "iov.h"
#include "net.h"
#include "net_tx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct iovec in[8], out[9];
	struct virtio_net_hdr_v1 hdr;
	unsigned int nin = 0, hdr_len, i;
	uint64_t features;
	size_t off = 0, total;
	int n;

	if (size < 10)
		return 0;
	memcpy(&features, data, sizeof(features));
	hdr_len = data[8] & 1 ? 12 : 10;
	nin = data[9] % 8 + 1;
	data += 10;
	size -= 10;
	for (i = 0; i < nin; i++) {
		size_t cut = i + 1 == nin ? size - off :
			     (size - off) ? data[off] % (size - off + 1) : 0;

		in[i].iov_base = (void *)(data + off);
		in[i].iov_len = cut;
		off += cut;
	}
	n = net_tx_prepare(in, nin, hdr_len, features, &hdr, out, 9);
	if (n <= 0)
		return 0;
	total = iov_len(in, nin);
	if (out[0].iov_base != &hdr || out[0].iov_len != hdr_len ||
	    iov_len(out, (unsigned int)n) != total ||
	    net_hdr_check(&hdr, features, (uint32_t)(total - hdr_len)))
		__builtin_trap();
	return 0;
}
