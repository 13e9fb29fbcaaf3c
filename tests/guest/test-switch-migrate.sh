#!/usr/bin/env bash
# needs: root netns tun qemu10 busybox cpio python3
# A VM live-migrated from one port of vnetd's switch to another keeps talking to a VM on
# a third port of the same switch. One vnetd (in a netns) with `--switch s0` and three
# vhost-user access ports of VLAN 10 on it: b (VM-B, never moves), a1 (VM-A) and a2 (VM-A's
# migration destination: QEMU 10, -incoming, QMP `migrate` over a unix socket at 40 MiB/s
# as in test-migrate.sh). The guests' traffic never leaves the switch; the switch's uplink
# (`--switch s0,uplink=tap:IF,uplink-vlan=10`, the TAP holding 10.88.0.254 in the netns)
# only carries the host's control server (mig-peer.py: GET /done, GET /end).
# As in test-fabric-migrate.sh: while A migrates, B pings A every 20 ms and both loop over
# HTTP downloads of the other's 2 MiB random blob, each checked against the sha256 its
# server computed, so one transfer each way spans the switch-over; the host stops them
# once each has finished one after it, and lets them power off once both have stopped.
# The switch's MAC table (`vnetctl switch show s0 --json`) is polled every 20 ms from
# before the migration to after it: before, A's MAC is on a1 (and B's on b); after, A's
# MAC is on a2 alone and a1 holds one MAC fewer (only its own port MAC, 02:..., which no
# guest uses here), within VNET_SWITCH_MOVE_BOUND_MS (2000) of the end of the migration
# as qmp.py saw it: the announcement (vnetd's held SEND_RARP, or the guest's own frames)
# moves it at once, not the ageing. Printed: QEMU's downtime, the longest run of lost
# pings, the MAC move time (< 0: before qmp.py saw the migration complete) and each change
# the poll saw. VNET_SWITCH_GUEST_MEM (128 MB) is each guest's RAM.
LIB=$(dirname "$0")/lib
Q10=$("$LIB/qemu10.sh" path) || { echo "SKIP: $Q10"; exit 77; }
export VNET_QEMU=$Q10
. "$LIB/vu-test.sh" || { echo "SKIP: tests/guest/lib/vu-test.sh missing"; exit 77; }
. "$LIB/mig-pair.sh" || { echo "SKIP: tests/guest/lib/mig-pair.sh missing"; exit 77; }
CTL=$VT_TOP/build/vnetctl
[ -x "$CTL" ] || vt_skip "build/vnetctl not built (run make)"
vt_init switch-migrate
echo "# QEMU: $("$VNET_QEMU" --version | head -n 1)"
MAC_A=52:54:00:88:00:01 MAC_B=52:54:00:88:00:02
IP_A=10.88.0.1 IP_B=10.88.0.2 IP_C=10.88.0.254
BOUND_MS=${VNET_SWITCH_MOVE_BOUND_MS:-2000}
MIBPS=${VNET_MIGRATE_MIBPS:-40}
MEM=${VNET_SWITCH_GUEST_MEM:-128}
UP=swu$$
SW=$VT_W/ctl.sock
GPIDS=()

sm_cleanup() {
	local p
	for p in "${GPIDS[@]+"${GPIDS[@]}"}"; do vt_kill_pid "$p"; done
	for p in "$VT_W"/q-*.pid; do [ -s "$p" ] && vt_kill_pid "$(cat "$p")"; done
}
cleanup_run sm_cleanup

# ---- one vnetd, the switch and its three ports, the host's control server ----------------
vt_netns
ip netns exec "$VT_NS" "$VT_VNETD" --switch "s0,uplink=tap:$UP,uplink-vlan=10" --ctl-socket "$SW" \
	--port "name=b,socket=$VT_W/b.sock,switch=s0,vlan=10" \
	--port "name=a1,socket=$VT_W/a1.sock,switch=s0,vlan=10" \
	--port "name=a2,socket=$VT_W/a2.sock,switch=s0,vlan=10" \
	> "$VT_W/backend.switch.log" 2>&1 < /dev/null &
VT_BPID=$!
wait_sock "$VT_W/a2.sock" 10 "$VT_BPID" && wait_sock "$SW" 10 "$VT_BPID" ||
	{ tail -n 5 "$VT_W/backend.switch.log" | sed 's/^/# vnetd: /'; vt_notok "vnetd --switch s0 with 3 ports started"; vt_finish; }
for _ in $(seq 50); do ip -n "$VT_NS" link show "$UP" > /dev/null 2>&1 && break; sleep 0.1; done
ip -n "$VT_NS" addr add "$IP_C/24" dev "$UP" && ip -n "$VT_NS" link set "$UP" up ||
	{ vt_notok "control address on the switch's uplink $UP"; vt_finish; }
: > "$VT_W/blob"
vt_bg python3 "$VT_LIB/mig-peer.py" "$VT_W/blob" "$VT_W/done" 8080
vt_step "vnetd: switch s0, ports b a1 a2, uplink $UP"

# ---- the switch's MAC table ---------------------------------------------------------------
# sm_poll MAC STARTFILE STOPFILE: reads s0's table (`vnetctl switch show s0 --json`),
# one python3 for all reads (it takes seconds to start on a loaded machine), every 200 ms
# until STARTFILE exists, then every 20 ms until STOPFILE exists. Prints the first read
# once STARTFILE exists as "first" lines, then "at NS PORTS MACS_A1" (NS: date +%s%N when
# the read returned; PORTS: the ports MAC is on, comma separated, or "-"; MACS_A1: port
# a1's count of its MACs) whenever that pair changes, then the last read as "last" lines.
# A read is "mac MAC PORT" per entry and "macs PORT N" per port.
sm_poll() {
	python3 - "$CTL" "$SW" "$@" << 'EOP'
import json, os, subprocess, sys, time
ctl, sock, mac, start, stop = sys.argv[1], sys.argv[2], sys.argv[3].lower(), sys.argv[4], sys.argv[5]
def table():
    try:
        j = json.loads(subprocess.run([ctl, "switch", "show", "s0", "--json", "--socket", sock],
                                      capture_output=True, text=True).stdout)
    except ValueError:
        return []
    return ([("mac", e["mac"].lower(), e["port"]) for e in j["table"]] +
            [("macs", p["name"], p["macs"]) for p in j["ports"]])
while not os.path.exists(start):
    time.sleep(0.2)
t, last = table(), None
for e in t:
    print("first", *e)
while True:
    now = (",".join(e[2] for e in t if e[0] == "mac" and e[1] == mac) or "-",
           "".join(str(e[2]) for e in t if e[0] == "macs" and e[1] == "a1") or "?")
    if now != last:
        print("at", time.time_ns(), *now, flush=True)
        last = now
    if os.path.exists(stop):
        break
    time.sleep(0.02)
    t = table()
for e in t:
    print("last", *e)
EOP
}
# sm_read WHICH: the "first" or "last" read of the poll, without that word
sm_read() { sed -n "s/^$1 //p" "$VT_W/poll.log"; }
# sm_on TABLE MAC: the ports MAC is on (space separated; "" if none)
sm_on() { awk -v m="$2" '$1 == "mac" && $2 == m {printf "%s%s", s, $3; s = " "}' <<< "$1"; }
# sm_macs TABLE PORT: how many MACs PORT holds by its own count
sm_macs() { awk -v p="$2" '$1 == "macs" && $2 == p {print $3}' <<< "$1"; }

# ---- the guests' side ---------------------------------------------------------------------
# sm_script ROLE PEER: the guest script; B also pings A every 20 ms until the end
sm_script() {
	{ cat "$VT_LIB/prelude.sh"
	  echo "ROLE=$1 PEER=$2 C=$IP_C WHERE='the other switch port' VIA=' through the uplink'"
	  cat "$VT_LIB/mig-guest.sh"; echo 'exit $GFAILS'; } > "$VT_W/guest-$1.sh"
}

# sm_qemu ID ROLE IP MAC PORT [incoming]: QEMU ID (QMP qmp-ID.sock, console console-ID.log)
# for guest ROLE on switch port PORT
sm_qemu() {
	local id=$1 extra=(-qmp "unix:$VT_W/qmp-$1.sock,server=on,wait=off")
	[ -n "${6:-}" ] && extra+=(-incoming "unix:$VT_W/mig.sock")
	: > "$VT_W/console-$id.log"
	"$VT_GUEST" run --initrd "$VT_INITRD" --smp 1 --queues 1 --mem "$MEM" --ip "$3/24" --mac "$4" \
		--vu "$VT_W/$5.sock" --script "$VT_W/guest-$2.sh" --pidfile "$VT_W/q-$id.pid" \
		--log "$VT_W/console-$id.log" --timeout 240 -- "${extra[@]}" \
		> /dev/null 2> "$VT_W/run-$id.log" &
	GPIDS+=($!)
	wait_sock "$VT_W/qmp-$id.sock" 20 "$!" ||
		{ tail -n 5 "$VT_W/run-$id.log" | sed 's/^/# run: /'; vt_notok "QEMU $id started"; vt_finish; }
}



sm_script A "$IP_B"
sm_script B "$IP_A"
# the table is polled from before the migration to after it, so the move is seen when it
# happens, whatever the load; the poller and the destination start while the guests boot
sm_poll "$MAC_A" "$VT_W/poll.start" "$VT_W/poll.stop" > "$VT_W/poll.log" 2>&1 &
POLL=$!
GPIDS+=("$POLL")
sm_qemu A1 A "$IP_A" "$MAC_A" a1
sm_qemu B B "$IP_B" "$MAC_B" b
sm_qemu A2 A "$IP_A" "$MAC_A" a2 incoming
if mp_wait_mark "$VT_W/console-A1.log" ready 120 && mp_wait_mark "$VT_W/console-B.log" ready 120; then
	vt_ok "VM-A on port a1 and VM-B on port b see each other"
else
	vt_notok "VM-A on port a1 and VM-B on port b see each other"
	vt_finish
fi
vt_step "both guests up, B pings A every 20 ms, downloads both ways"

# ---- the MAC table before, the migration, the table after -------------------------------
touch "$VT_W/poll.start"
for _ in $(seq 300); do grep -q '^at ' "$VT_W/poll.log" && break; sleep 0.1; done
grep -q '^at ' "$VT_W/poll.log" || { vt_notok "vnetctl switch show s0 --json read"; vt_finish; }
XB0=$(mp_xfers "$VT_W/console-B.log")
res=$(python3 "$VT_LIB/qmp.py" "$VT_W/qmp-A1.sock" migrate "unix:$VT_W/mig.sock" 60 "$MIBPS" 2>&1)
rc=$?
t0=$(date +%s%N)
vt_step "migration over"
# the destination runs? (python3 takes seconds to start on a loaded machine: meanwhile)
python3 "$VT_LIB/qmp.py" "$VT_W/qmp-A2.sock" running 20 > "$VT_W/running.log" 2>&1 &
RUN=$!
# A's MAC must move to a2 (and be there alone), a1 must forget it: the held RARP or the
# guest's own frames. tm: ms from the end of the migration (as qmp.py saw it: the move may
# come first, < 0) to the first read that showed it
mv='' tm=''
for _ in $(seq 600); do
	mv=$(awk '$1 == "at" && $3 == "a2" {print $2; exit}' "$VT_W/poll.log")
	[ -n "$mv" ] && break
	[ $((($(date +%s%N) - t0) / 1000000)) -gt "$BOUND_MS" ] && break
	sleep 0.05
done
touch "$VT_W/poll.stop"
wait "$POLL"
tab=$(sm_read first)
sed 's/^/# before: /' <<< "$tab"
onA=$(sm_on "$tab" "$MAC_A") onB=$(sm_on "$tab" "$MAC_B") m1b=$(sm_macs "$tab" a1)
vt_check "before: A's MAC is on port a1 (${onA:-none})" test "$onA" = a1
vt_check "before: B's MAC is on port b (${onB:-none})" test "$onB" = b
grep '^at ' "$VT_W/poll.log" | awk -v t0="$t0" '{printf "# poll: %+d ms: A on %s, a1 holds %s\n", ($2 - t0) / 1e6, $3, $4}'
[ -n "$mv" ] && tm=$(((mv - t0) / 1000000))
tab=$(sm_read last)
onA=$(sm_on "$tab" "$MAC_A") m1=$(sm_macs "$tab" a1)
sed 's/^/# after: /' <<< "$tab"
vt_check "migration a1 -> a2 completed ($res)" test "$rc" = 0
vt_check "destination on port a2 runs" wait "$RUN"
vt_check "after: A's MAC is on port a2 alone within ${BOUND_MS} ms of the migration's end (at ${tm:-never} ms)" \
	test -n "$tm" -a "${tm:-0}" -le "$BOUND_MS"
vt_check "after: A's MAC stayed on a2 alone (${onA:-none} at the last read)" test "$onA" = a2
# a1 keeps its own MAC (mac=, 02:...: not the guest's) and nothing else; read while the
# source QEMU is still connected: the move made a1 forget, not the port's leaving
vt_check "after: port a1 forgot A's MAC (a1 holds ${m1:-?} MACs, ${m1b:-?} before)" \
	test -n "$m1" -a "$((m1b - 1))" = "$m1"
python3 "$VT_LIB/qmp.py" "$VT_W/qmp-A1.sock" quit > /dev/null 2>&1 &
GPIDS+=($!)
vt_step "migrated"

# ---- keep talking until each side finished a download after the switch-over -------------
mp_talk_out a1 a2
grep -a 'SEND_RARP' "$VT_W/backend.switch.log" | sed 's/^/# vnetd: /'
echo "# result: a1 -> a2 ${res#status=completed } ping gap ${gap:-?} ms ($ping), MAC moved to a2 after ${tm:-never} ms"
vt_check "vnetd still running" vt_backend_alive
vt_finish
