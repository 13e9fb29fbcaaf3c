#!/usr/bin/env bash
# bench/insn-per-frame.sh - vnetd's instructions per frame (callgrind), the figure a change
# to the data path is checked against: it does not depend on the machine's load.
#
# For each case: vnetd under `valgrind --tool=callgrind` (--sandbox off), vnet-bench as
# the VM for BENCH_SECS, then callgrind's program total over the packets vnetd's rings
# moved (`vnetctl status --json`). Cases, split and packed rings:
#   rx    guest RX: --backend gen, vnet-bench --mode rx-only
#   tx    guest TX: --backend null, --mode tx-only
#   loop  --backend loop, --mode bidirectional; per direction (both rings' packets)
#   switch  two ports on one --switch: VM B (rx-only) connects first, VM A sends to B's
#         port MAC (tx-only); per frame B received (A's TX and B's RX both counted)
# Output: one line per case, "insn <ring> <case> <instructions per frame> <packets>",
# then a table. The count includes vnetd's start, idle wakes and exit, spread over
# millions of frames: repeat runs agree to 1-2 %.
# Usage: bench/insn-per-frame.sh [CASES...]   (default: rx tx loop)
# Environment: BENCH_SECS (default 4), BENCH_RINGS (default "split packed"),
#   VNETD, BENCH, CTL (binaries, default build/*), BENCH_OUT (keep the callgrind files there)
# Needs: valgrind, python3, a build (make).
set -u
cd "$(dirname "$0")/.." || exit 1
VNETD=${VNETD:-build/vnetd} BENCH=${BENCH:-build/vnet-bench} CTL=${CTL:-build/vnetctl}
SECS=${BENCH_SECS:-4}
CASES=("${@:-rx tx loop}")
read -r -a CASES <<< "${CASES[*]}"
for b in "$VNETD" "$BENCH" "$CTL"; do [ -x "$b" ] || { echo "insn-per-frame: $b not built (make)" >&2; exit 2; }; done
command -v valgrind > /dev/null || { echo "insn-per-frame: valgrind missing (apt-get install valgrind)" >&2; exit 2; }
command -v python3 > /dev/null || { echo "insn-per-frame: python3 missing" >&2; exit 2; }
T=$(mktemp -d /tmp/insn-per-frame.XXXXXX)
trap 'rm -rf "$T"' EXIT
OUT=${BENCH_OUT:-$T}
declare -A RES

# one RING CASE: prints the "insn" line; returns 1 when a step failed
one() {
	local ring=$1 c=$2 backend mode extra=() pid tot pk _
	case $c in
	rx) backend=gen mode=rx-only ;;
	tx) backend=null mode=tx-only ;;
	loop) backend=loop mode=bidirectional ;;
	switch) switch_one "$ring"; return ;;
	*) echo "insn-per-frame: unknown case $c (rx, tx, loop, switch)" >&2; return 1 ;;
	esac
	[ "$ring" = packed ] && extra=(--packed)
	rm -f "$T/s" "$T/c"
	valgrind --tool=callgrind --callgrind-out-file="$OUT/cg.$ring.$c" "$VNETD" --socket "$T/s" \
		--backend "$backend" --sandbox off --ctl-socket "$T/c" > "$T/vnetd.log" 2>&1 &
	pid=$!
	for _ in $(seq 150); do [ -S "$T/s" ] && [ -S "$T/c" ] && break; sleep 0.2; done
	if ! "$BENCH" --socket "$T/s" --mode "$mode" -d "$SECS" --no-check-seq "${extra[@]}" > "$T/bench.log" 2>&1; then
		echo "insn-per-frame: $ring $c: vnet-bench failed: $(tail -2 "$T/bench.log")" >&2
	fi
	"$CTL" status --socket "$T/c" --json > "$T/st.json" 2> /dev/null
	kill -INT "$pid"; wait "$pid"
	tot=$(sed -n 's/^summary: //p' "$OUT/cg.$ring.$c")
	pk=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print(sum(p["rx"]["packets"] + p["tx"]["packets"] for p in d["ports"][0]["pairs"]))' "$T/st.json" 2> /dev/null)
	if [ -z "$tot" ] || [ -z "$pk" ] || [ "$pk" = 0 ]; then
		echo "insn-per-frame: $ring $c: no count (total '${tot:-}', packets '${pk:-}')" >&2
		return 1
	fi
	RES[$ring.$c]=$(awk -v t="$tot" -v p="$pk" 'BEGIN { printf "%.1f", t / p }')
	echo "insn $ring $c ${RES[$ring.$c]} $pk"
}

# switch_one RING: the switch case (see the header)
switch_one() {
	local ring=$1 extra=() pid bpid tot pk _ mb=02:5b:00:00:0b:01
	[ "$ring" = packed ] && extra=(--packed)
	rm -f "$T/a" "$T/b" "$T/c"
	valgrind --tool=callgrind --callgrind-out-file="$OUT/cg.$ring.switch" "$VNETD" --switch s0 \
		--port "name=a,socket=$T/a,switch=s0,mac=02:5b:00:00:0a:01" \
		--port "name=b,socket=$T/b,switch=s0,mac=$mb" \
		--sandbox off --vhost-net off --ctl-socket "$T/c" > "$T/vnetd.log" 2>&1 &
	pid=$!
	for _ in $(seq 150); do [ -S "$T/b" ] && [ -S "$T/c" ] && break; sleep 0.2; done
	"$BENCH" --socket "$T/b" --mode rx-only -d $((SECS + 2)) --no-check-seq "${extra[@]}" > "$T/b.log" 2>&1 &
	bpid=$!
	sleep 1
	"$BENCH" --socket "$T/a" --mode tx-only -d "$SECS" --no-check-seq --dst-mac "$mb" \
		--src-mac 02:5b:00:00:0a:01 "${extra[@]}" > "$T/bench.log" 2>&1 ||
		echo "insn-per-frame: $ring switch: vnet-bench A failed: $(tail -2 "$T/bench.log")" >&2
	wait "$bpid"
	"$CTL" status --socket "$T/c" --json > "$T/st.json" 2> /dev/null
	kill -INT "$pid"; wait "$pid"
	tot=$(sed -n 's/^summary: //p' "$OUT/cg.$ring.switch")
	pk=$(python3 -c 'import json,sys
d = {p["name"]: p for p in json.load(open(sys.argv[1]))["ports"]}
print(sum(q["rx"]["packets"] for q in d["b"]["pairs"]))' "$T/st.json" 2> /dev/null)
	if [ -z "$tot" ] || [ -z "$pk" ] || [ "$pk" = 0 ]; then
		echo "insn-per-frame: $ring switch: no count (total '${tot:-}', packets '${pk:-}')" >&2
		return 1
	fi
	RES[$ring.switch]=$(awk -v t="$tot" -v p="$pk" 'BEGIN { printf "%.1f", t / p }')
	echo "insn $ring switch ${RES[$ring.switch]} $pk"
}

rc=0
for ring in ${BENCH_RINGS:-split packed}; do
	for c in "${CASES[@]}"; do one "$ring" "$c" || rc=1; done
done
printf '\n%-8s' ring; printf ' %8s' "${CASES[@]}"; echo
for ring in ${BENCH_RINGS:-split packed}; do
	printf '%-8s' "$ring"
	for c in "${CASES[@]}"; do printf ' %8s' "${RES[$ring.$c]:--}"; done
	echo
done
exit $rc
