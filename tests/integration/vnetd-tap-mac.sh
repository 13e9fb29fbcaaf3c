#!/usr/bin/env bash
# needs: root netns tun
# vnetd-tap-mac.sh - a TAP that vnetd or `vnetctl tap create` makes never becomes its
# bridge's MAC, so starting, stopping or restarting vnetd does not change the MAC every
# guest on that bridge has in its ARP cache for the host. A Linux bridge whose MAC was
# never set takes the lowest MAC of its ports; the TAPs get fe: first (as libvirt's) and
# the guest's last five bytes, so they sort above any real port and are the same after
# a restart. In a namespace of its own, no QEMU:
#   1. bridge br0 with an uplink (a veth whose MAC, fc:..., is above nearly every random
#      MAC the tun driver would give); vnetd starts with two ports (one with mac=) whose
#      TAPs join br0, stops, starts again: br0's MAC is the uplink's throughout
#   2. bridge br1 with vnetd's TAPs only (a host-only bridge): after a restart br1 has
#      the MAC it had before, and the TAPs theirs (in between it had another: such a
#      bridge needs its MAC pinned, which vnetctl plan prints)
#   3. vnetctl tap create --bridge br0, with and without --mac: fe: TAPs, br0 unchanged
#   4. a TAP the operator made, with a MAC of their choice: vnetd and vnetctl keep it
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
VNETD=${VNETD:-build/vnetd}
CTL=${CTL:-build/vnetctl}
need_built "$VNETD" "$CTL"
NS=vnmac$$
netns_new "$NS" || skip_all "ip netns add failed"
TMP=$(mktemp -d /tmp/vnetd-tapmac.XXXXXX)
cleanup_path "$TMP"
UPLINK_MAC=fc:00:00:00:00:01
GUEST_MAC=52:54:00:ab:cd:ef

mac_of() { ip -n "$NS" -o link show "$1" 2> /dev/null | grep -o 'link/ether [0-9a-f:]*' | cut -d' ' -f2; }
nsx() { ip netns exec "$NS" "$@"; }

# start_vnetd TAG TAP_A TAP_B BRIDGE: vnetd with ports a (mac=GUEST_MAC) and b, their TAPs
# on BRIDGE; VPID is its pid (ip netns exec execs it)
start_vnetd() {
	local tag=$1 ta=$2 tb=$3 br=$4 t _
	rm -f "$TMP/$tag".*.sock
	ip netns exec "$NS" "$VNETD" --port "socket=$TMP/$tag.a.sock,tap=$ta,mac=$GUEST_MAC,name=a" \
		--port "socket=$TMP/$tag.b.sock,tap=$tb,name=b" --ctl-socket "$TMP/$tag.ctl" \
		--sandbox off >> "$TMP/$tag.log" 2>&1 &
	VPID=$!
	cleanup_pid "$VPID"
	wait_sock "$TMP/$tag.b.sock" 10 "$VPID" || { not_ok "vnetd ($tag) listens: $(tail -3 "$TMP/$tag.log")"; return 1; }
	for t in "$ta" "$tb"; do
		for _ in $(seq 50); do [ -n "$(mac_of "$t")" ] && break; sleep 0.1; done
		ip -n "$NS" link set "$t" master "$br" up || { not_ok "$t joins $br"; return 1; }
	done
}

# 1. a bridge with an uplink
ip -n "$NS" link add br0 type bridge && ip -n "$NS" link set br0 up &&
	ip -n "$NS" link add up0 address "$UPLINK_MAC" type veth peer name up1 &&
	ip -n "$NS" link set up0 master br0 up && ip -n "$NS" link set up1 up ||
	skip_all "cannot make a bridge with a veth port in a namespace"
BR0=$(mac_of br0)
check "br0 takes its uplink's MAC ($BR0)" test "$BR0" = "$UPLINK_MAC"
start_vnetd u mta mtb br0 || exit 1
A1=$(mac_of mta) B1=$(mac_of mtb)
check "the TAP of a port with mac=$GUEST_MAC is fe:54:00:ab:cd:ef ($A1)" \
	test "$A1" = "fe:54:00:ab:cd:ef"
check "the TAP of a port without mac= starts with fe ($B1)" eval '[[ "$B1" == fe:* ]]'
check "br0 keeps its MAC with vnetd's TAPs in it ($(mac_of br0))" test "$(mac_of br0)" = "$BR0"
stop_pid "$VPID"
check "vnetd's TAPs are gone when it stops" eval '[ -z "$(mac_of mta)$(mac_of mtb)" ]'
check "br0 keeps its MAC when vnetd stops ($(mac_of br0))" test "$(mac_of br0)" = "$BR0"
start_vnetd u mta mtb br0 || exit 1
check "br0 keeps its MAC when vnetd starts again ($(mac_of br0))" test "$(mac_of br0)" = "$BR0"
check "after a restart the TAPs have the same MACs ($(mac_of mta) $(mac_of mtb))" \
	test "$(mac_of mta) $(mac_of mtb)" = "$A1 $B1"
stop_pid "$VPID"

# 2. a host-only bridge: vnetd's TAPs are all its ports
ip -n "$NS" link add br1 type bridge && ip -n "$NS" link set br1 up
start_vnetd h mha mhb br1 || exit 1
BR1=$(mac_of br1) A1=$(mac_of mha) B1=$(mac_of mhb)
stop_pid "$VPID"
check "the TAPs on br1 are gone when vnetd stops" eval '[ -z "$(mac_of mha)$(mac_of mhb)" ]'
start_vnetd h mha mhb br1 || exit 1
check "a host-only bridge has its MAC back after vnetd restarts ($BR1 -> $(mac_of br1))" \
	test "$(mac_of br1)" = "$BR1"
check "and its TAPs theirs ($A1 $B1 -> $(mac_of mha) $(mac_of mhb))" \
	test "$(mac_of mha) $(mac_of mhb)" = "$A1 $B1"
stop_pid "$VPID"

# 3. vnetctl tap create
cleanup_run "nsx '$CTL' tap delete mtc --force > /dev/null 2>&1; nsx '$CTL' tap delete mtd --force > /dev/null 2>&1"
if nsx "$CTL" tap create mtc --bridge br0 > "$TMP/c.out" 2>&1; then
	check "vnetctl tap create: the TAP's MAC starts with fe ($(mac_of mtc))" eval '[[ "$(mac_of mtc)" == fe:* ]]'
else
	not_ok "vnetctl tap create mtc --bridge br0: $(cat "$TMP/c.out")"
fi
if nsx "$CTL" tap create mtd --mac 52:54:00:01:02:03 --bridge br0 > "$TMP/d.out" 2>&1; then
	check "vnetctl tap create --mac 52:54:00:01:02:03: the TAP is fe:54:00:01:02:03 ($(mac_of mtd))" \
		test "$(mac_of mtd)" = "fe:54:00:01:02:03"
else
	not_ok "vnetctl tap create mtd --mac: $(cat "$TMP/d.out")"
fi
check "br0 keeps its MAC with vnetctl's TAPs in it ($(mac_of br0))" test "$(mac_of br0)" = "$BR0"
out=$(nsx "$CTL" tap create mte --mac 01:00:00:00:00:01 2>&1); rc=$?
check "vnetctl tap create --mac with a group MAC is refused, naming the flag ($rc: $out)" \
	eval '[ "$rc" = 2 ] && [[ "$out" == *"--mac '"'"'01:00:00:00:00:01'"'"'"*unicast* ]]'

# 4. the operator's own TAP keeps the operator's MAC
ip -n "$NS" tuntap add dev mto mode tap multi_queue vnet_hdr &&
	ip -n "$NS" link set mto address 02:00:00:00:00:05 up
cleanup_run "ip -n '$NS' link del mto 2> /dev/null"
nsx "$CTL" tap create mto > /dev/null 2>&1
check "vnetctl tap create on an existing TAP keeps its MAC ($(mac_of mto))" test "$(mac_of mto)" = 02:00:00:00:00:05
ip netns exec "$NS" "$VNETD" --socket "$TMP/o.sock" --tap mto --mac "$GUEST_MAC" --ctl-socket "$TMP/o.ctl" \
	--sandbox off > "$TMP/o.log" 2>&1 &
VPID=$!
cleanup_pid "$VPID"
if wait_sock "$TMP/o.sock" 10 "$VPID"; then
	check "vnetd on the operator's TAP keeps its MAC ($(mac_of mto))" test "$(mac_of mto)" = 02:00:00:00:00:05
else
	not_ok "vnetd on mto listens: $(tail -3 "$TMP/o.log")"
fi
stop_pid "$VPID"
echo "1..$N"
exit $FAILED
