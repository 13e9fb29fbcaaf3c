#!/usr/bin/env bash
# vnetd-tap-io-alt.sh - a VNETD= wrapper for bench/vnetd-vs-dpdk.sh whose
# vnetd rounds alternate --tap-io uring and --tap-io writev (odd rounds
# uring, even rounds writev), so both TAP TX engines meet the same machine
# state, DPDK rounds in between:
#
#   rm -f /tmp/vnetd-tap-io-alt.cnt
#   VNETD=$PWD/bench/vnetd-tap-io-alt.sh BENCH_MODES=taptx BENCH_SIZES=64 \
#       bench/vnetd-vs-dpdk.sh 3 10
#
# Env: REAL_VNETD (default: build/vnetd next to this script's parent),
#      TAP_IO_ALT_CNT (the round counter file, default /tmp/vnetd-tap-io-alt.cnt)
set -u
real=${REAL_VNETD:-$(dirname "$0")/../build/vnetd}
cnt=${TAP_IO_ALT_CNT:-/tmp/vnetd-tap-io-alt.cnt}
c=$(cat "$cnt" 2>/dev/null || echo 0)
echo $((c + 1)) > "$cnt"
if [ $((c % 2)) = 0 ]; then
	exec "$real" "$@" --tap-io uring
else
	exec "$real" "$@" --tap-io writev
fi
