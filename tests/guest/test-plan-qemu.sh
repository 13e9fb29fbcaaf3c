#!/usr/bin/env bash
# Guest scenario: boot exactly what `vnetctl plan --vcpus 2 --queues 2` prints. The QEMU
# arguments of the plan (shared memfd RAM, chardev with the reconnect spelling for this
# QEMU, -netdev vhost-user queues=2, -device virtio-net-pci mq=on,vectors=6) plus only
# kernel/initrd/console options, against vnetd started from the plan's `vnetd` line, in a
# private netns. The guest driver must report 2 combined channels and reach the host.
# VNET_PLAN_QUEUES=1 (test-plan-qemu-q1.sh) does the same for a single pair, whose plan
# must carry no queues=, mq= or vectors= at all.
#
# One override, said in the output: Debian's QEMU 7.2 crashes with vhost-user + MSI-X
# under TCG (see tools/guest/README.md), so with QEMU < 10 vectors=6 becomes vectors=0.
# The plan itself must still print vectors=2N+2 (checked first).
# needs: root netns tun qemu busybox cpio
. "$(dirname "$0")/lib/vu-test.sh" || { echo "SKIP: tests/guest/lib/vu-test.sh missing"; exit 77; }
CTL=$VT_TOP/build/vnetctl
[ -x "$CTL" ] || { echo "SKIP: build/vnetctl not built (run make)"; exit 77; }
vt_init "plan-qemu-q${VNET_PLAN_QUEUES:-2}"
QEMU=${VNET_QEMU:-qemu-system-x86_64}
read -r _ KERNEL _ < <("$VT_GUEST" kernel 2>/dev/null) || vt_skip "no guest kernel"

# ---- the plan ---------------------------------------------------------------------------
Q=${VNET_PLAN_QUEUES:-2}	# test-plan-qemu-q1.sh sets 1
V=$((2 * Q + 2))
PLAN=("$CTL" plan --vcpus 2 --queues "$Q" --socket "$VT_SOCK" --tap "$VT_TAP"
      --mac 52:54:00:12:34:01 --memory 512M --qemu "$QEMU")
QLINE=$("${PLAN[@]}" --output qemu 2> "$VT_W/plan.err") || { cat "$VT_W/plan.err"; vt_notok "vnetctl plan"; exit 1; }
VLINE=$("${PLAN[@]}" --output vnetd 2>> "$VT_W/plan.err")
echo "# ${PLAN[*]}"
echo "$QLINE" | sed 's/^/# plan qemu: /'
echo "# plan vnetd: $VLINE"
eval "set -- $QLINE"; QARGS=("$@")
eval "set -- $VLINE"; VARGS=("$@")
all=" ${QARGS[*]} "
if [ "$Q" -gt 1 ]; then
	vt_check "plan: -netdev vhost-user ... queues=$Q" grep -q "vhost-user,id=net0,chardev=chr-net0,queues=$Q " <<< "$all"
	vt_check "plan: -device virtio-net-pci ... mq=on,vectors=$V" grep -q "mq=on,vectors=$V " <<< "$all"
else
	vt_check "plan: single pair, no queues=, mq= or vectors=" test -z "$(grep -oE 'queues=|mq=|vectors=' <<< "$all")"
fi
vt_check "plan: shared memfd guest RAM" grep -q "memory-backend-memfd,id=mem-net0,size=512M,share=on" <<< "$all"
qver=$("$QEMU" --version | awk 'NR==1{print $4}')
case $qver in
9.[2-9]*|[1-9][0-9].*) want=reconnect-ms=1000 ;;
*) want=reconnect=1 ;;
esac
vt_check "plan: chardev spelled $want for QEMU $qver" grep -q ",$want " <<< "$all"
vt_check "plan: vnetd line is vnetd --socket S --backend tap --tap T --queues $Q" \
	test "${VARGS[*]}" = "vnetd --socket $VT_SOCK --backend tap --tap $VT_TAP --queues $Q"
if [ "${qver%%.*}" -lt 10 ]; then
	echo "# override for TCG: QEMU $qver crashes with vhost-user + MSI-X under TCG; -device gets vectors=0"
	for i in "${!QARGS[@]}"; do
		case ${QARGS[$i]} in
		virtio-net-pci,*,vectors=$V) QARGS[$i]=${QARGS[$i]%,vectors=$V},vectors=0 ;;
		virtio-net-pci,*) QARGS[$i]+=,vectors=0 ;;
		*) continue ;;
		esac
		echo "# -device ${QARGS[$i]}"
	done
fi

# ---- vnetd from the plan's line ----------------------------------------------------------
vt_netns
if [ "$VT_BACKEND" = testpmd ]; then
	# VNET_GUEST_BACKEND=testpmd: the reference backend instead of the plan's vnetd line,
	# to tell a problem in the printed QEMU arguments from one in vnetd
	echo "# backend: dpdk-testpmd (VNET_GUEST_BACKEND=testpmd), not the plan's vnetd line"
	vt_backend_start "$Q" || vt_finish
	VARGS=()
fi
[ ${#VARGS[@]} -gt 0 ] && VARGS[0]=$VT_TOP/build/vnetd
if [ ${#VARGS[@]} -gt 0 ]; then
	ip netns exec "$VT_NS" "${VARGS[@]}" > "$VT_W/vnetd.log" 2>&1 < /dev/null &
	VT_BPID=$!
	for _ in $(seq 100); do [ -S "$VT_SOCK" ] && break; kill -0 $VT_BPID 2>/dev/null || break; sleep 0.1; done
	if [ ! -S "$VT_SOCK" ]; then
		sed 's/^/# vnetd: /' "$VT_W/vnetd.log" | tail -n 20
		vt_notok "vnetd from the plan listens on $VT_SOCK"
		vt_finish
	fi
	vt_tap_config
fi

# ---- QEMU with the plan's arguments + kernel/initrd/console --------------------------------
{ cat "$VT_LIB/prelude.sh"; echo "Q=$Q"; cat <<'EOG'; echo 'exit $GFAILS'; } > "$VT_W/guest-script.sh"
combined_is() { c=$(gcombined); echo "  combined=$c"; [ "$c" = "$1" ]; }
max_is() { m=$(ethtool -l eth0 | awk '/Pre-set maximums/{c=1} c && /^Combined:/{print $2; exit}'); echo "  max=$m"; [ "$m" = "$1" ]; }
gcheck "eth0 bound to virtio_net" test "$(basename "$(readlink /sys/class/net/eth0/device/driver)")" = virtio_net
gcheck "ethtool -l eth0: maximum $Q combined" max_is $Q
gcheck "ethtool -l eth0: $Q combined channels" combined_is $Q
gcheck "eth0 carrier up" gwait_oper up 10
gcheck "ping the host through the backend" gping_wait 10.77.0.1 20
EOG
VT_GLOG=$VT_W/console.log
VT_GT0=$SECONDS
timeout -k 5 240 "$QEMU" -name vnet-plan -nodefaults -no-user-config -display none -no-reboot \
	-M q35 -accel tcg,thread=multi -cpu max \
	"${QARGS[@]}" \
	-kernel "$KERNEL" -initrd "$VT_INITRD" -serial stdio \
	-append "console=ttyS0 panic=-1 quiet loglevel=4 vnet.ip=$VT_GUEST_IP/24" \
	-fw_cfg "name=opt/vnet/script,file=$VT_W/guest-script.sh" \
	> "$VT_GLOG" 2>&1 < /dev/null &
VT_GPID=$!
vt_guest_wait
vt_check "guest script ran to the end (VNET-GUEST-EXIT status=0)" grep -aq 'VNET-GUEST-EXIT status=0' "$VT_GLOG"
grep -a -i -E 'qemu-system|error' "$VT_GLOG" | head -n 5 | sed 's/^/# qemu: /'
vt_check "$VT_BACKEND still running after the guest powered off" vt_backend_alive
[ "$VT_FAILS" = 0 ] || tail -n 15 "$VT_W/vnetd.log" 2>/dev/null | sed "s/^/# vnetd: /"
vt_finish
