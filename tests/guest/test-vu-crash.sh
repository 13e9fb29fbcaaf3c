#!/usr/bin/env bash
# Guest scenario (crashes): vnetd listens, QEMU connects with
# reconnect=1; while the guest pings the host every 100 ms vnetd is killed
# with SIGKILL and started again at once. Prints what the guest saw
# ("# CRASH-GAP": pings lost, the longest gap, carrier down time) and checks
# that the guest recovers by itself (carrier, ping, TCP) without a reboot.
# needs: root netns tun qemu busybox cpio
. "$(dirname "$0")/lib/vu-test.sh"
. "$(dirname "$0")/lib/restart-gap.sh" || { echo "Bail out! tests/guest/lib/restart-gap.sh missing"; exit 1; }
vt_init vu-crash
vt_crash_gap 1 || vt_notok "the crash scenario ran to its end"
vt_finish
