#!/usr/bin/env bash
# needs: python3
# vnetd-soak-ctl.sh - the control half of the soak: while
# vnet-bench carries traffic on 2 pairs, VNET_SOAK_ROUNDS (1000) rounds of
# what a VMM sends to a running device: ADD_MEM_REG + REM_MEM_REG of a
# hotplugged region, SET_LOG_BASE with LOG_ALL on and off (a migration that
# starts and ends), and a TX ring disabled and enabled. Split then packed.
# Memory and log rounds must lose nothing (--check-seq: every frame back
# once, in order); a started but disabled TX ring is drained and its frames
# discarded (vhost-user "Ring states"), so the enable rounds must lose
# exactly what vnetd counted as "disabled" drops, duplicate and reorder
# nothing. vnetd's fd count must not grow and its RSS must grow by less
# than 1 MiB (after a warm-up). vnetd runs sandboxed (the default).
# bench/soak.sh runs the long version (100,000 rounds).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
VNETD=${VNETD:-build/vnetd}
BENCH=${VNET_BENCH:-build/vnet-bench}
VNETCTL=${VNETCTL:-build/vnetctl}
ROUNDS=${VNET_SOAK_ROUNDS:-1000}
need_built "$VNETD" "$BENCH" "$VNETCTL"
TMP=$(mktemp -d /tmp/vnetd-soak.XXXXXX)
cleanup_path "$TMP"

S=$TMP/p.sock C=$TMP/ctl.sock
"$VNETD" --socket "$S" --backend loop --queues 2 --ctl-socket "$C" 2>"$TMP/vnetd.log" &
VPID=$!; cleanup_pid "$VPID"
for _ in $(seq 100); do [ -S "$S" ] && [ -S "$C" ] && break; sleep 0.05; done
[ -S "$S" ] || { echo "Bail out! vnetd did not create $S"; cat "$TMP/vnetd.log"; exit 1; }

fds() { ls "/proc/$VPID/fd" | wc -l; }
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$VPID/status"; }
# vnetd's "disabled" drops over both TX rings of the port
disabled() {
	"$VNETCTL" status --socket "$C" --json | python3 -c '
import json, sys
p = json.load(sys.stdin)["ports"][0]
print(sum(q["tx"]["drops"]["disabled"] for q in p["pairs"]))'
}
# The frontend is gone once vnetd says so: only then compare fds
idle() {
	local i
	for i in $(seq 100); do
		"$VNETCTL" status --socket "$C" --json | grep -q '"connected":false' && return 0
		sleep 0.05
	done
	return 1
}
field() { python3 -c "import json,sys; print(json.load(open('$1'))['total']['$2'])"; }

# Warm-up: lazily allocated state (worker scratch, loop FIFO pages) settles
"$BENCH" --socket "$S" -q 2 --ctl-soak 50 --no-check-seq >/dev/null 2>&1
"$BENCH" --socket "$S" -q 2 --ctl-soak 50 --no-check-seq --packed >/dev/null 2>&1
idle
fd0=$(fds) rss0=$(rss)

t0=$(date +%s.%N)
for ring in split packed; do
	flag=; [ $ring = packed ] && flag=--packed
	"$BENCH" --socket "$S" -q 2 -d 600 $flag --ctl-soak "$ROUNDS" --ctl-soak-ops mem,log \
		--check-seq > "$TMP/ml.out" 2>&1; rc=$?
	grep -E "^total|sequence|ctl-soak" "$TMP/ml.out" | sed 's/^/# '"$ring"' mem,log: /'
	check "$ring: $ROUNDS rounds of ADD/REM_MEM_REG and SET_LOG_BASE + LOG_ALL on/off under traffic, every frame back once and in order (rc=$rc)" \
		eval '[ $rc = 0 ] && grep -q "^ctl-soak: vm 0: $ROUNDS of $ROUNDS rounds" "$TMP/ml.out"'

	idle; d0=$(disabled)
	"$BENCH" --socket "$S" -q 2 -d 600 $flag --ctl-soak "$ROUNDS" --ctl-soak-ops enable \
		--no-check-seq --json > "$TMP/en.json" 2>"$TMP/en.err"; rc=$?
	idle; d1=$(disabled)
	# Every frame sent comes back (loop) unless vnetd dropped it; the
	# bench drains what is in flight before it reports
	lost=$(( $(field "$TMP/en.json" tx_frames) - $(field "$TMP/en.json" rx_frames) ))
	dup=$(field "$TMP/en.json" dup_or_reordered)
	rx=$(field "$TMP/en.json" rx_frames)
	echo "# $ring enable: rx $rx frames, sent and not back $lost, vnetd disabled drops $((d1 - d0)), dup/reordered $dup"
	check "$ring: $ROUNDS rounds of SET_VRING_ENABLE off/on under traffic all answered (rc=$rc)" \
		eval '[ $rc = 0 ] && [ ! -s "$TMP/en.err" ]'
	check "$ring: traffic flowed through the enable rounds ($rx frames back)" [ "${rx:-0}" -gt 0 ]
	check "$ring: frames sent and not back = frames vnetd drained from the disabled TX ring ($lost = $((d1 - d0)))" \
		[ "$lost" = "$((d1 - d0))" ]
	check "$ring: nothing duplicated or reordered ($dup)" [ "$dup" = 0 ]
done
t1=$(date +%s.%N)
echo "# $((4 * ROUNDS)) rounds in $(python3 -c "print(round($t1 - $t0, 1))") s"

idle
fd1=$(fds) rss1=$(rss)
echo "# vnetd fds $fd0 -> $fd1, RSS $rss0 -> $rss1 KiB"
check "no fd growth over the rounds ($fd0 -> $fd1)" [ "$fd1" -le "$fd0" ]
check "RSS growth < 1 MiB over the rounds ($rss0 -> $rss1 KiB)" [ $((rss1 - rss0)) -lt 1024 ]
check "no connection closed on an error" \
	[ "$(grep -c 'closed the connection\|closing the connection' "$TMP/vnetd.log")" = 0 ]
check "no seccomp trap" eval '! grep -q "seccomp: blocked" "$TMP/vnetd.log"'
check "vnetd survived" kill -0 "$VPID"
echo "1..$N"
[ $FAILED = 0 ] || { echo "--- vnetd log (tail) ---"; tail -8 "$TMP/vnetd.log"; }
exit $FAILED
