#!/usr/bin/env bash
# tap-write.sh - batched submission into a TAP, measured: frames/s
# one CPU writes into a TAP with one writev() per frame (what vnetd does)
# against io_uring, BATCH writev SQEs per io_uring_enter() (bench/tap-write.c).
# The TAP lives in a private network namespace; rounds alternate the two
# modes; the table gives medians of the rounds.
#
# Usage: bench/tap-write.sh
# Env:   BENCH_ROUNDS (7), BENCH_SECS (1), BENCH_BATCH (32), BENCH_CPU (1)
# Output: one line per round, then "mode batch median_mpps rounds...".
# Exit: 0 done, 77 skipped (no root, no liburing-dev, no io_uring), 1 failed.
# needs: root netns tun cc liburing-dev
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/lib/common.sh
ROUNDS=${BENCH_ROUNDS:-7}
SECS=${BENCH_SECS:-1}
BATCH=${BENCH_BATCH:-32}
CPU=${BENCH_CPU:-1}
BIN=$PWD/build/bench/tap-write
[ "$(id -u)" = 0 ] || skip_all "needs root (a TAP in a network namespace)"
[ -c /dev/net/tun ] || skip_all "no /dev/net/tun"
if [ ! -x "$BIN" ] || [ bench/tap-write.c -nt "$BIN" ]; then
	mkdir -p build/bench
	${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$BIN" bench/tap-write.c -luring ||
		skip_all "cannot build bench/tap-write.c (apt-get install liburing-dev)"
fi
NS=vntw$$
ip netns add "$NS" || exit 1
trap 'ip netns del "$NS" 2>/dev/null' EXIT
declare -A R=()
for r in $(seq "$ROUNDS"); do
	for m in writev uring; do
		out=$(ip netns exec "$NS" taskset -c "$CPU" "$BIN" tw0 "$m" "$SECS" "$BATCH") || {
			rc=$?; [ "$rc" = 77 ] && skip_all "no io_uring here"; echo "round $r $m failed"; exit 1; }
		echo "round $r: $out"
		R[$m]+=" ${out##* }"
	done
done
for m in writev uring; do
	# shellcheck disable=SC2086  # one number per word
	med=$(printf '%s\n' ${R[$m]} | sort -g | awk '{v[n++] = $1} END {print v[int(n / 2)]}')
	echo "$m $([ $m = uring ] && echo "$BATCH" || echo 1) $med Mpps (rounds:${R[$m]})"
done
