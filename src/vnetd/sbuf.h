/* SPDX-License-Identifier: MIT */
/*
 * sbuf.h - a growing text buffer for replies (sbuf.c)
 */
#ifndef VNETD_SBUF_H
#define VNETD_SBUF_H

#include <stdbool.h>
#include <stddef.h>

/**
 * struct sbuf - A growing text buffer for replies (control path only)
 * @s:		Text, NUL-terminated, or NULL before the first write
 * @len:	Bytes used
 * @cap:	Bytes allocated
 * @oom:	An allocation failed: the text is truncated
 */
struct sbuf {
	char *s;
	size_t len;
	size_t cap;
	bool oom;
};

void sbuf_printf(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sbuf_free(struct sbuf *b);
void sbuf_quote(struct sbuf *b, const char *s, bool prom);

#endif /* VNETD_SBUF_H */
