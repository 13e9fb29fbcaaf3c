#!/usr/bin/env bash
# vnetd-metrics.sh - vnetd's metrics as Prometheus and operators see them,
# sandbox on (the default): `promtool check metrics` is clean on the exposition of
# a vnetd carrying traffic (vnet-bench, loop backend), from `vnetctl status
# --prometheus` and from the --metrics-listen HTTP endpoint; GET /metrics has the
# same series as vnetctl, other paths 404, other methods 405; a client that connects
# and sends nothing blocks neither vnetctl status nor a scrape and is closed after its
# deadline; a second frontend and a garbage message are counted by reason
# (vnetd_port_refused_total, vnetd_port_protocol_errors_total); a frontend that turns
# dirty logging on (LOG_SHMFD, SET_LOG_BASE, LOG_ALL: raw messages) shows as
# migrating in text, JSON and Prometheus, and off again once it is gone.
# Prints TAP lines.
# needs: promtool python3
# shellcheck disable=SC2016  # bash -c scripts take their arguments as $1 $2
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
VNETD=${VNETD:-build/vnetd}
VNETCTL=${VNETCTL:-build/vnetctl}
BENCH=${VNET_BENCH:-build/vnet-bench}
need_built "$VNETD" "$VNETCTL" "$BENCH"
TMP=$(mktemp -d /tmp/vnetd-metrics.XXXXXX)
cleanup_path "$TMP"

cat > "$TMP/m.py" << 'PY'
import json, os, socket, struct, sys, time
def get(port, method='GET', path='/metrics'):
    s = socket.create_connection(('127.0.0.1', port), timeout=5)
    s.sendall(('%s %s HTTP/1.1\r\nHost: x\r\n\r\n' % (method, path)).encode())
    out = b''
    while True:
        c = s.recv(65536)
        if not c: break
        out += c
    head, _, body = out.partition(b'\r\n\r\n')
    return head.decode(), body.decode()
def conn(path):
    s = socket.socket(socket.AF_UNIX); s.settimeout(3); s.connect(path); return s
def msg(s, req, payload=b'', fds=None, reply=False):
    h = struct.pack('<III', req, 1, len(payload)) + payload
    if fds: socket.send_fds(s, [h], fds)
    else: s.sendall(h)
    if not reply: return None
    h = b''
    while len(h) < 12:
        c = s.recv(12 - len(h))
        if not c: raise EOFError('closed')
        h += c
    r, fl, size = struct.unpack('<III', h)
    p = b''
    while len(p) < size: p += s.recv(size - len(p))
    assert r == req, (r, req)
    return struct.unpack('<Q', p)[0] if size == 8 else p
def closed(s):
    try: return s.recv(1) == b''
    except (ConnectionResetError, socket.timeout): return True
cmd = sys.argv[1]
if cmd == 'get':                 # print the status line, then the body
    head, body = get(int(sys.argv[2]), *sys.argv[3:])
    print(head.splitlines()[0]); ct = [l for l in head.splitlines() if l.lower().startswith('content-type:')]
    print(ct[0] if ct else 'no content-type'); sys.stdout.write(body)
elif cmd == 'slow':              # connect, say nothing; report when vnetd hangs up
    s = socket.create_connection(('127.0.0.1', int(sys.argv[2])), timeout=10)
    t = time.time(); s.sendall(b'GET /met')
    r = s.recv(1)
    print('closed after %.1f s' % (time.time() - t) if r == b'' else 'answered')
elif cmd == 'second':            # a frontend, then a second one: refused
    a = conn(sys.argv[2]); msg(a, 1, reply=True)
    b = conn(sys.argv[2]); assert closed(b), 'second not refused'
    msg(a, 1, reply=True); print('ok')
elif cmd == 'garbage':           # an unknown request closes the connection
    s = conn(sys.argv[2]); s.sendall(struct.pack('<III', 9999, 1, 0))
    assert closed(s), 'not closed'; print('ok')
elif cmd == 'migrate':           # dirty logging on, then ask the control socket
    s = conn(sys.argv[2])
    msg(s, 3)                                         # SET_OWNER
    f = msg(s, 1, reply=True)                         # GET_FEATURES
    pf = msg(s, 15, reply=True)                       # GET_PROTOCOL_FEATURES
    assert f & (1 << 26) and pf & (1 << 1), (hex(f), hex(pf))
    msg(s, 16, struct.pack('<Q', pf & ((1 << 1) | (1 << 0))))  # LOG_SHMFD, MQ
    fd = os.memfd_create('log'); os.ftruncate(fd, 4096)
    assert msg(s, 6, struct.pack('<QQ', 4096, 0), [fd], reply=True) == 0  # SET_LOG_BASE
    msg(s, 2, struct.pack('<Q', f & ((1 << 26) | (1 << 30) | (1 << 32))))  # SET_FEATURES
    msg(s, 1, reply=True)                             # a round trip: all handled
    def ctl(req):
        c = socket.socket(socket.AF_UNIX); c.connect(sys.argv[3]); c.sendall(req + b'\n')
        out = b''
        while True:
            d = c.recv(65536)
            if not d: return out.decode()
            out += d
    p = [p for p in json.loads(ctl(b'status json'))['ports'] if p['name'] == sys.argv[4]][0]
    txt = '  migration: dirty log on, pages logged 0' in ctl(b'status').splitlines()
    prom = 'vnetd_port_dirty_log{port="%s"} 1' % sys.argv[4] in ctl(b'metrics').splitlines()
    print(p['dirty_log'], p['pages_logged'], txt, prom)
PY
PY="python3 $TMP/m.py"
HTTP_PORT=$((20000 + RANDOM % 20000))
A=$TMP/a.sock B=$TMP/b.sock C=$TMP/ctl.sock
"$VNETD" --port "socket=$A,backend=loop,name=a" --port "socket=$B,backend=null,name=b" \
	--ctl-socket "$C" --metrics-listen "127.0.0.1:$HTTP_PORT" 2> "$TMP/vnetd.log" &
PID=$!
cleanup_pid "$PID"
if ! { wait_sock "$C" 5 "$PID" && wait_sock "$A" && wait_sock "$B"; }; then
	cat "$TMP/vnetd.log"
	grep -q "metrics-listen.*in use" "$TMP/vnetd.log" &&
		skip_all "TCP port $HTTP_PORT in use (another test?)"
	not_ok "vnetd starts with --metrics-listen 127.0.0.1:$HTTP_PORT"
	exit 1
fi

# a vnetd carrying traffic while it is scraped: both scrapes within the 5 s of traffic (a
# series such as vnetd_queue_datapath changes when it stops; python3 starts slowly under load)
"$BENCH" --socket "$A" --duration 5 --json > "$TMP/bench.json" 2> "$TMP/bench.err" &
BPID=$!
cleanup_pid "$BPID"
sleep 1
"$VNETCTL" status --socket "$C" --prometheus > "$TMP/ctl.prom"
$PY get "$HTTP_PORT" > "$TMP/http.out"
wait "$BPID"; brc=$?
check "vnet-bench carried traffic (rc=$brc)" [ "$brc" = 0 ]
pk=$(awk '/^vnetd_queue_packets_total\{port="a".*dir="tx"/ {print $2}' "$TMP/ctl.prom")
check "the exposition was taken with traffic flowing ($pk frames)" [ "${pk:-0}" -gt 0 ]
out=$(promtool check metrics < "$TMP/ctl.prom" 2>&1)
check "promtool check metrics: vnetctl status --prometheus clean${out:+ ($out)}" [ -z "$out" ]
check "busy time exported in seconds, as a float" \
	grep -qE '^vnetd_queue_busy_seconds_total\{port="a",queue="0",dir="tx"\} [0-9]+\.[0-9]+$' "$TMP/ctl.prom"
check "GET /metrics: 200, text/plain; version=0.0.4" bash -c \
	'head -2 "$1" | tr -d "\r" | tr "\n" "|" | grep -q "^HTTP/1.1 200 OK|Content-Type: text/plain; version=0.0.4"' _ "$TMP/http.out"
tail -n +3 "$TMP/http.out" > "$TMP/http.prom"
out=$(promtool check metrics < "$TMP/http.prom" 2>&1)
check "promtool check metrics: GET /metrics clean${out:+ ($out)}" [ -z "$out" ]
strip() { sed -E 's/ [0-9.e+-]+$//' "$1"; }
check "GET /metrics has the series of vnetctl status --prometheus" \
	diff <(strip "$TMP/ctl.prom") <(strip "$TMP/http.prom")
r=$($PY get "$HTTP_PORT" GET /nope | head -1)
check "GET /nope: 404 ($r)" grep -q '^HTTP/1.1 404' <<< "$r"
r=$($PY get "$HTTP_PORT" POST /metrics | head -1)
check "POST /metrics: 405 ($r)" grep -q '^HTTP/1.1 405' <<< "$r"

# a slow client holds neither the control socket nor another scrape
$PY slow "$HTTP_PORT" > "$TMP/slow.out" 2>&1 &
SPID=$!
cleanup_pid "$SPID"
sleep 0.3
t0=$(date +%s%N)
"$VNETCTL" status --socket "$C" > "$TMP/st.txt"; rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
check "vnetctl status answers while an HTTP client stalls (rc=$rc, $ms ms)" \
	bash -c '[ "$1" = 0 ] && [ "$2" -lt 1000 ]' _ "$rc" "$ms"
r=$($PY get "$HTTP_PORT" | head -1)
check "a second scrape is served meanwhile ($r)" grep -q '^HTTP/1.1 200' <<< "$r"
wait "$SPID"
r=$(cat "$TMP/slow.out")
check "the stalled client is closed at its deadline ($r)" grep -q '^closed after [1-4]\.' <<< "$r"

# refusals and protocol errors, by reason
r=$($PY second "$B" 2>&1)
check "a second frontend on port b is refused ($r)" [ "$r" = ok ]
r=$($PY garbage "$B" 2>&1)
check "a garbage message on port b closes it ($r)" [ "$r" = ok ]
"$VNETCTL" status --socket "$C" --prometheus > "$TMP/p2.prom"
check "vnetd_port_refused_total{port=b,reason=second_frontend} 1" \
	grep -qx 'vnetd_port_refused_total{port="b",reason="second_frontend"} 1' "$TMP/p2.prom"
check "vnetd_port_protocol_errors_total{port=b,reason=bad_message} 1" \
	grep -qx 'vnetd_port_protocol_errors_total{port="b",reason="bad_message"} 1' "$TMP/p2.prom"
check "port a's counters untouched by b's" bash -c \
	'grep -qx "vnetd_port_refused_total{port=\"a\",reason=\"second_frontend\"} 0" "$1" &&
	 grep -qx "vnetd_port_protocol_errors_total{port=\"a\",reason=\"bad_message\"} 0" "$1"' _ "$TMP/p2.prom"

# migration state: dirty logging on while the frontend is there, off after
r=$($PY migrate "$B" "$C" b 2>&1)
check "while the frontend logs: JSON dirty_log true, text and Prometheus say on ($r)" \
	[ "$r" = "True 0 True True" ]
sleep 0.2
"$VNETCTL" status --socket "$C" > "$TMP/st2.txt"
check "status text: migration line, off once the frontend is gone" \
	grep -q '^  migration: dirty log off, pages logged 0$' "$TMP/st2.txt"
check "Prometheus: vnetd_port_dirty_log{port=b} 0 after" \
	grep -qx 'vnetd_port_dirty_log{port="b"} 0' <("$VNETCTL" status --socket "$C" --prometheus)

check "vnetd survived all of it (sandbox on)" kill -0 "$PID"
if grep -q 'seccomp: blocked' "$TMP/vnetd.log"; then
	not_ok "no syscall blocked: $(grep 'seccomp' "$TMP/vnetd.log")"
else
	ok "no syscall blocked by the sandbox"
fi
kill -TERM "$PID"; wait "$PID"; rc=$?
check "SIGTERM: exit 0 (rc=$rc)" [ "$rc" = 0 ]
r=$("$VNETD" --socket "$TMP/x.sock" --metrics-listen 127.0.0.1:0 2>&1); rc=$?
check "--metrics-listen port 0 refused, naming flag, value and form (rc=$rc)" bash -c \
	'[ "$1" = 2 ] && grep -q -- "--metrics-listen 127.0.0.1:0: must be IPV4:PORT, \[IPV6\]:PORT or localhost:PORT with PORT 1..65535" <<< "$2"' _ "$rc" "$r"
echo "1..$N"
exit "$FAILED"
