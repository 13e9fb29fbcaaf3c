#!/usr/bin/env bash
# frontend-vs-dpdk.sh - our frontend (vnet-bench) against DPDK's own
# frontend (testpmd net_virtio_user), both driving the same kind of backend
# (testpmd net_vhost in rxonly mode, fwd lcore pinned on CPU $BE_CPU), 64 B
# tx-only, busy polling, one queue pair, split ring 256, burst 32.
#
# Each round starts a fresh backend and runs one frontend pinned on CPU
# $FE_CPU for $SECS seconds; rounds alternate (ours, DPDK's, ours, ...).
# The headline number is what the backend received (testpmd's per-second
# Rx-pps, first and last samples dropped): the same meter for both
# frontends. Each frontend's own TX rate is printed too.
#
# Usage: bench/frontend-vs-dpdk.sh [SECS] [ROUNDS]   (defaults 5 and 2)
# NICE=-10 runs backend and frontends at that nice level (a busy shared
# machine otherwise decides the numbers); BE_CPU / FE_CPU pick the CPUs.
# Output: one line per round, then the medians over rounds:
#   RESULT size=64 vnet_bench_mpps=X dpdk_virtio_user_mpps=Y ratio=X/Y
# Exit: 0 measured, 77 dpdk-testpmd or build/vnet-bench missing, 1 failure.
set -u
cd "$(dirname "$0")/.." || exit 1
SECS=${1:-5}
ROUNDS=${2:-2}
BE_CPU=${BE_CPU:-1}
FE_CPU=${FE_CPU:-0}
NICE=${NICE:-0}
SIZE=64
BENCH=$PWD/build/vnet-bench
TESTPMD=${PEER_TESTPMD:-dpdk-testpmd}
[ -x "$BENCH" ] || { echo "SKIP: $BENCH not built (run make)"; exit 77; }
command -v "$TESTPMD" >/dev/null || { echo "SKIP: $TESTPMD not installed"; exit 77; }
TMPD=$(mktemp -d /tmp/vnb-fvd.XXXXXX)
SOCK=$TMPD/vhost.sock
BE='' FE=''
stop_pid() {	# stop_pid PID: SIGINT (testpmd prints totals), then SIGKILL
	local p=$1
	[ -n "$p" ] && kill -0 "$p" 2>/dev/null || return 0
	kill -INT "$p" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$p" 2>/dev/null && kill -KILL "$p" 2>/dev/null
	wait "$p" 2>/dev/null
}
# shellcheck disable=SC2317  # invoked via trap
cleanup() {
	stop_pid "$FE"; stop_pid "$BE"; FE='' BE=''
	rm -rf /var/run/dpdk/vnbfvd-be$$ /var/run/dpdk/vnbfvd-fe$$ "$TMPD"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start_backend() {
	rm -f "$SOCK"
	nice -n "$NICE" "$TESTPMD" --lcores "0@$FE_CPU,1@$BE_CPU" --no-pci --no-huge -m 512 --no-shconf \
		--file-prefix vnbfvd-be$$ --log-level=lib.eal:notice \
		--vdev "net_vhost0,iface=$SOCK,queues=1,client=0" -- \
		--no-mlockall --forward-mode=rxonly --nb-cores=1 --burst=32 \
		--total-num-mbufs=16384 --port-topology=loop --auto-start \
		--stats-period 1 > "$TMPD/be.log" 2>&1 < /dev/null &
	BE=$!
	for _ in $(seq 200); do [ -S "$SOCK" ] && return 0; sleep 0.05; done
	echo "backend did not create $SOCK" >&2
	return 1
}

# mean of the non-zero per-second samples of KEY ("Rx-pps:"), first and
# last dropped (ramp up, ramp down), in Mpps
mean_pps() {
	sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$1" | awk -v k="$2" '
		$1 == k && $2 > 0 { v[n++] = $2 }
		END { s = 0; c = 0; for (i = 1; i < n - 1; i++) { s += v[i]; c++ }
		      if (!c && n) { for (i = 0; i < n; i++) s += v[i]; c = n }
		      printf "%.3f", c ? s / c / 1e6 : 0 }'
}

ours() {
	local out
	start_backend || return 1
	out=$(nice -n "$NICE" taskset -c "$FE_CPU" "$BENCH" --socket "$SOCK" --mode tx-only --poll \
		--size $SIZE --batch 32 -d "$SECS" --json 2>&1)
	stop_pid "$BE"; BE=
	OWN=$(sed -n 's/.*"total": {\(.*\)}.*/\1/p' <<< "$out" | grep -o '"tx_mpps": [0-9.]*' | awk '{printf "%.3f", $2}')
	GOT=$(mean_pps "$TMPD/be.log" Rx-pps:)
	[ -n "$OWN" ] || { echo "vnet-bench failed: $out" >&2; return 1; }
}

dpdk() {
	start_backend || return 1
	nice -n "$NICE" taskset -c "$FE_CPU" "$TESTPMD" --lcores "0@$FE_CPU,1@$FE_CPU" --no-pci --no-huge -m 512 \
		--no-shconf --file-prefix vnbfvd-fe$$ --log-level=lib.eal:notice \
		--vdev "net_virtio_user0,path=$SOCK,queues=1,queue_size=256" -- \
		--no-mlockall --forward-mode=txonly --txpkts=$SIZE --burst=32 --nb-cores=1 \
		--total-num-mbufs=16384 --auto-start --stats-period 1 \
		> "$TMPD/fe.log" 2>&1 < /dev/null &
	FE=$!
	sleep "$((SECS + 2))"
	stop_pid "$FE"; FE=
	stop_pid "$BE"; BE=
	OWN=$(mean_pps "$TMPD/fe.log" Tx-pps:)
	GOT=$(mean_pps "$TMPD/be.log" Rx-pps:)
}

declare -a A B
for r in $(seq "$ROUNDS"); do
	ours || exit 1
	echo "round $r vnet-bench:          backend received $GOT Mpps (frontend's own tx $OWN Mpps)"
	A+=("$GOT")
	dpdk || exit 1
	echo "round $r testpmd virtio_user: backend received $GOT Mpps (frontend's own tx $OWN Mpps)"
	B+=("$GOT")
done
# median over rounds: a shared machine makes single rounds swing widely
median() { sort -n | awk '{v[NR]=$1} END {printf "%.3f", NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
a=$(printf '%s\n' "${A[@]}" | median)
b=$(printf '%s\n' "${B[@]}" | median)
ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }')
echo "RESULT size=$SIZE vnet_bench_mpps=$a dpdk_virtio_user_mpps=$b ratio=$ratio"
[ "$b" != 0.000 ] && [ "$a" != 0.000 ]
