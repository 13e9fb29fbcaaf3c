// SPDX-License-Identifier: MIT
/*
 * pair.c - the one writer of a queue pair's data-path status (which path
 * serves it, and why), read by status on the control thread. Everything
 * else in struct vnet_pair is plain data (pair.h).
 */
#include <stdarg.h>
#include <stdio.h>

#include "pair.h"

/**
 * vnet_pair_set_datapath() - Say which data path serves @p, and why
 * @p:		Pair
 * @dp:		VNET_DP_USER, VNET_DP_KERNEL or VNET_DP_IDLE
 * @fmt:	printf format of the one-line reason (cut to fit @p->why)
 *
 * Context: control thread (status readers run on it too); the store of
 * @dp is atomic for readers that only load the pointer.
 */
void vnet_pair_set_datapath(struct vnet_pair *p, const char *dp,
			    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->why, sizeof(p->why), fmt, ap);
	va_end(ap);
	__atomic_store_n(&p->datapath, dp, __ATOMIC_RELAXED);
}
