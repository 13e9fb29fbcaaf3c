#!/usr/bin/env bash
# soak.sh [ROUNDS] [SESSIONS] - the long soak: two make-check tests with
# bigger counts and the same checks:
#   tests/integration/vnetd-soak-ctl.sh with ROUNDS (default 100,000)
#   rounds each of memory hotplug, dirty log on/off and a TX ring disabled/
#   enabled under traffic, split and packed (no loss to memory or log
#   changes, fd count flat, RSS growth < 1 MiB);
#   tests/integration/vnetd-stress.sh with SESSIONS (default 20,000)
#   connect / traffic / disconnect cycles, split and packed, under a CPU hog
#   per core (every frame back once, fd count flat, RSS growth < 1 MiB).
# About 10 minutes on 2 cores. Exit: 0 both passed, else 1.
cd "$(dirname "$0")/.." || exit 1
rc=0
VNET_SOAK_ROUNDS=${1:-100000} bash tests/integration/vnetd-soak-ctl.sh || rc=1
VNET_STRESS_SESSIONS=${2:-20000} bash tests/integration/vnetd-stress.sh || rc=1
exit $rc
