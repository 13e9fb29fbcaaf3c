// SPDX-License-Identifier: MIT
/*
 * host.c - the table of host sides: --backend NAME resolves
 * here. Each host lives in its own host_*.c file and adds one line below.
 */
#include <string.h>

#include "host.h"
#include "host_priv.h"
#include "util.h"

static const struct host_ops *const host_table[] = {
	&host_tap_ops,
	&host_null_ops,
	&host_loop_ops,
	&host_gen_ops,
	&host_switch_ops,
#ifdef VNET_HAVE_LIBXDP
	&host_afxdp_ops,
#endif
};

/**
 * host_find() - Look a host up by the name --backend takes
 * @name:	Host side name, e.g. "tap"
 *
 * Return: its ops, NULL if no host has that name
 */
const struct host_ops *host_find(const char *name)
{
	unsigned int i;

	if (!name)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(host_table); i++)
		if (!strcmp(host_table[i]->name, name))
			return host_table[i];
	return NULL;
}

/**
 * host_names() - Every host name, for --help and error messages
 *
 * Context: main thread (fills a static buffer on first use)
 * Return: static string, names separated by ", "
 */
const char *host_names(void)
{
	static char names[128];
	size_t off = 0, n;
	unsigned int i;

	if (names[0])
		return names;
	for (i = 0; i < ARRAY_SIZE(host_table); i++) {
		n = strlen(host_table[i]->name);
		if (off + n + 3 > sizeof(names))
			break;
		if (i) {
			memcpy(names + off, ", ", 2);
			off += 2;
		}
		memcpy(names + off, host_table[i]->name, n);
		off += n;
	}
	names[off] = '\0';
	return names;
}
