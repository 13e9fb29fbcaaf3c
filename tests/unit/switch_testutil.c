// SPDX-License-Identifier: MIT
/*
 * switch_testutil.c - frames in and out of a learning switch's members
 * (switch_testutil.h), built once into build/libvnet-test.a.
 */
#include <errno.h>
#include <string.h>

#include "switch_testutil.h"

/**
 * test_sw_mac() - A locally administered station MAC
 * @mac:	MAC, filled in: 02:@tag then @n in the last four bytes
 * @tag:	Second byte, keeps one test's stations apart from another's
 * @n:		Station number
 */
void test_sw_mac(uint8_t mac[6], uint8_t tag, unsigned int n)
{
	mac[0] = 0x02;
	mac[1] = tag;
	mac[2] = (uint8_t)(n >> 24);
	mac[3] = (uint8_t)(n >> 16);
	mac[4] = (uint8_t)(n >> 8);
	mac[5] = (uint8_t)n;
}

/**
 * test_sw_frame() - Write a minimal IPv4-typed frame behind a vnet header
 * @f:		Buffer, at least TSW_HDR + 22 bytes
 * @dst:	Destination MAC
 * @src:	Source MAC
 * @vid:	802.1Q tag's VLAN, or -1 for an untagged frame
 * @seq:	The 4 payload bytes (host order)
 *
 * Zero vnet header, @dst, @src, [tag], type 0x0800, @seq.
 *
 * Return: the frame's bytes, vnet header included
 */
size_t test_sw_frame(uint8_t *f, const uint8_t *dst, const uint8_t *src,
		     int vid, uint32_t seq)
{
	size_t n = TSW_HDR;

	memset(f, 0, TSW_HDR);
	memcpy(f + n, dst, 6);
	memcpy(f + n + 6, src, 6);
	n += 12;
	if (vid >= 0) {
		f[n++] = 0x81;
		f[n++] = 0x00;
		f[n++] = (uint8_t)(vid >> 8);
		f[n++] = (uint8_t)vid;
	}
	f[n++] = 0x08;
	f[n++] = 0x00;
	memcpy(f + n, &seq, 4);
	return n + 4;
}

/**
 * test_sw_tx() - Send one test_sw_frame() from @m's pair 0 and flush it
 * @m:		Sending member
 * @dst:	Destination MAC
 * @src:	Source MAC
 * @vid:	VLAN tag, or -1
 * @seq:	Payload
 * @now:	Switch time (seconds)
 *
 * Return: what switch_tx() returned
 */
int test_sw_tx(struct sw_member *m, const uint8_t *dst, const uint8_t *src,
	       int vid, uint32_t seq, uint32_t now)
{
	uint8_t f[64];
	struct iovec iov = { f, test_sw_frame(f, dst, src, vid, seq) };
	int ret = switch_tx(m, 0, &iov, 1, TSW_HDR, now);

	switch_flush(m, 0);
	return ret;
}

/**
 * test_sw_rx() - Receive the next frame waiting for @m's pair 0
 * @m:		Receiving member
 * @buf:	Buffer, vnet header first
 * @size:	Its bytes
 *
 * Return: the frame's bytes, -EAGAIN if none waits, or what switch_rx()
 *	   returned
 */
int test_sw_rx(struct sw_member *m, uint8_t *buf, size_t size)
{
	struct iovec iov = { buf, size };

	if (!switch_rx_peek_len(m, 0, TSW_HDR))
		return -EAGAIN;
	return switch_rx(m, 0, &iov, 1, TSW_HDR);
}

/**
 * test_sw_rx_count() - Receive and count every frame waiting for @m
 * @m:		Receiving member
 * @buf:	Buffer the last frame is left in, or NULL for none kept
 * @size:	Its bytes (ignored when @buf is NULL: TSW_FRAME_MAX)
 *
 * Return: frames received, up to the first that failed
 */
int test_sw_rx_count(struct sw_member *m, uint8_t *buf, size_t size)
{
	uint8_t f[TSW_FRAME_MAX];
	int n = 0;

	if (!buf) {
		buf = f;
		size = sizeof(f);
	}
	while (test_sw_rx(m, buf, size) > 0)
		n++;
	return n;
}

/**
 * test_sw_join() - Join an access member of @vlan with one queue pair
 * @sw:		Switch
 * @vlan:	Access VLAN
 *
 * Return: the member, NULL if switch_join() refused
 */
struct sw_member *test_sw_join(struct vswitch *sw, uint16_t vlan)
{
	struct sw_vlans v;
	int err;

	memset(&v, 0, sizeof(v));
	v.access = vlan;
	return switch_join(sw, 1, &v, &err);
}

/**
 * test_sw_send_bcast() - Send @n broadcast frames from @m's pair 0
 * @m:		Sending member
 * @n:		Frames, flushed in bursts of 32
 *
 * A frame the policer drops (-EDQUOT) is not counted; any other error
 * ends the run.
 *
 * Return: frames passed, 0 on an error other than -EDQUOT
 */
unsigned int test_sw_send_bcast(struct sw_member *m, unsigned int n)
{
	uint8_t f[TSW_HDR + 60] = { 0 };
	struct iovec iov = { f, sizeof(f) };
	unsigned int i, passed = 0;
	int ret;

	memset(f + TSW_HDR, 0xff, 6);
	f[18] = 0x02;
	f[23] = 0x01;
	for (i = 0; i < n; i++) {
		ret = switch_tx(m, 0, &iov, 1, TSW_HDR, 1000);
		if (ret > 0)
			passed++;
		else if (ret != -EDQUOT)
			return 0;
		if (i % 32 == 31)
			switch_flush(m, 0);
	}
	switch_flush(m, 0);
	return passed;
}
