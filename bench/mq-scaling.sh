#!/usr/bin/env bash
# mq-scaling.sh - multiqueue scaling of one VM: aggregate
# frames/s of one vnet-bench VM with P queue pairs against one vnetd port with
# --queues P (loop backend; the pairs on vnetd's worker pool, one thread per CPU,
# so P threads while P <= CPUs), for each P of BENCH_PAIRS, and the speedup over 1 pair. Rounds alternate the order of the
# pair counts; the table gives medians. The goal is >= 14x at 16 pairs on a
# machine with enough cores (each pair runs two busy threads: vnet-bench's and
# vnetd's, so 16 pairs want 32 CPUs to scale fully; fewer CPUs cap it).
#
# Usage: bench/mq-scaling.sh
# Env:   BENCH_PAIRS ("1 2 4 8 16"), ROUNDS (3), SECS (3: window per run),
#        BENCH_MODE (bidirectional; or tx-only), BENCH_SIZE (64), BENCH_POLL (0; 1:
#        vnet-bench and vnetd busy-poll), VNET_BENCH, VNETD
# Time: about ROUNDS * count(BENCH_PAIRS) * (SECS + 2) s: ~75 s with the defaults,
# well under 5 minutes on a 16-core machine.
# Exit status: 1 if any run failed its sequence check.
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/lib/common.sh
. bench/lib.sh
read -r -a PAIRS <<< "${BENCH_PAIRS:-1 2 4 8 16}"
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-3}
MODE=${BENCH_MODE:-bidirectional}
SIZE=${BENCH_SIZE:-64}
BENCH=${VNET_BENCH:-build/vnet-bench}
VNETD=${VNETD:-build/vnetd}
export VNETD
[ -x "$BENCH" ] && [ -x "$VNETD" ] || { echo "$BENCH or $VNETD not built (run make)"; exit 1; }
POLL=(); [ "${BENCH_POLL:-0}" = 1 ] && POLL=(--poll)
D=$(mktemp -d /tmp/mq-scaling.XXXXXX)
cleanup_path "$D"
field() { [ "$MODE" = tx-only ] && bench_field tx_mpps "$1" || bench_field rx_mpps "$1"; }

echo "# mq-scaling: $MODE ${SIZE} B, pairs ${PAIRS[*]}, ${SECS}s windows, $ROUNDS rounds, $(nproc) CPUs${POLL:+, busy poll}"
bench_machine start
FAILED=0
for ((round = 1; round <= ROUNDS; round++)); do
	order=("${PAIRS[@]}")
	if ((round % 2 == 0)); then
		order=(); for ((i = ${#PAIRS[@]} - 1; i >= 0; i--)); do order+=("${PAIRS[$i]}"); done
	fi
	for p in "${order[@]}"; do
		out=$(timeout $((SECS + 60)) "$BENCH" --spawn --check-seq --json -d "$SECS" \
			--pairs "$p" --mode "$MODE" --size "$SIZE" "${POLL[@]}" 2>&1)
		rc=$?
		m=$(field "$out")
		if [ "$rc" != 0 ] || ! grep -q '"ok": true' <<< "$out"; then
			FAILED=1; echo "# round $round, $p pairs: FAILED (rc $rc)"; sed 's/^/#   /' <<< "$out" | tail -n 5
			continue
		fi
		echo "$m" >> "$D/$p"
		echo "# round $round, $p pair(s): $m Mpps"
	done
done
bench_machine end
# rate P: the median of P pairs' good runs, "-" if none was good
rate() { if [ -s "$D/$1" ]; then bench_median < "$D/$1"; else echo -; fi; }
base=$(rate "${PAIRS[0]}")
{
	echo "pairs mpps speedup per_pair_eff"
	for p in "${PAIRS[@]}"; do
		awk -v p="$p" -v m="$(rate "$p")" -v b="$base" -v p0="${PAIRS[0]}" 'BEGIN {
			if (m == "-" || b == "-") { printf "%s %s - -\n", p, m; exit }
			s = m / b
			printf "%s %s %.2f %.2f\n", p, m, s, s / (p / p0) }'
	done
} | column -t
exit $FAILED
