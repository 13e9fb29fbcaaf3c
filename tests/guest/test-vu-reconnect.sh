#!/usr/bin/env bash
# Guest scenario: vnetd (TAP backend, 1 queue pair) is stopped and started again while the
# guest is up; QEMU reconnects (chardev reconnect=1), the guest's carrier drops and comes
# back, ping and TCP both ways resume, and the guest does not reboot.
# needs: root netns tun qemu busybox cpio
. "$(dirname "$0")/lib/vu-test.sh"
vt_init vu-reconnect
vt_reconnect 1
vt_finish
