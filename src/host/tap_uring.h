/* SPDX-License-Identifier: MIT */
/*
 * tap_uring.h - batched TAP I/O: one restricted io_uring per data path
 * thread that writes a burst of frames as independent IORING_OP_WRITEV
 * requests, or reads a batch of them as IORING_OP_READ requests, with one
 * io_uring_enter(). Built with liburing when pkg-config finds it
 * (VNET_HAVE_LIBURING); without it every call says -EOPNOTSUPP and the TAP
 * is written and read with one writev()/readv() per frame, as before.
 */
#ifndef VNET_TAP_URING_H
#define VNET_TAP_URING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "reason.h"

#define TAP_URING_ENTRIES	64	/* SQ size: a TX burst or an RX fill */

/**
 * enum tap_io - How frames are written into and read from a TAP (--tap-io)
 * @TAP_IO_AUTO:	io_uring where the kernel and sandbox allow it, else writev
 * @TAP_IO_URING:	io_uring or fail start-up
 * @TAP_IO_WRITEV:	one writev() per frame
 */
enum tap_io {
	TAP_IO_AUTO,
	TAP_IO_URING,
	TAP_IO_WRITEV,
};

struct tap_uring;

int tap_io_parse(const char *s, enum tap_io *out);
const char *tap_io_name(enum tap_io io);
int tap_uring_select(enum tap_io mode, struct reason *why);
enum tap_io tap_uring_mode(void);
int tap_uring_create(struct tap_uring **up, struct reason *why);
void tap_uring_destroy(struct tap_uring *u);
int tap_uring_writev(struct tap_uring *u, int fd, struct iovec *const *iov,
		     const unsigned int *cnt, unsigned int n, int *res);
int tap_uring_read(struct tap_uring *u, int fd, uint8_t *base, size_t stride,
		   size_t len, unsigned int n, int *res);
/* For the unit test of the restrictions only */
int tap_uring_try(struct tap_uring *u, unsigned int opcode,
		  unsigned int sqe_flags);
int tap_uring_try_register(struct tap_uring *u);

#endif /* VNET_TAP_URING_H */
