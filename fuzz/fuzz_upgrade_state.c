// SPDX-License-Identifier: MIT
/*
 * fuzz_upgrade_state.c - libFuzzer harness for the state a new vnetd reads
 * from the old one on `vnetctl upgrade` (upgrade_state_decode()): arbitrary
 * bytes, with as many (fake, -1) descriptors as their header announces so
 * the fuzzer gets past the count check. Invariants: no crash; a state that
 * decodes re-encodes into one that decodes again, with the same ports.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "upgrade_state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct upgrade_state st, st2;
static uint8_t out[1 << 21];

static int fz_decode(struct upgrade_state *s, const uint8_t *p, size_t n)
{
	struct reason why;
	uint32_t body, nfds, i;

	upgrade_state_init(s);
	if (n >= UPGRADE_HDR_LEN &&
	    !upgrade_state_header(p, n, &body, &nfds, &why)) {
		s->nfds = nfds;
		for (i = 0; i < nfds; i++)
			s->fds[i] = -1;
	}
	return upgrade_state_decode(s, p, n, &why);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t len;
	uint32_t i;

	if (fz_decode(&st, data, size))
		return 0;
	if (upgrade_state_encode(&st, out, sizeof(out), &len) ||
	    fz_decode(&st2, out, len) || st2.nports != st.nports)
		__builtin_trap();
	for (i = 0; i < st.nports; i++)
		if (strcmp(st.ports[i].name, st2.ports[i].name) ||
		    st.ports[i].queues != st2.ports[i].queues)
			__builtin_trap();
	return 0;
}
