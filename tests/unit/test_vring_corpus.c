// SPDX-License-Identifier: MIT
/*
 * test_vring_corpus.c - the ring fuzz harnesses as a regression test,
 * without libFuzzer: every seed in fuzz/corpus/fuzz_vring_split/ and
 * fuzz/corpus/fuzz_vring_packed/ is replayed once, then a few thousand
 * fixed-seed mutations of them (byte flips in the ring area, random
 * option bytes). Under the ASan/UBSan build any out-of-bounds access by a
 * walker fails the case; everywhere, a crash or abort does.
 */
#include <dirent.h>
#include <stdio.h>

#include "testlib.h"
#include "../../fuzz/fuzz_vring_common.h"

#define MAX_SEEDS	32
#define SEED_MAX	(FZ_MEM + FZ_HDR)
#define MUTATIONS	3000

static uint8_t seeds[MAX_SEEDS][SEED_MAX];
static size_t seed_len[MAX_SEEDS];
static unsigned int nseeds;
static uint8_t work[SEED_MAX];
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static int load_seeds(const char *dir)
{
	char path[512];
	struct dirent *e;
	DIR *d = opendir(dir);

	nseeds = 0;
	if (!d)
		return -1;
	while ((e = readdir(d)) && nseeds < MAX_SEEDS) {
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		f = fopen(path, "rb");
		if (!f)
			continue;
		seed_len[nseeds] = fread(seeds[nseeds], 1, SEED_MAX, f);
		fclose(f);
		nseeds++;
	}
	closedir(d);
	return nseeds ? 0 : -1;
}

static void replay(enum vq_layout l, const char *dir)
{
	unsigned int i, k;

	if (load_seeds(dir))
		SKIP("no seeds in %s (run from the repository root)", dir);
	for (i = 0; i < nseeds; i++)
		fz_run(l, seeds[i], seed_len[i]);
	for (i = 0; i < MUTATIONS; i++) {
		unsigned int s = rnd(nseeds), flips = 1 + rnd(16);
		size_t len = seed_len[s];

		memcpy(work, seeds[s], len);
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
