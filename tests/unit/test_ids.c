// SPDX-License-Identifier: MIT
/*
 * test_ids.c - ids_uid(), ids_gid(), ids_user_gid(): the one lookup of a
 * user or group an operator names, for vnetd and vnetctl alike. A name
 * first, then a decimal number in 0..2^31-2; nothing else.
 */
#include <errno.h>

#include "ids.h"
#include "testlib.h"

static void test_ids_user(void)
{
	uid_t u = 7;
	gid_t g = 7;

	CHECK_EQ(ids_uid("root", &u), 0);
	CHECK_EQ(u, 0);
	CHECK_EQ(ids_uid("65534", &u), 0);
	CHECK_EQ(u, 65534);
	CHECK_EQ(ids_uid("2147483646", &u), 0);
	CHECK_EQ(u, 2147483646u);
	u = 7;
	CHECK_EQ(ids_uid("2147483647", &u), -ENOENT);	/* -1 to chown */
	CHECK_EQ(ids_uid("4294967295", &u), -ENOENT);
	CHECK_EQ(ids_uid("-1", &u), -ENOENT);
	CHECK_EQ(ids_uid("+5", &u), -ENOENT);
	CHECK_EQ(ids_uid("12x", &u), -ENOENT);
	CHECK_EQ(ids_uid("", &u), -ENOENT);
	CHECK_EQ(ids_uid("no-such-user-vnet", &u), -ENOENT);
	CHECK_EQ(u, 7);					/* refusals leave it */
	CHECK_EQ(ids_user_gid(0, &g), 0);
	CHECK_EQ(g, 0);
	CHECK_EQ(ids_user_gid(2147483646u, &g), -ENOENT);
}

static void test_ids_group(void)
{
	gid_t g = 7;

	CHECK_EQ(ids_gid("root", &g), 0);
	CHECK_EQ(g, 0);
	CHECK_EQ(ids_gid("108", &g), 0);
	CHECK_EQ(g, 108);
	g = 7;
	CHECK_EQ(ids_gid("2147483647", &g), -ENOENT);
	CHECK_EQ(ids_gid("no-such-group-vnet", &g), -ENOENT);
	CHECK_EQ(ids_gid("", &g), -ENOENT);
	CHECK_EQ(g, 7);
}

int main(void)
{
	RUN(test_ids_user);
	RUN(test_ids_group);
	return test_exit();
}
