#!/usr/bin/env bash
# vnetd-switch.sh - the switch between ports (--switch, switch=, vlan=,
# trunk=): vnetd with one switch and several ports on it, vnet-bench
# processes as the VMs. Every frame A sends reaches each other member of
# its VLAN exactly once and in order (the rx-only VMs check the sequence
# numbers), a port on another VLAN gets none, a trunk port gets them
# tagged; once B's MAC is learned, A's frames to it reach B only; the
# per-port counters say so; the bad inputs are refused with their reason
# (at start and by vnetctl port add) and the other ports go on; a switch
# port added at run time (sandboxed) carries traffic. The switch's uplink
# (as root, with tun and netns; else those checks skip with the reason): a
# TAP moved into a namespace with an address; frames sent there reach the
# VMs of its VLAN, a VM's frames to an unknown MAC leave through the TAP,
# replies to learned MACs reach only their VM or only the TAP, and the
# uplink's counters are in vnetctl status. A second uplink is refused.
# The receivers run until the sender is done (then SIGINT); the sender
# starts once they are connected. Senders are paced (--pps) so that on a busy machine the receivers keep
# up: a full hand-off queue drops by design, which this test is not about.
# needs: python3
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
VNETD=${VNETD:-build/vnetd}
BENCH=${VNET_BENCH:-build/vnet-bench}
VNETCTL=${VNETCTL:-build/vnetctl}
need_built "$VNETD" "$BENCH" "$VNETCTL"
TMP=$(mktemp -d /tmp/vnetd-switch.XXXXXX)
[ -n "${SWITCH_KEEP:-}" ] || cleanup_path "$TMP"
C=$TMP/ctl.sock
N_FRAMES=${SWITCH_FRAMES:-1500}
PPS=${SWITCH_PPS:-2000}
MB=02:00:00:00:00:0b
field() { bench_field "$@"; }

# --- refused at start: each names the key, the value and what is allowed --
start_refused() {
	local name=$1 want=$2 out rc
	shift 2
	out=$(timeout 10 "$VNETD" --ctl-socket "$TMP/r.sock" "$@" 2>&1); rc=$?
	if [ "$rc" = 2 ] && grep -qF -- "$want" <<< "$out"; then
		ok "start refused: $name ($out)"
	else
		not_ok "start refused: $name: exit $rc, want '$want': $out"
	fi
}
start_refused "switch= not declared" "switch=nope: no such switch" \
	--switch s0 --port "socket=$TMP/x.sock,switch=nope"
start_refused "vlan outside 1..4094" "'vlan=4095': must be a VLAN number 1..4094" \
	--switch s0 --port "socket=$TMP/x.sock,switch=s0,vlan=4095"
start_refused "vlan and trunk together" "vlan=10: cannot be combined with trunk=" \
	--switch s0 --port "socket=$TMP/x.sock,switch=s0,vlan=10,trunk=20:30"
start_refused "switch= with backend=" "switch=s0: cannot be combined with backend=loop" \
	--switch s0 --port "socket=$TMP/x.sock,switch=s0,backend=loop"
start_refused "a bad switch name" "--switch a/b: must be letters" --switch a/b \
	--port "socket=$TMP/x.sock"
start_refused "two uplinks on one switch" \
	"uplink=tap:vsx1: switch s0 has the uplink tap:vsx0 already (one uplink per switch)" \
	--switch s0,uplink=tap:vsx0 --switch s0,uplink=tap:vsx1 --port "socket=$TMP/x.sock,switch=s0"
start_refused "an uplink that is no TAP" "'uplink=eth0': must be tap:IFNAME" \
	--switch s0,uplink=eth0 --port "socket=$TMP/x.sock,switch=s0"

# --- the uplink's TAP: made here (persistent, IPv6 off, down) so that the
# host sends nothing into the switch until the uplink checks; moved into a
# namespace with an address then -----------------------------------------
. tests/lib/needs.sh
UP=vsup$$ UPNS=vnet-up-$$ UPLINK="" UP_WHY=""
for w in root tun netns; do
	[ -z "$UP_WHY" ] || break
	UP_WHY=$(needs_probe "$w") && UP_WHY=""
done
if [ -z "$UP_WHY" ]; then
	if ip tuntap add dev "$UP" mode tap multi_queue vnet_hdr 2> /dev/null; then
		cleanup_run "ip -n $UPNS link del $UP 2> /dev/null; ip link del $UP 2> /dev/null; true"
		sysctl -qw "net.ipv6.conf.$UP.disable_ipv6=1" 2> /dev/null
		UPLINK=",uplink=tap:$UP,uplink-vlan=10"
	else
		UP_WHY="ip tuntap add failed here"
	fi
fi

"$VNETD" --switch "s0$UPLINK" --ctl-socket "$C" \
	--port "name=a,socket=$TMP/a.sock,switch=s0,vlan=10" \
	--port "name=b,socket=$TMP/b.sock,switch=s0,vlan=10" \
	--port "name=d,socket=$TMP/d.sock,switch=s0,vlan=10" \
	--port "name=c,socket=$TMP/c.sock,switch=s0,vlan=20" \
	--port "name=t,socket=$TMP/t.sock,switch=s0,trunk=10:20" \
	2> "$TMP/vnetd.log" &
VPID=$!
cleanup_pid "$VPID"
wait_sock "$C" 5 "$VPID" && wait_sock "$TMP/t.sock" 5 "$VPID" ||
	{ echo "Bail out! vnetd did not start"; cat "$TMP/vnetd.log"; exit 1; }

# rx-only VMs in the background: NAME SOCKET [ARGS]; results in $TMP/NAME.json
rx_vm() {
	local name=$1 sock=$2
	shift 2
	timeout 60 "$BENCH" --socket "$sock" --json -d 40 "$@" > "$TMP/$name.json" 2>&1 &
	VMS+=($!)
}
VMS=()
wait_vms() {	# the sender is done: end the VMs' windows (SIGINT), collect
	local p
	sleep 0.5
	for p in "${VMS[@]}"; do kill -INT "$p" 2> /dev/null; done
	for p in "${VMS[@]}"; do wait "$p"; done
	VMS=()
}
sender() {
	timeout 30 "$BENCH" --socket "$1" --json --mode tx-only --no-check-seq -d 1.5 \
		--frames "$N_FRAMES" --pps "$PPS" "${@:2}" > "$TMP/sender.json" 2>&1
}
# wait until the VMs on ports NAME... are connected with their RX rings
# started (frames for a port whose guest is not up yet are dropped)
ready() {
	local _
	for _ in $(seq 100); do
		python3 -c '
import json, sys
p = {x["name"]: x for x in json.loads(sys.argv[1])["ports"]}
sys.exit(not all(p[n]["connected"] and p[n]["pairs"] and p[n]["pairs"][0]["rx"]["started"]
		 for n in sys.argv[2:]))' "$("$VNETCTL" status --json --socket "$C")" "$@" && return 0
		sleep 0.1
	done
	echo "# ports $* not ready after 10 s"
}
got() { field "$2" "$(cat "$TMP/$1.json")"; }
once_in_order() {	# NAME: got all N_FRAMES, none lost, duplicated or reordered
	local n=$1 why=""
	[ "$(got "$n" rx_frames)" = "$N_FRAMES" ] || why="rx_frames $(got "$n" rx_frames) != $N_FRAMES"
	for f in lost dup_or_reordered wrong_queue; do
		[ "$(got "$n" $f)" = 0 ] || why="$why $f=$(got "$n" $f)"
	done
	[ -z "$why" ] || { echo "# $n: $why"; return 1; }
}

# --- flooding: A's broadcast reaches B and D once, in order; not C --------
rx_vm b "$TMP/b.sock" --mode rx-only --check-seq
rx_vm d "$TMP/d.sock" --mode rx-only --check-seq
rx_vm c "$TMP/c.sock" --mode rx-only --check-seq
rx_vm t "$TMP/t.sock" --mode rx-only --check-seq
ready b d c t
sender "$TMP/a.sock"
wait_vms
check "A sent $N_FRAMES broadcast frames" [ "$(field tx_frames "$(cat "$TMP/sender.json")")" = "$N_FRAMES" ]
check "flood: B got each of them once, in order" once_in_order b
check "flood: D got each of them once, in order" once_in_order d
check "VLAN isolation: C (vlan 20) got none of vlan 10's ($(got c rx_frames))" [ "$(got c rx_frames)" = 0 ]
# vnet-bench finds no marker after a tag: tagged frames count as foreign
check "trunk: T (10,20) got them all, tagged ($(got t rx_frames) frames, $(got t foreign) with a tag)" \
	[ "$(got t rx_frames)" = "$N_FRAMES" ] && [ "$(got t foreign)" = "$N_FRAMES" ]
st=$("$VNETCTL" status --json --socket "$C")
check "status: A flooded $N_FRAMES" python3 -c '
import json, sys
p = {x["name"]: x for x in json.loads(sys.argv[1])["ports"]}
a, b = p["a"]["switch"], p["b"]["switch"]
sys.exit(not (a["name"] == "s0" and a["vlans"] == "vlan 10" and a["flooded"] == int(sys.argv[2])
	      and b["drops"]["queue_full"] == 0 and p["t"]["switch"]["vlans"] == "trunk 10,20"))' "$st" "$N_FRAMES"

# --- unicast: once B's MAC is learned, A's frames to it reach B only ------
# B stays connected (a port whose frontend leaves forgets its MACs): it sends
# one frame to be learned, then takes A's stream
rx_vm b "$TMP/b.sock" --mode tx-only --frames 1 --src-mac "$MB" --check-seq
rx_vm d "$TMP/d.sock" --mode rx-only --check-seq
ready b d
sleep 0.3	# B's one frame
sender "$TMP/a.sock" --dst-mac "$MB"
wait_vms
check "unicast: B got each of A's frames once, in order" once_in_order b
# (B's one broadcast may reach D, or come before D is up)
check "unicast: D got none of A's frames ($(got d rx_frames))" [ "$(got d rx_frames)" -le 1 ]
txt=$("$VNETCTL" status --socket "$C")
check "status: B learned its MAC, then forgot it when its VM left (macs 0)" \
	grep -q "switch s0: vlan 10, macs 0, learned 1," <<< "$txt"

# --- refused at run time; the other ports go on ----------------------------
add_refused() {
	local name=$1 want=$2 out
	out=$("$VNETCTL" port add "$3" --socket "$C" 2>&1)
	if [ $? != 0 ] && grep -qF -- "$want" <<< "$out"; then
		ok "port add refused: $name ($out)"
	else
		not_ok "port add refused: $name: want '$want': $out"
	fi
}
add_refused "switch= not declared" "switch=s9: no such switch (declared: s0" \
	"name=x,socket=$TMP/x.sock,switch=s9"
add_refused "vlan 0" "'vlan=0': must be a VLAN number 1..4094" \
	"name=x,socket=$TMP/x.sock,switch=s0,vlan=0"
add_refused "trunk with a bad range" "'trunk=30-20': must be a list of VLANs 1..4094" \
	"name=x,socket=$TMP/x.sock,switch=s0,trunk=30-20"
add_refused "vlan and trunk" "vlan=5: cannot be combined with trunk=" \
	"name=x,socket=$TMP/x.sock,switch=s0,vlan=5,trunk=6"
add_refused "switch= with tap=" "switch=s0: cannot be combined with tap=" \
	"name=x,socket=$TMP/x.sock,switch=s0,tap=vx0"
add_refused "vlan= without switch=" "vlan=: only with switch=NAME" \
	"name=x,socket=$TMP/x.sock,backend=null,vlan=5"
check "the refusals changed nothing (5 ports listed)" \
	[ "$("$VNETCTL" port list --socket "$C" | grep -c "backend=switch")" = 5 ]

# --- a switch port added at run time (sandboxed vnetd) carries traffic -----
out=$("$VNETCTL" port add "name=e,socket=$TMP/e.sock,switch=s0,vlan=20" --socket "$C" 2>&1)
check "port add e (vlan 20): $out" [ -S "$TMP/e.sock" ]
rx_vm e "$TMP/e.sock" --mode rx-only --check-seq
rx_vm b "$TMP/b.sock" --mode rx-only --check-seq
ready e b
sender "$TMP/c.sock"
wait_vms
check "run-time port E got each of C's frames once, in order" once_in_order e
check "VLAN isolation: B (vlan 10) got none of vlan 20's ($(got b rx_frames))" [ "$(got b rx_frames)" = 0 ]
# --- the uplink: a TAP in a namespace with an address, on VLAN 10 ---------
MA=02:00:00:00:00:0a HU=02:00:00:00:00:aa UNK=02:00:00:00:00:ee K=200
# host_send DST SRC N: N frames from the namespace through the TAP
host_send() {
	ip netns exec "$UPNS" python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
mac = lambda m: bytes.fromhex(m.replace(":", ""))
for i in range(int(sys.argv[4])):
	s.send(mac(sys.argv[2]) + mac(sys.argv[3]) + b"\x88\xb5" + i.to_bytes(4, "big") + bytes(46))
	time.sleep(0.0005)' "$UP" "$1" "$2" "$3"
}
tap_rx() { ip netns exec "$UPNS" cat "/sys/class/net/$UP/statistics/rx_packets"; }
uplink_checks() {
	local before after st
	netns_new "$UPNS" || { echo "# ip netns add $UPNS failed"; return 1; }
	ip netns exec "$UPNS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip link set "$UP" netns "$UPNS" &&
		ip -n "$UPNS" addr add 10.77.0.1/24 dev "$UP" &&
		ip -n "$UPNS" link set "$UP" up ||
		{ not_ok "uplink TAP $UP into namespace $UPNS"; return 1; }
	# from the host side: the VMs of VLAN 10 get it, VLAN 20 none
	rx_vm b "$TMP/b.sock" --mode rx-only
	rx_vm d "$TMP/d.sock" --mode rx-only
	rx_vm c "$TMP/c.sock" --mode rx-only
	ready b d c
	host_send ff:ff:ff:ff:ff:ff "$HU" "$K"
	wait_vms
	check "uplink: the host side's $K broadcasts reached B ($(got b rx_frames)) and D ($(got d rx_frames))" \
		[ "$(got b rx_frames)" = "$K" ] && [ "$(got d rx_frames)" = "$K" ]
	check "uplink: VLAN 20's C got none of them ($(got c rx_frames))" [ "$(got c rx_frames)" = 0 ]
	# a VM's frames to an unknown MAC leave through the TAP
	before=$(tap_rx)
	sender "$TMP/a.sock" --src-mac "$MA" --dst-mac "$UNK"
	after=$(tap_rx)
	check "uplink: A's $N_FRAMES frames to an unknown MAC left through the TAP ($((after - before)))" \
		[ "$((after - before))" = "$N_FRAMES" ]
	# replies to learned MACs: B (learned on its port) gets the host's,
	# the host station (learned behind the uplink) gets A's; D neither
	rx_vm b "$TMP/b.sock" --mode tx-only --frames 1 --src-mac "$MB"
	rx_vm d "$TMP/d.sock" --mode rx-only
	ready b d
	sleep 0.3	# B's one frame
	host_send "$MB" "$HU" "$K"
	before=$(tap_rx)
	sender "$TMP/a.sock" --src-mac "$MA" --dst-mac "$HU"
	after=$(tap_rx)
	wait_vms
	check "uplink: the host's $K frames to B reached B ($(got b rx_frames))" [ "$(got b rx_frames)" = "$K" ]
	check "uplink: A's $N_FRAMES frames to the host station left through the TAP ($((after - before)))" \
		[ "$((after - before))" = "$N_FRAMES" ]
	# (B's one broadcast may reach D)
	check "uplink: D got none of them ($(got d rx_frames))" [ "$(got d rx_frames)" -le 1 ]
	st=$("$VNETCTL" status --json --socket "$C")
	check "uplink: counters in vnetctl status --json" python3 -c '
import json, sys
u = json.loads(sys.argv[1])["uplinks"][0]
k, n = int(sys.argv[3]), int(sys.argv[4])
sys.exit(not (u["switch"] == "s0" and u["interface"] == sys.argv[2] and u["vlans"] == "vlan 10"
	      and u["from_host"] >= 2 * k and u["to_host"] >= 2 * n and u["learned"] >= 1
	      and u["drops"]["bad"] == 0 and u["drops"]["vlan"] == 0))' "$st" "$UP" "$K" "$N_FRAMES"
	check "uplink: a line in vnetctl status" grep -q "^switch s0: uplink tap:$UP, vlan 10, macs " \
		<<< "$("$VNETCTL" status --socket "$C")"
}
if [ -n "$UPLINK" ]; then
	uplink_checks
else
	ok_skip "uplink: a TAP into a namespace" "$UP_WHY"
fi
check "vnetd still running" kill -0 "$VPID"
stop_pid "$VPID"
exit "$FAILED"
