#!/usr/bin/env bash
# needs: python3
# bench-insn.sh - bench/insn-per-frame.sh, the instruction count the data path is checked
# against, still works: one short split-ring guest RX case under callgrind gives an
# "insn" line and a table row whose figure is a plausible count per frame (the script's
# own total over packets, re-derived here from its callgrind file and vnetctl's count).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
need_built build/vnetd build/vnet-bench build/vnetctl
command -v valgrind > /dev/null || skip_all "valgrind missing (apt-get install valgrind)"
TMP=$(mktemp -d /tmp/bench-insn.XXXXXX)
cleanup_path "$TMP"
BENCH_SECS=1 BENCH_RINGS=split BENCH_OUT=$TMP bench/insn-per-frame.sh rx > "$TMP/out" 2>&1
rc=$?
check "insn-per-frame.sh rx exits 0 ($rc: $(tail -3 "$TMP/out" | tr '\n' ' '))" test "$rc" = 0
read -r _ ring c ipf pk < <(grep '^insn ' "$TMP/out")
check "one insn line for split rx (${ring:-?} ${c:-?})" test "${ring:-} ${c:-}" = "split rx"
check "at least 100,000 frames counted (${pk:-none})" test "${pk:-0}" -ge 100000
tot=$(sed -n 's/^summary: //p' "$TMP/cg.split.rx")
check "the figure is callgrind's total over the packets ($tot / $pk = $ipf)" \
	awk -v t="${tot:-0}" -v p="${pk:-1}" -v f="${ipf:-0}" 'BEGIN { d = t / p - f; exit !(d < 0.1 && d > -0.1) }'
check "and plausible for a frame: 100..2000 instructions ($ipf)" \
	awk -v f="${ipf:-0}" 'BEGIN { exit !(f >= 100 && f <= 2000) }'
check "the table has the row (split $ipf)" grep -q "^split  *$ipf\$" "$TMP/out"
echo "1..$N"
exit $FAILED
