// SPDX-License-Identifier: MIT
/*
 * tcpseg_testutil.c - a TCP flow's wire frames for the GRO tests
 * (tcpseg_testutil.h). The checksums come from a reference sum of its own,
 * one big-endian word at a time, not from gso.c, so a test of gro.c or
 * gso.c does not check them against themselves.
 */
#include <string.h>

#include "tcpseg_testutil.h"

/**
 * tcpseg_ref_sum() - The plain RFC 1071 sum, one big-endian word at a
 * time, folded: the reference the code under test is checked against
 * @s:		Sum so far (folded or not)
 * @p:		Bytes
 * @n:		Their number (an odd last byte is padded with zero)
 *
 * Return: the folded 16-bit sum (not complemented)
 */
uint32_t tcpseg_ref_sum(uint32_t s, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i += 2)
		s += (uint32_t)p[i] << 8 | (i + 1 < n ? p[i + 1] : 0);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

/* Store the complement of @s at @p, 0 as 0xffff (as gso.c sends it) */
static void ref_store(uint8_t *p, uint32_t s)
{
	uint16_t c = (uint16_t)~s;

	if (!c)
		c = 0xffff;
	p[0] = (uint8_t)(c >> 8);
	p[1] = (uint8_t)c;
}

/**
 * tcpseg_byte() - The payload byte at stream offset @seq
 * @seq:	Sequence number of the byte
 *
 * Return: the byte: every segment of a stream carries its own bytes
 */
uint8_t tcpseg_byte(uint32_t seq)
{
	return (uint8_t)(seq * 13 + (seq >> 8) + 5);
}

/**
 * tcpseg_l3() - Offset of the IP header of a frame tcpseg_build() made
 * @frame:	The frame
 *
 * Return: 14 or 18
 */
size_t tcpseg_l3(const uint8_t *frame)
{
	return frame[12] == 0x81 ? 18 : 14;
}

/**
 * tcpseg_l4() - Offset of the TCP header of a frame tcpseg_build() made
 * @frame:	The frame
 *
 * Return: bytes
 */
size_t tcpseg_l4(const uint8_t *frame)
{
	size_t l3 = tcpseg_l3(frame);

	return frame[l3] >> 4 == 6 ? l3 + 40 : l3 + (frame[l3] & 0xfu) * 4;
}

/**
 * tcpseg_hlen() - Header bytes of a frame tcpseg_build() made
 * @frame:	The frame
 *
 * Return: Ethernet to the end of the TCP options
 */
size_t tcpseg_hlen(const uint8_t *frame)
{
	size_t l4 = tcpseg_l4(frame);

	return l4 + (frame[l4 + 12] >> 4) * 4u;
}

/**
 * tcpseg_fix() - Set the IP length, IPv4 header checksum and TCP checksum
 * @frame:	The frame, after an edit
 * @len:	Its bytes
 */
void tcpseg_fix(uint8_t *frame, size_t len)
{
	size_t l3 = tcpseg_l3(frame), l4 = tcpseg_l4(frame);
	uint8_t *ip = frame + l3, *th = frame + l4;
	uint32_t l4len = (uint32_t)(len - l4), s;
	bool v6 = ip[0] >> 4 == 6;

	if (v6) {
		ip[4] = (uint8_t)((len - l3 - 40) >> 8);
		ip[5] = (uint8_t)(len - l3 - 40);
		s = tcpseg_ref_sum(0, ip + 8, 32);
	} else {
		ip[2] = (uint8_t)((len - l3) >> 8);
		ip[3] = (uint8_t)(len - l3);
		ip[10] = ip[11] = 0;
		ref_store(ip + 10, tcpseg_ref_sum(0, ip, l4 - l3));
		s = tcpseg_ref_sum(0, ip + 12, 8);
	}
	s += 6 + (l4len >> 16) + (l4len & 0xffff);
	th[16] = th[17] = 0;
	ref_store(th + 16, tcpseg_ref_sum(s, th, l4len));
}

/**
 * tcpseg_csum_ok() - Are the IPv4 header and TCP checksums of @frame right?
 * @frame:	The frame
 * @len:	Its bytes
 *
 * Return: true if both are (IPv6: the TCP one)
 */
bool tcpseg_csum_ok(const uint8_t *frame, size_t len)
{
	size_t l3 = tcpseg_l3(frame), l4 = tcpseg_l4(frame);
	const uint8_t *ip = frame + l3;
	uint32_t l4len = (uint32_t)(len - l4), s;

	if (ip[0] >> 4 == 6) {
		s = tcpseg_ref_sum(0, ip + 8, 32);
	} else {
		if (tcpseg_ref_sum(0, ip, l4 - l3) != 0xffff)
			return false;
		s = tcpseg_ref_sum(0, ip + 12, 8);
	}
	s += 6 + (l4len >> 16) + (l4len & 0xffff);
	return tcpseg_ref_sum(s, frame + l4, l4len) == 0xffff;
}

/**
 * tcpseg_build() - Write one segment of flow @f
 * @buf:	Destination, TCPSEG_HDR_MAX + @plen bytes
 * @f:		The flow
 * @seq:	Sequence number; the payload is the stream's bytes from it
 * @id:		IPv4 id
 * @flags:	TCP flags (TCPSEG_*)
 * @plen:	Payload bytes
 *
 * Addresses 10.0.0.1 -> 10.0.0.2 (or 2001:db8::1 -> 2001:db8::2), ports
 * 5201 -> 40000, ack 0x01020304, window 0x1f00, timestamps 0x11223344 /
 * 0x55667788; every checksum right.
 *
 * Return: the frame's bytes
 */
size_t tcpseg_build(uint8_t *buf, const struct tcpseg_flow *f, uint32_t seq,
		    uint16_t id, uint8_t flags, size_t plen)
{
	static const uint8_t tsopt[12] = { 1, 1, 8, 10, 0x11, 0x22, 0x33, 0x44,
					   0x55, 0x66, 0x77, 0x88 };
	size_t l3 = f->vlan ? 18 : 14, ihl = f->v6 ? 40 : 20u + f->ipopt;
	size_t l4 = l3 + ihl, th = f->ts ? 32 : 20, len = l4 + th + plen, i;
	uint8_t *ip = buf + l3, *t = buf + l4;

	memset(buf, 0, l4 + th);
	memcpy(buf, "\x52\x54\x00\x12\x34\x56\x02\x00\x00\x00\x00\x01", 12);
	if (f->vlan)
		memcpy(buf + 12, "\x81\x00\x00\x2a", 4);
	buf[l3 - 2] = f->v6 ? 0x86 : 0x08;
	buf[l3 - 1] = f->v6 ? 0xdd : 0x00;
	if (f->v6) {
		ip[0] = 0x60;
		ip[1] = 0x01;		/* a flow label */
		ip[6] = 6;
		ip[7] = f->ttl;
		memcpy(ip + 8, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
		memcpy(ip + 24, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x02", 16);
	} else {
		ip[0] = (uint8_t)(0x40 | ihl / 4);
		ip[4] = (uint8_t)(id >> 8);
		ip[5] = (uint8_t)id;
		ip[6] = f->df ? 0x40 : 0;
		ip[8] = f->ttl;
		ip[9] = 6;
		memcpy(ip + 12, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
		for (i = 20; i < ihl; i++)
			ip[i] = 1;	/* NOP options */
	}
	memcpy(t, "\x14\x51\x9c\x40", 4);
	t[4] = (uint8_t)(seq >> 24);
	t[5] = (uint8_t)(seq >> 16);
	t[6] = (uint8_t)(seq >> 8);
	t[7] = (uint8_t)seq;
	memcpy(t + 8, "\x01\x02\x03\x04", 4);
	t[12] = (uint8_t)((th / 4) << 4);
	t[13] = flags;
	t[14] = 0x1f;
	if (f->ts)
		memcpy(t + 20, tsopt, sizeof(tsopt));
	for (i = 0; i < plen; i++)
		buf[l4 + th + i] = tcpseg_byte(seq + (uint32_t)i);
	tcpseg_fix(buf, len);
	return len;
}

/**
 * tcpseg_complete() - Complete a partial checksum as a guest or NIC would
 * @frame:	The frame (virtio 1.x 5.1.6.2: the field holds the
 *		pseudo-header sum)
 * @len:	Its bytes
 * @start:	csum_start
 * @off:	csum_offset
 */
void tcpseg_complete(uint8_t *frame, size_t len, size_t start, size_t off)
{
	uint16_t c = (uint16_t)~tcpseg_ref_sum(0, frame + start, len - start);

	frame[start + off] = (uint8_t)(c >> 8);
	frame[start + off + 1] = (uint8_t)c;
}
