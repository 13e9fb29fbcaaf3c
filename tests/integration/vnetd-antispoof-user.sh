#!/usr/bin/env bash
# needs: none
# vnetd-antispoof-user.sh - --mac-lock on the userspace data path, end to
# end: vnet-bench sends from its own MAC (no config space: it cannot learn
# the port's) and every frame is dropped, counted as "spoofed" in status,
# with one rate-limited warning naming the port (never a line per frame);
# with --config-space on it sends from the port's MAC and nothing is
# dropped. SIGHUP with a changed mac-lock or allow-ip on a --config line
# restarts the port with the new policy (tightened: the frames of the old
# address are dropped; widened: they pass), and an unchanged line, even one
# whose MAC is derived and whose place in the file moved, is left untouched.
# vnet-bench --flows sends IPv4 from 10.0.0.1. Prints TAP lines.
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

# --- SIGHUP: a changed policy is in force after the reload ----------------
# hup_case NAME LOG-SUMMARY CONFIG-LINES...: write the config, SIGHUP, check
# the summary line ("A added, R restarted, D removed, U untouched")
CONF=$TMP/ports.conf
hup_case() {
	local name=$1 want=$2 n
	shift 2
	printf '%s\n' "$@" >"$CONF"
	n=$(grep -c "SIGHUP: --config" "$TMP/hup.log")
	kill -HUP "$HPID"
	for _ in $(seq 50); do
		[ "$(grep -c "SIGHUP: --config" "$TMP/hup.log")" -gt "$n" ] && break
		sleep 0.1
	done
	wait_sock "$TMP/${HUP_PORT:-vm}.sock" 5 "$HPID"
	check "SIGHUP $name: $want ($(grep "SIGHUP:" "$TMP/hup.log" | tail -1))" \
		eval 'grep "SIGHUP: --config" "$TMP/hup.log" | tail -1 | grep -q "applied: $want, 0 failed"'
}
# traffic NAME pass|drop [PORT]: 1 s of IPv4 from 10.0.0.1 into PORT (vm),
# then the counters of all ports (only PORT's move: each case below
# restarts it first, and a port that carried traffic before is removed)
traffic() {
	local name=$1 want=$2 n p
	timeout 30 "$BENCH" --socket "$TMP/${3:-vm}.sock" --mode tx-only --duration 1 \
		--flows 1 --size 78 >"$TMP/hup.bench" 2>&1
	sleep 0.3
	"$CTL" status --socket "$TMP/hup.ctl" --json >"$TMP/hup.json" 2>&1
	n=$(spoofed "$TMP/hup.json") p=$(tx_packets "$TMP/hup.json")
	if [ "$want" = pass ]; then
		check "$name: 10.0.0.1 passes ($p sent, $n spoofed)" eval '[ "$p" -gt 0 ] && [ "$n" = 0 ]'
	else
		check "$name: 10.0.0.1 dropped as spoofed ($n spoofed, $p sent)" eval '[ "$n" -gt 0 ] && [ "$p" = 0 ]'
	fi
}
VM="name=vm socket=$TMP/vm.sock backend=null"
printf '%s\n' "$VM allow-ip=10.0.0.1:[2001:db8::1]" >"$CONF"
"$VNETD" --config "$CONF" --ctl-socket "$TMP/hup.ctl" 2>"$TMP/hup.log" &
HPID=$!
cleanup_pid "$HPID"
if wait_sock "$TMP/vm.sock" 5 "$HPID"; then
	traffic "allow-ip=10.0.0.1 at start" pass
	# the same line one place further down: its derived MAC (by slot) and
	# the link-local allow-ip adds for it must not count as a change
	hup_case "unchanged line, moved down" "1 added, 0 restarted, 0 removed, 1 untouched" \
		"name=other socket=$TMP/other.sock backend=null" \
		"$VM allow-ip=10.0.0.1:[2001:db8::1]"
	hup_case "allow-ip tightened to 10.0.0.9" "0 added, 1 restarted, 0 removed, 1 untouched" \
		"name=other socket=$TMP/other.sock backend=null" \
		"$VM allow-ip=10.0.0.9:[2001:db8::1]"
	check "SIGHUP allow-ip tightened: the port restarted" \
		grep -q "port vm: stopped (changed in --config, restarting)" "$TMP/hup.log"
	traffic "after the tightening" drop
	hup_case "allow-ip widened to 10.0.0.9 and 10.0.0.1" "0 added, 1 restarted, 0 removed, 1 untouched" \
		"name=other socket=$TMP/other.sock backend=null" \
		"$VM allow-ip=10.0.0.9:10.0.0.1:[2001:db8::1]"
	traffic "after the widening" pass
	hup_case "allow-ip: only an IPv6 entry changed" "0 added, 1 restarted, 0 removed, 1 untouched" \
		"name=other socket=$TMP/other.sock backend=null" \
		"$VM allow-ip=10.0.0.9:10.0.0.1:[2001:db8::2]"
	# vnet-bench sends from 52:54:00:12:34:56 without a config space
	hup_case "mac-lock added" "0 added, 1 restarted, 0 removed, 1 untouched" \
		"name=other socket=$TMP/other.sock backend=null" \
		"$VM allow-ip=10.0.0.9:10.0.0.1:[2001:db8::2] mac-lock"
	traffic "after mac-lock" drop
	hup_case "unchanged again" "0 added, 0 restarted, 0 removed, 2 untouched" \
		"name=other socket=$TMP/other.sock backend=null" \
		"$VM allow-ip=10.0.0.9:10.0.0.1:[2001:db8::2] mac-lock"
	# A restarted line without mac= keeps the port's MAC (the one its
	# guest has): mac-lock must check that one, not the MAC its new
	# place in the file would derive. vnet-bench reads it (config space).
	LOCK="name=lock socket=$TMP/lock.sock backend=null config-space=on mac-lock"
	HUP_PORT=lock
	hup_case "mac-lock port added first" "1 added, 0 restarted, 1 removed, 1 untouched" \
		"$LOCK" "name=other socket=$TMP/other.sock backend=null"
	hup_case "mac-lock port moved down and changed" "0 added, 1 restarted, 0 removed, 1 untouched" \
		"name=other socket=$TMP/other.sock backend=null" "$LOCK budget-pkts=128"
	traffic "mac-lock port restarted in another place, frames from its MAC" pass lock
	stop_pid "$HPID"
else
	not_ok "vnetd --config did not start: $(cat "$TMP/hup.log")"
fi
exit "$FAILED"
