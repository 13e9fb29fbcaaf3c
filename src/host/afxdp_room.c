// SPDX-License-Identifier: MIT
/*
 * afxdp_room.c - the xdp-txmd= request key of `port add` (afxdp_room.h):
 * taken off the spec by vnetd, recognised in an older vnetd's refusal by
 * vnetctl. Strings only; and the one registration of a UMEM with the room
 * that both vnetd and vnetctl make.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if_xdp.h>

#include "afxdp_layout.h"
#include "afxdp_room.h"
#include "xsk_txmd.h"

/*
 * The value of the key token @tok (@n bytes, "xdp-txmd" then '=' or its
 * end) into @room: XSK_TXMD_LEN or 0, once. Return: 0 or -EINVAL, @why set
 */
static int afxdp_room_value(const char *tok, size_t n, bool seen,
			    unsigned int *room, struct reason *why)
{
	size_t klen = strlen(AFXDP_ROOM_KEY);
	unsigned long val;
	char v[16], *end;

	if (n <= klen + 1)
		return reason_set(why, -EINVAL, "%s: needs a value (%s=%u: the passed UMEMs have %u bytes of TX metadata room; vnetctl port add adds it)",
				  AFXDP_ROOM_KEY, AFXDP_ROOM_KEY,
				  (unsigned int)XSK_TXMD_LEN, (unsigned int)XSK_TXMD_LEN);
	n -= klen + 1;
	snprintf(v, sizeof(v), "%.*s", (int)n, tok + klen + 1);
	if (seen)
		return reason_set(why, -EINVAL, "%s=%s: given twice (give it once)",
				  AFXDP_ROOM_KEY, v);
	errno = 0;
	val = strtoul(v, &end, 10);
	if (errno || v[0] < '0' || v[0] > '9' || *end || n >= sizeof(v) ||
	    (val && val != XSK_TXMD_LEN))
		return reason_set(why, -EINVAL, "%s=%s: this vnetd takes UMEMs with %u bytes of TX metadata room or none (0): register the UMEMs so (a vnetctl of the same version does)",
				  AFXDP_ROOM_KEY, v, (unsigned int)XSK_TXMD_LEN);
	*room = (unsigned int)val;
	return 0;
}

/**
 * afxdp_room_take() - Take the xdp-txmd= key off a `port add` spec
 * @spec:	The comma-separated spec; the key's token is removed in place,
 *		the other tokens stay as they were
 * @room:	Out: its bytes of TX metadata room (XSK_TXMD_LEN), 0 when
 *		the key is absent or 0
 * @why:	A bad value or the key twice
 *
 * Return: 0, or -EINVAL with @why set (@spec then undefined)
 */
int afxdp_room_take(char *spec, unsigned int *room, struct reason *why)
{
	size_t klen = strlen(AFXDP_ROOM_KEY), n;
	char *r = spec, *w = spec, *end;
	bool seen = false, any = false;
	int ret;

	*room = 0;
	while (*r) {
		end = strchrnul(r, ',');
		n = (size_t)(end - r);
		if (n >= klen && !strncmp(r, AFXDP_ROOM_KEY, klen) &&
		    (n == klen || r[klen] == '=')) {
			ret = afxdp_room_value(r, n, seen, room, why);
			if (ret)
				return ret;
			seen = true;
		} else {
			if (any)
				*w++ = ',';
			memmove(w, r, n);
			w += n;
			any = true;
		}
		r = *end ? end + 1 : end;
	}
	*w = '\0';
	return 0;
}

/**
 * afxdp_room_refused() - Is @reply an older vnetd refusing xdp-txmd=?
 * @reply:	vnetd's reply to `port add`
 *
 * Such a vnetd parses the whole request as a port spec and names the key
 * it does not know: "error: port add 'xdp-txmd': unknown key (...)".
 *
 * Return: true if so (the request changed nothing)
 */
bool afxdp_room_refused(const char *reply)
{
	return !strncmp(reply, "error: port add", 15) &&
	       strstr(reply, "'" AFXDP_ROOM_KEY "': unknown key");
}

/**
 * afxdp_room_sw_csum() - Whether the kernel is to fill requested checksums
 *			  in software (XDP_UMEM_TX_SW_CSUM)
 *
 * A test switch: VNETD_XDP_TX_SW_CSUM set and not "0". A packet socket on a
 * veth peer sees CHECKSUM_PARTIAL frames unfilled, so the tests that check
 * the sums there ask the kernel to fill them.
 *
 * Return: true when the environment asks for it
 */
bool afxdp_room_sw_csum(void)
{
	const char *sw = getenv("VNETD_XDP_TX_SW_CSUM");

	return sw && sw[0] && strcmp(sw, "0");
}

/**
 * afxdp_room_reg() - Register a UMEM (afxdp_layout.h) with XSK_TXMD_LEN
 *		      bytes of TX metadata room on an AF_XDP socket
 * @sock:	AF_XDP socket, no UMEM yet
 * @area:	AFXDP_UMEM bytes, page aligned
 * @sw_csum:	Add XDP_UMEM_TX_SW_CSUM (afxdp_room_sw_csum())
 *
 * XDP_UMEM_TX_METADATA_LEN is required: 6.8 to 6.10 refuse it. They would
 * take the room without it, but so would a kernel before 6.8 take the
 * struct, reading the field as padding and then refusing every descriptor
 * with XDP_TX_METADATA. libxdp 1.3's xsk_umem__create() cannot register
 * the room, hence our own call.
 *
 * Return: 0, -EINVAL if the kernel refused the room (before 6.11: register
 *	   without it), other -errno
 */
int afxdp_room_reg(int sock, void *area, bool sw_csum)
{
	struct xsk_umem_reg_md mr = {
		.addr = (uint64_t)(uintptr_t)area,
		.len = AFXDP_UMEM,
		.chunk_size = AFXDP_CHUNK,
		.flags = XDP_UMEM_TX_METADATA_LEN |
			 (sw_csum ? XDP_UMEM_TX_SW_CSUM : 0),
		.tx_metadata_len = XSK_TXMD_LEN,
	};

	return setsockopt(sock, SOL_XDP, XDP_UMEM_REG, &mr, sizeof(mr)) ?
	       -errno : 0;
}
