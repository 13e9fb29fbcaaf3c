#!/usr/bin/env bash
# many-vms.sh - many VMs on one vnetd. One vnetd with VMS
# ports (loop backend, one queue pair each), driven by one vnet-bench --vms VMS
# (one emulated VM per port, each its own connection and memory), against one
# VM alone on one vnetd port, on the same cores, in the same run: ROUNDS rounds,
# the cases in alternating order, medians.
#
# Cases: "single" (1 port, 1 VM), and VMS ports under each vnetd thread model
# of MODELS: "pool" (--worker-threads auto: a pool sized to the CPUs serves
# every port's pairs) and "per-pair" (--worker-threads 0: a thread per pair).
# Per many-VM case:
#   rss_port_kib  vnetd VmRSS per idle port (ports made, frontends connected,
#                 no traffic: vnet-bench --mode rx-only, loop sends nothing),
#                 the 1-port figure subtracted, over VMS - 1 ports
#   anon_port_kib the same minus RssShmem: without the guest memory vnetd maps
#                 (rings and buffers live there), i.e. vnetd's own cost
#   threads       /proc/PID/status Threads of vnetd, idle
#   agg_mpps      frames/s back to the VMs, all VMs (bidirectional, 64 B)
#   vs_single     agg_mpps over the single-VM case's median  (target >= 0.90)
#   fairness      slowest VM's rate over the mean             (target >= 0.80)
# RSS targets: rss per idle port <= 1 MiB plus its rings.
#
# Usage: bench/many-vms.sh
# Env:   VMS (64), ROUNDS (3), SECS (3: window per run), MODELS ("pool per-pair"),
#        VNETD_CPUS / BENCH_CPUS (taskset lists; default: no pinning, both share
#        all CPUs), VNETD, VNET_BENCH
# Takes about ROUNDS * (3 + 2 * (SECS + 6)) s: ~75 s with the defaults.
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/lib/common.sh
. bench/lib.sh
VMS=${VMS:-64}
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-3}
MODELS=${MODELS:-pool per-pair}
BENCH=${VNET_BENCH:-build/vnet-bench}
VNETD=${VNETD:-build/vnetd}
[ -x "$BENCH" ] && [ -x "$VNETD" ] || { echo "$BENCH or $VNETD not built (run make)"; exit 1; }
[ "$VMS" -ge 2 ] && [ "$VMS" -le 64 ] || { echo "VMS=$VMS: must be 2..64"; exit 2; }
D=$(mktemp -d /tmp/many-vms.XXXXXX)
cleanup_path "$D"
# pin CPUS CMD...: exec CMD (under taskset when CPUS is set); run it in a subshell
pin() { local cpus=$1; shift; if [ -n "$cpus" ]; then exec taskset -c "$cpus" "$@"; else exec "$@"; fi; }
export -f pin
stat_kib() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }
jfield() { sed -n "s/.*\"$1\": \([0-9.]*\).*/\1/p" <<< "$2" | head -n 1; }

echo "# many-vms: $VMS VMs, 1 pair each, loop backend, ${SECS}s windows, $ROUNDS rounds, $(nproc) CPUs"
echo "# vnetd CPUs: ${VNETD_CPUS:-all}, vnet-bench CPUs: ${BENCH_CPUS:-all}"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

# start_vnetd N MODEL: vnetd with N loop ports in $D/<case>, PID in $VPID
start_vnetd() {
	local n=$1 model=$2 i args=() wt=0
	[ "$model" = pool ] && wt=auto
	rm -rf "$D/run"; mkdir -p "$D/run"
	for ((i = 0; i < n; i++)); do
		args+=(--port "socket=$D/run/s$i,backend=loop,name=vm$i")
	done
	pin "${VNETD_CPUS:-}" "$VNETD" --ctl-socket "$D/run/ctl" --sandbox off --log-level warn \
		--worker-threads "$wt" "${args[@]}" 2> "$D/vnetd.log" &
	VPID=$!
	wait_sock "$D/run/s$((n - 1))" 10 "$VPID" || { echo "vnetd did not start:"; cat "$D/vnetd.log"; exit 1; }
	SOCKS=()
	for ((i = 0; i < n; i++)); do SOCKS+=(-s "$D/run/s$i"); done
}

# idle_rss N: VmRSS, RssShmem (KiB) and Threads with N frontends connected, no traffic
idle_rss() {
	local n=$1 bp
	(pin "${BENCH_CPUS:-}" "$BENCH" "${SOCKS[@]}" --vms "$n" --mode rx-only -d 2 --json > /dev/null 2>&1) &
	bp=$!
	sleep 1.5
	echo "$(stat_kib "$VPID" VmRSS) $(stat_kib "$VPID" RssShmem) $(awk '$1 == "Threads:" {print $2}' "/proc/$VPID/status")"
	wait "$bp" 2> /dev/null
}

# traffic N: "agg_mpps fairness ok" of one bidirectional run
traffic() {
	local n=$1 out
	out=$(timeout $((SECS + 60)) bash -c 'pin "$@"' pin "${BENCH_CPUS:-}" \
		"$BENCH" "${SOCKS[@]}" --vms "$n" --mode bidirectional --check-seq --json -d "$SECS" 2>&1)
	local rc=$?
	echo "$(bench_field rx_mpps "$out") $(jfield min_over_mean "$out") $([ $rc = 0 ] && grep -q '"ok": true' <<< "$out" && echo ok || echo BAD)"
}

FAILED=0
BASE_RSS=; BASE_SHM=
run_case() {
	local c=$1 n=1 model=pool r
	[ "$c" != single ] && { n=$VMS; model=$c; }
	start_vnetd "$n" "$model"
	read -r -a r <<< "$(idle_rss "$n")"
	if [ "$c" = single ]; then
		BASE_RSS=${r[0]}; BASE_SHM=${r[1]}
	else
		echo "$(((r[0] - BASE_RSS) / (n - 1)))" >> "$D/$c.rss"
		echo "$(((r[0] - r[1] - BASE_RSS + BASE_SHM) / (n - 1)))" >> "$D/$c.anon"
		echo "${r[2]}" >> "$D/$c.thr"
	fi
	read -r -a t <<< "$(traffic "$n")"
	[ "${t[2]}" = ok ] || { FAILED=1; echo "# $c: sequence check or run FAILED"; }
	echo "${t[0]}" >> "$D/$c.mpps"; echo "${t[1]}" >> "$D/$c.fair"
	echo "# round $round $c: vnetd RSS ${r[0]} KiB (shmem ${r[1]}), ${r[2]} threads; ${t[0]} Mpps, slowest/mean ${t[1]}, ${t[2]}"
	stop_pid "$VPID"
}

read -r -a CASES <<< "single $MODELS"
for ((round = 1; round <= ROUNDS; round++)); do
	order=("${CASES[@]}")
	# alternate: odd rounds forward, even rounds backward (single stays first:
	# its idle RSS is the baseline the others subtract)
	if ((round % 2 == 0)); then
		rev=(); for ((i = ${#CASES[@]} - 1; i >= 1; i--)); do rev+=("${CASES[$i]}"); done
		order=(single "${rev[@]}")
	fi
	for c in "${order[@]}"; do run_case "$c"; done
done

S=$(bench_median < "$D/single.mpps")
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
{
	echo "case vms threads rss_port_kib anon_port_kib agg_mpps vs_single fairness"
	echo "single 1 - - - $S 1.00 -"
	for c in $MODELS; do
		m=$(bench_median < "$D/$c.mpps")
		echo "$c $VMS $(bench_median < "$D/$c.thr") $(bench_median < "$D/$c.rss") $(bench_median < "$D/$c.anon")" \
			"$m $(awk -v a="$m" -v b="$S" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')" \
			"$(bench_median < "$D/$c.fair")"
	done
} | column -t
exit $FAILED
