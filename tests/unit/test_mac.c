// SPDX-License-Identifier: MIT
/*
 * test_mac.c - mac_parse(), the one MAC check vnetd --mac and vnetctl plan
 * --mac share: what it accepts, what it refuses (multicast, all zeros, bad
 * shapes), and that a refusal leaves the output untouched.
 */
#include <string.h>

#include "mac.h"
#include "testlib.h"

static void test_mac_ok(void)
{
	uint8_t m[6] = { 0 };

	CHECK(!mac_parse("52:54:00:12:34:56", m));
	CHECK(!memcmp(m, "\x52\x54\x00\x12\x34\x56", 6));
	CHECK(!mac_parse("02:AB:cd:EF:00:01", m));
	CHECK_EQ(m[1], 0xab);
	CHECK_EQ(m[5], 0x01);
}

static void test_mac_refused(void)
{
	static const char *const bad[] = {
		"", "52:54:00", "52:54:00:12:34:56:", "52:54:00:12:34:5",
		"52-54-00-12-34-56", "52:54:00:12:34:5g", " 2:54:00:12:34:56",
		"52:54:00:12:34:56 ", "0x:54:00:12:34:56", "+2:54:00:12:34:56",
	};
	uint8_t m[6] = { 1, 2, 3, 4, 5, 6 };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (!mac_parse(bad[i], m)) {
			fprintf(stderr, "  accepted '%s'\n", bad[i]);
			CHECK(0);
		}
	}
	/* the case the issue names: a multicast MAC vnetd refused */
	CHECK(strstr(mac_parse("01:00:5e:00:00:01", m), "unicast"));
	CHECK(strstr(mac_parse("33:33:00:00:00:01", m), "unicast"));
	CHECK(strstr(mac_parse("ff:ff:ff:ff:ff:ff", m), "unicast"));
	CHECK(strstr(mac_parse("00:00:00:00:00:00", m), "zeros"));
	CHECK(!memcmp(m, "\x01\x02\x03\x04\x05\x06", 6));
}

int main(void)
{
	RUN(test_mac_ok);
	RUN(test_mac_refused);
	return test_exit();
}
