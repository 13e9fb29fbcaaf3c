# shellcheck shell=bash
# restart-gap.sh - the crash scenario (vnetd killed and restarted), sourced by
# tests/guest/test-vu-crash*.sh after vu-test.sh: the guest pings the host
# every 100 ms; vnetd is killed with SIGKILL (a crash: no cleanup, the
# socket file left behind) and started again at once; the guest's view is
# measured: carrier down and up, pings lost, the longest gap, and whether
# TCP works after. VT_CLIENT=1: QEMU listens and vnetd --client dials it
# (vnetd redials); else vnetd listens and QEMU reconnects (reconnect=1).

# vt_crash_gap Q: one guest, one crash; prints "# CRASH-GAP ..." and TAP lines
vt_crash_gap() {
	local q=$1 t0 t1 _
	vt_netns
	if [ -z "${VT_CLIENT:-}" ]; then
		vt_backend_start "$q" || return 1
		set -- --vu-reconnect 1
	else
		set -- --vu-server
	fi
	vt_bg iperf3 -s
	vt_guest_start --vu "$VT_SOCK" --queues "$q" --smp 2 "$@" <<EOG
H=$VT_HOST_IP
not_up() { [ "\$(cat /sys/class/net/eth0/operstate)" != up ]; }
# sampled every 100 ms for 5 s: a shorter drop may go unseen
carrier_drops() { i=0; while ! not_up; do [ \$i -ge 50 ] && return 1; sleep 0.1; i=\$((i + 1)); done; }
gcheck "carrier up before the crash" gwait_oper up 60
gcheck "ping before the crash" gping_wait \$H 20
ping -i 0.1 -W 1 \$H > /tmp/ping.txt 2>&1 &
PP=\$!
sleep 2
T0=\$(gnow)
gmark crash-backend
carrier_drops; DROPPED=\$?
T1=\$(gnow)
gwait_oper up 60; UP=\$?
T2=\$(gnow)
gping_wait \$H 30
sleep 2
kill -INT \$PP; wait \$PP
gping_gaps /tmp/ping.txt
echo "VNET-GAP carrier_dropped=\$([ \$DROPPED = 0 ] && echo yes || echo not_seen) down_s=\$(awk -v a=\$T1 -v b=\$T2 'BEGIN{printf "%.2f", b-a}') to_drop_s=\$(awk -v a=\$T0 -v b=\$T1 'BEGIN{printf "%.2f", b-a}')"
gcheck "carrier comes back after the crash and restart" [ \$UP = 0 ]
gcheck "ping works after the restart" gping_wait \$H 10
gcheck "iperf3 guest -> host after the restart" giperf -c \$H -t 2
EOG
	if [ -n "${VT_CLIENT:-}" ]; then
		for _ in $(seq 100); do [ -S "$VT_SOCK" ] && break; sleep 0.1; done
		vt_backend_start "$q" || { vt_guest_wait; return 1; }
	fi
	if vt_wait_mark crash-backend 120; then
		t0=$(date +%s.%N)
		kill -KILL "$VT_BPID"; wait "$VT_BPID" 2>/dev/null; VT_BPID=''
		vt_backend_start "$q"
		t1=$(date +%s.%N)
		vt_check "vnetd restarted after SIGKILL (stale socket file replaced)" vt_backend_alive
		vt_step "vnetd killed and serving again in $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}') s"
	else
		vt_notok "guest reached the crash point"
	fi
	vt_guest_wait
	grep -a '^VNET-GAP' "$VT_GLOG" | tr -d '\r' | sed "s/^VNET-GAP/# CRASH-GAP $( [ -n "${VT_CLIENT:-}" ] && echo "vnetd --client" || echo "QEMU reconnect=1"):/"
	local gap
	gap=$(grep -a -o 'max_gap_pings=[0-9]*' "$VT_GLOG" | head -1 | cut -d= -f2)
	vt_check "the guest's ping gap across the crash is bounded: ${gap:-?} pings of 100 ms (limit 100)" \
		eval '[ -n "$gap" ] && [ "$gap" -le 100 ]'
}
