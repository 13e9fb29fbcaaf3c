/* SPDX-License-Identifier: MIT */
/*
 * fuzz_target.h - the libFuzzer entry point every harness defines, for
 * the harness itself and for the unit tests that replay its corpus
 * (tests/unit/test_*_corpus.c link the harness's .c)
 */
#ifndef VNET_FUZZ_TARGET_H
#define VNET_FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* VNET_FUZZ_TARGET_H */
