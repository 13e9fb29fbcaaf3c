#!/usr/bin/env bash
# Guest scenario: the kernel vhost-net offload, for real.
#
# The host has no /dev/vhost-net; the test guest (Debian's kernel, vhost_net loaded, see
# tests/guest/lib/guest.sh) has. tests/guest/vhost-net-dp.c, linked statically with
# build/libvnet.a, runs inside it: our vq driver side puts frames on split rings in its own
# memory, vhost_pair attaches them through /dev/vhost-net to a TAP in the guest, and
# checks frames both ways, ring positions across stop/start, ring disable/enable, frames
# queued while stopped, the dirty log, the error eventfd, kernel refusals with a reason;
# then it measures one writev() per frame against vhost-net rings with one kick per batch
# (the "pasta way"). On the host, the same program checks that --vhost-net on refuses with
# the operator message.
#
# Output: TAP lines, one per check; "# VK-BENCH ..." lines with the measurements.
# Exit: 0 all passed, 1 a check failed, 77 skipped (reason printed).
# Environment: VNET_VK_FRAMES (benchmark frames, default 20000).
# needs: root qemu busybox cpio
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
GUEST=$TOP/tests/guest/lib/guest.sh
FRAMES=${VNET_VK_FRAMES:-20000}
TAP_PREFIX="vhost-net: "
. "$TOP/tests/lib/common.sh"


[ -x "$GUEST" ] || skip_all "tests/guest/lib/guest.sh missing (shared guest tooling)"
[ -f "$TOP/build/libvnet.a" ] || skip_all "build/libvnet.a missing (run make first)"

W=$(mktemp -d /tmp/vnet-vk-test.XXXXXX)
cleanup_path "$W"
# the helper: static, so it runs in the busybox guest as is (make guest-tools)
DP=$TOP/build/guest/vhost-net-dp
if ! make -s -C "$TOP" build/guest/vhost-net-dp > "$W/cc.log" 2>&1; then
	if grep -q "cannot find -lc" "$W/cc.log"; then skip_all "no static libc (libc6-dev)"; fi
	grep -v 'statically linked' "$W/cc.log" | head -20
	tap_result notok "build helper" "make build/guest/vhost-net-dp failed"
	exit 1
fi
grep -v 'statically linked\|in function' "$W/cc.log" | grep -q 'warning' &&
	{ grep 'warning' "$W/cc.log" | grep -v 'statically linked' | head; tap_result notok "helper builds warning-free"; }


# host: --vhost-net on must fail with the operator message when the device is unusable
if [ -e /dev/vhost-net ]; then
	ok_skip "mode_on_fails_on_host_with_operator_message" "this host has /dev/vhost-net"
else
	out=$("$DP" --host-on 2>&1)
	echo "# host: $out" | head -n 1
	if echo "$out" | grep -q '^VK-CHECK ok mode_on_fails_on_host'; then
		tap_result ok "mode_on_fails_on_host_with_operator_message"
	else
		tap_result notok "mode_on_fails_on_host_with_operator_message" "$(echo "$out" | tail -n 1)"
	fi
fi

# guest: kernel + initramfs with the helper
if ! "$GUEST" kernel > "$W/kernel.log" 2>&1; then
	tail -n 3 "$W/kernel.log"
	skip_all "no guest kernel (Debian linux-image-cloud-amd64 could not be fetched)"
fi
"$GUEST" build-initramfs -o "$W/initrd.gz" --no-default-extras "$DP" \
	> "$W/initrd.log" 2>&1 || { tail -n 5 "$W/initrd.log"; tap_result notok "initramfs" "build failed"; exit 1; }
load0=$(cut -d' ' -f1-3 /proc/loadavg)
"$GUEST" run --initrd "$W/initrd.gz" --timeout 300 --run "vhost-net-dp $FRAMES" \
	> "$W/guest.log" 2>&1
rc=$?
echo "# host load average before/after the guest: $load0 / $(cut -d' ' -f1-3 /proc/loadavg)"
tr -d '\r' < "$W/guest.log" > "$W/guest.txt"
guest_checks VK "$W/guest.txt" "$rc" || exit 1
grep '^VK-BENCH ' "$W/guest.txt" | sed 's/^/# /'
grep -q '^VK-DONE failures=0' "$W/guest.txt" || [ "$FAILS" -gt 0 ] ||
	tap_result notok "guest program finished" "rc=$rc, $(grep -a '^VK-DONE' "$W/guest.txt")"
[ "$FAILS" = 0 ]
