#!/usr/bin/env bash
# tap-read.sh - host -> guest TAP reads at moderate load, at the syscall
# level, without vnetd: the CPU one thread pays per frame to read 64 B frames out of a TAP at an
# offered rate, with one readv() per frame, batched io_uring READs, or one
# multishot io_uring READ into provided buffers (bench/tap-read.c says what
# each does). bench/tap-sender offers the frames from the TAP's host side
# (AF_PACKET, paced) on another CPU; the TAP lives in a private network
# namespace; rounds alternate the engines; the table gives medians.
#
# Usage: bench/tap-read.sh
# Env:   BENCH_ROUNDS (5), BENCH_SECS (2), BENCH_RATES ("100000 200000 500000"),
#        BENCH_MODES ("readv batch multishot"), CPU_READER (1), CPU_SENDER (0),
#        BENCH_HOLD (1: each engine sleeps after a drain for the time 64 frames
#        take at the rate, at most 200 us, as vnetd's RX hold does; 0: none)
# Output: the CPU and load average, one line per round, then per rate and
#   engine: "rate mode ns_per_frame frames_per_wake" (medians over the rounds).
# Exit: 0 done, 77 skipped (no root, no liburing-dev, no io_uring), 1 failed.
# needs: root netns tun cc liburing-dev
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/lib/common.sh
. bench/lib.sh
ROUNDS=${BENCH_ROUNDS:-5}
SECS=${BENCH_SECS:-2}
RATES=${BENCH_RATES:-100000 200000 500000}
MODES=${BENCH_MODES:-readv batch multishot}
CPU_READER=${CPU_READER:-1}
CPU_SENDER=${CPU_SENDER:-0}
HOLD=${BENCH_HOLD:-1}
BIN=$PWD/build/bench/tap-read
SENDER=$PWD/build/bench/tap-sender
[ "$(id -u)" = 0 ] || skip_all "needs root (a TAP in a network namespace)"
[ -c /dev/net/tun ] || skip_all "no /dev/net/tun"
mkdir -p build/bench
if [ ! -x "$BIN" ] || [ bench/tap-read.c -nt "$BIN" ]; then
	${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$BIN" bench/tap-read.c -luring ||
		skip_all "cannot build bench/tap-read.c (apt-get install liburing-dev)"
fi
if [ ! -x "$SENDER" ] || [ bench/tap-sender.c -nt "$SENDER" ]; then
	${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$SENDER" bench/tap-sender.c ||
		skip_all "cannot build bench/tap-sender.c"
fi
NS=vntr$$
TAP=vntr$$
netns_new "$NS" || skip_all "cannot create a network namespace (needs root)"
OUT=$(mktemp /tmp/vnet-tap-read.XXXXXX)
cleanup_path "$OUT"

bench_machine start
declare -A NS_PF=() FPW=()
for r in $(seq "$ROUNDS"); do
	for rate in $RATES; do
		for m in $MODES; do
			hold=0
			[ "$HOLD" = 1 ] && hold=$(( 64000000 / rate > 200 ? 200 : 64000000 / rate ))
			# the reader runs a second longer on each side of the sender
			ip netns exec "$NS" taskset -c "$CPU_READER" "$BIN" "$TAP" "$m" \
				$((SECS + 2)) "$hold" > "$OUT" 2>&1 &
			rpid=$!
			sleep 1
			ip netns exec "$NS" taskset -c "$CPU_SENDER" "$SENDER" "$TAP" "$rate" \
				"$SECS" > /dev/null 2>&1
			wait "$rpid"
			rc=$?
			[ "$rc" = 77 ] && { echo "# $m: refused here: $(cat "$OUT")"; continue; }
			[ "$rc" = 0 ] || { echo "round $r $rate $m failed: $(cat "$OUT")"; exit 1; }
			read -r _ frames nspf wakes < "$OUT"
			fpw=$(awk -v f="$frames" -v w="$wakes" 'BEGIN { printf "%.1f", w ? f / w : 0 }')
			echo "round $r: $rate/s $m: $frames frames, $nspf ns a frame, $fpw frames a wake (hold $hold us)"
			NS_PF[$rate.$m]+=" $nspf"
			FPW[$rate.$m]+=" $fpw"
		done
	done
done
bench_machine end
med() { tr ' ' '\n' | grep . | sort -g | awk '{ v[n++] = $1 } END { print n ? v[int(n / 2)] : "?" }'; }
printf '%-8s %-10s %12s %16s\n' rate mode ns_per_frame frames_per_wake
for rate in $RATES; do
	for m in $MODES; do
		printf '%-8s %-10s %12s %16s\n' "$rate" "$m" "$(med <<< "${NS_PF[$rate.$m]:-}")" \
			"$(med <<< "${FPW[$rate.$m]:-}")"
	done
done
