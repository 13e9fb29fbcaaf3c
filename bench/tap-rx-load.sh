#!/usr/bin/env bash
# tap-rx-load.sh - what host -> guest traffic through a TAP costs vnetd at a
# given offered rate: vnetd (backend tap) in a private network namespace,
# vnet-bench as the guest (rx-only, sleeping on its call eventfd), and
# bench/tap-sender (AF_PACKET sendmmsg, paced) writing 64 B UDP frames into
# the TAP from the host side. Per case: frames offered, frames the guest
# received, loss, vnetd's CPU (the sum of its threads' run time from
# /proc/PID/task/*/schedstat over the window, ns resolution) and the CPU per
# received frame. Rounds alternate the cases; the table gives medians.
#
# Usage: bench/tap-rx-load.sh
# Env:   BENCH_ROUNDS (3), BENCH_SECS (window per case, 2), BENCH_RATES
#        ("100000 200000 500000 max"), BENCH_PAIRS ("1 2"), VNETD_ARGS (extra
#        vnetd options, e.g. "--poll-us 20"), CPU_VNETD (0), CPU_GUEST (1),
#        CPU_SENDER (1): taskset CPU lists. VNETD, VNET_BENCH: binaries.
#        BENCH_PERF: a profiler run on vnetd over each window as
#        "$BENCH_PERF -p PID -- sleep SECS", its output on stderr (e.g.
#        "perf stat -e raw_syscalls:sys_enter,context-switches").
# needs: root netns tun cc
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/lib/common.sh
ROUNDS=${BENCH_ROUNDS:-3}
SECS=${BENCH_SECS:-2}
RATES=${BENCH_RATES:-100000 200000 500000 max}
PAIRS=${BENCH_PAIRS:-1 2}
CPU_VNETD=${CPU_VNETD:-0}
CPU_GUEST=${CPU_GUEST:-1}
CPU_SENDER=${CPU_SENDER:-1}
VNETD=${VNETD:-$PWD/build/vnetd}
BENCH=${VNET_BENCH:-$PWD/build/vnet-bench}
SENDER=$PWD/build/bench/tap-sender
need_built "$VNETD" "$BENCH"
[ -c /dev/net/tun ] || skip_all "no /dev/net/tun"
if [ ! -x "$SENDER" ] || [ bench/tap-sender.c -nt "$SENDER" ]; then
	mkdir -p build/bench
	${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$SENDER" bench/tap-sender.c ||
		skip_all "cannot build bench/tap-sender.c"
fi
NS=vnload$$
TAP=vnlt$$
SOCK=/tmp/vnet-load-$$.sock
LOG=/tmp/vnet-load-$$.log
OUT=/tmp/vnet-load-$$.out
netns_new "$NS" || skip_all "cannot create a network namespace (needs root)"
VPID='' BPID=''
cleanup_run 'stop_pid "$BPID"; stop_pid "$VPID"'
cleanup_path "$SOCK"; cleanup_path "$LOG"; cleanup_path "$OUT"

# run time of every thread of PID, ns
cpu_ns() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{s += $1} END {printf "%d\n", s}'
}

# one case: PAIRS RATE -> "offered received loss_pct cpu_pct us_per_frame"
run_case() {
	local q=$1 rate=$2 r c0 c1 s res rx sent secs _
	r=$rate
	[ "$rate" = max ] && r=0
	rm -f "$SOCK"
	# shellcheck disable=SC2086  # VNETD_ARGS is a list of options
	ip netns exec "$NS" taskset -c "$CPU_VNETD" "$VNETD" --socket "$SOCK" \
		--backend tap --tap "$TAP" --queues "$q" ${VNETD_ARGS:-} > "$LOG" 2>&1 &
	VPID=$!
	wait_sock "$SOCK" 5 "$VPID" || { echo "vnetd did not start:" >&2; cat "$LOG" >&2; return 1; }
	taskset -c "$CPU_GUEST" "$BENCH" --socket "$SOCK" --mode rx-only --pairs "$q" \
		--ring 1024 --json -d 600 > "$OUT" 2>&1 &
	BPID=$!
	for _ in $(seq 100); do
		ip -n "$NS" link set "$TAP" up txqueuelen 1000 2>/dev/null && break
		sleep 0.05
	done
	ip netns exec "$NS" sysctl -qw net.ipv6.conf."$TAP".disable_ipv6=1 2>/dev/null
	sleep 0.3
	c0=$(cpu_ns "$VPID")
	# shellcheck disable=SC2086  # BENCH_PERF is a command line
	[ -n "${BENCH_PERF:-}" ] && { $BENCH_PERF -p "$VPID" -- sleep "$SECS" >&2 & }
	s=$(ip netns exec "$NS" taskset -c "$CPU_SENDER" "$SENDER" "$TAP" "$r" "$SECS" 64)
	sleep 0.2	# what is still queued reaches the guest
	c1=$(cpu_ns "$VPID")
	kill -INT "$BPID"; wait "$BPID" 2>/dev/null; BPID=
	res=$(cat "$OUT")
	stop_pid "$VPID"; VPID=
	sent=$(sed -n 's/.*sent=\([0-9]*\).*/\1/p' <<< "$s")
	secs=$(sed -n 's/.*secs=\([0-9.]*\).*/\1/p' <<< "$s")
	rx=$(bench_field rx_frames "$res")
	[ -n "$sent" ] && [ -n "$rx" ] && [ "$sent" -gt 0 ] ||
		{ echo "case q=$q rate=$rate failed: sender '$s'; bench: $(tail -n 3 <<< "$res")" >&2; return 1; }
	awk -v sent="$sent" -v rx="$rx" -v secs="$secs" -v c0="$c0" -v c1="$c1" 'BEGIN {
		d = c1 - c0; loss = sent > rx ? 100 * (sent - rx) / sent : 0
		printf "%.0f %.0f %.2f %.1f %.2f\n", sent / secs, rx / secs, loss,
			100 * d / (secs + 0.2) / 1e9, rx ? d / rx / 1000 : 0 }'
}

median() { sort -g | awk '{v[NR] = $1} END {print NR ? v[int((NR + 1) / 2)] : "-"}'; }

declare -A V
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for ((round = 1; round <= ROUNDS; round++)); do
	for q in $PAIRS; do
		for rate in $RATES; do
			line=$(run_case "$q" "$rate") || { FAILED=1; continue; }
			echo "# round $round pairs=$q rate=$rate: offered/s received/s loss% cpu% us/frame: $line"
			V[$q,$rate]+="$line"$'\n'
		done
	done
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)
echo "# vnetd ${VNETD_ARGS:-(defaults)}; cpus vnetd=$CPU_VNETD guest=$CPU_GUEST sender=$CPU_SENDER;" \
	"$ROUNDS rounds of ${SECS}s, medians; load average before: $load0, after: $load1"
{
	echo "pairs offered_target offered_kpps received_kpps loss_% vnetd_cpu_% us_per_frame"
	for q in $PAIRS; do
		for rate in $RATES; do
			row="$q $rate"
			for col in 1 2 3 4 5; do
				m=$(printf '%s' "${V[$q,$rate]:-}" | awk -v c=$col 'NF {print $c}' | median)
				case $col in 1|2) m=$(awk -v m="$m" 'BEGIN {print m == "-" ? m : sprintf("%.1f", m / 1000)}') ;; esac
				row="$row $m"
			done
			echo "$row"
		done
	done
} | column -t
exit "$FAILED"
