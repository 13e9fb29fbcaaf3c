#!/usr/bin/env bash
# bench-vnetd-vs-dpdk.sh - bench/vnetd-vs-dpdk.sh, the benchmark docs/performance.md's
# figures come from, run for real in its shortest form (guest TX, 64 B, three
# rounds of one second per backend, no warm-up, DPDK testpmd's net_virtio_user in front
# of vnetd and of testpmd's net_vhost), and its table re-derived from its own
# round lines: every round measured something, `ratio` is the median vnetd
# round over the median DPDK round, `pair_ratio` the median of the per-round
# ratios (vnetd round i over DPDK round i). A correctness test of the
# script's arithmetic and plumbing, not a measurement: no figure is asserted.
# needs: root dpdk
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
need_built build/vnetd build/vnetctl
OUT=$(mktemp /tmp/bench-vvd.XXXXXX)
cleanup_path "$OUT"

# no warm-up: no figure is asserted, a first second still moves frames
BENCH_MODES=txonly BENCH_SIZES=64 BENCH_WARMUP=0 timeout 300 bench/vnetd-vs-dpdk.sh 1 3 > "$OUT" 2>&1
rc=$?
check "the benchmark exits 0 (got $rc)" [ "$rc" = 0 ]

# rounds SIDE: the Mpps of each of SIDE's round lines, one per line
rounds() {
	awk -v s="$1" '$1 == "txonly" && $2 == "64B" && $3 == s && $4 == "round" { print $6 }' "$OUT"
}

V=$(rounds vnetd) D=$(rounds dpdk)
three() { [ "$(wc -w <<< "$V")" = 3 ] && [ "$(wc -w <<< "$D")" = 3 ]; }
positive() { printf '%s\n%s\n' "$V" "$D" | awk '!($1 + 0 > 0) { bad = 1 } END { exit bad }'; }
check "three rounds per backend ($(echo $V) / $(echo $D))" three
check "every round moved frames" positive

row=$(awk '$1 == "txonly" && $2 == "64" { print; exit }' "$OUT")
check "the table has the txonly 64 B row: $row" [ -n "$row" ]
read -r _ _ tv td tratio tpair _ <<< "$row"
mv=$(med <<< "$V") md=$(med <<< "$D")
want_ratio=$(awk -v a="$mv" -v b="$md" 'BEGIN { printf "%.2f", a / b }')
want_pair=$(paste -d ' ' <(echo "$V") <(echo "$D") | awk '{ print $1 / $2 }' | med |
	    awk '{ printf "%.2f", $1 }')
check "median vnetd round $tv = $mv" near "$tv" "$mv"
check "median DPDK round $td = $md" near "$td" "$md"
check "ratio $tratio = median over median $want_ratio" near "$tratio" "$want_ratio"
check "pair_ratio $tpair = median of the round ratios $want_pair" near "$tpair" "$want_pair"
[ "$FAILED" = 0 ] || sed 's/^/# /' "$OUT"
exit "$FAILED"
