// SPDX-License-Identifier: MIT
/*
 * test_port_spec_corpus.c - the port-spec fuzz harness (fuzz_port_spec.c:
 * vnetd's one parser of `port add`, --port and config lines) as a
 * regression test, without libFuzzer: every seed in
 * fuzz/corpus/fuzz_port_spec/ is replayed once, then a few thousand inputs
 * from a fixed-seed generator (byte flips, splices, truncations of the
 * seeds). The harness aborts on a refusal without its reason or an
 * accepted spec outside vnetd's bounds.
 */
#include "testlib.h"
#include "fuzz_target.h"
#include "corpus_util.h"

#define CORPUS_DIR	"fuzz/corpus/fuzz_port_spec"
#define MUTATIONS	3000

static void test_corpus_replay(void)
{
	corpus_replay(CORPUS_DIR, LLVMFuzzerTestOneInput, NULL);
}

static void test_mutations(void)
{
	corpus_mutations(CORPUS_DIR, MUTATIONS, LLVMFuzzerTestOneInput);
}

int main(void)
{
	RUN(test_corpus_replay);
	RUN(test_mutations);
	return test_exit();
}
