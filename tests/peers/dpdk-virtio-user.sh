#!/usr/bin/env bash
# tests/peers/dpdk-virtio-user.sh - DPDK testpmd's virtio-user PMD (net_virtio_user, a
# frontend nobody here wrote) against vnetd --backend loop.
#
# For each configuration (split/packed, 1/2 queue pairs, mrg_rxbuf=0/1, in_order=1) one
# vnetd and one interactive testpmd (no hugepages) are started, then testpmd is driven:
#   txonly  for T s: 64-byte frames go out on every queue,
#   rxonly  until nothing more arrives: what the loop backend reflected comes back,
#   io      (start tx_first) for T s: one burst per queue ping-pongs through vnetd,
#   rxonly  drain again.
# After each phase pair the port's cumulative counters must satisfy
#   RX-packets == TX-packets >= minimum, RX-bytes == TX-bytes, RX-errors == 0 (per phase),
# i.e. every frame testpmd put on a TX ring came back exactly once and unchanged in length.
# At the end, per queue pair: testpmd's xstats (tx_qN/rx_qN_good_packets) equal vnetd's own
# counters (vnetctl status --prometheus) and every pair carried frames.
# With loop the backend applies back-pressure instead of dropping, so equality is exact.
#
# Env: VNET_PEER_BACKEND=vnetd (default) | testpmd (net_vhost io/loop: checks the harness),
#      VNET_PEER_SECS=T (default 2), VNET_PEER_ONLY="name" (run one configuration),
#      VNET_VNETD=PATH (another vnetd binary, e.g. an ASan build), VNET_PEER_KEEP=1 (keep logs).
# Prints TAP lines; exits 77 with the reason when testpmd is missing or not root.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BACKEND=${VNET_PEER_BACKEND:-vnetd}
VNETD=${VNET_VNETD:-$TOP/build/vnetd}	# e.g. an ASan build of vnetd
SECS=${VNET_PEER_SECS:-2}
N=0 FAILS=0 T0=$SECONDS
W='' BPID='' TPID='' FIFO_FD=''

ok() { N=$((N + 1)); echo "ok $N - dpdk-virtio-user: $*"; }
notok() { N=$((N + 1)); FAILS=$((FAILS + 1)); echo "not ok $N - dpdk-virtio-user: $*"; }

stop_pid() { # PID SIG
	local p=$1 _
	[ -n "$p" ] && kill -0 "$p" 2>/dev/null || return 0
	kill "-$2" "$p" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$p" 2>/dev/null && kill -KILL "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	return 0
}

stop_all() {
	[ -n "$FIFO_FD" ] && { exec {FIFO_FD}>&-; FIFO_FD=''; }
	stop_pid "$TPID" INT; TPID=''
	stop_pid "$BPID" TERM; BPID=''
	rm -rf /var/run/dpdk/vpu$$-*
}
cleanup() { stop_all; [ -n "$W" ] && [ -z "${VNET_PEER_KEEP:-}" ] && rm -rf "$W"; }

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (testpmd, /var/run/dpdk)"; exit 77; }
command -v dpdk-testpmd > /dev/null || { echo "SKIP: dpdk-testpmd missing (apt-get install dpdk)"; exit 77; }
if [ "$BACKEND" = vnetd ] && [ ! -x "$VNETD" ]; then
	notok "$VNETD exists (run make first)"; exit 1
fi
W=$(mktemp -d /tmp/vnet-peer-dpdk.XXXXXX)
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_backend NAME QUEUES: vnetd --backend loop (or testpmd net_vhost io) listening on $SOCK
start_backend() {
	local name=$1 q=$2 _
	SOCK=$W/$name.sock; BLOG=$W/$name.backend.log
	if [ "$BACKEND" = vnetd ]; then
		"$VNETD" --socket "$SOCK" --backend loop --queues "$q" \
			--ctl-socket "$W/$name.ctl" > "$BLOG" 2>&1 < /dev/null &
	else
		dpdk-testpmd --lcores '0@0,1@0' --no-pci --no-huge -m 512 --no-shconf \
			--file-prefix "vpu$$-b$name" --log-level=lib.eal:notice \
			--vdev "net_vhost0,iface=$SOCK,queues=$q,client=0" -- --no-mlockall \
			--forward-mode=io --port-topology=loop --rxq="$q" --txq="$q" --nb-cores=1 \
			--total-num-mbufs=16384 --stats-period 10 > "$BLOG" 2>&1 < /dev/null &
	fi
	BPID=$!
	for _ in $(seq 100); do
		[ -S "$SOCK" ] && return 0
		kill -0 "$BPID" 2>/dev/null || break
		sleep 0.1
	done
	tail -n 10 "$BLOG" | sed 's/^/# backend: /'
	return 1
}

# start_testpmd NAME QUEUES DEVARGS: interactive testpmd, commands through a FIFO
start_testpmd() {
	local name=$1 q=$2 dev=$3 _
	TLOG=$W/$name.testpmd.log
	mkfifo "$W/$name.fifo"
	stdbuf -oL dpdk-testpmd --lcores '0@1,1@1' --no-pci --no-huge -m 512 --no-shconf \
		--file-prefix "vpu$$-f$name" --log-level=lib.eal:notice \
		--vdev "net_virtio_user0,path=$SOCK,queues=$q$dev" -- -i --no-mlockall \
		--rxq="$q" --txq="$q" --nb-cores=1 --total-num-mbufs=16384 --txpkts=64 --burst=32 \
		< "$W/$name.fifo" > "$TLOG" 2>&1 &
	TPID=$!
	exec {FIFO_FD}> "$W/$name.fifo"
	for _ in $(seq 150); do
		grep -q 'testpmd> ' "$TLOG" 2>/dev/null && return 0
		kill -0 "$TPID" 2>/dev/null || break
		sleep 0.1
	done
	tail -n 15 "$TLOG" | sed 's/^/# testpmd: /'
	return 1
}

tp() { echo "$*" >&"$FIFO_FD"; }

# port_stats: "rxp rxb rxerr txp txb" from a fresh "show port stats 0" (waits for its
# closing "Throughput" block; testpmd's output and its prompt may interleave mid-line)
port_stats() {
	local before _ blk
	before=$(grep -c 'Tx-pps:' "$TLOG")
	tp "show port stats 0"
	for _ in $(seq 50); do
		[ "$(grep -c 'Tx-pps:' "$TLOG")" -gt "$before" ] && break
		sleep 0.1
	done
	blk=$(sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$TLOG" |
		awk '/NIC statistics for port 0/ { b = "" } { b = b $0 "\n" } END { printf "%s", b }')
	f() { grep -o "$1: *[0-9]*" <<< "$blk" | head -n1 | grep -o '[0-9]*$'; }
	echo "$(f RX-packets) $(f RX-bytes) $(f RX-errors) $(f TX-packets) $(f TX-bytes)"
}

# drain: rxonly until the RX count stops moving (at most 10 s)
drain() {
	local prev=-1 cur _
	tp "set fwd rxonly"; tp "start"
	for _ in $(seq 20); do
		sleep 0.5
		cur=$(port_stats | cut -d' ' -f1)
		[ "$cur" = "$prev" ] && break
		prev=$cur
	done
	tp "stop"; sleep 0.3
}

# check NAME PHASE MIN: since the last check, RX == TX (packets and bytes), TX >= MIN,
# no RX errors (LAST holds the previous counters)
LAST="0 0 0 0 0"
check() {
	local name=$1 phase=$2 min=$3 rxp rxb rxe txp txb r0 rb0 t0 tb0
	read -r rxp rxb rxe txp txb < <(port_stats)
	read -r r0 rb0 _ t0 tb0 <<< "$LAST"
	LAST="$rxp $rxb $rxe $txp $txb"
	echo "# $name $phase: port totals RX-packets=$rxp RX-bytes=$rxb RX-errors=$rxe TX-packets=$txp TX-bytes=$txb"
	if [ -z "$txp" ] || [ -z "$rxp" ]; then notok "$name: $phase: no port statistics"; return; fi
	rxp=$((rxp - r0)) rxb=$((rxb - rb0)) txp=$((txp - t0)) txb=$((txb - tb0))
	if [ "$txp" -ge "$min" ] && [ "$rxp" = "$txp" ] && [ "$rxb" = "$txb" ] && [ "$rxe" = 0 ]; then
		ok "$name: $phase: all $txp frames ($txb bytes) came back"
	else
		notok "$name: $phase: RX $rxp/$rxb != TX $txp/$txb (frames/bytes), or TX < $min, or RX-errors $rxe"
	fi
}

# per_queue NAME QUEUES: per queue pair, testpmd's TX and RX counts (xstats) and vnetd's own
# (vnetctl status --prometheus: frames taken from the TX ring, put on the RX ring) all agree,
# and every pair carried traffic: frames come back on the pair they left on
per_queue() {
	local name=$1 q=$2 i before _ xs prom ttx trx vtx vrx bad=''
	before=$(grep -c "tx_q$((q - 1))_good_bytes" "$TLOG")
	tp "show port xstats 0"
	for _ in $(seq 50); do
		[ "$(grep -c "tx_q$((q - 1))_good_bytes" "$TLOG")" -gt "$before" ] && break
		sleep 0.1
	done
	xs=$(sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$TLOG")
	[ "$BACKEND" = vnetd ] && prom=$("$TOP/build/vnetctl" status -s "$W/$name.ctl" --prometheus 2>&1)
	for i in $(seq 0 $((q - 1))); do
		ttx=$(grep -o "tx_q${i}_good_packets: *[0-9]*" <<< "$xs" | tail -n1 | grep -o '[0-9]*$')
		trx=$(grep -o "rx_q${i}_good_packets: *[0-9]*" <<< "$xs" | tail -n1 | grep -o '[0-9]*$')
		if [ "$BACKEND" = vnetd ]; then
			vtx=$(grep "^vnetd_queue_packets_total{.*queue=\"$i\",dir=\"tx\"}" <<< "$prom" | awk '{print $2}')
			vrx=$(grep "^vnetd_queue_packets_total{.*queue=\"$i\",dir=\"rx\"}" <<< "$prom" | awk '{print $2}')
		else
			vtx=$ttx vrx=$trx
		fi
		echo "# $name pair $i: testpmd tx=$ttx rx=$trx; $BACKEND took from TX ring=$vtx, put on RX ring=$vrx"
		[ -n "$ttx" ] && [ "${ttx:-0}" -gt 0 ] && [ "$ttx" = "$trx" ] && [ "$ttx" = "$vtx" ] &&
			[ "$trx" = "$vrx" ] || bad="$bad $i"
	done
	if [ -z "$bad" ]; then
		ok "$name: per pair, testpmd's and $BACKEND's counts agree and every pair carried frames"
	else
		notok "$name: per pair counts disagree or a pair carried nothing (pairs:$bad)"
		[ "$BACKEND" = vnetd ] && grep -E 'packets_total|error|refused' <<< "$prom" | head -8 | sed 's/^/# vnetctl: /'
	fi
}

# run_config NAME QUEUES DEVARGS
run_config() {
	local name=$1 q=$2 dev=$3 t0=$SECONDS
	[ -n "${VNET_PEER_ONLY:-}" ] && [ "$VNET_PEER_ONLY" != "$name" ] && return 0
	if ! start_backend "$name" "$q"; then notok "$name: $BACKEND listens"; stop_all; return; fi
	if ! start_testpmd "$name" "$q" "$dev"; then notok "$name: testpmd virtio-user port up"; stop_all; return; fi
	LAST="0 0 0 0 0"
	ok "$name: testpmd net_virtio_user$dev queues=$q connected to $BACKEND"
	tp "set fwd txonly"; tp "start"; sleep "$SECS"; tp "stop"; sleep 0.3
	drain
	check "$name" "txonly ${SECS}s + rxonly" 64
	tp "set fwd io"; tp "start tx_first"; sleep "$SECS"; tp "stop"; sleep 0.3
	drain
	check "$name" "io (tx_first) ${SECS}s + rxonly" 2000
	if [ "$BACKEND" = vnetd ]; then
		if kill -0 "$BPID" 2>/dev/null; then ok "$name: vnetd still running"
		else notok "$name: vnetd still running"; tail -n 10 "$BLOG" | sed 's/^/# vnetd: /'; fi
	fi
	per_queue "$name" "$q"
	tp "quit"
	stop_all
	if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$BLOG"; then
		grep -E -A5 'AddressSanitizer|LeakSanitizer|runtime error:' "$BLOG" | head -n 20 | sed 's/^/# vnetd: /'
		notok "$name: vnetd logged a sanitizer report"
	fi
	echo "# $name took $((SECONDS - t0))s"
}

run_config split-q1-mrg1 1 ",packed_vq=0,mrg_rxbuf=1,in_order=0"
run_config split-q1-mrg0 1 ",packed_vq=0,mrg_rxbuf=0,in_order=0"
run_config split-q2-mrg1 2 ",packed_vq=0,mrg_rxbuf=1,in_order=0"
run_config split-q1-inorder 1 ",packed_vq=0,mrg_rxbuf=1,in_order=1"
run_config packed-q1-mrg1 1 ",packed_vq=1,mrg_rxbuf=1,in_order=0"
run_config packed-q2-mrg0 2 ",packed_vq=1,mrg_rxbuf=0,in_order=0"
run_config packed-q2-inorder 2 ",packed_vq=1,mrg_rxbuf=1,in_order=1"
echo "# total $((SECONDS - T0))s"
[ "$FAILS" = 0 ]
