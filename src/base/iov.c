// SPDX-License-Identifier: MIT
/*
 * iov.c - the one copy between iovec arrays and flat buffers (iov.h).
 */
#include <stdint.h>
#include <string.h>

#include "iov.h"
#include "util.h"

/**
 * iov_len() - Total bytes of an iovec array
 * @iov:	Array
 * @cnt:	Entries
 *
 * Return: sum of the lengths
 */
size_t iov_len(const struct iovec *iov, unsigned int cnt)
{
	size_t n = 0;
	unsigned int i;

	for (i = 0; i < cnt; i++)
		n += iov[i].iov_len;
	return n;
}

/**
 * iov_to_buf() - Copy bytes out of an iovec array
 * @iov:	Source
 * @cnt:	Entries in @iov
 * @off:	Offset into the iovec data to start at
 * @buf:	Destination
 * @len:	Bytes wanted
 *
 * Return: bytes copied (less than @len if the iovecs end first)
 */
size_t iov_to_buf(const struct iovec *iov, unsigned int cnt, size_t off,
		  void *buf, size_t len)
{
	size_t done = 0, n;
	unsigned int i;

	for (i = 0; i < cnt && done < len; i++) {
		if (off >= iov[i].iov_len) {
			off -= iov[i].iov_len;
			continue;
		}
		n = MIN(iov[i].iov_len - off, len - done);
		memcpy((uint8_t *)buf + done, (const uint8_t *)iov[i].iov_base + off, n);
		done += n;
		off = 0;
	}
	return done;
}

/**
 * iov_from_buf() - Copy bytes into an iovec array
 * @iov:	Destination
 * @cnt:	Entries in @iov
 * @off:	Offset into the iovec data to start at
 * @buf:	Source
 * @len:	Bytes to copy
 *
 * Return: bytes copied (less than @len if the iovecs end first)
 */
size_t iov_from_buf(const struct iovec *iov, unsigned int cnt, size_t off,
		    const void *buf, size_t len)
{
	size_t done = 0, n;
	unsigned int i;

	for (i = 0; i < cnt && done < len; i++) {
		if (off >= iov[i].iov_len) {
			off -= iov[i].iov_len;
			continue;
		}
		n = MIN(iov[i].iov_len - off, len - done);
		memcpy((uint8_t *)iov[i].iov_base + off, (const uint8_t *)buf + done, n);
		done += n;
		off = 0;
	}
	return done;
}
