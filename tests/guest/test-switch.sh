#!/usr/bin/env bash
# Guest scenario: three Linux guests on one vnetd switch (--switch s0): A and B on
# vlan=10, C on vlan=20, one queue pair each, 1 vCPU and the smallest RAM that boots
# (VNET_SWITCH_GUEST_MEM, default 128 MB), booted in parallel. The switch offers
# checksum and TSO offloads (docs/vnetd.md): a guest's TSO frame reaches the other as
# one or more frames (slot-sized TSO frames, or segments), never fewer; what ethtool -k
# says is printed.
# A barrier keeps the checks meaningful: each guest says "up" on its console once its
# carrier is up, and waits for the host's "go" on a second serial port; C's probes only
# count while A and B are up, and everyone waits for "end" until the host has read
# vnetctl status. Checks: A and B ping each other, iperf3 A -> B (rate printed); C
# reaches neither (ping), A does not reach C; vnetctl status agrees: C received no frame,
# its own ARP requests were flooded (in vlan 20, to nobody), since "go" the frames A sent
# reached B and B's reached A (the ring counters match but for frames in flight), no
# frame was dropped for a full queue or a foreign VLAN, A and B learned their MACs.
# The switch has an uplink (uplink=tap:IF,uplink-vlan=10): vnetd runs in a namespace
# of its own, where its uplink TAP is on a Linux bridge with an address, a station of
# the host network behind the uplink. Once the guests are done (their counters read), the
# station pings A and B and gets no reply from C (vlan 20); vnetctl status shows the
# uplink learned it. Then a guest behind the uplink: C has a second NIC, QEMU's own
# virtio-net on a TAP (no vnetd), unused so far; its TAP moves onto br0, C takes its
# switch NIC down and IP_C2 on the second one, and pings A and B through the uplink.
# A guest that does not boot (a TCG panic under load) is booted once more; the others wait.
# needs: root netns tun qemu busybox cpio python3
. "$(dirname "$0")/lib/vu-test.sh"
. "$VT_LIB/guests.sh"
MEM=${VNET_SWITCH_GUEST_MEM:-128}
SECS=${VNET_SWITCH_IPERF_SECS:-2}	# the rate is printed; asserted: > 0
vt_init switch
IP_A=10.77.0.11 IP_B=10.77.0.12 IP_C=10.77.0.13 IP_H=10.77.0.14 IP_C2=10.77.0.15
CTL=$VT_W/ctl.sock
UP=vsu$$	# the uplink's TAP, on bridge br0 (address IP_H) in vnetd's namespace
CT=vsc$$	# C's second NIC's TAP (QEMU makes it here; moved onto br0 later)
MAC_C2=52:54:00:12:34:1c
vt_netns
# no IPv6 chatter from the bridge into the switch before the counters are read
ip netns exec "$VT_NS" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.all.disable_ipv6=1
ip -n "$VT_NS" link add br0 type bridge && ip -n "$VT_NS" addr add "$IP_H/24" dev br0 &&
	ip -n "$VT_NS" link set br0 up || { vt_notok "bridge br0 in namespace $VT_NS"; exit 1; }
ip netns exec "$VT_NS" "$VT_VNETD" --switch "s0,uplink=tap:$UP,uplink-vlan=10" --ctl-socket "$CTL" \
	--port "name=a,socket=$VT_W/a.sock,switch=s0,vlan=10" \
	--port "name=b,socket=$VT_W/b.sock,switch=s0,vlan=10" \
	--port "name=c,socket=$VT_W/c.sock,switch=s0,vlan=20" \
	> "$VT_W/backend.switch.log" 2>&1 < /dev/null &
VT_BPID=$!
wait_sock "$VT_W/c.sock" 10 "$VT_BPID" ||
	{ tail -n 5 "$VT_W/backend.switch.log"; vt_notok "vnetd --switch s0 with 3 ports and an uplink started"; exit 1; }
ip -n "$VT_NS" link set "$UP" master br0 ||
	{ vt_notok "uplink TAP $UP on br0 (ip link set $UP master br0)"; exit 1; }

script() {	# ID: the guest script of A, B or C
	echo "A=$IP_A B=$IP_B C=$IP_C C2=$IP_C2 MAC_C2=$MAC_C2 SECS=$SECS"
	cat << 'EOG'
ethtool -k eth0 | grep -E '^(tx-checksumming|tcp-segmentation-offload):' | sed 's/^/  ethtool -k eth0: /'
ping_noloss() { ping -c 5 -i 0.2 -W 2 $1 > /tmp/ping.log 2>&1; tail -n 2 /tmp/ping.log; grep -q ' 0% packet loss' /tmp/ping.log; }
noreply() { ! ping -c 3 -i 0.2 -W 1 $1 > /dev/null 2>&1; }
rate() {
	timeout $((SECS + 20)) iperf3 -c $B -t $SECS > /tmp/ip.log 2>&1 || { tail -n 3 /tmp/ip.log; return 1; }
	grep receiver /tmp/ip.log | sed 's/^/  iperf3: /'
	_r=$(awk '/receiver/ { v = $7; u = $8; if (u ~ /^G/) v *= 1000; if (u ~ /^K/) v /= 1000; print v }' /tmp/ip.log)
	echo "VNET-RATE ab ${_r:-0}"
	awk -v r="${_r:-0}" 'BEGIN { exit !(r > 0) }'
}
gcheck "eth0 carrier up" gwait_oper up 30
EOG
	case $1 in
	a) cat << 'EOG'
gmark up
gs_recv go
gcheck "first ping reply from B ($B, vlan 10)" gping_wait $B 30
gcheck "ping -c 5 B: no loss" ping_noloss $B
gcheck "iperf3 A -> B (TCP, ${SECS}s)" rate
gcheck "no reply from C ($C, vlan 20)" noreply $C
gmark done
gs_recv end
EOG
	;;
	b) cat << 'EOG'
iperf3 -s -D
gmark up
gs_recv go
gcheck "first ping reply from A ($A, vlan 10)" gping_wait $A 30
gmark done
gs_recv end
EOG
	;;
	c) cat << 'EOG'
gmark up
gs_recv go
gcheck "no reply from A ($A, vlan 10)" noreply $A
gcheck "no reply from B ($B, vlan 10)" noreply $B
gmark done
gs_recv uplink
# behind the uplink: the NIC on the host bridge's TAP (found by its MAC), the switch's down
for _d in /sys/class/net/*; do [ "$(cat $_d/address)" = $MAC_C2 ] && IF2=${_d##*/}; done
ip link set eth0 down
ip addr add $C2/24 dev ${IF2:-none} && ip link set ${IF2:-none} up
gcheck "behind the uplink (${IF2:-no NIC with $MAC_C2} on the host bridge): first ping reply from A ($A)" gping_wait $A 30
gcheck "behind the uplink: ping -c 5 B: no loss" ping_noloss $B
gmark done2
gs_recv end
EOG
	;;
	esac
}
declare -A IP=([a]=$IP_A [b]=$IP_B [c]=$IP_C) MAC=([a]=52:54:00:12:34:0a [b]=52:54:00:12:34:0b [c]=52:54:00:12:34:0c)
boot() {
	local nic2=()
	[ "$1" = c ] && nic2=(-- -netdev "tap,id=up0,ifname=$CT,script=no,downscript=no"
		-device "virtio-net-pci,netdev=up0,mac=$MAC_C2")
	gs_start "$1" --ctl --vu "$VT_W/$1.sock" --ip "${IP[$1]}/24" --mac "${MAC[$1]}" --smp 1 \
		--mem "$MEM" --timeout 240 "${nic2[@]+"${nic2[@]}"}" < <(script "$1")
}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$SECONDS
for g in a b c; do boot $g; done
# every guest up (its carrier); one that never booted is booted once more
for g in a b c; do
	if ! gs_mark_wait $g up 150; then
		gs_running $g && continue
		if ! gs_wait $g; then
			echo "# guest $g: booting it once more"
			boot $g
			gs_mark_wait $g up 150
		fi
	fi
done
vt_step "3 guests up in $((SECONDS - t0))s (${MEM} MB, 1 vCPU each; load before: $load0)"
js0=$("$VT_TOP/build/vnetctl" status --json --socket "$CTL" 2>&1)
for g in a b c; do gs_send $g go; done
for g in a b c; do gs_mark_wait $g "done" 120 || echo "# guest $g did not reach its end"; done
js=$("$VT_TOP/build/vnetctl" status --json --socket "$CTL" 2>&1)
"$VT_TOP/build/vnetctl" status --socket "$CTL" 2>&1 | grep -E '^port|switch s0:|    (rx|tx):' | cut -c1-140 | sed 's/^/# status: /'
# the station behind the uplink, while the guests wait for "end" (after the counters
# above: its frames are not A's and B's); the three probes at once
# (busybox's ping: this test needs busybox, not iputils-ping)
hping() { ip netns exec "$VT_NS" busybox ping -c 3 -i 0.3 -W 3 "$1" > "$VT_W/hping.$1" 2>&1; }
hping "$IP_A" & pa=$!
hping "$IP_B" & pb=$!
hping "$IP_C" & pc=$!
wait $pa; ra=$?
wait $pb; rb=$?
wait $pc; rc=$?
vt_check "uplink: the station behind it ($IP_H on br0) pings A ($(grep -o '[0-9]*% packet loss' "$VT_W/hping.$IP_A"))" test "$ra" = 0
vt_check "uplink: the station behind it pings B ($(grep -o '[0-9]*% packet loss' "$VT_W/hping.$IP_B"))" test "$rb" = 0
vt_check "uplink: the station behind it gets no reply from C (vlan 20)" test "$rc" != 0
up_line=$("$VT_TOP/build/vnetctl" status --socket "$CTL" 2>&1 | grep "^switch s0: uplink tap:$UP")
echo "# status: $up_line"
vt_check "uplink: vnetctl status shows it on vlan 10, the station learned behind it" \
	grep -qE "^switch s0: uplink tap:$UP, vlan 10, macs [1-9]" <<< "$up_line"
# guest C behind the uplink: its second NIC's TAP onto br0, then C pings A and B
if ip link set "$CT" netns "$VT_NS" && ip -n "$VT_NS" link set "$CT" master br0 &&
   ip -n "$VT_NS" link set "$CT" up; then
	gs_send c uplink
	gs_mark_wait c done2 90 || echo "# guest c did not finish its checks behind the uplink"
else
	vt_notok "C's second NIC's TAP $CT onto br0 in $VT_NS"
fi
for g in a b c; do gs_send $g end; done
for g in a b c; do gs_wait $g; gs_report $g; done
vt_step "guests done in $((SECONDS - t0))s, load $(cut -d' ' -f1-3 /proc/loadavg)"

# vnetd's view, read while all three guests were up: one python3 for all of it (each
# start costs seconds on a loaded machine); sets rx_a tx_a flooded_a learned_a drops_a ...
# and drx_a dtx_a: the frames since "go" (before it, a guest's early frames may have been
# flooded while another was not connected yet)
eval "$(python3 -c '
import json, sys
old = {p["name"]: p["pairs"][0] for p in json.loads(sys.argv[2])["ports"]}
for p in json.loads(sys.argv[1])["ports"]:
    n, sw, q = p["name"], p["switch"], p["pairs"][0]
    print("rx_%s=%d tx_%s=%d flooded_%s=%d learned_%s=%d drops_%s=%d" % (n, q["rx"]["packets"],
          n, q["tx"]["packets"], n, sw["flooded"], n, sw["learned"], n, sum(sw["drops"].values())))
    print("drx_%s=%d dtx_%s=%d" % (n, q["rx"]["packets"] - old[n]["rx"]["packets"],
          n, q["tx"]["packets"] - old[n]["tx"]["packets"]))
    print("echo \"# port %s: rx (to guest) %d, tx (from guest) %d, macs %d, learned %d, flooded %d, drops %s\"" % (n,
          q["rx"]["packets"], q["tx"]["packets"], sw["macs"], sw["learned"], sw["flooded"],
          " ".join("%s=%d" % kv for kv in sw["drops"].items())))' "$js" "$js0")"
vt_check "status: C (vlan 20) received no frame, sent ${tx_c:-?}" test "${rx_c:-1}" = 0 -a "${tx_c:-0}" -gt 0
vt_check "status: C's frames were flooded (in vlan 20: to nobody)" test "${flooded_c:-0}" -gt 0
# the two readings are not atomic: a frame between the rings at either may be counted on
# one side only (up to 2); a TSO frame may arrive as several, never as fewer
atleast() { [ "$1" -gt 0 ] && [ $(($1 - $2)) -le 2 ]; }
ab_match() { atleast "${dtx_a:-0}" "${drx_b:-0}" && atleast "${dtx_b:-0}" "${drx_a:-0}"; }
vt_check "status: since go, the frames A sent reached B, and B's reached A (A tx ${dtx_a:-?}, B rx ${drx_b:-?}; B tx ${dtx_b:-?}, A rx ${drx_a:-?}; at least as many, 2 in flight)" \
	ab_match
vt_check "status: A and B each learned their MAC" test "${learned_a:-0}" -ge 1 -a "${learned_b:-0}" -ge 1
vt_check "status: no drops for a full queue, a foreign VLAN or a bad frame on any port" \
	test "${drops_a:-1}${drops_b:-1}${drops_c:-1}" = 000
r=$(grep -a -o 'VNET-RATE ab [0-9.]*' "$VT_W/a.console" | tail -n 1 | cut -d' ' -f3)
echo "# SWITCH-GUESTS iperf3 A -> B ${r:-?} Mbit/s (${SECS}s, TCG, 1 vCPU); 3 guests in $((SECONDS - t0))s; load $(cut -d' ' -f1-3 /proc/loadavg)"
vt_check "vnetd still running after the guests powered off" vt_backend_alive
vt_finish
