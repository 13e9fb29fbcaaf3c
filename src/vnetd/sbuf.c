// SPDX-License-Identifier: MIT
/*
 * sbuf.c - a growing text buffer for the control path's replies (status,
 * metrics, port lists): appended to with printf formats, freed once sent.
 * Never on the per-frame path.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbuf.h"

/**
 * sbuf_printf() - Append formatted text, growing the buffer
 * @b:		Buffer
 * @fmt:	printf format
 *
 * On allocation failure sets @b->oom and drops the text.
 */
void sbuf_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	size_t need;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || b->oom)
		return;
	need = b->len + (size_t)n + 1;
	if (need > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap < need)
			cap *= 2;
		s = realloc(b->s, cap);
		if (!s) {
			b->oom = true;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/**
 * sbuf_free() - Release a buffer's memory
 * @b:		Buffer
 */
void sbuf_free(struct sbuf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

/**
 * sbuf_quote() - Append @s quoted for JSON (or, @prom, for a Prometheus
 *		  label value)
 * @b:		Output
 * @s:		Text
 * @prom:	Prometheus label value rules instead of JSON's
 */
void sbuf_quote(struct sbuf *b, const char *s, bool prom)
{
	const unsigned char *c;

	sbuf_printf(b, "\"");
	for (c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			sbuf_printf(b, "\\%c", *c);
		else if (*c == '\n')
			sbuf_printf(b, "\\n");
		else if (*c < 0x20 && !prom)
			sbuf_printf(b, "\\u%04x", *c);
		else if (*c < 0x20)
			sbuf_printf(b, " ");
		else
			sbuf_printf(b, "%c", *c);
	}
	sbuf_printf(b, "\"");
}
