#!/usr/bin/env bash
# Guest scenario: test-vu-q1.sh with the packed ring (packed=on on the device): the guest
# must negotiate VIRTIO_F_RING_PACKED (bit 34), then the same traffic checks run.
# needs: root netns tun qemu busybox cpio
. "$(dirname "$0")/lib/vu-test.sh"
vt_init vu-packed
VT_FEATURE_BITS=34 vt_traffic 1 --dev-opts packed=on
vt_finish
