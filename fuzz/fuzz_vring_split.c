// SPDX-License-Identifier: MIT
/*
 * fuzz_vring_split.c - libFuzzer harness for the split ring chain walker
 * (vring_split_dev.c and vq_chain.c, through vq.c): arbitrary descriptor
 * table, avail ring, indirect tables and memory contents; see
 * fuzz_vring_common.h for the input format.
 */
#include "fuzz_vring_common.h"

/**
 * LLVMFuzzerTestOneInput() - One input: a split ring set-up and image
 * @data:	Fuzz input
 * @size:	Its length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fz_run(VQ_SPLIT, data, size);
}
