#!/usr/bin/env bash
# loop.sh - throughput of vnet-bench (the frontend library) against vnetd's loop
# backend, both ours, one process each, nothing else in the path: the cost of the
# vhost-user data path itself. Per case one vnet-bench --spawn run of SECONDS.
#
# Usage: bench/loop.sh [SECONDS]   (measurement window per case, default 5)
# Env:   BENCH_MODES ("tx-only bidirectional ping-pong"), BENCH_RINGS ("split packed"),
#        BENCH_PAIRS ("1 4"), BENCH_SIZES ("64 1500"), VNET_BENCH, VNETD
# Output: one line per case, then a table:
#   mode ring pairs size tx_mpps rx_mpps rx_gbps
# A case whose sequence check fails (a frame lost, duplicated or reordered) is marked
# BAD and makes the exit status 1; tests/integration/vnet-bench-loop.sh is the test.
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/lib/common.sh
SECS=${1:-5}
BENCH=${VNET_BENCH:-build/vnet-bench}
VNETD=${VNETD:-build/vnetd}
export VNETD
[ -x "$BENCH" ] && [ -x "$VNETD" ] || { echo "$BENCH or $VNETD not built (run make)"; exit 1; }
ROWS=()
for mode in ${BENCH_MODES:-tx-only bidirectional ping-pong}; do
	for ring in ${BENCH_RINGS:-split packed}; do
		rf=; [ "$ring" = packed ] && rf=--packed
		for pairs in ${BENCH_PAIRS:-1 4}; do
			for size in ${BENCH_SIZES:-64 1500}; do
				out=$(timeout $((SECS + 60)) "$BENCH" --spawn --check-seq --json -d "$SECS" \
					$rf --pairs "$pairs" --mode "$mode" --size "$size" 2>&1)
				rc=$?
				v="$(bench_field tx_mpps "$out") $(bench_field rx_mpps "$out") $(bench_field rx_gbps "$out")"
				grep -q '"ok": true' <<< "$out" && [ "$rc" = 0 ] || { v="$v BAD(rc=$rc)"; FAILED=1; }
				echo "# $mode $ring pairs=$pairs size=$size: tx/rx Mpps, rx Gbit/s: $v"
				ROWS+=("$mode $ring $pairs $size $v")
			done
		done
	done
done
{
	echo "mode ring pairs size tx_mpps rx_mpps rx_gbps"
	printf '%s\n' "${ROWS[@]}"
} | column -t
exit $FAILED
