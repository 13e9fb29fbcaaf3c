#!/usr/bin/env bash
# bench-tap-read.sh - bench/tap-read.sh, the syscall-level measurement of the
# TAP read engines (readv, batched io_uring READs, one multishot READ), runs
# end to end in its shortest form: one round of one second at 50 kpps. Each
# engine must read at least half of what the sender offered (50,000 frames)
# and report a CPU time per frame; an engine this kernel refuses (multishot
# reads need Linux 6.7) is a visible skip, not a pass. A test of the
# measuring tool: no figure is asserted.
# needs: root netns tun
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
OUT=$(mktemp /tmp/bench-tap-read.XXXXXX)
cleanup_path "$OUT"
BENCH_ROUNDS=1 BENCH_SECS=1 BENCH_RATES=50000 timeout 120 bench/tap-read.sh > "$OUT" 2>&1
rc=$?
[ "$rc" = 77 ] && skip_all "$(tail -n 1 "$OUT")"
check "bench/tap-read.sh exits 0 (got $rc)" [ "$rc" = 0 ]
enough() { [ -n "$frames" ] && [ "$frames" -ge 25000 ]; }
timed() { awk -v v="$nspf" 'BEGIN { exit !(v > 0) }'; }
for m in readv batch multishot; do
	if grep -q "^# $m: refused here" "$OUT"; then
		ok_skip "$m" "$(grep "^# $m: refused here" "$OUT")"
		continue
	fi
	frames=$(awk -v m="$m:" '$1 == "round" && $4 == m { print $5 }' "$OUT")
	nspf=$(awk -v m="$m" '$1 == "50000" && $2 == m { print $3 }' "$OUT")
	check "$m read ${frames:-no} frames of 50000 offered" enough
	check "$m: ${nspf:-no} ns of CPU a frame" timed
done
[ "$FAILED" = 0 ] || sed 's/^/# /' "$OUT"
exit "$FAILED"
