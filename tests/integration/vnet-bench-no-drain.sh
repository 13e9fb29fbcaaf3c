#!/usr/bin/env bash
# needs: none
# vnet-bench-no-drain.sh - vnet-bench --no-drain stops the count at the end
# of the window. Against vnetd --backend gen (a sender that never stops, as
# another VM behind a switch is), rx-only for 1 s: with --no-drain the run
# counts frames (> 0); without it the workers drain after the window until
# 200 ms pass without a frame or 8 s are up, which a generator never lets
# happen, so the default run counts over twice as many frames. Prints TAP
# lines.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
need_built build/vnetd build/vnet-bench
run() {
	VNETD=$PWD/build/vnetd timeout 60 build/vnet-bench --spawn --spawn-backend gen \
		--mode rx-only --no-check-seq -d 1 --json "$@" 2>&1
}
out=$(run --no-drain)
nd=$(bench_field rx_frames "$out")
check "--no-drain: frames counted in the window (${nd:-none})" \
	awk -v n="${nd:-0}" 'BEGIN { exit !(n > 0) }'
out=$(run)
d=$(bench_field rx_frames "$out")
check "without it the drain counts on: ${d:-none} > 2 x ${nd:-none}" \
	awk -v a="${d:-0}" -v b="${nd:-0}" 'BEGIN { exit !(b > 0 && a > 2 * b) }'
echo "1..$N"
exit "$FAILED"
