#!/usr/bin/env bash
# Guest scenario (crashes), the other direction: QEMU listens
# (server=on) and vnetd --client dials it; vnetd is killed with SIGKILL and
# started again at once while the guest pings every 100 ms. Prints the gap
# the guest saw ("# CRASH-GAP") and checks it recovers by itself.
# needs: root netns tun qemu busybox cpio
. "$(dirname "$0")/lib/vu-test.sh"
. "$(dirname "$0")/lib/restart-gap.sh" || { echo "Bail out! tests/guest/lib/restart-gap.sh missing"; exit 1; }
vt_init vu-crash-client
VT_CLIENT=1 vt_crash_gap 1 || vt_notok "the crash scenario ran to its end"
vt_finish
