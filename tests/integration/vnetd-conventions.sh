#!/usr/bin/env bash
# needs: python3
# vnetd-conventions.sh - the vhost-user spec's backend program conventions
# (QEMU docs/interop/vhost-user.rst): --socket-path, --fd with a listening
# socket and with an already connected one (as QEMU passes it),
# --print-capabilities exiting 0 whatever else is on the line; and the
# errors of every numeric flag name the flag, the value and the
# allowed range. Prints TAP lines.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
VNETD=${VNETD:-build/vnetd}
need_built "$VNETD"
TMP=$(mktemp -d /tmp/vnetd-conv.XXXXXX)
cleanup_path "$TMP"

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

# fe.py: GET_FEATURES over a path, or vnetd started on an inherited fd
cat > "$TMP/fe.py" <<'PY'
import os, socket, struct, subprocess, sys, time
def get_features(s):
    s.settimeout(5)
    s.sendall(struct.pack('<III', 1, 1, 0))
    h = b''
    while len(h) < 20:
        c = s.recv(20 - len(h))
        if not c: raise EOFError('closed')
        h += c
    req, flags, size = struct.unpack('<III', h[:12])
    assert req == 1 and size == 8, (req, flags, size)
    return struct.unpack('<Q', h[12:])[0]
cmd, vnetd, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
args = [vnetd, '--backend', 'null', '--ctl-socket', tmp + '/ctl']
if cmd == 'listen':        # an inherited listening socket: accepted on
    l = socket.socket(socket.AF_UNIX); l.bind(tmp + '/fd.sock'); l.listen(4)
    p = subprocess.Popen(args + ['--fd', str(l.fileno())], pass_fds=[l.fileno()])
    l.close()
    try:
        for i in range(2):     # two frontends in turn: it keeps listening
            s = socket.socket(socket.AF_UNIX); s.connect(tmp + '/fd.sock')
            print(hex(get_features(s))); s.close(); time.sleep(0.2)
    finally:
        p.terminate(); p.wait()
elif cmd == 'connected':   # an already connected socket, as QEMU passes it
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    p = subprocess.Popen(args + ['--fd', str(b.fileno())], pass_fds=[b.fileno()])
    b.close()
    try:
        print(hex(get_features(a)))
    finally:
        p.terminate(); p.wait()
PY

# --print-capabilities: exit 0 and the JSON, whatever else is given
out=$("$VNETD" --print-capabilities --queues 99 2>&1); rc=$?
if [ "$rc" = 0 ] && python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["type"]=="net"' "$out" 2>/dev/null; then
	ok "--print-capabilities --queues 99 exits 0 with the JSON"
else
	not_ok "--print-capabilities --queues 99 (rc=$rc: $out)"
fi
out=$("$VNETD" --frobnicate x --print-capabilities 2>&1); rc=$?
[ "$rc" = 0 ] && ok "--print-capabilities after an unknown option exits 0" ||
	not_ok "--print-capabilities after an unknown option (rc=$rc: $out)"

# --socket-path: the same as --socket
S=$TMP/sp.sock
"$VNETD" --socket-path "$S" --backend null --ctl-socket "$TMP/ctl0" 2>"$TMP/sp.log" &
PID=$!; cleanup_pid "$PID"
wait_sock "$S" && ok "--socket-path PATH listens on PATH" || not_ok "--socket-path (log: $(cat "$TMP/sp.log"))"
kill -TERM "$PID"; wait "$PID"; rc=$?
[ "$rc" = 0 ] && [ ! -e "$S" ] && ok "--socket-path: SIGTERM exits 0, socket removed" ||
	not_ok "--socket-path exit (rc=$rc)"

out=$(timeout 20 python3 "$TMP/fe.py" listen "$VNETD" "$TMP" 2>&1); rc=$?
[ "$rc" = 0 ] && [ "$(grep -c '^0x' <<< "$out")" = 2 ] &&
	ok "--fd N: an inherited listening socket serves two frontends in turn" ||
	not_ok "--fd listening (rc=$rc: $out)"
[ -S "$TMP/fd.sock" ] && ok "--fd N: the inherited socket's file is left in place" ||
	not_ok "--fd N: the inherited socket's file was removed"
out=$(timeout 20 python3 "$TMP/fe.py" connected "$VNETD" "$TMP" 2>&1); rc=$?
[ "$rc" = 0 ] && grep -q '^0x' <<< "$out" &&
	ok "--fd N: an already connected socket (socketpair) is served" ||
	not_ok "--fd connected (rc=$rc: $out)"

err=$(timeout 10 "$VNETD" --fd 0 --backend null --ctl-socket "$TMP/ctl1" 2>&1 < /dev/null); rc=$?
if [ "$rc" = 1 ] && grep -q -- '--fd 0: .*must be an open UNIX stream socket' <<< "$err"; then
	ok "--fd on a non-socket: exit 1 naming the fd"
else
	not_ok "--fd on a non-socket (rc=$rc: $err)"
fi

S=$TMP/s.sock
expect_usage "--fd with --socket-path" '--fd 3: cannot be combined with --socket-path' --socket-path "$S" --fd 3
expect_usage "--fd garbage"	'--fd x: must be an open file descriptor number, 0\.\.1048576' --fd x
expect_usage "--fd with --client" '--fd 3: cannot be combined with --client' --fd 3 --client
expect_usage "--socket-mode 999" '--socket-mode 999: must be an octal mode 0000\.\.0777' --socket "$S" --socket-mode 999
expect_usage "--socket-mode 1777" '--socket-mode 1777: must be an octal mode' --socket "$S" --socket-mode 1777
expect_usage "--socket-owner unknown" '--socket-owner no-such-user-x: no such user' --socket "$S" --socket-owner no-such-user-x
expect_usage "--socket-group unknown" '--socket-group no-such-group-x: no such group' --socket "$S" --socket-group no-such-group-x
expect_usage "--user unknown"	'--user no-such-user-x: no such user'	--socket "$S" --user no-such-user-x
expect_usage "--user bad group"	'--user nobody:no-such-group-x: no such group no-such-group-x' --socket "$S" --user nobody:no-such-group-x
expect_usage "--ctl-group unknown" '--ctl-group no-such-group-x: no such group' --socket "$S" --ctl-group no-such-group-x
expect_usage "--log-target bad"	'--log-target loud: must be auto, stderr, journal or syslog' --socket "$S" --log-target loud
expect_usage "config key socket-mode" "--port 'socket-mode=8': must be an octal mode" --port "socket=$S,socket-mode=8"
expect_usage "--port fd= with socket=" "--fd 4: cannot be combined with --socket-path" --port "socket=$S,fd=4"

help=$("$VNETD" --help)
for f in --socket-path --fd --socket-owner --socket-group --socket-mode --user --ctl-group --log-target; do
	grep -q -- "^ *$f " <<< "$help" || { not_ok "--help lists $f"; continue; }
	ok "--help lists $f"
done
echo "1..$N"
exit $FAILED
