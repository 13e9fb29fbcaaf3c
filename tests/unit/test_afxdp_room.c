// SPDX-License-Identifier: MIT
/*
 * test_afxdp_room.c - the xdp-txmd= request key of `port add`
 * (afxdp_room.c): vnetd takes it off the spec wherever it stands and
 * leaves every other token as it was (the rest is parsed as a port spec
 * and kept for the hand-over), takes only 0 and XSK_TXMD_LEN, once; a
 * key that merely starts with its name is not it; vnetctl recognises an
 * older vnetd's refusal of the key, and only that.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "afxdp_room.h"
#include "testlib.h"
#include "xsk_txmd.h"

/* Take the key off @in. Return: its result (1: a refusal without a
 * reason, or a reason without a refusal); @out gets the rest */
static int take(const char *in, char *out, size_t len, unsigned int *room)
{
	struct reason why = { 0 };
	int ret;

	snprintf(out, len, "%s", in);
	ret = afxdp_room_take(out, room, &why);
	return !!why.msg[0] == (ret != 0) ? ret : 1;
}

static void test_room_taken(void)
{
	char s[256];
	unsigned int room;

	CHECK_EQ(take("name=a,xdp-txmd=16,socket=/s,backend=af_xdp", s, sizeof(s), &room), 0);
	CHECK_EQ(room, XSK_TXMD_LEN);
	CHECK(!strcmp(s, "name=a,socket=/s,backend=af_xdp"));
	CHECK_EQ(take("xdp-txmd=16,name=a", s, sizeof(s), &room), 0);
	CHECK(!strcmp(s, "name=a"));
	CHECK_EQ(room, 16);
	CHECK_EQ(take("name=a,queues=2,xdp-txmd=16", s, sizeof(s), &room), 0);
	CHECK(!strcmp(s, "name=a,queues=2"));
	CHECK_EQ(take("name=a,xdp-txmd=0", s, sizeof(s), &room), 0);
	CHECK_EQ(room, 0);
	CHECK(!strcmp(s, "name=a"));
	CHECK_EQ(take("xdp-txmd=16", s, sizeof(s), &room), 0);
	CHECK(!strcmp(s, ""));
}

static void test_room_absent(void)
{
	char s[256];
	unsigned int room = 7;

	CHECK_EQ(take("name=a,socket=/s,xdp-if=xa,xdp-queue=1", s, sizeof(s), &room), 0);
	CHECK_EQ(room, 0);
	CHECK(!strcmp(s, "name=a,socket=/s,xdp-if=xa,xdp-queue=1"));
	/* only the key itself: a longer name is the port spec's business */
	CHECK_EQ(take("xdp-txmdx=16,name=a", s, sizeof(s), &room), 0);
	CHECK_EQ(room, 0);
	CHECK(!strcmp(s, "xdp-txmdx=16,name=a"));
	CHECK_EQ(take("", s, sizeof(s), &room), 0);
	CHECK(!strcmp(s, ""));
}

static void test_room_refused(void)
{
	char s[256];
	unsigned int room;

	CHECK(take("name=a,xdp-txmd=8", s, sizeof(s), &room) == -EINVAL);
	CHECK(take("name=a,xdp-txmd=32", s, sizeof(s), &room) == -EINVAL);
	CHECK(take("name=a,xdp-txmd=", s, sizeof(s), &room) == -EINVAL);
	CHECK(take("name=a,xdp-txmd", s, sizeof(s), &room) == -EINVAL);
	CHECK(take("xdp-txmd=16x", s, sizeof(s), &room) == -EINVAL);
	CHECK(take("xdp-txmd=-16", s, sizeof(s), &room) == -EINVAL);
	CHECK(take("xdp-txmd= 16", s, sizeof(s), &room) == -EINVAL);
	CHECK(take("xdp-txmd=99999999999999999999999", s, sizeof(s), &room) == -EINVAL);
	CHECK(take("xdp-txmd=16,xdp-txmd=16", s, sizeof(s), &room) == -EINVAL);
	CHECK(take("xdp-txmd=0,name=a,xdp-txmd=16", s, sizeof(s), &room) == -EINVAL);
}

/* vnetctl: an older vnetd's cli_group() refusal, not any other error */
static void test_refusal_recognised(void)
{
	CHECK(afxdp_room_refused("error: port add 'xdp-txmd': unknown key (keys: socket, socket-path, fd)\n"));
	CHECK(!afxdp_room_refused("error: port add 'xdp-txmdx': unknown key (keys: socket)\n"));
	CHECK(!afxdp_room_refused("error: port add: port xr: af_xdp xa queue 0: passed socket: Device or resource busy\n"));
	CHECK(!afxdp_room_refused("error: port add: xdp-txmd=16: given twice (give it once)\n"));
	CHECK(!afxdp_room_refused("ok: port xr added (listening on /s) 'xdp-txmd': unknown key\n"));
	CHECK(!afxdp_room_refused(""));
}

int main(void)
{
	RUN(test_room_taken);
	RUN(test_room_absent);
	RUN(test_room_refused);
	RUN(test_refusal_recognised);
	return test_exit();
}
