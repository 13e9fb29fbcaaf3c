#!/usr/bin/env bash
# Guest scenario: test-plan-qemu.sh for a single queue pair (`vnetctl plan --vcpus 2
# --queues 1`): the plan carries no queues=, mq= or vectors=; the guest sees 1 channel.
# needs: root netns tun qemu busybox cpio
VNET_PLAN_QUEUES=1 exec bash "$(dirname "$0")/test-plan-qemu.sh"
