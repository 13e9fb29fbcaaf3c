#!/usr/bin/env bash
# Guest scenario: `vnetctl upgrade` of a vnetd whose queue pair runs in the
# kernel's vhost-net. The kernel device cannot follow the process (its fd obeys only the
# owner's mm), so the old vnetd stops the pair as GET_VRING_BASE does, hands it over as a
# userspace ring and the new one offloads it again on its own /dev/vhost-net.
# Guest (tests/guest/lib, Debian kernel, vhost_net loaded): a TAP in the guest,
# `vnetd --backend tap --vhost-net on`, vnet-bench --mode tx-only (split rings) sending
# for the whole run; meanwhile two upgrades in a row (A -> B -> C) and two that fail
# after the old process stopped the kernel (the new binary refuses a corrupt state,
# VNETD_TAKEOVER_TEST=corrupt in build/test-hooks/vnetd; the new binary dies half-way, hook "exit").
# Checks: each upgrade prints ok and its pause (paused_ms), the old PID exits 0,
# `vnetctl status` says vhost-net for the pair after each upgrade and after each failed
# one, frames keep reaching the TAP after each step, the frontend never reconnected
# (one "connected" line in vnetd's log, no "disconnected"), and every frame vnet-bench
# sent reached the TAP exactly once (TAP rx_packets == vnet-bench tx_frames). Then RX:
# vnet-bench --mode rx-only while tests/guest/vhost-net-txgen.c writes frames into the
# TAP, one more upgrade: offloaded again, and every frame the TAP queued reached the
# frontend once (TAP tx_packets == vnet-bench rx_frames; tx_dropped, printed, is what an
# overflowing TAP queue lost during the pause).
#
# Output: TAP lines; "# VHOST-UPGRADE ..." lines. Exit: 0 passed, 1 failed, 77 skipped.
# needs: root qemu busybox cpio
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
GUEST=$TOP/tests/guest/lib/guest.sh
TAP_PREFIX="vhost-net-upgrade: "
. "$TOP/tests/lib/common.sh"

for b in vnetd vnetctl vnet-bench; do
	[ -x "$TOP/build/$b" ] || skip_all "build/$b missing (run make first)"
done
[ -x "$GUEST" ] || skip_all "tests/guest/lib/guest.sh missing (shared guest tooling)"

W=$(mktemp -d /tmp/vnet-vku-test.XXXXXX)
cleanup_path "$W"
if ! "$GUEST" kernel > "$W/kernel.log" 2>&1; then
	tail -n 3 "$W/kernel.log"
	skip_all "no guest kernel (Debian linux-image-cloud-amd64 could not be fetched)"
fi
# the RX sender: static, so it runs in the busybox guest as is (make guest-tools)
if ! make -s -C "$TOP" build/guest/vhost-net-txgen > "$W/cc.log" 2>&1; then
	grep -q "cannot find -lc" "$W/cc.log" && skip_all "no static libc (libc6-dev)"
	head -20 "$W/cc.log"
	tap_result notok "build txgen helper" "make build/guest/vhost-net-txgen failed"
	exit 1
fi
# the refused hand-overs' new binary: the test-hooks build (VNETD_TAKEOVER_TEST)
if ! make -s -C "$TOP" test-hooks > "$W/hooks.log" 2>&1; then
	tail -n 5 "$W/hooks.log"
	tap_result notok "build test-hooks vnetd" "make test-hooks failed"
	exit 1
fi
# default extras: build/vnetd, vnetctl, vnet-bench
INITRD=$W/initrd.gz
"$GUEST" build-initramfs -o "$INITRD" "$TOP/build/guest/vhost-net-txgen" \
	"$TOP/build/test-hooks/vnetd:/bin/vnetd-hooks" > "$W/initrd.log" 2>&1 ||
	{ tail -n 5 "$W/initrd.log"; tap_result notok "initramfs" "build failed"; exit 1; }

cat > "$W/guest.sh" << 'EOF'
# --- runs in the guest (busybox sh) ---
T=vu0 S=/tmp/vu.sock C=/tmp/vu.ctl L=/tmp/vnetd.log D=60
chk() { if [ "$2" = 0 ]; then echo "VKU-CHECK ok $1: $3"; else echo "VKU-CHECK FAIL $1: $3"; fi; }
rxp() { cat "/sys/class/net/$T/statistics/rx_packets"; }
jnum() { grep -o "\"$1\": [0-9]*" "$2" | head -n 1 | awk '{print $2}'; }
pair0() { vnetctl status --socket $C 2>&1 | grep -m1 'pair 0:'; }
# running, not a zombie (an old vnetd handed over is reaped by whoever adopted it)
alive() { [ -e "/proc/$1" ] && ! awk '{ exit !($3 == "Z") }' "/proc/$1/stat" 2> /dev/null; }
# frames reach the TAP over the next 0.5 s
flows() { _a=$(rxp); sleep 0.5; [ "$(rxp)" -gt "$_a" ]; }
BIN=$(command -v vnetd)
HOOKS=$(command -v vnetd-hooks)

modprobe vhost_net 2> /dev/null
[ -c /dev/vhost-net ]; chk device_present $? "$(ls -l /dev/vhost-net 2>&1)"
vnetd --backend tap --tap $T --vhost-net on --socket $S --ctl-socket $C > $L 2>&1 &
VPID=$!
i=0
while [ ! -S $S ] && [ $i -lt 150 ] && kill -0 $VPID 2> /dev/null; do sleep 0.1; i=$((i + 1)); done
# no frames of the guest kernel's own (IPv6 ND, MLD) in the RX count below
echo 1 > /proc/sys/net/ipv6/conf/$T/disable_ipv6 2> /dev/null
ip link set $T up
rx0=$(rxp)
vnet-bench --socket $S --mode tx-only --duration $D --json > /tmp/b.json 2> /tmp/b.err &
BP=$!
sleep 1.5
pair0 | grep -q 'vhost-net'; chk offloaded_before $? "$(pair0)"

# two upgrades in a row under traffic
for n in 1 2; do
	out=$(vnetctl upgrade --binary "$BIN" --socket $C 2>&1); rc=$?
	new=$(echo "$out" | sed -n 's/.*ok pid \([0-9]*\).*/\1/p')
	ms=$(echo "$out" | sed -n 's/.*paused_ms \([0-9]*\).*/\1/p')
	echo "VKU-PAUSE upgrade=$n paused_ms=${ms:-?} ($out)"
	[ "$rc" = 0 ] && [ -n "$new" ] && [ -n "$ms" ]
	chk "upgrade_${n}_ok" $? "rc=$rc: $out"
	i=0; while alive $VPID && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	orc=0; [ "$n" = 1 ] && { wait $VPID; orc=$?; }	# A is this shell's child
	! alive $VPID && [ "$orc" = 0 ]
	chk "upgrade_${n}_old_pid_exited_0" $? "old pid $VPID, exit status $orc"
	[ -n "$new" ] && VPID=$new
	pair0 | grep -q 'vhost-net'; chk "upgrade_${n}_offloaded_again" $? "$(pair0)"
	flows; chk "upgrade_${n}_traffic_flows" $? "TAP rx_packets $(rxp)"
done

# hand-overs that fail after the old process stopped the kernel: it resumes the pair
for h in corrupt exit; do
	out=$(VNETD_TAKEOVER_TEST=$h vnetctl upgrade --binary "$HOOKS" --socket $C 2>&1); rc=$?
	[ "$rc" != 0 ] && alive $VPID
	chk "refused_${h}_old_keeps_serving" $? "rc=$rc: $out"
	pair0 | grep -q 'vhost-net'; chk "refused_${h}_still_in_the_kernel" $? "$(pair0)"
	flows; chk "refused_${h}_traffic_flows" $? "TAP rx_packets $(rxp)"
done
grep -q 'every port resumed as before' $L
chk failed_handover_logged $? "$(grep -m1 'upgrade by pid' $L)"

# D is an upper bound that the upgrades above stay within (a loaded TCG guest has
# outlasted 18 s): SIGINT ends the window now (vnet-bench still reports, as at its end)
kill -INT $BP
wait $BP; brc=$?
sleep 0.5
rx1=$(rxp)
txf=$(jnum tx_frames /tmp/b.json); txf=${txf:-0}
tapin=$((rx1 - rx0))
echo "VKU-FRAMES sent=$txf tap=$tapin lost=$((txf - tapin))"
[ "$brc" = 0 ] && [ "$txf" -gt 0 ] && [ "$tapin" = "$txf" ]
chk every_frame_reached_the_tap_once $? "bench rc=$brc sent $txf, TAP received $tapin $(tail -n 2 /tmp/b.err | tr '\n' ' ')"
nc=$(grep -c 'frontend pid .* connected' $L); nd=$(grep -c 'disconnected' $L)
[ "$nc" = 1 ] && [ "$nd" -le 1 ]
chk frontend_never_reconnected $? "$nc connected lines, $nd disconnected (the bench's own exit: at most 1)"

# RX through the kernel across an upgrade: frames written into the TAP from the guest's
# side (vhost-net-txgen, 200 at a time every 50 ms) while vnet-bench only receives. The
# TAP's queue holds what arrives during the pause; it may overflow (tx_dropped: the loss,
# printed), but every frame the TAP queued reaches the frontend once.
tap() { cat "/sys/class/net/$T/statistics/$1"; }
t0=$(tap tx_packets) d0=$(tap tx_dropped)
vnet-bench --socket $S --mode rx-only --duration 30 --json > /tmp/r.json 2> /tmp/r.err &
BP=$!
sleep 1.5
pair0 | grep -q 'vhost-net'; chk rx_offloaded_before $? "$(pair0)"
rm -f /tmp/stop
( while [ ! -e /tmp/stop ]; do vhost-net-txgen $T 200 > /dev/null 2>&1 && echo 200; sleep 0.05; done ) > /tmp/g.txt &
GP=$!
sleep 1.5
out=$(vnetctl upgrade --binary "$BIN" --socket $C 2>&1); rc=$?
new=$(echo "$out" | sed -n 's/.*ok pid \([0-9]*\).*/\1/p')
echo "VKU-PAUSE upgrade=rx paused_ms=$(echo "$out" | sed -n 's/.*paused_ms \([0-9]*\).*/\1/p') ($out)"
[ "$rc" = 0 ] && [ -n "$new" ]; chk rx_upgrade_ok $? "rc=$rc: $out"
[ -n "$new" ] && VPID=$new
sleep 1.5
pair0 | grep -q 'vhost-net'; chk rx_offloaded_again $? "$(pair0)"
touch /tmp/stop; wait $GP
sleep 1	# what the TAP still queues reaches the frontend, then the window ends
kill -INT $BP
wait $BP; brc=$?
t1=$(tap tx_packets) d1=$(tap tx_dropped)
rxf=$(jnum rx_frames /tmp/r.json); rxf=${rxf:-0}
sent=$(awk '{ n += $1 } END { print n + 0 }' /tmp/g.txt)
echo "VKU-RXFRAMES written=$sent tap_queued=$((t1 - t0)) tap_dropped=$((d1 - d0)) received=$rxf"
[ "$brc" = 0 ] && [ "$rxf" -gt 0 ] && [ "$rxf" = $((t1 - t0)) ]
chk rx_every_queued_frame_reached_the_frontend_once $? "bench rc=$brc received $rxf, TAP queued $((t1 - t0)), dropped $((d1 - d0)), written $sent $(tail -n 2 /tmp/r.err | tr '\n' ' ')"
grep "takeover: serving\|upgrade:" $L | sed 's/^/VKU-LOG /'
kill $VPID
echo "VKU-DONE"
EOF

"$GUEST" run --initrd "$INITRD" --timeout 240 --script "$W/guest.sh" > "$W/guest.log" 2>&1
rc=$?
tr -d '\r' < "$W/guest.log" > "$W/guest.txt"
guest_checks VKU "$W/guest.txt" "$rc" || exit 1
grep -E '^VKU-(PAUSE|FRAMES|RXFRAMES|LOG) ' "$W/guest.txt" | sed 's/^VKU-/# VHOST-UPGRADE /'
grep -q '^VKU-DONE' "$W/guest.txt" || tap_result notok "guest script finished" "rc=$rc"
if [ "$FAILS" != 0 ] && [ -n "${VNET_GUEST_KEEP:-}" ]; then
	cp "$W/guest.txt" "/tmp/vnet-vku-guest.$$.txt"; echo "# guest log: /tmp/vnet-vku-guest.$$.txt"
fi
[ "$FAILS" = 0 ]
