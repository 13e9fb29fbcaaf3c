#!/usr/bin/env bash
# vnetd-lifecycle.sh - the vnetd process over real UNIX sockets, backend null:
# socket appears, control socket answers (text, JSON, Prometheus), a frontend
# that sends garbage is dropped and the next one is served, a second frontend
# while one is active is refused, a malformed message on one port leaves the
# other port's frontend connected, a stale socket file is replaced but a live
# one is not, --client reconnects, SIGTERM/SIGINT exit 0 with sockets removed.
# Prints TAP lines.
# needs: python3
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
VNETD=${VNETD:-build/vnetd}
VNETCTL=${VNETCTL:-build/vnetctl}
need_built "$VNETD"
TMP=$(mktemp -d /tmp/vnetd-life.XXXXXX)
cleanup_path "$TMP"

# vu.py: tiny vhost-user frontend pieces (the protocol's framing only)
cat > "$TMP/vu.py" <<'PY'
import socket, struct, sys, time, json
def conn(path):
    s = socket.socket(socket.AF_UNIX); s.settimeout(3); s.connect(path); return s
def get_features(s):
    s.sendall(struct.pack('<III', 1, 1, 0))          # GET_FEATURES, version 1
    h = b''
    while len(h) < 20:
        c = s.recv(20 - len(h))
        if not c: raise EOFError('closed')
        h += c
    req, flags, size = struct.unpack('<III', h[:12])
    assert req == 1 and flags & 4 and size == 8, (req, flags, size)
    return struct.unpack('<Q', h[12:])[0]
def closed(s):
    try:
        return s.recv(1) == b''
    except (ConnectionResetError, socket.timeout):
        return True
def ctl(path, req):
    s = socket.socket(socket.AF_UNIX); s.settimeout(3); s.connect(path)
    s.sendall(req.encode() + b'\n'); s.shutdown(socket.SHUT_WR)
    out = b''
    while True:
        c = s.recv(65536)
        if not c: return out.decode()
        out += c
cmd = sys.argv[1]
if cmd == 'features':          # print the offered features
    print(hex(get_features(conn(sys.argv[2]))))
elif cmd == 'garbage-then-good':   # garbage is dropped, next connection works
    s = conn(sys.argv[2]); s.sendall(b'\xff' * 12 + b'junk' * 4)
    assert closed(s), 'garbage connection not closed'
    print(hex(get_features(conn(sys.argv[2]))))
elif cmd == 'second-refused':  # one active frontend, a second one is closed
    a = conn(sys.argv[2]); get_features(a)
    b = conn(sys.argv[2])
    assert closed(b), 'second frontend not refused'
    get_features(a)            # the first one still works
    print('ok')
elif cmd == 'two-ports':       # garbage on port B leaves port A connected
    a = conn(sys.argv[2]); get_features(a)
    b = conn(sys.argv[3]); b.sendall(struct.pack('<III', 9999, 1, 0))
    assert closed(b), 'bad message did not close port B'
    get_features(a)
    st = json.loads(ctl(sys.argv[4], 'status json'))
    conn_by = {p['name']: p['connected'] for p in st['ports']}
    assert conn_by == {'a': True, 'b': False}, conn_by
    print('ok')
elif cmd == 'mid-setup':       # vanish half way through setup, then reconnect
    for cut in range(1, 5):
        s = conn(sys.argv[2])
        s.sendall(struct.pack('<III', 3, 1, 0))                   # SET_OWNER
        f = get_features(s)
        msgs = [struct.pack('<IIIQ', 2, 1, 8, f & (1 << 32)),    # SET_FEATURES
                struct.pack('<IIIII', 8, 1, 8, 0, 256),           # SET_VRING_NUM 0
                struct.pack('<IIIII', 10, 1, 8, 0, 0),            # SET_VRING_BASE 0
                struct.pack('<III', 1, 1, 0)[:7]]                 # half a header
        for m in msgs[:cut]:
            s.sendall(m)
        s.close()
        time.sleep(0.05)
    print(hex(get_features(conn(sys.argv[2]))))
elif cmd == 'ctl':
    sys.stdout.write(ctl(sys.argv[2], sys.argv[3]))
elif cmd == 'listen-accept':   # client mode: accept twice, drop the first
    l = socket.socket(socket.AF_UNIX); l.bind(sys.argv[2]); l.listen(1); l.settimeout(10)
    c1, _ = l.accept(); get_features(c1); c1.close()
    t = time.time(); c2, _ = l.accept(); dt = time.time() - t
    get_features(c2)
    print('reconnected after %.2fs' % dt)
PY
VU="python3 $TMP/vu.py"

start() { "$VNETD" "$@" 2>>"$TMP/vnetd.log" & PID=$!; cleanup_pid "$PID"; }

S=$TMP/p.sock C=$TMP/ctl.sock
start --socket "$S" --backend null --queues 2 --ctl-socket "$C"
check "socket appears" wait_sock "$S"
check "control socket appears" wait_sock "$C"
feat=$($VU features "$S" 2>&1)
check "a frontend gets GET_FEATURES answered ($feat)" grep -q '^0x' <<< "$feat"
off=$($VU ctl "$C" 'status json' | python3 -c 'import json,sys; p=json.load(sys.stdin)["ports"][0]; print(p["features_offered"], len(p["pairs"]), p["queues"], p["backend"])')
check "status json: offered features match GET_FEATURES, 2 pairs ($off)" [ "$off" = "$feat 2 2 null" ]
txt=$($VU ctl "$C" status)
check "status text names the port, socket and pairs" \
	bash -c 'grep -q "^port port0: socket '"$S"'" <<< "$1" && grep -q "pair 1:" <<< "$1"' _ "$txt"
prom=$($VU ctl "$C" metrics)
check "metrics: Prometheus families with port/queue/dir labels" \
	bash -c 'grep -q "^# TYPE vnetd_queue_packets_total counter" <<< "$1" &&
		 grep -qE "^vnetd_queue_packets_total\{port=\"port0\",queue=\"1\",dir=\"tx\"\} [0-9]+$" <<< "$1" &&
		 grep -qE "^vnetd_queue_drops_total\{port=\"port0\",queue=\"0\",dir=\"rx\",reason=\"no_rx_buf\"\} [0-9]+$" <<< "$1"' _ "$prom"
bad=$($VU ctl "$C" 'frobnicate')
check "unknown control request gets an error line" grep -q '^error: unknown request' <<< "$bad"
if "$VNETCTL" status --socket "$C" 2>&1 | grep -q 'not built yet'; then
	ok_skip "vnetctl status" "vnetctl main does not dispatch 'status' yet"
else
	out=$("$VNETCTL" status --socket "$C" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["ports"][0]["name"])')
	check "vnetctl status --json talks to the control socket" [ "$out" = port0 ]
fi
r=$($VU garbage-then-good "$S" 2>&1)
check "garbage frontend dropped, next one served ($r)" [ "$r" = "$feat" ]
r=$($VU mid-setup "$S" 2>&1)
check "frontends vanishing mid-setup, then the next one is served ($r)" [ "$r" = "$feat" ]
r=$($VU second-refused "$S" 2>&1)
check "second frontend refused while one is active ($r)" [ "$r" = ok ]
grep -q 'refusing a second frontend' "$TMP/vnetd.log"; check "refusal logged" [ $? = 0 ]
r=$($VU ctl "$C" 'status json' | python3 -c 'import json,sys; p=json.load(sys.stdin)["ports"][0]; print(p["refused"], p["errors"] >= 1, p["connections"] >= 4)')
check "status counts connections, refusals, errors ($r)" [ "$r" = "1 True True" ]
check "vnetd survived all of it" kill -0 "$PID"

"$VNETD" --socket "$S" --backend null --ctl-socket "$TMP/ctl2.sock" 2>"$TMP/second.log"; rc=$?
check "a live socket is not taken over (rc=$rc)" bash -c '[ '"$rc"' = 1 ] && grep -q "in use" "$1" && [ -S "$2" ]' _ "$TMP/second.log" "$S"

kill -TERM "$PID"; wait "$PID"; rc=$?
check "SIGTERM: exit 0 (rc=$rc)" [ "$rc" = 0 ]
check "SIGTERM: sockets removed" bash -c '[ ! -e "$1" ] && [ ! -e "$2" ]' _ "$S" "$C"

# --features turns bits off in what the frontend is offered
start --socket "$S" --backend null --queues 2 --ctl-socket "$C" --features -mrg_rxbuf,-packed,-event_idx
wait_sock "$S"
r=$($VU features "$S" 2>&1)
check "--features -mrg_rxbuf,-packed,-event_idx: bits 15, 34, 29 not offered ($r, was $feat)" \
	python3 -c 'import sys; f=int(sys.argv[1],16); a=int(sys.argv[2],16)
sys.exit(0 if f & (1<<15 | 1<<34 | 1<<29) == 0 and f == a & ~(1<<15 | 1<<34 | 1<<29) else 1)' "$r" "$feat"
kill -TERM "$PID"; wait "$PID"

# A stale socket file (nobody listening) is replaced
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$S"
start --socket "$S" --backend null --ctl-socket "$C"
sleep 0.3
r=$($VU features "$S" 2>&1)
check "stale socket file replaced ($r)" grep -q '^0x' <<< "$r"
kill -INT "$PID"; wait "$PID"; rc=$?
check "SIGINT: exit 0, socket removed (rc=$rc)" bash -c '[ '"$rc"' = 0 ] && [ ! -e "$1" ]' _ "$S"

# Two ports in one process; a bad message on one leaves the other alone
printf 'name=b socket=%s backend=null  # second port\n' "$TMP/b.sock" > "$TMP/ports.conf"
start --port "name=a,socket=$TMP/a.sock,backend=null,queues=2" --config "$TMP/ports.conf" --ctl-socket "$C"
wait_sock "$TMP/a.sock"; wait_sock "$TMP/b.sock"; wait_sock "$C"
r=$($VU two-ports "$TMP/a.sock" "$TMP/b.sock" "$C" 2>&1)
check "--port + --config: malformed message on b, a stays connected ($r)" [ "$r" = ok ]
grep -q 'b: .*9999.*closing the connection' "$TMP/vnetd.log"; check "malformed message logged naming port and request" [ $? = 0 ]
kill -TERM "$PID"; wait "$PID"
check "two ports: both sockets removed on exit" bash -c '[ ! -e "$1" ] && [ ! -e "$2" ]' _ "$TMP/a.sock" "$TMP/b.sock"

# --client: connects to a listening frontend and reconnects after a drop
rm -f "$TMP/f.sock"
$VU listen-accept "$TMP/f.sock" > "$TMP/client.out" 2>&1 & LP=$!; cleanup_pid "$LP"
sleep 0.2
start --socket "$TMP/f.sock" --client --backend null --ctl-socket "$C"
wait "$LP"; r=$(cat "$TMP/client.out")
check "--client connects and reconnects with backoff ($r)" grep -q '^reconnected after' <<< "$r"
kill -TERM "$PID"; wait "$PID"; rc=$?
check "--client: SIGTERM exit 0 (rc=$rc)" [ "$rc" = 0 ]

# --tap-fd: queue fds opened by the parent (here python, as a VMM would)
if [ "$(id -u)" = 0 ] && [ -c /dev/net/tun ]; then
	cat > "$TMP/tapfd.py" <<'PY'
import fcntl, os, socket, struct, subprocess, sys, time
TUNSETIFF = 0x400454ca
IFF_TAP, IFF_NO_PI, IFF_VNET_HDR, IFF_MULTI_QUEUE = 0x2, 0x1000, 0x4000, 0x100
name, vnetd, sock, ctl, bad = sys.argv[1:6]
fds = []
for _ in range(2):
    fd = os.open('/dev/net/tun', os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack('16sH', name.encode(),
                IFF_TAP | IFF_NO_PI | IFF_VNET_HDR | IFF_MULTI_QUEUE))
    fds.append(fd)
if bad == '1':
    fds[1] = os.open('/dev/null', os.O_RDWR)
args = [vnetd, '--socket', sock, '--ctl-socket', ctl, '--queues', '2', '--backend', 'tap']
for fd in fds:
    args += ['--tap-fd', str(fd)]
p = subprocess.Popen(args, pass_fds=fds)
for fd in fds:
    os.close(fd)
for _ in range(50):
    if os.path.exists(sock) or p.poll() is not None:
        break
    time.sleep(0.1)
up = os.path.exists(sock)
if p.poll() is None:
    p.terminate()
rc = p.wait()
print(up, rc)
PY
	r=$(python3 "$TMP/tapfd.py" "vtf$$" "$VNETD" "$TMP/t.sock" "$TMP/tctl.sock" 0 2>>"$TMP/vnetd.log")
	check "--tap-fd: serves on fds from the parent, exits 0 ($r)" [ "$r" = "True 0" ]
	r=$(python3 "$TMP/tapfd.py" "vtf$$" "$VNETD" "$TMP/t.sock" "$TMP/tctl.sock" 1 2>"$TMP/tapfd.err")
	check "--tap-fd that is not a TAP: exit 1 with a message ($r: $(tail -1 "$TMP/tapfd.err"))" \
		bash -c '[ "$1" = "False 1" ] && grep -q "error: port port0: backend tap" "$2"' _ "$r" "$TMP/tapfd.err"
else
	ok_skip "--tap-fd" "needs root and /dev/net/tun"
fi

echo "1..$N"
[ "$FAILED" = 0 ] || { echo "--- vnetd log ---"; tail -30 "$TMP/vnetd.log"; }
exit $FAILED
