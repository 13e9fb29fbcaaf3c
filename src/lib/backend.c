// SPDX-License-Identifier: MIT
/*
 * backend.c - the table of host-side backends: --backend NAME resolves
 * here. Each backend lives in its own be_*.c file and adds one line below.
 */
#include <string.h>

#include "backend.h"
#include "be_priv.h"
#include "util.h"

static const struct backend_ops *const backend_table[] = {
	&be_tap_ops,
	&be_null_ops,
	&be_loop_ops,
	&be_gen_ops,
};

/**
 * backend_find() - Look a backend up by the name --backend takes
 * @name:	Backend name, e.g. "tap"
 *
 * Return: its ops, NULL if no backend has that name
 */
const struct backend_ops *backend_find(const char *name)
{
	unsigned int i;

	if (!name)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(backend_table); i++)
		if (!strcmp(backend_table[i]->name, name))
			return backend_table[i];
	return NULL;
}

/**
 * backend_names() - Every backend name, for --help and error messages
 *
 * Context: main thread (fills a static buffer on first use)
 * Return: static string, names separated by ", "
 */
const char *backend_names(void)
{
	static char names[128];
	size_t off = 0, n;
	unsigned int i;

	if (names[0])
		return names;
	for (i = 0; i < ARRAY_SIZE(backend_table); i++) {
		n = strlen(backend_table[i]->name);
		if (off + n + 3 > sizeof(names))
			break;
		if (i) {
			memcpy(names + off, ", ", 2);
			off += 2;
		}
		memcpy(names + off, backend_table[i]->name, n);
		off += n;
	}
	names[off] = '\0';
	return names;
}
