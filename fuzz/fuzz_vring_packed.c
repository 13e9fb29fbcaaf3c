// SPDX-License-Identifier: MIT
/*
 * fuzz_vring_packed.c - libFuzzer harness for the packed ring chain walker
 * (vring_packed_dev.c and vq_chain.c, through vq.c): arbitrary descriptor
 * ring (flags, ids, wrap bits), indirect tables and memory contents; see
 * fuzz_vring_common.h for the input format.
 */
#include "fuzz_vring_common.h"

/**
 * LLVMFuzzerTestOneInput() - One input: a packed ring set-up and image
 * @data:	Fuzz input
 * @size:	Its length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fz_run(VQ_PACKED, data, size);
}
