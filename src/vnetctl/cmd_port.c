// SPDX-License-Identifier: MIT
/*
 * cmd_port.c - `vnetctl port add KEY=VAL,...`, `vnetctl port del NAME`,
 * `vnetctl port list`: ports of a running vnetd, over its control socket
 * (one request line, the reply, then vnetd closes). vnetd checks the spec
 * exactly as it checks --port; this file only checks the shape of the
 * command line and prints the reply.
 *
 * Exit status: 0 done, 1 vnetd refused (the reason on stderr) or is not
 * reachable, 2 bad usage.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "afxdp_room.h"
#include "cmd_opts.h"
#include "cmds.h"
#include "ctl_query.h"
#include "ctl_path.h"
#include "util.h"
#include "xdp_socks.h"

#define PORT_REQ_MAX	1024	/* vnetd's CTL_REQ_MAX */

static void port_usage(FILE *f)
{
	fprintf(f,
"Usage: vnetctl port add KEY=VAL,... [--socket CTL]\n"
"       vnetctl port del NAME [--socket CTL]\n"
"       vnetctl port list [--socket CTL]\n"
"Add, remove or list the ports of a running vnetd without restarting it.\n"
"  add KEY=VAL,...    start a port; the keys of a vnetd port group (socket=, name=,\n"
"                     backend=, queues=, ...), checked the same way. After the\n"
"                     sandbox: the socket must be in /run/vnetd, the control\n"
"                     socket's directory or one used at start; backend=tap only\n"
"                     attaches to an existing persistent TAP (vnetctl tap create);\n"
"                     backend=af_xdp: vnetctl (as root) loads the XDP program on\n"
"                     xdp-if=, makes the AF_XDP sockets and passes them to vnetd,\n"
"                     then adds them to the program's map (queues= and\n"
"                     xdp-queue= default to 1 and 0)\n"
"  del NAME           stop the port NAME and remove its socket\n"
"  list               one line per running port\n"
"  -s, --socket CTL   vnetd control socket (default: %s); also --ctl-socket\n"
"  -h, --help         this text\n", ctl_default_path());
}

/*
 * One try of port add ...backend=af_xdp: make the sockets (xdp_socks.c),
 * with TX metadata room if @room, pass them with the request, and once
 * vnetd bound them put them in the XSKMAP. *@old: vnetd refused the room
 * as an unknown key (nothing changed, nothing printed).
 */
static int port_add_xdp_try(const char *path, const char *spec, bool room,
			    bool *old)
{
	char full[PORT_REQ_MAX], req[PORT_REQ_MAX + 32], reply[4096];
	struct reason why = { 0 };
	struct xdp_socks xs;
	int n, ret;

	*old = false;
	if (xdp_socks_make(spec, full, sizeof(full), room, &xs, &why)) {
		fprintf(stderr, "vnetctl port add: %s\n", why.msg);
		return CMD_FAIL;
	}
	n = xs.room ? snprintf(req, sizeof(req), "port add %s,%s=%u\n", full,
			       AFXDP_ROOM_KEY, xs.room) :
		      snprintf(req, sizeof(req), "port add %s\n", full);
	if (n < 0 || n >= PORT_REQ_MAX) {
		fprintf(stderr, "vnetctl port add: request too long (%d bytes, at most %d)\n",
			n, PORT_REQ_MAX - 1);
		xdp_socks_close(&xs);
		return CMD_USAGE;
	}
	ret = ctl_query_keep("vnetctl port", path, req, xs.fds, xs.n, reply,
			     sizeof(reply));
	*old = ret == CMD_FAIL && xs.room && afxdp_room_refused(reply);
	if (!*old)
		fputs(reply, ret == CMD_OK ? stdout : stderr);
	if (ret == CMD_OK && xdp_socks_insert(&xs, &why)) {
		fprintf(stderr, "vnetctl port add: the port runs but gets no frames: %s (remove it: vnetctl port del NAME)\n",
			why.msg);
		ret = CMD_FAIL;
	}
	xdp_socks_close(&xs);
	return ret;
}

/*
 * port add ...backend=af_xdp: with TX metadata room; a vnetd that does
 * not know xdp-txmd= (older than this vnetctl) would have the kernel
 * refuse every TX frame with it, so it is asked again without
 */
static int port_add_xdp(const char *path, const char *spec)
{
	bool old;
	int ret;

	ret = port_add_xdp_try(path, spec, true, &old);
	if (!old)
		return ret;
	fprintf(stderr, "vnetctl port add: vnetd refused %s= (it is older than this vnetctl): passing sockets without TX metadata room, checksums in software (upgrade vnetd: vnetctl upgrade)\n",
		AFXDP_ROOM_KEY);
	return port_add_xdp_try(path, spec, false, &old);
}

/**
 * cmd_port() - vnetctl port add|del|list
 * @argc:	Argument count (the arguments after "port")
 * @argv:	Arguments
 *
 * Return: exit status (cmds.h)
 */
int cmd_port(int argc, char **argv)
{
	static const struct cmd_verb verbs[] = {
		{ "add", true }, { "del", true }, { "list", false },
	};
	char req[PORT_REQ_MAX + 1];
	struct cmd_verb_args a;
	const char *verb, *arg;
	int n;

	n = cmd_verb_parse("port", argc, argv, verbs, ARRAY_SIZE(verbs), false,
			   port_usage, &a);
	if (n >= 0)
		return n;
	verb = a.verb;
	arg = a.operand;
	if (strcmp(verb, "list") && (!arg || !*arg)) {
		fprintf(stderr, "vnetctl port %s: missing %s\n", verb,
			strcmp(verb, "add") ? "NAME" : "KEY=VAL,... (e.g. name=vm1,socket=/run/vnetd/vm1.sock,backend=loop)");
		return CMD_USAGE;
	}
	if (arg && strpbrk(arg, "\r\n")) {
		fprintf(stderr, "vnetctl port %s: the argument must be one line\n",
			verb);
		return CMD_USAGE;
	}
	if (!strcmp(verb, "add") && xdp_socks_wanted(arg))
		return port_add_xdp(a.path, arg);
	n = arg ? snprintf(req, sizeof(req), "port %s %s\n", verb, arg) :
		  snprintf(req, sizeof(req), "port list\n");
	if (n < 0 || n >= PORT_REQ_MAX) {
		fprintf(stderr, "vnetctl port %s: request too long (%d bytes, at most %d)\n",
			verb, n, PORT_REQ_MAX - 1);
		return CMD_USAGE;
	}
	return ctl_query("vnetctl port", a.path, req);
}
