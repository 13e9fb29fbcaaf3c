/* SPDX-License-Identifier: MIT */
/*
 * corpus_util.h - what the corpus regression tests (test_*_corpus.c) share:
 * the seeds of one fuzz/corpus/ directory in memory, a fixed-seed xorshift
 * generator (a failing input reproduces on every run) and a mutator (byte
 * flips, random bytes, truncations, splices of another seed's tail). For a
 * harness with the libFuzzer entry point, corpus_replay() and
 * corpus_mutations() are the two cases: every seed once, then mutations of
 * them, the process holding the same descriptors after each input.
 *
 * Define CORPUS_MAX_SEEDS and CORPUS_SEED_MAX before including it to change
 * how many seeds, and how many bytes of each, are kept (64 of 4096): that
 * makes it a template (test_vring_corpus.c sizes it), so its bodies stay
 * here rather than in build/libvnet-test.a.
 */
#ifndef VNET_CORPUS_UTIL_H
#define VNET_CORPUS_UTIL_H

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "testlib.h"
#include "util.h"

#ifndef CORPUS_MAX_SEEDS
#define CORPUS_MAX_SEEDS	64
#endif
#ifndef CORPUS_SEED_MAX
#define CORPUS_SEED_MAX		4096
#endif

static uint8_t corpus_seeds[CORPUS_MAX_SEEDS][CORPUS_SEED_MAX];
static size_t corpus_len[CORPUS_MAX_SEEDS];
static unsigned int corpus_n;

/* xorshift64 from a fixed state: the same sequence on every run */
static uint64_t corpus_rng_state = 0x9e3779b97f4a7c15ULL;

/**
 * corpus_load() - Read the seeds of a corpus directory, replacing those loaded
 * @dir:	Directory, relative to the repository root (where tests run)
 *
 * Empty files are passed over (nothing to mutate); at most CORPUS_MAX_SEEDS
 * files are read, and CORPUS_SEED_MAX bytes of each.
 *
 * Return: the number of seeds now loaded, 0 if none or @dir cannot be read
 */
static inline unsigned int corpus_load(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	corpus_n = 0;
	if (!d)
		return 0;
	while ((e = readdir(d)) && corpus_n < CORPUS_MAX_SEEDS) {
		char path[512];
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		f = fopen(path, "rb");
		if (!f)
			continue;
		corpus_len[corpus_n] = fread(corpus_seeds[corpus_n], 1,
					     CORPUS_SEED_MAX, f);
		fclose(f);
		if (corpus_len[corpus_n])
			corpus_n++;
	}
	closedir(d);
	return corpus_n;
}

/**
 * corpus_rng() - The next number of the fixed-seed generator
 *
 * Return: 64 pseudo-random bits
 */
static inline uint64_t corpus_rng(void)
{
	return test_xorshift(&corpus_rng_state);
}

/**
 * corpus_mutate() - Change an input in one to eight random ways
 * @buf:	Input, CORPUS_SEED_MAX bytes of room, changed in place
 * @len:	Its length, 1..CORPUS_SEED_MAX
 *
 * Flips a bit, sets a byte, truncates, or splices in the tail of a loaded
 * seed (at least one must be loaded).
 *
 * Return: the new length, 1..CORPUS_SEED_MAX
 */
static inline size_t corpus_mutate(uint8_t *buf, size_t len)
{
	unsigned int n = 1 + corpus_rng() % 8, i;

	for (i = 0; i < n && len; i++) {
		switch (corpus_rng() % 4) {
		case 0:		/* flip a byte */
			buf[corpus_rng() % len] ^= (uint8_t)(1u << (corpus_rng() % 8));
			break;
		case 1:		/* random byte */
			buf[corpus_rng() % len] = (uint8_t)corpus_rng();
			break;
		case 2:		/* truncate */
			len = 1 + corpus_rng() % len;
			break;
		default: {	/* splice another seed's tail */
			unsigned int s = (unsigned int)(corpus_rng() % corpus_n);
			size_t at = corpus_rng() % len;
			size_t from = corpus_rng() % corpus_len[s];
			size_t cnt = MIN(corpus_len[s] - from, CORPUS_SEED_MAX - at);

			memcpy(buf + at, corpus_seeds[s] + from, cnt);
			len = at + cnt;
			break;
		}
		}
	}
	return len;
}

/**
 * corpus_replay() - Test case: every seed of @dir through a harness once
 * @dir:	Corpus directory (its seeds stay loaded for corpus_mutations())
 * @one:	The harness, LLVMFuzzerTestOneInput()
 * @after:	Further checks after each input (CHECK()s), or NULL
 *
 * The first seed runs once before counting descriptors, so that the
 * harness's own set-up is not taken for a leak.
 *
 * Context: inside RUN(); skips the case when @dir has no seeds
 */
static inline void corpus_replay(const char *dir,
				 int (*one)(const uint8_t *, size_t),
				 void (*after)(void))
{
	unsigned int i;
	int before;

	if (!corpus_load(dir))
		SKIP("no seeds in %s (run from the repository root)", dir);
	one(corpus_seeds[0], corpus_len[0]);	/* harness set-up */
	before = test_count_fds();
	for (i = 0; i < corpus_n; i++) {
		one(corpus_seeds[i], corpus_len[i]);
		CHECK_EQ(test_count_fds(), before);
		if (after) {
			after();
			if (t_case_failed)
				return;
		}
	}
}

/**
 * corpus_mutations() - Test case: @count mutations of the loaded seeds
 * @dir:	Corpus directory corpus_replay() loaded (named when it had none)
 * @count:	Inputs to run
 * @one:	The harness, LLVMFuzzerTestOneInput()
 *
 * Context: inside RUN(), after corpus_replay(); skips the case without seeds
 */
static inline void corpus_mutations(const char *dir, unsigned int count,
				    int (*one)(const uint8_t *, size_t))
{
	static uint8_t buf[CORPUS_SEED_MAX];
	unsigned int i;
	int before;

	if (!corpus_n)
		SKIP("no seeds in %s", dir);
	before = test_count_fds();
	for (i = 0; i < count; i++) {
		unsigned int s = (unsigned int)(corpus_rng() % corpus_n);
		size_t len;

		memcpy(buf, corpus_seeds[s], corpus_len[s]);
		len = corpus_mutate(buf, corpus_len[s]);
		one(buf, len);
		if (test_count_fds() != before) {
			fprintf(stderr, "  fd leak after mutation %u\n", i);
			CHECK_EQ(test_count_fds(), before);
		}
	}
}

#endif /* VNET_CORPUS_UTIL_H */
