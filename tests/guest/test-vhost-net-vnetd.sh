#!/usr/bin/env bash
# Guest scenario: vnetd itself with the kernel vhost-net offload, end to end.
#
# Host: `vnetd --vhost-net on --backend tap` must refuse to start (exit 1) with the
# operator message naming /dev/vhost-net (this host has no such device).
# Guest (tests/guest/lib, Debian kernel, vhost_net loaded): a TAP in the guest,
# `vnetd --backend tap --vhost-net on|off`, driven by the bundled frontend vnet-bench
# (split rings). TX: vnet-bench --mode tx-only, frames counted on the TAP (rx_packets).
# RX: tests/guest/vhost-net-txgen.c sends frames out of the TAP through an AF_PACKET
# socket, vnet-bench --mode rx-only counts them (and the TAP's tx_packets). Checks:
# `on` starts there, `vnetctl status` says vhost-net per pair while vnetd's per-ring
# userspace counters stay 0 and vnetd's own CPU time stays near zero, a second connection
# is offloaded again, ring positions survive a stop + backend restart + reconnect
# (vnet-bench --spawn --restart-at), and `off` runs the same workload on the userspace path.
# Benchmark: the same workloads with on and off: frames/s and vnetd's CPU time per frame
# (utime+stime of all its threads, /proc/PID/stat), plus the kernel vhost worker's.
#
# Output: TAP lines; "# VHOST-BENCH ..." lines. Exit: 0 passed, 1 failed, 77 skipped.
# Environment: VNET_VKD_SECS (bench seconds, default 4), VNET_VKD_FRAMES (RX frames,
# default 20000).
# needs: root qemu busybox cpio
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
GUEST=$TOP/tests/guest/lib/guest.sh
SECS=${VNET_VKD_SECS:-4}
FRAMES=${VNET_VKD_FRAMES:-20000}
TAP_PREFIX="vhost-net-vnetd: "
. "$TOP/tests/lib/common.sh"


for b in vnetd vnetctl vnet-bench; do
	[ -x "$TOP/build/$b" ] || skip_all "build/$b missing (run make first)"
done

W=$(mktemp -d /tmp/vnet-vkd-test.XXXXXX)
cleanup_path "$W"

# host: --vhost-net on refuses with the operator message (exit 1)
if [ -e /dev/vhost-net ]; then
	ok_skip "on_fails_on_host_with_operator_message" "this host has /dev/vhost-net"
else
	timeout 20 "$TOP/build/vnetd" --backend tap --tap "vkh$$" --vhost-net on \
		--socket "$W/h.sock" --ctl-socket "$W/h.ctl" > "$W/host.log" 2>&1
	rc=$?
	msg=$(grep -m1 -- '--vhost-net on:' "$W/host.log")
	echo "# host: rc=$rc: $msg"
	if [ "$rc" = 1 ] && echo "$msg" | grep -q '/dev/vhost-net is missing' &&
		echo "$msg" | grep -q 'modprobe vhost_net'; then
		tap_result ok "on_fails_on_host_with_operator_message"
	else
		tap_result notok "on_fails_on_host_with_operator_message" "rc=$rc, $(tail -n 1 "$W/host.log")"
	fi
fi

[ -x "$GUEST" ] || skip_all "tests/guest/lib/guest.sh missing (shared guest tooling)"

# the helper: static, so it runs in the busybox guest as is (make guest-tools)
if ! make -s -C "$TOP" build/guest/vhost-net-txgen > "$W/cc.log" 2>&1; then
	grep -q "cannot find -lc" "$W/cc.log" && skip_all "no static libc (libc6-dev)"
	head -20 "$W/cc.log"
	tap_result notok "build txgen helper" "make build/guest/vhost-net-txgen failed"
	exit 1
fi
if ! "$GUEST" kernel > "$W/kernel.log" 2>&1; then
	tail -n 3 "$W/kernel.log"
	skip_all "no guest kernel (Debian linux-image-cloud-amd64 could not be fetched)"
fi
# default extras: build/vnetd, vnetctl, vnet-bench
"$GUEST" build-initramfs -o "$W/initrd.gz" "$TOP/build/guest/vhost-net-txgen" > "$W/initrd.log" 2>&1 ||
	{ tail -n 5 "$W/initrd.log"; tap_result notok "initramfs" "build failed"; exit 1; }

cat > "$W/guest.sh" << EOF
D=$SECS
NF=$FRAMES
EOF
cat >> "$W/guest.sh" << 'EOF'
# --- runs in the guest (busybox sh) ---
T=vk0 S=/tmp/vk.sock C=/tmp/vk.ctl
chk() { if [ "$2" = 0 ]; then echo "VKD-CHECK ok $1: $3"; else echo "VKD-CHECK FAIL $1: $3"; fi; }
cpu() { awk '{print $14 + $15}' "/proc/$1/stat" 2> /dev/null; }	# all threads, ticks
kcpu() { # CPU ticks of the kernel vhost workers of process $1
	_s=0
	for _p in /proc/[0-9]*; do
		[ "$(cat "$_p/comm" 2> /dev/null)" = "vhost-$1" ] || continue
		_s=$((_s + $(awk '{print $14 + $15}' "$_p/stat")))
	done
	echo $_s
}
stat_of() { cat "/sys/class/net/$T/statistics/$1"; }
jnum() { grep -o "\"$1\": [0-9]*" "$2" | head -n 1 | awk '{print $2}'; }
start_vnetd() {
	rm -f $S $C
	vnetd --backend tap --tap $T --vhost-net "$1" --socket $S --ctl-socket $C \
		> "/tmp/vnetd-$1.log" 2>&1 &
	VPID=$!
	_i=0
	while [ ! -S $S ]; do
		sleep 0.1; _i=$((_i + 1))
		[ $_i -gt 150 ] && return 1
		kill -0 $VPID 2> /dev/null || return 1
	done
	ip link set $T up
}
stop_vnetd() { kill $VPID; wait $VPID; }
# run one bench in the background: $1 mode, $2 tag; status sampled at 1.5 s;
# kernel worker CPU sampled until the bench ends (the worker goes with the fd)
run_bench() {
	KT=0
	vnet-bench --socket $S --mode "$1" --duration $D --json > "/tmp/b-$2.json" 2>&1 &
	BP=$!
	sleep 1.5
	vnetctl status --socket $C > "/tmp/st-$2.txt" 2>&1
	[ "$1" = rx-only ] && vhost-net-txgen $T $NF > "/tmp/g-$2.txt" 2>&1
	while kill -0 $BP 2> /dev/null; do
		_k=$(kcpu $VPID); [ "$_k" -gt "$KT" ] && KT=$_k; sleep 0.2
	done
	wait $BP
}
# one mode's workloads: TX then RX; prints VKD-BENCH lines; sets per-mode results
mode_run() { # on|off
	M=$1
	start_vnetd $M; chk "${M}_starts_in_guest" $? "$(grep -m1 'vhost-net' /tmp/vnetd-$M.log)"
	HZ=100
	rx0=$(stat_of rx_packets); c0=$(cpu $VPID)
	run_bench tx-only $M-tx; brc=$?
	rx1=$(stat_of rx_packets); c1=$(cpu $VPID)
	txf=$(jnum tx_frames /tmp/b-$M-tx.json); txf=${txf:-0}
	tapin=$((rx1 - rx0))
	[ "$brc" = 0 ] && [ "$txf" -gt 0 ] && [ "$tapin" -gt 0 ] && [ "$tapin" -le "$txf" ] &&
		[ $((tapin * 10)) -ge $((txf * 9)) ]
	chk "${M}_tx_frames_reach_the_tap_once" $? "bench rc=$brc sent $txf, TAP received $tapin"
	ticks=$((c1 - c0))
	echo "VKD-BENCH mode=$M dir=tx frames=$txf secs=$D fps=$((txf / D)) vnetd_cpu_ms=$((ticks * 1000 / HZ)) vnetd_us_per_frame=$(awk -v t=$ticks -v f=$txf 'BEGIN{printf "%.2f", f ? t * 1e4 / f : 0}') kernel_vhost_cpu_ms=$((KT * 1000 / HZ)) kernel_us_per_frame=$(awk -v t=$KT -v f=$txf 'BEGIN{printf "%.2f", f ? t * 1e4 / f : 0}')"
	eval "T_${M}=$ticks F_${M}=$txf"
	# RX: frames written into the TAP reach the frontend
	tx0=$(stat_of tx_packets); c0=$(cpu $VPID)
	run_bench rx-only $M-rx; brc=$?
	tx1=$(stat_of tx_packets); c1=$(cpu $VPID)
	rxf=$(jnum rx_frames /tmp/b-$M-rx.json); rxf=${rxf:-0}
	gs=$(sed -n 's/.*secs=//p' /tmp/g-$M-rx.txt)
	[ "$brc" = 0 ] && [ "$rxf" -gt 0 ] && [ $((tx1 - tx0)) -gt 0 ]
	chk "${M}_rx_frames_reach_the_frontend" $? "bench rc=$brc received $rxf, TAP sent $((tx1 - tx0)), txgen: $(cat /tmp/g-$M-rx.txt)"
	ticks=$((c1 - c0))
	echo "VKD-BENCH mode=$M dir=rx frames=$rxf offered=$NF send_secs=$gs fps=$(awk -v f=$rxf -v s="$gs" 'BEGIN{printf "%d", (s > 0 ? f / s : 0)}') vnetd_cpu_ms=$((ticks * 1000 / HZ)) vnetd_us_per_frame=$(awk -v t=$ticks -v f=$rxf 'BEGIN{printf "%.2f", f ? t * 1e4 / f : 0}') kernel_vhost_cpu_ms=$((KT * 1000 / HZ))"
}

modprobe vhost_net 2> /dev/null
[ -c /dev/vhost-net ]; chk device_present $? "$(ls -l /dev/vhost-net 2>&1)"

# ---- on ----
mode_run on
grep -q 'pair 0: vhost-net' /tmp/st-on-tx.txt
chk on_status_says_vhost_net $? "$(grep -m1 'pair 0:' /tmp/st-on-tx.txt)"
! grep -E '^ +(rx|tx):' /tmp/st-on-tx.txt | grep -vq ' packets 0 '
chk on_worker_counters_stay_zero $? "$(grep -E '^ +(rx|tx):' /tmp/st-on-tx.txt | cut -c1-90 | tr '\n' '|')"
grep -q 'pair 0: vhost-net' /tmp/st-on-rx.txt
chk on_second_connection_offloaded_again $? "$(grep -m1 'pair 0:' /tmp/st-on-rx.txt)"
n=$(grep -c 'pair 0: kernel vhost-net' /tmp/vnetd-on.log)
[ "$n" -ge 2 ]; chk on_offload_logged_per_connection $? "$n log lines"
stop_vnetd

# ---- ring positions across stop, backend restart, reconnect (GET/SET_VRING_BASE) ----
cat > /tmp/vnetd-vk << 'EOW'
#!/bin/sh
( i=0; while [ $i -lt 50 ]; do ip link set vkr0 up 2> /dev/null && break; sleep 0.1; i=$((i + 1)); done ) &
exec 2>> /tmp/vkr.log
exec vnetd --tap vkr0 --vhost-net on "$@"
EOW
chmod +x /tmp/vnetd-vk
VNETD=/tmp/vnetd-vk vnet-bench --spawn --spawn-backend tap --mode tx-only --no-check-seq \
	--duration 5 --restart-at 2.5 > /tmp/restart.txt 2>&1
rrc=$?
b1=$(sed -n 's/.*ring1 base \([0-9]*\).*/\1/p' /tmp/restart.txt)
n=$(grep -c 'pair 0: kernel vhost-net' /tmp/vkr.log)
[ "$rrc" = 0 ] && [ "${b1:-0}" -gt 0 ] && [ "$n" -ge 2 ]
chk on_ring_positions_survive_restart $? "rc=$rrc, $(grep -m1 'restarted' /tmp/restart.txt), offloads logged: $n"
[ "$rrc" = 0 ] || tail -n 5 /tmp/restart.txt /tmp/vkr.log

# ---- off: the same workloads on the userspace path ----
mode_run off
grep -q 'pair 0: userspace' /tmp/st-off-tx.txt
chk off_status_says_userspace $? "$(grep -m1 'pair 0:' /tmp/st-off-tx.txt)"
grep -E '^ +tx:' /tmp/st-off-tx.txt | grep -q ' packets [1-9]'
chk off_worker_counts_frames $? "$(grep -E '^ +tx:' /tmp/st-off-tx.txt | cut -c1-90)"
stop_vnetd

# vnetd's own CPU per frame: on (kernel moves frames) well below off (worker copies)
a=$(awk -v t=$T_on -v f=$F_on 'BEGIN{print f ? t / f : 1}')
b=$(awk -v t=$T_off -v f=$F_off 'BEGIN{print f ? t / f : 0}')
awk -v a="$a" -v b="$b" 'BEGIN{exit !(b > 0 && a * 4 < b)}'
chk on_vnetd_threads_idle $? "vnetd ticks on=$T_on for $F_on frames, off=$T_off for $F_off frames"
echo "VKD-DONE"
EOF

load0=$(cut -d' ' -f1-3 /proc/loadavg)
"$GUEST" run --initrd "$W/initrd.gz" --timeout 500 --script "$W/guest.sh" > "$W/guest.log" 2>&1
rc=$?
echo "# host load average before/after the guest: $load0 / $(cut -d' ' -f1-3 /proc/loadavg)"
tr -d '\r' < "$W/guest.log" > "$W/guest.txt"
guest_checks VKD "$W/guest.txt" "$rc" || exit 1
grep '^VKD-BENCH ' "$W/guest.txt" | sed 's/^VKD-BENCH/# VHOST-BENCH/'
grep -q '^VKD-DONE' "$W/guest.txt" || tap_result notok "guest script finished" "rc=$rc"
if [ "$FAILS" != 0 ] && [ -n "${VNET_GUEST_KEEP:-}" ]; then
	cp "$W/guest.txt" "/tmp/vnet-vkd-guest.$$.txt"; echo "# guest log: /tmp/vnet-vkd-guest.$$.txt"
fi
[ "$FAILS" = 0 ]
