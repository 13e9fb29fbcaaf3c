// SPDX-License-Identifier: MIT
/*
 * test_vring_corpus.c - the ring fuzz harnesses as a regression test,
 * without libFuzzer: every seed in fuzz/corpus/fuzz_vring_split/ and
 * fuzz/corpus/fuzz_vring_packed/ is replayed once, then a few thousand
 * fixed-seed mutations of them (byte flips in the ring area, random
 * option bytes). Under the ASan/UBSan build any out-of-bounds access by a
 * walker fails the case; everywhere, a crash or abort does.
 */
#include "testlib.h"
#include "../../fuzz/fuzz_vring_common.h"

#define CORPUS_MAX_SEEDS	32
#define CORPUS_SEED_MAX		(FZ_MEM + FZ_HDR)
#include "corpus_util.h"

#define MUTATIONS	3000

static uint8_t work[CORPUS_SEED_MAX];

static uint32_t rnd(uint32_t n)
{
	return (uint32_t)(corpus_rng() % n);
}

static void replay(enum vq_layout l, const char *dir)
{
	unsigned int i, k;

	if (!corpus_load(dir))
		SKIP("no seeds in %s (run from the repository root)", dir);
	for (i = 0; i < corpus_n; i++)
		fz_run(l, corpus_seeds[i], corpus_len[i]);
	for (i = 0; i < MUTATIONS; i++) {
		unsigned int s = rnd(corpus_n), flips = 1 + rnd(16);
		size_t len = corpus_len[s];

		memcpy(work, corpus_seeds[s], len);
		work[0] = (uint8_t)rnd(256);
		work[1] = (uint8_t)rnd(256);
		for (k = 0; k < flips && len > FZ_HDR; k++) {
			/* mostly the rings (first 4 KiB of memory), sometimes
			 * anywhere */
			size_t span = MIN(len - FZ_HDR, rnd(4) ? 4096 : len);

			work[FZ_HDR + rnd((uint32_t)span)] ^=
				(uint8_t)(1u << rnd(8));
		}
		fz_run(l, work, len);
	}
}

static void test_split_corpus(void)
{
	replay(VQ_SPLIT, "fuzz/corpus/fuzz_vring_split");
}

static void test_packed_corpus(void)
{
	replay(VQ_PACKED, "fuzz/corpus/fuzz_vring_packed");
}

int main(void)
{
	RUN(test_split_corpus);
	RUN(test_packed_corpus);
	return test_exit();
}
