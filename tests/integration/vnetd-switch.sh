#!/usr/bin/env bash
# vnetd-switch.sh - the switch between ports (--switch, switch=, vlan=,
# trunk=): vnetd with one switch and several ports on it, vnet-bench
# processes as the VMs. Every frame A sends reaches each other member of
# its VLAN exactly once and in order (the rx-only VMs check the sequence
# numbers), a port on another VLAN gets none, a trunk port gets them
# tagged; once B's MAC is learned, A's frames to it reach B only; the
# per-port counters say so; the bad inputs are refused with their reason
# (at start and by vnetctl port add) and the other ports go on; a switch
# port added at run time (sandboxed) carries traffic; vnetctl switch show
# and list (text, JSON) and the Prometheus switch families show the members,
# the MAC table and the counters (promtool checks the exposition if present);
# "--switch NAME" lines of --config declare switches, SIGHUP adds and removes
# them, and refuses to remove one a port still uses. A policed port
# (police-pps=) is held to its rate at the receiver; a 2-pair receiver gets
# a many-flow sender's frames on both pairs (flow hash); a VM flooding
# random source MACs leaves another pair's rate and vnetd's RSS alone.
# A mac-lock member's frames from a foreign source MAC are dropped as
# spoofed before the switch (not flooded, not learned); its own MAC's pass.
# TSO frames reach a VM that took GUEST_TSO4 as slot-sized TSO frames, one
# that did not as segments.
# The switch's uplink
# (as root, with tun and netns; else those checks skip with the reason): a
# TAP moved into a namespace with an address; frames sent there reach the
# VMs of its VLAN, a VM's frames to an unknown MAC leave through the TAP,
# replies to learned MACs reach only their VM or only the TAP, and the
# uplink's counters are in vnetctl status. A second uplink is refused.
# The receivers run until the sender is done (then SIGINT); the sender
# starts once they are connected. Senders are paced (--pps) so that on a busy machine the receivers keep
# up (a full hand-off queue holds a unicast sender back and drops a flooded
# frame, which this test is not about).
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
POL_PPS=${SWITCH_POLICE_PPS:-2000}	# well within a busy 2-CPU machine's reach
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
start_refused "police-pps 0" "'police-pps=0': must be frames/s 1..100000000" \
	--switch s0 --port "socket=$TMP/x.sock,switch=s0,police-pps=0"
start_refused "police-pps without switch=" "police-pps=100: only with switch=NAME" \
	--port "socket=$TMP/x.sock,backend=null,police-pps=100"
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
	--port "name=b,socket=$TMP/b.sock,switch=s0,vlan=10,mac=$MB" \
	--port "name=d,socket=$TMP/d.sock,switch=s0,vlan=10" \
	--port "name=c,socket=$TMP/c.sock,switch=s0,vlan=20" \
	--port "name=t,socket=$TMP/t.sock,switch=s0,trunk=10:20" \
	--port "name=p,socket=$TMP/p.sock,switch=s0,vlan=30,police-pps=$POL_PPS" \
	--port "name=r,socket=$TMP/r.sock,switch=s0,vlan=30,queues=2" \
	--port "name=f,socket=$TMP/f.sock,switch=s0,vlan=30" \
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
	[[ " $* " == *" --check-seq "* ]] || VMS_NOSEQ=1
}
VMS=() VMS_NOSEQ=
wait_vms() {	# the sender is done: end the VMs' windows (SIGINT), collect
	# (a VM with --check-seq drains until 2 s pass without a frame; one
	# without waits only 0.2 s: frames still in flight get 0.5 s first)
	local p
	[ -z "$VMS_NOSEQ" ] || sleep 0.5
	for p in "${VMS[@]}"; do kill -INT "$p" 2> /dev/null; done
	for p in "${VMS[@]}"; do wait "$p"; done
	VMS=() VMS_NOSEQ=
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
b_rate() {	# B's frames/s over the last sender's window
	awk -v n="$(got b rx_frames)" -v s="$(grep -o '"duration_s": [0-9.]*' "$TMP/sender.json" | awk '{print $2}')" \
		'BEGIN { printf "%.0f", n / s }'
}
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
base=$(b_rate)	# the MAC flood below compares with this
# (B's one broadcast may reach D, or come before D is up)
check "unicast: D got none of A's frames ($(got d rx_frames))" [ "$(got d rx_frames)" -le 1 ]
txt=$("$VNETCTL" status --socket "$C")
check "status: B learned its MAC, then forgot it when its VM left (macs 0)" \
	grep -Eq "switch s0: vlan 10, macs 0, learned [1-9][0-9]*," <<< "$txt"

# --- a port's own MAC (mac=) is known before its guest sends anything -----
flooded() {
	python3 -c 'import json, sys
p = {x["name"]: x for x in json.loads(sys.argv[1])["ports"]}
print(p[sys.argv[2]]["switch"]["flooded"])' "$("$VNETCTL" status --json --socket "$C")" "$1"
}
f0=$(flooded a)
rx_vm b "$TMP/b.sock" --mode rx-only --check-seq
rx_vm d "$TMP/d.sock" --mode rx-only --check-seq
ready b d
sender "$TMP/a.sock" --dst-mac "$MB"
wait_vms
check "port MAC: B (rx only, never sent) got each of A's frames once, in order" once_in_order b
check "port MAC: D got none of them ($(got d rx_frames)), A flooded none ($(($(flooded a) - f0)))" \
	[ "$(got d rx_frames)" = 0 ] && [ "$(flooded a)" = "$f0" ]

# --- an rx-only VM on a port without mac= that announces itself (vnet-bench
# --announce: one broadcast frame, as a guest's gratuitous ARP) gets the frames
# to its MAC, and only it: the announcement taught the switch where it is
MD=02:00:00:00:00:0d
f0=$(flooded a)
rx_vm d "$TMP/d.sock" --mode rx-only --check-seq --announce --src-mac "$MD"
rx_vm b "$TMP/b.sock" --mode rx-only --check-seq
ready b d
sleep 0.3	# D's announcement
sender "$TMP/a.sock" --dst-mac "$MD"
wait_vms
check "announce: D (rx only, no mac=) got each of A's frames once, in order" once_in_order d
check "announce: B got none of them ($(got b rx_frames), D's announcement at most), A flooded none ($(($(flooded a) - f0)))" \
	[ "$(got b rx_frames)" -le 1 ] && [ "$(flooded a)" = "$f0" ]

# --- vnetctl switch show: after A->B traffic, A's and B's MACs on their ports
# both VMs stay connected (a port whose VM leaves forgets its MACs)
MA=02:00:00:00:00:0a
rx_vm b "$TMP/b.sock" --mode tx-only --frames 1 --src-mac "$MB"
ready b
sleep 0.3	# B's one frame: B learned
rx_vm a "$TMP/a.sock" --mode tx-only --frames 5 --src-mac "$MA" --dst-mac "$MB"
ready a b
sleep 0.3	# A's frames to B: A learned
show=$("$VNETCTL" switch show s0 --socket "$C")
showj=$("$VNETCTL" switch show s0 --json --socket "$C")
list=$("$VNETCTL" switch list --socket "$C")
listj=$("$VNETCTL" switch list --json --socket "$C")
prom=$("$VNETCTL" status --prometheus --socket "$C")
wait_vms
check "switch show: A's MAC on port a, B's on port b, vlan 10" \
	grep -q "^mac $MA vlan 10 port a age [0-9]*$" <<< "$show" &&
	grep -q "^mac $MB vlan 10 port b age [0-9]*$" <<< "$show"
check "switch show: port a (no mac=) holds only the MAC its VM sent from, not its made-up one" \
	grep -q "^port a: vlan 10, up, macs 1," <<< "$show"
check "switch show: the members with their VLANs, up, counters" \
	grep -q "^port a: vlan 10, up, macs [1-9][0-9]*, learned [1-9][0-9]*, mac_limit 0, flooded $N_FRAMES, drops queue_full=0 vlan=0 bad=0 police=0$" <<< "$show" &&
	grep -q "^port t: trunk 10,20, down, macs 0," <<< "$show" &&
	grep -q "^switch s0: ports 5, macs [2-9][0-9]* (at most 4096, 256 per port), ageing 300 s$" <<< "$show"
check "switch show --json: the same table and members" python3 -c '
import json, sys
s = json.loads(sys.argv[1])
t = {(e["mac"], e["vlan"]): e["port"] for e in s["table"]}
p = {x["name"]: x for x in s["ports"]}
sys.exit(not (s["name"] == "s0" and t.get((sys.argv[2], 10)) == "a" and t.get((sys.argv[3], 10)) == "b"
	      and len(t) == s["macs"] and all(e["age_s"] >= 0 for e in s["table"]) and p["a"]["up"] and p["a"]["macs"] >= 1
	      and p["b"]["learned"] >= 1 and p["c"]["vlans"] == "vlan 20" and not p["c"]["up"]
	      and p["a"]["drops"] == {"queue_full": 0, "vlan": 0, "bad": 0, "police": 0}))' "$showj" "$MA" "$MB"
check "switch list: s0 with its ports and MACs" \
	grep -Eq "^switch s0: ports [0-9]+, macs [2-9][0-9]* \(a b d c t( [a-z0-9]+)*\)$" <<< "$list"
check "switch list --json" python3 -c '
import json, sys
s = json.loads(sys.argv[1])["switches"]
sys.exit(not (len(s) == 1 and s[0]["name"] == "s0" and s[0]["macs"] >= 2
	      and s[0]["ports"][:5] == ["a", "b", "d", "c", "t"]))' "$listj"
check "Prometheus: the switch's counters by switch and port" \
	grep -q "^vnetd_switch_macs{switch=\"s0\"} [2-9][0-9]*$" <<< "$prom" &&
	grep -q "^vnetd_switch_port_macs{switch=\"s0\",port=\"a\"} [1-9][0-9]*$" <<< "$prom" &&
	grep -q "^vnetd_switch_learned_total{switch=\"s0\",port=\"b\"} [1-9]" <<< "$prom" &&
	grep -q "^vnetd_switch_flooded_total{switch=\"s0\",port=\"a\"} $N_FRAMES$" <<< "$prom" &&
	grep -q "^vnetd_switch_drops_total{switch=\"s0\",port=\"a\",reason=\"police\"} 0$" <<< "$prom" &&
	grep -q "^vnetd_switch_drops_total{switch=\"s0\",port=\"c\",reason=\"vlan\"} 0$" <<< "$prom"
if command -v promtool > /dev/null; then
	out=$(promtool check metrics <<< "$prom" 2>&1)
	check "promtool check metrics: clean with the switch's families${out:+ ($out)}" [ -z "$out" ]
else
	ok_skip "promtool check metrics with the switch's families" "promtool not installed"
fi
out=$("$VNETCTL" switch show nope --socket "$C" 2>&1)
check "switch show of an unknown switch: refused naming it and the declared ones ($out)" \
	[ "$out" = "error: switch show nope: no such switch (declared: s0)" ]
"$VNETCTL" switch show nope --socket "$C" > /dev/null 2>&1
check "switch show of an unknown switch: exit 1" [ $? = 1 ]
"$VNETCTL" switch show --socket "$C" > /dev/null 2>&1
check "switch show without NAME: usage error (exit 2)" [ $? = 2 ]

# --- policer and flow hash: P (police-pps=POL_PPS) sends 16 flows at twice
# its rate for 2 s to R (2 pairs): R gets POL_PPS/s (+- 5 %, the default
# 100 ms burst aside), on both of its pairs
rx_vm r "$TMP/r.sock" --mode rx-only -q 2 --no-check-seq
ready r
T0=$SECONDS
timeout 30 "$BENCH" --socket "$TMP/p.sock" --json --mode tx-only --no-check-seq -d 2 \
	--pps $((2 * POL_PPS)) --flows 16 --size 128 > "$TMP/sender.json" 2>&1
wait_vms
secs=$(grep -o '"duration_s": [0-9.]*' "$TMP/sender.json" | awk '{print $2}')
sent=$(field tx_frames "$(cat "$TMP/sender.json")")
rate=$(awk -v n="$(got r rx_frames)" -v b=$((POL_PPS / 10)) -v s="$secs" 'BEGIN { printf "%.0f", (n - b) / s }')
check "police: P sent $sent in ${secs}s, R got $rate/s after the burst (limit $POL_PPS/s +- 5 %; $(cut -d' ' -f1 /proc/loadavg) load)" \
	awk -v r="$rate" -v l="$POL_PPS" 'BEGIN { exit !(r >= l * 0.95 && r <= l * 1.05) }'
st=$("$VNETCTL" status --json --socket "$C")
check "police: status counts P's drops (sent - passed)" python3 -c '
import json, sys
p = {x["name"]: x for x in json.loads(sys.argv[1])["ports"]}
d = p["p"]["switch"]["drops"]["police"]
sys.exit(not (d > 0 and abs(d - (int(sys.argv[2]) - int(sys.argv[3]))) <= 64))' "$st" "$sent" "$(got r rx_frames)"
q=$(python3 -c '
import json, sys
print(" ".join(str(x["rx_frames"]) for x in json.load(open(sys.argv[1]))["queues"]))' "$TMP/r.json")
check "flow hash: R's two pairs both got P's 16 flows (frames per pair: $q)" \
	python3 -c 'import sys; a = [int(x) for x in sys.argv[1:]]; sys.exit(not (len(a) == 2 and min(a) > 0))' $q
echo "# policer and flow hash: $((SECONDS - T0)) s"

# --- a VM flooding random source MACs (F, vlan 30) leaves A -> B alone:
# the unicast run again, with F sending from a new MAC each frame
T0=$SECONDS
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$VPID/status"; }
timeout 30 "$BENCH" --socket "$TMP/f.sock" --json --mode tx-only --no-check-seq -d 40 \
	--rand-src-mac --pps 5000 > "$TMP/flood.json" 2>&1 &
FPID=$!
rx_vm b "$TMP/b.sock" --mode tx-only --frames 1 --src-mac "$MB" --check-seq
ready f b
sleep 0.3	# B's one frame; F's first 1500 MACs
rss0=$(rss)	# F and B connected: their memory is mapped by now
sender "$TMP/a.sock" --dst-mac "$MB"
rss1=$(rss)	# 1500 more of F's MACs, A's session come and gone
wait_vms
kill -INT "$FPID" 2> /dev/null
wait "$FPID"
check "MAC flood: B got each of A's frames once, in order" once_in_order b
flooded=$(b_rate)
check "MAC flood: B's rate $flooded/s with F flooding, $base/s without (>= 90 %)" \
	awk -v a="$flooded" -v b="$base" 'BEGIN { exit !(b > 0 && a >= 0.9 * b) }'
check "MAC flood: vnetd's RSS grew $((rss1 - rss0)) kB while F flooded (< 1024)" [ $((rss1 - rss0)) -lt 1024 ]
st=$("$VNETCTL" status --json --socket "$C")
check "MAC flood: F held to its 256 MACs (mac_limit counted)" python3 -c '
import json, sys
f = {x["name"]: x for x in json.loads(sys.argv[1])["ports"]}["f"]["switch"]
sys.exit(not (f["mac_limit"] > 0 and f["learned"] <= 256))' "$st"
echo "# MAC flood: $((SECONDS - T0)) s"

# --- offloads: A's 20000 B TSO frames, B takes TSO, D does not ------------
# 54 B of headers + 19946 B payload in 1448 B segments: 14 segments. B
# (GUEST_TSO4) gets TSO frames of 6 whole segments per slot: 3 per frame;
# D (no GUEST_CSUM/TSO) gets the 14 segments. Only the first piece holds
# vnet-bench's marker: the others count as foreign.
N_TSO=${SWITCH_TSO_FRAMES:-200}
NO_GUEST_OFFL=0x130419821	# the library's features less guest_csum/tso4/tso6
rx_vm b "$TMP/b.sock" --mode rx-only --no-check-seq
rx_vm d "$TMP/d.sock" --mode rx-only --no-check-seq --features "$NO_GUEST_OFFL"
ready b d
timeout 30 "$BENCH" --socket "$TMP/a.sock" --json --mode tx-only --no-check-seq -d 1.5 \
	-l 20000 --frames "$N_TSO" --pps 400 > "$TMP/sender.json" 2>&1
wait_vms
check "TSO: A sent $N_TSO frames of 20000 B" \
	[ "$(field tx_frames "$(cat "$TMP/sender.json")")" = "$N_TSO" ]
check "TSO: B (guest_tso4) got 3 TSO frames each ($(got b rx_frames), $(got b foreign) without a marker)" \
	[ "$(got b rx_frames)" = $((3 * N_TSO)) ] && [ "$(got b foreign)" = $((2 * N_TSO)) ]
check "TSO: D (no guest offloads) got 14 segments each ($(got d rx_frames), $(got d foreign) without a marker)" \
	[ "$(got d rx_frames)" = $((14 * N_TSO)) ] && [ "$(got d foreign)" = $((13 * N_TSO)) ]
st=$("$VNETCTL" status --json --socket "$C")
check "TSO: no drops (bad at A, queue_full at B and D)" python3 -c '
import json, sys
p = {x["name"]: x for x in json.loads(sys.argv[1])["ports"]}
sys.exit(not (p["a"]["switch"]["drops"]["bad"] == 0 and
	      p["b"]["switch"]["drops"]["queue_full"] == 0 and
	      p["d"]["switch"]["drops"]["queue_full"] == 0))' "$st"

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
add_refused "police-bps with a bad suffix" "'police-bps=10m': must be bits/s 8000..400000000000" \
	"name=x,socket=$TMP/x.sock,switch=s0,police-bps=10m"
add_refused "police-burst out of range" "'police-burst=5': must be 10..10000" \
	"name=x,socket=$TMP/x.sock,switch=s0,police-pps=10,police-burst=5"
check "the refusals changed nothing (8 ports listed)" \
	[ "$("$VNETCTL" port list --socket "$C" | grep -c "backend=switch")" = 8 ]

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

# --- anti-spoofing before learning: a mac-lock member (vlan 20) sending from
# a foreign source MAC: dropped and counted before the switch sees it, so no
# member gets it and the table does not learn it; its own MAC passes --------
MG=02:00:00:00:00:0c MX=02:00:00:00:00:66
out=$("$VNETCTL" port add "name=g,socket=$TMP/g.sock,switch=s0,vlan=20,mac=$MG,mac-lock" --socket "$C" 2>&1)
check "port add g (vlan 20, mac-lock): $out" [ -S "$TMP/g.sock" ]
spoofed_g() {
	python3 -c '
import json, sys
p = [x for x in json.loads(sys.argv[1])["ports"] if x["name"] == "g"][0]
print(sum(q["tx"]["drops"].get("spoofed", 0) for q in p["pairs"]))' "$("$VNETCTL" status --json --socket "$C")"
}
# E first: G sends as soon as it is up
rx_vm e "$TMP/e.sock" --mode rx-only
ready e
rx_vm g "$TMP/g.sock" --mode tx-only --frames 200 --src-mac "$MX"
ready g
# G's 200 frames: the status counters (read once a second) count them, 5 s at most
for _ in $(seq 50); do sp=$(spoofed_g); [ "$sp" = 200 ] && break; sleep 0.1; done
show=$("$VNETCTL" switch show s0 --socket "$C")
sp=$(spoofed_g)
wait_vms
check "mac-lock: G's 200 frames from a foreign MAC reached no member (E got $(got e rx_frames))" \
	[ "$(got e rx_frames)" = 0 ]
# port g's one MAC is its mac= (known at connect); flooded 0: the switch never saw G's frames
check "mac-lock: the switch did not learn the foreign MAC, nor flood G's frames" \
	eval '! grep -qi "^mac $MX " <<< "$show" && grep -q "^port g: vlan 20, up, macs 1, learned 1, mac_limit 0, flooded 0," <<< "$show"'
check "mac-lock: G's drops counted as spoofed ($sp of 200)" [ "$sp" = 200 ]
rx_vm e "$TMP/e.sock" --mode rx-only
ready e
rx_vm g "$TMP/g.sock" --mode tx-only --frames 5 --src-mac "$MG"
ready g
sleep 0.5	# G's 5 frames: learned
show=$("$VNETCTL" switch show s0 --socket "$C")
wait_vms
check "mac-lock: G's 5 frames from its own MAC reached E ($(got e rx_frames)) and G's MAC was learned" \
	[ "$(got e rx_frames)" = 5 ] && grep -q "^mac $MG vlan 20 port g age [0-9]*$" <<< "$show"
out=$("$VNETCTL" port del g --socket "$C" 2>&1)
check "port del g: $out" [ ! -S "$TMP/g.sock" ]
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
	check "uplink: switch show names the host station's port as the uplink" \
		grep -q "^mac $HU vlan 10 port uplink tap:$UP age [0-9]*$" \
		<<< "$("$VNETCTL" switch show s0 --socket "$C")"
}
if [ -n "$UPLINK" ]; then
	uplink_checks
else
	ok_skip "uplink: a TAP into a namespace" "$UP_WHY"
fi
check "vnetd still running" kill -0 "$VPID"
stop_pid "$VPID"

# --- "--switch NAME" lines of --config; SIGHUP adds and removes switches ---
CF=$TMP/ports.conf
C2=$TMP/ctl2.sock
printf -- '--switch s1 # a switch of the config file\nname=x,socket=%s,switch=s1,vlan=5\n' \
	"$TMP/x.sock" > "$CF"
printf -- '--switch a/b\n' > "$TMP/bad.conf"
start_refused "a bad --switch line in --config" "bad.conf:1: --switch a/b: must be letters" \
	--config "$TMP/bad.conf"
"$VNETD" --switch s0 --ctl-socket "$C2" --config "$CF" \
	--port "name=p,socket=$TMP/p.sock,switch=s0" 2> "$TMP/vnetd2.log" &
V2=$!
cleanup_pid "$V2"
wait_sock "$C2" 5 "$V2" || { echo "Bail out! vnetd --config did not start"; cat "$TMP/vnetd2.log"; exit 1; }
sw_list() { "$VNETCTL" switch list --socket "$C2" | tr '\n' ';'; }
hup() {	# write the config, SIGHUP, wait for the log line PATTERN
	local _
	printf -- "$2" "${@:3}" > "$CF"
	kill -HUP "$V2"
	for _ in $(seq 50); do grep -qF -- "$1" "$TMP/vnetd2.log" && return 0; sleep 0.1; done
	echo "# no log line '$1' after 5 s"; tail -3 "$TMP/vnetd2.log"
}
check "config: --switch s1 declared, port x on it ($(sw_list))" \
	[ "$(sw_list)" = "switch s0: ports 1, macs 0 (p);switch s1: ports 1, macs 0 (x);" ]
hup "error: SIGHUP: --switch s1: removed, but port y of --config still joins it (switch=s1)" \
	'name=y,socket=%s,switch=s1\n' "$TMP/y.sock"
check "SIGHUP removing s1 while a config port still joins it: refused, nothing changed ($(sw_list))" \
	[ "$(sw_list)" = "switch s0: ports 1, macs 0 (p);switch s1: ports 1, macs 0 (x);" ]
hup "SIGHUP: --switch s1: removed" '--switch s2\nname=y,socket=%s,switch=s2,vlan=7\n' "$TMP/y.sock"
check "SIGHUP: s2 declared, y on it, s1 and x gone ($(sw_list))" \
	[ "$(sw_list)" = "switch s0: ports 1, macs 0 (p);switch s2: ports 1, macs 0 (y);" ]
out=$("$VNETCTL" port add "name=z,socket=$TMP/z.sock,switch=s2,vlan=7" --socket "$C2" 2>&1)
check "port add z with switch=s2 (a switch of the config): $out" \
	grep -q "^port z: vlan 7, down," <<< "$("$VNETCTL" switch show s2 --socket "$C2")"
hup "error: SIGHUP: --switch s2: removed, but port z (command line or port add) is on it: remove it first (vnetctl port del z)" \
	'name=y,socket=%s\n' "$TMP/y.sock"
check "SIGHUP removing s2 while port z is on it: refused, nothing changed ($(sw_list))" \
	[ "$(sw_list)" = "switch s0: ports 1, macs 0 (p);switch s2: ports 2, macs 0 (y z);" ]
check "vnetd --config still running" kill -0 "$V2"
stop_pid "$V2"
exit "$FAILED"
