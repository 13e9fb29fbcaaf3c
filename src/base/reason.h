/* SPDX-License-Identifier: MIT */
/*
 * reason.h - the one shape in which a failure's reason travels: a short
 * sentence for an operator (what failed, the value, what to do), kept next
 * to the -errno it explains. Every layer that can fail for a reason a
 * person must read fills a struct reason: ring breaks, vhost-user device
 * failures, frontend errors, host-side open failures, plan errors.
 */
#ifndef VNET_REASON_H
#define VNET_REASON_H

#include "util.h"

/*
 * The longest sentence any layer writes: provision's and plan's diagnoses
 * quote an operator's input and the kernel's answer, reload wraps a port's
 * reason in its own; 512 is what their caller buffers held before.
 */
#define REASON_LEN	512

/**
 * struct reason - Why the last operation failed
 * @err:	-errno of the failure, 0 if none recorded
 * @msg:	One line, no trailing newline ("" if none)
 */
struct reason {
	int err;
	char msg[REASON_LEN];
};

int reason_set(struct reason *r, int err, const char *fmt, ...) PRINTF_FMT(3, 4);
void reason_clear(struct reason *r);

#endif /* VNET_REASON_H */
