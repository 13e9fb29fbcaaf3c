#!/usr/bin/env bash
# soak.sh [ROUNDS] - the long control-plane soak of issue 17 item 5:
# tests/integration/vnetd-soak-ctl.sh with ROUNDS (default 100,000) rounds
# each of memory hotplug, dirty log on/off and a TX ring disabled/enabled
# under traffic, split and packed, with the same checks (no loss to memory
# or log changes, fd count flat, RSS growth < 1 MiB). About 10 minutes
# on 2 cores.
cd "$(dirname "$0")/.." || exit 1
VNET_SOAK_ROUNDS=${1:-100000} exec bash tests/integration/vnetd-soak-ctl.sh
