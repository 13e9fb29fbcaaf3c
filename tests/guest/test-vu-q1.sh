#!/usr/bin/env bash
# Guest scenario: Linux virtio-net (1 queue pair, 2 vCPUs, split ring) over vhost-user to
# vnetd with a TAP backend in a private netns: driver up, ethtool -l = 1, ping, TCP both
# ways (iperf3) and a checksummed 4 MB transfer each way. See docs/testing.md.
# needs: root netns tun qemu busybox cpio
. "$(dirname "$0")/lib/vu-test.sh"
vt_init vu-q1
vt_traffic 1
vt_finish
