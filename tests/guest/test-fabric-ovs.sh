#!/usr/bin/env bash
# needs: root qemu tun netns ovs
# Two hosts, one Open vSwitch fabric: network namespaces h1 and h2 stand in for two hosts
# joined by a veth "underlay" (MTU 1500). On each: its own ovsdb-server + ovs-vswitchd
# (userspace datapath, datapath_type=netdev: no openvswitch kernel module needed), a
# bridge br-phy holding the underlay port and the underlay IP (the tunnel endpoint), a
# bridge br0 with a VXLAN port to the other host, vnetd --backend tap with its TAP put on
# br0 by the exact `ovs-vsctl add-port` line of `vnetctl plan --ovs-bridge br0
# --underlay-mtu 1500`, and a guest (the test guest under QEMU TCG) on that vnetd with the
# plan's MTU (1450, VIRTIO_NET_F_MTU).
# Offloads: OVS's userspace datapath (3.1, Debian 12) cannot tunnel frames that still
# carry checksum/TSO work (CHECKSUM_PARTIAL, GSO) as a TAP or veth hands them over: they
# leave with a bad checksum, or too big, or are dropped. A probe (a veth "VM" on br0 of host 1 with
# and without tx offloads) decides: if offloaded TCP crosses the tunnel, the guests keep
# TSO and the test checks TSO frames cross; if not, vnetd withholds csum/host_tso* from
# the guest (--features) so the guest segments and checksums itself, and the test says so.
# The guests ping each other and each fetches a 1 MiB random file from the other over TCP
# (busybox httpd/wget), checked with sha256.
. "$(dirname "$0")/lib/vu-test.sh" || { echo "SKIP: tests/guest/lib/vu-test.sh missing"; exit 77; }
. "$VT_LIB/ovs.sh"
CTL=$VT_TOP/build/vnetctl
[ -x "$CTL" ] || { echo "SKIP: build/vnetctl not built (run make)"; exit 77; }
why=$(ovs_missing) && { echo "SKIP: $why"; exit 77; }
command -v ethtool > /dev/null || { echo "SKIP: ethtool missing (the offload probe)"; exit 77; }
vt_init fabric-ovs
echo "# $(ovs-vswitchd --version | head -n 1), userspace datapath"
H=(vnoa$$ vnob$$)	# the two "hosts"
P=vnop$$		# the probe "VM" on host 1
UIP=(10.99.1.1 10.99.1.2) GIP=(10.88.1.1 10.88.1.2) PIDS=() QPIDS=()
D=("$VT_W/ovs-h1" "$VT_W/ovs-h2")
UL=fou$$	# the underlay veth, same name on both hosts
OFFLOAD_MASK=-csum,-host_tso4,-host_tso6,-host_ecn,-host_ufo

fo_cleanup() {
	local p n
	for p in "${QPIDS[@]+"${QPIDS[@]}"}" "${PIDS[@]+"${PIDS[@]}"}"; do vt_kill_pid "$p"; done
	if [ "$VT_FAILS" != 0 ]; then for n in "${D[@]}"; do ovs_logs "$n"; done; fi
	ovs_stop
	for n in "${H[@]}" "$P"; do ip netns del "$n" 2>/dev/null; done
}
cleanup_run fo_cleanup
route_via_br_phy() { ovs_appctl "$1" ovs/route/lookup "$2" | grep -q 'dev br-phy'; }
arp_set() { ovs_appctl "$1" tnl/arp/set br-phy "$2" "$3" > /dev/null; }
probe_ping() { ip netns exec "${H[1]}" busybox ping -c 1 -W 5 10.88.1.201 > /dev/null; }
drops() { # HOST IFACE [COUNTERS]: the sum of OVS's COUNTERS (default: drops and errors) of IFACE
	local k sum=0 v
	for k in ${3:-rx_dropped tx_dropped rx_errors tx_errors}; do
		v=$(ovs_env "${D[$1]}" ovs-vsctl get interface "$2" "statistics:$k" 2>/dev/null)
		sum=$((sum + ${v:-0}))
	done
	echo "$sum"
}

# ---- the underlay, and each host's OVS: br-phy (underlay IP) and br0 (VXLAN) ---------------
t0=$SECONDS
for n in "${H[@]}" "$P"; do ip netns add "$n" && ip -n "$n" link set lo up || { vt_notok "netns $n"; vt_finish; }; done
ip link add "$UL" netns "${H[0]}" type veth peer name "$UL" netns "${H[1]}"
for i in 0 1; do
	n=${H[$i]} d=${D[$i]}
	ovs_start "$n" "$d" || { cat "$d"/*.out "$d"/*.log 2>/dev/null | tail -n 5; vt_notok "host $i: ovsdb-server + ovs-vswitchd started"; vt_finish; }
	ip -n "$n" link set "$UL" mtu 1500 up
	# the underlay NIC goes on br-phy; its IP moves to br-phy's internal port, where
	# the userspace datapath terminates tunnels
	ovs_env "$d" ovs-vsctl add-br br-phy -- set bridge br-phy datapath_type=netdev \
		-- add-port br-phy "$UL" &&
	ip -n "$n" addr add "${UIP[$i]}/24" dev br-phy && ip -n "$n" link set br-phy up &&
	ovs_env "$d" ovs-vsctl add-br br0 -- set bridge br0 datapath_type=netdev \
		-- add-port br0 vx0 -- set interface vx0 type=vxlan \
		options:remote_ip="${UIP[$((1 - i))]}" options:key=42 options:dst_port=4789 ||
		{ vt_notok "host $i: OVS bridges br-phy and br0 (VXLAN port vx0)"; vt_finish; }
done
for i in 0 1; do
	d=${D[$i]} peer=${UIP[$((1 - i))]}
	# the tunnel route comes from the kernel's (ovs-vswitchd runs in the host's netns)
	vt_check "host $i: tunnel route to $peer via br-phy (ovs/route/lookup)" route_via_br_phy "$d" "$peer"
	# the peer's underlay MAC, so the first frames are not spent on ARP
	mac=$(ip -n "${H[$((1 - i))]}" -br link show br-phy | awk '{print $3}')
	vt_check "host $i: tnl/arp/set br-phy $peer $mac" arp_set "$d" "$peer" "$mac"
done
vt_step "two OVS hosts up in $((SECONDS - t0))s"

# ---- the offload probe: a veth "VM" on host 1's br0, a server on host 2's br0 -------------
t0=$SECONDS
ip link add fop$$ netns "${H[0]}" type veth peer name eth0 netns "$P"
ip -n "${H[0]}" link set fop$$ mtu 1450 up
ip -n "$P" link set eth0 mtu 1450 up
ip -n "$P" addr add 10.88.1.201/24 dev eth0
ovs_env "${D[0]}" ovs-vsctl add-port br0 fop$$
ovs_env "${D[1]}" ovs-vsctl add-port br0 fos0 -- set interface fos0 type=internal mtu_request=1450
ip -n "${H[1]}" addr add 10.88.1.202/24 dev fos0 && ip -n "${H[1]}" link set fos0 up
mkdir -p "$VT_W/pwww" && head -c 200000 /dev/urandom > "$VT_W/pwww/p"
PSUM=$(sha256sum "$VT_W/pwww/p" | cut -d' ' -f1)
ip netns exec "$P" busybox httpd -f -p 8080 -h "$VT_W/pwww" > /dev/null 2>&1 < /dev/null &
PIDS+=($!)
pfetch() { # SECS: the probe VM's file, fetched by host 2 across the tunnel
	[ "$(ip netns exec "${H[1]}" timeout "$1" busybox wget -q -O - http://10.88.1.201:8080/p 2>/dev/null |
		sha256sum | cut -d' ' -f1)" = "$PSUM" ]
}
vt_check "probe: ping across the tunnel" probe_ping
ip netns exec "$P" ethtool -K eth0 tx on tso on > /dev/null 2>&1
if pfetch 8; then
	OFFLOAD=1
	echo "# probe: frames with checksum/TSO offload cross this OVS's tunnel: the guests keep TSO"
else
	OFFLOAD=0
	grep -o 'Tunneling packets with HW offload flags is not supported[^|]*' "${D[0]}/ovs-vswitchd.log" | sort | uniq -c | sed 's/^/# probe: ovs-vswitchd says: /'
	echo "# probe: TCP with tx offloads on does not cross this OVS's userspace tunnel: vnetd withholds $OFFLOAD_MASK"
fi
ip netns exec "$P" ethtool -K eth0 tx off > /dev/null 2>&1
vt_check "probe: 200 kB over TCP across the tunnel with tx offloads off, sha256 matches" pfetch 20
vt_kill_pid "${PIDS[0]}"; PIDS=()
ovs_env "${D[0]}" ovs-vsctl del-port br0 fop$$
vt_step "offload probe in $((SECONDS - t0))s"
UL_DROPS=("$(drops 0 "$UL")" "$(drops 1 "$UL")")	# the probe may have left some

# ---- the plan, per host --------------------------------------------------------------------
for i in 0 1; do
	n=${H[$i]} d=${D[$i]} sock=$VT_W/vm$i.sock tap=fot$i$$
	DP=(); [ "$OFFLOAD" = 1 ] || DP=(--ovs-datapath netdev)	# the plan withholds the offloads
	PLAN=("$CTL" plan --vcpus 1 --socket "$sock" --tap "$tap" --ovs-bridge br0 "${DP[@]}" --underlay-mtu 1500
	      --mac "52:54:00:88:01:0$((i + 1))" --qemu "${VNET_QEMU:-qemu-system-x86_64}")
	ALL=$("${PLAN[@]}" 2> "$VT_W/plan.err") &&
		VLINE=$("${PLAN[@]}" --output vnetd 2>> "$VT_W/plan.err") &&
		QLINE=$("${PLAN[@]}" --memory 512M --output qemu 2>> "$VT_W/plan.err") ||
		{ cat "$VT_W/plan.err"; vt_notok "vnetctl plan"; vt_finish; }
	TLINE=$(sed -n '/^# host$/,/^$/p' <<< "$ALL" | grep '^vnetctl tap create ')
	OLINE=$(sed -n '/^# host$/,/^$/p' <<< "$ALL" | grep '^ovs-vsctl add-port ')
	PLINE=$(sed -n '/^# host$/,/^$/p' <<< "$ALL" | grep '^ovs-vsctl set bridge ')
	[ "$i" = 0 ] && { echo "# plan host: $TLINE"; echo "# plan host: $OLINE"; echo "# plan vnetd: $VLINE"; echo "# plan qemu: $QLINE"; }
	vt_check "plan host $i: attach line is 'ovs-vsctl add-port br0 $tap'" test "$OLINE" = "ovs-vsctl add-port br0 $tap"
	vt_check "plan host $i: and the line that pins br0's MAC ($PLINE)" \
		test "$PLINE" = 'ovs-vsctl set bridge br0 other-config:hwaddr="$(cat /sys/class/net/br0/address)"'
	vt_check "plan host $i: vnetd advertises --mtu 1450" grep -q -- "--mtu 1450" <<< "$VLINE"
	[ "$OFFLOAD" = 1 ] ||
		vt_check "plan host $i: with --ovs-datapath netdev vnetd withholds $OFFLOAD_MASK" grep -q -- "--features $OFFLOAD_MASK" <<< "$VLINE"
	vt_check "plan host $i: QEMU device gets host_mtu=1450" grep -q "host_mtu=1450" <<< "$QLINE"
	# the host section in its order: the TAP, then onto the OVS bridge, then vnetd
	eval "set -- $TLINE"; TA=("$@"); TA[0]=$CTL
	ip netns exec "$n" "${TA[@]}" > "$VT_W/tap$i.log" 2>&1 ||
		{ cat "$VT_W/tap$i.log"; vt_notok "host $i: $TLINE"; vt_finish; }
	ip -n "$n" link set "$tap" mtu 1450 up
	eval "set -- $OLINE"; OA=("$@")
	vt_check "host $i: $OLINE" ovs_env "$d" "${OA[@]}"
	eval "set -- $VLINE"; VARGS=("$@"); VARGS[0]=$VT_VNETD
	ip netns exec "$n" "${VARGS[@]}" --ctl-socket "$VT_W/ctl$i" > "$VT_W/backend.h$i.log" 2>&1 < /dev/null &
	PIDS+=($!)
	for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
	[ -S "$sock" ] || { tail -n 5 "$VT_W/backend.h$i.log"; vt_notok "vnetd $i listens"; vt_finish; }
	eval "set -- $QLINE"; QA=("$@")
	# QEMU < 10 under TCG crashes with vhost-user + MSI-X (tests/guest/lib/README.md)
	if [ "$("${VNET_QEMU:-qemu-system-x86_64}" --version | awk 'NR==1{split($4, v, "."); print v[1] + 0}')" -lt 10 ]; then
		for k in "${!QA[@]}"; do case ${QA[$k]} in virtio-net-pci,*) QA[$k]+=,vectors=0 ;; esac; done
	fi
	printf '%s\n' "${QA[@]}" > "$VT_W/qargs$i"
done

# ---- two guests, each serving the same random file and fetching it from the other ----------
head -c 1048576 /dev/urandom > "$VT_W/blob"
SUM=$(sha256sum "$VT_W/blob" | cut -d' ' -f1)
TSO_WANT=off; [ "$OFFLOAD" = 1 ] && TSO_WANT=on
t0=$SECONDS
for i in 0 1; do
	{ cat "$VT_LIB/prelude.sh"; echo "PEER=${GIP[$((1 - i))]} SUM=$SUM TSO=$TSO_WANT"; cat <<'EOG'; echo 'exit $GFAILS'; } > "$VT_W/g$i.sh"
mtu_is() { m=$(cat /sys/class/net/eth0/mtu); echo "  mtu=$m"; [ "$m" = "$1" ]; }
tso_is() { ethtool -k eth0 | grep -q "^tcp-segmentation-offload: $1"; }
fetch() { # FILE: from the peer's httpd, tried for 90 s while it boots, 30 s a try (a stalled TCP)
	end=$(($(cut -d. -f1 /proc/uptime) + 90))
	while [ "$(cut -d. -f1 /proc/uptime)" -lt $end ]; do
		timeout 30 wget -q -O /tmp/$1 "http://$PEER:8080/$1" && return 0; sleep 1
	done; return 1
}
fetch_sum() { fetch blob && gsum_eq /tmp/blob $SUM; }
big_ping() { ping -c 3 -s 1422 -W 2 $PEER | tail -n 2; ping -c 3 -s 1422 -W 2 $PEER | grep -q ' 0% packet loss'; }
tso_frames() { # bytes per TX frame above the MTU: TSO frames left the guest
	set -- $(cat /sys/class/net/eth0/statistics/tx_bytes /sys/class/net/eth0/statistics/tx_packets)
	echo "  tx: $1 bytes in $2 frames"; [ "$2" -gt 0 ] && [ $(($1 / $2)) -gt 1514 ]
}
# httpd in the foreground of a job, its log (-vv: url and response per client) in /tmp
mkdir -p /www && cp /sys/firmware/qemu_fw_cfg/by_name/opt/vnet/blob/raw /www/blob &&
	{ httpd -f -vv -p 8080 -h /www 2> /tmp/httpd.log & }
# served_done: our httpd has answered the peer's "GET /done" with 200
served_done() { awk '$2 == "url:/done" { c[$1] = 1 } $2 == "response:200" && ($1 in c) { f = 1 } END { exit !f }' /tmp/httpd.log; }
gcheck "eth0 MTU is the overlay's, from VIRTIO_NET_F_MTU" mtu_is 1450
gcheck "TSO $TSO in the guest" tso_is $TSO
gcheck "ping the VM on the other host" gping_wait $PEER 90
gcheck "1450-byte packets cross the tunnel (ping -s 1422)" big_ping
gcheck "1 MiB over TCP from the other host's VM, sha256 matches" fetch_sum
touch /www/done
gcheck "the other VM finished too" fetch done
[ $TSO = on ] && gcheck "TSO frames left this guest (tx bytes per frame > 1514)" tso_frames
# the other VM may still be fetching our done file: stay up until it has it (15 s at
# most), and a second for the reply to reach it
i=0; while [ $i -lt 150 ] && ! served_done; do usleep 100000; i=$((i + 1)); done; sleep 1
EOG
	mapfile -t QA < "$VT_W/qargs$i"
	"$VT_GUEST" run --initrd "$VT_INITRD" --smp 1 --ip "${GIP[$i]}/24" --mac "52:54:00:88:01:0$((i + 1))" \
		--script "$VT_W/g$i.sh" --pidfile "$VT_W/q$i.pid" --log "$VT_W/console$i.log" --timeout 300 \
		-- "${QA[@]}" -fw_cfg "name=opt/vnet/blob,file=$VT_W/blob" > /dev/null 2> "$VT_W/run$i.log" &
	QPIDS+=($!)
done
for i in 0 1; do wait "${QPIDS[$i]}"; done
QPIDS=()
vt_step "both guests ran in $((SECONDS - t0))s"
for i in 0 1; do
	ready=$(grep -a -m1 -o 'VNET-GUEST-READY uptime=[0-9.]*' "$VT_W/console$i.log" | cut -d= -f2)
	echo "# guest on host $i: kernel+init to READY ${ready:-?}s"
	while read -r _ res secs name; do
		if [ "$res" = ok ]; then vt_ok "guest on host $i: $name (${secs}s)"; else vt_notok "guest on host $i: $name (${secs}s)"; fi
	done < <(grep -a '^VNET-CHECK ' "$VT_W/console$i.log" | tr -d '\r')
	vt_check "guest on host $i ran every check (VNET-GUEST-EXIT status=0)" grep -aq 'VNET-GUEST-EXIT status=0' "$VT_W/console$i.log" || { tail -n 20 "$VT_W/console$i.log" | sed "s/^/# console $i: /"; tail -n 5 "$VT_W/run$i.log" | sed "s/^/# run $i: /"; }
	vt_check "host $i: vnetd dropped nothing" sh -c "! '$CTL' status --socket '$VT_W/ctl$i' 2>&1 | grep -E 'drop|broken' | grep -vE '(=| )0( |$)' | grep -q ."
	vt_check "host $i: vnetd still running" kill -0 "${PIDS[$i]}"
	echo "# host $i: OVS's counters of vnetd's TAP: $(ovs_env "${D[$i]}" ovs-vsctl get interface "fot$i$$" statistics)"
	# tx (OVS -> TAP) may lose a broadcast while vnetd has not yet attached the queue
	vt_check "host $i: OVS took every frame vnetd wrote into its TAP (rx_dropped + rx_errors 0)" \
		test "$(drops "$i" "fot$i$$" "rx_dropped rx_errors")" = 0
	vt_check "host $i: OVS dropped nothing on the underlay port since the probe" test "$(drops "$i" "$UL")" = "${UL_DROPS[$i]}"
done
vt_finish
