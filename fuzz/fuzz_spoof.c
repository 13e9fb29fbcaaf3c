// SPDX-License-Identifier: MIT
/*
 * fuzz_spoof.c - libFuzzer harness for the anti-spoofing policy: the
 * --allow-ip list parser (operator text) and the frame check (guest bytes).
 * Input: byte 0 picks the separator and --mac-lock, then a list up to the
 * first NUL, then a frame. Invariants: no crash or out-of-bounds read (the
 * frame is passed at its exact length), the lists stay within their
 * bounds, and a parsed policy always compiles to a tc program or is
 * refused as too long.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spoof.h"
#include "spoof_tc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
	static struct sock_filter prog[SPOOF_TC_MAX_INSNS];
	struct spoof_policy p;
	const uint8_t *nul;
	char list[256];
	size_t n;
	int ret;

	if (size < 1)
		return 0;
	memset(&p, 0, sizeof(p));
	p.mac_lock = data[0] & 1;
	nul = memchr(data + 1, 0, size - 1);
	n = nul ? (size_t)(nul - data - 1) : size - 1;
	if (n >= sizeof(list))
		n = sizeof(list) - 1;
	memcpy(list, data + 1, n);
	list[n] = '\0';
	if (n)
		(void)spoof_parse_list(&p, list, data[0] & 2 ? ':' : ',');
	if (p.n4 > SPOOF_MAX_PREFIXES || p.n6 > SPOOF_MAX_PREFIXES)
		abort();
	spoof_finish(&p, mac);
	if (!spoof_active(&p))
		return 0;
	ret = spoof_tc_prog(&p, prog, SPOOF_TC_MAX_INSNS);
	if (ret < 0 && ret != -E2BIG)
		abort();
	if (nul) {
		size_t off = (size_t)(nul - data) + 1, len = size - off;
		uint8_t *f = malloc(len ? len : 1);

		if (!f)
			return 0;
		memcpy(f, data + off, len);	/* exact length: ASan sees overreads */
		(void)spoof_frame_ok(&p, f, len);
		free(f);
	}
	return 0;
}
