#!/usr/bin/env bash
# needs: root qemu tun netns
# Two hosts, one L2 fabric: network namespaces h1 and h2 stand in for two hosts joined by
# a veth "underlay" (MTU 1500). On each: a Linux bridge with a VXLAN port to the other
# host, vnetd --backend tap with its TAP on the bridge, and a guest (the test guest under
# QEMU TCG) on that vnetd. Everything the operator types comes from `vnetctl plan
# --underlay-mtu 1500 --bridge br0`: the guest MTU (1450: VXLAN takes 50 bytes),
# advertised with VIRTIO_NET_F_MTU (vnetd --mtu, QEMU host_mtu=).
# The guests ping each other and each fetches a 1 MiB random file from the other over
# TCP (busybox httpd/wget, TSO on in the guests), checked with sha256: TSO frames cross
# the tunnel and are segmented for the overlay MTU, nothing is dropped.
. "$(dirname "$0")/lib/vu-test.sh" || { echo "SKIP: tests/guest/lib/vu-test.sh missing"; exit 77; }
CTL=$VT_TOP/build/vnetctl
[ -x "$CTL" ] || { echo "SKIP: build/vnetctl not built (run make)"; exit 77; }
ip link add vxp$$ type vxlan id 1 dstport 4789 2>/dev/null ||
	{ echo "SKIP: the kernel cannot make a vxlan device"; exit 77; }
ip link del vxp$$
vt_init fabric-vxlan
H=(vnfa$$ vnfb$$)	# the two "hosts"
UIP=(10.99.0.1 10.99.0.2) GIP=(10.88.0.1 10.88.0.2) PIDS=() QPIDS=()

fb_cleanup() {
	local p n
	for p in "${QPIDS[@]+"${QPIDS[@]}"}" "${PIDS[@]+"${PIDS[@]}"}"; do vt_kill_pid "$p"; done
	for n in "${H[@]}"; do ip netns del "$n" 2>/dev/null; done
	vt_cleanup
}
trap fb_cleanup EXIT

# ---- the underlay and each host's bridge + VXLAN ------------------------------------------
for i in 0 1; do ip netns add "${H[$i]}" && ip -n "${H[$i]}" link set lo up || { vt_notok "netns"; vt_finish; }; done
ip link add fbu$$ netns "${H[0]}" type veth peer name fbu$$ netns "${H[1]}"
for i in 0 1; do
	n=${H[$i]} peer=${UIP[$((1 - i))]}
	ip -n "$n" addr add "${UIP[$i]}/24" dev fbu$$
	ip -n "$n" link set fbu$$ mtu 1500 up
	ip -n "$n" link add br0 type bridge
	ip -n "$n" link add vx0 type vxlan id 42 local "${UIP[$i]}" remote "$peer" dstport 4789 dev fbu$$
	ip -n "$n" link set vx0 master br0
	ip -n "$n" link set vx0 up
	ip -n "$n" link set br0 up
done
vt_check "overlay MTU is 1450 on a 1500 underlay" test "$(ip -n "${H[0]}" -o link show vx0 | grep -o 'mtu [0-9]*')" = "mtu 1450"

# ---- the plan, per host --------------------------------------------------------------------
for i in 0 1; do
	sock=$VT_W/vm$i.sock tap=fbt$i$$
	PLAN=("$CTL" plan --vcpus 1 --socket "$sock" --tap "$tap" --bridge br0 --underlay-mtu 1500
	      --mac "52:54:00:88:00:0$((i + 1))" --qemu "${VNET_QEMU:-qemu-system-x86_64}")
	VLINE=$("${PLAN[@]}" --output vnetd 2> "$VT_W/plan.err") &&
		QLINE=$("${PLAN[@]}" --memory 512M --output qemu 2>> "$VT_W/plan.err") ||
		{ cat "$VT_W/plan.err"; vt_notok "vnetctl plan"; vt_finish; }
	[ "$i" = 0 ] && { echo "# plan vnetd: $VLINE"; echo "# plan qemu: $QLINE"; }
	vt_check "plan host $i: vnetd advertises --mtu 1450" grep -q -- "--mtu 1450" <<< "$VLINE"
	vt_check "plan host $i: QEMU device gets host_mtu=1450" grep -q "host_mtu=1450" <<< "$QLINE"
	eval "set -- $VLINE"; VARGS=("$@"); VARGS[0]=$VT_VNETD
	ip netns exec "${H[$i]}" "${VARGS[@]}" --ctl-socket "$VT_W/ctl$i" > "$VT_W/vnetd$i.log" 2>&1 < /dev/null &
	PIDS+=($!)
	for _ in $(seq 100); do ip -n "${H[$i]}" link show "$tap" > /dev/null 2>&1 && [ -S "$sock" ] && break; sleep 0.1; done
	ip -n "${H[$i]}" link set "$tap" mtu 1450 master br0 up ||
		{ tail -n 5 "$VT_W/vnetd$i.log"; vt_notok "vnetd $i made its TAP"; vt_finish; }
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
for i in 0 1; do
	{ cat "$VT_LIB/prelude.sh"; echo "PEER=${GIP[$((1 - i))]} SUM=$SUM"; cat <<'EOG'; echo 'exit $GFAILS'; } > "$VT_W/g$i.sh"
mtu_is() { m=$(cat /sys/class/net/eth0/mtu); echo "  mtu=$m"; [ "$m" = "$1" ]; }
tso_on() { ethtool -k eth0 | grep -q '^tcp-segmentation-offload: on'; }
fetch() { # FILE: from the peer's httpd, up to 90 s while it boots
	i=0; while [ $i -lt 90 ]; do wget -q -O /tmp/$1 "http://$PEER:8080/$1" && return 0; sleep 1; i=$((i + 1)); done; return 1
}
fetch_sum() { fetch blob && gsum_eq /tmp/blob $SUM; }
big_ping() { ping -c 3 -s 1422 -W 2 $PEER | tail -n 2; ping -c 3 -s 1422 -W 2 $PEER | grep -q ' 0% packet loss'; }
# httpd in the foreground of a job, its log (-vv: url and response per client) in /tmp
mkdir -p /www && cp /sys/firmware/qemu_fw_cfg/by_name/opt/vnet/blob/raw /www/blob &&
	{ httpd -f -vv -p 8080 -h /www 2> /tmp/httpd.log & }
# served_done: our httpd has answered the peer's "GET /done" with 200
served_done() { awk '$2 == "url:/done" { c[$1] = 1 } $2 == "response:200" && ($1 in c) { f = 1 } END { exit !f }' /tmp/httpd.log; }
gcheck "eth0 MTU is the overlay's, from VIRTIO_NET_F_MTU" mtu_is 1450
gcheck "TSO on in the guest" tso_on
gcheck "ping the VM on the other host" gping_wait $PEER 90
gcheck "1450-byte packets cross the tunnel (ping -s 1422)" big_ping
gcheck "1 MiB over TCP from the other host's VM, sha256 matches" fetch_sum
touch /www/done
gcheck "the other VM finished too" fetch done
# the other VM may still be fetching our done file: stay up until it has it (15 s at
# most), and a second for the reply to reach it
i=0; while [ $i -lt 150 ] && ! served_done; do usleep 100000; i=$((i + 1)); done; sleep 1
EOG
	mapfile -t QA < "$VT_W/qargs$i"
	"$VT_GUEST" run --initrd "$VT_INITRD" --smp 1 --ip "${GIP[$i]}/24" --mac "52:54:00:88:00:0$((i + 1))" \
		--script "$VT_W/g$i.sh" --pidfile "$VT_W/q$i.pid" --log "$VT_W/console$i.log" --timeout 300 \
		-- "${QA[@]}" -fw_cfg "name=opt/vnet/blob,file=$VT_W/blob" > /dev/null 2> "$VT_W/run$i.log" &
	QPIDS+=($!)
done
for i in 0 1; do wait "${QPIDS[$i]}"; done
QPIDS=()
for i in 0 1; do
	while read -r _ res secs name; do
		if [ "$res" = ok ]; then vt_ok "guest on host $i: $name (${secs}s)"; else vt_notok "guest on host $i: $name (${secs}s)"; fi
	done < <(grep -a '^VNET-CHECK ' "$VT_W/console$i.log" | tr -d '\r')
	vt_check "guest on host $i ran every check (VNET-GUEST-EXIT status=0)" grep -aq 'VNET-GUEST-EXIT status=0' "$VT_W/console$i.log" || { tail -n 20 "$VT_W/console$i.log" | sed "s/^/# console $i: /"; tail -n 5 "$VT_W/run$i.log" | sed "s/^/# run $i: /"; }
	vt_check "host $i: vnetd dropped nothing" sh -c "! '$CTL' status --socket '$VT_W/ctl$i' 2>&1 | grep -E 'drop|broken' | grep -vE '(=| )0( |$)' | grep -q ."
	vt_check "host $i: vnetd still running" kill -0 "${PIDS[$i]}"
done
vt_finish
