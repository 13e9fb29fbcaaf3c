// SPDX-License-Identifier: MIT
/*
 * switch_show.c - read a switch's MAC table for the control plane
 * (vnetctl switch show, metrics) while the workers learn: each entry is
 * read as the core reads it (switch.c: key, then port and time, then the
 * key again); an entry written, moved or removed meanwhile is skipped,
 * never shown half old, half new. Nothing here writes the table.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "switch.h"

/**
 * switch_now_s() - The switch's clock: seconds of CLOCK_MONOTONIC_COARSE,
 *		    the time the workers stamp entries with
 *
 * Return: seconds
 */
uint32_t switch_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint32_t)ts.tv_sec;
}

/**
 * switch_table_next() - The next live entry of a switch's MAC table
 * @sw:		Switch
 * @pos:	Cursor: 0 to start; advanced past the entry returned
 * @now:	switch_now_s(), for the entry's age
 * @out:	Output: the entry's MAC, VLAN, member slot and age
 *
 * Skips free entries, entries being written or removed, entries that
 * changed while being read and entries past the ageing time (a lookup
 * treats those as absent).
 *
 * Context: any thread (the control thread while workers learn)
 * Return: true with @out filled, false at the end of the table
 */
bool switch_table_next(const struct vswitch *sw, size_t *pos, uint32_t now,
		       struct sw_mac *out)
{
	size_t n = (size_t)sw->nbuckets * SW_WAYS;
	uint64_t key;
	uint32_t port, seen;
	unsigned int i;

	for (; *pos < n; (*pos)++) {
		struct sw_entry *e = &sw->table[*pos];

		key = atomic_load_explicit(&e->key, memory_order_acquire);
		if (!key)
			continue;
		port = atomic_load_explicit(&e->port, memory_order_acquire);
		seen = atomic_load_explicit(&e->seen, memory_order_relaxed);
		if (atomic_load_explicit(&e->key, memory_order_acquire) != key ||
		    !port || port > SW_MAX_MEMBERS)
			continue;	/* torn: being written, moved or freed */
		if (now - seen > sw->ageing_s && (int32_t)(now - seen) > 0)
			continue;	/* aged: a lookup misses it */
		for (i = 0; i < 6; i++)
			out->mac[i] = (uint8_t)(key >> (12 + 8 * (5 - i)));
		out->vlan = (uint16_t)(key & 0xfff);
		out->member = port - 1;
		out->age_s = (int32_t)(now - seen) > 0 ? now - seen : 0;
		(*pos)++;
		return true;
	}
	return false;
}
