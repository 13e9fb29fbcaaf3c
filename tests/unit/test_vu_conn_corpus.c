// SPDX-License-Identifier: MIT
/*
 * test_vu_conn_corpus.c - the buffered framing fuzz harness (fuzz_vu_conn.c)
 * as a regression test, without libFuzzer: every seed in
 * fuzz/corpus/fuzz_vu_conn/ is replayed once, then a few thousand inputs
 * from a fixed-seed generator (mutations of the seeds: byte flips, splices,
 * truncations), so chunk splits and fds land in new places. The harness
 * aborts when vu_conn disagrees with its one-pass reference parse or leaks
 * a descriptor; the process must also hold the same descriptors after.
 */
#include "testlib.h"
#include "fuzz_target.h"
#include "corpus_util.h"

#define CORPUS_DIR	"fuzz/corpus/fuzz_vu_conn"
#define MUTATIONS	2000

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
