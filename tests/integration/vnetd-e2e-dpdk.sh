#!/usr/bin/env bash
# vnetd-e2e-dpdk.sh - vnetd end to end over a real socket, driven by a
# frontend nobody here wrote: DPDK testpmd's net_virtio_user. Scenarios:
#   loop backend, io forwarding: every frame the frontend sends comes back;
#     testpmd's counts and vnetd's per-queue counters must agree
#     (1, 2 and 4 queue pairs; split and packed; mrg_rxbuf on and off)
#   tap backend in a private network namespace: testpmd txonly frames are
#     counted on the TAP; frames written to the TAP arrive in testpmd rxonly
#   a frontend SIGKILLed mid-traffic, then a second one passes traffic
#   vnetctl status shows the same counters
# Prints TAP lines; skips (77) with a reason without root or dpdk-testpmd.
# Everything it creates is named with $$ and removed by PID/name on exit.
set -u
cd "$(dirname "$0")/../.." || exit 1
VNETD=${VNETD:-$PWD/build/vnetd}
VNETCTL=${VNETCTL:-$PWD/build/vnetctl}
TESTPMD=${TESTPMD:-dpdk-testpmd}
[ -x "$VNETD" ] || { echo "SKIP: $VNETD not built (run make)"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (network namespace, TAP)"; exit 77; }
command -v "$TESTPMD" >/dev/null || { echo "SKIP: $TESTPMD not installed (apt-get install dpdk)"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
[ -c /dev/net/tun ] || { echo "SKIP: /dev/net/tun missing"; exit 77; }

TMP=$(mktemp -d /tmp/vnetd-e2e.XXXXXX)
NS=vnetd-e2e-$$
TAP=vte$$
VPID='' TPID='' FIFO_OPEN=0
NCPU=$(nproc)
VCPU=$((NCPU > 1 ? 1 : 0))	# vnetd on CPU 1, testpmd's forwarding lcore on CPU 0

cleanup() {
	[ "$FIFO_OPEN" = 1 ] && exec 7>&-
	[ -n "$TPID" ] && { kill -KILL "$TPID" 2>/dev/null; wait "$TPID" 2>/dev/null; }
	[ -n "$VPID" ] && { kill -KILL "$VPID" 2>/dev/null; wait "$VPID" 2>/dev/null; }
	ip netns del "$NS" 2>/dev/null
	rm -rf /var/run/dpdk/vnetd-e2e-$$-*
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

N=0 FAILED=0
ok()     { N=$((N+1)); echo "ok $N - $1"; }
not_ok() { N=$((N+1)); FAILED=1; echo "not ok $N - $1"; }
check()  { local name=$1; shift; if "$@"; then ok "$name"; else not_ok "$name"; fi; }

# ---- vnetd --------------------------------------------------------------------
CTL=$TMP/ctl.sock
SOCK=$TMP/vhost.sock
# vnetd_start [--netns] ARGS...: start vnetd (inside $NS with --netns)
vnetd_start() {
	local pre=()
	if [ "$1" = --netns ]; then pre=(ip netns exec "$NS"); shift; fi
	rm -f "$SOCK"
	"${pre[@]}" taskset -c "$VCPU" "$VNETD" --socket "$SOCK" --ctl-socket "$CTL" "$@" \
		2>>"$TMP/vnetd.log" &
	VPID=$!
	for _ in $(seq 50); do [ -S "$SOCK" ] && [ -S "$CTL" ] && return 0; sleep 0.1; done
	echo "# vnetd did not create its sockets"; tail -5 "$TMP/vnetd.log" | sed 's/^/# /'
	return 1
}
vnetd_stop() {
	[ -n "$VPID" ] || return 0
	kill -TERM "$VPID"; wait "$VPID"; local rc=$?; VPID=
	return $rc
}
# counters [python expr over d (status JSON)]: e.g. totals "tx packets"
status_json() {
	python3 -c 'import socket,sys
s=socket.socket(socket.AF_UNIX); s.settimeout(3); s.connect(sys.argv[1])
s.sendall(b"status json\n"); s.shutdown(socket.SHUT_WR); out=b""
while True:
    c=s.recv(65536)
    if not c: break
    out+=c
sys.stdout.write(out.decode())' "$CTL"
}
# vnetd_sum JSONFILE: "rx_pkts tx_pkts rx_drops tx_drops pairs_with_tx connected"
vnetd_sum() {
	python3 -c 'import json,sys
p=json.load(open(sys.argv[1]))["ports"][0]
rx=sum(q["rx"]["packets"] for q in p["pairs"]); tx=sum(q["tx"]["packets"] for q in p["pairs"])
rd=sum(sum(q["rx"]["drops"].values()) for q in p["pairs"]); td=sum(sum(q["tx"]["drops"].values()) for q in p["pairs"])
busy=sum(1 for q in p["pairs"] if q["tx"]["packets"] or q["rx"]["packets"])
print(rx, tx, rd, td, busy, int(p["connected"]))' "$1"
}

# ---- testpmd (interactive, commands through a FIFO) -----------------------------
# tp_start QUEUES MODE VDEV_EXTRA: testpmd net_virtio_user on $SOCK
tp_start() {
	local q=$1 mode=$2 extra=$3
	rm -f "$TMP/tp.in"; mkfifo "$TMP/tp.in"
	TPLOG=$TMP/tp.$RANDOM.log
	stdbuf -oL "$TESTPMD" --lcores "0@$VCPU,1@0" --no-pci --no-huge -m 512 --no-shconf \
		--file-prefix "vnetd-e2e-$$-$RANDOM" --log-level=lib.eal:notice \
		--vdev "net_virtio_user0,path=$SOCK,queues=$q$extra" -- \
		-i --no-mlockall --forward-mode="$mode" --rxq="$q" --txq="$q" \
		--nb-cores=1 --total-num-mbufs=16384 --port-topology=loop --txpkts=64 \
		< "$TMP/tp.in" > "$TPLOG" 2>&1 &
	TPID=$!
	exec 7> "$TMP/tp.in"; FIFO_OPEN=1
	for _ in $(seq 300); do
		grep -q 'testpmd> ' "$TPLOG" && return 0
		kill -0 "$TPID" 2>/dev/null || break
		sleep 0.1
	done
	echo "# testpmd did not start:"; grep -E 'rror|fail' "$TPLOG" | head -5 | sed 's/^/# /'
	return 1
}
tp_cmd() { [ -n "${E2E_DEBUG:-}" ] && echo "# $(date +%T.%N) testpmd: $1"; echo "$1" >&7; }
# tp_stop: stop forwarding; sets TP_RX TP_TX from the totals
tp_stop() {
	tp_cmd stop
	for _ in $(seq 100); do
		sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$TPLOG" |
			awk '/Accumulated forward statistics/ { a=1 } a && /TX-packets:/ { f=1 } END { exit !f }' && break
		sleep 0.1
	done
	read -r TP_RX TP_TX _ < <(sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$TPLOG" | awk '
		/Accumulated forward statistics/ { a=1 }
		a && $1 == "RX-packets:" { rx=$2 }
		a && $1 == "TX-packets:" { tx=$2; td=$4 }
		END { print rx+0, tx+0, td+0 }')
}
# tp_quit [kill]: end testpmd (politely, or SIGKILL)
tp_quit() {
	if [ "${1:-}" = kill ]; then
		kill -KILL "$TPID" 2>/dev/null
	else
		tp_cmd quit
	fi
	exec 7>&-; FIFO_OPEN=0
	{	# (bash's "Killed" job notice is noise here)
		for _ in $(seq 50); do kill -0 "$TPID" || break; sleep 0.1; done
		kill -KILL "$TPID"; wait "$TPID"
	} 2>/dev/null
	TPID=''
}

# ---- scenarios -------------------------------------------------------------------
# loop_io Q VDEV_EXTRA LABEL: io forwarding through the loop backend
loop_io() {
	local q=$1 extra=$2 label=$3 r
	if ! vnetd_start --backend loop --queues "$q"; then not_ok "$label: vnetd start"; return; fi
	if ! tp_start "$q" io "$extra"; then not_ok "$label: testpmd start"; tp_quit kill; vnetd_stop; return; fi
	tp_cmd "start tx_first 4"
	sleep 2
	tp_stop
	sleep 0.5
	status_json > "$TMP/st.json"
	read -r v_rx v_tx v_rd v_td busy conn < <(vnetd_sum "$TMP/st.json")
	tp_quit
	# what testpmd sent, vnetd took; what vnetd put in RX, testpmd read (up to
	# what was still in flight when forwarding stopped); the loop conserves frames
	r="testpmd rx=$TP_RX tx=$TP_TX; vnetd rx=$v_rx tx=$v_tx rxdrop=$v_rd txdrop=$v_td pairs=$busy/$q"
	check "$label: frames come back ($r)" [ "$TP_RX" -gt 1000 ]
	check "$label: vnetd TX count = testpmd TX count" [ "$v_tx" = "$TP_TX" ]
	check "$label: testpmd RX <= vnetd RX <= vnetd TX, loop conserves frames" \
		bash -c "[ $TP_RX -le $v_rx ] && [ $v_rx -le $v_tx ] && [ $((v_rx + v_rd)) -le $v_tx ] && [ $((v_tx - v_rx - v_rd)) -le $((q * 256 + q * 512)) ]"
	check "$label: every queue pair carried traffic" [ "$busy" = "$q" ]
	# status while connected: layout, data path and negotiated features as asked
	local want_ring=split want_mrg=True
	case $extra in *packed_vq=1*) want_ring=packed ;; esac
	case $extra in *mrg_rxbuf=0*) want_mrg=False ;; esac
	r=$(python3 -c 'import json,sys
p=json.load(open(sys.argv[1]))["ports"][0]
rings={q[d]["ring"] for q in p["pairs"] for d in ("rx","tx")}
dps={q["datapath"] for q in p["pairs"]}
up=all(q[d]["started"] and q[d]["enabled"] for q in p["pairs"] for d in ("rx","tx"))
print(p["connected"], ",".join(sorted(rings)), ",".join(sorted(dps)), up, "mrg_rxbuf" in p["features"])' "$TMP/st.json")
	check "$label: status while connected ($r)" [ "$r" = "True $want_ring userspace True $want_mrg" ]
	check "$label: vnetd exits 0 on SIGTERM" vnetd_stop
}

netns_setup() {
	ip netns del "$NS" 2>/dev/null
	ip netns add "$NS" || return 1
	ip netns exec "$NS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip -n "$NS" link set lo up
}
tap_stat() { ip netns exec "$NS" cat "/sys/class/net/$TAP/statistics/$1"; }

# tap_tx Q VDEV_EXTRA LABEL: testpmd txonly, frames counted on the TAP
tap_tx() {
	local q=$1 extra=$2 label=$3 before after got r
	if ! vnetd_start --netns --backend tap --tap "$TAP" --queues "$q"; then not_ok "$label: vnetd start"; return; fi
	ip -n "$NS" link set "$TAP" up
	if ! tp_start "$q" txonly "$extra"; then not_ok "$label: testpmd start"; tp_quit kill; vnetd_stop; return; fi
	before=$(tap_stat rx_packets)
	tp_cmd start
	sleep 1
	tp_stop
	sleep 0.5
	after=$(tap_stat rx_packets)
	got=$((after - before))
	status_json > "$TMP/st.json"
	read -r v_rx v_tx v_rd v_td busy conn < <(vnetd_sum "$TMP/st.json")
	tp_quit
	r="testpmd tx=$TP_TX; tap rx_packets +$got; vnetd tx=$v_tx txdrop=$v_td"
	check "$label: frames reach the TAP in the netns ($r)" [ "$got" -gt 1000 ]
	check "$label: TAP count = vnetd TX - drops = testpmd TX" \
		bash -c "[ $got = $((v_tx - v_td)) ] && [ $v_tx = $TP_TX ]"
	vnetd_stop
}

# tap_rx Q VDEV_EXTRA LABEL: frames written to the TAP arrive in testpmd rxonly
tap_rx() {
	local q=$1 extra=$2 label=$3 n=3000 r
	if ! vnetd_start --netns --backend tap --tap "$TAP" --queues "$q"; then not_ok "$label: vnetd start"; return; fi
	# a deep TAP queue: on a loaded host vnetd may not run for a while
	ip -n "$NS" link set "$TAP" txqueuelen 10000 up
	if ! tp_start "$q" rxonly "$extra"; then not_ok "$label: testpmd start"; tp_quit kill; vnetd_stop; return; fi
	tp_cmd start
	sleep 1
	local kdrop0; kdrop0=$(tap_stat tx_dropped)
	# n broadcast frames from varying source ports (spread over the queues)
	ip netns exec "$NS" python3 -c 'import socket,struct,sys,time
s=socket.socket(socket.AF_PACKET, socket.SOCK_RAW); s.bind((sys.argv[1], 0))
for i in range(int(sys.argv[2])):
    f=b"\xff"*6+b"\x02\x00\x00\x00\x00\x01"+b"\x08\x00"+bytes(20)+struct.pack("!HH",1000+i%64,9)+bytes(30)
    s.send(f)
    if i % 50 == 49: time.sleep(0.002)' "$TAP" "$n"
	sleep 1
	tp_stop
	status_json > "$TMP/st.json"
	read -r v_rx v_tx v_rd v_td busy conn < <(vnetd_sum "$TMP/st.json")
	tp_quit
	local kdrop=$(($(tap_stat tx_dropped) - kdrop0))
	r="sent $n; testpmd rx=$TP_RX; vnetd rx=$v_rx rxdrop=$v_rd; TAP queue overflow $kdrop"
	# Under load the TAP's own queue may overflow before vnetd reads it;
	# every frame must still be accounted for, and nearly all arrive
	check "$label: frames written to the TAP arrive in testpmd ($r)" \
		bash -c "[ $TP_RX -ge $((n * 9 / 10)) ] && [ $((TP_RX + v_rd + kdrop)) -ge $n ]"
	check "$label: vnetd RX count = testpmd RX count" [ "$v_rx" = "$TP_RX" ]
	vnetd_stop
}

# kill_reconnect: SIGKILL the frontend mid-traffic, a second one works
kill_reconnect() {
	local label="frontend killed mid-traffic" r
	if ! vnetd_start --backend loop --queues 2; then not_ok "$label: vnetd start"; return; fi
	if ! tp_start 2 io ",packed_vq=1"; then not_ok "$label: testpmd start"; tp_quit kill; vnetd_stop; return; fi
	tp_cmd "start tx_first 4"
	sleep 2
	tp_quit kill
	sleep 0.5
	check "$label: vnetd still running" kill -0 "$VPID"
	status_json > "$TMP/st.json"
	read -r v_rx v_tx v_rd v_td busy conn < <(vnetd_sum "$TMP/st.json")
	check "$label: status shows the port disconnected (had tx=$v_tx)" [ "$conn" = 0 ]
	if ! tp_start 2 io ""; then not_ok "$label: second testpmd start"; tp_quit kill; vnetd_stop; return; fi
	tp_cmd "start tx_first 4"
	sleep 2
	tp_stop
	sleep 0.5
	status_json > "$TMP/st2.json"
	tp_quit
	read -r _ v2_tx _ _ busy conn < <(vnetd_sum "$TMP/st2.json")
	r="second testpmd rx=$TP_RX tx=$TP_TX; vnetd tx $v_tx -> $v2_tx"
	check "$label: a second frontend passes traffic ($r)" [ "$TP_RX" -gt 1000 ]
	check "$label: vnetd counters carry on: TX grew by the second testpmd's TX" \
		[ "$((v2_tx - v_tx))" = "$TP_TX" ]
	if "$VNETCTL" status --socket "$CTL" --json > "$TMP/ctl.json" 2>"$TMP/ctl.err"; then
		check "vnetctl status --json: counters match the control socket's" \
			bash -c "[ \"\$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[\"ports\"][0][\"connections\"])' $TMP/ctl.json)\" = 2 ]"
		"$VNETCTL" status --socket "$CTL" > "$TMP/ctl.txt"
		check "vnetctl status (text) shows per-queue counters" grep -q 'tx: .* packets [1-9]' "$TMP/ctl.txt"
	else
		N=$((N+1)); echo "ok $N - vnetctl status # SKIP $(head -1 "$TMP/ctl.err")"
	fi
	check "$label: vnetd exits 0 on SIGTERM" vnetd_stop
}

# sigterm_busy: SIGTERM while a frontend is connected and forwarding
sigterm_busy() {
	local label="SIGTERM mid-traffic" rc t0
	if ! vnetd_start --backend loop --queues 2; then not_ok "$label: vnetd start"; return; fi
	if ! tp_start 2 io ""; then not_ok "$label: testpmd start"; tp_quit kill; vnetd_stop; return; fi
	tp_cmd "start tx_first 4"
	sleep 1
	t0=$SECONDS
	vnetd_stop; rc=$?
	check "$label: vnetd exits 0 within 5 s (rc=$rc, $((SECONDS - t0)) s), socket removed" \
		bash -c "[ $rc = 0 ] && [ $((SECONDS - t0)) -le 5 ] && [ ! -e '$SOCK' ] && [ ! -e '$CTL' ]"
	tp_quit kill
}

# ONLY="tap_rx 2 ,packed_vq=1 name": run one scenario (debugging)
ONLY=${ONLY:-}
if [ -n "$ONLY" ]; then netns_setup; $ONLY; echo "1..$N"; exit $FAILED; fi
loop_io 1 ",mrg_rxbuf=1" "loop io 1q split mrg_rxbuf=1"
loop_io 1 ",packed_vq=1,mrg_rxbuf=0" "loop io 1q packed mrg_rxbuf=0"
loop_io 2 ",mrg_rxbuf=0" "loop io 2q split mrg_rxbuf=0"
loop_io 4 ",packed_vq=1,mrg_rxbuf=1" "loop io 4q packed mrg_rxbuf=1"
if netns_setup; then
	tap_tx 1 "" "tap txonly 1q split"
	tap_tx 4 ",packed_vq=1,mrg_rxbuf=0" "tap txonly 4q packed mrg_rxbuf=0"
	tap_rx 1 ",mrg_rxbuf=1" "tap -> rxonly 1q split mrg_rxbuf=1"
	tap_rx 2 ",packed_vq=1,mrg_rxbuf=0" "tap -> rxonly 2q packed mrg_rxbuf=0"
else
	N=$((N+1)); echo "ok $N - tap scenarios # SKIP cannot create network namespace"
fi
kill_reconnect
sigterm_busy

echo "1..$N"
if [ "$FAILED" != 0 ]; then
	echo "# --- vnetd log (last 30 lines) ---"; tail -30 "$TMP/vnetd.log" | sed 's/^/# /'
fi
exit $FAILED
