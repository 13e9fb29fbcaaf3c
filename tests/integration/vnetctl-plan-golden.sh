#!/usr/bin/env bash
# vnetctl-plan-golden.sh - golden tests of every `vnetctl plan` output format
# (QEMU, libvirt XML, cloud-hypervisor, vnetd command line, guest hint, JSON;
# N VMs on one vnetd switch: --switch NAME --vms N, with the switch's
# uplink: --uplink tap:IF) and of its refusals
# (message and exit status).
#
# Each case runs build/vnetctl with fixed inputs (--qemu-version and
# --vhost-net-dev pin everything the host would otherwise decide) and
# compares stdout, stderr and the exit status with tests/golden/plan/NAME.out.
# UPDATE_GOLDEN=1 rewrites the golden files instead (review the diff!).
# --host af_xdp reads the interface's queues from a fake sysfs made here
# (--sysfs-net): nic8 has 8 queues, nic2 has 2.
# needs: none
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
BIN=${VNETCTL:-build/vnetctl}
GOLD=tests/golden/plan
need_built "$BIN"
unset VNET_MAX_QUEUES VNET_VHOST VNET_VHOST_NET_DEV	# node settings must not leak in
command -v python3 >/dev/null && HAVE_PY=1 || HAVE_PY=0
command -v xmllint >/dev/null && HAVE_XMLLINT=1 || HAVE_XMLLINT=0	# libxml2-utils

VU="--socket /run/vnetd/vm1.sock --qemu-version 7.2"
ABSENT="--vhost-net-dev /nonexistent/vhost-net"
USABLE="--vhost-net-dev /dev/null --user root"	# crw-rw-rw-: usable by anyone
SYSFS=build/tests/plan-sysfs
rm -rf "$SYSFS"
mkdir -p "$SYSFS"/nic8/queues/rx-{0..7} "$SYSFS"/nic8/queues/tx-{0..7} \
	"$SYSFS"/nic2/queues/rx-{0,1} "$SYSFS"/nic2/queues/tx-{0,1} || exit 1
XDP="$VU --host af_xdp --sysfs-net $SYSFS"
CASES=(
	"vu-8-all|--vcpus 8 $VU --mac 52:54:00:12:34:56"
	"vu-8-json|--vcpus 8 $VU --mac 52:54:00:12:34:56 --json"
	"vu-1-all|--vcpus 1 $VU"
	"vu-1-json|--vcpus 1 $VU --json"
	"vu-4-qemu-9.2|--vcpus 4 --socket /run/vnetd/vm1.sock --qemu-version 9.2 --output qemu"
	"vu-4-qemu-10.0|--vcpus 4 --socket /run/vnetd/vm1.sock --qemu-version 10.0.2 --output qemu"
	"vu-2-queues-4-note|--vcpus 2 --queues 4 $VU --output qemu"
	"vu-8-cap-4|--vcpus 8 --max-queues 4 $VU --output qemu"
	"vu-32-default-16|--vcpus 32 --max-queues 64 $VU --output qemu"
	"vu-32-queues-32-cap-64|--vcpus 32 --queues 32 --max-queues 64 $VU --output qemu"
	"vu-vhost-off|--vcpus 8 --vhost off $VU --output qemu"
	"vu-4-libvirt|--vcpus 4 $VU --output libvirt"
	"vu-1-libvirt|--vcpus 1 $VU --output libvirt"
	"vu-4-libvirt-memory|--vcpus 4 $VU --output libvirt-memory"
	"vu-4-libvirt-qemu10|--vcpus 4 --socket /run/vnetd/vm1.sock --qemu-version 10.0 --output libvirt"
	"vu-underlay-mtu|--vcpus 2 $VU --underlay-mtu 1500 --ovs-bridge br-int --tap tap-vm1"
	"vu-ovs-netdev|--vcpus 2 $VU --underlay-mtu 1500 --ovs-bridge br-int --ovs-datapath netdev --tap tap-vm1"
	"vu-ovs-netdev-json|--vcpus 2 $VU --underlay-mtu 1500 --ovs-bridge br-int --ovs-datapath netdev --tap tap-vm1 --json"
	"refuse-ovs-datapath|--vcpus 2 $VU --ovs-bridge br-int --ovs-datapath dpdk"
	"refuse-ovs-datapath-no-bridge|--vcpus 2 $VU --ovs-datapath netdev"
	"refuse-mtu-both|--vcpus 2 $VU --mtu 1400 --underlay-mtu 1500"
	"refuse-underlay-mtu-low|--vcpus 2 $VU --underlay-mtu 100"
	"vu-2-nic-only|--vcpus 2 $VU --id net1 --nic-only --output qemu"
	"tap-libvirt-memory|--vcpus 2 --backend tap --vhost off --output libvirt-memory"
	"tap-bridge-libvirt|--vcpus 2 --backend tap --vhost off --bridge br0 --tap tap-vm1 --output libvirt"
	"vu-4-ch|--vcpus 4 $VU --output cloud-hypervisor"
	"vu-4-vnetd|--vcpus 4 $VU --tap tap-vm1 --output vnetd"
	"vu-4-hint|--vcpus 4 $VU --output hint"
	"vu-1-hint|--vcpus 1 $VU --output hint"
	"vu-comma-path|--vcpus 2 --socket /tmp/a,b.sock --qemu-version 7.2 --output qemu"
	"tap-4-vhost-on-all|--vcpus 4 --backend tap --vhost on $USABLE --bridge br0 --tap tap-vm1"
	"tap-4-vhost-on-json|--vcpus 4 --backend tap --vhost on $USABLE --bridge br0 --tap tap-vm1 --json"
	"tap-4-auto-absent|--vcpus 4 --backend tap $ABSENT --output qemu"
	"tap-4-on-absent|--vcpus 4 --backend tap --vhost on $ABSENT"
	"tap-fds|--vcpus 4 --backend tap --vhost off --queues 2 --tap-fds 3:4 --output qemu"
	"tap-fds-mismatch|--vcpus 4 --backend tap --vhost off --queues 2 --tap-fds 3:4:5"
	"tap-libvirt-ethernet|--vcpus 2 --backend tap --vhost off --queues 2 --output libvirt"
	"tap-ch|--vcpus 2 --backend tap --vhost off --queues 2 --output cloud-hypervisor"
	"refuse-queues-0|--vcpus 4 $VU --queues 0"
	"refuse-queues-negative|--vcpus 4 $VU --queues -1"
	"refuse-queues-word|--vcpus 4 $VU --queues four"
	"refuse-queues-over-cap|--vcpus 4 $VU --queues 17"
	"refuse-max-queues-65|--vcpus 4 $VU --max-queues 65"
	"refuse-vcpus-word|--vcpus x $VU"
	"refuse-vcpus-missing|$VU"
	"refuse-backend|--vcpus 4 $VU --backend xdp"
	"refuse-output|--vcpus 4 $VU --output yaml"
	"refuse-mac|--vcpus 4 $VU --mac 52:54:00"
	"refuse-mac-multicast|--vcpus 4 $VU --mac 01:00:5e:00:00:01"
	"refuse-memory|--vcpus 4 $VU --memory 1Q"
	"refuse-unknown-flag|--vcpus 4 $VU --frobnicate"
	"refuse-no-socket|--vcpus 4 --qemu-version 7.2"
	"xdp-4-all|--vcpus 4 $XDP --if nic8 --mac 52:54:00:12:34:56"
	"xdp-1-vnetd-mtu|--vcpus 1 $XDP --if nic2 --mtu 9000 --output vnetd"
	"xdp-2-exact-json|--vcpus 2 $XDP --if nic2 --json"
	"refuse-xdp-few-queues|--vcpus 4 $XDP --if nic2"
	"refuse-xdp-no-if|--vcpus 4 $XDP"
	"refuse-xdp-missing-if|--vcpus 4 $XDP --if nosuch0"
	"refuse-xdp-if-alone|--vcpus 4 $VU --if nic8"
	"refuse-xdp-host-word|--vcpus 4 $VU --host xdp --if nic8"
	"refuse-xdp-tap-backend|--vcpus 4 --backend tap --vhost off --host af_xdp --sysfs-net $SYSFS --if nic8"
	"xdp-2-queue-4-vnetd|--vcpus 2 $XDP --if nic8 --xdp-queue 4 --output vnetd"
	"xdp-2-queue-6-exact-json|--vcpus 2 $XDP --if nic8 --xdp-queue 6 --json"
	"refuse-xdp-queue-few|--vcpus 2 $XDP --if nic8 --xdp-queue 7"
	"refuse-xdp-queue-range|--vcpus 2 $XDP --if nic8 --xdp-queue 1024"
	"refuse-xdp-queue-tap-host|--vcpus 2 $VU --xdp-queue 1"
	"switch-3-vlan-all|--vcpus 2 --switch s0 --vms 3 --vlan 10 --qemu-version 7.2"
	"switch-2-vnetd|--vcpus 1 --switch s0 --vms 2 --output vnetd --qemu-version 7.2"
	"switch-2-qemu-mac|--vcpus 4 --switch br.0 --vms 2 --mac 52:54:00:00:00:ff --output qemu --qemu-version 7.2"
	"refuse-switch-no-vms|--vcpus 2 --switch s0 --qemu-version 7.2"
	"refuse-switch-vms-65|--vcpus 2 --switch s0 --vms 65 --qemu-version 7.2"
	"refuse-switch-vlan-4095|--vcpus 2 --switch s0 --vms 2 --vlan 4095 --qemu-version 7.2"
	"refuse-switch-name|--vcpus 2 --switch s/0 --vms 2 --qemu-version 7.2"
	"refuse-switch-socket|--vcpus 2 --switch s0 --vms 2 $VU"
	"refuse-switch-output|--vcpus 2 --switch s0 --vms 2 --output hint --qemu-version 7.2"
	"refuse-vms-without-switch|--vcpus 2 --vms 2 $VU"
	"switch-uplink-bridge-all|--vcpus 2 --switch s0 --vms 2 --vlan 10 --uplink tap:s0up --bridge br0 --qemu-version 7.2"
	"switch-uplink-trunk-all|--vcpus 1 --switch s0 --vms 2 --vlan 20 --uplink tap:s0up --uplink-trunk 10,20-30 --bridge br0 --qemu-version 7.2"
	"switch-uplink-vnetd|--vcpus 1 --switch s0 --vms 2 --uplink tap:s0up --uplink-vlan 1 --output vnetd --qemu-version 7.2"
	"switch-uplink-no-bridge|--vcpus 1 --switch s0 --vms 1 --vlan 5 --uplink tap:up0 --output all --qemu-version 7.2"
	"refuse-uplink-not-tap|--vcpus 2 --switch s0 --vms 2 --uplink eth0 --qemu-version 7.2"
	"refuse-uplink-if-16|--vcpus 2 --switch s0 --vms 2 --uplink tap:0123456789abcdef --qemu-version 7.2"
	"refuse-uplink-vlan-4095|--vcpus 2 --switch s0 --vms 2 --uplink tap:u --uplink-vlan 4095 --qemu-version 7.2"
	"refuse-uplink-vlan-and-trunk|--vcpus 2 --switch s0 --vms 2 --vlan 10 --uplink tap:u --uplink-vlan 10 --uplink-trunk 10 --qemu-version 7.2"
	"refuse-uplink-trunk-misses-vlan|--vcpus 2 --switch s0 --vms 2 --vlan 10 --uplink tap:u --uplink-trunk 20-30 --qemu-version 7.2"
	"refuse-uplink-vlan-other|--vcpus 2 --switch s0 --vms 2 --vlan 10 --uplink tap:u --uplink-vlan 20 --qemu-version 7.2"
	"refuse-uplink-trunk-word|--vcpus 2 --switch s0 --vms 2 --uplink tap:u --uplink-trunk 1,x --qemu-version 7.2"
	"refuse-uplink-vlan-alone|--vcpus 2 --switch s0 --vms 2 --uplink-vlan 10 --qemu-version 7.2"
	"refuse-uplink-bridge-alone|--vcpus 2 --switch s0 --vms 2 --bridge br0 --qemu-version 7.2"
	"refuse-uplink-without-switch|--vcpus 2 --uplink tap:u $VU"
	"refuse-xdp-comma-socket|--vcpus 2 --socket /tmp/a,b.sock --qemu-version 7.2 --host af_xdp --sysfs-net $SYSFS --if nic8"
)

for c in "${CASES[@]}"; do
	name=${c%%|*}
	read -r -a args <<< "${c#*|}"
	out=$(mktemp) err=$(mktemp)
	"$BIN" plan "${args[@]}" > "$out" 2> "$err"
	rc=$?
	got=$( { cat "$out"; echo "--- stderr ---"; cat "$err"; echo "--- exit $rc ---"; } )
	if [ "$HAVE_PY" = 1 ] && [[ " ${args[*]} " == *" --json "* ]] &&
	   ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$out"; then
		not_ok "$name: --json output is not valid JSON"
	elif [ "$HAVE_XMLLINT" = 1 ] && [ -s "$out" ] &&
	     [[ " ${args[*]} " == *" --output libvirt"* ]] && ! xmllint --noout "$out" 2> "$out.xml"; then
		not_ok "$name: libvirt output is not one XML document"
		sed 's/^/#   /' "$out.xml"
	elif [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		printf '%s\n' "$got" > "$GOLD/$name.out"
		ok "$name (golden file written)"
	elif [ ! -f "$GOLD/$name.out" ]; then
		not_ok "$name: $GOLD/$name.out missing (UPDATE_GOLDEN=1 to create)"
	elif diff -u "$GOLD/$name.out" <(printf '%s\n' "$got") > "$out.diff"; then
		ok "$name"
	else
		not_ok "$name: vnetctl plan ${args[*]}"
		sed 's/^/#   /' "$out.diff"
	fi
	rm -f "$out" "$err" "$out.diff" "$out.xml"
done
exit $FAILED
