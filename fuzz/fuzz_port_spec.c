// SPDX-License-Identifier: MIT
/*
 * fuzz_port_spec.c - libFuzzer harness for the one parser of a port's
 * settings (src/vnetd/port_spec.c: cli_port_parse() then cli_port_check()), the
 * text a local client sends in a control-socket `port add KEY=VAL,...`
 * request, and also --port and config file lines. Input: byte 0 picks the
 * separators ("," as --port and port add, ", \t" as a config line), the
 * rest up to the first NUL is the spec. Invariants: no crash, no read past
 * the text; a refusal returns -EINVAL (or -EEXIST) with a one-line reason
 * whose error matches; an accepted spec is within every bound vnetd relies
 * on (queues 1..VNET_MAX_PAIRS, names and paths NUL-terminated, one of
 * socket or fd, tap fds at most one per pair, a unicast MAC).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_target.h"
#include "port_spec.h"

static void fz_check_reason(const struct reason *why, int ret)
{
	if (why->err != ret || !why->msg[0] || strchr(why->msg, '\n') ||
	    strlen(why->msg) >= sizeof(why->msg))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[CLI_SPEC_MAX + 64];
	struct vnetd_port_cfg tmpl, pc;
	struct reason why;
	const char *delims;
	size_t n;
	int ret;

	if (size < 1)
		return 0;
	delims = data[0] & 1 ? ", \t" : ",";
	n = size - 1;
	if (n >= sizeof(text))
		n = sizeof(text) - 1;
	memcpy(text, data + 1, n);
	text[n] = '\0';		/* up to the first NUL, as a request line */
	cli_port_defaults(&tmpl);	/* the template, as without options */
	reason_clear(&why);
	ret = cli_port_parse(&pc, &tmpl, text, delims, &why);
	if (ret) {
		if (ret != -EINVAL)
			abort();
		fz_check_reason(&why, ret);
		return 0;
	}
	reason_clear(&why);
	ret = cli_port_check(&pc, data[0] >> 1 & 63, &why);
	if (ret) {
		if (ret != -EINVAL)
			abort();
		fz_check_reason(&why, ret);
		return 0;
	}
	if (pc.queues < 1 || pc.queues > VNET_MAX_PAIRS ||
	    pc.ntap_fds > pc.queues || (pc.ntap_fds && pc.ntap_fds != pc.queues) ||
	    !memchr(pc.name, 0, sizeof(pc.name)) || !pc.name[0] ||
	    !memchr(pc.socket, 0, sizeof(pc.socket)) ||
	    !memchr(pc.backend, 0, sizeof(pc.backend)) ||
	    !memchr(pc.tap, 0, sizeof(pc.tap)) ||
	    (!pc.socket[0]) == (pc.fd < 0) || (pc.mac[0] & 1) ||
	    pc.wopts.nthreads > pc.queues)
		abort();
	return 0;
}

#ifdef FZ_STANDALONE
#include "fuzz_main.h"
#endif
