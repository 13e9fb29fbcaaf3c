/* SPDX-License-Identifier: MIT */
/*
 * reason.c - record why an operation failed (reason.h).
 */
#include <stdarg.h>
#include <stdio.h>

#include "reason.h"

/**
 * reason_set() - Record a failure and its reason
 * @r:		Where to record it (may be NULL: only @err is returned)
 * @err:	-errno to return (a positive value is negated)
 * @fmt:	printf format of one line for an operator
 *
 * Reasons quote what a peer or an operator sent (a key, a value, a path):
 * control characters in it are replaced with '?', so the reason stays one
 * line in a log or a reply whatever was quoted.
 *
 * Return: @err as a negative errno, so callers can `return reason_set(...)`
 */
int reason_set(struct reason *r, int err, const char *fmt, ...)
{
	va_list ap;
	char *p;

	if (err > 0)
		err = -err;
	if (!r)
		return err;
	r->err = err;
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	for (p = r->msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return err;
}

/**
 * reason_clear() - Forget a recorded failure
 * @r:	Reason to clear
 */
void reason_clear(struct reason *r)
{
	r->err = 0;
	r->msg[0] = '\0';
}
