/* SPDX-License-Identifier: MIT */
/*
 * fuzz_main.h - the main() of a libFuzzer harness built without libFuzzer
 * (-DFZ_STANDALONE): LLVMFuzzerTestOneInput() runs once on each file named
 * on the command line, at most FZ_MAIN_MAX bytes of it, in order; a file
 * that cannot be opened stops the run with exit 1. A harness that keeps
 * state across inputs defines FZ_MAIN_CLEANUP() to release it after the
 * last one, so that ASan's leak check sees a clean exit.
 *
 * Include it last, under #ifdef FZ_STANDALONE, after the harness's
 * LLVMFuzzerTestOneInput().
 */
#ifndef VNET_FUZZ_MAIN_H
#define VNET_FUZZ_MAIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifndef FZ_MAIN_MAX
#define FZ_MAIN_MAX	(1 << 16)
#endif

int main(int argc, char **argv)
{
	static uint8_t buf[FZ_MAIN_MAX];
	int i;

	for (i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		size_t n;

		if (!f) {
			perror(argv[i]);
			return 1;
		}
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, n);
	}
#ifdef FZ_MAIN_CLEANUP
	FZ_MAIN_CLEANUP();
#endif
	return 0;
}

#endif /* VNET_FUZZ_MAIN_H */
