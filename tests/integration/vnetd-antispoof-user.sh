#!/usr/bin/env bash
# needs: none
# vnetd-antispoof-user.sh - --mac-lock on the userspace data path, end to
# end: vnet-bench sends from its own MAC (no config space: it cannot learn
# the port's) and every frame is dropped, counted as "spoofed" in status,
# with one rate-limited warning naming the port (never a line per frame);
# with --config-space on it sends from the port's MAC and nothing is
# dropped. Prints TAP lines.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
VNETD=${VNETD:-build/vnetd} BENCH=${BENCH:-build/vnet-bench} CTL=${CTL:-build/vnetctl}
need_built "$VNETD" "$BENCH" "$CTL"
TMP=$(mktemp -d /tmp/vnetd-spoofu.XXXXXX)
cleanup_path "$TMP"

# run_case NAME VNETD-ARGS...: vnetd + 1 s of vnet-bench tx-only; leaves
# $TMP/NAME.log (vnetd) and $TMP/NAME.json (status after the traffic)
run_case() {
	local name=$1 pid
	shift
	"$VNETD" --socket "$TMP/$name.sock" --ctl-socket "$TMP/$name.ctl" --backend null \
		"$@" 2>"$TMP/$name.log" &
	pid=$!
	cleanup_pid "$pid"
	wait_sock "$TMP/$name.sock" 5 "$pid" || return 1
	timeout 30 "$BENCH" --socket "$TMP/$name.sock" --mode tx-only --duration 1 \
		>"$TMP/$name.bench" 2>&1
	sleep 2.5	# the control thread looks once a second
	"$CTL" status --socket "$TMP/$name.ctl" --json >"$TMP/$name.json" 2>&1
	stop_pid "$pid"
}
spoofed() { grep -o '"spoofed": *[0-9]*' "$1" | awk -F: '{s += $2} END {print s + 0}'; }
tx_packets() {	# frames vnetd took from TX rings and sent on (null backend)
	grep -o '"tx": *{[^}]*' "$1" | grep -o '"packets": *[0-9]*' | awk -F: '{s += $2} END {print s + 0}'
}

# vnet-bench's own MAC without a config space is 52:54:00:12:34:56
if run_case lock --mac 02:00:00:aa:bb:cc --mac-lock; then
	n=$(spoofed "$TMP/lock.json")
	p=$(tx_packets "$TMP/lock.json")
	[ "$n" -gt 0 ] && [ "$p" = 0 ] && ok "--mac-lock: frames from vnet-bench's own MAC dropped as spoofed ($n)" ||
		not_ok "--mac-lock: spoofed $n, sent $p; status: $(cat "$TMP/lock.json")"
	lines=$(grep -c "port port0: .* guest frames\? dropped: source MAC/IP not the port's" "$TMP/lock.log")
	[ "$lines" -ge 1 ] && [ "$lines" -le 1 ] && ok "one warning line for $n drops, naming the port" ||
		not_ok "$lines warning lines; log: $(cat "$TMP/lock.log")"
else
	not_ok "vnetd --mac-lock did not start: $(cat "$TMP/lock.log")"
fi

if run_case cfg --mac 52:54:00:12:34:57 --mac-lock --config-space on; then
	n=$(spoofed "$TMP/cfg.json")
	p=$(tx_packets "$TMP/cfg.json")
	[ "$n" = 0 ] && [ "${p:-0}" -gt 0 ] &&
		ok "--mac-lock: frames from the port's MAC (read from the config space) pass ($p, 0 spoofed)" ||
		not_ok "port MAC: spoofed $n tx $p; status: $(cat "$TMP/cfg.json")"
	grep -q "dropped: source MAC/IP" "$TMP/cfg.log" && not_ok "a warning without drops" ||
		ok "no warning when nothing is dropped"
else
	not_ok "vnetd --config-space on did not start: $(cat "$TMP/cfg.log")"
fi
exit "$FAILED"
