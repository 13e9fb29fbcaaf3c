#!/usr/bin/env bash
# Guest scenario: test-vu-q1.sh with mrg_rxbuf=off on the device: Linux then posts "big
# packets" RX chains (one descriptor chain per 64 KB GSO frame) instead of mergeable 1.5 KB
# buffers, a different vnetd RX path. VIRTIO_NET_F_MRG_RXBUF (bit 15) must be off.
# needs: root netns tun qemu busybox cpio
. "$(dirname "$0")/lib/vu-test.sh"
vt_init vu-nomrg
VT_FEATURE_BITS_OFF=15 vt_traffic 1 --dev-opts mrg_rxbuf=off
vt_finish
