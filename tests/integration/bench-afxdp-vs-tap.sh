#!/usr/bin/env bash
# bench-afxdp-vs-tap.sh - bench/afxdp-vs-tap.sh run for real in its shortest
# form (one round of 1 s, guest TX and guest RX from a sender as fast as it
# can), so that the script still works: every contestant that can run here
# printed a round line with a rate for every case, and the table has a rate
# in each of its columns. A test of the script's plumbing, not a
# measurement: no rate is compared with anything; the one bound checked is
# that guest TX takes fewer than one system call per two frames on both
# host sides (bursts of 16, one sendto or io_uring_enter each). VNETD_OLD
# (the same binary here) adds the af_xdp_old contestant: its round lines and
# the last table, whose new_vs_old is the one round's CPU-per-frame ratio.
#
# Skips, saying why, without libxdp in the build (the script then exits 77)
# or without XDP on veth; the DPDK testpmd contestant is checked where
# dpdk-testpmd is installed and reported skipped, with the reason, where not.
# needs: root netns tun
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
need_built build/vnetd build/vnet-bench
OUT=$(mktemp /tmp/bench-afxdp.XXXXXX)
cleanup_path "$OUT"

VNETD_OLD=$PWD/build/vnetd RX_RATES=0 timeout 240 bench/afxdp-vs-tap.sh 1 1 > "$OUT" 2>&1
rc=$?
[ "$rc" = 77 ] && skip_all "bench/afxdp-vs-tap.sh cannot run here: $(sed -n 's/^SKIP: //p' "$OUT" | head -n 1)"
check "the benchmark exits 0 (got $rc)" [ "$rc" = 0 ]

# round_val BACKEND CASE KEY: KEY's value in that round line, empty if there is none
round_val() { awk -v b="$1" -v c="$2" -v k="$3=" '$1 == "round" && $3 == b && $4 == c {
	for (i = 5; i <= NF; i++) if (index($i, k) == 1) print substr($i, length(k) + 1); exit }' "$OUT"; }
positive() { awk -v v="$1" 'BEGIN { exit !(v + 0 > 0) }'; }
contestants="af_xdp tap af_xdp_old"
if command -v "${TESTPMD:-dpdk-testpmd}" > /dev/null; then
	contestants="$contestants dpdk"
else
	ok_skip "dpdk testpmd rounds" "dpdk-testpmd not installed (apt-get install dpdk)"
fi
for b in $contestants; do
	for c in tx rx@0; do
		r=$(round_val "$b" "$c" mpps)
		check "$b $c: a rate is printed and frames moved (mpps=${r:-none})" positive "${r:-0}"
	done
done
for c in tx rx@0; do
	row=$(awk -v c="$c" '$1 == c && NF == 11 { print; exit }' "$OUT")
	read -r _ a t _ vs _ _ _ sa st _ <<< "$row"
	check "table row $c: af_xdp ${a:-none}, tap ${t:-none} Mpps and their ratio ${vs:-none}" \
		eval 'positive "${a:-0}" && positive "${t:-0}" && positive "${vs:-0}"'
	[ "$c" = tx ] || continue
	# guest TX leaves in bursts: fewer system calls than frames on both host sides
	if grep -q '^# perf cannot count' "$OUT"; then
		ok_skip "tx: system calls per frame" "perf cannot count raw_syscalls:sys_enter here"
		continue
	fi
	check "tx: af_xdp ${sa:-none} and tap ${st:-none} system calls per frame, each in (0, 0.5)" \
		eval 'positive "${sa:-0}" && positive "${st:-0}" &&
		      awk -v a="$sa" -v t="$st" "BEGIN { exit !(a < 0.5 && t < 0.5) }"'
done
for c in tx rx@0; do
	row=$(awk -v c="$c" '$1 == c && NF == 4 { print; exit }' "$OUT")
	read -r _ n o r <<< "$row"
	check "old-build table $c: af_xdp ${n:-none} and af_xdp_old ${o:-none} ns a frame, as the rounds; new_vs_old ${r:-none} their ratio" \
		eval '[ "${n:-x}" = "$(round_val af_xdp "$c" cpu_ns)" ] &&
		      [ "${o:-x}" = "$(round_val af_xdp_old "$c" cpu_ns)" ] &&
		      awk -v n="$n" -v o="$o" -v r="$r" "BEGIN { d = n / o - r; exit !(o > 0 && r > 0 && d < 0.0006 && d > -0.0006) }"'
done
[ "$FAILED" = 0 ] || sed 's/^/# /' "$OUT"
exit "$FAILED"
