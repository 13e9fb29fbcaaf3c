#!/usr/bin/env bash
# vnetd-vs-dpdk.sh - packets per second of vnetd against DPDK's own vhost-user
# backend (net_vhost), with the same frontend in the same run: DPDK testpmd
# net_virtio_user, one queue pair, 64 B and 1518 B frames.
#
#   txonly: the frontend transmits as fast as it can; the backend consumes
#           (vnetd --backend null / testpmd net_vhost in rxonly). Reported:
#           the frontend's Tx-pps (frames the backend took off the ring).
#   rxonly: the backend generates frames as fast as the frontend posts RX
#           buffers (vnetd --backend gen --gen-size SIZE / testpmd
#           net_vhost in txonly); the frontend only receives (rxonly).
#           Reported: the frontend's Rx-pps.
#   loop:   the frontend forwards what it receives (io, tx_first); the backend
#           reflects every frame (vnetd --backend loop / testpmd net_vhost in
#           io mode, loop topology). Reported: the frontend's Rx-pps. Both
#           ring directions per frame.
#   taptx:  guest TX into a TAP: the frontend transmits; the
#           backend writes every frame into a TAP in a private network
#           namespace (vnetd --backend tap / testpmd net_vhost <-> net_tap,
#           io forwarding between the two ports on one lcore). Reported:
#           the frontend's Tx-pps. The reverse (guest RX from a TAP) needs a
#           sender on a third CPU and is not measured here.
#
# The two sides are pinned to separate CPUs: the frontend's forwarding lcore
# on BENCH_FE_CPU (default 0), the backend (vnetd's worker, or net_vhost's
# forwarding lcore) on BENCH_BE_CPU (default 1). vnetd runs with
# --poll-us BENCH_POLL_US (default 50).
#
# A shared two-CPU VM moves its vCPUs around: the same case measured twice
# a minute apart can differ by 2x, for either backend. So each case runs
# ROUNDS rounds that alternate the backends (vnetd, DPDK, vnetd, ...) and
# the table reports, per backend, the median of the round means; every
# round is printed with its per-second range.
#
# Usage: bench/vnetd-vs-dpdk.sh [SECONDS] [ROUNDS]
#        (measurement window per round, default 5; rounds, default 3)
# Env:   VNETD (build/vnetd), TESTPMD (dpdk-testpmd), BENCH_SIZES ("64 1518"),
#        BENCH_MODES ("txonly rxonly loop"), BENCH_DPDK_CYCLES=1 (below),
#        BENCH_PACKED=1 (the frontend asks for packed rings: packed_vq=1),
#        BENCH_WARMUP (seconds of testpmd's per-second figures skipped before
#        the window, default 2)
#
# The Mpps ratio comes from an uninstrumented DPDK: testpmd's
# --record-core-cycles slows its forwarding loop (1.5-2.2x in txonly on this
# machine), so it is off by default and dpdk_ns prints "?". With
# BENCH_DPDK_CYCLES=1 the run is a separate, instrumented one: dpdk_ns is
# then measured, and dpdk_mpps (and the ratio) are labelled instrumented.
# Output: the CPU and the load average (a "# start:" line), one line per
# round, the same "# end:" line, then a table (medians over the rounds):
#   mode size vnetd_mpps dpdk_mpps ratio pair_ratio vnetd_ns dpdk_ns
# ratio is the median vnetd round over the median DPDK round; pair_ratio is
# the median of the per-round ratios (each vnetd round over the DPDK round
# that ran right after it, seconds apart): where the machine drifts between
# slow and fast phases over minutes, as this shared VM does, the two sides
# of a pair meet the same phase and pair_ratio moves less from run to run.
# *_ns is the backend's CPU time per frame: for vnetd the busy_ns counters
# (time its worker spent moving frames; busy-polling an empty ring is not
# counted) over the frames of the measured ring; for DPDK testpmd's
# --record-core-cycles "CPU cycles/packet" at its clock. testpmd counts
# only bursts that received something for its rxonly (our txonly case) but
# every txonly burst, full ring or not (our rxonly case): there it is an
# upper bound. With both sides on one core each, Mpps is per core; when the
# frontend is the bottleneck (rxonly: the backend waits for buffers) the
# ns/frame columns show each backend's own cost.
# Exit: 0 done, 77 skipped (no root / testpmd / vnetd), 1 a case failed, 2 usage.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
. tests/lib/common.sh
SECS=${1:-5}
ROUNDS=${2:-3}
WARMUP=${BENCH_WARMUP:-2}
[[ $WARMUP =~ ^[0-9]+$ ]] && [ "$WARMUP" -le 60 ] ||
	{ echo "bench/vnetd-vs-dpdk.sh: BENCH_WARMUP '$WARMUP': 0..60 seconds" >&2; exit 2; }
# VNETD_ARGS: more vnetd flags, e.g. "--tap-io writev" to compare TAP TX engines
VNETD=${VNETD:-$PWD/build/vnetd}
VNETCTL=${VNETCTL:-$PWD/build/vnetctl}
TESTPMD=${TESTPMD:-dpdk-testpmd}
FE_CPU=${BENCH_FE_CPU:-0}
BE_CPU=${BENCH_BE_CPU:-1}
POLL_US=${BENCH_POLL_US:-50}
SIZES=${BENCH_SIZES:-64 1518}
MODES=${BENCH_MODES:-txonly rxonly loop}
DPDK_CYCLES=''
[ "${BENCH_DPDK_CYCLES:-0}" = 1 ] && DPDK_CYCLES=1
FE_VDEV_EXTRA=''
[ "${BENCH_PACKED:-0}" = 1 ] && FE_VDEV_EXTRA=,packed_vq=1
[ -x "$VNETD" ] || { echo "SKIP: $VNETD not built (run make)"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root for DPDK's runtime directory"; exit 77; }
command -v "$TESTPMD" >/dev/null || { echo "SKIP: $TESTPMD not installed"; exit 77; }

TMP=$(mktemp -d /tmp/vnetd-bench.XXXXXX)
BPID='' FPID=''
cleanup() {
	local p
	for p in $FPID $BPID; do stop_pid "$p" INT; done
	# a frontend started by frontend_run's subshell, should the script be killed
	[ -s "$TMP/fe.pid" ] && stop_pid "$(cat "$TMP/fe.pid")" INT && rm -f "$TMP/fe.pid"
	FPID='' BPID=''
	rm -rf /var/run/dpdk/vbench-$$-*
	ip netns del "$NS" 2>/dev/null
}
trap 'cleanup; cleanup_all; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

SOCK=$TMP/vhost.sock
NS=vbench$$ TAPN=vbt$$	# taptx: the TAP lives in its own namespace
EAL_COMMON=(--no-pci --no-huge -m 1024 --no-shconf --log-level=lib.eal:notice)
APP_COMMON=(--no-mlockall --burst=32 --rxq=1 --txq=1 --nb-cores=1
	    --total-num-mbufs=32768 --port-topology=loop --stats-period 1)

# backend_start vnetd|dpdk MODE SIZE
backend_start() {
	rm -f "$SOCK"
	local netns=()
	if [ "$2" = taptx ]; then
		ip netns del "$NS" 2>/dev/null
		ip netns add "$NS" || return 1
		netns=(ip netns exec "$NS")
	fi
	if [ "$1" = vnetd ]; then
		local host=null tap=()
		case $2 in loop) host=loop ;; rxonly) host=gen ;; taptx) host=tap; tap=(--tap "$TAPN") ;; esac
		"${netns[@]}" taskset -c "$BE_CPU" "$VNETD" --socket "$SOCK" \
			--backend "$host" --gen-size "$3" "${tap[@]}" --vhost-net off \
			--poll-us "$POLL_US" --ctl-socket "$TMP/ctl.sock" \
			--log-level warn ${VNETD_ARGS:-} 2>"$TMP/be.log" &
	else
		local fwd=rxonly vdev=() topo=()
		case $2 in loop) fwd=io ;; rxonly) fwd=txonly ;;
		taptx) fwd=io; vdev=(--vdev "net_tap0,iface=$TAPN"); topo=(--port-topology=paired) ;; esac
		"${netns[@]}" stdbuf -oL "$TESTPMD" --lcores "0@$BE_CPU,1@$BE_CPU" "${EAL_COMMON[@]}" \
			--file-prefix "vbench-$$-be" \
			--vdev "net_vhost0,iface=$SOCK,queues=1,client=0" "${vdev[@]}" -- \
			"${APP_COMMON[@]}" "${topo[@]}" --forward-mode="$fwd" --txpkts="$3" \
			${DPDK_CYCLES:+--record-core-cycles} --auto-start > "$TMP/be.log" 2>&1 < /dev/null &
	fi
	BPID=$!
	wait_sock "$SOCK" 10 "$BPID"
}

# backend_cost vnetd|dpdk MODE: the backend's CPU time per frame in ns over
# the whole run ("?" if unknown). vnetd: busy_ns of both rings (idle polling
# excluded) over the frames of the measured ring, from vnetctl status.
# DPDK: testpmd's --record-core-cycles figure, printed when the backend
# stops (so this stops it).
backend_cost() {
	if [ "$1" = vnetd ]; then
		local dir=tx
		[ "$2" = txonly ] || [ "$2" = taptx ] || dir=rx
		"$VNETCTL" status --socket "$TMP/ctl.sock" 2>/dev/null |
		awk -v d="$dir:" '$1 == "rx:" || $1 == "tx:" {
			for (i = 2; i < NF; i++) {
				if ($i == "busy_ns") busy += $(i + 1)
				if ($i == "packets" && $1 == d) pk += $(i + 1)
			} }
			END { if (pk) printf "%.1f\n", busy / pk; else print "?" }'
	else
		stop_pid "$BPID" INT; BPID=''
		sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$TMP/be.log" |
		awk '/CPU cycles\/packet=/ { split($2, a, "="); c = a[2]
			for (i = 1; i < NF; i++) if ($(i + 1) == "MHz") m = $i }
			END { if (c && m) printf "%.1f\n", c * 1000 / m; else print "?" }'
	fi
}

# frontend_run MODE SIZE: prints "mean min max" Mpps over the window, or
# "fail". Runs in a subshell (process substitution): stops its own testpmd.
frontend_run() {
	local fwd=txonly dir=Tx extra=()
	[ "$1" = loop ] && { fwd=io; dir=Rx; extra=(--tx-first); }
	[ "$1" = rxonly ] && { fwd=rxonly; dir=Rx; }
	stdbuf -oL "$TESTPMD" --lcores "0@$BE_CPU,1@$FE_CPU" "${EAL_COMMON[@]}" \
		--file-prefix "vbench-$$-fe" \
		--vdev "net_virtio_user0,path=$SOCK,queues=1$FE_VDEV_EXTRA" -- \
		"${APP_COMMON[@]}" --forward-mode="$fwd" --txpkts="$2" \
		--auto-start "${extra[@]}" > "$TMP/fe.log" 2>&1 < /dev/null &
	FPID=$!
	echo "$FPID" > "$TMP/fe.pid"
	local need=$((WARMUP + SECS)) t0=$SECONDS n=0
	while :; do
		sleep 1
		kill -0 "$FPID" 2>/dev/null || break
		n=$(sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$TMP/fe.log" |
		    awk -v d="$dir-pps:" '$1 == d && $2 > 0 { n++ } END { print n+0 }')
		[ "$n" -ge "$need" ] && break
		[ $((SECONDS - t0)) -gt $((need + 30)) ] && break
	done
	stop_pid "$FPID" INT	# testpmd closes its port on SIGINT
	rm -f "$TMP/fe.pid"
	rm -rf "/var/run/dpdk/vbench-$$-fe"
	sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$TMP/fe.log" |
	awk -v d="$dir-pps:" -v w="$WARMUP" -v s="$SECS" '
		$1 == d && $2 > 0 { n++; if (n > w && n <= w + s) { sum += $2; c++
			if (!mn || $2 < mn) mn = $2; if ($2 > mx) mx = $2 } }
		END { if (c == s) printf "%.3f %.3f %.3f\n", sum / c / 1e6, mn / 1e6, mx / 1e6
		      else print "fail" }'
}

# median of the numbers on stdin ("fail" if any is "fail" or none)
median() {
	sort -g | awk '$1 == "fail" { bad = 1 } { v[n++] = $1 }
		END { if (bad || !n) print "fail"
		      else if (n % 2) print v[(n - 1) / 2]
		      else printf "%.3f\n", (v[n / 2 - 1] + v[n / 2]) / 2 }'
}

# pair_ratios "V1 V2 .." "D1 D2 ..": each round's vnetd Mpps over the DPDK
# round run right after it, one per line ("fail" for a failed round)
pair_ratios() {
	paste -d ' ' <(tr ' ' '\n' <<<"$1" | grep .) <(tr ' ' '\n' <<<"$2" | grep .) |
	awk '$1 == "fail" || $2 == "fail" || !($2 > 0) { print "fail"; next }
	     { printf "%.4f\n", $1 / $2 }'
}

bench_machine start
declare -A R C P
for mode in $MODES; do
	for size in $SIZES; do
		for round in $(seq "$ROUNDS"); do
			for side in vnetd dpdk; do
				if ! backend_start "$side" "$mode" "$size"; then
					echo "$mode $size $side: backend did not start"; tail -3 "$TMP/be.log"
					R[$mode.$size.$side]+="fail "; cleanup; continue
				fi
				read -r mean mn mx < <(frontend_run "$mode" "$size")
				cost=$(backend_cost "$side" "$mode")
				R[$mode.$size.$side]+="$mean "
				C[$mode.$size.$side]+="$cost "
				echo "$mode ${size}B $side round $round: $mean Mpps (per-second samples ${mn:-?} .. ${mx:-?}), backend ${cost} ns/frame"
				cleanup
			done
		done
		P[$mode.$size]=$(pair_ratios "${R[$mode.$size.vnetd]}" "${R[$mode.$size.dpdk]}" | median)
		for side in vnetd dpdk; do
			R[$mode.$size.$side]=$(tr ' ' '\n' <<<"${R[$mode.$size.$side]}" | grep . | median)
			C[$mode.$size.$side]=$(tr ' ' '\n' <<<"${C[$mode.$size.$side]}" | grep -v '^?*$' | median)
		done
	done
done

rc=0
echo
bench_machine end
[ -n "$DPDK_CYCLES" ] && echo "# DPDK instrumented (--record-core-cycles): its Mpps and the ratio understate DPDK; use dpdk_ns only"
printf '%-7s %6s %11s %11s %7s %10s %9s %9s\n' mode size vnetd_mpps dpdk_mpps ratio pair_ratio vnetd_ns dpdk_ns
for mode in $MODES; do
	for size in $SIZES; do
		v=${R[$mode.$size.vnetd]} d=${R[$mode.$size.dpdk]}
		if [ "$v" = fail ] || [ "$d" = fail ]; then
			ratio=n/a; rc=1
		else
			ratio=$(awk -v a="$v" -v b="$d" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
		fi
		pr=${P[$mode.$size]}
		[ "$pr" = fail ] || pr=$(awk -v r="$pr" 'BEGIN { printf "%.2f", r }')
		printf '%-7s %6s %11s %11s %7s %10s %9s %9s\n' "$mode" "$size" "$v" "$d" "$ratio" "$pr" \
			"${C[$mode.$size.vnetd]/fail/?}" "${C[$mode.$size.dpdk]/fail/?}"
	done
done
exit $rc
