#!/usr/bin/env bash
# needs: none
# vnet-bench-cli.sh - vnet-bench's command line: --help exits 0 everywhere
# (also `vnet-bench ring --help`), --version prints "vnet-bench VERSION",
# and a bad value's message names its flag (--csum's size and its clash
# with --flows too). Prints TAP lines.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
BENCH=${VNET_BENCH:-build/vnet-bench}
need_built "$BENCH"
t() { # NAME WANT_RC WANT_REGEX ARGS...
	local name=$1 rc=$2 want=$3 out got
	shift 3
	out=$(timeout 10 "$BENCH" "$@" 2>&1); got=$?
	if [ "$got" = "$rc" ] && grep -qE -- "$want" <<< "$out"; then
		ok "$name"
	else
		not_ok "$name (rc=$got, want $rc): $(head -3 <<< "$out")"
	fi
}
t "--help: exit 0" 0 '^Usage: vnet-bench' --help
t "ring --help: exit 0" 0 '^usage: vnet-bench ring' ring --help
t "ring bad flag: exit 2" 2 '^usage: vnet-bench ring' ring --frob
t "--version" 0 '^vnet-bench [^ ]+$' --version
t "-d abc names --duration" 2 "--duration 'abc': seconds" -d abc --spawn
t "--duration 0 names --duration" 2 "--duration '0': seconds, > 0" --duration 0 --spawn
t "--restart-at x names --restart-at" 2 "--restart-at 'x': seconds" --restart-at x --spawn
t "--csum -l 60 names --csum" 2 "--csum: needs --size 78..9018" --csum -l 60 --spawn
t "--csum --flows names --csum" 2 "--csum: .*not --flows" --csum --flows 4 -l 100 --spawn
echo "1..$N"
exit $FAILED
