#!/usr/bin/env bash
# bench-item-scripts.sh - the multiqueue, many-VM and soak benchmark scripts run
# end to end in their shortest form, and each table is re-derived from the
# script's own round lines, so that each still works on the machine it is
# meant for (mq-scaling needs a 16-core one that this host is not):
#   bench/mq-scaling.sh: 1 and 2 queue pairs, 3 rounds of 1 s: mpps is
#                        the median of a count's rounds, speedup the ratio to 1
#                        pair, per_pair_eff the speedup over the pair count; a
#                        run that fails (a vnetd that exits at once) makes the
#                        script exit 1 and say so, and leaves that count
#                        without figures
#   bench/many-vms.sh   : 4 VMs on the pool against 1, 3 rounds: agg_mpps,
#                        vs_single, fairness and the RSS per idle port from the
#                        round lines
#   bench/tap-rx-load.sh: 100 kpps through the TAP, 3 rounds: the
#                        medians of received frames, loss and CPU per frame
#                        (needs root, network namespaces and /dev/net/tun)
# A test of the measuring tools: no figure is asserted, only that the guest
# got frames and that the arithmetic holds.
# The tap-rx-load part skips, saying why, without root, netns or tun.
# needs: none
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
. tests/lib/needs.sh
need_built build/vnetd build/vnet-bench
D=$(mktemp -d /tmp/bench-items.XXXXXX)
cleanup_path "$D"

div() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.4f", a / b; else print "nan" }'; }
three() { [ "$(wc -w <<< "$1")" = 3 ]; }
positive() { awk '!($1 > 0) { bad = 1 } END { exit bad || !NR }' <<< "$1"; }

# --- item 6: bench/mq-scaling.sh
BENCH_PAIRS="1 2" ROUNDS=3 SECS=1 timeout 120 bench/mq-scaling.sh > "$D/mq" 2>&1
rc=$?
check "mq-scaling: exits 0 (got $rc)" [ "$rc" = 0 ]
check "mq-scaling: names the machine at the start and the end" \
	eval '[ "$(grep -c "^# \(start\|end\): .*CPUs, load average" "$D/mq")" = 2 ]'
mq_rounds() { awk -v p="$1" '$1 == "#" && $2 == "round" && $4 == p { print $6 }' "$D/mq"; }
mq_row() { awk -v p="$1" '$1 == p && NF == 4 { print; exit }' "$D/mq"; }
R1=$(mq_rounds 1) R2=$(mq_rounds 2)
check "mq-scaling: three rounds per pair count ($(echo $R1) / $(echo $R2))" \
	eval 'three "$R1" && three "$R2"'
check "mq-scaling: every round moved frames" positive "$R1"$'\n'"$R2"
read -r _ t1 _ _ <<< "$(mq_row 1)"
read -r _ t2 s2 e2 <<< "$(mq_row 2)"
m1=$(med <<< "$R1") m2=$(med <<< "$R2")
check "mq-scaling: 1 pair ${t1:-none} Mpps = median of its rounds $m1" near "${t1:-0}" "$m1" 0.0002
check "mq-scaling: 2 pairs ${t2:-none} Mpps = median of its rounds $m2" near "${t2:-0}" "$m2" 0.0002
want=$(div "$m2" "$m1")
check "mq-scaling: speedup ${s2:-none} = $m2 / $m1 = $want" near "${s2:-0}" "$want" 0.006
check "mq-scaling: per_pair_eff ${e2:-none} = speedup / 2" near "${e2:-0}" "$(div "$want" 2)" 0.006
VNETD=/bin/false BENCH_PAIRS=1 ROUNDS=1 SECS=1 timeout 60 bench/mq-scaling.sh > "$D/mq-fail" 2>&1
rc=$?
check "mq-scaling: a run that fails (VNETD=/bin/false) makes it exit 1 (got $rc) and say FAILED" \
	eval '[ "$rc" = 1 ] && grep -q "^# round 1, 1 pairs: FAILED" "$D/mq-fail"'
check "mq-scaling: a pair count without a good run has no figures, and no shell error" \
	eval 'grep -Eq "^1 +- +- +-$" "$D/mq-fail" && ! grep -q "No such file\|syntax error" "$D/mq-fail"'

# --- item 5: bench/many-vms.sh
VMS=4 ROUNDS=3 SECS=1 MODELS=pool timeout 180 bench/many-vms.sh > "$D/vms" 2>&1
rc=$?
check "many-vms: exits 0 (got $rc)" [ "$rc" = 0 ]
# vms_rounds CASE FIELD: FIELD 1..4 of CASE's round lines (RSS KiB, shmem KiB, Mpps, slowest/mean)
vms_rounds() {
	sed -n "s/^# round [0-9]* $1: vnetd RSS \([0-9]*\) KiB (shmem \([0-9]*\)), [0-9]* threads; \([0-9.]*\) Mpps, slowest\/mean \([0-9.]*\), ok\$/\1 \2 \3 \4/p" \
		"$D/vms" | awk -v f="$2" '{ print $f }'
}
S=$(vms_rounds single 3) P=$(vms_rounds pool 3)
check "many-vms: three rounds per case ($(echo $S) / $(echo $P))" eval 'three "$S" && three "$P"'
check "many-vms: every round moved frames" positive "$S"$'\n'"$P"
read -r _ _ _ rss anon agg vs fair <<< "$(awk '$1 == "pool" && $2 == 4 { print; exit }' "$D/vms")"
read -r _ _ _ _ _ sagg _ <<< "$(awk '$1 == "single" && $2 == 1 { print; exit }' "$D/vms")"
ms=$(med <<< "$S") mp=$(med <<< "$P")
check "many-vms: single ${sagg:-none} Mpps = median of its rounds $ms" near "${sagg:-0}" "$ms" 0.0002
check "many-vms: pool ${agg:-none} Mpps = median of its rounds $mp" near "${agg:-0}" "$mp" 0.0002
want=$(div "$mp" "$ms")
check "many-vms: vs_single ${vs:-none} = $mp / $ms = $want" near "${vs:-0}" "$want" 0.006
want=$(vms_rounds pool 4 | med)
check "many-vms: fairness ${fair:-none} = median slowest/mean of the pool rounds $want" \
	near "${fair:-0}" "$want" 0.0002
# per_port FIELD: each round's (pool - single) / 3 ports, integer KiB, as the script does
per_port() {
	paste -d ' ' <(vms_rounds pool "$1") <(vms_rounds single "$1") |
		awk '{ print int(($1 - $2) / 3) }'
}
want=$(per_port 1 | med)
check "many-vms: rss_port_kib ${rss:-none} = median of (pool RSS - single RSS) / 3 ports = $want" \
	near "${rss:-0}" "$want" 0.06
want=$(paste -d ' ' <(per_port 1) <(per_port 2) | awk '{ print $1 - $2 }' | med)
check "many-vms: anon_port_kib ${anon:-none} = the same without RssShmem = $want" \
	near "${anon:-0}" "$want" 1.01

# --- item 4: bench/tap-rx-load.sh
rc=77
if why=$(needs_probe root) && why=$(needs_probe netns) && why=$(needs_probe tun); then
	BENCH_ROUNDS=3 BENCH_SECS=1 BENCH_RATES=100000 BENCH_PAIRS=1 timeout 120 \
		bench/tap-rx-load.sh > "$D/rx" 2>&1
	rc=$?
	why=$(tail -n 1 "$D/rx")
fi
if [ "$rc" = 77 ]; then
	ok_skip "tap-rx-load" "$why"
else
	check "tap-rx-load: exits 0 (got $rc)" [ "$rc" = 0 ]
	# rx_rounds N: field N of the round lines (1 offered/s, 2 received/s, 3 loss %, 5 us/frame)
	rx_rounds() {
		awk -v f="$1" '$1 == "#" && $2 == "round" && $5 == "rate=100000:" { print $(10 + f) }' "$D/rx"
	}
	G=$(rx_rounds 2)
	check "tap-rx-load: three rounds ($(echo $G) frames/s received)" three "$G"
	check "tap-rx-load: the guest received at least half of what was offered in each round" \
		awk '$1 < 50000 { bad = 1 } END { exit bad || NR != 3 }' <<< "$G"
	read -r _ _ _ rkpps loss _ upf <<< "$(awk '$1 == 1 && $2 == 100000 { print; exit }' "$D/rx")"
	want=$(med <<< "$G" | awk '{ printf "%.1f", $1 / 1000 }')
	check "tap-rx-load: received_kpps ${rkpps:-none} = median of the rounds / 1000 = $want" \
		near "${rkpps:-0}" "$want" 0.06
	want=$(rx_rounds 3 | med)
	check "tap-rx-load: loss_% ${loss:-none} = median of the rounds $want" near "${loss:-x}" "$want" 0.006
	want=$(rx_rounds 5 | med)
	check "tap-rx-load: us_per_frame ${upf:-none} = median of the rounds $want (> 0)" \
		eval 'near "${upf:-0}" "$want" 0.006 && positive "$want"'
fi
[ "$FAILED" = 0 ] || for f in "$D"/*; do sed "s|^|# $(basename "$f"): |" "$f"; done
exit "$FAILED"
