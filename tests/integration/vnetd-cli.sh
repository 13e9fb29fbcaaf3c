#!/usr/bin/env bash
# vnetd-cli.sh - vnetd's command line: bad values exit 2 with a message that
# names the option, the value and what is allowed; --help lists every option
# with its default; --print-capabilities prints the vhost-user JSON; --port
# groups and --config files are checked the same way. Prints TAP lines.
# needs: none
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
VNETD=${VNETD:-build/vnetd}
need_built "$VNETD"
TMP=$(mktemp -d /tmp/vnetd-cli.XXXXXX)
cleanup_path "$TMP"

# expect_usage NAME PATTERN ARGS...: exit 2 and stderr matching PATTERN
expect_usage() {
	local name=$1 pat=$2 rc err
	shift 2
	err=$(timeout 10 "$VNETD" "$@" 2>&1 >/dev/null); rc=$?
	if [ "$rc" = 2 ] && grep -qE -- "$pat" <<< "$err"; then
		ok "$name"
	else
		not_ok "$name (rc=$rc, stderr: $err)"
	fi
}

S=$TMP/s.sock
expect_usage "--queues 0"	'^vnetd: --queues 0: must be 1\.\.64$'	--socket "$S" --queues 0
expect_usage "--queues 65"	'^vnetd: --queues 65: must be 1\.\.64$'	--socket "$S" --queues 65
expect_usage "--queues abc"	'^vnetd: --queues abc: must be 1\.\.64$'	--socket "$S" --queues abc
expect_usage "--queues -1"	'--queues -1: must be 1\.\.64'		--socket "$S" --queues -1
expect_usage "--mtu 67"		'--mtu 67: must be 68\.\.65535'		--socket "$S" --mtu 67
expect_usage "--gen-size 59"	'^vnetd: --gen-size 59: must be 60\.\.9000 \(bytes\)$'	--socket "$S" --backend gen --gen-size 59
expect_usage "gen-size=9001"	'gen-size=9001.: must be 60\.\.9000'	--port "socket=$S,backend=gen,gen-size=9001"
expect_usage "--mtu 65536"	'--mtu 65536: must be 68\.\.65535'	--socket "$S" --mtu 65536
expect_usage "--features unknown name" '--features -nosuchbit: unknown feature name' --socket "$S" --features -nosuchbit
expect_usage "--features without version_1" '--features 0x8000: must keep version_1' --socket "$S" --features 0x8000
expect_usage "--features garbage" '--features 0xZZ: ' --socket "$S" --features 0xZZ
expect_usage "unknown backend"	'--backend nosuch: unknown backend, must be one of: .*null' --socket "$S" --backend nosuch
expect_usage "missing --socket"	'--socket: missing'			--backend null
expect_usage "unknown option"	'--frobnicate: unknown option'		--socket "$S" --frobnicate
expect_usage "option without value" '--queues: needs a value'		--socket "$S" --queues
expect_usage "stray argument"	'extra: unexpected argument'		--socket "$S" extra
expect_usage "--mac multicast"	'--mac 01:00:5e:00:00:01: must be a unicast MAC' --socket "$S" --mac 01:00:5e:00:00:01
expect_usage "--mac garbage"	'--mac 52:54:00:zz:00:01: must be a MAC' --socket "$S" --mac 52:54:00:zz:00:01
expect_usage "--poll-us too big" '--poll-us 2000000: must be 0\.\.1000000' --socket "$S" --poll-us 2000000
expect_usage "--budget-pkts 0"	'--budget-pkts 0: must be 1\.\.65536'	--socket "$S" --budget-pkts 0
expect_usage "--threads > --queues" '--threads 3: must be 0\.\.2'	--socket "$S" --queues 2 --threads 3
expect_usage "--tap-fd count != --queues" '--tap-fd: 1 fds given, --queues is 2' --socket "$S" --queues 2 --tap-fd 0
expect_usage "--vhost-net bad"	'--vhost-net maybe: must be auto, on or off' --socket "$S" --vhost-net maybe
expect_usage "--vhost-net on needs tap" '--vhost-net on: needs --backend tap' --socket "$S" --backend null --vhost-net on
expect_usage "--log-level bad"	'--log-level loud: must be error, warn, info or debug' --socket "$S" --log-level loud
expect_usage "--port bad queues" "--port 'queues=70': must be 1\.\.64" --port "socket=$S,queues=70"
expect_usage "--port unknown key" "--port 'colour': unknown key"	--port "socket=$S,colour=blue"
expect_usage "--port without socket" "--port 'name=a,queues=2': missing socket=PATH" --port name=a,queues=2
expect_usage "--port duplicate socket" "socket $S: used by ports a and b" --port "name=a,socket=$S" --port "name=b,socket=$S"
expect_usage "--port duplicate name" "port name a: used twice" --port "name=a,socket=$S" --port "name=a,socket=$S.2"

printf '# two ports\nname=p1 socket=%s backend=null queues=2\n\nname=p2,socket=%s,queues=0\n' "$S" "$S.2" > "$TMP/bad.conf"
expect_usage "--config bad line names file:line" "bad.conf:4: 'queues=0': must be 1\.\.64" --config "$TMP/bad.conf"
expect_usage "--config missing file" "--config $TMP/none.conf: No such file" --config "$TMP/none.conf"
expect_usage "--config a directory" "^vnetd: --config $TMP: is a directory" --config "$TMP"
expect_usage "--config-space bad" '--config-space maybe: must be on or off' --socket "$S" --config-space maybe
expect_usage "--port config-space= bad" "--port 'config-space=1': must be on or off" --port "socket=$S,config-space=1"
expect_usage "--frontend-stall-ms 99" '^vnetd: --frontend-stall-ms 99: must be 100\.\.60000 \(milliseconds\)$' --socket "$S" --frontend-stall-ms 99
expect_usage "--frontend-stall-ms 60001" '--frontend-stall-ms 60001: must be 100\.\.60000' --socket "$S" --frontend-stall-ms 60001
expect_usage "--frontend-stall-ms 1s" '--frontend-stall-ms 1s: must be 100\.\.60000' --socket "$S" --frontend-stall-ms 1s
expect_usage "--port frontend-stall-ms= is a process option" "--port 'frontend-stall-ms': unknown key" --port "socket=$S,frontend-stall-ms=500"

# --version: "vnetd VERSION", exit 0, nothing on stderr
out=$("$VNETD" --version 2>"$TMP/err"); rc=$?
if [ "$rc" = 0 ] && grep -qE '^vnetd [^ ]+$' <<< "$out" && [ ! -s "$TMP/err" ]; then
	ok "--version: $out"
else
	not_ok "--version (rc=$rc): '$out' $(cat "$TMP/err")"
fi

# --help: exit 0, every long option listed with its default
out=$("$VNETD" --help); rc=$?
missing=
for o in socket backend tap tap-fd queues threads mac mtu features poll-us budget-pkts \
	 budget-bytes client vhost-net name config-space port config ctl-socket log-level \
	 print-capabilities help version; do
	grep -q -- "--$o\b" <<< "$out" || missing="$missing --$o"
done
ndef=$(grep -c 'default' <<< "$out")
if [ "$rc" = 0 ] && [ -z "$missing" ] && [ "$ndef" -ge 15 ]; then
	ok "--help lists every option with its default"
else
	not_ok "--help (rc=$rc, missing:$missing, defaults: $ndef)"
fi

# --print-capabilities: valid JSON with "type": "net"
out=$("$VNETD" --print-capabilities); rc=$?
if [ "$rc" = 0 ] && python3 -m json.tool <<< "$out" >/dev/null 2>&1 &&
   python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["type"] == "net" else 1)' <<< "$out"; then
	ok "--print-capabilities prints the spec's JSON"
else
	not_ok "--print-capabilities (rc=$rc): $out"
fi

echo "1..$N"
exit $FAILED
