# shellcheck shell=bash
# tests/guest/lib/vu-test.sh - host side of the guest scenarios (source it, don't run it).
#
# A scenario: vt_init NAME; vt_netns; vt_backend_start QUEUES; vt_guest_start ARGS...;
# (vt_wait_mark NAME; ...); vt_guest_wait; vt_finish. Everything it starts is stopped by PID
# and the netns, TAP and socket are removed on exit, also on failure or timeout.
#
# Backend under test: VNET_GUEST_BACKEND=vnetd (default; build/vnetd --backend tap inside the
# netns) or testpmd (DPDK net_vhost <-> net_tap io forwarding, the reference used to debug the
# harness itself). Host side of the link: TAP $VT_TAP in netns $VT_NS, 10.77.0.1/24; the guest
# is 10.77.0.2/24.
#
# TAP output: "ok N - name" per check, "# step: Xs" timings; guest checks (prelude.sh gcheck)
# become TAP lines too.

VT_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VT_TOP=$(cd "$VT_LIB/../../.." && pwd)
VT_GUEST=$VT_LIB/guest.sh
VT_BACKEND=${VNET_GUEST_BACKEND:-vnetd}
VT_VNETD=${VNET_VNETD:-$VT_TOP/build/vnetd}	# e.g. an ASan build of vnetd
VT_HOST_IP=10.77.0.1
VT_GUEST_IP=10.77.0.2
VT_N=0 VT_FAILS=0 VT_BPID='' VT_CFGPID='' VT_QPID='' VT_GPID='' VT_EXTRA_PIDS=()
VT_T0=$SECONDS VT_BSTARTS=0

# TAP lines, skips, stopping processes, cleanup at exit: tests/lib/common.sh
. "$VT_TOP/tests/lib/common.sh"
# shellcheck disable=SC2034  # VT_N, VT_FAILS: read by scenarios (docs: tests/guest/lib/README.md)
vt_ok() { ok "$VT_NAME: $*"; VT_N=$N; }
# shellcheck disable=SC2034
vt_notok() { not_ok "$VT_NAME: $*"; VT_N=$N VT_FAILS=$FAILS; }
vt_check() { # NAME CMD... : one TAP line from CMD's status
	local n=$1; shift
	if "$@"; then vt_ok "$n"; else vt_notok "$n"; fi
}
vt_skip() { skip_all "$@"; }
vt_step() { echo "# step: $* (t=$((SECONDS - VT_T0))s)"; }

vt_kill_pid() { stop_pid "$@"; } # PID [SIG]: TERM (SIG), up to 5 s, then SIGKILL

vt_cleanup() {
	local p
	[ -n "$VT_QPID" ] && vt_kill_pid "$VT_QPID"
	vt_kill_pid "$VT_GPID"
	vt_kill_pid "$VT_CFGPID"
	vt_backend_stop
	for p in "${VT_EXTRA_PIDS[@]+"${VT_EXTRA_PIDS[@]}"}"; do vt_kill_pid "$p"; done
	if [ -n "${VT_NS:-}" ] && ip netns list | grep -qw "$VT_NS"; then
		# anything still in our own netns was started by this test
		for p in $(ip netns pids "$VT_NS" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
		ip netns del "$VT_NS" 2>/dev/null
	fi
	[ -n "${VT_PREFIX:-}" ] && rm -rf "/var/run/dpdk/$VT_PREFIX"*
	if [ "$VT_FAILS" != 0 ] && [ -n "${VT_W:-}" ]; then
		for p in "$VT_W"/backend.*.log; do
			[ -s "$p" ] && tail -n 15 "$p" | sed "s|^|# ${p##*/}: |"
		done
		[ -s "$VT_W/run.log" ] && tail -n 5 "$VT_W/run.log" | sed 's/^/# guest.sh run: /'
	fi
	[ -n "${VT_W:-}" ] && [ -z "${VNET_GUEST_KEEP:-}" ] && rm -rf "$VT_W"
}

# vt_init NAME: checks the prerequisites (skips with the reason), workdir, traps, kernel
vt_init() {
	VT_NAME=$1
	[ "$(id -u)" = 0 ] || vt_skip "needs root (netns, TAP)"
	command -v "${VNET_QEMU:-qemu-system-x86_64}" > /dev/null ||
		vt_skip "qemu-system-x86_64 missing (apt-get install qemu-system-x86)"
	command -v busybox > /dev/null || vt_skip "busybox missing (apt-get install busybox-static)"
	command -v cpio > /dev/null || vt_skip "cpio missing"
	command -v ip > /dev/null || vt_skip "iproute2 missing"
	[ -c /dev/net/tun ] || vt_skip "/dev/net/tun missing"
	case $VT_BACKEND in
	vnetd) ;;
	testpmd) command -v dpdk-testpmd > /dev/null || vt_skip "dpdk-testpmd missing" ;;
	*) echo "VNET_GUEST_BACKEND must be vnetd or testpmd"; exit 2 ;;
	esac
	VT_W=$(mktemp -d /tmp/vnet-guest-test.XXXXXX)
	VT_NS=vnetg$$
	VT_TAP=vtg$$
	VT_SOCK=$VT_W/vu.sock
	VT_PREFIX=vtg$$
	cleanup_run vt_cleanup
	trap 'exit 130' INT TERM
	echo "# $VT_NAME: backend $VT_BACKEND, workdir $VT_W"
	local t0=$SECONDS
	"$VT_GUEST" kernel > "$VT_W/kernel.log" 2>&1 ||
		{ tail -n 5 "$VT_W/kernel.log"; vt_skip "Debian kernel package could not be downloaded/unpacked"; }
	if [ "$VT_BACKEND" = vnetd ] && [ ! -x "$VT_VNETD" ]; then
		vt_notok "$VT_VNETD exists (run make first)"
		exit 1
	fi
	VT_INITRD=$("$VT_GUEST" initrd 2> "$VT_W/initrd.log") ||
		{ cat "$VT_W/initrd.log"; vt_notok "build initramfs"; exit 1; }
	vt_step "kernel + initramfs ready in $((SECONDS - t0))s"
}

vt_netns() {
	ip netns add "$VT_NS" || { vt_notok "create netns $VT_NS"; exit 1; }
	ip -n "$VT_NS" link set lo up
}

# vt_tap_config: background; configure the TAP as soon as the backend has created it
vt_tap_config() {
	vt_kill_pid "$VT_CFGPID"
	(
		for _ in $(seq 600); do
			if ip -n "$VT_NS" link show "$VT_TAP" > /dev/null 2>&1; then
				ip -n "$VT_NS" addr add "$VT_HOST_IP/24" dev "$VT_TAP" 2>/dev/null
				ip -n "$VT_NS" link set "$VT_TAP" up
				exit 0
			fi
			sleep 0.1
		done
		exit 1
	) &
	VT_CFGPID=$!
}

# vt_backend_start QUEUES: start the backend under test in the netns, wait for its socket
vt_backend_start() {
	local q=$1 _ log
	VT_BSTARTS=$((VT_BSTARTS + 1))
	log=$VT_W/backend.$VT_BSTARTS.log
	# VT_CLIENT=1: QEMU listens (guest.sh run --vu-server) and the backend connects
	[ -n "${VT_CLIENT:-}" ] || rm -f "$VT_SOCK"
	local t0=$SECONDS
	case $VT_BACKEND in
	vnetd)
		ip netns exec "$VT_NS" "$VT_VNETD" --socket "$VT_SOCK" --backend tap \
			--tap "$VT_TAP" --queues "$q" --ctl-socket "$VT_W/ctl.sock" \
			${VT_CLIENT:+--client} > "$log" 2>&1 < /dev/null &
		VT_BPID=$! ;;
	testpmd)
		ip netns exec "$VT_NS" dpdk-testpmd --lcores '0@0,1@0' --no-pci --no-huge -m 512 \
			--no-shconf --file-prefix "$VT_PREFIX-$VT_BSTARTS" --log-level=lib.eal:notice \
			--vdev "net_vhost0,iface=$VT_SOCK,queues=$q,client=${VT_CLIENT:-0}" \
			--vdev "net_tap0,iface=$VT_TAP" -- --no-mlockall --forward-mode=io \
			--rxq="$q" --txq="$q" --nb-cores=1 --total-num-mbufs=16384 --stats-period 5 \
			> "$log" 2>&1 < /dev/null &
		VT_BPID=$! ;;
	esac
	for _ in $(seq 100); do
		[ -S "$VT_SOCK" ] && break
		kill -0 "$VT_BPID" 2>/dev/null || break
		sleep 0.1
	done
	if [ ! -S "$VT_SOCK" ]; then
		tail -n 20 "$log" | sed 's/^/# backend: /'
		vt_notok "$VT_BACKEND listens on its socket"
		return 1
	fi
	vt_tap_config
	vt_step "$VT_BACKEND started (pid $VT_BPID) in $((SECONDS - t0))s"
	return 0
}

vt_backend_stop() {
	[ -n "$VT_BPID" ] || return 0
	if [ "$VT_BACKEND" = testpmd ]; then vt_kill_pid "$VT_BPID" INT; else vt_kill_pid "$VT_BPID"; fi
	VT_BPID=''
}

vt_backend_alive() { [ -n "$VT_BPID" ] && kill -0 "$VT_BPID" 2>/dev/null; }

# vt_bg CMD...: start a helper in the netns (iperf3 server, httpd), stopped at exit
vt_bg() {
	ip netns exec "$VT_NS" "$@" > "$VT_W/bg.$#.$RANDOM.log" 2>&1 < /dev/null &
	VT_EXTRA_PIDS+=($!)
}

# vt_guest_start ARGS...: boot the guest in the background with the script from stdin
# (prelude.sh is put in front); ARGS go to guest.sh run
vt_guest_start() {
	{ cat "$VT_LIB/prelude.sh"; cat; echo 'exit $GFAILS'; } > "$VT_W/guest-script.sh"
	VT_GLOG=$VT_W/console.log
	: > "$VT_GLOG"
	VT_GT0=$SECONDS
	"$VT_GUEST" run --initrd "$VT_INITRD" --ip "$VT_GUEST_IP/24" --script "$VT_W/guest-script.sh" \
		--pidfile "$VT_W/qemu.pid" --log "$VT_GLOG" "$@" > /dev/null 2> "$VT_W/run.log" &
	VT_GPID=$!
	local _
	for _ in $(seq 50); do [ -s "$VT_W/qemu.pid" ] && break; sleep 0.1; done
	VT_QPID=$(cat "$VT_W/qemu.pid" 2>/dev/null)
}

# vt_wait_mark NAME SECS: wait for "VNET-MARK NAME" on the guest console
vt_wait_mark() {
	local _
	for _ in $(seq $(($2 * 10))); do
		grep -aq "VNET-MARK $1" "$VT_GLOG" && return 0
		kill -0 "$VT_GPID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# vt_guest_wait: wait for the guest to power off, turn its VNET-CHECK lines into TAP lines
vt_guest_wait() {
	local rc name secs res ready
	wait "$VT_GPID"; rc=$?
	VT_GPID='' VT_QPID=''
	sed -n 's/^/# console: /p' "$VT_GLOG" | grep -avE 'VNET-CHECK' | tail -n 60
	ready=$(grep -a -m1 -o 'VNET-GUEST-READY uptime=[0-9.]*' "$VT_GLOG" | cut -d= -f2)
	vt_step "guest ran ${ready:+(kernel+init to READY ${ready}s) }in $((SECONDS - VT_GT0))s, exit $rc"
	while read -r _ res secs name; do
		if [ "$res" = ok ]; then vt_ok "guest: $name (${secs}s)"; else vt_notok "guest: $name (${secs}s)"; fi
	done < <(grep -a '^VNET-CHECK ' "$VT_GLOG" | tr -d '\r')
	if [ "$rc" = 124 ] || [ "$rc" = 125 ]; then
		tail -n 15 "$VT_W/run.log" | sed 's/^/# run: /'
		vt_notok "guest finished (guest.sh run rc=$rc: timeout or QEMU failure)"
	fi
	[ "$(grep -ac 'VNET-GUEST-READY' "$VT_GLOG")" -le 1 ] || vt_notok "guest booted more than once"
	return "$rc"
}

vt_finish() {
	if [ "$VT_BACKEND" = vnetd ] && grep -lqE 'AddressSanitizer|LeakSanitizer|runtime error:' "$VT_W"/backend.*.log 2>/dev/null; then
		grep -hE -A5 'AddressSanitizer|LeakSanitizer|runtime error:' "$VT_W"/backend.*.log | head -n 20 | sed 's/^/# vnetd: /'
		vt_notok "vnetd logged no sanitizer report"
	fi
	vt_step "total $((SECONDS - VT_T0))s"
	[ "$VT_FAILS" = 0 ]
	exit $?
}

# vt_blob: a random file served by busybox httpd in the netns (host -> guest integrity)
vt_blob() {
	mkdir -p "$VT_W/www"
	head -c 4000000 /dev/urandom > "$VT_W/www/blob"
	VT_BLOB_SUM=$(sha256sum "$VT_W/www/blob" | cut -d' ' -f1)
	vt_bg busybox httpd -f -p 8080 -h "$VT_W/www"
}

# vt_fetch_guest_blob: after the guest's "VNET-MARK blob-ready", fetch its blob over HTTP
# (guest -> host integrity), compare with the guest's "VNET-SUM", release the guest
vt_fetch_guest_blob() {
	local want got
	if ! vt_wait_mark blob-ready 120; then
		vt_notok "guest -> host 4 MB HTTP transfer (guest never got ready)"
		return 1
	fi
	want=$(grep -a -m1 -o 'VNET-SUM [0-9a-f]*' "$VT_GLOG" | cut -d' ' -f2)
	if [ -z "$want" ]; then
		vt_notok "guest -> host 4 MB HTTP transfer (guest has no link, not tried)"
		return 1
	fi
	got=$(ip netns exec "$VT_NS" timeout 25 busybox wget -q -O - "http://$VT_GUEST_IP:8080/blob" |
		sha256sum | cut -d' ' -f1)
	ip netns exec "$VT_NS" timeout 5 busybox nc "$VT_GUEST_IP" 9124 < /dev/null > /dev/null 2>&1
	vt_check "guest -> host 4 MB HTTP transfer, sha256 matches" test -n "$want" -a "$want" = "$got"
}

# vt_traffic QUEUES [guest.sh run args...]: the standard scenario: driver up, channels,
# ping, TCP both ways (iperf3 + checksummed HTTP), and with QUEUES > 1 ethtool -L under load
vt_traffic() {
	local q=$1; shift
	vt_netns
	vt_backend_start "$q" || return 1
	vt_blob
	vt_bg iperf3 -s
	local P=1; [ "$q" -gt 1 ] && P=$q
	vt_guest_start --vu "$VT_SOCK" --queues "$q" --smp 2 "$@" <<EOG
H=$VT_HOST_IP Q=$q P=$P SUM=$VT_BLOB_SUM
drv_is_virtio() { [ "\$(basename "\$(readlink /sys/class/net/eth0/device/driver)")" = virtio_net ]; }
combined_is() { c=\$(gcombined); echo "  combined=\$c"; [ "\$c" = "\$1" ]; }
ping_noloss() { ping -c 5 -W 2 \$H | tee /tmp/ping.log | tail -n 2; grep -q " 0% packet loss" /tmp/ping.log; }
http_get() { wget -q -O /tmp/hb http://\$H:8080/blob && gsum_eq /tmp/hb \$SUM; }
feature_bit() { f=\$(cat /sys/class/net/eth0/device/features); [ "\$(echo "\$f" | cut -c\$((\$1 + 1)))" = 1 ]; }
gcheck "eth0 bound to virtio_net" drv_is_virtio
echo "features: \$(cat /sys/class/net/eth0/device/features)"
for b in ${VT_FEATURE_BITS:-}; do gcheck "virtio feature bit \$b negotiated" feature_bit \$b; done
feature_off() { ! feature_bit \$1; }
for b in ${VT_FEATURE_BITS_OFF:-}; do gcheck "virtio feature bit \$b not negotiated" feature_off \$b; done
gcheck "eth0 carrier up" gwait_oper up 10
gcheck "ethtool -l eth0: \$Q combined channels" combined_is \$Q
NOLINK=
gcheck "first ping reply from \$H" gping_wait \$H 20 || NOLINK=1
if [ -n "\$NOLINK" ]; then
	echo "VNET-CHECK FAIL 0 traffic checks not run: no ping reply from \$H"
else
gcheck "ping -c 5 \$H: no loss" ping_noloss
gcheck "iperf3 guest -> host (TCP, -P \$P)" giperf -c \$H -t 3 -P \$P
gcheck "iperf3 host -> guest (TCP, -R, -P \$P)" giperf -c \$H -t 3 -P \$P -R
gcheck "host -> guest 4 MB HTTP transfer, sha256 matches" http_get
if [ "\$Q" -gt 1 ]; then
	iperf3 -c \$H -t 6 -P \$P > /tmp/ip.log 2>&1 &
	IP=\$!
	sleep 1.5
	gcheck "ethtool -L eth0 combined 1 under load" ethtool -L eth0 combined 1
	gcheck "ethtool -l shows 1 combined" combined_is 1
	sleep 1.5
	gcheck "ethtool -L eth0 combined \$Q under load" ethtool -L eth0 combined \$Q
	gcheck "ethtool -l shows \$Q combined" combined_is \$Q
	gcheck "iperf3 across the channel changes completed" wait \$IP
	grep receiver /tmp/ip.log
	gcheck "ping after the channel changes" ping -c 2 -W 2 \$H
fi
mkdir -p /tmp/www && head -c 4000000 /dev/urandom > /tmp/www/blob
echo "VNET-SUM \$(sha256sum /tmp/www/blob | cut -d' ' -f1)"
httpd -p 8080 -h /tmp/www
fi
gmark blob-ready
[ -n "\$NOLINK" ] || timeout 30 nc -l -p 9124 > /dev/null
ethtool -S eth0 | grep -E 'queue_[0-9]+_packets' | tr -s ' \n' ' '; echo
EOG
	vt_fetch_guest_blob
	vt_guest_wait
	vt_check "$VT_BACKEND still running after the guest powered off" vt_backend_alive
	vt_vnetd_counters
}

# vt_vnetd_counters: vnetd's own view (vnetctl status --prometheus): frames moved both
# ways and no ring broken
vt_vnetd_counters() {
	local prom rx tx br
	[ "$VT_BACKEND" = vnetd ] && [ -x "$VT_TOP/build/vnetctl" ] || return 0
	prom=$("$VT_TOP/build/vnetctl" status -s "$VT_W/ctl.sock" --prometheus 2>&1)
	rx=$(awk '/^vnetd_queue_packets_total.*dir="rx"/ {s += $2} END {print s + 0}' <<< "$prom")
	tx=$(awk '/^vnetd_queue_packets_total.*dir="tx"/ {s += $2} END {print s + 0}' <<< "$prom")
	br=$(awk '/^vnetd_queue_breaks_total/ {s += $2} END {print s + 0}' <<< "$prom")
	echo "# vnetd counters: rx (to guest) $rx frames, tx (from guest) $tx frames, ring breaks $br"
	vt_check "vnetd counted frames both ways and broke no ring" test "$rx" -gt 0 -a "$tx" -gt 0 -a "$br" = 0
}

# vt_reconnect QUEUES [guest.sh run args...]: restart the backend while the guest is up
# (QEMU chardev reconnect=1); the link must come back and traffic resume, no guest reboot.
# With VT_CLIENT=1 QEMU is the server (--vu-server) and the backend (vnetd --client)
# connects after QEMU started, and again after its restart.
vt_reconnect() {
	local q=$1 _; shift
	vt_netns
	if [ -z "${VT_CLIENT:-}" ]; then
		vt_backend_start "$q" || return 1
		set -- --vu-reconnect 1 "$@"
	else
		set -- --vu-server "$@"
	fi
	vt_bg iperf3 -s
	vt_guest_start --vu "$VT_SOCK" --queues "$q" --smp 2 "$@" <<EOG
H=$VT_HOST_IP
not_up() { [ "\$(cat /sys/class/net/eth0/operstate)" != up ]; }
carrier_drops() { i=0; while ! not_up; do [ \$i -ge 300 ] && return 1; sleep 0.1; i=\$((i + 1)); done; }
gcheck "carrier up before the restart" gwait_oper up 60
gcheck "ping before the restart" gping_wait \$H 20
B0=\$(cut -d' ' -f1 /proc/uptime)
gmark restart-backend
gcheck "carrier drops while the backend is gone" carrier_drops
gcheck "carrier comes back after the backend restart" gwait_oper up 60
gcheck "ping resumes after the restart" gping_wait \$H 30
gcheck "iperf3 guest -> host after the restart" giperf -c \$H -t 2
gcheck "iperf3 host -> guest after the restart" giperf -c \$H -t 2 -R
echo "uptime at mark \$B0, now \$(cut -d' ' -f1 /proc/uptime) (same boot)"
EOG
	if [ -n "${VT_CLIENT:-}" ]; then
		for _ in $(seq 100); do [ -S "$VT_SOCK" ] && break; sleep 0.1; done
		vt_backend_start "$q" || { vt_guest_wait; return 1; }
	fi
	if vt_wait_mark restart-backend 120; then
		local t0=$SECONDS
		vt_backend_stop
		sleep 1
		vt_backend_start "$q"
		vt_step "backend restarted in $((SECONDS - t0))s"
	else
		vt_notok "guest reached the restart point"
	fi
	vt_guest_wait
	vt_check "restarted $VT_BACKEND still running after the guest powered off" vt_backend_alive
	vt_vnetd_counters
}
