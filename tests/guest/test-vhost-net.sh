#!/usr/bin/env bash
# Guest scenario: the kernel vhost-net offload (issue 6), for real.
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
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
GUEST=$TOP/tests/guest/lib/guest.sh
FRAMES=${VNET_VK_FRAMES:-20000}
N=0 FAILS=0

skip() { echo "SKIP: $*"; exit 77; }
tap() { # ok|notok NAME [DETAIL]
	N=$((N + 1))
	if [ "$1" = ok ]; then echo "ok $N - vhost-net: $2"
	else FAILS=$((FAILS + 1)); echo "not ok $N - vhost-net: $2${3:+ ($3)}"; fi
}
tap_skip() { N=$((N + 1)); echo "ok $N - vhost-net: $1 # SKIP $2"; }

[ "$(id -u)" = 0 ] || skip "needs root (TAP and QEMU guest)"
[ -x "$GUEST" ] || skip "tests/guest/lib/guest.sh missing (shared guest tooling)"
command -v "${VNET_QEMU:-qemu-system-x86_64}" > /dev/null ||
	skip "qemu-system-x86_64 missing (apt-get install qemu-system-x86)"
command -v busybox > /dev/null || skip "busybox missing (apt-get install busybox-static)"
command -v cpio > /dev/null || skip "cpio missing (apt-get install cpio)"
[ -f "$TOP/build/libvnet.a" ] || skip "build/libvnet.a missing (run make first)"

WERR=''
{ [ "${CI:-}" = true ] || [ "${WERROR:-}" = 1 ]; } && WERR=-Werror
W=$(mktemp -d /tmp/vnet-vk-test.XXXXXX)
trap 'rm -rf "$W"' EXIT
# the helper: static, so it runs in the busybox guest as is
if ! ${CC:-gcc} -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wvla -Wformat=2 $WERR -I"$TOP/src/lib" -static \
	"$TOP/tests/guest/vhost-net-dp.c" "$TOP/build/libvnet.a" -o "$W/vhost-net-dp" \
	> "$W/cc.log" 2>&1; then
	if grep -q "cannot find -lc" "$W/cc.log"; then skip "no static libc (libc6-dev)"; fi
	grep -v 'statically linked' "$W/cc.log" | head -20
	tap notok "build helper" "gcc failed"
	exit 1
fi
grep -v 'statically linked\|in function' "$W/cc.log" | grep -q 'warning' &&
	{ grep 'warning' "$W/cc.log" | grep -v 'statically linked' | head; tap notok "helper builds warning-free"; }


# host: --vhost-net on must fail with the operator message when the device is unusable
if [ -e /dev/vhost-net ]; then
	tap_skip "mode_on_fails_on_host_with_operator_message" "this host has /dev/vhost-net"
else
	out=$("$W/vhost-net-dp" --host-on 2>&1)
	echo "# host: $out" | head -n 1
	if echo "$out" | grep -q '^VK-CHECK ok mode_on_fails_on_host'; then
		tap ok "mode_on_fails_on_host_with_operator_message"
	else
		tap notok "mode_on_fails_on_host_with_operator_message" "$(echo "$out" | tail -n 1)"
	fi
fi

# guest: kernel + initramfs with the helper
if ! "$GUEST" kernel > "$W/kernel.log" 2>&1; then
	tail -n 3 "$W/kernel.log"
	skip "no guest kernel (Debian linux-image-cloud-amd64 could not be fetched)"
fi
"$GUEST" build-initramfs -o "$W/initrd.gz" --no-default-extras "$W/vhost-net-dp" \
	> "$W/initrd.log" 2>&1 || { tail -n 5 "$W/initrd.log"; tap notok "initramfs" "build failed"; exit 1; }
load0=$(cut -d' ' -f1-3 /proc/loadavg)
"$GUEST" run --initrd "$W/initrd.gz" --timeout 300 --run "vhost-net-dp $FRAMES" \
	> "$W/guest.log" 2>&1
rc=$?
echo "# host load average before/after the guest: $load0 / $(cut -d' ' -f1-3 /proc/loadavg)"
tr -d '\r' < "$W/guest.log" > "$W/guest.txt"
nchk=$(grep -c '^VK-CHECK ' "$W/guest.txt")
if [ "$nchk" = 0 ]; then
	tail -n 30 "$W/guest.txt"
	tap notok "guest ran the checks" "guest rc=$rc, no VK-CHECK output"
	exit 1
fi
while read -r _ st rest; do
	name=${rest%%:*} detail=${rest#*: }
	if [ "$st" = ok ]; then tap ok "$name"; echo "#   $detail"
	else tap notok "$name" "$detail"; fi
done < <(grep '^VK-CHECK ' "$W/guest.txt")
grep '^VK-BENCH ' "$W/guest.txt" | sed 's/^/# /'
grep -q '^VK-DONE failures=0' "$W/guest.txt" || [ "$FAILS" -gt 0 ] ||
	tap notok "guest program finished" "rc=$rc, $(grep -a '^VK-DONE' "$W/guest.txt")"
[ "$FAILS" = 0 ]
