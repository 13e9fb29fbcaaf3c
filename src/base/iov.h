/* SPDX-License-Identifier: MIT */
/*
 * iov.h - the one copy between iovec arrays and flat buffers that every
 * layer uses: net.c, the hosts that hold frames in their own memory (gen,
 * loop, a tap RX batch), vnet-bench.
 */
#ifndef VNET_IOV_H
#define VNET_IOV_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

size_t iov_len(const struct iovec *iov, unsigned int cnt);
size_t iov_to_buf(const struct iovec *iov, unsigned int cnt, size_t off,
		  void *buf, size_t len);
size_t iov_from_buf(const struct iovec *iov, unsigned int cnt, size_t off,
		    const void *buf, size_t len);

/**
 * iov_fill() - iov_from_buf() at offset 0, inline: the per-frame copy of a
 *		frame a host holds in its own memory (gen, loop, a tap RX
 *		batch), where a call would cost 3 % of a frame
 * @iov:	Destination
 * @cnt:	Entries in @iov
 * @buf:	Source
 * @len:	Bytes to copy
 *
 * Return: bytes that did not fit, 0 if the whole of @len did
 */
static inline size_t iov_fill(const struct iovec *iov, unsigned int cnt,
			      const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t left = len, n;
	unsigned int i;

	for (i = 0; i < cnt && left; i++) {
		n = iov[i].iov_len < left ? iov[i].iov_len : left;
		memcpy(iov[i].iov_base, p, n);
		p += n;
		left -= n;
	}
	return left;
}

#endif /* VNET_IOV_H */
