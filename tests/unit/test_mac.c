// SPDX-License-Identifier: MIT
/*
 * test_mac.c - mac_parse(), the one MAC check vnetd --mac and vnetctl plan
 * --mac share: what it accepts, what it refuses (multicast, all zeros, bad
 * shapes), and that a refusal leaves the output untouched; mac_tap(), the
 * MAC of a TAP: fe first (unicast, local, above any vendor's), the guest's
 * last five bytes after it.
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

static void test_mac_tap(void)
{
	static const uint8_t guest[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
	uint8_t t[6], same[6];

	mac_tap(guest, t);
	CHECK(!memcmp(t, "\xfe\x54\x00\x12\x34\x56", 6));
	CHECK_EQ(t[0] & 1, 0);		/* unicast */
	CHECK_EQ(t[0] & 2, 2);		/* locally administered */
	/* above any MAC whose first byte is not fe or ff (ff is multicast) */
	CHECK(memcmp(t, "\xfd\xff\xff\xff\xff\xff", 6) > 0);
	/* in place, as the caller may pass one buffer */
	memcpy(same, guest, 6);
	mac_tap(same, same);
	CHECK(!memcmp(same, t, 6));
}

int main(void)
{
	RUN(test_mac_ok);
	RUN(test_mac_refused);
	RUN(test_mac_tap);
	return test_exit();
}
