// SPDX-License-Identifier: MIT
/*
 * test_port_spec_same.c - cli_port_same(), the comparison SIGHUP uses to
 * decide whether a --config line changed (reload.c): for every key of the
 * parser a line with the key changed compares different from the line
 * without, and the same line parsed twice compares equal. The keys are
 * read from the parser itself (every long option it accepts as a key), so
 * a key added without a case here fails the test: a key cli_port_same()
 * does not compare is one a reload silently does not apply.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "testlib.h"
#include "host_switch.h"
#include "port_spec.h"
#include "util.h"

#define BASE	"name=p,socket=/tmp/p.sock"

/**
 * struct same_case - A key, a line without it changed and one with
 * @key:	The key (a long option name)
 * @a:		A line (after BASE)
 * @b:		The same line with @key changed or added
 */
struct same_case {
	const char *key;
	const char *a;
	const char *b;
};

static const struct same_case cases[] = {
	{ "socket", "backend=loop", "backend=loop,socket=/tmp/q.sock" },
	{ "socket-path", "backend=loop", "backend=loop,socket-path=/tmp/q.sock" },
	{ "fd", "", "" },	/* its own lines: see same_fd() */
	{ "socket-owner", "backend=loop", "backend=loop,socket-owner=1" },
	{ "socket-group", "backend=loop", "backend=loop,socket-group=1" },
	{ "socket-mode", "backend=loop", "backend=loop,socket-mode=0600" },
	{ "backend", "backend=loop", "backend=null" },
	{ "tap", "backend=tap,tap=t0", "backend=tap,tap=t1" },
	{ "tap-fd", "backend=tap,tap-fd=5", "backend=tap,tap-fd=6" },
	{ "xdp-if", "backend=af_xdp,xdp-if=eth0", "backend=af_xdp,xdp-if=eth1" },
	{ "xdp-queue", "backend=af_xdp,xdp-if=eth0",
	  "backend=af_xdp,xdp-if=eth0,xdp-queue=1" },
	{ "xdp-mode", "backend=af_xdp,xdp-if=eth0",
	  "backend=af_xdp,xdp-if=eth0,xdp-mode=copy" },
	{ "gen-size", "backend=gen", "backend=gen,gen-size=100" },
	{ "queues", "backend=loop", "backend=loop,queues=2" },
	{ "threads", "backend=loop,queues=2", "backend=loop,queues=2,threads=1" },
	{ "mac", "backend=loop", "backend=loop,mac=02:00:00:00:00:01" },
	{ "mtu", "backend=loop", "backend=loop,mtu=9000" },
	{ "features", "backend=loop", "backend=loop,features=-mrg_rxbuf" },
	{ "poll-us", "backend=loop", "backend=loop,poll-us=10" },
	{ "budget-pkts", "backend=loop", "backend=loop,budget-pkts=128" },
	{ "budget-bytes", "backend=loop", "backend=loop,budget-bytes=65536" },
	{ "client", "backend=loop", "backend=loop,client" },
	{ "vhost-net", "backend=tap,tap=t0", "backend=tap,tap=t0,vhost-net=off" },
	{ "name", "backend=loop", "backend=loop,name=q" },
	{ "config-space", "backend=loop", "backend=loop,config-space=on" },
	{ "mac-lock", "backend=loop", "backend=loop,mac-lock" },
	{ "allow-ip", "backend=loop,allow-ip=10.0.0.1",
	  "backend=loop,allow-ip=10.0.0.2" },
	{ "allow-ip", "backend=loop,allow-ip=[2001:db8::1]",
	  "backend=loop,allow-ip=[2001:db8::2]" },
	{ "allow-ip", "backend=loop", "backend=loop,allow-ip=10.0.0.0/8" },
	{ "switch", "switch=s0", "switch=s1" },
	{ "vlan", "switch=s0", "switch=s0,vlan=5" },
	{ "trunk", "switch=s0,trunk=10", "switch=s0,trunk=10:20" },
	{ "police-pps", "switch=s0", "switch=s0,police-pps=1000" },
	{ "police-bps", "switch=s0", "switch=s0,police-bps=1000000" },
	{ "police-burst", "switch=s0,police-pps=1000",
	  "switch=s0,police-pps=1000,police-burst=50" },
};

/* BASE,@rest (or @rest alone when @own) parsed and checked in slot 0 */
static int same_parse(struct vnetd_port_cfg *pc, const char *rest, bool own)
{
	struct vnetd_port_cfg tmpl;
	struct reason why = { 0 };
	char text[256];

	cli_port_defaults(&tmpl);
	snprintf(text, sizeof(text), "%s%s%s", own ? "" : BASE,
		 own || !rest[0] ? "" : ",", rest);
	if (cli_port_parse(pc, &tmpl, text, ",", &why) ||
	    cli_port_check(pc, 0, &why)) {
		fprintf(stderr, "  '%s' refused:%s\n", text, why.msg);
		return -1;
	}
	return 0;
}

static void same_setup(void)
{
	struct reason why = { 0 };

	if (!host_switch_find("s0"))
		host_switch_declare("s0", &why);
	if (!host_switch_find("s1"))
		host_switch_declare("s1", &why);
}

/* One case: its two lines each equal to themselves, different apart */
static bool same_case_ok(const struct same_case *c)
{
	struct vnetd_port_cfg a, a2, b;

	if (same_parse(&a, c->a, false) || same_parse(&a2, c->a, false) ||
	    same_parse(&b, c->b, false))
		return false;
	if (!cli_port_same(&a, &a2)) {
		fprintf(stderr, "  %s: '%s' parsed twice compares different\n",
			c->key, c->a);
		return false;
	}
	if (cli_port_same(&a, &b) || cli_port_same(&b, &a)) {
		fprintf(stderr, "  %s: '%s' and '%s' compare the same\n",
			c->key, c->a, c->b);
		return false;
	}
	return true;
}

static void test_every_case(void)
{
	unsigned int i;
	bool ok = true;

	same_setup();
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		if (strcmp(cases[i].key, "fd"))
			ok &= same_case_ok(&cases[i]);
	CHECK(ok);
}

/* fd= takes no socket=, so not BASE */
static void test_fd(void)
{
	struct vnetd_port_cfg a, a2, b;

	CHECK(!same_parse(&a, "name=p,backend=loop,fd=3", true));
	CHECK(!same_parse(&a2, "name=p,backend=loop,fd=3", true));
	CHECK(!same_parse(&b, "name=p,backend=loop,fd=4", true));
	CHECK(cli_port_same(&a, &a2));
	CHECK(!cli_port_same(&a, &b));
}

/* Is @opt a key of a port line (the parser does not call it unknown)? */
static bool same_is_key(const char *opt)
{
	struct vnetd_port_cfg pc, tmpl;
	struct reason why = { 0 };
	char text[96];

	cli_port_defaults(&tmpl);
	snprintf(text, sizeof(text), "%s=x", opt);
	return !cli_port_parse(&pc, &tmpl, text, ",", &why) ||
	       !strstr(why.msg, "unknown key");
}

/* Every key the parser takes has a case above */
static void test_every_key_has_a_case(void)
{
	const struct option *o;
	unsigned int i, keys = 0;
	bool ok = true, found;

	for (o = cli_opts; o->name; o++) {
		if (!same_is_key(o->name))
			continue;
		keys++;
		found = false;
		for (i = 0; i < ARRAY_SIZE(cases); i++)
			found |= !strcmp(cases[i].key, o->name);
		if (!found) {
			fprintf(stderr, "  key %s: no case: compare it in cli_port_same() and add one\n",
				o->name);
			ok = false;
		}
	}
	CHECK(ok);
	CHECK(keys >= 33);	/* the parser's keys were found at all */
}

int main(void)
{
	RUN(test_every_case);
	RUN(test_fd);
	RUN(test_every_key_has_a_case);
	return test_exit();
}
