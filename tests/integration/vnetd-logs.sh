#!/usr/bin/env bash
# needs: python3 runuser
# (root for the syslog case: it unshares a mount namespace)
# vnetd-logs.sh - vnetd's log lines: ISO-8601 local time with milliseconds
# on a plain stderr; "<N>" syslog priority prefixes and no timestamp when
# stderr is the journal (JOURNAL_STREAM set to stderr's dev:ino, here a
# file's) or with --log-target journal; --log-target syslog to /dev/log (a
# listener on a private /dev in a mount namespace); a frontend's
# connection names the port and the frontend's PID. Prints TAP lines.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
VNETD=${VNETD:-build/vnetd}
need_built "$VNETD"
TMP=$(mktemp -d /tmp/vnetd-logs.XXXXXX)
cleanup_path "$TMP"

# connect.py SOCK: connect, send GET_FEATURES, print our pid, close
cat > "$TMP/connect.py" <<'PY'
import os, socket, struct, sys, time
for _ in range(100):
    try:
        s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); break
    except OSError:
        time.sleep(0.05)
s.sendall(struct.pack('<III', 1, 1, 0)); s.settimeout(5); s.recv(20)
print(os.getpid()); time.sleep(0.2); s.close()
PY

# run_vnetd NAME [ENV...] -- ARGS: vnetd with stderr to $TMP/NAME.log,
# one frontend connects and leaves, then SIGTERM; prints the frontend's pid
run_vnetd() {
	local name=$1 pid fpid
	shift
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	env "${envs[@]}" "$VNETD" --socket "$TMP/$name.sock" --backend null \
		--ctl-socket "$TMP/$name.ctl" "$@" 2>>"$TMP/$name.log" &
	pid=$!
	fpid=$(timeout 10 python3 "$TMP/connect.py" "$TMP/$name.sock")
	sleep 0.3
	kill -TERM "$pid"; wait "$pid"
	echo "$fpid"
}

fpid=$(run_vnetd plain --)
ISO='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}[+-][0-9]{2}:[0-9]{2} (error|warn|info|debug): '
if [ -s "$TMP/plain.log" ] && ! grep -vqE "$ISO" "$TMP/plain.log"; then
	ok "stderr: every line starts with ISO-8601 local time with ms and the level"
else
	not_ok "stderr format: $(head -3 "$TMP/plain.log")"
fi
grep -qE "port port0: frontend pid $fpid connected" "$TMP/plain.log" &&
	ok "connection line names the port and the frontend's pid ($fpid)" ||
	not_ok "no 'port port0: frontend pid $fpid connected' in: $(cat "$TMP/plain.log")"
# the timestamp is local time: TZ moves it, offset included
TZ=Asia/Kolkata run_vnetd tz TZ=Asia/Kolkata -- >/dev/null
if [ -e /usr/share/zoneinfo/Asia/Kolkata ]; then
	grep -qE '^[0-9-]{10}T[0-9:]{8}\.[0-9]{3}\+05:30 ' "$TMP/tz.log" &&
		ok "local time with its UTC offset (+05:30 under TZ=Asia/Kolkata)" ||
		not_ok "TZ offset: $(head -1 "$TMP/tz.log")"
else
	ok_skip "TZ offset" "tzdata missing"
fi

# JOURNAL_STREAM naming stderr's dev:ino: the journal format
: > "$TMP/journal.log"
js=$(stat -c '%d:%i' "$TMP/journal.log")
run_vnetd journal "JOURNAL_STREAM=$js" -- >/dev/null
if [ -s "$TMP/journal.log" ] && ! grep -vqE '^<[3467]>[^0-9]' "$TMP/journal.log" &&
   grep -q '^<6>port port0: frontend pid [0-9]* connected' "$TMP/journal.log"; then
	ok "JOURNAL_STREAM = stderr: '<N>' prefixes, no timestamp"
else
	not_ok "journal format: $(head -3 "$TMP/journal.log")"
fi
# a JOURNAL_STREAM that is not our stderr (inherited, then redirected)
run_vnetd stale "JOURNAL_STREAM=1:1" -- >/dev/null
grep -qE "$ISO" "$TMP/stale.log" && ok "JOURNAL_STREAM of another file: plain format" ||
	not_ok "stale JOURNAL_STREAM: $(head -1 "$TMP/stale.log")"
run_vnetd forced -- --log-target journal >/dev/null
grep -q '^<6>' "$TMP/forced.log" && ok "--log-target journal forces the journal format" ||
	not_ok "--log-target journal: $(head -1 "$TMP/forced.log")"
: > "$TMP/stderr.log"
js=$(stat -c '%d:%i' "$TMP/stderr.log")
run_vnetd stderr "JOURNAL_STREAM=$js" -- --log-target stderr >/dev/null
grep -qE "$ISO" "$TMP/stderr.log" && ok "--log-target stderr keeps timestamps under the journal" ||
	not_ok "--log-target stderr: $(head -1 "$TMP/stderr.log")"
# an error line is priority 3
: > "$TMP/err.log"
js=$(stat -c '%d:%i' "$TMP/err.log")
JOURNAL_STREAM=$js "$VNETD" --socket /nonexistent-dir/x.sock --backend null \
	--ctl-socket "$TMP/err.ctl" 2>>"$TMP/err.log"
grep -q '^<3>port port0: ' "$TMP/err.log" && ok "errors carry <3> (journalctl -p err finds them)" ||
	not_ok "error priority: $(cat "$TMP/err.log")"

# --log-target syslog: datagrams to /dev/log, here a listener of ours
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	cat > "$TMP/syslog.py" <<'PY'
import socket, subprocess, sys
tmp, vnetd = sys.argv[1], sys.argv[2]
l = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); l.bind('/dev/log'); l.settimeout(5)
p = subprocess.Popen([vnetd, '--socket', tmp + '/sl.sock', '--backend', 'null',
                      '--ctl-socket', tmp + '/sl.ctl', '--log-target', 'syslog'])
try:
    for _ in range(8):      # the first port line, past process-wide ones
        m = l.recv(2048).decode()
        if ': port ' in m: break
    print(m)
finally:
    p.terminate(); p.wait()
PY
	# a private tmpfs /dev: the host's /dev/log is neither used nor touched
	out=$(timeout 20 unshare -m sh -c "mount --make-rprivate / && mount -t tmpfs vnetd-test /dev && python3 '$TMP/syslog.py' '$TMP' '$VNETD'" 2>&1)
	grep -qE '^<30>vnetd\[[0-9]+\]: port port0: ' <<< "$out" &&
		ok "--log-target syslog: '<30>vnetd[PID]: ' datagrams to /dev/log" ||
		not_ok "syslog: $out"
else
	ok_skip "--log-target syslog" "needs root and unshare"
fi
# a fatal signal leaves one line in the log (crash.c), then still ends vnetd
"$VNETD" --socket "$TMP/crash.sock" --backend null 2> "$TMP/crash.log" &
pid=$!
for _ in $(seq 100); do [ -S "$TMP/crash.sock" ] && break; sleep 0.05; done
kill -SEGV "$pid"
wait "$pid"
rc=$?
line=$(grep 'fatal:' "$TMP/crash.log")
[ "$rc" = 139 ] && grep -qE '^vnetd: fatal: SIGSEGV in thread [^ ]+, instruction (vnetd\+)?0x[0-9a-f]+.* \(sent by pid [0-9]+\)$' <<< "$line" &&
	ok "a fatal signal: one log line (signal, thread, instruction, sender), then vnetd dies of it (rc 139)" ||
	not_ok "fatal signal: rc $rc, line '$line'"
echo "1..$N"
exit $FAILED
