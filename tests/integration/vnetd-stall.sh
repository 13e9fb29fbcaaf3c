#!/usr/bin/env bash
# vnetd-stall.sh - a frontend that stalls mid-message or never reads its
# replies does not hold its port; one that is idle between whole
# messages does.
# needs: python3
# vnetd (default --frontend-stall-ms, 1000) serves a port per case, loop
# backend, and port b, whose control round trip is measured during each
# stall. For each stall a first frontend (python) takes its port and stops:
#   half     6 of the 12 header bytes of GET_FEATURES
#   header   the whole header of SET_VRING_ADDR (40-byte payload), no payload
#   payload  that header and 20 of the 40 payload bytes
#   noread   5,000 GET_FEATURES, no reply read (vnetd's reply stops at a full
#            socket buffer)
# and holds its connection open. vnet-bench then connects as a second
# frontend and must get a complete session (features, memory, rings, 32
# frames through the loop and back) within the deadline plus a second,
# without being refused once; the first connection must be closed (it sees
# the hangup), and vnetd's log must say which stall it was, with the port and
# both PIDs. Then the cases where the first keeps its port:
#   idle     the first is a running vnet-bench (control plane idle, frames
#            flowing): a second frontend is refused at once, the first's
#            traffic runs on with every frame back in order;
#   finish   the first sends half a header, a second connects and waits, the
#            first sends the rest and reads its reply: the second is refused
#            then (not before, not after the deadline), and the first's next
#            round trip works.
# Prints TAP lines.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
VNETD=${VNETD:-build/vnetd}
BENCH=${VNET_BENCH:-build/vnet-bench}
STALL_MS=1000			# vnetd's default --frontend-stall-ms
LIMIT_MS=$((STALL_MS + 1000))	# the second frontend's session, at most
RTT_MS=${VNET_STALL_RTT_MS:-50}	# port b's worst GET_FEATURES round trip
need_built "$VNETD" "$BENCH"
TMP=$(mktemp -d /tmp/vnetd-stall.XXXXXX)
cleanup_path "$TMP"

cat > "$TMP/fe.py" <<'PY'
import os, select, socket, struct, sys, time
GET_FEATURES, SET_VRING_ADDR = 1, 9
def hdr(req, size): return struct.pack('<III', req, 1, size)
def conn(path):
    s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(path); return s
def reply(s):
    h = b''
    while len(h) < 20:
        c = s.recv(20 - len(h))
        if not c: raise EOFError('closed')
        h += c
    return h
def ready(path): open(path, 'w').close()
def wait_for(path):
    while not os.path.exists(path): time.sleep(0.005)
# GATE=FILE: start up now, act once FILE exists (python's start-up, up to a
# second on a loaded 2-CPU host, stays out of what is timed)
if os.environ.get('GATE'):
    ready(os.environ['GATE'] + '.up'); wait_for(os.environ['GATE'])
# Wait for vnetd to close us without reading anything: poll for the hangup
def wait_closed(s, secs):
    p = select.poll(); p.register(s, select.POLLRDHUP | select.POLLHUP)
    t = time.monotonic()
    while time.monotonic() - t < secs:
        if p.poll(50): return time.monotonic() - t
    return None
cmd, path = sys.argv[1], sys.argv[2]
if cmd in ('half', 'header', 'payload', 'noread'):
    s = conn(path)
    if cmd == 'half':
        s.sendall(hdr(GET_FEATURES, 0)[:6])
    elif cmd == 'header':
        s.sendall(hdr(SET_VRING_ADDR, 40))
    elif cmd == 'payload':
        s.sendall(hdr(SET_VRING_ADDR, 40) + bytes(20))
    else:
        s.setblocking(False); req = hdr(GET_FEATURES, 0) * 50; n = 0
        while n < 5000:
            try: s.send(req); n += 50
            except BlockingIOError: break
        time.sleep(0.3)     # vnetd answers until its replies stop at a full buffer
    ready(sys.argv[3])
    t = wait_closed(s, 10)
    if t is None: print('still open after 10 s'); sys.exit(1)
    print('closed %.0f ms after it stalled' % (t * 1000))
elif cmd == 'finish':    # half a header; the rest once told; later, one more
    s = conn(path); s.sendall(hdr(GET_FEATURES, 0)[:6]); ready(sys.argv[3])
    wait_for(sys.argv[4])
    s.sendall(hdr(GET_FEATURES, 0)[6:]); reply(s)
    time.sleep(0.5 + int(sys.argv[5]) / 1000)   # past the second's deadline
    s.sendall(hdr(GET_FEATURES, 0)); reply(s)
    print('ok')
elif cmd == 'second':    # GET_FEATURES: "refused N ms" or "served N ms"
    t = time.monotonic()
    try:
        s = conn(path); s.settimeout(10); s.sendall(hdr(GET_FEATURES, 0)); reply(s)
        print('served %.0f' % ((time.monotonic() - t) * 1000))
    except (OSError, EOFError):
        print('refused %.0f' % ((time.monotonic() - t) * 1000))
elif cmd == 'rtt':       # worst connect + GET_FEATURES round trip of 10, ms
    worst = 0
    for _ in range(10):
        t = time.monotonic()
        try:
            s = conn(path); s.sendall(hdr(GET_FEATURES, 0)); reply(s); s.close()
        except (OSError, EOFError):
            worst = 99999; break
        worst = max(worst, time.monotonic() - t)
        time.sleep(0.01)
    print('%.1f' % (worst * 1000))
PY

ports=()
for p in half header payload noread idle finish b; do
	ports+=(--port "name=$p,socket=$TMP/$p.sock,backend=loop")
done
"$VNETD" "${ports[@]}" --ctl-socket "$TMP/ctl.sock" 2>"$TMP/vnetd.log" &
VPID=$!; cleanup_pid "$VPID"
wait_sock "$TMP/b.sock" 5 "$VPID" || { echo "Bail out! vnetd did not start"; cat "$TMP/vnetd.log"; exit 1; }

now_ms() { echo $(( ${EPOCHREALTIME/./} / 1000 )); }
wait_file() { local _; for _ in $(seq 400); do [ -e "$1" ] && return 0; sleep 0.02; done; return 1; }
# gated CMD ARGS...: start fe.py CMD gated on $TMP/gate.$CMD (GATE above),
# wait until it is up; $! is its PID
gated() {
	rm -f "$TMP/gate.$1" "$TMP/gate.$1.up"
	GATE=$TMP/gate.$1 python3 "$TMP/fe.py" "$@" > "$TMP/$1.out" 2>&1 &
	wait_file "$TMP/gate.$1.up"
}
log_has() { grep -qE -- "$1" "$TMP/vnetd.log"; }

# stall CASE WHY: the first frontend stalls CASE's way, vnet-bench takes over
stall() {
	local c=$1 why=$2 apid bpid rpid t0 t1 ms rc arc rtt out
	gated rtt "$TMP/b.sock"; rpid=$!
	python3 "$TMP/fe.py" "$c" "$TMP/$c.sock" "$TMP/$c.ready" > "$TMP/$c.first" 2>&1 &
	apid=$!; cleanup_pid "$apid"
	if ! wait_file "$TMP/$c.ready"; then
		not_ok "$c: the first frontend got in position"; return
	fi
	t0=$(now_ms)
	"$BENCH" --socket "$TMP/$c.sock" --sessions 1 --json > "$TMP/$c.bench" 2>&1 &
	bpid=$!
	touch "$TMP/gate.rtt"
	wait "$bpid"; rc=$?
	wait "$rpid"; rtt=$(cat "$TMP/rtt.out")
	t1=$(now_ms); ms=$((t1 - t0))
	wait "$apid"; arc=$?
	out=$(tr -d '\n' < "$TMP/$c.bench")
	check "$c: the second frontend (vnet-bench) got a working session, 32 frames back, in $ms ms < $LIMIT_MS (rc=$rc: $out)" \
		eval '[ "$rc" = 0 ] && [ "$ms" -lt "$LIMIT_MS" ] && grep -q "\"failed\": 0, \"frames_per_session\": 32, \"frames_back\": 32" "$TMP/$c.bench"'
	check "$c: the second frontend waited instead of being refused" \
		eval '! log_has "port $c: refusing a second frontend \(pid $bpid\)" &&
		      log_has "port $c: frontend pid $bpid connected while pid $apid is (mid-message|owing a reply): it waits"'
	check "$c: the stalled connection was closed ($(cat "$TMP/$c.first"))" [ "$arc" = 0 ]
	check "$c: one log line names the port, both PIDs and the stall" \
		log_has "port $c: frontend pid $apid stalled $why.*closing the connection; pid $bpid, waiting, takes the port"
	check "$c: port b's GET_FEATURES round trip during the stall < $RTT_MS ms ($rtt ms)" \
		python3 -c "import sys; sys.exit(0 if float('$rtt') < $RTT_MS else 1)"
}
stall half "mid-message: 6 bytes of it in [0-9]+ ms \(--frontend-stall-ms $STALL_MS\)"
stall header "mid-message: 12 bytes of it in [0-9]+ ms"
stall payload "mid-message: 32 bytes of it in [0-9]+ ms"
stall noread "owing a reply: [0-9]+ reply bytes not read in [0-9]+ ms"

# idle: a running VM keeps its port; the second is refused at once
gated second "$TMP/idle.sock"; b2=$!
"$BENCH" --socket "$TMP/idle.sock" -d 4 --check-seq --json > "$TMP/idle.bench" 2>&1 &
b1=$!
for _ in $(seq 200); do log_has "port idle: frontend pid $b1 connected" && break; sleep 0.02; done
sleep 0.5	# set up, frames flowing: nothing half sent, nothing owed
touch "$TMP/gate.second"
wait "$b2"; read -r what ms < "$TMP/second.out"
check "idle: a second frontend is refused at once ($what in ${ms:-?} ms < 500)" \
	eval '[ "$what" = refused ] && [ "$ms" -lt 500 ]'
check "idle: the refusal is logged with both PIDs, and nothing waited" \
	eval 'log_has "port idle: refusing a second frontend \(pid $b2\) on .*: pid $b1 is connected$" &&
	      ! log_has "port idle: frontend pid $b2 connected while"'
wait "$b1"; rc=$?
out=$(grep -o '"ok": [a-z]*' "$TMP/idle.bench"; grep -o '"lost": [0-9]*, "missing": [0-9]*, "dup_or_reordered": [0-9]*' "$TMP/idle.bench" | head -1)
check "idle: the first frontend's traffic ran on, every frame back in order (rc=$rc, $(echo $out))" \
	eval '[ "$rc" = 0 ] && grep -q "\"ok\": true" "$TMP/idle.bench" && grep -q "\"rx_frames\": [1-9]" "$TMP/idle.bench"'
check "idle: not closed as stalled" eval '! log_has "port idle: .*stalled"'

# finish: the second waits while the first is mid-message, and is refused
# once the first finishes it
gated second "$TMP/finish.sock"; b2=$!
python3 "$TMP/fe.py" finish "$TMP/finish.sock" "$TMP/finish.ready" "$TMP/finish.go" \
	"$STALL_MS" > "$TMP/finish.first" 2>&1 &
apid=$!; cleanup_pid "$apid"
wait_file "$TMP/finish.ready"
touch "$TMP/gate.second"
for _ in $(seq 100); do log_has "port finish: frontend pid $b2 connected while pid $apid is mid-message" && break; sleep 0.01; done
sleep 0.2
touch "$TMP/finish.go"
wait "$b2"; read -r what ms < "$TMP/second.out"
check "finish: the second waited, then was refused when the first finished ($what after ${ms:-?} ms: >= 200, < $STALL_MS)" \
	eval '[ "$what" = refused ] && [ "$ms" -ge 200 ] && [ "$ms" -lt "$STALL_MS" ]'
check "finish: the refusal says the first finished while the second waited" \
	log_has "port finish: refusing a second frontend \(pid $b2\) on .*: pid $apid is connected, which finished its message"
wait "$apid"; rc=$?
check "finish: the first frontend keeps working ($(tail -1 "$TMP/finish.first"))" [ "$rc" = 0 ]
check "finish: not closed as stalled" eval '! log_has "port finish: .*stalled"'

check "vnetd survived" kill -0 "$VPID"
echo "1..$N"
[ $FAILED = 0 ] || { echo "--- vnetd log (tail) ---"; tail -25 "$TMP/vnetd.log"; }
exit $FAILED
