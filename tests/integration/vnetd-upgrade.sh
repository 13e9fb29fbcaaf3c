#!/usr/bin/env bash
# vnetd-upgrade.sh - `vnetctl upgrade` replaces a running,
# sandboxed vnetd under connected frontends. vnet-bench drives 2 loop ports
# with 2 queue pairs each (one split, one packed), and a third added at run
# time by `vnetctl port add`, with --check-seq (every
# frame must come back once, in order, on its queue: a loss, a duplicate or
# a reordering fails it) across two upgrades in a row (A -> B -> C: the
# second proves the new process, sandboxed after takeover, can hand over
# again), with a third port idle. Then: no reconnect (one "connected" line per port, no
# "disconnected" while the bench runs), each old PID exited 0, the new one
# serves the same port list (the run-time port in it, still removable by
# port del), hand-over time and traffic gap printed.
# Refusals, with traffic still running: a corrupt state, a state from a
# newer format, a truncated one (VNETD_TAKEOVER_TEST in the new binary,
# build/test-hooks/vnetd, made by this test), a new binary that exits half-way (hook "exit") and one that
# never connects (/bin/false): vnetctl exits 1 with the reason, the running
# vnetd keeps serving (one log line each where it saw the attempt), the
# bench sees nothing. An idle port's socket and a half-received vhost-user
# message are handed over. A TAP port (tx-only traffic) keeps its TAP and its
# traffic across an upgrade. A switch (--switch, two switch ports) survives
# it: frames from A reach B through it before and after, B connected
# throughout. Last, 64 ports with `vnet-bench --vms 64`. Every upgrade's
# traffic gap (workers parked) must be < 1 s (UPGRADE_MAX_MS); the whole
# hand-over, which counts the new process's start while the old one still
# serves, is printed and only bounded against a hang (5 x UPGRADE_MAX_MS).
# needs: python3
set -u
cd "$(dirname "$0")/../.." || exit 1
VNETD=${VNETD:-build/vnetd}
BENCH=${VNET_BENCH:-build/vnet-bench}
VNETCTL=${VNETCTL:-build/vnetctl}
MAX_MS=${UPGRADE_MAX_MS:-1000}
# A sanitizer build's runtime makes syscalls the seccomp filter does not list
SB=()
case $VNETD in *asan*) SB=(--sandbox off) ;; esac
. tests/lib/common.sh
need_built "$VNETD" "$BENCH" "$VNETCTL"
TMP=$(mktemp -d /tmp/vnetd-upgrade.XXXXXX)
cleanup_path "$TMP"
C=$TMP/ctl.sock
LOG=$TMP/vnetd.log
VNETD_ABS=$(readlink -f "$VNETD")
# the refusals' new binary: the test-hooks build (VNETD_TAKEOVER_TEST damages the state)
HOOKS=${VNETD_HOOKS:-build/test-hooks/vnetd}
[ -n "${VNETD_HOOKS:-}" ] || make -s test-hooks > "$TMP/hooks.log" 2>&1 ||
	{ tail -n 5 "$TMP/hooks.log"; echo "Bail out! make test-hooks failed"; exit 1; }
HOOKS_ABS=$(readlink -f "$HOOKS")

# Every vnetd this test started or took over from: killed at exit
kill_all() {
	local p
	for p in $(cat "$TMP/pids" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
}
cleanup_run kill_all

# vnetctl upgrade; sets UP_RC, UP_OUT; the new PID goes to $TMP/pids
upgrade() {
	local t0
	t0=$(date -u +%FT%T.%3N)
	UP_OUT=$("$@" "$VNETCTL" upgrade --binary "${UP_BIN:-$VNETD_ABS}" --socket "$C" 2>&1)
	UP_RC=$?
	# where the time went when an upgrade fails: vnetd's own lines, stamped
	# (UP_DIAG goes into the check's name: the runner prints failed ones)
	UP_DIAG=""
	[ "$UP_RC" = 0 ] || UP_DIAG=" [rc $UP_RC: $(tail -n 1 <<< "$UP_OUT"); started $t0, ended $(date -u +%T.%3N); vnetd: $(awk -v t="$t0" '$1 >= t && /upgrade|takeover|handed|refus/' "$LOG" | tail -n 4 | tr '\n' '|')]"
	NEWPID=$(sed -n 's/.*ok pid \([0-9]*\) .*/\1/p' <<< "$UP_OUT")
	[ -n "$NEWPID" ] && echo "$NEWPID" >> "$TMP/pids"
	echo "# vnetctl upgrade: rc $UP_RC: $UP_OUT"
}
json() { python3 -c "import json,sys; d=json.load(open('$1')); print($2)" 2>/dev/null; }
# "WHOLE PARKED" (ms) per hand-over the old process logged in $LOG
handovers() { sed -n 's/.*handed to pid [0-9]* in \([0-9]*\) ms (workers parked \([0-9]*\) ms).*/\1 \2/p' "$LOG"; }
# bench_end PID...: end vnet-bench runs' windows now (SIGINT: each drains what
# is in flight and reports as at the end of its --duration, which is only an
# upper bound once what it was there for has happened)
bench_end() { kill -INT "$@" 2>/dev/null; }
bench_ok() {	# FILE: ok, nothing lost, duplicated or reordered
	[ "$(json "$1" "d['ok'] and d['total']['lost'] == 0 and d['total']['missing'] == 0 and d['total']['dup_or_reordered'] == 0")" = True ]
}

"$VNETD" --port "name=split,socket=$TMP/split.sock,backend=loop,queues=2" \
	--port "name=packed,socket=$TMP/packed.sock,backend=loop,queues=2" \
	--port "name=idle,socket=$TMP/idle.sock,backend=loop" \
	--switch s0 --port "name=sa,socket=$TMP/sa.sock,switch=s0" \
	--port "name=sb,socket=$TMP/sb.sock,switch=s0" \
	--ctl-socket "$C" "${SB[@]}" 2>"$LOG" &
VPID=$!
echo "$VPID" >> "$TMP/pids"
wait_sock "$C" 5 "$VPID" && wait_sock "$TMP/packed.sock" 5 "$VPID" ||
	{ echo "Bail out! vnetd did not start"; cat "$LOG"; exit 1; }
# a port added at run time (no name=: the one vnetd picks must stay)
ADD=$("$VNETCTL" port add "socket=$TMP/rt.sock,backend=loop,queues=2" --socket "$C" 2>&1)
RT=$(sed -n 's/^ok: port \([^ ]*\) added.*/\1/p' <<< "$ADD")
check "vnetctl port add: a run-time port ($ADD)" [ -n "$RT" ]
"$VNETCTL" port list --socket "$C" > "$TMP/list.before" 2>&1

# --- two upgrades in a row under traffic ----------------------------------
"$BENCH" --socket "$TMP/split.sock" --pairs 2 --duration 30 --check-seq --json \
	> "$TMP/split.json" 2>"$TMP/split.err" &
B1=$!
"$BENCH" --socket "$TMP/packed.sock" --pairs 2 --packed --duration 30 --check-seq --json \
	> "$TMP/packed.json" 2>"$TMP/packed.err" &
B2=$!
"$BENCH" --socket "$TMP/rt.sock" --pairs 2 --duration 30 --check-seq --json \
	> "$TMP/rt.json" 2>"$TMP/rt.err" &
B3=$!
sleep 2
upgrade
check "upgrade 1: vnetctl exits 0 and names the new pid$UP_DIAG" eval '[ $UP_RC = 0 ] && [ -n "$NEWPID" ]'
PID_B=$NEWPID
GAP1=$(sed -n 's/.*paused_ms \([0-9]*\).*/\1/p' <<< "$UP_OUT")
wait "$VPID"; arc=$?
check "upgrade 1: the old vnetd (pid $VPID) exited 0 (rc $arc)" [ "$arc" = 0 ]
check "upgrade 1: the new vnetd (pid $PID_B) serves" kill -0 "${PID_B:-0}"
# a process group of its own, in vnetctl's session: a new session would be
# a new scheduler autogroup, which a busy host leaves waiting for seconds
check "upgrade 1: the new vnetd leads a process group of its own in vnetctl's session ($(ps -o pid=,pgid=,sid= -p "${PID_B:-0}" | xargs); ours $(ps -o sid= -p $$ | xargs))" \
	eval '[ "$(ps -o pgid= -p "${PID_B:-0}" | xargs)" = "$PID_B" ] && [ "$(ps -o sid= -p "$PID_B" | xargs)" = "$(ps -o sid= -p $$ | xargs)" ]'
"$VNETCTL" status --socket "$C" > "$TMP/status.mid" 2>&1
check "upgrade 1: the three frontends still connected, the run-time port's too (status)" \
	eval '[ "$(grep -c "(server), backend loop, connected" "$TMP/status.mid")" = 3 ]'
sleep 1.5
upgrade
check "upgrade 2 (from the process that took over, sandboxed): vnetctl exits 0$UP_DIAG" \
	eval '[ $UP_RC = 0 ] && [ -n "$NEWPID" ]'
PID_C=$NEWPID
GAP2=$(sed -n 's/.*paused_ms \([0-9]*\).*/\1/p' <<< "$UP_OUT")
for _ in $(seq 50); do kill -0 "${PID_B:-0}" 2>/dev/null || break; sleep 0.1; done
check "upgrade 2: pid $PID_B gone, pid $PID_C serving" \
	eval '! kill -0 "${PID_B:-0}" 2>/dev/null && kill -0 "${PID_C:-0}"'
sleep 0.5
# the log is only evidence while the benches still run (their end is a
# disconnect): their --duration is an upper bound that two upgrades on a loaded
# machine stay well within; bench_end ends them once the checks are done
check "the three vnet-bench runs still going after the second upgrade" eval 'kill -0 $B1 && kill -0 $B2 && kill -0 $B3'
cp "$LOG" "$TMP/log.during"
sleep 1	# traffic through the third process before the benches drain
bench_end "$B1" "$B2" "$B3"
wait "$B1"; r1=$?
wait "$B2"; r2=$?
wait "$B3"; r3=$?
check "split, 2 pairs: vnet-bench exits 0, every frame back once, in order (rc $r1)" \
	eval '[ $r1 = 0 ] && bench_ok "$TMP/split.json"'
check "packed, 2 pairs: vnet-bench exits 0, every frame back once, in order (rc $r2)" \
	eval '[ $r2 = 0 ] && bench_ok "$TMP/packed.json"'
check "run-time port $RT (vnetctl port add), 2 pairs: vnet-bench exits 0, every frame back once, in order (rc $r3)" \
	eval '[ $r3 = 0 ] && bench_ok "$TMP/rt.json"'
echo "# split: $(json "$TMP/split.json" "d['total']")"
echo "# run-time port: $(json "$TMP/rt.json" "d['total']")"
echo "# packed: $(json "$TMP/packed.json" "d['total']")"
check "no reconnect: one connection per port, no disconnect while the bench ran" \
	eval '[ "$(grep -c "frontend pid .* connected on" "$TMP/log.during")" = 3 ] && ! grep -q "disconnected" "$TMP/log.during"'
"$VNETCTL" port list --socket "$C" > "$TMP/list.after" 2>&1
check "port list identical before and after, the run-time port $RT in it" \
	eval 'cmp -s "$TMP/list.before" "$TMP/list.after" && grep -q "^$RT socket=$TMP/rt.sock " "$TMP/list.after"'
DEL=$("$VNETCTL" port del "$RT" --socket "$C" 2>&1)
check "the run-time port is removed by port del after two upgrades ($DEL)" \
	eval '! "$VNETCTL" port list --socket "$C" | grep -q "^$RT "'
HAND=$(handovers | tr '\n' ' ')
echo "# hand-over (ms, parked ms) per upgrade: $HAND; traffic gap seen by the new process: ${GAP1:-?} ms, ${GAP2:-?} ms"
# The traffic gap (workers parked) is what a guest sees: < MAX_MS. The whole
# hand-over also counts the new process's start before it (vnetd runs on):
# bounded only against a hang, 5 x MAX_MS (1.3 s once on a loaded host)
check "each upgrade parked the workers < $MAX_MS ms, the whole hand-over < $((5 * MAX_MS)) ms (whole, parked: $HAND)" \
	python3 -c "import sys; v=[int(x) for x in '$HAND'.split()]; sys.exit(0 if len(v) == 4 and max(v[1::2]) < $MAX_MS and max(v[0::2]) < 5 * $MAX_MS else 1)"

# --- an idle port's listening socket, a half-received message ---------------
# A frontend on the idle port sends 6 of GET_FEATURES' 12 header bytes, the
# upgrade happens, it sends the other 6: the new process must answer it.
python3 - "$TMP/idle.sock" "$TMP/half" > "$TMP/half.out" 2>&1 <<'PY' &
import socket, struct, sys, os, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
m = struct.pack('<III', 1, 1, 0)		# GET_FEATURES, version 1, no payload
s.sendall(m[:6]); open(sys.argv[2], 'w').close()
while os.path.exists(sys.argv[2]): time.sleep(0.05)
s.sendall(m[6:]); s.settimeout(5)
r = b''
while len(r) < 20: r += s.recv(20 - len(r))
req, flags, size, feat = struct.unpack('<IIIQ', r)
print('reply', req, hex(flags), size, hex(feat)); sys.exit(0 if req == 1 and size == 8 and feat else 1)
PY
HPID=$!
for _ in $(seq 100); do [ -e "$TMP/half" ] && break; sleep 0.05; done
sleep 0.2
upgrade
rm -f "$TMP/half"
wait "$HPID"; hrc=$?
check "half-received message: the new process answers the rest of it ($(cat "$TMP/half.out"))$UP_DIAG" \
	eval '[ "$UP_RC" = 0 ] && [ $hrc = 0 ]'
[ -n "$NEWPID" ] && PID_C=$NEWPID
"$BENCH" --socket "$TMP/idle.sock" --duration 1 --check-seq --json > "$TMP/idle.json" 2>"$TMP/idle.err"
check "a port idle at the hand-over accepts a frontend on the handed-over socket" bench_ok "$TMP/idle.json"

# --- a loop guest that never reads its RX: the drain gives up in bounded time
# The old process delivers a loop port's FIFO into its guest's RX rings before
# it hands over, waiting a little for a guest short of buffers (UPGRADE_DRAIN_MS,
# 100 ms for every port together). A guest whose RX hangs (vnet-bench --rx-hang)
# never posts more: its frames
# are dropped with one line naming the port, the workers stay parked < 1 s,
# and the port next to it loses nothing.
"$BENCH" --socket "$TMP/split.sock" --pairs 2 --duration 20 --check-seq --json \
	> "$TMP/stall.split.json" 2>"$TMP/stall.split.err" &
B6=$!
"$BENCH" --socket "$TMP/packed.sock" --packed --mode tx-only --rx-hang --duration 20 --json \
	> "$TMP/stall.json" 2>"$TMP/stall.err" &
B7=$!
sleep 2
upgrade
[ -n "$NEWPID" ] && PID_C=$NEWPID
sleep 1.5	# traffic through the new process before the benches drain
bench_end "$B6" "$B7"
wait "$B6"; r6=$?
wait "$B7"; r7=$?
PARKED=$(handovers | tail -n 1 | cut -d' ' -f2)
check "stalled guest: vnetctl exits 0, one line names the port and the frames dropped$UP_DIAG" \
	eval '[ "$UP_RC" = 0 ] && [ "$(grep -c "port packed: frames for the guest on 1 queue pair dropped at the hand-over" "$LOG")" = 1 ]'
check "stalled guest: the workers waited for it, parked ${PARKED:-?} ms (>= 100, < $MAX_MS)" \
	eval '[ -n "$PARKED" ] && [ "$PARKED" -ge 100 ] && [ "$PARKED" -lt "$MAX_MS" ]'
check "stalled guest: the port next to it lost nothing (rc $r6), the tx-only one ends 0 (rc $r7)" \
	eval '[ $r6 = 0 ] && bench_ok "$TMP/stall.split.json" && [ $r7 = 0 ]'

# --- refusals: the running vnetd keeps serving ------------------------------
"$BENCH" --socket "$TMP/split.sock" --pairs 2 --duration 30 --check-seq --json \
	> "$TMP/refuse.json" 2>"$TMP/refuse.err" &
B3=$!
sleep 1
refusal() {	# NAME HOOK EXPECT: upgrade with the hook, expect a refusal naming EXPECT
	local before after name=$1 hook=$2 expect=$3
	before=$(grep -c "upgrade by pid" "$LOG")
	if [ "$hook" = false ]; then
		UP_OUT=$("$VNETCTL" upgrade --binary /bin/false --socket "$C" 2>&1); UP_RC=$?
		echo "# vnetctl upgrade --binary /bin/false: rc $UP_RC: $UP_OUT"
	else
		UP_BIN=$HOOKS_ABS upgrade env VNETD_TAKEOVER_TEST="$hook"
	fi
	after=$(grep -c "upgrade by pid" "$LOG")
	check "$name: vnetctl exits 1 naming the reason ($expect)" eval '[ $UP_RC = 1 ] && grep -qi -- "$expect" <<< "$UP_OUT"'
	if [ "$hook" = false ]; then
		check "$name: the running vnetd saw nothing (no log line)" [ "$after" = "$before" ]
	else
		check "$name: the running vnetd logs one line" [ "$after" = $((before + 1)) ]
	fi
	check "$name: pid $PID_C still serves" kill -0 "${PID_C:-0}"
}
refusal "corrupt state" corrupt "checksum"
refusal "newer format" newer "reads versions 1.."
refusal "truncated state" truncate "truncated"
refusal "new binary exits during the hand-over" exit "exited (status 3)"
refusal "new binary never connects (/bin/false)" false "exited (status 1)"
grep "upgrade by pid" "$LOG" | sed 's/^/# /'
bench_end "$B3"
wait "$B3"; r3=$?
check "refusals: vnet-bench unaffected, every frame back once, in order (rc $r3)" \
	eval '[ $r3 = 0 ] && bench_ok "$TMP/refuse.json"'
check "no seccomp trap in the log" eval '! grep -q "seccomp" "$LOG"'

# --- the switch and its ports survive the hand-over -------------------------
# B (rx-only) stays connected across the upgrade; A sends 300 frames through
# the switch before it and 300 after it (a new session on the new process)
"$BENCH" --socket "$TMP/sb.sock" --mode rx-only --no-check-seq --duration 40 --json \
	> "$TMP/sw.b.json" 2>"$TMP/sw.b.err" &
BSW=$!
sw_send() {
	"$BENCH" --socket "$TMP/sa.sock" --mode tx-only --no-check-seq --duration 1 \
		--frames 300 --pps 1000 --json > "$TMP/sw.$1.json" 2>"$TMP/sw.$1.err"
}
for _ in $(seq 50); do grep -q "port sb: frontend pid .* connected" "$LOG" && break; sleep 0.1; done
sleep 0.3
sw_send a1
upgrade
[ -n "$NEWPID" ] && PID_C=$NEWPID
show=$("$VNETCTL" switch show s0 --socket "$C" 2>&1)
check "switch: upgrade exits 0; the new vnetd has s0 with sa and sb, B's port up$UP_DIAG" \
	eval '[ "$UP_RC" = 0 ] && grep -q "^switch s0: ports 2," <<< "$show" && grep -q "^port sb: vlan 1, up," <<< "$show"'
sw_send a2
sleep 0.5
kill -INT "$BSW"
wait "$BSW"; rb=$?
check "switch: A's 300 frames before and 300 after the upgrade reached B, connected throughout (rc $rb, $(json "$TMP/sw.b.json" "d['total']['rx_frames']") frames)" \
	eval '[ $rb = 0 ] && [ "$(json "$TMP/sw.b.json" "d['"'"'total'"'"']['"'"'rx_frames'"'"']")" = 600 ] && [ "$(grep -c "port sb: frontend pid .* connected" "$LOG")" = 1 ]'
kill -TERM "${PID_C:-0}"
for _ in $(seq 50); do kill -0 "${PID_C:-0}" 2>/dev/null || break; sleep 0.1; done
check "the last vnetd exits on SIGTERM and removes its sockets" \
	eval '! kill -0 "${PID_C:-0}" 2>/dev/null && [ ! -e "$TMP/split.sock" ] && [ ! -e "$C" ]'

# --- a TAP port: its queue fd is handed over, the kernel keeps its queue ------
TAPN=upg$$
if [ "$(id -u)" = 0 ] && [ -c /dev/net/tun ]; then
	LOG=$TMP/vnetd-tap.log
	"$VNETD" --port "name=t,socket=$TMP/t.sock,backend=tap,tap=$TAPN,vhost-net=off" \
		--ctl-socket "$C" "${SB[@]}" 2>"$LOG" &
	VPID=$!
	echo "$VPID" >> "$TMP/pids"
	wait_sock "$TMP/t.sock" 5 "$VPID" || { echo "Bail out! vnetd (tap) did not start"; cat "$LOG"; exit 1; }
	ifi=$(cat "/sys/class/net/$TAPN/ifindex")
	"$BENCH" --socket "$TMP/t.sock" --mode tx-only --duration 20 --json > "$TMP/tap.json" 2>"$TMP/tap.err" &
	B5=$!
	sleep 1.5
	upgrade
	r1=$(cat "/sys/class/net/$TAPN/statistics/rx_packets")
	sleep 1
	r2=$(cat "/sys/class/net/$TAPN/statistics/rx_packets")
	bench_end "$B5"
	wait "$B5"; r5=$?
	check "tap: upgrade exits 0, the same TAP ($TAPN, ifindex $ifi) keeps taking guest frames ($r1 -> $r2)$UP_DIAG" \
		eval '[ "$UP_RC" = 0 ] && [ "$(cat "/sys/class/net/$TAPN/ifindex")" = "$ifi" ] && [ "$r2" -gt "$r1" ]'
	check "tap: vnet-bench tx-only exits 0 (rc $r5)" [ "$r5" = 0 ]
	kill -TERM "${NEWPID:-0}" 2>/dev/null
	for _ in $(seq 50); do [ -e "/sys/class/net/$TAPN" ] || break; sleep 0.1; done
	check "tap: the new vnetd's exit removes the TAP the old one created" [ ! -e "/sys/class/net/$TAPN" ]
else
	ok_skip "tap port handed over" "needs root and /dev/net/tun"
fi

# --- 64 ports, 64 VMs ------------------------------------------------------
PORTS=() SOCKS=()
for i in $(seq 0 63); do
	PORTS+=(--port "name=vm$i,socket=$TMP/vm$i.sock,backend=loop")
	SOCKS+=(--socket "$TMP/vm$i.sock")
done
LOG=$TMP/vnetd64.log
"$VNETD" "${PORTS[@]}" --ctl-socket "$C" "${SB[@]}" --log-level info 2>"$LOG" &
VPID=$!
echo "$VPID" >> "$TMP/pids"
wait_sock "$C" 10 "$VPID" && wait_sock "$TMP/vm63.sock" 10 "$VPID" ||
	{ echo "Bail out! vnetd with 64 ports did not start"; tail "$LOG"; exit 1; }
# vnet-bench drives at most 16 VMs: four of them, 16 VMs each
BB=()
for g in 0 1 2 3; do
	"$BENCH" "${SOCKS[@]:$((g * 32)):32}" --vms 16 --duration 6 --check-seq --json \
		> "$TMP/vms64.$g.json" 2>"$TMP/vms64.$g.err" &
	BB+=($!)
done
for _ in $(seq 100); do
	[ "$(grep -c "connected on" "$LOG")" -ge 64 ] && break; sleep 0.1
done
sleep 1
upgrade
# the new process must answer within vnetd's 5 s step; with 64 ports on a
# loaded machine it has once missed it (the old one kept serving): one retry,
# said, and a second miss fails the check
if [ "$UP_RC" != 0 ] && grep -q "went away\|did not answer" <<< "$UP_OUT"; then
	echo "# 64 ports: first hand-over missed vnetd's step deadline; trying once more"
	upgrade
fi
check "64 ports: vnetctl upgrade exits 0$UP_DIAG" [ "$UP_RC" = 0 ]
[ "$UP_RC" = 0 ] || kill "$VPID" 2> /dev/null	# else the wait below never ends
wait "$VPID"
sleep 1	# traffic through the new process before the benches drain
bench_end "${BB[@]}"
r4=0
for b in "${BB[@]}"; do wait "$b" || r4=$?; done
HAND=$(handovers)
echo "# 64 ports: hand-over ${HAND% *} ms, workers parked ${HAND#* } ms; gap seen by the new process: $(sed -n 's/.*paused_ms \([0-9]*\).*/\1/p' <<< "$UP_OUT") ms"
for g in 0 1 2 3; do echo "# 16 VMs ($g): $(json "$TMP/vms64.$g.json" "d['total']")"; done
# The traffic gap is the parked time; the whole hand-over adds the new
# process's start (before it says go the old one still serves): 147 ms whole,
# 139 ms parked on an idle machine, up to 2.6 s whole with other tests running
check "64 ports: traffic parked < $MAX_MS ms (${HAND#* } ms; whole hand-over ${HAND% *} ms)" \
	eval '[ -n "$HAND" ] && [ "${HAND#* }" -lt "$MAX_MS" ]'
check "64 VMs: vnet-bench exits 0, every frame back once, in order (rc $r4)" \
	eval '[ $r4 = 0 ] && bench_ok "$TMP/vms64.0.json" && bench_ok "$TMP/vms64.1.json" && bench_ok "$TMP/vms64.2.json" && bench_ok "$TMP/vms64.3.json"'
echo "1..$N"
[ "$FAILED" = 0 ] || { echo "--- vnetd logs (tail) ---"; tail -n 30 "$TMP/vnetd.log" "$TMP/vnetd64.log"; cat "$TMP"/*.err; }
exit "$FAILED"
