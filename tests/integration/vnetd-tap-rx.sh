#!/usr/bin/env bash
# vnetd-tap-rx.sh - vnet-bench rx-only against vnetd's tap backend: frames
# written into the TAP interface from the host side (an AF_PACKET socket in
# a private network namespace) must reach the frontend's RX ring, each once
# and in order. The injected frames carry vnet-bench's marker (VM 0, pair 0,
# sequence 0..N-1), so vnet-bench's sequence check applies; split and packed.
# The kernel drops what overflows the tap's queue when the reader is slow, so
# the injector is paced and the queue made long. (A correctness test: the injector runs
# at ~30 kpps, so the rate it shows is not a measurement.)
# needs: root netns tun python3
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
BENCH=${VNET_BENCH:-$PWD/build/vnet-bench}
VNETD=$PWD/build/vnetd
need_built "$BENCH" "$VNETD"
NS=vnbrx$$
TAP=vnbt$$
SOCK=/tmp/vnet-bench-rx-$$.sock
CTL=/tmp/vnet-bench-rx-$$.ctl
LOG=/tmp/vnet-bench-rx-$$.log
netns_new "$NS" || skip_all "cannot create a network namespace"
VPID=
cleanup_run 'stop_pid "$VPID"'
cleanup_path "$SOCK"; cleanup_path "$CTL"; cleanup_path "$LOG"
COUNT=${RX_FRAMES:-20000}

inject() {	# COUNT frames with marker seq 0..COUNT-1 out of the tap
	ip netns exec "$NS" python3 - "$TAP" "$COUNT" <<'PY'
import socket, struct, sys, time
tap, count = sys.argv[1], int(sys.argv[2])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((tap, 0))
for seq in range(count):
    mark = struct.pack("<IHHQQ", 0x564e4254, 0, 0, seq, 0)
    frame = b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x99" + b"\x88\xb5" + mark
    frame += bytes(64 - len(frame))
    while True:
        try:
            s.send(frame)
            break
        except OSError:          # tap queue full: the reader is behind
            time.sleep(0.001)
    if seq % 64 == 63:
        time.sleep(0.002)        # ~30 kpps: a slow (sanitized) reader keeps up
PY
}

field() { bench_field "$@"; }

for ring in split packed; do
	rf=; [ $ring = packed ] && rf=--packed
	rm -f "$SOCK"
	ip netns exec "$NS" "$VNETD" --socket "$SOCK" --backend tap --tap "$TAP" \
		--ctl-socket "$CTL" > "$LOG" 2>&1 &
	VPID=$!
	wait_sock "$SOCK" 5 "$VPID"
	out=$(mktemp /tmp/vnet-bench-rx-out.XXXXXX)
	# a long window, ended by SIGINT once everything is injected: a slow
	# (loaded) machine cannot cut the injection short
	"$BENCH" --socket "$SOCK" --mode rx-only --check-seq --json -d 120 $rf > "$out" 2>&1 &
	BPID=$!
	# the tap is up once the frontend negotiated; then inject
	for _ in $(seq 100); do
		ip netns exec "$NS" ip link set "$TAP" up txqueuelen 10000 2>/dev/null && break
		sleep 0.05
	done
	sleep 0.5
	inject
	sleep 1
	kill -INT $BPID
	wait $BPID
	rc=$?
	res=$(cat "$out"); rm -f "$out"
	why=
	[ "$rc" = 0 ] || why="exit $rc"
	rx=$(field rx_frames "$res"); foreign=$(field foreign "$res")
	ours=$(( ${rx:-0} - ${foreign:-0} ))
	[ "$ours" = "$COUNT" ] || why="$why, $ours of $COUNT frames arrived"
	for f in lost dup_or_reordered wrong_queue; do
		[ "$(field $f "$res")" = 0 ] || why="$why, $f=$(field $f "$res")"
	done
	if [ -z "$why" ]; then
		ok "rx-only $ring ring: $COUNT injected frames received once, in order (+$foreign host frames)"
	else
		not_ok "rx-only $ring ring:$why"
		sed 's/^/# /' <<< "$res" | tail -n 12
		sed 's/^/# vnetd: /' "$LOG" | tail -n 8
	fi
	kill "$VPID" 2>/dev/null; wait "$VPID" 2>/dev/null; VPID=
done
exit $FAILED
