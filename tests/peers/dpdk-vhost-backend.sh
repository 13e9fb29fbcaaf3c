#!/usr/bin/env bash
# dpdk-vhost-backend.sh - vnet-bench (our frontend library) against DPDK
# testpmd's net_vhost as the backend: a vhost-user implementation nobody here
# wrote. Per case: the link comes up on testpmd's side, frames flow both
# ways (testpmd io / macswap sends every frame back on the queue it came in
# on), split and packed rings, 1 and 2 queue pairs, 64 KiB TSO frames; plus
# tx-only into testpmd rxonly and rx-only from testpmd txonly.
#
# Asserted: vnet-bench exits 0; frames went out and came back (both counts
# > 0, and testpmd's own RX-packets/TX-packets > 0); no frame came back twice,
# out of order or on another queue. Losses are allowed: testpmd drops when
# our RX ring is full, as a NIC would. Each case's window: BENCH_DUR s
# (default 1: hundreds of thousands of frames each way).
# Skips (77) when dpdk-testpmd is not installed.
# needs: dpdk
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
BENCH=${VNET_BENCH:-$PWD/build/vnet-bench}
TESTPMD=${PEER_TESTPMD:-dpdk-testpmd}
need_built "$BENCH"
command -v "$TESTPMD" >/dev/null || skip_all "$TESTPMD not installed (apt install dpdk)"
DUR=${BENCH_DUR:-1}
TMPD=$(mktemp -d /tmp/vnb-dpdk.XXXXXX)
PREFIX=vnbdpdk$$
TP=
# stop_testpmd: SIGINT (testpmd prints its totals), then SIGKILL after 5 s
stop_testpmd() {
	stop_pid "$TP" INT
	TP=
	rm -rf "/var/run/dpdk/$PREFIX"
}
cleanup_path "$TMPD"
cleanup_run stop_testpmd

# start_testpmd FWD_MODE QUEUES: net_vhost listening on $TMPD/vhost.sock
start_testpmd() {
	rm -f "$TMPD/vhost.sock"
	# --no-huge: EAL memory from a memfd; --no-mlockall: no multi-second
	# stall while mapping our memory; --stats-period keeps testpmd running
	# without a terminal
	"$TESTPMD" --lcores '0@0,1@1' --no-pci --no-huge -m 512 --no-shconf \
		--file-prefix "$PREFIX" --log-level=lib.eal:notice \
		--vdev "net_vhost0,iface=$TMPD/vhost.sock,queues=$2,client=0${VEXTRA:-}" -- \
		--no-mlockall --forward-mode="$1" --rxq="$2" --txq="$2" --nb-cores=1 \
		--total-num-mbufs=16384 --port-topology=loop --auto-start \
		--stats-period 1 > "$TMPD/testpmd.log" 2>&1 < /dev/null &
	TP=$!
	for _ in $(seq 200); do [ -S "$TMPD/vhost.sock" ] && return 0; sleep 0.05; done
	return 1
}

field() { bench_field "$@"; }

# testpmd's accumulated RX-packets / TX-packets after it stopped
pmd_count() {
	sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$TMPD/testpmd.log" |
		awk -v k="$1" '/Accumulated forward statistics/{a=1} a { for (i=1;i<NF;i++) if ($i==k) { print $(i+1); exit } }'
}

# case NAME FWD_MODE QUEUES BENCH_ARGS...
case_run() {
	local name=$1 fwd=$2 q=$3 out rc why="" tx rx ptx prx mode
	shift 3
	if ! start_testpmd "$fwd" "$q"; then
		not_ok "$name: testpmd did not create its socket"
		sed 's/^/# /' "$TMPD/testpmd.log" | tail -n 10
		stop_testpmd; return
	fi
	out=$(timeout 60 "$BENCH" --socket "$TMPD/vhost.sock" --json --no-check-seq \
		-d "$DUR" "$@" 2>&1)
	rc=$?
	stop_testpmd
	mode=$(grep -o '"mode": "[a-z-]*"' <<< "$out" | cut -d'"' -f4)
	tx=$(field tx_frames "$out"); rx=$(field rx_frames "$out")
	prx=$(pmd_count RX-packets:); ptx=$(pmd_count TX-packets:)
	[ "$rc" = 0 ] || why="vnet-bench exit $rc"
	grep -q "link state change" "$TMPD/testpmd.log" || why="$why, link never came up"
	case $mode in
	tx-only) [ "${prx:-0}" -gt 0 ] && [ "${tx:-0}" -gt 0 ] || why="$why, testpmd got ${prx:-0} of ${tx:-0}" ;;
	rx-only) [ "${ptx:-0}" -gt 0 ] && [ "${rx:-0}" -gt 0 ] || why="$why, we got ${rx:-0}, testpmd sent ${ptx:-0}" ;;
	*) [ "${tx:-0}" -gt 0 ] && [ "${rx:-0}" -gt 0 ] && [ "${prx:-0}" -gt 0 ] && [ "${ptx:-0}" -gt 0 ] ||
		why="$why, no round trip (we sent ${tx:-0} got ${rx:-0}; testpmd rx ${prx:-0} tx ${ptx:-0})"
	   for f in dup_or_reordered wrong_queue; do
		[ "$(field $f "$out")" = 0 ] || why="$why, $f=$(field $f "$out")"
	   done ;;
	esac
	if [ -z "$why" ]; then
		ok "$name (sent ${tx:-0}, got ${rx:-0}; testpmd rx ${prx:-0} tx ${ptx:-0})"
	else
		not_ok "$name:$why"
		sed 's/^/# /' <<< "$out" | tail -n 12
		sed 's/\x1b\[[0-9;]*[A-Za-z]//g; s/^/# testpmd: /' "$TMPD/testpmd.log" | grep -iE "error|fail|vhost|link" | tail -n 8
	fi
}

for ring in split packed; do
	rf=; [ $ring = packed ] && rf=--packed
	case_run "io, $ring, 1 pair, bidirectional" io 1 $rf
	case_run "macswap, $ring, 2 pairs, bidirectional" macswap 2 $rf --pairs 2
	case_run "io, $ring, 2 pairs, ping-pong" io 2 $rf --pairs 2 --mode ping-pong
	case_run "io, $ring, 1 pair, 9000 B frames (mergeable RX)" io 1 $rf --size 9000
done
VEXTRA=,tso=1 case_run "io, packed, 1 pair, 64 KiB TSO frames (net_vhost tso=1)" io 1 --packed --size 65536
case_run "rxonly, split, 2 pairs, we send" rxonly 2 --pairs 2 --mode tx-only
# --no-drain: testpmd txonly never stops sending, a drain would wait out its 8 s limit
case_run "txonly, packed, 1 pair, we receive" txonly 1 --packed --mode rx-only --no-drain
exit $FAILED
