#!/usr/bin/env bash
# needs: root tun
# vnetd-tap-up.sh - a TAP vnetd creates is up (IFF_UP) as soon as the port
# listens; on a persistent TAP left down, guest frames fail with EIO and
# vnetd says so once (rate-limited to one line per 10 s per port, logged by
# the control thread, not the worker) with the fix; after
# `ip link set DEV up` frames reach it. Prints TAP lines.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
VNETD=${VNETD:-build/vnetd}
BENCH=${BENCH:-build/vnet-bench}
need_built "$VNETD" "$BENCH"
command -v ip >/dev/null || skip_all "ip (iproute2) missing"
TMP=$(mktemp -d /tmp/vnetd-tapup.XXXXXX)
cleanup_path "$TMP"
TAPC=hsuc$$ TAPD=hsud$$
# at exit, newest first: the vnetds, then the persistent TAP
cleanup_run "ip link del $TAPD 2>/dev/null"
rx_packets() { cat "/sys/class/net/$1/statistics/rx_packets" 2>/dev/null || echo 0; }

# 1. created by vnetd: up at once
"$VNETD" --socket "$TMP/c.sock" --backend tap --tap "$TAPC" --ctl-socket "$TMP/c.ctl" \
	2>"$TMP/c.log" &
PID=$!; cleanup_run "stop_pid $PID"
if wait_sock "$TMP/c.sock" && ip -o link show "$TAPC" | grep -q '<[^>]*\bUP\b'; then
	ok "the TAP vnetd creates ($TAPC) is up"
else
	not_ok "created TAP: $(ip -o link show "$TAPC" 2>&1) log: $(cat "$TMP/c.log")"
fi
kill -TERM "$PID"; wait "$PID"

# 2. persistent, left down: one line with the fix, then frames flow once up
ip tuntap add dev "$TAPD" mode tap multi_queue vnet_hdr
"$VNETD" --socket "$TMP/d.sock" --backend tap --tap "$TAPD" --ctl-socket "$TMP/d.ctl" \
	2>"$TMP/d.log" &
PID=$!; cleanup_run "stop_pid $PID"
wait_sock "$TMP/d.sock"
ip -o link show "$TAPD" | grep -q '<[^>]*\bUP\b' && not_ok "vnetd changed a persistent TAP's state" ||
	ok "a persistent TAP is left as the operator set it (down)"
timeout 30 "$BENCH" --socket "$TMP/d.sock" --mode tx-only --duration 3 >"$TMP/b1.out" 2>&1
sleep 1.5	# the control thread looks once a second
n=$(grep -c "port port0: tap $TAPD is down: guest frames are dropped (fix: ip link set $TAPD up)" "$TMP/d.log")
[ "$n" = 1 ] && ok "down TAP: exactly one warning in 3 s of traffic, naming the fix" ||
	not_ok "down TAP: $n warnings; log: $(cat "$TMP/d.log")"
grep -q "warn: port port0: tap $TAPD is down" "$TMP/d.log" && ok "the warning is level warn" ||
	not_ok "warning level: $(grep 'is down' "$TMP/d.log")"
ip link set "$TAPD" up
before=$(rx_packets "$TAPD")
timeout 30 "$BENCH" --socket "$TMP/d.sock" --mode tx-only --duration 1 >"$TMP/b2.out" 2>&1
after=$(rx_packets "$TAPD")
[ "$after" -gt "$before" ] && ok "after ip link set up: $((after - before)) frames reach $TAPD" ||
	not_ok "frames after link up: $before -> $after $(cat "$TMP/b2.out")"
echo "1..$N"
exit $FAILED
