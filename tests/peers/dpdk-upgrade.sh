#!/usr/bin/env bash
# tests/peers/dpdk-upgrade.sh - vnetctl upgrade under DPDK testpmd's
# net_virtio_user: a frontend nobody here wrote carries frames on
# 2 queue pairs, split and packed, through vnetd --backend tap in a private
# netns while vnetd is replaced by a new process. Counted where the count
# survives the hand-over (the kernel's TAP counters, testpmd's own):
#   TX: testpmd txonly at full rate (more than 20000 frames, a loaded host
#       included); the upgrade runs mid-way; every frame
#       testpmd put on its TX rings reaches the TAP exactly once
#       (TAP rx_packets + rx_dropped = testpmd TX-packets): none lost in the
#       old process's batch, none replayed by the new one;
#   RX: frames written into the TAP while the upgrade runs reach testpmd
#       rxonly (testpmd RX + TAP queue overflow = frames sent);
# and testpmd's port never sees a link change (no reconnect). Reordering is
# checked by tests/integration/vnetd-upgrade.sh (vnet-bench --check-seq).
# Prints TAP lines; exits 77 with the reason when testpmd is missing or not root.
# needs: root dpdk python3 netns tun
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TAP_PREFIX="dpdk-upgrade: "
. "$TOP/tests/lib/common.sh"
. "$TOP/tests/lib/testpmd.sh"
VNETD=${VNET_VNETD:-$TOP/build/vnetd}
VNETCTL=$TOP/build/vnetctl
need_built "$VNETD" "$VNETCTL"
W=$(mktemp -d /tmp/vnet-peer-upg.XXXXXX)
cleanup_path "$W"
NS=vpupg$$ TAP=vpu$$
netns_new "$NS" || skip_all "cannot create netns $NS"
BPID='' TPID='' FIFO_FD='' TP_PREFIX=vpg$$
stop_all() {
	[ -n "$FIFO_FD" ] && { exec {FIFO_FD}>&-; FIFO_FD=''; }
	[ -n "$TPID" ] && stop_pid "$TPID" INT; TPID=''
	[ -n "$BPID" ] && stop_pid "$BPID" TERM; BPID=''
	rm -rf /var/run/dpdk/vpg$$-*
}
cleanup_run stop_all

start_vnetd() { # NAME
	SOCK=$W/$1.sock CTL=$W/$1.ctl BLOG=$W/$1.vnetd.log
	ip netns exec "$NS" "$VNETD" --socket "$SOCK" --backend tap --tap "$TAP" --queues 2 \
		--vhost-net off --ctl-socket "$CTL" > "$BLOG" 2>&1 < /dev/null &
	BPID=$!
	wait_sock "$SOCK" 10 "$BPID" || return 1
	ip -n "$NS" link set "$TAP" txqueuelen 10000 up
}
tap_stat() { ip netns exec "$NS" cat "/sys/class/net/$TAP/statistics/$1"; }
upgrade() { # NAME: vnetctl upgrade; sets BPID to the new vnetd
	local out rc old=$BPID new orc
	out=$(ip netns exec "$NS" "$VNETCTL" upgrade --socket "$CTL" 2>&1); rc=$?
	echo "# $1: vnetctl upgrade: rc $rc: $out"
	new=$(sed -n 's/.* ok pid \([0-9]*\).*/\1/p' <<< "$out")
	check "$1: vnetctl upgrade succeeded under testpmd" eval '[ "$rc" = 0 ] && [ -n "$new" ]'
	for _ in $(seq 50); do kill -0 "$old" 2>/dev/null || break; sleep 0.1; done
	wait "$old" 2>/dev/null; orc=$?
	check "$1: the old vnetd exited 0 ($orc)" [ "$orc" = 0 ]
	[ -n "$new" ] && BPID=$new
}

# tx_case NAME DEVARGS: testpmd txonly across the upgrade, counted on the TAP
tx_case() {
	local name=$1 dev=$2 r0 d0 got txp _
	start_vnetd "$name" || { not_ok "$name: vnetd listens"; stop_all; return; }
	start_testpmd "$name" 2 "$dev" || { not_ok "$name: testpmd port up"; stop_all; return; }
	r0=$(tap_stat rx_packets) d0=$(tap_stat rx_dropped)
	tp "set fwd txonly"; tp "start"; sleep 1
	upgrade "$name"
	sleep 1; tp "stop"; sleep 0.5
	read -r _ _ _ txp _ < <(port_stats)
	got=$(( $(tap_stat rx_packets) - r0 + $(tap_stat rx_dropped) - d0 ))
	echo "# $name: testpmd TX-packets $txp; TAP rx_packets + rx_dropped +$got"
	check "$name: every frame testpmd sent across the upgrade reached the TAP once ($got of ${txp:-?})" \
		eval '[ -n "$txp" ] && [ "$txp" -gt 20000 ] && [ "$got" = "$txp" ]'
	check "$name: testpmd saw no link change (no reconnect)" \
		eval '! grep -qiE "link state change|LSC|link down" "$TLOG"'
	tp "quit"; stop_all
}

# rx_case NAME DEVARGS: frames written into the TAP across the upgrade reach testpmd
rx_case() {
	local name=$1 dev=$2 n=20000 k0 kd rxp spid _
	start_vnetd "$name" || { not_ok "$name: vnetd listens"; stop_all; return; }
	start_testpmd "$name" 2 "$dev" || { not_ok "$name: testpmd port up"; stop_all; return; }
	tp "set fwd rxonly"; tp "start"; sleep 1
	k0=$(tap_stat tx_dropped)
	ip netns exec "$NS" python3 -c 'import socket,struct,sys,time
s=socket.socket(socket.AF_PACKET, socket.SOCK_RAW); s.bind((sys.argv[1], 0))
for i in range(int(sys.argv[2])):
    f=b"\xff"*6+b"\x02\x00\x00\x00\x00\x01"+b"\x08\x00"+bytes(20)+struct.pack("!HH",1000+i%64,9)+bytes(30)
    s.send(f)
    if i % 50 == 49: time.sleep(0.002)' "$TAP" "$n" &
	spid=$!
	sleep 0.5
	upgrade "$name"
	wait "$spid"
	rx_settle "$n"; tp "stop"; sleep 0.3
	read -r rxp _ < <(port_stats)
	kd=$(( $(tap_stat tx_dropped) - k0 ))
	echo "# $name: sent $n into the TAP across the upgrade; testpmd RX-packets ${rxp:-?}; TAP queue overflow $kd"
	# the kernel's own frames on a TAP that comes up (IPv6 ND, MLD) may add a few
	check "$name: every frame written into the TAP across the upgrade reached testpmd (${rxp:-?} + overflow $kd of $n)" \
		eval '[ -n "$rxp" ] && [ "$((rxp + kd))" -ge "$n" ] && [ "$rxp" -le $((n + 20)) ] && [ "$rxp" -ge $((n * 9 / 10)) ]'
	tp "quit"; stop_all
}

tx_case tx-split ""
tx_case tx-packed ",packed_vq=1"
rx_case rx-split ""
rx_case rx-packed ",packed_vq=1"
echo "1..$N"
exit $FAILED
