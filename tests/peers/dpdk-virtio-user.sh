#!/usr/bin/env bash
# tests/peers/dpdk-virtio-user.sh - DPDK testpmd's virtio-user PMD (net_virtio_user, a
# frontend nobody here wrote) against vnetd --backend loop.
#
# For each configuration (split/packed, 1/2 queue pairs, mrg_rxbuf=0/1, in_order=1) one
# vnetd and one interactive testpmd (no hugepages) are started, then testpmd is driven:
#   txonly  for T s: 64-byte frames go out on every queue,
#   rxonly  until nothing more arrives: what the loop backend reflected comes back,
#   io      (start tx_first) for T s: one burst per queue ping-pongs through vnetd,
#   rxonly  drain again.
# After each phase pair the port's cumulative counters must satisfy
#   RX-packets == TX-packets >= minimum, RX-bytes == TX-bytes, RX-errors == 0 (per phase),
# i.e. every frame testpmd put on a TX ring came back exactly once and unchanged in length.
# At the end, per queue pair: testpmd's xstats (tx_qN/rx_qN_good_packets) equal vnetd's own
# counters (vnetctl status --prometheus) and every pair carried frames.
# With loop the backend applies back-pressure instead of dropping, so equality is exact.
# While connected, vnetd's status must show the ring layout and the mrg_rxbuf asked for, the
# userspace data path and every ring started and enabled.
# Then, vnetd only (VNET_PEER_BACKEND=vnetd), what a VMM's life does to it:
#   tap-*: vnetd --backend tap in a private netns: testpmd txonly frames are counted on the
#     TAP (TAP count = vnetd TX - drops = testpmd TX), frames written to the TAP arrive in
#     testpmd rxonly (vnetd RX = testpmd RX, every frame accounted for);
#   frontend killed mid-traffic: vnetd stays up, shows the port disconnected, a second
#     testpmd passes traffic and vnetd's counters carry on (vnetctl status, text and JSON);
#   SIGTERM mid-traffic: vnetd exits 0 within 5 s and removes its sockets.
#
# Env: VNET_PEER_BACKEND=vnetd (default) | testpmd (net_vhost io/loop: checks the harness),
#      VNET_PEER_SECS=T (default 0.5: txonly fills the rings in microseconds, io moves
#      hundreds of thousands of frames), VNET_PEER_ONLY="name" (run one configuration),
#      VNET_VNETD=PATH (another vnetd binary, e.g. an ASan build), VNET_PEER_KEEP=1 (keep logs).
# Prints TAP lines; exits 77 with the reason when testpmd is missing or not root.
# (This file took in tests/integration/vnetd-e2e-dpdk.sh, which drove the same peer.)
# needs: root dpdk python3
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TAP_PREFIX="dpdk-virtio-user: "
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/testpmd.sh"
BACKEND=${VNET_PEER_BACKEND:-vnetd}
VNETD=${VNET_VNETD:-$TOP/build/vnetd}	# e.g. an ASan build of vnetd
VNETCTL=$TOP/build/vnetctl
SECS=${VNET_PEER_SECS:-0.5}
T0=$SECONDS
W='' BPID='' TPID='' FIFO_FD='' NS='' TP_PREFIX=vpu$$
notok() { not_ok "$@"; }

stop_all() {
	[ -n "$FIFO_FD" ] && { exec {FIFO_FD}>&-; FIFO_FD=''; }
	stop_pid "$TPID" INT; TPID=''
	stop_pid "$BPID" TERM; BPID=''
	rm -rf /var/run/dpdk/vpu$$-*
}
cleanup() { stop_all; [ -n "$W" ] && [ -z "${VNET_PEER_KEEP:-}" ] && rm -rf "$W"; }

if [ "$BACKEND" = vnetd ] && [ ! -x "$VNETD" ]; then
	notok "$VNETD exists (run make first)"; exit 1
fi
W=$(mktemp -d /tmp/vnet-peer-dpdk.XXXXXX)
cleanup_run cleanup
trap 'exit 130' INT TERM

# start_backend NAME QUEUES [VNETD_ARGS...]: vnetd --backend loop (or the given backend
# arguments; or testpmd net_vhost io) listening on $SOCK; inside $NS when NS is set
start_backend() {
	local name=$1 q=$2 _ pre=() args=(--backend loop)
	shift 2
	[ $# -gt 0 ] && args=("$@")
	[ -n "$NS" ] && pre=(ip netns exec "$NS")
	SOCK=$W/$name.sock; BLOG=$W/$name.backend.log; CTL=$W/$name.ctl
	if [ "$BACKEND" = vnetd ]; then
		"${pre[@]}" "$VNETD" --socket "$SOCK" "${args[@]}" --queues "$q" \
			--ctl-socket "$CTL" > "$BLOG" 2>&1 < /dev/null &
	else
		dpdk-testpmd --lcores '0@0,1@0' --no-pci --no-huge -m 512 --no-shconf \
			--file-prefix "vpu$$-b$name" --log-level=lib.eal:notice \
			--vdev "net_vhost0,iface=$SOCK,queues=$q,client=0" -- --no-mlockall \
			--forward-mode=io --port-topology=loop --rxq="$q" --txq="$q" --nb-cores=1 \
			--total-num-mbufs=16384 --stats-period 10 > "$BLOG" 2>&1 < /dev/null &
	fi
	BPID=$!
	for _ in $(seq 100); do
		[ -S "$SOCK" ] && return 0
		kill -0 "$BPID" 2>/dev/null || break
		sleep 0.1
	done
	tail -n 10 "$BLOG" | sed 's/^/# backend: /'
	return 1
}

# drain: rxonly until the RX count stops moving: for 0.25 s once it equals the TX
# count (everything came back), else for 0.5 s (at most 10 s)
drain() {
	local prev=-1 cur tx still=0 _
	tp "set fwd rxonly"; tp "start"
	for _ in $(seq 40); do
		sleep 0.25
		read -r cur _ _ tx _ < <(port_stats)
		if [ "$cur" = "$prev" ]; then still=$((still + 1)); else still=0; fi
		[ "$still" -ge 2 ] || { [ "$still" = 1 ] && [ "$cur" = "$tx" ]; } && break
		prev=$cur
	done
	tp "stop"	# (what comes next asks testpmd, which answers once stopped)
}

# check NAME PHASE MIN: since the last check, RX == TX (packets and bytes), TX >= MIN,
# no RX errors (LAST holds the previous counters)
LAST="0 0 0 0 0"
check_phase() {
	local name=$1 phase=$2 min=$3 rxp rxb rxe txp txb r0 rb0 t0 tb0
	read -r rxp rxb rxe txp txb < <(port_stats)
	read -r r0 rb0 _ t0 tb0 <<< "$LAST"
	LAST="$rxp $rxb $rxe $txp $txb"
	echo "# $name $phase: port totals RX-packets=$rxp RX-bytes=$rxb RX-errors=$rxe TX-packets=$txp TX-bytes=$txb"
	if [ -z "$txp" ] || [ -z "$rxp" ]; then notok "$name: $phase: no port statistics"; return; fi
	rxp=$((rxp - r0)) rxb=$((rxb - rb0)) txp=$((txp - t0)) txb=$((txb - tb0))
	if [ "$txp" -ge "$min" ] && [ "$rxp" = "$txp" ] && [ "$rxb" = "$txb" ] && [ "$rxe" = 0 ]; then
		ok "$name: $phase: all $txp frames ($txb bytes) came back"
	else
		notok "$name: $phase: RX $rxp/$rxb != TX $txp/$txb (frames/bytes), or TX < $min, or RX-errors $rxe"
	fi
}

# per_queue NAME QUEUES: per queue pair, testpmd's TX and RX counts (xstats) and vnetd's own
# (vnetctl status --prometheus: frames taken from the TX ring, put on the RX ring) all agree,
# and every pair carried traffic: frames come back on the pair they left on
per_queue() {
	local name=$1 q=$2 i before _ xs prom ttx trx vtx vrx bad=''
	before=$(grep -c "tx_q$((q - 1))_good_bytes" "$TLOG")
	tp "show port xstats 0"
	for _ in $(seq 50); do
		[ "$(grep -c "tx_q$((q - 1))_good_bytes" "$TLOG")" -gt "$before" ] && break
		sleep 0.1
	done
	xs=$(sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$TLOG")
	[ "$BACKEND" = vnetd ] && prom=$("$TOP/build/vnetctl" status -s "$W/$name.ctl" --prometheus 2>&1)
	for i in $(seq 0 $((q - 1))); do
		ttx=$(grep -o "tx_q${i}_good_packets: *[0-9]*" <<< "$xs" | tail -n1 | grep -o '[0-9]*$')
		trx=$(grep -o "rx_q${i}_good_packets: *[0-9]*" <<< "$xs" | tail -n1 | grep -o '[0-9]*$')
		if [ "$BACKEND" = vnetd ]; then
			vtx=$(grep "^vnetd_queue_packets_total{.*queue=\"$i\",dir=\"tx\"}" <<< "$prom" | awk '{print $2}')
			vrx=$(grep "^vnetd_queue_packets_total{.*queue=\"$i\",dir=\"rx\"}" <<< "$prom" | awk '{print $2}')
		else
			vtx=$ttx vrx=$trx
		fi
		echo "# $name pair $i: testpmd tx=$ttx rx=$trx; $BACKEND took from TX ring=$vtx, put on RX ring=$vrx"
		[ -n "$ttx" ] && [ "${ttx:-0}" -gt 0 ] && [ "$ttx" = "$trx" ] && [ "$ttx" = "$vtx" ] &&
			[ "$trx" = "$vrx" ] || bad="$bad $i"
	done
	if [ -z "$bad" ]; then
		ok "$name: per pair, testpmd's and $BACKEND's counts agree and every pair carried frames"
	else
		notok "$name: per pair counts disagree or a pair carried nothing (pairs:$bad)"
		[ "$BACKEND" = vnetd ] && grep -E 'packets_total|error|refused' <<< "$prom" | head -8 | sed 's/^/# vnetctl: /'
	fi
}

# run_config NAME QUEUES DEVARGS
run_config() {
	local name=$1 q=$2 dev=$3 t0=$SECONDS
	[ -n "${VNET_PEER_ONLY:-}" ] && [ "$VNET_PEER_ONLY" != "$name" ] && return 0
	if ! start_backend "$name" "$q"; then notok "$name: $BACKEND listens"; stop_all; return; fi
	if ! start_testpmd "$name" "$q" "$dev"; then notok "$name: testpmd virtio-user port up"; stop_all; return; fi
	LAST="0 0 0 0 0"
	ok "$name: testpmd net_virtio_user$dev queues=$q connected to $BACKEND"
	tp "set fwd txonly"; tp "start"; sleep "$SECS"; tp "stop"
	drain
	check_phase "$name" "txonly ${SECS}s + rxonly" 64
	tp "set fwd io"; tp "start tx_first"; sleep "$SECS"; tp "stop"
	drain
	check_phase "$name" "io (tx_first) ${SECS}s + rxonly" 2000
	if [ "$BACKEND" = vnetd ]; then
		if kill -0 "$BPID" 2>/dev/null; then ok "$name: vnetd still running"
		else notok "$name: vnetd still running"; tail -n 10 "$BLOG" | sed 's/^/# vnetd: /'; fi
		status_connected "$name" "$dev"
	fi
	per_queue "$name" "$q"
	tp "quit"
	stop_all
	if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$BLOG"; then
		grep -E -A5 'AddressSanitizer|LeakSanitizer|runtime error:' "$BLOG" | head -n 20 | sed 's/^/# vnetd: /'
		notok "$name: vnetd logged a sanitizer report"
	fi
	echo "# $name took $((SECONDS - t0))s"
}

# status_json: vnetd's status (vnetctl status --json) on $CTL
status_json() { "$VNETCTL" status --socket "$CTL" --json 2>&1; }

# vnetd_sum JSONFILE: "rx_pkts tx_pkts rx_drops tx_drops pairs_with_traffic connected"
vnetd_sum() {
	python3 -c 'import json,sys
p=json.load(open(sys.argv[1]))["ports"][0]
rx=sum(q["rx"]["packets"] for q in p["pairs"]); tx=sum(q["tx"]["packets"] for q in p["pairs"])
rd=sum(sum(q["rx"]["drops"].values()) for q in p["pairs"]); td=sum(sum(q["tx"]["drops"].values()) for q in p["pairs"])
busy=sum(1 for q in p["pairs"] if q["tx"]["packets"] or q["rx"]["packets"])
print(rx, tx, rd, td, busy, int(p["connected"]))' "$1" 2>/dev/null || echo "0 0 0 0 0 0"
}

# status_connected NAME DEVARGS: while testpmd is connected, vnetd's status shows the
# ring layout and mrg_rxbuf DEVARGS asked for, the userspace data path, every ring up
status_connected() {
	local name=$1 dev=$2 r want_ring=split want_mrg=True
	case $dev in *packed_vq=1*) want_ring=packed ;; esac
	case $dev in *mrg_rxbuf=0*) want_mrg=False ;; esac
	status_json > "$W/$name.status.json"
	r=$(python3 -c 'import json,sys
p=json.load(open(sys.argv[1]))["ports"][0]
rings={q[d]["ring"] for q in p["pairs"] for d in ("rx","tx")}
dps={q["datapath"] for q in p["pairs"]}
up=all(q[d]["started"] and q[d]["enabled"] for q in p["pairs"] for d in ("rx","tx"))
print(p["connected"], ",".join(sorted(rings)), ",".join(sorted(dps)), up, "mrg_rxbuf" in p["features"])' \
		"$W/$name.status.json" 2>&1)
	check "$name: vnetd status while connected: $want_ring rings, userspace, all up, mrg_rxbuf $want_mrg ($r)" \
		[ "$r" = "True $want_ring userspace True $want_mrg" ]
}

# want NAME: whether VNET_PEER_ONLY lets scenario NAME run
want() { [ -z "${VNET_PEER_ONLY:-}" ] || [ "$VNET_PEER_ONLY" = "$1" ]; }

# tap_stat NAME: a counter of the TAP in $NS
tap_stat() { ip netns exec "$NS" cat "/sys/class/net/$TAP/statistics/$1"; }

# tap_tx NAME QUEUES DEVARGS: testpmd txonly through vnetd --backend tap; frames counted
# on the TAP
tap_tx() {
	local name=$1 q=$2 dev=$3 before got v_rx v_tx v_rd v_td _
	want "$name" || return 0
	if ! start_backend "$name" "$q" --backend tap --tap "$TAP"; then notok "$name: vnetd listens"; stop_all; return; fi
	ip -n "$NS" link set "$TAP" up
	if ! start_testpmd "$name" "$q" "$dev"; then notok "$name: testpmd virtio-user port up"; stop_all; return; fi
	before=$(tap_stat rx_packets)
	tp "set fwd txonly"; tp "start"; sleep 1; tp "stop"; sleep 0.5
	read -r _ _ _ TP_TX _ < <(port_stats)
	got=$(($(tap_stat rx_packets) - before))
	status_json > "$W/$name.status.json"
	read -r v_rx v_tx v_rd v_td _ _ < <(vnetd_sum "$W/$name.status.json")
	tp "quit"; stop_all
	local r="testpmd tx=$TP_TX; tap rx_packets +$got; vnetd tx=$v_tx txdrop=$v_td"
	check "$name: frames reach the TAP in the netns ($r)" [ "$got" -gt 1000 ]
	check "$name: TAP count = vnetd TX - drops = testpmd TX" \
		bash -c "[ $got = $((v_tx - v_td)) ] && [ $v_tx = ${TP_TX:-x} ]"
}

# tap_rx NAME QUEUES DEVARGS: frames written to the TAP arrive in testpmd rxonly
tap_rx() {
	local name=$1 q=$2 dev=$3 n=3000 kdrop0 kdrop v_rx v_tx v_rd v_td rxp _
	want "$name" || return 0
	if ! start_backend "$name" "$q" --backend tap --tap "$TAP"; then notok "$name: vnetd listens"; stop_all; return; fi
	# a deep TAP queue: on a loaded host vnetd may not run for a while
	ip -n "$NS" link set "$TAP" txqueuelen 10000 up
	if ! start_testpmd "$name" "$q" "$dev"; then notok "$name: testpmd virtio-user port up"; stop_all; return; fi
	tp "set fwd rxonly"; tp "start"; sleep 1
	kdrop0=$(tap_stat tx_dropped)
	# n broadcast frames from varying source ports (spread over the queues)
	ip netns exec "$NS" python3 -c 'import socket,struct,sys,time
s=socket.socket(socket.AF_PACKET, socket.SOCK_RAW); s.bind((sys.argv[1], 0))
for i in range(int(sys.argv[2])):
    f=b"\xff"*6+b"\x02\x00\x00\x00\x00\x01"+b"\x08\x00"+bytes(20)+struct.pack("!HH",1000+i%64,9)+bytes(30)
    s.send(f)
    if i % 50 == 49: time.sleep(0.002)' "$TAP" "$n"
	rx_settle "$n"
	tp "stop"
	read -r rxp _ < <(port_stats)
	status_json > "$W/$name.status.json"
	read -r v_rx v_tx v_rd v_td _ _ < <(vnetd_sum "$W/$name.status.json")
	kdrop=$(($(tap_stat tx_dropped) - kdrop0))
	tp "quit"; stop_all
	local r="sent $n; testpmd rx=$rxp; vnetd rx=$v_rx rxdrop=$v_rd; TAP queue overflow $kdrop"
	# Under load the TAP's own queue may overflow before vnetd reads it; every frame must
	# still be accounted for, and nearly all arrive
	check "$name: frames written to the TAP arrive in testpmd ($r)" \
		bash -c "[ ${rxp:-0} -ge $((n * 9 / 10)) ] && [ $((${rxp:-0} + v_rd + kdrop)) -ge $n ]"
	check "$name: vnetd RX count = testpmd RX count" [ "$v_rx" = "${rxp:-x}" ]
}

# kill_reconnect NAME: SIGKILL the frontend mid-traffic; vnetd stays, a second one works
kill_reconnect() {
	local name=$1 v_tx v2_tx conn tx1 tx2 rx2 _
	want "$name" || return 0
	if ! start_backend "$name" 2; then notok "$name: vnetd listens"; stop_all; return; fi
	if ! start_testpmd "$name" 2 ",packed_vq=1"; then notok "$name: testpmd virtio-user port up"; stop_all; return; fi
	tp "set fwd io"; tp "start tx_first 4"; sleep 1
	exec {FIFO_FD}>&-; FIFO_FD=''
	{ stop_pid "$TPID" KILL; } 2> /dev/null	# (bash's "Killed" job notice is noise here)
	TPID=''
	sleep 0.5
	check "$name: vnetd still running after testpmd was SIGKILLed" kill -0 "$BPID"
	status_json > "$W/$name.st1.json"
	read -r _ v_tx _ _ _ conn < <(vnetd_sum "$W/$name.st1.json")
	check "$name: status shows the port disconnected (had tx=$v_tx)" [ "$conn" = 0 ]
	if ! start_testpmd "$name-2" 2 ""; then notok "$name: second testpmd port up"; stop_all; return; fi
	read -r _ _ _ tx1 _ < <(port_stats)
	tp "set fwd io"; tp "start tx_first 4"; sleep 1; tp "stop"; sleep 0.5
	read -r rx2 _ _ tx2 _ < <(port_stats)
	status_json > "$W/$name.st2.json"
	read -r _ v2_tx _ _ _ _ < <(vnetd_sum "$W/$name.st2.json")
	local r="second testpmd rx=$rx2 tx=$((tx2 - tx1)); vnetd tx $v_tx -> $v2_tx"
	check "$name: a second frontend passes traffic ($r)" [ "${rx2:-0}" -gt 1000 ]
	check "$name: vnetd counters carry on: TX grew by the second testpmd's TX" \
		[ "$((v2_tx - v_tx))" = "$((tx2 - tx1))" ]
	check "$name: vnetctl status --json counts 2 connections" \
		python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["ports"][0]["connections"] != 2)' "$W/$name.st2.json"
	"$VNETCTL" status --socket "$CTL" > "$W/$name.st2.txt" 2>&1
	check "$name: vnetctl status (text) shows per-queue counters" grep -q 'tx: .* packets [1-9]' "$W/$name.st2.txt"
	tp "quit"
	stop_pid "$TPID" INT; TPID=''
	kill -TERM "$BPID"; wait "$BPID"; local rc=$?; BPID=''
	check "$name: vnetd exits 0 on SIGTERM (rc=$rc)" [ "$rc" = 0 ]
	stop_all
}

# sigterm_busy NAME: SIGTERM while a frontend is connected and forwarding
sigterm_busy() {
	local name=$1 rc t0
	want "$name" || return 0
	if ! start_backend "$name" 2; then notok "$name: vnetd listens"; stop_all; return; fi
	if ! start_testpmd "$name" 2 ""; then notok "$name: testpmd virtio-user port up"; stop_all; return; fi
	tp "set fwd io"; tp "start tx_first 4"; sleep 1
	t0=$SECONDS
	kill -TERM "$BPID"; wait "$BPID"; rc=$?; BPID=''
	check "$name: vnetd exits 0 within 5 s (rc=$rc, $((SECONDS - t0)) s), sockets removed" \
		bash -c "[ $rc = 0 ] && [ $((SECONDS - t0)) -le 5 ] && [ ! -e '$SOCK' ] && [ ! -e '$CTL' ]"
	stop_all
}

run_config split-q1-mrg1 1 ",packed_vq=0,mrg_rxbuf=1,in_order=0"
run_config split-q1-mrg0 1 ",packed_vq=0,mrg_rxbuf=0,in_order=0"
run_config split-q2-mrg1 2 ",packed_vq=0,mrg_rxbuf=1,in_order=0"
run_config split-q1-inorder 1 ",packed_vq=0,mrg_rxbuf=1,in_order=1"
run_config packed-q1-mrg1 1 ",packed_vq=1,mrg_rxbuf=1,in_order=0"
run_config packed-q2-mrg0 2 ",packed_vq=1,mrg_rxbuf=0,in_order=0"
run_config packed-q2-inorder 2 ",packed_vq=1,mrg_rxbuf=1,in_order=1"
run_config packed-q4-mrg1 4 ",packed_vq=1,mrg_rxbuf=1,in_order=0"
if [ "$BACKEND" = vnetd ]; then
	NS=vnpeer$$ TAP=vpt$$
	if netns_new "$NS"; then
		# no IPv6 chatter (router solicitations, MLD) on the TAP: only the frames we send
		ip netns exec "$NS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
		tap_tx tap-tx-split-q1 1 ""
		tap_tx tap-tx-packed-q4-mrg0 4 ",packed_vq=1,mrg_rxbuf=0"
		tap_rx tap-rx-split-q1-mrg1 1 ",mrg_rxbuf=1"
		tap_rx tap-rx-packed-q2-mrg0 2 ",packed_vq=1,mrg_rxbuf=0"
	else
		ok_skip "tap scenarios" "cannot create a network namespace"
	fi
	NS=''
	kill_reconnect frontend-killed
	sigterm_busy sigterm-busy
fi
echo "# total $((SECONDS - T0))s"
[ "$FAILS" = 0 ]
