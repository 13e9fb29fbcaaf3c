#!/usr/bin/env bash
# switch-vs.sh - VM to VM through vnetd's switch against its anchors: 64 B
# frames, one queue pair per VM; VM A sends (vnet-bench --mode tx-only), VM B
# receives (vnet-bench --mode rx-only --no-drain), and the figure is the rate
# B receives over its window. Both frontends run on BENCH_FE_CPU (default 0),
# the forwarder on BENCH_BE_CPU (default 1). ROUNDS rounds alternate the
# cases (odd rounds in order, even rounds reversed), each case once per ring
# layout (BENCH_RINGS, default "split packed"); per case the median of its
# rounds. Cases (BENCH_CASES, default "switch ovs testpmd bridge"):
#
#   switch   vnetd --switch s0, two ports switch=s0 (--poll-us BENCH_POLL_US,
#            default 50); skipped, saying so, while vnetd has no --switch
#   ovs      OVS-DPDK (ovs-vswitchd-dpdk, its own database, run directory and
#            network namespace), bridge with the NORMAL action, two
#            dpdkvhostuser ports (OVS listens: vnet-bench cannot act as a
#            vhost-user server), one PMD thread on the forwarder's CPU, no
#            hugepages (-m 3072 --legacy-mem); OVS is started for each round
#            and stopped after it (its PMD polls a whole CPU)
#   testpmd  DPDK testpmd, two net_vhost ports, --forward-mode=io: no
#            learning, the upper bound of a switch on DPDK's vhost library
#   bridge   vnetd --backend tap for both VMs (--vhost-net off), both TAPs on
#            a Linux bridge in a network namespace this script creates and
#            deletes
#
# With --vms N (even, 4..32): N VMs in N/2 pairs on one vnetd switch, vnetd
# --worker-threads 2: the aggregate rate the N/2 receivers get, the slowest
# receiver over their mean, and the aggregate over the single pair's median
# (switch case, same ring layout). vnetd only; skipped with the switch case.
#
# Which MAC the frames carry: vnet-bench sends broadcast frames unless it has
# --dst-mac. With --dst-mac, A sends to B's port MAC, and B announces that
# MAC as it connects for the window (vnet-bench --announce: one broadcast
# frame, as a guest's gratuitous ARP after link-up), so a switch that learned
# it in the warm-up (a one-second tx-only run from B) and forgot it when B's
# frontend disconnected does not flood A's frames as unknown unicast (vnetd's
# switch knows a port's mac= from its config anyway). Without --dst-mac the
# frames are broadcast and a learning switch floods
# them to every other port: with two ports that is the same forwarding as a
# unicast to B; with --vms N each frame goes to all N - 1 other VMs (the
# result lines say so). vnet-bench's rx-only counts every frame it receives,
# whoever sent it; --no-drain stops the count at the window's end.
#
# Each measurement: a warm-up of BENCH_WARMUP s (default 2; OVS builds its
# vhost mbuf pool at the first connection), then A sends, B connects 1 s after
# A and counts for SECONDS, and A stops when B is done (SECONDS + 3 s at most).
#
# The forwarder's own cost per frame, in the same rounds (the rate alone is
# bound by whichever side is slower, and the two frontends share one CPU):
# busy time over the frames the forwarder took from A, over B's window less
# its first 0.3 s and its last 0.1 s.
#   switch, bridge, --vms: vnetd's busy_ns (vnetctl status: time its
#            workers spent moving frames, idle polls and sleeps not counted;
#            for the bridge it includes the TAP writes and reads, and so the
#            kernel's bridge work done inside them) over A's TX frames
#   ovs      the PMD's processing cycles over the packets it received
#            (ovs-appctl dpif-netdev/pmd-stats-clear, then pmd-stats-show);
#            cycles become ns as the share of all cycles the PMD counted
#            over the same wall-clock interval (it polls its CPU all the
#            time), so no clock rate is assumed
#   testpmd  its forward statistics with --record-core-cycles: cycles of
#            the polls that received frames (empty polls not counted) over
#            the packets received, between "clear fwd stats all" and "show
#            fwd stats all" typed at its prompt (-i, from a FIFO), in ns at
#            the TSC rate it prints with them ("at N MHz Clock")
#   vnetd's busy_ns and testpmd's cycles leave out empty polls; the OVS PMD's
#   processing cycles leave out its idle polls the same way
#
# Usage: bench/switch-vs.sh [--vms N] [SECONDS] [ROUNDS]   (default 5 s, 3 rounds)
# Env:   VNETD (build/vnetd), VNET_BENCH (build/vnet-bench), TESTPMD
#        (dpdk-testpmd), OVS_VSWITCHD_DPDK
#        (/usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk), BENCH_CASES,
#        BENCH_RINGS, BENCH_FE_CPU, BENCH_BE_CPU, BENCH_POLL_US, BENCH_WARMUP,
#        BENCH_FE_ARGS (more vnet-bench flags, e.g. --poll)
# Output: "# start:" (CPU, load average), one line per skipped case
# ("CASE: skipped: WHY"), one line per round ("round R RING CASE: B rx X
# Mpps (A tx Y Mpps), forwarder N ns/frame"), "# end:", then the table per
# ring layout and case:
#   ring case rx_mpps switch_ratio pair_ratio fwd_ns cap_ratio
# fwd_ns: the median of the case's forwarder ns/frame ("-" where none);
# cap_ratio: the case's fwd_ns over the switch's (above 1: the switch spends
# less per frame); switch_ratio: the switch's median over the case's median; pair_ratio: the
# median of the per-round ratios (the switch's round r over the case's round
# r, minutes apart at most); "-" while the switch case does not run. With
# --vms: ring vms agg_mpps slowest_over_mean vs_single.
# Exit: 0 done, 1 a round failed (no rate), 2 usage, 77 no case could run.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
. tests/lib/common.sh

usage() { echo "usage: bench/switch-vs.sh [--vms N] [SECONDS] [ROUNDS]: $*" >&2; exit 2; }
VMS=0
if [ "${1:-}" = --vms ]; then
	VMS=${2:-}
	shift 2 2>/dev/null || usage "--vms needs a number"
	[[ $VMS =~ ^[0-9]+$ ]] && [ "$VMS" -ge 4 ] && [ "$VMS" -le 32 ] && [ $((VMS % 2)) = 0 ] ||
		usage "--vms '$VMS': an even number, 4..32"
fi
SECS=${1:-5}
ROUNDS=${2:-3}
[[ $SECS =~ ^[0-9]+$ ]] && [ "$SECS" -ge 1 ] && [ "$SECS" -le 3600 ] || usage "SECONDS '$SECS': 1..3600"
[[ $ROUNDS =~ ^[0-9]+$ ]] && [ "$ROUNDS" -ge 1 ] && [ "$ROUNDS" -le 100 ] || usage "ROUNDS '$ROUNDS': 1..100"
VNETD=${VNETD:-$PWD/build/vnetd}
BENCH=${VNET_BENCH:-$PWD/build/vnet-bench}
VNETCTL=${VNETCTL:-$(dirname "$VNETD")/vnetctl}
TESTPMD=${TESTPMD:-dpdk-testpmd}
OVSD=${OVS_VSWITCHD_DPDK:-/usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk}
FE_CPU=${BENCH_FE_CPU:-0}
BE_CPU=${BENCH_BE_CPU:-1}
POLL_US=${BENCH_POLL_US:-50}
WARMUP=${BENCH_WARMUP:-2}
CASES=${BENCH_CASES:-switch ovs testpmd bridge}
RINGS=${BENCH_RINGS:-split packed}
for c in $CASES; do
	case $c in switch|ovs|testpmd|bridge) ;; *) usage "BENCH_CASES: '$c' is not switch, ovs, testpmd or bridge" ;; esac
done
for r in $RINGS; do
	case $r in split|packed) ;; *) usage "BENCH_RINGS: '$r' is not split or packed" ;; esac
done
[ -x "$VNETD" ] && [ -x "$BENCH" ] || { echo "SKIP: $VNETD or $BENCH not built (run make)"; exit 77; }
"$BENCH" --help 2>&1 | grep -q -- '--no-drain' || { echo "SKIP: $BENCH has no --no-drain"; exit 77; }

TMP=$(mktemp -d /tmp/switch-vs.XXXXXX)
NS=vsw$$		# bridge case: the TAPs and the bridge
NSO=vso$$		# ovs case: the bridge's internal port stays out of the host
FPID='' OVSDIR=$TMP/ovs
DST_MAC=''
"$BENCH" --help 2>&1 | grep -q -- '--dst-mac' && DST_MAC=1
ANNOUNCE=''		# B announces its MAC as it connects for the window
"$BENCH" --help 2>&1 | grep -q -- '--announce' && ANNOUNCE=--announce
mac_a() { printf '02:5b:00:00:0a:%02x' "$1"; }
mac_b() { printf '02:5b:00:00:0b:%02x' "$1"; }

# pid_stop FILE: stop the daemon whose pid FILE holds (not our child)
pid_stop() {
	local p _
	[ -s "$1" ] || return 0
	p=$(cat "$1")
	kill "$p" 2>/dev/null || return 0
	for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || return 0; sleep 0.1; done
	kill -KILL "$p" 2>/dev/null
}

# fwd_stop: whichever forwarder runs, and what it left behind
fwd_stop() {
	stop_pid "$FPID" INT; FPID=''
	exec 7>&-
	pid_stop "$OVSDIR/vswitchd.pid"; pid_stop "$OVSDIR/ovsdb.pid"
	rm -rf "$OVSDIR" "/var/run/dpdk/vsw-$$" "/var/run/dpdk/vso-$$"
	ip netns del "$NS" 2>/dev/null; ip netns del "$NSO" 2>/dev/null
	rm -f "$TMP"/*.sock
}
trap 'fwd_stop; cleanup_all; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

# why_not CASE: empty if CASE can run here, else why not (one line)
why_not() {
	case $1 in
	switch|vms)
		"$VNETD" --help 2>&1 | grep -q -- '--switch' || echo "vnetd has no --switch" ;;
	ovs)
		if [ "$(id -u)" != 0 ]; then echo "needs root (DPDK, network namespace)"
		elif [ ! -x "$OVSD" ]; then echo "no $OVSD (apt-get install openvswitch-switch-dpdk)"
		elif ! command -v ovsdb-server >/dev/null || ! command -v ovs-vsctl >/dev/null ||
		     ! command -v ovsdb-tool >/dev/null; then echo "no ovsdb-server, ovsdb-tool or ovs-vsctl"
		elif [ ! -r /usr/share/openvswitch/vswitch.ovsschema ]; then echo "no /usr/share/openvswitch/vswitch.ovsschema"
		elif ! ip netns add "$NSO" 2>/dev/null; then echo "cannot create a network namespace"
		else ip netns del "$NSO"; fi ;;
	testpmd)
		if [ "$(id -u)" != 0 ]; then echo "needs root (DPDK's runtime directory)"
		elif ! command -v "$TESTPMD" >/dev/null; then echo "no $TESTPMD (apt-get install dpdk)"; fi ;;
	bridge)
		if [ "$(id -u)" != 0 ]; then echo "needs root (network namespace, TAP)"
		elif [ ! -c /dev/net/tun ]; then echo "no /dev/net/tun"
		elif ! ip netns add "$NS" 2>/dev/null; then echo "cannot create a network namespace"
		else ip netns del "$NS"; fi ;;
	esac
}

# vnetd_start N [EXTRA...]: vnetd with N VMs' ports, A i at $TMP/aI.sock, B i
# at $TMP/bI.sock, MACs mac_a/mac_b; EXTRA: more vnetd flags; switch ports
# unless EXTRA names a backend
vnetd_start() {
	local n=$1 i args=() pre=()
	shift
	local kind=switch=s0 top=(--switch s0)
	if [ "${1:-}" = tap ]; then
		shift; kind=backend=tap top=(); pre=(ip netns exec "$NS")
	fi
	for ((i = 0; i < n; i++)); do
		local ta='' tb=''
		[ "$kind" = backend=tap ] && ta=,tap=vta$i tb=,tap=vtb$i
		args+=(--port "name=a$i,socket=$TMP/a$i.sock,mac=$(mac_a "$i"),$kind$ta")
		args+=(--port "name=b$i,socket=$TMP/b$i.sock,mac=$(mac_b "$i"),$kind$tb")
	done
	"${pre[@]}" taskset -c "$BE_CPU" "$VNETD" "${top[@]}" "${args[@]}" --vhost-net off \
		--poll-us "$POLL_US" --ctl-socket "$TMP/ctl.sock" --log-level warn "$@" \
		2> "$TMP/fwd.log" &
	FPID=$!
	wait_sock "$TMP/b$((n - 1)).sock" 10 "$FPID"
}

# bridge_start: the two TAP ports in $NS, on one Linux bridge
bridge_start() {
	local i t
	netx() { ip netns exec "$NS" "$@"; }
	ip netns add "$NS" || return 1
	netx ip link set lo up
	netx sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	netx ip link add vsbr type bridge forward_delay 0 stp_state 0 || return 1
	netx ip link set vsbr up
	vnetd_start 1 tap || return 1
	for t in vta0 vtb0; do
		for i in $(seq 50); do netx ip link show "$t" >/dev/null 2>&1 && break; sleep 0.1; done
		netx ip link set "$t" master vsbr || return 1
		netx ip link set "$t" up || return 1
	done
}

# testpmd_start: net_vhost0 (A) <-> net_vhost1 (B), io forwarding; its
# interactive prompt reads $TMP/pmd.in (held open on fd 7), so that fwd_mark
# and fwd_cost can clear and show its forward statistics for the window
testpmd_start() {
	rm -f "$TMP/pmd.in"; mkfifo "$TMP/pmd.in" || return 1
	exec 7<> "$TMP/pmd.in"
	stdbuf -oL "$TESTPMD" --lcores "0@$BE_CPU,1@$BE_CPU" --no-pci --no-huge -m 1024 --no-shconf \
		--file-prefix "vsw-$$" --log-level=lib.eal:notice \
		--vdev "net_vhost0,iface=$TMP/a0.sock,queues=1,client=0" \
		--vdev "net_vhost1,iface=$TMP/b0.sock,queues=1,client=0" -- \
		--no-mlockall --burst=32 --rxq=1 --txq=1 --nb-cores=1 --total-num-mbufs=32768 \
		--port-topology=paired --forward-mode=io --auto-start -i --record-core-cycles \
		> "$TMP/fwd.log" 2>&1 <&7 &
	FPID=$!
	wait_sock "$TMP/b0.sock" 20 "$FPID"
}

# ovs_start: OVS-DPDK, bridge vswbr (NORMAL), dpdkvhostuser ports vsa and
# vsb in its own run directory ($OVSDIR; a0.sock and b0.sock link to them),
# the PMD thread on the forwarder's CPU, the main (DPDK) lcore on the
# frontends' (it builds the mbuf pool, and starves beside a PMD); ovs_vsctl: ovs-vsctl on its database
ovs_vsctl() { OVS_RUNDIR=$OVSDIR ovs-vsctl --db="unix:$OVSDIR/db.sock" --timeout=30 "$@"; }
ovs_start() {
	local d=$OVSDIR mask
	mask=$(printf '0x%x' $((1 << BE_CPU)))
	mkdir -p "$d"
	ip netns add "$NSO" || return 1
	ovsdb-tool create "$d/conf.db" /usr/share/openvswitch/vswitch.ovsschema || return 1
	OVS_RUNDIR=$d ovsdb-server --remote="punix:$d/db.sock" --pidfile="$d/ovsdb.pid" --detach \
		--log-file="$d/ovsdb.log" --unixctl="$d/ovsdb.ctl" "$d/conf.db" > "$TMP/fwd.log" 2>&1 ||
		return 1
	ovs_vsctl --no-wait init || return 1
	ovs_vsctl --no-wait set Open_vSwitch . other_config:dpdk-init=true \
		other_config:dpdk-extra="--no-huge -m 3072 --no-pci --legacy-mem --file-prefix vso-$$" \
		other_config:pmd-cpu-mask="$mask" \
		other_config:dpdk-lcore-mask="$(printf '0x%x' $((1 << FE_CPU)))" || return 1
	OVS_RUNDIR=$d ip netns exec "$NSO" "$OVSD" "unix:$d/db.sock" \
		--pidfile="$d/vswitchd.pid" --detach --log-file="$d/vswitchd.log" \
		--unixctl="$d/vswitchd.ctl" > "$TMP/fwd.log" 2>&1 || return 1
	[ "$(ovs_vsctl get Open_vSwitch . dpdk_initialized)" = true ] || return 1
	ovs_vsctl add-br vswbr -- set bridge vswbr datapath_type=netdev || return 1
	ovs_vsctl add-port vswbr vsa -- set Interface vsa type=dpdkvhostuser || return 1
	ovs_vsctl add-port vswbr vsb -- set Interface vsb type=dpdkvhostuser || return 1
	wait_sock "$d/vsa" 10 && wait_sock "$d/vsb" 10 || return 1
	ln -sf "$d/vsa" "$TMP/a0.sock" && ln -sf "$d/vsb" "$TMP/b0.sock" || return 1
	# the first connection of each port builds OVS's mbuf pool (seconds,
	# nothing forwarded meanwhile): connect both until both ports are up, that
	# is until OVS has enabled both queues of each (it logs "has been added"
	# before it builds the pool, the queues' state after)
	local p=() i up=0
	for i in a0 b0; do
		fe -s "$TMP/$i.sock" --mode tx-only --no-drain -d 40 > /dev/null 2>&1 &
		p+=($!)
	done
	for i in $(seq 400); do
		up=$(grep -c "of vhost device '$d/vs[ab]' changed to 'enabled'" "$d/vswitchd.log")
		[ "$up" -ge 4 ] && break
		sleep 0.1
	done
	# each fe runs in a background subshell, which ignores SIGINT: signal its
	# child (timeout, which passes it on to vnet-bench), both first (--no-drain:
	# each would collect the other's frames until they stop), then reap them
	for i in "${p[@]}"; do pkill -INT -P "$i"; done
	for i in "${p[@]}"; do stop_pid "$i" INT; done
	[ "$up" -ge 4 ]
}

# fwd_start CASE RING
fwd_start() {
	case $1 in
	switch) vnetd_start 1 ;;
	vms) vnetd_start $((VMS / 2)) --worker-threads 2 ;;
	bridge) bridge_start ;;
	testpmd) testpmd_start ;;
	ovs) ovs_start ;;
	esac
}

# fe ARGS...: one vnet-bench on the frontends' CPU, with the ring layout
fe() {
	# shellcheck disable=SC2086  # BENCH_FE_ARGS: words
	timeout $((SECS + WARMUP + 60)) taskset -c "$FE_CPU" "$BENCH" --json $RING_FLAG \
		${BENCH_FE_ARGS:-} "$@"
}
jfield() { sed -n "s/.*\"$1\": \([0-9.]*\).*/\1/p" <<< "$2" | head -n 1; }

# vnetd_busy: "busy_ns frames" of the running vnetd: its rings' busy time,
# and the frames its A ports took from their VMs
vnetd_busy() {
	"$VNETCTL" status --json --socket "$TMP/ctl.sock" 2> /dev/null | python3 -c '
import json, sys
busy = frames = 0
for p in json.load(sys.stdin)["ports"]:
    for q in p["pairs"]:
        busy += q["rx"]["busy_ns"] + q["tx"]["busy_ns"]
        if p["name"].startswith("a"):
            frames += q["tx"]["packets"]
print(busy, frames)' 2> /dev/null
}
ovs_appctl() { ovs-appctl -t "$OVSDIR/vswitchd.ctl" "$@"; }
# fwd_mark CASE: the start of the forwarder's cost window
fwd_mark() {
	M_V=''
	case $1 in
	switch|vms|bridge) M_V=$(vnetd_busy) ;;
	ovs) ovs_appctl dpif-netdev/pmd-stats-clear > /dev/null 2>&1 ;;
	testpmd) echo 'clear fwd stats all' >&7 ;;
	esac
	M_T0=$(date +%s%N)
}
# fwd_cost CASE: the forwarder's ns per frame since fwd_mark, "-" if unknown
fwd_cost() {
	local t1 v
	t1=$(date +%s%N)
	case $1 in
	switch|vms|bridge)
		v=$(vnetd_busy)
		awk -v a="$M_V" -v b="$v" 'BEGIN { split(a, x, " "); split(b, y, " ")
			f = y[2] - x[2]; if (f > 0 && y[1] >= x[1]) printf "%.1f\n", (y[1] - x[1]) / f
			else print "-" }' ;;
	ovs)
		ovs_appctl dpif-netdev/pmd-stats-show 2> /dev/null | awk -v ns=$((t1 - M_T0)) '
			/packets received:/ { p += $3 }
			/idle cycles:/ { i += $3 }
			/processing cycles:/ { c += $3 }
			END { if (p > 0 && i + c > 0) printf "%.1f\n", c / (i + c) * ns / p; else print "-" }' ;;
	testpmd) testpmd_cost ;;
	*) echo - ;;
	esac
}
# testpmd_cost: testpmd's busy cycles over the packets it received since the
# last "clear fwd stats all" (--record-core-cycles counts the cycles of the
# polls that received frames), in ns at the TSC rate it prints ("MHz Clock")
testpmd_cost() {
	local off i
	off=$(wc -c < "$TMP/fwd.log")
	echo 'show fwd stats all' >&7
	for i in $(seq 30); do
		tail -c +$((off + 1)) "$TMP/fwd.log" | grep -q 'MHz Clock' && break
		sleep 0.1
	done
	tail -c +$((off + 1)) "$TMP/fwd.log" | sed -n \
		's/.*[a-z]* cycles=\([0-9]*\) \/ total [a-z-]* packets=\([0-9]*\)) at \([0-9]*\) MHz Clock.*/\1 \2 \3/p' |
		awk '$2 > 0 && $3 > 0 { printf "%.1f\n", $1 / $2 * 1000 / $3; ok = 1; exit }
		     END { if (!ok) print "-" }'
}

# measure CASE PAIRS: "B_rx_mpps A_tx_mpps fwd_ns slowest_over_mean", or
# "fail WHY"
measure() {
	local c=$1 n=$2 i a=() b=() src=() pids=() out rx tx
	for ((i = 0; i < n; i++)); do a+=(-s "$TMP/a$i.sock"); b+=(-s "$TMP/b$i.sock"); done
	# A's and B's source MACs: the vnetd ports' config space has them;
	# the DPDK ports do not, so say them (one pair there)
	[ "$c" = ovs ] || [ "$c" = testpmd ] && src=(--src-mac "$(mac_b 0)")
	# warm-up: A sends, B announces its MAC
	fe "${a[@]}" --vms "$n" --mode tx-only -d "$WARMUP" ${src:+--src-mac "$(mac_a 0)"} \
		> /dev/null 2>&1 &
	pids=($!)
	fe "${b[@]}" --vms "$n" --mode tx-only -d 1 "${src[@]}" > /dev/null 2>&1
	wait "${pids[@]}"
	# measured: A until B is done (SECS + 3 s at most), B from 1 s after A for SECS
	pids=()
	if [ -n "$DST_MAC" ]; then
		for ((i = 0; i < n; i++)); do
			fe -s "$TMP/a$i.sock" --mode tx-only -d $((SECS + 3)) --dst-mac "$(mac_b "$i")" \
				--src-mac "$(mac_a "$i")" > "$TMP/a$i.json" 2>&1 &
			pids+=($!)
		done
	else
		fe "${a[@]}" --vms "$n" --mode tx-only -d $((SECS + 3)) \
			${src:+--src-mac "$(mac_a 0)"} > "$TMP/a0.json" 2>&1 &
		pids=($!)
	fi
	sleep 1
	fe "${b[@]}" --vms "$n" --mode rx-only --no-drain -d "$SECS" $ANNOUNCE "${src[@]}" \
		> "$TMP/b.out" 2>&1 &
	local bp=$! cost
	sleep 0.3
	fwd_mark "$c"
	sleep "$(awk -v s="$SECS" 'BEGIN { printf "%.1f", s - 0.4 }')"
	cost=$(fwd_cost "$c")
	wait "$bp"
	out=$(cat "$TMP/b.out")
	# B's window is over: end A's (each fe's subshell ignores SIGINT: signal its
	# child, timeout, which passes it on to vnet-bench)
	for i in "${pids[@]}"; do pkill -INT -P "$i"; done
	wait "${pids[@]}"
	rx=$(bench_field rx_mpps "$out")
	tx=$(cat "$TMP"/a*.json | sed -n 's/.*"total": {.*"tx_mpps": \([0-9.]*\).*/\1/p' |
	     awk '{ s += $1 } END { printf "%.4f", s }')
	rm -f "$TMP"/a*.json
	if ! grep -q '"ok": true' <<< "$out" || [ -z "$rx" ]; then
		echo "fail B received nothing: $(grep -v '^ ' <<< "$out" | tail -n 1)"
		return
	fi
	echo "$rx $tx ${cost:--} $(jfield min_over_mean "$out")"
}

# run_case ROUND RING CASE: one round of CASE, its line printed, R/F updated
declare -A R F N
run_case() {
	local r=$1 ring=$2 c=$3 n=1 rx tx ns fair flood=''
	[ "$c" = vms ] && n=$((VMS / 2))
	if ! fwd_start "$c"; then
		echo "round $r $ring $c: forwarder did not start: $(tail -n 2 "$TMP/fwd.log" "$OVSDIR"/vswitchd.log 2>/dev/null | grep . | tail -n 2 | tr '\n' ' ')"
		R[$ring.$c]+="fail "; fwd_stop; return
	fi
	read -r rx tx ns fair <<< "$(measure "$c" "$n")"
	fwd_stop
	if [ "$rx" = fail ]; then
		echo "round $r $ring $c: $tx $ns $fair"
		R[$ring.$c]+="fail "; return
	fi
	R[$ring.$c]+="$rx "
	N[$ring.$c]+="$ns "
	if [ "$c" = vms ]; then
		F[$ring]+="$fair "
		[ -z "$DST_MAC" ] && flood=", frames broadcast: each one flooded to all $((VMS - 1)) other VMs"
		echo "round $r $ring vms $VMS: B rx $rx Mpps over $n receivers, slowest/mean $fair (A tx $tx Mpps), forwarder $ns ns/frame$flood"
	else
		echo "round $r $ring $c: B rx $rx Mpps (A tx $tx Mpps), forwarder $ns ns/frame"
	fi
}

# median of the numbers on stdin ("fail" if any is "fail" or none)
median() {
	awk '$1 == "fail" { bad = 1 } { print } END { exit bad }' > "$TMP/m" || { echo fail; return; }
	[ -s "$TMP/m" ] || { echo fail; return; }
	bench_median < "$TMP/m"
}
words() { tr ' ' '\n' <<< "$1" | grep .; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "fail" || b == "fail" || !(b > 0)) print "fail"; else printf "%.2f\n", a / b }'; }

bench_machine start
echo "# switch-vs: 64 B, 1 pair per VM, ${SECS}s windows, $ROUNDS rounds, rings: $RINGS;" \
     "frontends on CPU $FE_CPU, forwarder on CPU $BE_CPU;" \
     "frames $([ -n "$DST_MAC" ] && echo "to B's MAC (--dst-mac)" || echo "broadcast (vnet-bench has no --dst-mac)")"
RUN=()
for c in $CASES; do
	why=$(why_not "$c")
	if [ -n "$why" ]; then echo "$c: skipped: $why"; else RUN+=("$c"); fi
done
if [ "$VMS" -gt 0 ]; then
	why=$(why_not vms)
	if [ -n "$why" ]; then echo "vms $VMS: skipped: $why"; VMS=0; fi
fi
[ ${#RUN[@]} = 0 ] && [ "$VMS" = 0 ] && { echo "SKIP: no case can run here"; exit 77; }

for round in $(seq "$ROUNDS"); do
	order=("${RUN[@]}")
	if ((round % 2 == 0)); then
		order=(); for ((i = ${#RUN[@]} - 1; i >= 0; i--)); do order+=("${RUN[$i]}"); done
	fi
	[ "$VMS" -gt 0 ] && order+=(vms)
	for ring in $RINGS; do
		RING_FLAG=''; [ "$ring" = packed ] && RING_FLAG=--packed
		for c in "${order[@]}"; do run_case "$round" "$ring" "$c"; done
	done
done

rc=0
echo
bench_machine end
# nmedian: the median of the numbers on stdin, "-" if none (a "-" is no number)
nmedian() { grep -E '^[0-9.]+$' | bench_median | sed 's/^nan$/-/'; }
printf '%-7s %-8s %9s %13s %11s %8s %10s\n' ring case rx_mpps switch_ratio pair_ratio fwd_ns cap_ratio
for ring in $RINGS; do
	for c in "${RUN[@]}"; do
		m=$(words "${R[$ring.$c]}" | median)
		[ "$m" = fail ] && rc=1
		sr=- pr=-
		if [ -n "${R[$ring.switch]:-}" ]; then
			s=$(words "${R[$ring.switch]}" | median)
			sr=$(div "$s" "$m")
			pr=$(paste -d ' ' <(words "${R[$ring.switch]}") <(words "${R[$ring.$c]}") |
			     while read -r x y; do div "$x" "$y"; done | median)
			[ "$pr" = fail ] || pr=$(printf '%.2f' "$pr")
		fi
		fn=$(words "${N[$ring.$c]:-}" | nmedian) cr=-
		if [ -n "${N[$ring.switch]:-}" ] && [ "$fn" != - ]; then
			s=$(words "${N[$ring.switch]}" | nmedian)
			[ "$s" = - ] || cr=$(div "$fn" "$s")
		fi
		printf '%-7s %-8s %9s %13s %11s %8s %10s\n' "$ring" "$c" "$m" "$sr" "$pr" "$fn" "$cr"
	done
done
if [ "$VMS" -gt 0 ]; then
	echo
	printf '%-7s %4s %9s %18s %10s\n' ring vms agg_mpps slowest_over_mean vs_single
	for ring in $RINGS; do
		m=$(words "${R[$ring.vms]}" | median)
		[ "$m" = fail ] && rc=1
		f=$(words "${F[$ring]:-}" | median)
		s=$(words "${R[$ring.switch]:-fail}" | median)
		printf '%-7s %4s %9s %18s %10s\n' "$ring" "$VMS" "$m" "$f" "$(div "$m" "$s")"
	done
fi
echo "# medians of $ROUNDS rounds; rx_mpps: frames/s VM B received; switch_ratio: the switch's" \
     "median over the case's; pair_ratio: median of the per-round ratios; fwd_ns: the" \
     "forwarder's busy ns per frame taken from A; cap_ratio:" \
     "the case's fwd_ns over the switch's"
exit $rc
