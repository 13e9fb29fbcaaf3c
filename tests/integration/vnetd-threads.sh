#!/usr/bin/env bash
# vnetd-threads.sh - one pool of worker threads for all ports (vnetd
# --worker-threads): with --worker-threads 2 and 8 loop
# ports, vnetd runs 2 data plane threads whatever the port count; 8
# vnet-bench VMs driven concurrently (one per port) get every frame back in
# order (--check-seq); ports added and removed with vnetctl while that
# traffic runs hand their pairs to the pool's threads and take them back
# (the traffic still checks clean, the added port carries traffic, the
# thread count stays; vnetd_worker_thread_pairs shows the pairs spread 4 and
# 4); --worker-threads auto starts one thread per CPU; bad
# values are refused with the flag, the value and the range.
# needs: none
# shellcheck disable=SC2034  # rc, running, NCPU...: read by check's eval strings
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
VNETD=${VNETD:-build/vnetd}
BENCH=${VNET_BENCH:-build/vnet-bench}
VNETCTL=${VNETCTL:-build/vnetctl}
need_built "$VNETD" "$BENCH" "$VNETCTL"
TMP=$(mktemp -d /tmp/vnetd-threads.XXXXXX)
cleanup_path "$TMP"
C=$TMP/ctl.sock
threads() { awk '$1 == "Threads:" {print $2}' "/proc/$1/status"; }

# --- bad values: refused before anything starts --------------------------
for v in -1 257 x 2x ""; do
	out=$("$VNETD" --worker-threads "$v" --socket "$TMP/bad.sock" --ctl-socket "$C" 2>&1); rc=$?
	check "--worker-threads '$v' refused with the range ($out)" \
		eval '[ $rc = 2 ] && [[ $out == *"--worker-threads $v: must be 0..256 or auto"* ]] && [ ! -e "$TMP/bad.sock" ]'
done

# --- 8 ports on 2 threads ---------------------------------------------------
args=(); socks=()
for i in $(seq 0 7); do
	args+=(--port "name=p$i,socket=$TMP/p$i.sock,backend=loop")
	socks+=(-s "$TMP/p$i.sock")
done
"$VNETD" --worker-threads 2 --ctl-socket "$C" "${args[@]}" 2> "$TMP/vnetd.log" &
VPID=$!
cleanup_pid "$VPID"
wait_sock "$TMP/p7.sock" 10 "$VPID" && wait_sock "$C" 5 "$VPID" ||
	{ echo "Bail out! vnetd did not start"; cat "$TMP/vnetd.log"; exit 1; }
# main thread + 2 workers (the sandbox adds none once set up)
T0=$(threads "$VPID")
check "8 ports, --worker-threads 2: vnetd has 3 threads ($T0)" [ "$T0" = 3 ]
check "the log says the pool serves all ports" grep -q "worker pool: 2 threads serve the pairs of all ports" "$TMP/vnetd.log"

# the 8 VMs in the background for the whole add/del phase
timeout 60 "$BENCH" "${socks[@]}" --vms 8 --check-seq --json -d 4 > "$TMP/bench8.json" 2>&1 &
BPID=$!
sleep 0.5
added=0; removed=0
for r in 1 2 3 4 5 6; do
	out=$("$VNETCTL" port add "name=x$r,socket=$TMP/x$r.sock,backend=loop,queues=2" --socket "$C" 2>&1)
	[[ $out == "ok: port x$r added"* ]] && added=$((added + 1))
	if [ "$r" = 3 ]; then
		timeout 20 "$BENCH" --socket "$TMP/x3.sock" --pairs 2 --check-seq --json -d 0.5 > "$TMP/benchx.json" 2>&1
		XRC=$?
		TX=$(threads "$VPID")
	fi
	out=$("$VNETCTL" port del "x$r" --socket "$C" 2>&1)
	[ "$out" = "ok: port x$r removed" ] && removed=$((removed + 1))
done
kill -0 "$BPID" 2> /dev/null; running=$?
wait "$BPID"; BRC=$?
check "6 ports added and removed while the 8 VMs ran ($added added, $removed removed)" \
	eval '[ "$added" = 6 ] && [ "$removed" = 6 ] && [ "$running" = 0 ]'
check "an added 2-pair port carries traffic, all frames back in order (rc $XRC)" \
	eval '[ "$XRC" = 0 ] && grep -q "\"ok\": true" "$TMP/benchx.json"'
check "no new threads for an added port ($TX)" [ "$TX" = 3 ]
lost=$(bench_field lost "$(cat "$TMP/bench8.json")"); missing=$(bench_field missing "$(cat "$TMP/bench8.json")")
rx=$(bench_field rx_frames "$(cat "$TMP/bench8.json")")
check "8 concurrent VMs: every frame back in order through the add/del (rc $BRC, rx $rx, lost $lost, missing $missing)" \
	eval '[ "$BRC" = 0 ] && grep -q "\"ok\": true" "$TMP/bench8.json" && [ "${rx:-0}" -gt 0 ]'
nvm=$(grep -o '"mpps": [0-9.]*' "$TMP/bench8.json" | awk '$2 > 0' | wc -l)
check "each of the 8 VMs moved frames ($nvm of 8)" [ "$nvm" = 8 ]
prom=$("$VNETCTL" status --prometheus --socket "$C" 2>&1 | grep '^vnetd_worker_thread_pairs{')
pp=$(awk '{print $2}' <<< "$prom" | tr '\n' ' ')
check "metrics: the 8 connected pairs spread 4 and 4 over the 2 threads ($pp)" [ "$pp" = "4 4 " ]
check "no worker thread complained (log)" eval '! grep -qiE "broken|epoll_ctl|cannot" "$TMP/vnetd.log"'
check "the thread count is back where it started ($(threads "$VPID"))" [ "$(threads "$VPID")" = "$T0" ]
stop_pid "$VPID"
check "vnetd exits cleanly on SIGTERM" eval '! grep -qi "error" "$TMP/vnetd.log"'

# --- auto: one thread per CPU we may run on -------------------------------
NCPU=$(taskset -c 0 nproc 2> /dev/null || echo 1)
taskset -c 0 "$VNETD" --worker-threads auto --ctl-socket "$C" \
	--port "name=a0,socket=$TMP/a0.sock,backend=loop" \
	--port "name=a1,socket=$TMP/a1.sock,backend=loop" 2> "$TMP/auto.log" &
APID=$!
cleanup_pid "$APID"
wait_sock "$TMP/a1.sock" 10 "$APID"
check "--worker-threads auto on 1 CPU: 1 worker thread ($(threads "$APID") threads in all)" \
	eval '[ "$(threads "$APID")" = $((NCPU + 1)) ]'
timeout 20 "$BENCH" -s "$TMP/a0.sock" -s "$TMP/a1.sock" --vms 2 --check-seq -d 0.5 > /dev/null 2>&1
check "2 ports on 1 thread carry traffic, all frames back in order" [ $? = 0 ]
stop_pid "$APID"
exit $FAILED
