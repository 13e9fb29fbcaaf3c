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
#include <dirent.h>
#include <stdio.h>

#include "testlib.h"
#include "../../fuzz/fuzz_vu_conn.c"
#include "util.h"

#define CORPUS_DIR	"fuzz/corpus/fuzz_vu_conn"
#define MAX_SEEDS	64
#define SEED_MAX	4096
#define MUTATIONS	2000

static uint8_t seeds[MAX_SEEDS][SEED_MAX];
static size_t seed_len[MAX_SEEDS];
static unsigned int nseeds;

static void load_seeds(void)
{
	DIR *d = opendir(CORPUS_DIR);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) && nseeds < MAX_SEEDS) {
		char path[512];
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", CORPUS_DIR, e->d_name);
		f = fopen(path, "rb");
		if (!f)
			continue;
		seed_len[nseeds] = fread(seeds[nseeds], 1, SEED_MAX, f);
		fclose(f);
		if (seed_len[nseeds])
			nseeds++;
	}
	closedir(d);
}

static void test_corpus_replay(void)
{
	unsigned int i;
	int before;

	load_seeds();
	if (!nseeds)
		SKIP("no seeds in %s (run from the repository root)", CORPUS_DIR);
	LLVMFuzzerTestOneInput(seeds[0], seed_len[0]);	/* harness set-up */
	before = test_count_fds();
	for (i = 0; i < nseeds; i++) {
		LLVMFuzzerTestOneInput(seeds[i], seed_len[i]);
		CHECK_EQ(test_count_fds(), before);
	}
}

/* xorshift64: a fixed sequence, so a failure reproduces */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static size_t mutate(uint8_t *buf, size_t len)
{
	unsigned int n = 1 + rng() % 8, i;

	for (i = 0; i < n && len; i++) {
		switch (rng() % 4) {
		case 0:		/* flip a byte */
			buf[rng() % len] ^= (uint8_t)(1u << (rng() % 8));
			break;
		case 1:		/* random byte */
			buf[rng() % len] = (uint8_t)rng();
			break;
		case 2:		/* truncate */
			len = 1 + rng() % len;
			break;
		default: {	/* splice another seed's tail */
			unsigned int s = (unsigned int)(rng() % nseeds);
			size_t at = rng() % len, from = rng() % seed_len[s];
			size_t cnt = MIN(seed_len[s] - from, SEED_MAX - at);

			memcpy(buf + at, seeds[s] + from, cnt);
			len = at + cnt;
			break;
		}
		}
	}
	return len;
}

static void test_mutations(void)
{
	static uint8_t buf[SEED_MAX];
	unsigned int i;
	int before;

	if (!nseeds)
		SKIP("no seeds in %s", CORPUS_DIR);
	before = test_count_fds();
	for (i = 0; i < MUTATIONS; i++) {
		unsigned int s = (unsigned int)(rng() % nseeds);
		size_t len;

		memcpy(buf, seeds[s], seed_len[s]);
		len = mutate(buf, seed_len[s]);
		LLVMFuzzerTestOneInput(buf, len);
		if (test_count_fds() != before) {
			fprintf(stderr, "  fd leak after mutation %u\n", i);
			CHECK_EQ(test_count_fds(), before);
		}
	}
}

int main(void)
{
	RUN(test_corpus_replay);
	RUN(test_mutations);
	return test_exit();
}
