#!/usr/bin/env bash
# Guest scenario: test-vu-q2.sh with the packed ring: packed=on, 2 queue pairs, ethtool -L
# 1 and back to 2 under iperf3 load.
# needs: root netns tun qemu busybox cpio
. "$(dirname "$0")/lib/vu-test.sh"
vt_init vu-packed-q2
VT_FEATURE_BITS=34 vt_traffic 2 --dev-opts packed=on
vt_finish
