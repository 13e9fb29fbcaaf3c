// SPDX-License-Identifier: MIT
/*
 * test_net_features.c - the virtio-net feature names (net_features.c),
 * which --features parses and status prints: a name and its bit map both
 * ways, case does not matter, an unknown name or bit is refused, and the
 * bits the spec fixes are where the spec puts them.
 */
#include "net_features.h"
#include "testlib.h"

static void test_spec_bits(void)
{
	CHECK_EQ(net_feature_bit("csum"), 0);
	CHECK_EQ(net_feature_bit("mrg_rxbuf"), 15);
	CHECK_EQ(net_feature_bit("mq"), 22);
	CHECK_EQ(net_feature_bit("version_1"), 32);
	CHECK_EQ(net_feature_bit("packed"), 34);
	CHECK_EQ(net_feature_bit("VERSION_1"), 32);
}

static void test_round_trip(void)
{
	unsigned int bit, named = 0;
	const char *name;

	for (bit = 0; bit < 64; bit++) {
		name = net_feature_name(bit);
		if (!name)
			continue;
		named++;
		CHECK_EQ(net_feature_bit(name), (int)bit);
	}
	CHECK_EQ(named, 29u);
}

static void test_unknown(void)
{
	CHECK(!net_feature_name(4));
	CHECK(!net_feature_name(63));
	CHECK_EQ(net_feature_bit("ring_packed"), -1);	/* an alias: port_spec.c's */
	CHECK_EQ(net_feature_bit(""), -1);
	CHECK_EQ(net_feature_bit("csum "), -1);
}

int main(void)
{
	RUN(test_spec_bits);
	RUN(test_round_trip);
	RUN(test_unknown);
	return test_exit();
}
