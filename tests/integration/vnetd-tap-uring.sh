#!/usr/bin/env bash
# needs: root tun
# vnetd-tap-uring.sh - guest TX into a TAP through the workers' io_uring
# (--tap-io, src/host/tap_uring.c) with the sandbox on (the default): frames
# reach the TAP, status names the engine, vnetd survives its seccomp filter;
# a port added at run time (its own thread, so its ring is made under the
# filter) sends too; --tap-io writev sends with status saying so; a bad
# value is refused naming the flag. Skips the io_uring cases where the
# kernel refuses io_uring (kernel.io_uring_disabled, a container's seccomp).
# Prints TAP lines.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
VNETD=${VNETD:-build/vnetd}
VNETCTL=${VNETCTL:-build/vnetctl}
BENCH=${BENCH:-build/vnet-bench}
need_built "$VNETD" "$VNETCTL" "$BENCH"
command -v ip >/dev/null || skip_all "ip (iproute2) missing"
TMP=$(mktemp -d /tmp/vnetd-tapur.XXXXXX)
cleanup_path "$TMP"
TAPA=hura$$ TAPB=hurb$$ TAPW=hurw$$
cleanup_run "ip link del $TAPB 2>/dev/null"
rx_packets() { cat "/sys/class/net/$1/statistics/rx_packets" 2>/dev/null || echo 0; }
tx_sent() { # frames the guest sent, from the port's tx counters
	"$VNETCTL" status --json --socket "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
p = [p for p in d["ports"] if p["name"] == sys.argv[1]][0]
print(sum(q["tx"]["packets"] for q in p["pairs"]), p["tap_io"])' "$2"
}
# send_check SOCK TAP CTL PORT ENGINE: 1 s of 64 B guest TX, all of it on the TAP
send_check() {
	local before after sent eng
	ip link set "$2" up
	before=$(rx_packets "$2")
	timeout 30 "$BENCH" --socket "$1" --mode tx-only --duration 1 >"$TMP/b.out" 2>&1
	sleep 0.3
	after=$(rx_packets "$2")
	read -r sent eng < <(tx_sent "$3" "$4")
	if [ "$sent" -gt 1000 ] && [ "$((after - before))" -ge "$sent" ] && [ "$eng" = "$5" ]; then
		ok "$4: $sent guest frames, $((after - before)) on $2, tap_io $eng"
	else
		not_ok "$4: sent $sent, $2 got $((after - before)), tap_io $eng (want $5): $(cat "$TMP/b.out")"
	fi
}

# --- --tap-io uring, sandbox on ---------------------------------------------
"$VNETD" --socket "$TMP/a.sock" --name pa --backend tap --tap "$TAPA" --tap-io uring \
	--ctl-socket "$TMP/a.ctl" 2>"$TMP/a.log" &
PID=$!; cleanup_run "stop_pid $PID"
if ! wait_sock "$TMP/a.sock" 5 "$PID"; then
	if grep -q "tap-io uring: io_uring unavailable" "$TMP/a.log"; then
		ok_skip "--tap-io uring" "$(cat "$TMP/a.log")"
		URING=0
	else
		not_ok "vnetd --tap-io uring started: $(cat "$TMP/a.log")"; exit 1
	fi
else
	URING=1
fi
if [ "$URING" = 1 ]; then
	send_check "$TMP/a.sock" "$TAPA" "$TMP/a.ctl" pa uring
	"$VNETCTL" status --socket "$TMP/a.ctl" | grep -q "tap I/O: io_uring" &&
		ok "vnetctl status names the engine" ||
		not_ok "status: $("$VNETCTL" status --socket "$TMP/a.ctl")"
	# a port added after the sandbox, its own thread: ring made under seccomp
	ip tuntap add dev "$TAPB" mode tap multi_queue vnet_hdr
	out=$("$VNETCTL" port add "name=pb,socket=$TMP/b.sock,backend=tap,tap=$TAPB,threads=1" \
		--socket "$TMP/a.ctl" 2>&1)
	if [[ $out == "ok: port pb added"* ]] && wait_sock "$TMP/b.sock" 5 "$PID"; then
		send_check "$TMP/b.sock" "$TAPB" "$TMP/a.ctl" pb uring
	else
		not_ok "port add: $out $(cat "$TMP/a.log")"
	fi
	kill -0 "$PID" 2>/dev/null && ! grep -q "seccomp" "$TMP/a.log" &&
		ok "vnetd alive, no seccomp trap" || not_ok "vnetd died: $(cat "$TMP/a.log")"
	grep -q "tap I/O uses readv/writev" "$TMP/a.log" &&
		not_ok "a worker fell back: $(cat "$TMP/a.log")" || ok "no worker fell back to writev"
fi

# --- --tap-io writev ----------------------------------------------------------
"$VNETD" --socket "$TMP/w.sock" --name pw --backend tap --tap "$TAPW" --tap-io writev \
	--ctl-socket "$TMP/w.ctl" 2>"$TMP/w.log" &
PID=$!; cleanup_run "stop_pid $PID"
wait_sock "$TMP/w.sock" 5 "$PID" || { not_ok "vnetd --tap-io writev: $(cat "$TMP/w.log")"; exit 1; }
send_check "$TMP/w.sock" "$TAPW" "$TMP/w.ctl" pw writev

# --- a bad value --------------------------------------------------------------
out=$("$VNETD" --socket "$TMP/x.sock" --backend null --tap-io fast 2>&1); rc=$?
[ "$rc" = 2 ] && [[ $out == *"--tap-io fast: must be auto, uring or writev"* ]] &&
	ok "--tap-io fast: exit 2, names the flag, the value and the choices" ||
	not_ok "--tap-io fast: rc $rc: $out"
echo "1..$N"
exit $FAILED
