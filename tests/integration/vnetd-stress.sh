#!/usr/bin/env bash
# needs: none
# vnetd-stress.sh - many short sessions on one port under a CPU hog, and the
# quick reconnect. Regression test for "a port can be wedged", "frames cross
# sessions", "a quick reconnect is refused", and a short
# soak: vnet-bench --sessions runs VNET_STRESS_SESSIONS (1000) fresh
# connect / set up / traffic / disconnect cycles against vnetd --backend
# loop, split then packed, while a busy-loop process competes for the CPU.
# Every session must get each of its frames back exactly once and none of
# another session's (each leaves a burst bigger than its RX ring in flight
# at disconnect). vnetd's fd count must not grow and its RSS must grow by
# less than 1 MiB over the cycles (after a warm-up). Then: a frontend that
# reconnects while its old connection's hangup is still queued is served,
# not refused. Prints TAP lines.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
VNETD=${VNETD:-build/vnetd}
BENCH=${VNET_BENCH:-build/vnet-bench}
NSESS=${VNET_STRESS_SESSIONS:-1000}
need_built "$VNETD" "$BENCH"
command -v python3 >/dev/null || skip_all "python3 missing"
TMP=$(mktemp -d /tmp/vnetd-stress.XXXXXX)
cleanup_path "$TMP"

S=$TMP/p.sock
"$VNETD" --socket "$S" --backend loop --ctl-socket "$TMP/ctl.sock" 2>"$TMP/vnetd.log" &
VPID=$!; cleanup_pid "$VPID"
for _ in $(seq 100); do [ -S "$S" ] && break; sleep 0.05; done
[ -S "$S" ] || { echo "Bail out! vnetd did not create $S"; cat "$TMP/vnetd.log"; exit 1; }

fds() { ls "/proc/$VPID/fd" | wc -l; }
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$VPID/status"; }

# Warm-up: lazily allocated state (worker scratch, loop FIFO pages) settles
"$BENCH" --socket "$S" --sessions 20 >/dev/null 2>&1
"$BENCH" --socket "$S" --sessions 20 --packed >/dev/null 2>&1
fd0=$(fds) rss0=$(rss)

# The CPU hog: one busy loop per core, so vnetd's threads get preempted
HOGS=$(nproc) HOG_PIDS=()
for _ in $(seq "$HOGS"); do
	( while :; do :; done ) & HOG_PIDS+=("$!"); cleanup_pid "$!"
done

t0=$(date +%s.%N)
for ring in split packed; do
	flag=; [ $ring = packed ] && flag=--packed
	out=$(timeout 120 "$BENCH" --socket "$S" --sessions "$NSESS" $flag 2>&1); rc=$?
	echo "# $ring: $out" | head -5
	check "$NSESS $ring sessions under $HOGS CPU hogs: every frame of every session back once, none foreign (rc=$rc)" \
		[ $rc = 0 ]
done
t1=$(date +%s.%N)
for p in "${HOG_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
echo "# $((2 * NSESS)) sessions in $(python3 -c "print(round($t1 - $t0, 1))") s"

fd1=$(fds) rss1=$(rss)
echo "# vnetd fds $fd0 -> $fd1, RSS $rss0 -> $rss1 KiB"
check "no fd growth over the sessions ($fd0 -> $fd1)" [ "$fd1" -le "$fd0" ]
check "RSS growth < 1 MiB over the sessions ($rss0 -> $rss1 KiB)" [ $((rss1 - rss0)) -lt 1024 ]
check "no connection closed on an error during the sessions" \
	[ "$(grep -c 'closed the connection\|closing the connection' "$TMP/vnetd.log")" = 0 ]

# Quick reconnect: with vnetd stopped, B connects, then A (connected, set
# up) closes; when vnetd runs again the listener is ready before A's
# hangup is read. A is the one to drop.
cat > "$TMP/reconnect.py" <<'PY'
import os, signal, socket, struct, sys, time
path, pid = sys.argv[1], int(sys.argv[2])
def conn():
    s = socket.socket(socket.AF_UNIX); s.settimeout(3); s.connect(path); return s
def get_features(s):
    s.sendall(struct.pack('<III', 1, 1, 0))
    h = b''
    while len(h) < 20:
        c = s.recv(20 - len(h))
        if not c: raise EOFError('closed: refused')
        h += c
    return struct.unpack('<Q', h[12:])[0]
a = conn(); get_features(a)
os.kill(pid, signal.SIGSTOP)
for _ in range(1000):   # SIGSTOP is asynchronous: wait until it took
    with open('/proc/%d/stat' % pid) as f:
        if f.read().rsplit(')', 1)[1].split()[0] == 'T': break
    time.sleep(0.001)
try:
    b = conn()
    a.close()
finally:
    os.kill(pid, signal.SIGCONT)
print('ok' if get_features(b) else 'no features')
PY
r=$(python3 "$TMP/reconnect.py" "$S" "$VPID" 2>&1 | tail -1)
check "quick reconnect: the new frontend is served, the closed one dropped ($r)" [ "$r" = ok ]
check "quick reconnect: no refusal logged" [ "$(grep -c 'refusing a second' "$TMP/vnetd.log")" = 0 ]
grep -q 'while the old connection' "$TMP/vnetd.log"
check "quick reconnect: one line names both PIDs" [ $? = 0 ]
check "vnetd survived" kill -0 "$VPID"
echo "1..$N"
[ $FAILED = 0 ] || { echo "--- vnetd log (tail) ---"; tail -8 "$TMP/vnetd.log"; }
exit $FAILED
