// SPDX-License-Identifier: MIT
/*
 * test_vu_dispatch_corpus.c - the dispatcher fuzz harness as a regression
 * test, without libFuzzer: every seed in fuzz/corpus/fuzz_vu_dispatch/ is
 * replayed once (under the ASan/UBSan build this catches what the fuzzer
 * once found), then a few thousand inputs from a fixed-seed generator
 * (mutations of the seeds: byte flips, splices, truncations). After each
 * input the device has been disconnected, so the process must hold exactly
 * the descriptors it held before: a leak on any path fails the case.
 */
#include "testlib.h"
#include "fuzz_vu_dispatch.h"
#include "vu_backend.h"
#include "corpus_util.h"

#define CORPUS_DIR	"fuzz/corpus/fuzz_vu_dispatch"
#define MUTATIONS	3000

/* The harness disconnects the device after each input, as vnetd does */
static void check_disconnected(void)
{
	CHECK(!vu_dev_connected(fz_vu_dispatch_dev()));
}

static void test_corpus_replay(void)
{
	corpus_replay(CORPUS_DIR, LLVMFuzzerTestOneInput, check_disconnected);
}

static void test_mutations(void)
{
	corpus_mutations(CORPUS_DIR, MUTATIONS, LLVMFuzzerTestOneInput);
}

int main(void)
{
	RUN(test_corpus_replay);
	RUN(test_mutations);
	vu_dev_destroy(fz_vu_dispatch_dev());
	return test_exit();
}
