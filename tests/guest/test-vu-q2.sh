#!/usr/bin/env bash
# Guest scenario: as test-vu-q1.sh with 2 queue pairs (mq=on, 2 vCPUs): ethtool -l = 2,
# iperf3 -P 2 both ways, ethtool -L eth0 combined 1 and back to 2 while iperf3 runs.
# needs: root netns tun qemu busybox cpio
. "$(dirname "$0")/lib/vu-test.sh"
vt_init vu-q2
vt_traffic 2
vt_finish
