// SPDX-License-Identifier: MIT
/*
 * vring_drv.c - what the driver side's two layouts share: breaking the
 * queue when the device returns what it may not. Below vring_split_drv.c
 * and vring_packed_drv.c (as vq_chain.c is below the device side's
 * layouts); it calls nothing above it.
 *
 * Security model: the reason quotes values the device wrote (ids,
 * indices), formatted into a bounded buffer; nothing here reads the ring.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "vring_drv.h"

/**
 * vring_drv_break() - Mark a driver-side queue broken by a device fault
 * @vq:		Virtqueue (driver side)
 * @fmt:	One-line reason, printf format
 *
 * The first reason is kept (in vq->reason, read by vq_drv_broken_reason())
 * until vq_drv_reset(); later breaks only return.
 *
 * Return: -EBADMSG, for the caller to return
 */
int vring_drv_break(struct vq_drv *vq, const char *fmt, ...)
{
	char msg[REASON_LEN];
	va_list ap;

	if (!vq->broken) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		reason_set(&vq->reason, -EBADMSG, "%s", msg);
		vq->broken = true;
		vq->stats.breaks++;
	}
	return -EBADMSG;
}
