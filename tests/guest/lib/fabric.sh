# shellcheck shell=bash
# tests/guest/lib/fabric.sh - two "hosts" on one L2 fabric, for the guest scenarios that
# span hosts (source it after vu-test.sh and vt_init). Same layout as
# tests/guest/test-fabric-vxlan.sh: netns FB_H[0] and FB_H[1] joined by a veth underlay
# fbu$$ (MTU 1500, FB_UIP), on each a Linux bridge br0 with a VXLAN port vx0 (VNI 42) to
# the other host. Each vnetd and its QEMU options come from `vnetctl plan --underlay-mtu
# 1500 --bridge br0`, as an operator would type them.
#   fb_hosts A B            make the hosts, netns A and B (the caller deletes them)
#   fb_vnetd I ID MAC       vnetd ID on host I: socket $VT_W/ID.sock, TAP fbtID$$ on br0,
#                           control socket $VT_W/ctl-ID; the plan's QEMU options for a
#                           guest with MAC on it, one per line, in $VT_W/qargs-ID;
#                           pid in FB_VPID[ID]
#   fb_learned I MAC        the br0 port host I's bridge learned MAC on ("" if none)
# Needs FB_CTL (build/vnetctl) and VNET_QEMU (the QEMU the plan is for).

FB_H=() FB_UIP=(10.99.0.1 10.99.0.2)
declare -A FB_VPID=()

fb_hosts() {
	local i n
	FB_H=("$1" "$2")
	for i in 0 1; do
		ip netns add "${FB_H[$i]}" && ip -n "${FB_H[$i]}" link set lo up ||
			{ vt_notok "netns ${FB_H[$i]}"; return 1; }
	done
	ip link add "fbu$$" netns "${FB_H[0]}" type veth peer name "fbu$$" netns "${FB_H[1]}" ||
		{ vt_notok "veth underlay fbu$$"; return 1; }
	for i in 0 1; do
		n=${FB_H[$i]}
		ip -n "$n" addr add "${FB_UIP[$i]}/24" dev "fbu$$" &&
			ip -n "$n" link set "fbu$$" mtu 1500 up &&
			ip -n "$n" link add br0 type bridge &&
			ip -n "$n" link add vx0 type vxlan id 42 local "${FB_UIP[$i]}" \
				remote "${FB_UIP[$((1 - i))]}" dstport 4789 dev "fbu$$" &&
			ip -n "$n" link set vx0 master br0 && ip -n "$n" link set vx0 up &&
			ip -n "$n" link set br0 up || { vt_notok "bridge + VXLAN on host $i"; return 1; }
	done
}

fb_vnetd() {
	local i=$1 id=$2 mac=$3 sock=$VT_W/$2.sock tap=fbt$2$$ vline qline plan _
	plan=("$FB_CTL" plan --vcpus 1 --socket "$sock" --tap "$tap" --bridge br0 --underlay-mtu 1500
	      --mac "$mac" --qemu "${VNET_QEMU:-qemu-system-x86_64}")
	vline=$("${plan[@]}" --output vnetd 2> "$VT_W/plan.err") &&
		qline=$("${plan[@]}" --memory 256M --output qemu 2>> "$VT_W/plan.err") ||
		{ sed 's/^/# plan: /' "$VT_W/plan.err"; vt_notok "vnetctl plan for $id"; return 1; }
	echo "# plan $id: $vline"
	eval "set -- $vline"
	shift
	ip netns exec "${FB_H[$i]}" "$VT_VNETD" "$@" --ctl-socket "$VT_W/ctl-$id" \
		> "$VT_W/backend.$id.log" 2>&1 < /dev/null &
	# shellcheck disable=SC2034  # read by the scenario
	FB_VPID[$id]=$!
	for _ in $(seq 100); do
		ip -n "${FB_H[$i]}" link show "$tap" > /dev/null 2>&1 && [ -S "$sock" ] && break
		sleep 0.1
	done
	ip -n "${FB_H[$i]}" link set "$tap" mtu 1450 master br0 up ||
		{ tail -n 5 "$VT_W/backend.$id.log" | sed 's/^/# vnetd: /'; vt_notok "vnetd $id made TAP $tap"; return 1; }
	eval "set -- $qline"
	printf '%s\n' "$@" > "$VT_W/qargs-$id"
}

fb_learned() {
	# "MAC dev PORT master br0": the bridge's own entries, not vx0's "self" ones
	bridge -n "${FB_H[$1]}" fdb show br br0 2> /dev/null |
		awk -v m="$(tr 'A-F' 'a-f' <<< "$2")" '$1 == m && / master br0/ && !/ self/ {print $3; exit}'
}
