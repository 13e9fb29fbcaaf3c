#!/usr/bin/env bash
# Guest scenario: `vnetctl upgrade` under a running Linux guest.
# vnetd (TAP backend, 1 queue pair) serves the test guest (QEMU, reconnect=1
# as vnetctl plan prints it); the guest pings the host every 10 ms and runs
# an iperf3 stream guest -> host; mid-way vnetd is replaced by a new process
# (vnetctl upgrade: the same binary, which is what an upgrade to a new
# version exercises too). Checks: at most 2 pings lost, the iperf3 stream
# goes on (exit 0, bytes received), no carrier change in the guest
# (carrier_changes unchanged), no reconnect (QEMU logs no vhost-user
# disconnect, the new vnetd logs no new frontend connection), the old PID
# gone, the new one serving. Prints the hand-over time and the ping gap.
# VT_CLIENT=1 (test-vu-upgrade-client.sh): QEMU listens (server=on) and vnetd --client
# dialled it; the new process serves the connection it was handed and dials nothing: no
# "connected to" line after the first, its connection count 0, QEMU sees no disconnect.
# needs: root netns tun qemu busybox cpio
. "$(dirname "$0")/lib/vu-test.sh"
vt_init "vu-upgrade${VT_CLIENT:+-client}"
CTL=$VT_TOP/build/vnetctl
[ -x "$CTL" ] || vt_skip "build/vnetctl not built (run make)"
vt_netns
if [ -z "${VT_CLIENT:-}" ]; then
	vt_backend_start 1 || vt_finish
	VU_ARGS=(--vu-reconnect 1)
else
	VU_ARGS=(--vu-server)	# vnetd dials once QEMU listens, below
fi
vt_bg iperf3 -s
vt_guest_start --vu "$VT_SOCK" --queues 1 --smp 2 "${VU_ARGS[@]}" <<EOG
H=$VT_HOST_IP
gcheck "carrier up before the upgrade" gwait_oper up 60
gcheck "ping before the upgrade" gping_wait \$H 20
CC0=\$(cat /sys/class/net/eth0/carrier_changes)
iperf3 -c \$H -t 8 > /tmp/iperf.txt 2>&1 &	# the 8 s of pings below
IP=\$!
ping -i 0.01 -W 1 \$H > /tmp/ping.txt 2>&1 &
PP=\$!
sleep 3
MS=\$(grep -c seq= /tmp/ping.txt)
gmark upgrade-backend
sleep 5
kill -INT \$PP; wait \$PP
wait \$IP; IRC=\$?
CC1=\$(cat /sys/class/net/eth0/carrier_changes)
gping_gaps /tmp/ping.txt \$MS
grep -E 'receiver|error' /tmp/iperf.txt | sed 's/^/  iperf3: /'
gcheck "iperf3 guest -> host went on across the upgrade (exit 0, bytes received)" \
	awk -v rc=\$IRC '/receiver/ { if (\$5 + 0 > 0) ok = 1 } END { exit !(ok && rc == 0) }' /tmp/iperf.txt
gcheck "no carrier change in the guest (carrier_changes \$CC0 -> \$CC1)" [ "\$CC0" = "\$CC1" ]
gcheck "ping works after the upgrade" gping_wait \$H 5
EOG
if [ -n "${VT_CLIENT:-}" ]; then
	for _ in $(seq 100); do [ -S "$VT_SOCK" ] && break; sleep 0.1; done
	vt_backend_start 1 || { vt_guest_wait; vt_finish; }
fi
if vt_wait_mark upgrade-backend 120; then
	old=$VT_BPID
	out=$(ip netns exec "$VT_NS" "$CTL" upgrade --socket "$VT_W/ctl.sock" 2>&1); rc=$?
	echo "# vnetctl upgrade: rc $rc: $out"
	new=$(sed -n 's/.* ok pid \([0-9]*\).*/\1/p' <<< "$out")
	vt_check "vnetctl upgrade succeeded ($out)" eval '[ "$rc" = 0 ] && [ -n "$new" ]'
	for _ in $(seq 50); do kill -0 "$old" 2>/dev/null || break; sleep 0.1; done
	wait "$old" 2>/dev/null; orc=$?
	vt_check "the old vnetd (pid $old) exited 0" [ "$orc" = 0 ]
	[ -n "$new" ] && VT_BPID=$new
	vt_check "the new vnetd (pid ${new:-?}) is serving" vt_backend_alive
	if [ -n "${VT_CLIENT:-}" ]; then
		st=$("$CTL" status --socket "$VT_W/ctl.sock" --json 2>&1)
		vt_check "the new vnetd serves the handed-over connection, dialled none ($(grep -o '"mode":"[a-z]*","backend":"[a-z]*","connected":[a-z]*' <<< "$st"), $(grep -o '"connections":[0-9]*' <<< "$st"))" \
			eval 'grep -q "\"mode\":\"client\",[^}]*\"connected\":true,[^}]*\"connections\":0," <<< "$st"'
	fi
else
	vt_notok "guest reached the upgrade point"
fi
vt_guest_wait
grep -a '^VNET-GAP' "$VT_GLOG" | tr -d '\r' | sed 's/^VNET-GAP/# UPGRADE-GAP (10 ms pings):/'
# The upgrade's loss: pings missing from the mark (event_at_seq) to 3 s after it, which
# holds the hand-over (vnetctl runs within a poll of the mark); a ping a loaded TCG guest
# loses seconds away from it is not the upgrade's and is only printed (lost= counts all).
gap=$(grep -a -m1 '^VNET-GAP' "$VT_GLOG" | tr -d '\r') lost=''
[ -n "$gap" ] && lost=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^event_at_seq~/) { split($i, a, "~"); e = a[2] + 0 }
	sub(/.*missing:/, ""); n = 0
	for (i = 1; i <= NF; i++) { split($i, r, "-"); for (s = r[1]; s <= r[2]; s++) if (s >= e && s < e + 300) n++ }
	print n }' <<< "$gap")
all=$(sed -n 's/.* lost=\([0-9]*\).*/\1/p' <<< "$gap")
vt_check "the upgrade lost at most 2 pings of 10 ms (lost ${lost:-?} within 3 s of it, ${all:-?} in the whole run)" \
	eval '[ -n "$lost" ] && [ "$lost" -le 2 ]'
# (server=on: QEMU's "waiting for connection on: disconnected:unix:..." at its start is none)
vt_check "QEMU logged no vhost-user disconnect or reconnect" \
	eval '! grep -aihE "disconnect|Failed to read msg header|connection reset" "$VT_W/run.log" "$VT_GLOG" |
		grep -vq "waiting for connection on: disconnected:"'
if [ -z "${VT_CLIENT:-}" ]; then
	n=$(cat "$VT_W"/backend.*.log | grep -c "frontend pid .* connected")
else
	n=$(cat "$VT_W"/backend.*.log | grep -c "port .*: connected to ")
fi
vt_check "one frontend connection in the whole run, none after the upgrade ($n)" [ "$n" = 1 ]
vt_finish
