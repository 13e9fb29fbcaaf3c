#!/usr/bin/env bash
# vnet-bench-loop.sh - vnet-bench (the frontend library) against vnetd's loop
# backend: every mode that gets frames back from loop (tx-only,
# bidirectional, ping-pong), split and packed rings, 1 and 4 queue pairs,
# plus 64 KiB TSO frames, several memory regions, two VMs, busy polling and a
# backend restart with the rings resumed at their saved positions.
#
# Each run prints one TAP line. The assertion is vnet-bench's own sequence
# check, re-verified here from its --json output: every frame sent came back
# exactly once, in order, on the queue it was sent on (loop echoes each pair's
# TX to the same pair's RX), and the counts are non-zero.
# rx-only needs a host-side sender: see vnetd-tap-rx.sh. This is a correctness test
# (short windows); the throughput of the same paths is measured by bench/loop.sh.
# needs: none
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
BENCH=${VNET_BENCH:-build/vnet-bench}	# e.g. a sanitizer build
VNETD=build/vnetd
need_built "$BENCH" "$VNETD"
export VNETD
DUR=${BENCH_DUR:-0.25}	# at load 10 still hundreds of frames (4-pair ping-pong, TSO); millions in a stream
field() { bench_field "$@"; }

run() {
	local name=$1 out rc tx rx why=""
	shift
	out=$(timeout 60 "$BENCH" --spawn --check-seq --json -d "$DUR" "$@" 2>&1)
	rc=$?
	tx=$(field tx_frames "$out"); rx=$(field rx_frames "$out")
	[ "$rc" = 0 ] || why="exit $rc"
	grep -q '"ok": true' <<< "$out" || why="$why, ok!=true"
	for f in lost missing dup_or_reordered wrong_queue; do
		[ "$(field $f "$out")" = 0 ] || why="$why, $f=$(field $f "$out")"
	done
	[ -n "$tx" ] && [ "$tx" -gt 0 ] || why="$why, nothing sent"
	[ "$tx" = "$rx" ] || why="$why, tx $tx != rx $rx"
	if [ -z "$why" ]; then
		ok "$name ($tx frames, $(field rx_mpps "$out") Mpps)"
	else
		not_ok "$name:$why"
		sed 's/^/# /' <<< "$out" | tail -n 20
	fi
}

for ring in split packed; do
	rf=; [ $ring = packed ] && rf=--packed
	for pairs in 1 4; do
		for mode in tx-only bidirectional ping-pong; do
			run "$mode $ring $pairs pair(s) 64 B" $rf --pairs $pairs --mode $mode
		done
	done
	run "bidirectional $ring 64 KiB TSO frames" $rf --size 65536
	run "bidirectional $ring 1500 B, 3 memory regions, 2 pairs" $rf --size 1500 --mem-regions 3 --pairs 2
	run "bidirectional $ring busy poll" $rf --poll
	run "bidirectional $ring 2 VMs x 2 pairs" $rf --vms 2 --pairs 2
	run "bidirectional $ring backend restart, resume at saved positions" \
		$rf --pairs 2 -d 1 --restart-at 0.5
done
run "ping-pong split 9000 B (mergeable RX)" --mode ping-pong --size 9000
run "tx-only packed ring 1024" --packed --ring 1024 --mode tx-only
run "bidirectional packed ring 300 (not a power of two)" --packed --ring 300
run "bidirectional packed, caller's memfd and eventfds (borrowed), 2 pairs, TSO" \
	--packed --caller-mem --pairs 2 --size 65536
run "bidirectional split, caller memory, backend restart" --caller-mem -d 1 --restart-at 0.5
run "bidirectional split, 4 memory regions via SET_MEM_TABLE, no REPLY_ACK" \
	--mem-regions 4 --pairs 4 --no-mem-slots --no-reply-ack
# PROTOCOL_F_CONFIG is opt-in (QEMU's vhost-user-net warns when it is
# offered): by default the frontend keeps its own MAC; with
# --config-space on it reads vnetd's (02:.. from the socket path) by GET_CONFIG
out=$(timeout 60 "$BENCH" --spawn --json -d 0.3 2>&1)
pf=$(grep -o '"protocol_features": "0x[0-9a-f]*"' <<< "$out" | cut -d'"' -f4)
mac=$(grep -o '"mac": "[0-9a-f:]*"' <<< "$out" | cut -d'"' -f4)
if [ -n "$pf" ] && [ $(( pf & (1 << 9) )) = 0 ] && [ "$mac" = 52:54:00:12:34:56 ]; then
	ok "default: PROTOCOL_F_CONFIG not offered ($pf), frontend's own MAC"
else
	not_ok "default: protocol features '$pf' (bit 9 must be clear), MAC '$mac'"
fi
wrap=$(mktemp)
printf '#!/bin/sh\nexec %s --config-space on "$@"\n' "$PWD/$VNETD" > "$wrap"
chmod +x "$wrap"
out=$(VNETD=$wrap timeout 60 "$BENCH" --spawn --json -d 0.3 2>&1)
rm -f "$wrap"
pf=$(grep -o '"protocol_features": "0x[0-9a-f]*"' <<< "$out" | cut -d'"' -f4)
mac=$(grep -o '"mac": "[0-9a-f:]*"' <<< "$out" | cut -d'"' -f4)
if [ -n "$pf" ] && [ $(( pf & (1 << 9) )) != 0 ] && [ -n "$mac" ] &&
   [ "$mac" != 52:54:00:12:34:56 ]; then
	ok "--config-space on: MAC from vnetd's config space via GET_CONFIG ($mac)"
else
	not_ok "--config-space on: protocol features '$pf', MAC '$mac'"
fi
exit $FAILED
