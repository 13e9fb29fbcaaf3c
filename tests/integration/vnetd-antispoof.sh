#!/usr/bin/env bash
# needs: root netns tun python3
# vnetd-antispoof.sh - --mac-lock/--allow-ip on the path where frames do not
# cross vnetd: vnetd puts its tc ingress filter on the TAP at setup (before
# the sandbox); frames written into the TAP from a userspace program (a
# second queue of the same TAP: the direction the kernel's vhost-net
# writes the guest's TX) are counted on the host side (a packet socket on
# the bridge the TAP is in, which sees only what passed tc ingress).
# Allowed and refused: source MAC, ARP sender, IPv4 (and 0.0.0.0), IPv6
# (and ::, the MAC's link-local), one VLAN tag, QinQ, truncated, non-IP.
# Then SIGHUP with a changed allow-ip on a --config port of a persistent
# TAP, and `port add` of one: after the sandbox vnetd cannot run tc (no
# exec): it must not try (seccomp would end vnetd), and says what stays on
# the TAP.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
VNETD=${VNETD:-build/vnetd} CTL=${CTL:-build/vnetctl}
need_built "$VNETD" "$CTL"
command -v tc >/dev/null || skip_all "tc (iproute2) missing"
NS=vspoof$$ TAPN=spf$$ MAC=52:54:00:12:34:56
TMP=$(mktemp -d /tmp/vnetd-spoof.XXXXXX)
cleanup_path "$TMP"
netns_new "$NS" || skip_all "cannot create netns $NS"

ip netns exec "$NS" "$VNETD" --socket "$TMP/s.sock" --ctl-socket "$TMP/s.ctl" \
	--backend tap --tap "$TAPN" --mac "$MAC" --mac-lock \
	--allow-ip 10.0.0.2,192.0.2.0/28,2001:db8::2 2>"$TMP/vnetd.log" &
cleanup_pid $!
wait_sock "$TMP/s.sock" 5 $! || { cat "$TMP/vnetd.log"; not_ok "vnetd started"; exit 1; }
if ip netns exec "$NS" tc filter show dev "$TAPN" ingress | grep -q bpf; then
	ok "vnetd installed a bpf filter on $TAPN ingress before serving"
else
	if grep -q "cls_bpf\|tc exit" "$TMP/vnetd.log"; then
		skip_all "tc could not install the filter here: $(grep tap "$TMP/vnetd.log")"
	fi
	not_ok "no filter on $TAPN: $(ip netns exec "$NS" tc filter show dev "$TAPN" ingress) log: $(cat "$TMP/vnetd.log")"
fi
grep -q "anti-spoofing: tc ingress filter on $TAPN" "$TMP/vnetd.log" &&
	ok "one log line names the port and the TAP" || not_ok "log: $(cat "$TMP/vnetd.log")"
ip -n "$NS" link add br0 type bridge
ip -n "$NS" link set "$TAPN" master br0
ip -n "$NS" link set br0 up

cat > "$TMP/inject.py" <<'PY'
import fcntl, os, socket, struct, sys, time
tap, mac = sys.argv[1], bytes.fromhex(sys.argv[2].replace(":", ""))
other = bytes.fromhex("525400666666")
BC = b"\xff" * 6
def eth(src, typ, vlan=None):
    h = BC + src
    for v in (vlan or []):
        h += struct.pack("!HH", v, 10)
    return h + struct.pack("!H", typ)
TRAILER = 24   # "MARKnnnn" + padding, after every frame
# well-formed headers (length, checksum): a bridge with br_netfilter drops others
def ip4(s):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + TRAILER, 0, 0, 64, 253, 0,
                    socket.inet_aton(s), socket.inet_aton("10.0.0.1"))
    c = sum(struct.unpack("!10H", h))
    c = (c & 0xffff) + (c >> 16)
    c = (c & 0xffff) + (c >> 16)
    return h[:10] + struct.pack("!H", ~c & 0xffff) + h[12:]
def ip6(s):
    return struct.pack("!IHBB", 0x60000000, TRAILER, 59, 64) + socket.inet_pton(socket.AF_INET6, s) + socket.inet_pton(socket.AF_INET6, "ff02::1")
def arp(sha, spa):
    return struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1) + sha + socket.inet_aton(spa) + b"\x00" * 6 + socket.inet_aton("10.0.0.1")
cases = [  # name, frame, expected to pass
    ("ipv4 10.0.0.2", eth(mac, 0x0800) + ip4("10.0.0.2"), True),
    ("ipv4 192.0.2.15 (in /28)", eth(mac, 0x0800) + ip4("192.0.2.15"), True),
    ("ipv4 0.0.0.0 (DHCP)", eth(mac, 0x0800) + ip4("0.0.0.0"), True),
    ("ipv4 10.0.0.3", eth(mac, 0x0800) + ip4("10.0.0.3"), False),
    ("ipv4 192.0.2.16", eth(mac, 0x0800) + ip4("192.0.2.16"), False),
    ("ipv4 10.0.0.2 from a foreign MAC", eth(other, 0x0800) + ip4("10.0.0.2"), False),
    ("ipv4 header cut at 19 bytes", eth(mac, 0x0800) + ip4("10.0.0.2")[:19], False),
    ("arp 10.0.0.2", eth(mac, 0x0806) + arp(mac, "10.0.0.2"), True),
    ("arp probe 0.0.0.0", eth(mac, 0x0806) + arp(mac, "0.0.0.0"), True),
    ("arp 10.0.0.9", eth(mac, 0x0806) + arp(mac, "10.0.0.9"), False),
    ("arp foreign sender MAC", eth(mac, 0x0806) + arp(other, "10.0.0.2"), False),
    ("ipv6 2001:db8::2", eth(mac, 0x86dd) + ip6("2001:db8::2"), True),
    ("ipv6 :: (DAD)", eth(mac, 0x86dd) + ip6("::"), True),
    ("ipv6 MAC link-local", eth(mac, 0x86dd) + ip6("fe80::5054:ff:fe12:3456"), True),
    ("ipv6 fe80::1", eth(mac, 0x86dd) + ip6("fe80::1"), False),
    ("ipv6 2001:db8::3", eth(mac, 0x86dd) + ip6("2001:db8::3"), False),
    ("vlan ipv4 10.0.0.2", eth(mac, 0x0800, [0x8100]) + ip4("10.0.0.2"), True),
    ("vlan ipv4 10.0.0.3", eth(mac, 0x0800, [0x8100]) + ip4("10.0.0.3"), False),
    ("qinq ipv4 10.0.0.2", eth(mac, 0x0800, [0x88a8, 0x8100]) + ip4("10.0.0.2"), False),
    ("other ethertype", eth(mac, 0x88b5), True),
    ("other ethertype, foreign MAC", eth(other, 0x88b5), False),
]
IFF_TAP, IFF_NO_PI, IFF_MULTI_QUEUE, IFF_VNET_HDR = 0x2, 0x1000, 0x100, 0x4000
fd = os.open("/dev/net/tun", os.O_RDWR)
fcntl.ioctl(fd, 0x400454ca, struct.pack("16sH", tap.encode(), IFF_TAP | IFF_NO_PI | IFF_MULTI_QUEUE | IFF_VNET_HDR))
rx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
rx.bind(("br0", 0))
rx.settimeout(0.3)
vh = b"\x00" * 10                   # the TAP's vnet header (10 bytes)
for i, (name, f, _) in enumerate(cases):
    os.write(fd, vh + f + b"MARK%04d" % i + b"\x00" * (TRAILER - 8))
seen = set()
end = time.time() + 2
while time.time() < end:
    try:
        d = rx.recv(2048)
    except socket.timeout:
        continue
    j = d.find(b"MARK")
    if j >= 0:
        seen.add(int(d[j + 4:j + 8]))
if len(sys.argv) > 3:     # control: no filter; refused frames now arrive
    n = sum(1 for i, c in enumerate(cases) if not c[2] and i in seen)
    print("# control: %d of %d refused frames pass without the filter" %
          (n, sum(1 for c in cases if not c[2])))
    sys.exit(0 if n >= sum(1 for c in cases if not c[2]) - 1 else 1)
bad = 0
for i, (name, f, want) in enumerate(cases):
    got = i in seen
    print("%s %d - %s: %s" % ("ok" if got == want else "not ok", i + 3, name,
          "passed" if got else "dropped"))
    bad += got != want
sys.exit(1 if bad else 0)
PY
ip netns exec "$NS" python3 "$TMP/inject.py" "$TAPN" "$MAC"
rc=$?
[ "$rc" = 0 ] || FAILED=1
N=$((N + 21))
# negative control: the drops above were the filter's (not the bridge's)
ip netns exec "$NS" tc filter del dev "$TAPN" ingress pref 7
if ip netns exec "$NS" python3 "$TMP/inject.py" "$TAPN" "$MAC" control; then
	ok "control: without vnetd's filter the refused frames reach the host"
else
	not_ok "control: refused frames still dropped without the filter"
fi

# --- SIGHUP: a changed policy on a TAP port, after the sandbox ------------
HT=spfh$$
ip -n "$NS" tuntap add dev "$HT" mode tap multi_queue vnet_hdr user "$(id -u)"
echo "name=vm socket=$TMP/h.sock backend=tap tap=$HT allow-ip=10.0.0.1" >"$TMP/h.conf"
ip netns exec "$NS" "$VNETD" --config "$TMP/h.conf" --ctl-socket "$TMP/h.ctl" 2>"$TMP/h.log" &
HPID=$!
cleanup_pid "$HPID"
if wait_sock "$TMP/h.sock" 5 "$HPID"; then
	echo "name=vm socket=$TMP/h.sock backend=tap tap=$HT allow-ip=10.0.0.9" >"$TMP/h.conf"
	kill -HUP "$HPID"
	for _ in $(seq 30); do grep -q "SIGHUP: --config" "$TMP/h.log" && break; sleep 0.1; done
	check "SIGHUP, changed allow-ip on a TAP port: vnetd alive (no tc run in the sandbox)" \
		eval 'kill -0 "$HPID" && ! grep -q "seccomp: blocked" "$TMP/h.log"'
	# userspace-only (no vhost-net): restarted with one warning; with
	# vhost-net usable: refused with the reason (the kernel path would
	# not have the new policy)
	if grep -q "applied: 0 added, 1 restarted, 0 removed, 0 untouched, 0 failed" "$TMP/h.log"; then
		check "SIGHUP: restarted; one warning names the port, the TAP and the filter left from start" \
			grep -q "port vm: tap $HT: the anti-spoofing tc filter cannot be installed after the sandbox: one from vnetd's start stays" "$TMP/h.log"
	else
		check "SIGHUP: the port that may use vhost-net is refused with the reason" \
			grep -q "SIGHUP: port vm: tap $HT: the anti-spoofing tc filter cannot be installed after the sandbox.*vhost-net=off" "$TMP/h.log"
	fi
	# the same for `port add` (same port start)
	ip -n "$NS" tuntap add dev "${HT}a" mode tap multi_queue vnet_hdr user "$(id -u)"
	out=$(ip netns exec "$NS" "$CTL" port add "name=pa,socket=$TMP/pa.sock,backend=tap,tap=${HT}a,mac-lock" --socket "$TMP/h.ctl" 2>&1)
	check "port add of a TAP port with mac-lock: vnetd alive ($out)" \
		eval 'kill -0 "$HPID" && ! grep -q "seccomp: blocked" "$TMP/h.log"'
	stop_pid "$HPID"
else
	not_ok "vnetd --config with a TAP port did not start: $(cat "$TMP/h.log")"
fi
exit "$FAILED"
