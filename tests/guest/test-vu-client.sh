#!/usr/bin/env bash
# Guest scenario: the other direction of the connection: QEMU listens (chardev server=on,
# wait=off) and vnetd --client connects after QEMU started; vnetd is then stopped and
# started again while the guest is up, reconnects by itself, and ping and TCP both ways
# resume with no guest reboot.
# needs: root netns tun qemu busybox cpio
. "$(dirname "$0")/lib/vu-test.sh"
vt_init vu-client
VT_CLIENT=1 vt_reconnect 1
vt_finish
