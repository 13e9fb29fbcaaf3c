#!/usr/bin/env bash
# needs: root systemd python3
# vnetd-systemd.sh - vnetd under systemd's conventions without a running
# systemd: socket activation with systemd-socket-activate (one socket
# carrying vnet-bench frames; two sockets mapped to ports by
# LISTEN_FDNAMES), the READY=1 / STATUS= / STOPPING=1 datagrams over
# NOTIFY_SOCKET (a path and an abstract '@' name) received by a small
# listener, and `systemd-analyze verify` of contrib/systemd/. Prints TAP lines.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
VNETD=${VNETD:-build/vnetd}
BENCH=${BENCH:-build/vnet-bench}
need_built "$VNETD" "$BENCH"
TMP=$(mktemp -d /tmp/vnetd-sd.XXXXXX)
cleanup_path "$TMP"

# 1. one socket, bound by systemd-socket-activate, frames through vnetd
S=$TMP/s.sock
systemd-socket-activate -l "$S" "$VNETD" --socket "$S" --backend loop \
	--ctl-socket "$TMP/ctl1" > "$TMP/act1.log" 2>&1 &
PID=$!; cleanup_pid "$PID"
if wait_sock "$S" && out=$(timeout 30 "$BENCH" --socket "$S" --duration 1 --check-seq 2>&1) &&
   grep -q 'sequence check: OK' <<< "$out"; then
	ok "socket-activated vnetd carries vnet-bench frames (sequence checked)"
else
	not_ok "socket activation: bench: ${out:-} log: $(cat "$TMP/act1.log")"
fi
grep -q 'socket activation: 1 inherited socket' "$TMP/act1.log" &&
	ok "vnetd used the inherited socket instead of binding" ||
	not_ok "no 'inherited socket' line: $(cat "$TMP/act1.log")"
kill -TERM "$PID"; wait "$PID"
[ -S "$S" ] && ok "the activated socket's file is left to its owner" ||
	not_ok "vnetd removed the socket file systemd owns"

# 2. two sockets, LISTEN_FDNAMES in the opposite order of the ports
cat > "$TMP/fe.py" <<'PY'
import json, socket, struct, sys, time
def conn(path):
    s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(path)
    s.sendall(struct.pack('<III', 1, 1, 0)); h = b''
    while len(h) < 20:
        c = s.recv(20 - len(h))
        if not c: raise EOFError('closed')
        h += c
    return s
def ctl(path, req):
    s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(path)
    s.sendall(req.encode() + b'\n'); s.shutdown(socket.SHUT_WR); out = b''
    while True:
        c = s.recv(65536)
        if not c: return out.decode()
        out += c
a = conn(sys.argv[1])          # bound as the first socket, named vm2
time.sleep(0.3)
st = json.loads(ctl(sys.argv[2], 'status json'))
print(json.dumps({p['name']: p['connected'] for p in st['ports']}, sort_keys=True))
PY
A=$TMP/a.sock B=$TMP/b.sock
systemd-socket-activate -l "$A" -l "$B" --fdname=vm2:vm1 "$VNETD" \
	--port "name=vm1,socket=$TMP/vm1.sock,backend=null" \
	--port "name=vm2,socket=$TMP/vm2.sock,backend=null" \
	--ctl-socket "$TMP/ctl2" > "$TMP/act2.log" 2>&1 &
PID=$!; cleanup_pid "$PID"
wait_sock "$A"
out=$(timeout 20 python3 "$TMP/fe.py" "$A" "$TMP/ctl2" 2>&1)
[ "$out" = '{"vm1": false, "vm2": true}' ] &&
	ok "LISTEN_FDNAMES maps the socket named vm2 to port vm2" ||
	not_ok "LISTEN_FDNAMES mapping: $out log: $(cat "$TMP/act2.log")"
[ ! -e "$TMP/vm1.sock" ] && [ ! -e "$TMP/vm2.sock" ] &&
	ok "activated ports bind nothing themselves" || not_ok "a port bound its own socket"
kill -TERM "$PID"; wait "$PID"

# 3. sd_notify datagrams, to a path and to an abstract name
cat > "$TMP/notify.py" <<'PY'
import os, socket, subprocess, sys, time
addr, vnetd, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
l = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
l.bind('\0' + addr[1:] if addr[0] == '@' else addr); l.settimeout(5)
env = dict(os.environ, NOTIFY_SOCKET=addr)
p = subprocess.Popen([vnetd, '--socket', tmp + '/n.sock', '--backend', 'null',
                      '--ctl-socket', tmp + '/ctl3'], env=env)
msgs = []
def recv_until(word):
    while True:
        m = l.recv(4096).decode(); msgs.append(m)
        if word in m: return
try:
    recv_until('READY=1')
    c = socket.socket(socket.AF_UNIX); c.connect(tmp + '/n.sock')
    import struct; c.sendall(struct.pack('<III', 1, 1, 0)); c.recv(20)
    recv_until('1 frontend connected')
    def ctl(line):
        s = socket.socket(socket.AF_UNIX); s.connect(tmp + '/ctl3')
        s.sendall(line.encode() + b'\n'); s.shutdown(socket.SHUT_WR)
        while s.recv(4096): pass
    ctl('port add name=extra,socket=%s/extra.sock,backend=null' % tmp)
    recv_until('STATUS=2 ports, 1 frontend connected')
    ctl('port del extra')   # the freed slot no longer counts
    recv_until('STATUS=1 port, 1 frontend connected')
    p.terminate()
    recv_until('STOPPING=1')
finally:
    p.terminate(); p.wait()
for m in msgs: print(repr(m))
PY
for addr in "$TMP/notify" "@vnetd-test-notify-$$"; do
	out=$(timeout 20 python3 "$TMP/notify.py" "$addr" "$VNETD" "$TMP" 2>&1); rc=$?
	if [ "$rc" = 0 ] && grep -q "READY=1\\\\nSTATUS=1 port, 0 frontends connected" <<< "$out" &&
	   grep -q "STATUS=1 port, 1 frontend connected" <<< "$out" && grep -q "STOPPING=1" <<< "$out" &&
	   grep -q "STATUS=2 ports, 1 frontend connected" <<< "$out"; then
		ok "NOTIFY_SOCKET=${addr:0:1}...: READY=1, STATUS= on connect and on port add/del (freed slots not counted), STOPPING=1"
	else
		not_ok "NOTIFY_SOCKET=$addr (rc=$rc): $out"
	fi
done

# 4. the shipped units verify, ExecStart pointing at this build
if ! command -v systemd-analyze >/dev/null; then
	ok_skip "systemd-analyze verify" "systemd-analyze missing"
else
	U=$TMP/units; mkdir -p "$U"
	for f in contrib/systemd/*.service contrib/systemd/*.socket; do
		sed -e "s|/usr/sbin/vnetd|$PWD/$VNETD|g" -e "s|/usr/bin/vnetctl|$PWD/${VNETCTL:-build/vnetctl}|g" \
			"$f" > "$U/$(basename "$f")"
	done
	# --man=no: Documentation=man:vnetd(8) names the page make install puts in place
	out=$(cd "$U" && systemd-analyze verify --man=no vnetd.socket vnetd.service vnetd@.socket vnetd@vm1.service 2>&1); rc=$?
	[ "$rc" = 0 ] && [ -z "$out" ] && ok "systemd-analyze verify contrib/systemd: clean" ||
		not_ok "systemd-analyze verify (rc=$rc): $out"
fi
echo "1..$N"
exit $FAILED
