#!/usr/bin/env bash
# vnetd-slowloris.sh - one port's frontend or a control client cannot stall
# another port ("control plane per connection, never blocking").
# needs: python3
# vnetd serves ports A and B (loop backend) and a control socket. Each
# attack runs in turn while port B is measured: a frontend on A holding 6
# header bytes; one holding a whole header and no payload; one holding 20 of
# 40 payload bytes; one dripping a byte every 0.5 s; one sending requests
# and never reading the replies (vnetd stops reading it, then closes it);
# each of these is closed as stalled after --frontend-stall-ms (1 s) and
# comes back at once; 1,000 idle control clients; a control client
# dripping its request.
# Measured on B during each attack, and once without: connect +
# GET_FEATURES round trip (python, 20 times: the worst), a full connect +
# set up + 32 frames + disconnect by vnet-bench --sessions 10 (ms per
# session), `vnetctl status` (the worst of 5; during the control attacks a
# quick refusal counts as an answer) and B's data rate (vnet-bench
# bidirectional, best of three 1 s runs, against the same taken just before
# the attack starts; if short of 90 %, 7 pairs of 1 s rounds, the attacker
# running then stopped, and the median over the pairs of running / stopped
# against 80 %). Passes if every B
# request is answered in < 50 ms, B's rate holds, and the attackers were
# closed with one log line each naming the port and PID.
# Prints the numbers and TAP lines.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
VNETD=${VNETD:-build/vnetd}
BENCH=${VNET_BENCH:-build/vnet-bench}
VNETCTL=${VNETCTL:-build/vnetctl}
LIMIT_MS=${VNET_SLOWLORIS_LIMIT_MS:-50}
need_built "$VNETD" "$BENCH" "$VNETCTL"
TMP=$(mktemp -d /tmp/vnetd-slow.XXXXXX)
cleanup_path "$TMP"

A=$TMP/a.sock B=$TMP/b.sock C=$TMP/ctl.sock
cat > "$TMP/slow.py" <<'PY'
import os, resource, socket, struct, sys, time
def conn(path, timeout=3):
    s = socket.socket(socket.AF_UNIX); s.settimeout(timeout); s.connect(path); return s
def get_features(s):
    s.sendall(struct.pack('<III', 1, 1, 0))
    h = b''
    while len(h) < 20:
        c = s.recv(20 - len(h))
        if not c: raise EOFError('closed')
        h += c
def closed(s):
    try:
        s.settimeout(0); return s.recv(1) == b''
    except BlockingIOError:
        return False
    except OSError:
        return True
cmd, path = sys.argv[1], sys.argv[2]
if cmd == 'half':        # 6 of 12 header bytes, then nothing; again once closed
    while True:
        s = conn(path); s.sendall(struct.pack('<III', 1, 1, 0)[:6])
        while not closed(s): time.sleep(0.1)
elif cmd in ('header', 'payload'):  # SET_VRING_ADDR (40 bytes): 12 or 32 of 52
    msg = struct.pack('<III', 9, 1, 40) + (bytes(20) if cmd == 'payload' else b'')
    while True:
        s = conn(path); s.sendall(msg)
        while not closed(s): time.sleep(0.1)
elif cmd == 'drip':      # a byte every 0.5 s of an endless SET_FEATURES stream
    msg = struct.pack('<IIIQ', 2, 1, 8, 0) * 1000
    while True:
        s = conn(path); i = 0
        while not closed(s):
            try: s.send(msg[i:i+1])
            except OSError: break
            i += 1; time.sleep(0.5)
elif cmd == 'noread':    # requests with replies, never read
    req = struct.pack('<III', 1, 1, 0) * 64
    while True:
        s = conn(path); s.setblocking(False)
        while True:
            try: s.send(req)
            except BlockingIOError: time.sleep(0.01)
            except OSError: break
elif cmd == 'ctl-idle':  # 1,000 clients that connect and say nothing
    resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
    socks = []
    while True:
        while len(socks) < 1000:
            s = socket.socket(socket.AF_UNIX); s.setblocking(False)
            try: s.connect(path)
            except (BlockingIOError, InterruptedError): pass
            except OSError: s.close(); time.sleep(0.01); continue
            socks.append(s)
        time.sleep(1)
        socks = [s for s in socks if not closed(s) or s.close()]
elif cmd == 'ctl-drip':  # "status\n" a byte every 0.5 s
    while True:
        s = conn(path)
        for ch in b'status\n':
            if closed(s): break
            try: s.send(bytes([ch]))
            except OSError: break
            time.sleep(0.5)
        s.close()
elif cmd == 'measure':   # worst connect + GET_FEATURES round trip, ms
    worst = 0
    for _ in range(20):
        t = time.monotonic()
        try:
            s = conn(path); get_features(s); s.close()
        except OSError:     # timed out, refused: as bad as it gets
            worst = 99.999; break
        worst = max(worst, time.monotonic() - t)
        time.sleep(0.02)
    print('%.1f' % (worst * 1000))
PY
# vnetd (control thread and its one worker) on CPU 0, B's traffic generator on
# CPU 1: unpinned, the two land on one CPU at random moments and single 1 s
# rates swing 4-7 Mpps; an attack that costs vnetd CPU still shows, as the
# control thread shares CPU 0 with the worker serving B
PIN_VNETD=() PIN_BENCH=()
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
	PIN_VNETD=(taskset -c 0) PIN_BENCH=(taskset -c 1)
fi
"${PIN_VNETD[@]}" "$VNETD" --port "name=a,socket=$A,backend=loop" --port "name=b,socket=$B,backend=loop" \
	--ctl-socket "$C" 2>"$TMP/vnetd.log" &
VPID=$!; cleanup_pid "$VPID"
for _ in $(seq 100); do [ -S "$B" ] && [ -S "$C" ] && break; sleep 0.05; done
[ -S "$B" ] || { echo "Bail out! vnetd did not start"; cat "$TMP/vnetd.log"; exit 1; }

# B's latencies: "GETF_MS SESSION_MS STATUS_MS"
latencies() {
	local getf sess st=0 t0 t1 ms i
	getf=$(python3 "$TMP/slow.py" measure "$B" 2>/dev/null | tail -1)
	sess=$("$BENCH" --socket "$B" --sessions 10 --json 2>/dev/null |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print("%.1f" % (d["seconds"]*100))' 2>/dev/null)
	for i in 1 2 3 4 5; do
		t0=$(date +%s%N)
		timeout 5 "$VNETCTL" status --socket "$C" >/dev/null 2>&1
		t1=$(date +%s%N)
		ms=$(( (t1 - t0) / 1000000 ))
		[ "$ms" -gt "$st" ] && st=$ms
	done
	echo "${getf:-inf} ${sess:-inf} $st"
}
# B's data rate, Mpps: one 1 s run
rate1() {
	local m
	m=$("${PIN_BENCH[@]}" "$BENCH" --socket "$B" -d 1 --json --no-check-seq 2>/dev/null |
		sed -n 's/.*"rx_mpps": \([0-9.]*\).*/\1/p' | head -1)
	echo "${m:-0}"
}
# B's data rate, Mpps: the best of three 1 s runs (the machine is shared)
rate() {
	local i m best=0
	for i in 1 2 3; do
		m=$(rate1)
		best=$(awk -v a="$m" -v b="$best" 'BEGIN { print (a + 0 > b + 0) ? a : b }')
	done
	echo "$best"
}
median() { python3 -c "import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }
# B's data rate with attacker $1 running and stopped, in 7 alternating
# pairs of rounds: "MEDIAN_ATTACKED MEDIAN_STOPPED PAIR_RATIO", the last the
# median over the pairs of attacked / stopped. The machine's speed drifts
# by 2-3x in phases of some seconds (a shared host), so the two medians
# can come from different phases; the two rounds of a pair, one second
# apart, share one. A stopped attacker still holds its connection, so the
# gap left is what the attacker's activity costs B.
rate_alternating() {
	local apid=$1 i on=() off=()
	for i in 1 2 3 4 5 6 7; do
		on+=("$(rate1)")
		kill -STOP "$apid"; off+=("$(rate1)"); kill -CONT "$apid"
	done
	echo "# rounds attacked: ${on[*]}; stopped: ${off[*]}" >&2
	echo "$(median "${on[@]}") $(median "${off[@]}") $(python3 -c '
import statistics, sys
on, off = sys.argv[1].split(), sys.argv[2].split()
print("%.3f" % statistics.median(float(a) / float(b) if float(b) > 0 else 0 for a, b in zip(on, off)))' \
		"${on[*]}" "${off[*]}")"
}
# lt A B, ge A B: numeric comparisons (awk: no interpreter start per call on the
# per-attack path); "inf" or an empty value is not a number: lt fails, ge fails
num() { [[ $1 =~ ^[0-9]+(\.[0-9]*)?$ ]]; }
lt() { num "$1" && num "$2" && awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }
ge() { num "$1" && num "$2" && awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }
# the log line that shows attack $1 did its harm and was dealt with (the checks
# after the loop look for the same)
declare -A SEEN=(
	[half]="port a: frontend pid [0-9]+ stalled mid-message: 6 bytes"
	[header]="port a: frontend pid [0-9]+ stalled mid-message: 12 bytes"
	[payload]="port a: frontend pid [0-9]+ stalled mid-message: 32 bytes"
	[drip]="port a: frontend pid [0-9]+ stalled mid-message: [1-5] bytes"
	[noread]="port a: frontend pid [0-9]+ stalled owing a reply"
	[ctl-idle]="control socket: refusing client pid [0-9]+: 64 clients"
	[ctl-drip]="control socket: client pid [0-9]+: request not done within"
)

read -r g0 s0 t0 <<< "$(latencies)"
r0=$(rate)
echo "# no attack: B GET_FEATURES worst ${g0} ms, session ${s0} ms, vnetctl status worst ${t0} ms, B ${r0} Mpps"
for atk in half header payload drip noread ctl-idle ctl-drip; do
	case $atk in ctl-*) target=$C ;; *) target=$A ;; esac
	# without attack, just before: the load of the moment (the first attack's is
	# the no-attack rate just taken)
	[ "$atk" = half ] || r0=$(rate)
	# niced: on a 2-core machine the attacker's own CPU is not what is tested
	nice -n 10 python3 "$TMP/slow.py" "$atk" "$target" 2>/dev/null & apid=$!; cleanup_pid "$apid"
	start=$SECONDS from=$(($(wc -l < "$TMP/vnetd.log") + 1))
	sleep 0.5
	read -r g s t <<< "$(latencies)"
	r=$(rate)
	# a latency above the limit on a loaded machine: the latencies once more
	# before failing (the attack is still running), after the rate's seconds
	# as before, so that a slow phase of the host can pass
	if ! { lt "$g" "$LIMIT_MS" && lt "$s" "$LIMIT_MS" && lt "$t" $((LIMIT_MS + 50)); }; then
		echo "# $atk: first measurement $g ms, $s ms/session, status $t ms: once more"
		read -r g s t <<< "$(latencies)"
	fi
	# One 1 s rate on this shared 2-vCPU machine swings by +-25 % even
	# pinned (CI runs saw the drip, a byte every 0.5 s, at 89 % and 86 %).
	# Short of 90 %: measure both sides in alternating pairs of rounds and
	# compare the median pair ratio against 80 %. An attack that costs
	# vnetd CPU takes half of CPU 0 from the worker serving B, and stays
	# far below that.
	pct=90
	if ! ge "$r" "$(awk -v p="$pct" -v r="$r0" 'BEGIN { print p / 100 * r }')"; then
		echo "# $atk: B $r Mpps against $r0 without attack: alternating rounds"
		read -r r r0 ratio <<< "$(rate_alternating "$apid")"
		pct=80
		detail="median pair ratio $ratio; medians $r attacked, $r0 stopped Mpps"
		ge "$ratio" 0.80 && r_ok=1 || r_ok=0
	else
		detail="$r of $r0 Mpps" r_ok=1
	fi
	# the attack runs until vnetd has logged dealing with it once (after the
	# 1 s stall deadline; 2 s for control clients), 7 s at most
	while [ $((SECONDS - start)) -lt 7 ] && ! tail -n "+$from" "$TMP/vnetd.log" | grep -Eq "${SEEN[$atk]}"; do
		sleep 0.2
	done
	echo "# $atk: B GET_FEATURES worst $g ms, session $s ms, vnetctl status worst $t ms, B $r Mpps (no attack: $r0)"
	check "$atk: B's vhost-user requests answered in < $LIMIT_MS ms ($g ms, $s ms/session)" \
		eval 'lt "$g" "$LIMIT_MS" && lt "$s" "$LIMIT_MS"'
	check "$atk: vnetctl status answered (or refused) in < $LIMIT_MS ms + process start ($t ms)" \
		lt "$t" $((LIMIT_MS + 50))
	check "$atk: B's data rate >= $pct % ($detail)" [ "$r_ok" = 1 ]
	kill -KILL "$apid" 2>/dev/null; wait "$apid" 2>/dev/null
done
for n in 6 12 32; do
	grep -q "port a: frontend pid [0-9]* stalled mid-message: $n bytes of it in [0-9]* ms (--frontend-stall-ms 1000)" "$TMP/vnetd.log"
	check "a frontend holding $n bytes of a message closed as stalled after 1 s, logged with port and PID" [ $? = 0 ]
done
grep -qE "port a: frontend pid [0-9]+ stalled mid-message: [1-5] bytes of it in [0-9]+ ms" "$TMP/vnetd.log"
check "the drip (a byte every 0.5 s) closed as stalled after 1 s too, logged with port and PID" [ $? = 0 ]
grep -q "port a: frontend pid [0-9]* stalled owing a reply: [0-9]* reply bytes not read in [0-9]* ms" "$TMP/vnetd.log"
check "a frontend not reading its replies is not read either, closed as stalled after 1 s, logged with port and PID" [ $? = 0 ]
grep -q "control socket: refusing client pid [0-9]*: 64 clients" "$TMP/vnetd.log"
check "control clients beyond 64 refused, logged with the PID" [ $? = 0 ]
grep -q "control socket: client pid [0-9]*: request not done within" "$TMP/vnetd.log"
check "slow control clients closed at their deadline, logged with the PID" [ $? = 0 ]
check "vnetd survived" kill -0 "$VPID"
echo "1..$N"
[ $FAILED = 0 ] || { echo "--- vnetd log (tail) ---"; tail -20 "$TMP/vnetd.log"; }
exit $FAILED
