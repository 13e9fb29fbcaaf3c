# shellcheck shell=bash
# testpmd.sh - DPDK testpmd's net_virtio_user as an interactive frontend,
# for tests/peers/*.sh (source after tests/lib/common.sh). The caller sets
# W (work directory), SOCK (the vhost-user socket) and TP_PREFIX (a
# per-script --file-prefix stem); it gets TPID, TLOG and FIFO_FD, and
# closes FIFO_FD and stops TPID in its cleanup.

# start_testpmd NAME QUEUES DEVARGS: interactive testpmd, commands through a FIFO
start_testpmd() {
	local name=$1 q=$2 dev=$3 _
	TLOG=$W/$name.testpmd.log
	mkfifo "$W/$name.fifo"
	stdbuf -oL dpdk-testpmd --lcores '0@1,1@1' --no-pci --no-huge -m 512 --no-shconf \
		--file-prefix "$TP_PREFIX-f$name" --log-level=lib.eal:notice \
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


# rx_settle N: wait until testpmd has received N frames, or its RX count has not grown
# for 2 s (frames the TAP's queue dropped never come), 30 s at most: on a loaded host
# vnetd may read a TAP's queue seconds after the frames were written into it
rx_settle() {
	local n=$1 last=-1 same=0 rxp _ i
	for i in $(seq 60); do
		read -r rxp _ < <(port_stats)
		[ "${rxp:-0}" -ge "$n" ] && return 0
		if [ "${rxp:-0}" = "$last" ]; then
			same=$((same + 1))
			[ "$same" -ge 4 ] && return 0
		else
			same=0
		fi
		last=${rxp:-0}
		sleep 0.5
	done
}
