#!/usr/bin/env bash
# Guest scenario: `vnetctl upgrade` of a --client port: QEMU listens
# (chardev server=on) and vnetd dialled it. The connected socket is handed over (there
# is no listening socket) and the new process must not dial again. Same checks as
# test-vu-upgrade.sh, plus: no "connected to" line after the first, the new vnetd's
# connection count 0 with the port connected in client mode.
# needs: root netns tun qemu busybox cpio
VT_CLIENT=1 exec bash "$(dirname "$0")/test-vu-upgrade.sh"
