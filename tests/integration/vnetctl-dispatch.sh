#!/usr/bin/env bash
# vnetctl-dispatch.sh - vnetctl's command dispatcher: each command reaches its
# handler, help goes to stdout with exit 0, a missing or unknown command is a
# usage error (exit 2) that names what was typed.
# needs: none
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
BIN=${VNETCTL:-build/vnetctl}
need_built "$BIN"
t() { # NAME WANT_RC WANT_SUBSTRING CMD_ARGS...
	local name=$1 rc=$2 want=$3 out got; shift 3
	out=$("$BIN" "$@" 2>&1); got=$?
	if [ "$got" = "$rc" ] && [[ "$out" == *"$want"* ]]; then ok "$name"
	else not_ok "$name"; echo "#   rc=$got (want $rc):"; echo "$out" | head -5 | sed 's/^/#   /'; fi
}
t "no command: usage, exit 2" 2 "usage: vnetctl COMMAND"
t "--help: exit 0" 0 "usage: vnetctl COMMAND" --help
t "unknown command named" 2 "vnetctl: unknown command 'frob'" frob
t "plan reaches cmd_plan" 2 "vnetctl plan: --vcpus is required" plan
t "plan --help" 0 "usage: vnetctl plan" plan --help
t "tap without subcommand" 2 "usage: vnetctl tap create" tap
t "tap unknown subcommand" 2 "vnetctl tap: unknown subcommand 'list'" tap list
t "tap create without a name" 2 "vnetctl tap create: needs an interface NAME" tap create --queues 2
t "tap create bad --queues" 2 "--queues 'x' is not a number (allowed 1..256)" tap create t0 --queues x
t "tap create --mode without a parent" 2 "--mode applies only with --macvtap-parent" tap create t0 --mode passthru
t "tap delete without a name" 2 "vnetctl tap delete: needs an interface NAME" tap delete
t "probe without what" 2 "usage: vnetctl probe vhost-net" probe
t "probe bad flag" 2 "vnetctl probe: unknown argument '--frob'" probe vhost-net --frob
# --help exits 0 at every level
t "tap create --help: exit 0" 0 "usage: vnetctl tap create" tap create --help
t "tap create NAME --help: exit 0" 0 "usage: vnetctl tap create" tap create t0 --help
t "tap delete --help: exit 0" 0 "vnetctl tap delete NAME" tap delete --help
t "probe vhost-net --help: exit 0" 0 "usage: vnetctl probe vhost-net" probe vhost-net --help
t "status --help: exit 0" 0 "Usage: vnetctl status" status --help
t "--version" 0 "vnetctl " --version
t "status --json --prometheus refused, both named" 2 "--json and --prometheus: give one output format" status --json --prometheus
t "status -p --json refused, both named" 2 "-p and --json: give one output format" status -p --json
t "plan refuses a multicast MAC, as vnetd does" 2 "--mac '01:00:5e:00:00:01': must be a unicast MAC" plan --vcpus 2 --socket /tmp/x.sock --mac 01:00:5e:00:00:01
# the control socket as vnetd names it (--ctl-socket) works in every command
t "status --ctl-socket: the path given is the one tried" 1 "/nonexistent/c.ctl" status --ctl-socket /nonexistent/c.ctl
t "status --ctl-socket=PATH" 1 "/nonexistent/d.ctl" status --ctl-socket=/nonexistent/d.ctl
t "port list --ctl-socket" 1 "/nonexistent/e.ctl" port list --ctl-socket /nonexistent/e.ctl
t "status --ctl-socket without a value" 2 "--ctl-socket: needs a value" status --ctl-socket
t "tap create --mac: not a MAC" 2 "--mac 'x': must be a MAC like 52:54:00:12:34:56" tap create t0 --mac x
t "tap create --mac with a macvtap" 2 "--mac 52:54:00:12:34:56: only for a TAP" tap create t0 --macvtap-parent eth0 --mac 52:54:00:12:34:56
# status belongs to cmd_status.c: only check that the dispatcher hands it over
out=$("$BIN" status 2>&1)
check "status reaches cmd_status" test "${out/unknown command/}" = "$out"
exit $FAILED
