#!/usr/bin/env bash
# needs: root netns tun qemu10 busybox cpio python3
# A VM live-migrated from host 1 to host 2 keeps talking to a VM on host 2.
# Hosts h1 and h2 as in test-fabric-vxlan.sh (tests/guest/lib/fabric.sh: netns joined by a
# veth underlay, br0 + VXLAN vx0 on each, every vnetd and QEMU option from `vnetctl plan
# --underlay-mtu 1500 --bridge br0`). vnetd "a1" on h1 carries VM-A; on h2 vnetd "b" carries
# VM-B (it never moves) and a second vnetd "a2" the migration destination of VM-A (QEMU 10,
# -incoming, QMP `migrate` over a unix socket at 40 MiB/s as in test-migrate.sh).
# While A migrates, B pings A every 20 ms and both loop over HTTP downloads of the other's
# 2 MiB random blob, each checked against the sha256 its server computed, so one transfer
# each way spans the switch-over;
# the host stops them (GET /done from 10.88.0.254 on h2's br0) once each has finished one
# on the destination, and lets them power off (GET /end) only once both have stopped: each
# serves the other's download, so neither may leave while the other is still reading. Both bridges' forwarding tables are read before and after: before,
# A's MAC is on h1's TAP and on h2's vx0; after, on h2's TAP (a2's) and on h1's vx0, which
# only the announcement (vnetd's SEND_RARP, or the guest's) can do, within
# VNET_FABRIC_FDB_BOUND_MS (2000) of the end of the migration. Printed: QEMU's downtime,
# the longest run of lost pings, the time each bridge took to move A's MAC.
LIB=$(dirname "$0")/lib
Q10=$("$LIB/qemu10.sh" path) || { echo "SKIP: $Q10"; exit 77; }
export VNET_QEMU=$Q10
. "$LIB/vu-test.sh" || { echo "SKIP: tests/guest/lib/vu-test.sh missing"; exit 77; }
. "$LIB/fabric.sh" || { echo "SKIP: tests/guest/lib/fabric.sh missing"; exit 77; }
. "$LIB/mig-pair.sh" || { echo "SKIP: tests/guest/lib/mig-pair.sh missing"; exit 77; }
command -v bridge > /dev/null || vt_skip "bridge (iproute2) missing"
FB_CTL=$VT_TOP/build/vnetctl
[ -x "$FB_CTL" ] || vt_skip "build/vnetctl not built (run make)"
ip link add vxp$$ type vxlan id 1 dstport 4789 2> /dev/null ||
	vt_skip "the kernel cannot make a vxlan device"
ip link del vxp$$
vt_init fabric-migrate
echo "# QEMU: $("$VNET_QEMU" --version | head -n 1)"
MAC_A=52:54:00:88:00:01 MAC_B=52:54:00:88:00:02
IP_A=10.88.0.1 IP_B=10.88.0.2 IP_C=10.88.0.254
BOUND_MS=${VNET_FABRIC_FDB_BOUND_MS:-2000}
MIBPS=${VNET_MIGRATE_MIBPS:-40}
GPIDS=()

fm_cleanup() {
	local p n
	for p in "${GPIDS[@]+"${GPIDS[@]}"}"; do vt_kill_pid "$p"; done
	for p in "$VT_W"/q*.pid; do [ -s "$p" ] && vt_kill_pid "$(cat "$p")"; done
	for p in "${FB_VPID[@]+"${FB_VPID[@]}"}"; do vt_kill_pid "$p"; done
	for n in "${FB_H[@]+"${FB_H[@]}"}"; do ip netns del "$n" 2> /dev/null; done
}
cleanup_run fm_cleanup

# ---- hosts, three vnetd, the host's control server on h2 ---------------------------------
fb_hosts vnma$$ vnmb$$ || vt_finish
# shellcheck disable=SC2034  # read by vt_bg and vt_cleanup (vu-test.sh)
VT_NS=${FB_H[1]}	# vt_bg's helpers run on h2
fb_vnetd 0 a1 "$MAC_A" && fb_vnetd 1 b "$MAC_B" && fb_vnetd 1 a2 "$MAC_A" || vt_finish
ip -n "${FB_H[1]}" addr add "$IP_C/24" dev br0 || { vt_notok "control address on h2's br0"; vt_finish; }
: > "$VT_W/blob"
vt_bg python3 "$VT_LIB/mig-peer.py" "$VT_W/blob" "$VT_W/done" 8080
vt_step "h1: vnetd a1; h2: vnetd b, vnetd a2; all on br0"

# ---- the guests' side --------------------------------------------------------------------
# fm_script ROLE PEER: the guest script; B also pings A every 20 ms until the end
fm_script() {
	{ cat "$VT_LIB/prelude.sh"; echo "ROLE=$1 PEER=$2 C=$IP_C WHERE='the other host' VIA=''"
	  cat "$VT_LIB/mig-guest.sh"; echo 'exit $GFAILS'; } > "$VT_W/guest-$1.sh"
}

# fm_qemu ID ROLE IP MAC PORT [incoming]: QEMU ID (QMP qmp-ID.sock, console console-ID.log)
# for guest ROLE on vnetd PORT, with that port's planned options
fm_qemu() {
	local id=$1 extra=(-qmp "unix:$VT_W/qmp-$1.sock,server=on,wait=off") qa
	[ -n "${6:-}" ] && extra+=(-incoming "unix:$VT_W/mig.sock")
	mapfile -t qa < "$VT_W/qargs-$5"
	: > "$VT_W/console-$id.log"
	"$VT_GUEST" run --initrd "$VT_INITRD" --smp 1 --mem 256 --ip "$3/24" --mac "$4" \
		--script "$VT_W/guest-$2.sh" --pidfile "$VT_W/q-$id.pid" --log "$VT_W/console-$id.log" \
		--timeout 240 -- "${qa[@]}" "${extra[@]}" \
		> /dev/null 2> "$VT_W/run-$id.log" &
	GPIDS+=($!)
	wait_sock "$VT_W/qmp-$id.sock" 20 "$!" ||
		{ tail -n 5 "$VT_W/run-$id.log" | sed 's/^/# run: /'; vt_notok "QEMU $id started"; vt_finish; }
}



fm_script A "$IP_B"
fm_script B "$IP_A"
fm_qemu A1 A "$IP_A" "$MAC_A" a1
fm_qemu B B "$IP_B" "$MAC_B" b
if mp_wait_mark "$VT_W/console-A1.log" ready 120 && mp_wait_mark "$VT_W/console-B.log" ready 120; then
	vt_ok "VM-A on h1 and VM-B on h2 see each other"
else
	vt_notok "VM-A on h1 and VM-B on h2 see each other"
	vt_finish
fi
vt_step "both guests up, B pings A every 20 ms, downloads both ways"
sleep 2

# ---- forwarding tables before ------------------------------------------------------------
fdb1=$(fb_learned 0 "$MAC_A") fdb2=$(fb_learned 1 "$MAC_A")
vt_check "before: h1's br0 has A's MAC on h1's TAP (${fdb1:-none})" test "$fdb1" = "fbta1$$"
vt_check "before: h2's br0 has A's MAC on vx0 (${fdb2:-none})" test "$fdb2" = vx0
vt_check "before: h2's br0 has B's MAC on B's TAP" test "$(fb_learned 1 "$MAC_B")" = "fbtb$$"

# ---- the migration -----------------------------------------------------------------------
fm_qemu A2 A "$IP_A" "$MAC_A" a2 incoming
XB0=$(mp_xfers "$VT_W/console-B.log")
res=$(python3 "$VT_LIB/qmp.py" "$VT_W/qmp-A1.sock" migrate "unix:$VT_W/mig.sock" 60 "$MIBPS" 2>&1)
rc=$?
t0=$(date +%s%N)
# both bridges must move A's MAC: h2 to a2's TAP, h1 to vx0
t1='' t2='' fdb1='' fdb2=''
while [ $((($(date +%s%N) - t0) / 1000000)) -le "$BOUND_MS" ]; do
	now=$((($(date +%s%N) - t0) / 1000000))
	[ -z "$t1" ] && fdb1=$(fb_learned 0 "$MAC_A") && [ "$fdb1" = vx0 ] && t1=$now
	[ -z "$t2" ] && fdb2=$(fb_learned 1 "$MAC_A") && [ "$fdb2" = "fbta2$$" ] && t2=$now
	[ -n "$t1" ] && [ -n "$t2" ] && break
	sleep 0.02
done
vt_check "migration h1 -> h2 completed ($res)" test "$rc" = 0
vt_check "destination on h2 runs" python3 "$VT_LIB/qmp.py" "$VT_W/qmp-A2.sock" running 20
vt_check "after: h2's br0 has A's MAC on the destination's TAP within ${BOUND_MS} ms (${fdb2:-none} at ${t2:-never} ms)" test -n "$t2"
vt_check "after: h1's br0 has A's MAC on vx0 within ${BOUND_MS} ms (${fdb1:-none} at ${t1:-never} ms)" test -n "$t1"
python3 "$VT_LIB/qmp.py" "$VT_W/qmp-A1.sock" quit > /dev/null 2>&1
vt_step "migrated"

# ---- keep talking until each side finished a download after the switch-over -------------
mp_talk_out h1 h2
grep -a 'SEND_RARP' "$VT_W/backend.a2.log" | sed 's/^/# vnetd a2: /'
echo "# result: h1 -> h2 ${res#status=completed } ping gap ${gap:-?} ms ($ping), h2 fdb moved after ${t2:-never} ms, h1 fdb after ${t1:-never} ms"
for id in a1 b a2; do vt_check "vnetd $id still running" kill -0 "${FB_VPID[$id]}"; done
vt_finish
