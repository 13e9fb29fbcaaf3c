#!/usr/bin/env bash
# Guest scenario: --mac-lock on the kernel vhost-net path.
#
# Frames of a pair handed to the kernel's vhost-net never cross vnetd, so
# vnetd enforces the port's policy with a tc ingress filter on the TAP
# (src/datapath/spoof_tc.c). The host has no /dev/vhost-net; the test guest
# (tests/guest/lib, Debian kernel) has one. In the guest: a TAP, `vnetd
# --backend tap --vhost-net on --mac M --mac-lock`, and the bundled frontend
# vnet-bench sending tx-only frames first from M (all must pass the filter),
# then from another MAC (--src-mac; all must be dropped by it), with
# `vnetctl status` saying the pair runs on vhost-net and vnetd's userspace
# TX counters staying 0 (the frames really took the kernel path). Negative
# control: the same spoofed frames without --mac-lock are not dropped.
# Counted on the TAP's clsact qdisc (`tc -s qdisc`: every frame the guest's
# TX put into the host stack, and those the filter dropped).
#
# Output: TAP lines. Exit: 0 passed, 1 failed, 77 skipped.
# needs: root qemu busybox cpio
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
GUEST=$TOP/tests/guest/lib/guest.sh
TAP_PREFIX="antispoof-vhost-net: "
. "$TOP/tests/lib/common.sh"

for b in vnetd vnetctl vnet-bench; do
	[ -x "$TOP/build/$b" ] || skip_all "build/$b missing (run make first)"
done
TC=$(command -v tc) || skip_all "tc missing (apt-get install iproute2)"

W=$(mktemp -d /tmp/vnet-spoofg.XXXXXX)
cleanup_path "$W"
if ! "$GUEST" kernel > "$W/kernel.log" 2>&1; then
	tail -n 3 "$W/kernel.log"
	skip_all "no guest kernel (Debian linux-image-cloud-amd64 could not be fetched)"
fi
# default extras (vnetd, vnetctl, vnet-bench) plus tc and the tc modules
"$GUEST" build-initramfs -o "$W/initrd.gz" -m cls_bpf -m sch_ingress "$TC:/sbin/tc" \
	> "$W/initrd.log" 2>&1 ||
	{ tail -n 5 "$W/initrd.log"; tap_result notok "initramfs" "build failed"; exit 1; }

cat > "$W/guest.sh" << 'EOF'
# --- runs in the guest (busybox sh) ---
T=vs0 S=/tmp/vs.sock C=/tmp/vs.ctl M=52:54:00:12:34:56 OTHER=52:54:00:66:66:66
# busybox's tc applet knows no bpf filter: iproute2's (/sbin/tc) is the one
[ -L /bin/tc ] && rm -f /bin/tc
export PATH=/sbin:$PATH
tc() { /sbin/tc "$@"; }	# ash may prefer its applet over PATH
chk() { if [ "$2" = 0 ]; then echo "SPG-CHECK ok $1: $3"; else echo "SPG-CHECK FAIL $1: $3"; fi; }
jnum() { grep -o "\"$1\": [0-9]*" "$2" | head -n 1 | awk '{print $2}'; }
# "SENT DROPPED" packets of the TAP's clsact qdisc (all of its ingress)
qstat() {
	tc -s qdisc show dev $T | awk '/clsact/ {c = 1} c && /Sent/ {
		for (i = 1; i <= NF; i++) { if ($i == "pkt") s = $(i - 1); if ($i == "(dropped") d = $(i + 1) }
		sub(",", "", d); print s + 0, d + 0; exit }'
}
start_vnetd() { # extra vnetd args...
	rm -f $S $C
	vnetd --backend tap --tap $T --vhost-net on --mac $M --socket $S --ctl-socket $C "$@" \
		>> /tmp/vnetd.log 2>&1 &
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
# tx-only burst; sets SENT (frames the bench sent), IN (qdisc saw), DROP
burst() { # tag [--src-mac X]
	_t=$1; shift
	_args="$*"
	set -- $(qstat); s0=${1:-0} d0=${2:-0}
	vnet-bench --socket $S --mode tx-only --duration 3 --json $_args > /tmp/b-$_t.json 2>&1 &
	_bp=$!
	sleep 1.5
	vnetctl status --socket $C > /tmp/st-$_t.txt 2>&1	# while it runs
	wait $_bp
	BRC=$?
	sleep 0.3
	set -- $(qstat); s1=${1:-0} d1=${2:-0}
	SENT=$(jnum tx_frames /tmp/b-$_t.json); SENT=${SENT:-0}
	IN=$((s1 - s0)) DROP=$((d1 - d0))
	[ "$BRC" = 0 ] || echo "SPG-INFO bench $_t rc=$BRC: $(head -c 300 /tmp/b-$_t.json | tr '\n' ' ')"
}
# vnetd's own TX packets (the userspace path), from its status
user_tx() { grep -A2 'pair 0' /tmp/st-$1.txt | grep 'tx:' | sed 's/.* packets \([0-9]*\) .*/\1/'; }

start_vnetd --mac-lock
chk vnetd_starts_with_mac_lock_and_vhost_net_on $? "$(grep -m1 'anti-spoofing' /tmp/vnetd.log)"
tc filter show dev $T ingress | grep -q bpf
chk bpf_filter_on_the_tap_ingress $? "$(tc filter show dev $T ingress | head -n 2 | tr '\n' ' ')"

burst own
grep -q 'pair 0: vhost-net' /tmp/st-own.txt
chk pair_runs_on_kernel_vhost_net $? "$(grep -m1 'pair 0' /tmp/st-own.txt)"
U=$(user_tx own)
[ "${U:-x}" = 0 ]
chk frames_did_not_cross_vnetd $? "vnetd userspace tx packets ${U:-?}"
[ "$BRC" = 0 ] && [ "$SENT" -gt 0 ] && [ "$DROP" = 0 ] && [ "$IN" -ge $((SENT * 9 / 10)) ] && [ "$IN" -le "$SENT" ]
chk own_mac_frames_pass $? "bench rc=$BRC sent $SENT, TAP ingress saw $IN, dropped $DROP"

burst spoof --src-mac $OTHER
[ "$BRC" = 0 ] && [ "$SENT" -gt 0 ] && [ "$DROP" -ge $((SENT * 9 / 10)) ] && [ "$DROP" -le "$SENT" ] &&
	[ "$DROP" -ge $((IN - 5)) ]
chk foreign_mac_frames_dropped_by_the_filter $? "bench rc=$BRC sent $SENT from $OTHER, TAP ingress saw $IN, dropped $DROP"
stop_vnetd

# negative control: no --mac-lock, no filter: the same frames pass
start_vnetd
chk control_vnetd_starts_without_mac_lock $? "$(tail -n 1 /tmp/vnetd.log)"
tc filter show dev $T ingress | grep -q bpf
[ $? != 0 ]
chk control_no_filter_without_mac_lock $? "$(tc filter show dev $T ingress | head -n 1)"
burst ctl --src-mac $OTHER
[ "$BRC" = 0 ] && [ "$SENT" -gt 0 ] && [ "$DROP" = 0 ]
chk control_foreign_mac_frames_pass_without_mac_lock $? "bench rc=$BRC sent $SENT, dropped $DROP"
stop_vnetd
grep -q 'seccomp: blocked' /tmp/vnetd.log
[ $? != 0 ]
chk no_seccomp_trap $? "$(grep -m1 seccomp /tmp/vnetd.log)"
tail -n 5 /tmp/vnetd.log | sed 's/^/SPG-INFO vnetd: /'
echo SPG-DONE
EOF

load0=$(cut -d' ' -f1-3 /proc/loadavg)
"$GUEST" run --initrd "$W/initrd.gz" --timeout 300 --script "$W/guest.sh" > "$W/guest.log" 2>&1
rc=$?
echo "# host load average before/after the guest: $load0 / $(cut -d' ' -f1-3 /proc/loadavg)"
tr -d '\r' < "$W/guest.log" > "$W/guest.txt"
guest_checks SPG "$W/guest.txt" "$rc" || exit 1
grep '^SPG-INFO' "$W/guest.txt" | sed 's/^/# /'
grep -q '^SPG-DONE' "$W/guest.txt" || tap_result notok "guest script finished" "rc=$rc"
if [ "$FAILS" != 0 ]; then tail -n 20 "$W/guest.txt"; fi
[ "$FAILS" = 0 ]
