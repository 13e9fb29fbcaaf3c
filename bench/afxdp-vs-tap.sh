#!/usr/bin/env bash
# afxdp-vs-tap.sh - vnetd's two host sides in the same run: --backend af_xdp
# on one end of a veth pair (native XDP on veth, copy mode) against
# --backend tap, 64 B frames, one queue pair, rounds alternating between
# the two so both meet the same machine state; medians per case, the load
# average printed at the start and the end.
#
#   guest TX   vnet-bench --mode tx-only: frames/s the guest gets out
#              (af_xdp: the peer's RX counter must have them all)
#   guest RX   bench/tap-sender offers RATE frames/s from the far side (the
#              veth's peer, or the TAP's host side) for the window;
#              vnet-bench --mode rx-only counts what the guest got
#   vnetd CPU  per frame, from /proc/PID/stat (utime + stime) over the window,
#              as bench/tap-rx-load.sh prints it for the TAP
#   syscalls   per frame, the forwarder's (vnetd's, or testpmd's) system calls
#              of every kind over the window (perf stat -e raw_syscalls:sys_enter
#              -p PID; "nan" where perf cannot count them: no perf, no tracefs)
#
# A third contestant, when dpdk-testpmd is there: testpmd net_vhost <->
# net_af_xdp on the same veth end, the same frontend and sender.
#
# Usage: bench/afxdp-vs-tap.sh [ROUNDS [SECONDS]]   (default 3 rounds of 5 s)
# Env:   RX_RATES  offered rates for guest RX, frames/s, 0 = as fast as the
#                  sender can (default: "100000 500000 0")
#        VNETD_OLD another vnetd binary (an older build): a fourth contestant,
#                  af_xdp_old, on the same rounds; a last table gives the two
#                  af_xdp builds' CPU per frame and the median per-round ratio
#        BENCH_DPDK=0  leave out the third contestant: DPDK testpmd with
#                  net_vhost <-> net_af_xdp (io forwarding) on the same veth
#                  end, as /work/shared/docs/new-exits.md runs it (default: on
#                  when dpdk-testpmd is installed); TESTPMD: its path
# Needs root, network namespaces, /dev/net/tun and a vnetd built with libxdp.
# Prints one line per round ("round N BACKEND CASE mpps=... cpu_ns=...") and
# a table; exit 0, 77 if it cannot run here (and why).
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
ROUNDS=${1:-3}
SECS=${2:-5}
RX_RATES=${RX_RATES:-100000 500000 0}
VNETD=$PWD/build/vnetd
BENCH=$PWD/build/vnet-bench
SENDER=$PWD/build/bench/tap-sender
TESTPMD=${TESTPMD:-dpdk-testpmd}
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (network namespace, XDP)"
[ -x "$VNETD" ] && [ -x "$BENCH" ] || skip "build first (make)"
"$VNETD" --help 2>&1 | grep -q 'host side:.*af_xdp' || skip "vnetd built without libxdp/libbpf"
if [ ! -x "$SENDER" ] || [ bench/tap-sender.c -nt "$SENDER" ]; then
	mkdir -p "$(dirname "$SENDER")"
	${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -o "$SENDER" bench/tap-sender.c ||
		skip "cannot build bench/tap-sender.c"
fi
NS=vnaxb$$
SOCK=/tmp/afxdp-vs-tap-$$.sock
CTL=/tmp/afxdp-vs-tap-$$.ctl
LOG=/tmp/afxdp-vs-tap-$$.log
OUT=/tmp/afxdp-vs-tap-$$.rounds
SYSF=/tmp/afxdp-vs-tap-$$.sys
VPID=
cleanup() {
	[ -n "$VPID" ] && kill "$VPID" 2>/dev/null && wait "$VPID" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -f "$SOCK" "$CTL" "$LOG" "$OUT" "$SYSF"
}
trap cleanup EXIT
ip netns add "$NS" || skip "cannot create a network namespace"
nsx() { ip netns exec "$NS" "$@"; }
nsx ip link set lo up
nsx ip link add xa type veth peer name xb || skip "cannot make a veth pair"
for i in xa xb; do
	nsx sysctl -qw net.ipv6.conf.$i.disable_ipv6=1
	nsx ip link set $i up
done
mount | grep -q ' /sys/fs/bpf type bpf' || mount -t bpf bpf /sys/fs/bpf 2>/dev/null

field() { sed -n 's/.*"total": {\(.*\)}.*/\1/p' <<< "$2" | grep -o "\"$1\": [0-9.]*" | awk '{print $2}'; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }

start() {	# BACKEND: vnetd (or testpmd) on the far end, its socket ready
	local args
	if [ "$1" = dpdk ]; then
		# net_vhost <-> net_af_xdp on the same veth end, io forwarding
		# (docs: /work/shared/docs/new-exits.md's recipe); its own XDP
		# program: vnetd's is taken off first
		nsx ip link set xa xdp off 2>/dev/null
		rm -f "$SOCK"
		ip netns exec "$NS" "$TESTPMD" --no-pci --no-huge -m 1024 --no-shconf \
			--file-prefix "axb-$$" --log-level=lib.eal:notice -l 0,1 \
			--vdev "net_vhost0,iface=$SOCK,queues=1,client=0" \
			--vdev "net_af_xdp0,iface=xa,start_queue=0,queue_count=1" -- \
			--no-mlockall --burst=32 --nb-cores=1 --total-num-mbufs=16384 \
			--port-topology=paired --forward-mode=io --auto-start --stats-period 1 \
			> "$LOG" 2>&1 < /dev/null &
		VPID=$!
		for _ in $(seq 200); do [ -S "$SOCK" ] && return 0; sleep 0.05; done
		echo "# testpmd did not start: $(tail -n 3 "$LOG")" >&2
		return 1
	fi
	nsx ip link set xa xdp off 2>/dev/null
	local bin=$VNETD
	[ "$1" = af_xdp_old ] && bin=$VNETD_OLD
	if [ "${1%_old}" = af_xdp ]; then
		args=(--backend af_xdp --xdp-if xa)
	else
		args=(--backend tap --tap vt0)
	fi
	rm -f "$SOCK"
	ip netns exec "$NS" "$bin" --socket "$SOCK" --ctl-socket "$CTL" "${args[@]}" \
		> "$LOG" 2>&1 &
	VPID=$!
	for _ in $(seq 100); do [ -S "$SOCK" ] && return 0; sleep 0.05; done
	echo "# vnetd --backend $1 did not start: $(tail -n 2 "$LOG")" >&2
	return 1
}
stop() { kill -INT "$VPID" 2>/dev/null; wait "$VPID" 2>/dev/null; VPID=; }

# Can perf count system calls here? (the raw_syscalls tracepoint needs tracefs)
SYSCNT=
perf stat -x, -e raw_syscalls:sys_enter true 2>&1 > /dev/null | grep -q ',raw_syscalls:sys_enter' &&
	SYSCNT=1
[ -z "$SYSCNT" ] && echo "# perf cannot count raw_syscalls:sys_enter here: syscalls per frame are nan"
# sys_start PID SECS: count PID's system calls for SECS seconds, in the background
sys_start() {
	[ -n "$SYSCNT" ] || return 0
	perf stat -x, -e raw_syscalls:sys_enter -p "$1" -- sleep "$2" 2> "$SYSF" &
	SYSP=$!
}
# sys_per FRAMES: those calls per frame, once the count is done
sys_per() {
	[ -n "$SYSCNT" ] || { echo nan; return; }
	wait "$SYSP"
	awk -F, -v f="$1" '$3 ~ /raw_syscalls/ { n = $1 } END {
		if (f > 0 && n != "" && n !~ /not/) printf "%.4f", n / f; else print "nan" }' "$SYSF"
}

# ns of vnetd CPU per frame over the window
cpu_ns() { awk -v t="$1" -v f="$2" -v hz="$(getconf CLK_TCK)" \
	'BEGIN { if (f > 0) printf "%.0f", t / hz * 1e9 / f; else print "nan" }'; }

one_round() {	# ROUND BACKEND
	local r=$1 b=$2 res t0 t1 before got sent rate dev far
	start "$b" || return 1
	# guest TX
	before=$(nsx cat /sys/class/net/xb/statistics/rx_packets)
	t0=$(cpu_ticks "$VPID")
	sys_start "$VPID" "$SECS"
	res=$(nsx "$BENCH" --socket "$SOCK" --mode tx-only -d "$SECS" --json 2>&1)
	t1=$(cpu_ticks "$VPID")
	sent=$(field tx_frames "$res")
	got=$(( $(nsx cat /sys/class/net/xb/statistics/rx_packets) - before ))
	far=; [ "$b" != tap ] && far=" at_peer=$got"
	echo "round $r $b tx mpps=$(field tx_mpps "$res") cpu_ns=$(cpu_ns $((t1 - t0)) "${sent:-0}")$far sys=$(sys_per "${sent:-0}")"
	# guest RX from a paced sender on the far side
	dev=xb; [ "$b" = tap ] && dev=vt0
	[ "$b" = dpdk ] && sleep 1	# net_vhost links up after the first session
	nsx ip link set "$dev" up 2>/dev/null
	for rate in $RX_RATES; do
		nsx "$BENCH" --socket "$SOCK" --mode rx-only -d $((SECS + 2)) --json > "$OUT" 2>&1 &
		local bp=$!
		sleep 1
		t0=$(cpu_ticks "$VPID")
		sys_start "$VPID" "$SECS"
		nsx "$SENDER" "$dev" "$rate" "$SECS" > /dev/null 2>&1
		t1=$(cpu_ticks "$VPID")
		wait $bp
		res=$(cat "$OUT")
		got=$(field rx_frames "$res")
		echo "round $r $b rx@$rate mpps=$(awk -v n="${got:-0}" -v s="$SECS" 'BEGIN { printf "%.4f", n / s / 1e6 }') cpu_ns=$(cpu_ns $((t1 - t0)) "${got:-0}") sys=$(sys_per "${got:-0}")"
	done
	stop
}

bench_machine start
ROUNDLINES=$(mktemp /tmp/afxdp-vs-tap-lines.XXXXXX)
DPDK=; command -v "$TESTPMD" > /dev/null && [ "${BENCH_DPDK:-1}" = 1 ] && DPDK=dpdk
[ -z "$DPDK" ] && echo "# no $TESTPMD (or BENCH_DPDK=0): the testpmd rounds are left out"
OLD=
if [ -n "${VNETD_OLD:-}" ]; then
	[ -x "$VNETD_OLD" ] || skip "VNETD_OLD=$VNETD_OLD: not an executable"
	OLD=af_xdp_old
fi
for r in $(seq "$ROUNDS"); do
	if [ $((r % 2)) = 1 ]; then order="af_xdp tap $DPDK $OLD"; else order="$OLD $DPDK tap af_xdp"; fi
	for b in $order; do
		one_round "$r" "$b" | tee -a "$ROUNDLINES"
	done
done
bench_machine end
# vals BACKEND CASE KEY: KEY's value in each of that contestant's round lines, in round order
vals() { grep " $1 $2 " "$ROUNDLINES" | grep -o "$3=[0-9.nan]*" | cut -d= -f2; }
med_of() { vals "$@" | bench_median; }
ratio() { awk -v a="$1" -v t="$2" 'BEGIN { if (t > 0) printf "%.2f", a / t; else print "nan" }'; }
printf '%-12s %12s %12s %12s %8s %8s %14s %14s %11s %11s %11s\n' case af_xdp_mpps tap_mpps \
	dpdk_mpps vs_tap vs_dpdk af_xdp_cpu_ns tap_cpu_ns af_xdp_sys tap_sys dpdk_sys
for c in tx $(for x in $RX_RATES; do echo "rx@$x"; done); do
	a=$(med_of af_xdp "$c" mpps); t=$(med_of tap "$c" mpps); d=$(med_of dpdk "$c" mpps)
	printf '%-12s %12s %12s %12s %8s %8s %14s %14s %11s %11s %11s\n' "$c" "$a" "$t" "$d" \
		"$(ratio "$a" "$t")" "$(ratio "$a" "$d")" \
		"$(med_of af_xdp "$c" cpu_ns)" "$(med_of tap "$c" cpu_ns)" \
		"$(med_of af_xdp "$c" sys)" "$(med_of tap "$c" sys)" "$(med_of dpdk "$c" sys)"
done
echo "# dpdk: testpmd net_vhost <-> net_af_xdp (io), its forwarding lcore polls a CPU;" \
	"cpu_ns is vnetd's only (testpmd's is its whole polling CPU)"
echo "# medians of $ROUNDS rounds of ${SECS} s, 64 B, 1 pair; rx@0: the sender as fast as it can;" \
	"*_sys: the forwarder's system calls per frame (testpmd's whole process)"
if [ -n "$OLD" ]; then
	# per round: this build's CPU per frame over the old one's
	pair() { paste -d' ' <(vals af_xdp "$1" cpu_ns) <(vals af_xdp_old "$1" cpu_ns) |
		awk '$1 ~ /^[0-9.]+$/ && $2 ~ /^[0-9.]+$/ && $2 > 0 { printf "%.3f\n", $1 / $2 }' | bench_median; }
	printf '%-12s %14s %14s %12s\n' case af_xdp_cpu_ns old_cpu_ns new_vs_old
	for c in tx $(for x in $RX_RATES; do echo "rx@$x"; done); do
		printf '%-12s %14s %14s %12s\n' "$c" "$(med_of af_xdp "$c" cpu_ns)" \
			"$(med_of af_xdp_old "$c" cpu_ns)" "$(pair "$c")"
	done
	echo "# old: $VNETD_OLD; new_vs_old: the median over the rounds of this build's CPU per frame over the old one's"
fi
rm -f "$ROUNDLINES"
