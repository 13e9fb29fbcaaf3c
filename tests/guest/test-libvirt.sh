#!/usr/bin/env bash
# needs: root qemu tun libvirt
# Guest scenario under libvirt, as an operator would run it: libvirtd from Debian's
# libvirt-daemon-system with its default qemu.conf (QEMU runs as libvirt-qemu), a TCG
# domain booting the test guest's kernel directly, its NIC and memory backing taken
# verbatim from `vnetctl plan --output libvirt` / `libvirt-memory`, and vnetd started
# from the plan's own `vnetd` line. The guest pings the host side of vnetd's TAP;
# vnetd is restarted while the domain runs and the pings must come back within 5 s
# (the plan's <reconnect enabled='yes' timeout='1'/>).
#
# One addition, said in the output: QEMU < 10 under TCG crashes with vhost-user +
# MSI-X, so the domain gives the NIC vectors=0 through <qemu:override> (as the plan's
# comment tells the operator to).
. "$(dirname "$0")/lib/vu-test.sh" || { echo "SKIP: tests/guest/lib/vu-test.sh missing"; exit 77; }
CTL=$VT_TOP/build/vnetctl
[ -x "$CTL" ] || { echo "SKIP: build/vnetctl not built (run make)"; exit 77; }
id libvirt-qemu > /dev/null 2>&1 || { echo "SKIP: no libvirt-qemu user (libvirt-daemon-system not configured)"; exit 77; }
vt_init libvirt
QEMU=${VNET_QEMU:-/usr/bin/qemu-system-x86_64}
read -r _ KERNEL _ < <("$VT_GUEST" kernel 2>/dev/null) || vt_skip "no guest kernel"
DOM=vnet-lv$$
VIRSH=(virsh -q -c qemu:///system)
LV_STARTED=()

lv_cleanup() {
	"${VIRSH[@]}" destroy "$DOM" > /dev/null 2>&1
	"${VIRSH[@]}" undefine "$DOM" > /dev/null 2>&1
	local p
	for p in "${LV_STARTED[@]+"${LV_STARTED[@]}"}"; do kill "$p" 2>/dev/null; done
	[ -n "${LV_DIR:-}" ] && [ -z "${VNET_GUEST_KEEP:-}" ] && rm -rf "$LV_DIR"
	rm -f "${LV_SOCK:-}"
	vt_cleanup
}
trap lv_cleanup EXIT

# ---- libvirtd, started by hand (no systemd as PID 1 here) -------------------------------
lv_daemon() { # NAME: start the daemon unless its pid file names a live process
	local pf=/run/$1.pid
	if [ -s "$pf" ] && kill -0 "$(cat "$pf")" 2>/dev/null; then return 0; fi
	"$1" -d || return 1
	for _ in $(seq 50); do [ -s "$pf" ] && break; sleep 0.1; done
	LV_STARTED+=("$(cat "$pf")")
}
lv_daemon virtlogd && lv_daemon libvirtd || { vt_notok "start virtlogd + libvirtd"; vt_finish; }
for _ in $(seq 100); do "${VIRSH[@]}" version > /dev/null 2>&1 && break; sleep 0.1; done
vt_check "libvirtd answers on qemu:///system" "${VIRSH[@]}" version
qver=$("$QEMU" --version | awk 'NR==1{print $4}')
echo "# libvirt $("${VIRSH[@]}" version 2>/dev/null | awk '/libvirt/{print $NF; exit}'), QEMU $qver"

# ---- the plan ---------------------------------------------------------------------------------
LV_SOCK=/run/vnetd/lv$$.sock
PLAN=("$CTL" plan --vcpus 2 --socket "$LV_SOCK" --tap "$VT_TAP" --mac 52:54:00:12:34:01
      --memory 512M --qemu "$QEMU")
"${PLAN[@]}" --output libvirt > "$VT_W/nic.xml" 2> "$VT_W/plan.err" &&
	"${PLAN[@]}" --output libvirt-memory > "$VT_W/mem.xml" 2>> "$VT_W/plan.err" &&
	VLINE=$("${PLAN[@]}" --output vnetd 2>> "$VT_W/plan.err") ||
	{ cat "$VT_W/plan.err"; vt_notok "vnetctl plan"; vt_finish; }
sed 's/^/# plan libvirt: /' "$VT_W/nic.xml" "$VT_W/mem.xml"
echo "# plan vnetd: $VLINE"
vt_check "plan: the <interface> is one XML document" xmllint --noout "$VT_W/nic.xml"
vt_check "plan: the <memoryBacking> is one XML document" xmllint --noout "$VT_W/mem.xml"
vt_check "plan: <source> reconnects" grep -q "<reconnect enabled='yes' timeout='1'/>" "$VT_W/nic.xml"
eval "set -- $VLINE"; VARGS=("$@"); VARGS[0]=$VT_TOP/build/vnetd

# ---- vnetd from the plan's line, in the test's netns (its TAP lives there) ------------------
vt_netns
lv_vnetd_start() {
	ip netns exec "$VT_NS" "${VARGS[@]}" >> "$VT_W/vnetd.log" 2>&1 < /dev/null &
	VT_BPID=$!
	for _ in $(seq 100); do [ -S "$LV_SOCK" ] && break; kill -0 $VT_BPID 2>/dev/null || break; sleep 0.1; done
	vt_tap_config
	[ -S "$LV_SOCK" ]
}
lv_vnetd_start || { sed 's/^/# vnetd: /' "$VT_W/vnetd.log" | tail -n 20; vt_notok "vnetd listens on $LV_SOCK"; vt_finish; }
ls -l "$LV_SOCK" | sed 's/^/# socket: /'
vt_check "libvirt-qemu may connect to vnetd's socket" runuser -u libvirt-qemu -- test -w "$LV_SOCK"

# ---- the domain ---------------------------------------------------------------------------------
# Everything QEMU opens must be reachable by libvirt-qemu: a world-searchable dir
LV_DIR=$(mktemp -d /tmp/vnet-libvirt.XXXXXX); chmod 755 "$LV_DIR"
cp "$KERNEL" "$LV_DIR/vmlinuz"; cp "$VT_INITRD" "$LV_DIR/initrd"
{ cat "$VT_LIB/prelude.sh"; cat <<'EOG'; } > "$LV_DIR/guest.sh"
gcheck "eth0 bound to virtio_net" test "$(basename "$(readlink /sys/class/net/eth0/device/driver)")" = virtio_net
gcheck "ping the host through vnetd" gping_wait 10.77.0.1 30
gmark pinging
ping -i 0.2 -W 1 -w 60 10.77.0.1 | sed 's/^/VNET-PING /'
echo "VNET-GUEST-EXIT status=$GFAILS"
poweroff -f
EOG
chmod 644 "$LV_DIR"/*
override=''
if [ "${qver%%.*}" -lt 10 ]; then
	echo "# addition for TCG: QEMU $qver crashes with vhost-user + MSI-X under TCG; <qemu:override> vectors=0"
	override="<qemu:override><qemu:device alias='net0'><qemu:frontend>
    <qemu:property name='vectors' type='unsigned' value='0'/>
  </qemu:frontend></qemu:device></qemu:override>"
fi
VT_GLOG=$LV_DIR/console.log
cat > "$VT_W/domain.xml" <<EOD
<domain type='qemu' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>
  <name>$DOM</name>
  <memory unit='MiB'>512</memory>
  <vcpu>2</vcpu>
$(grep -v '^<!--' "$VT_W/mem.xml")
  <os>
    <type arch='x86_64' machine='q35'>hvm</type>
    <kernel>$LV_DIR/vmlinuz</kernel>
    <initrd>$LV_DIR/initrd</initrd>
    <cmdline>console=ttyS0 panic=-1 quiet loglevel=4 vnet.ip=$VT_GUEST_IP/24</cmdline>
  </os>
  <features><acpi/><apic/></features>
  <sysinfo type='fwcfg'>
    <entry name='opt/vnet/script' file='$LV_DIR/guest.sh'/>
  </sysinfo>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>destroy</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <emulator>$QEMU</emulator>
$(cat "$VT_W/nic.xml")
    <serial type='file'>
      <source path='$VT_GLOG'/>
      <target port='0'/>
    </serial>
    <memballoon model='none'/>
  </devices>
  $override
</domain>
EOD
if command -v virt-xml-validate > /dev/null; then
	vt_check "domain with the plan's XML validates (virt-xml-validate)" virt-xml-validate "$VT_W/domain.xml" domain
fi
vt_step "define + start $DOM"
VT_GT0=$SECONDS
if ! "${VIRSH[@]}" define "$VT_W/domain.xml" > "$VT_W/virsh.log" 2>&1 ||
   ! "${VIRSH[@]}" start "$DOM" >> "$VT_W/virsh.log" 2>&1; then
	sed 's/^/# virsh: /' "$VT_W/virsh.log"
	tail -n 5 "/var/log/libvirt/qemu/$DOM.log" 2>/dev/null | sed 's/^/# qemu log: /'
	vt_notok "virsh define + start"
	vt_finish
fi
vt_ok "virsh define + start: QEMU runs as $(ps -o user= -p "$(pgrep -f "guest=$DOM" | head -n1)" 2>/dev/null)"

# ---- first pings, then vnetd restarted under the running domain -------------------------------
lv_wait() { # REGEX SECS: wait for REGEX in the console log
	local i
	for i in $(seq $(($2 * 10))); do grep -aqE "$1" "$VT_GLOG" 2>/dev/null && return 0; sleep 0.1; done
	return 1
}
vt_check "guest pings the host (first reply)" lv_wait 'VNET-PING .*bytes from' 180
before=$(grep -ac 'VNET-PING .*bytes from' "$VT_GLOG")
vt_step "restarting vnetd ($before replies so far)"
vt_backend_stop
sleep 1
t0=$(date +%s.%N)
lv_vnetd_start || vt_notok "vnetd restarted"
gap=''
for _ in $(seq 150); do
	now=$(grep -ac 'VNET-PING .*bytes from' "$VT_GLOG")
	if [ "$now" -gt $((before + 1)) ]; then gap=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}'); break; fi
	sleep 0.1
done
echo "# pings back ${gap:-never} s after vnetd restarted"
vt_check "pings come back within 5 s of vnetd's restart" awk -v g="${gap:-99}" 'BEGIN{exit !(g <= 5)}'
grep -aE 'connected|disconnected|error' "$VT_W/vnetd.log" | tail -n 6 | sed 's/^/# vnetd: /'
vt_check "QEMU's log shows no crash" sh -c "! grep -qiE 'segfault|core dumped|terminating on signal 11' /var/log/libvirt/qemu/$DOM.log"
vt_check "vnetd still running" vt_backend_alive
"${VIRSH[@]}" destroy "$DOM" > /dev/null 2>&1
vt_finish
