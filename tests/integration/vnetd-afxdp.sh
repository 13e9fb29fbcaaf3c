#!/usr/bin/env bash
# vnetd-afxdp.sh - vnetd's af_xdp host side on a veth pair in a private
# network namespace (native XDP on veth, copy mode), the sandbox on:
#
# - bad input: an interface that does not exist, one with too few queues,
#   one that has another XDP program (left attached), zero-copy asked of a
#   driver without it, xdp-txmd= (a key of port add
#   requests only) in --port: vnetd refuses to start with a line naming
#   the interface or key and what to do;
# - auto mode falls back to copy on veth and says so in the log;
# - guest TX: every frame vnet-bench sends through the port arrives at the
#   veth's peer (its RX packet counter), 1 pair and 2 pairs on 2 queues;
# - guest TSO: vnet-bench's 20000 B TSO frames (CSUM and HOST_TSO4
#   offered, segmented in software) leave as 1448 B segments, the last one
#   of each frame shorter, every IPv4 and TCP checksum right, sequence
#   numbers and PSH as segmentation sets them (an AF_PACKET capture on the
#   peer, checked by an independent checksum in python), as many as the
#   frames make; the TCP checksums are asked of the kernel in the TX
#   metadata, and this vnetd runs with the test switch
#   VNETD_XDP_TX_SW_CSUM=1 so that the kernel fills them before the veth
#   (else the capture would see CHECKSUM_PARTIAL's pseudo-header sums):
#   vnetctl status says "tx-csum: kernel" and counts the frames asked;
# - guest NEEDS_CSUM frames (vnet-bench --csum, 1500 B, no TSO): each
#   leaves with its TCP checksum asked of the kernel, and arrives right;
# - guest RX: frames injected on the peer (AF_PACKET, paced, vnet-bench's
#   marker) reach the frontend's RX ring once each and in order;
# - vnetctl status names the interface, queues, mode and what was refused;
#   the metrics' GRO counters (vnetd_port_gro_*_total) match its GRO line;
# - vnetctl upgrade hands the port's socket and UMEM to the new vnetd:
#   frames injected on the peer while it runs reach the frontend once each
#   and in order, the new pid serves (its log says the sockets were handed
#   over) and has the UMEM's TX metadata room ("tx-csum: kernel"); a
#   second upgrade, from that sandboxed process, while the guest
#   sends: every frame it sent arrives at the peer, in order and once per
#   queue (the markers of the frames a capture keeps); then the new process
#   ends on SIGTERM with no syscall blocked;
# - SIGTERM: exit 0, no syscall blocked by the sandbox (setup ran before it,
#   the data path and close need only what the #syscalls: tags list).
# - a busy queue, with the sockets vnetd makes itself (an af_xdp --config
#   port): started while another vnetd holds its queue, vnetd logs that it
#   waits, binds once the holder is killed (and logs after how long), and
#   passes guest TX and RX; with the queue held all along it exits after 250
#   ms, saying the queue is still busy; SIGHUP: the port's line unchanged
#   leaves it untouched, its xdp-mode changed is refused (nothing changed),
#   removing the port works, adding it back at once is refused, saying to use
#   vnetctl port add (vnetd cannot make AF_XDP sockets after setup); SIGTERM:
#   exit 0, nothing blocked;
# - at run time, into a sandboxed vnetd that started with no af_xdp port:
#   `vnetctl port add` on an interface that does not exist is refused,
#   naming it, and nothing is added;
#   a raw `port add ...backend=af_xdp` without sockets is refused, saying
#   to use vnetctl as root, and xdp-txmd=16 without sockets too; against a
#   stand-in for an older vnetd, which refuses xdp-txmd= as an unknown key,
#   vnetctl says so and sends the request again with sockets and no key;
#   `vnetctl port add` makes the sockets with TX metadata room (vnetd and
#   vnetctl with VNETD_XDP_TX_SW_CSUM=1), vnetd binds them, vnetctl fills
#   the XSKMAP; guest TX arrives at the peer, guest TSO and NEEDS_CSUM
#   frames arrive with every checksum right and status says tx-csum:
#   kernel counting them, and guest RX (injected on the peer) arrives once
#   and in order (--check-seq); port del and add again on the same queue;
#   `vnetctl upgrade` carries the port (its spec, sockets and UMEMs, with
#   the room: tx-csum: kernel): guest RX arrives once and in order after
#   it, port list shows it, port del removes it, the new process ends on
#   SIGTERM.
# - a kernel before 6.11, emulated by an LD_PRELOAD shim (tests/lib/
#   xsk_noroom.c) that refuses a UMEM with TX metadata room as those do:
#   vnetd's own socket and vnetctl's run-time ones fall back to UMEMs
#   without it, one line each says so, status says tx-csum: software and
#   why, and TSO and NEEDS_CSUM frames still arrive with every checksum
#   right (summed by vnetd).
#
# Skips, saying why, without libxdp in the build (--backend af_xdp absent)
# or without XDP on veth. bpffs is mounted if it is not (libxdp works
# without it, loading a single program instead of its dispatcher).
# needs: root netns python3
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
BENCH=${VNET_BENCH:-$PWD/build/vnet-bench}
VNETD=$PWD/build/vnetd
VNETCTL=$PWD/build/vnetctl
need_built "$BENCH" "$VNETD" "$VNETCTL"
"$VNETD" --help 2>&1 | grep -q 'host side:.*af_xdp' ||
	skip_all "vnetd built without libxdp/libbpf: --backend af_xdp absent (apt-get install libxdp-dev libbpf-dev; make)"
if ! mount | grep -q ' /sys/fs/bpf type bpf'; then
	mount -t bpf bpf /sys/fs/bpf 2>/dev/null ||
		echo "# bpffs not mounted and cannot be: libxdp loads a single program"
fi
NS=vnaxd$$
SOCK=/tmp/vnetd-afxdp-$$.sock
CTL=/tmp/vnetd-afxdp-$$.ctl
LOG=/tmp/vnetd-afxdp-$$.log
netns_new "$NS" || skip_all "cannot create a network namespace"
VPID=
cleanup_run 'stop_pid "$VPID"'
cleanup_path "$SOCK"; cleanup_path "$CTL"; cleanup_path "$LOG"
COUNT=${RX_FRAMES:-5000}
nsx() { ip netns exec "$NS" "$@"; }

# veth xa (vnetd) <-> xb (the host side's far end), @1 queues each, no IPv6
# (no neighbour discovery frames of the host's own in the counts)
veth() {
	nsx ip link del xa 2>/dev/null
	nsx ip link add xa numtxqueues "$1" numrxqueues "$1" type veth peer name xb \
		numtxqueues "$1" numrxqueues "$1" || return 1
	for i in xa xb; do
		nsx sysctl -qw net.ipv6.conf.$i.disable_ipv6=1
		nsx ip link set $i up
	done
}
rx_packets() { nsx cat /sys/class/net/xb/statistics/rx_packets; }

tx_check() {	# NAME SOCK SLACK ARGS...: vnet-bench ARGS sends through SOCK
	# every frame it counts arrives at the peer, and at most SLACK more: the
	# ring's worth that were in flight when its window closed
	local name=$1 sock=$2 slack=$3 before res got sent
	shift 3
	before=$(rx_packets)
	res=$(nsx "$BENCH" --socket "$sock" --mode tx-only "$@" --json 2>&1)
	sleep 0.5
	got=$(( $(rx_packets) - before ))
	sent=$(bench_field tx_frames "$res")
	if [ -n "$sent" ] && [ "$sent" -gt 0 ] && [ "$got" -ge "$sent" ] &&
	   [ "$got" -le $((sent + slack)) ]; then
		ok "$name: $sent frames sent, $got arrived at the peer"
	else
		not_ok "$name: ${sent:-?} frames sent, $got arrived at the peer"
		sed 's/^/# /' <<< "$res" | tail -n 8
	fi
}

start() {	# start vnetd with ARGS; 0 once its socket is there
	rm -f "$SOCK"
	ip netns exec "$NS" env VNETD_XDP_TX_SW_CSUM="${TXSW:-}" ${PRELOAD:+LD_PRELOAD="$PRELOAD"} \
		"$VNETD" --socket "$SOCK" --ctl-socket "$CTL" --backend af_xdp "$@" \
		> "$LOG" 2>&1 &
	VPID=$!
	wait_sock "$SOCK" 10 "$VPID"
}

stop() {	# SIGTERM; check the exit and the log
	local rc
	kill "$VPID" 2>/dev/null
	wait "$VPID"; rc=$?; VPID=
	if [ "$rc" = 0 ] && ! grep -q 'seccomp: blocked' "$LOG"; then
		ok "$1: SIGTERM: exit 0, no syscall blocked by the sandbox"
	else
		not_ok "$1: SIGTERM: exit $rc: $(grep -m1 'seccomp' "$LOG")"
	fi
}

refused() {	# NAME PATTERN ARGS...: vnetd must fail to start, saying PATTERN
	local name=$1 pat=$2; shift 2
	rm -f "$SOCK"
	timeout 20 ip netns exec "$NS" "$VNETD" --socket "$SOCK" --ctl-socket "$CTL" \
		--backend af_xdp "$@" > "$LOG" 2>&1
	local rc=$?
	if [ "$rc" != 0 ] && grep -qE "$pat" "$LOG"; then
		ok "$name: refused (rc=$rc): $(grep -m1 -E "$pat" "$LOG" | cut -c1-160)"
	else
		not_ok "$name: rc=$rc, expected a line matching '$pat'"
		sed 's/^/# /' "$LOG" | tail -n 5
	fi
}

veth 1 || skip_all "cannot make a veth pair"

refused "no such interface" "af_xdp nosuchif0: no such interface.*ip link" \
	--xdp-if nosuchif0
refused "too few queues" "af_xdp xa: has 1 queues.*ethtool -L xa" --xdp-if xa --queues 2
# another XDP program on the interface, one libxdp did not load (libxdp1's pass-all
# filter, attached by ip): refused, naming it, and left attached
FOREIGN=$(ls /usr/lib/*/bpf/xdpfilt_alw_all.o /usr/lib/bpf/xdpfilt_alw_all.o 2> /dev/null | head -n 1)
if [ -n "$FOREIGN" ] && nsx ip link set dev xa xdpdrv obj "$FOREIGN" sec xdp 2> /dev/null; then
	refused "another XDP program" "af_xdp xa: .*another XDP program .*remove it" --xdp-if xa
	check "another XDP program: still attached after the refusal" \
		eval 'nsx ip link show dev xa | grep -q "prog/xdp.*xdpfilt_alw_all"'
	nsx ip link set dev xa xdp off
else
	ok_skip "another XDP program" "cannot attach libxdp1's xdpfilt_alw_all.o with ip link (libxdp1, iproute2 with libbpf)"
	ok_skip "another XDP program: still attached" "as above"
fi
refused "zero-copy on veth" "af_xdp xa queue 0: zero-copy.*--xdp-mode copy" \
	--xdp-if xa --xdp-mode zerocopy
# TX metadata room is a property of sockets passed with port add, not a key
refused "xdp-txmd= in --port" "'xdp-txmd': unknown key" \
	--port "socket=$SOCK,backend=af_xdp,xdp-if=xa,xdp-txmd=16"

# ---- guest TX, 1 pair --------------------------------------------------------
# the kernel fills the checksums it is asked for: the TSO capture checks them
if ! TXSW=1 start --xdp-if xa; then
	if grep -qiE 'XDP|not supported' "$LOG"; then
		skip_all "af_xdp on veth refused here: $(grep -m1 af_xdp "$LOG")"
	fi
	not_ok "vnetd --backend af_xdp --xdp-if xa did not start: $(tail -n 2 "$LOG")"
	exit 1
fi
if grep -q 'backend af_xdp: af_xdp on xa queues 0..0, copy mode (auto: zero-copy refused' "$LOG"; then
	ok "auto mode: copy on veth, the log says why: $(grep -m1 -o 'copy mode (auto.*' "$LOG")"
else
	not_ok "auto mode: no 'copy mode (auto: zero-copy refused ...)' line in the log"
fi
tx_check "guest TX, 1 pair" "$SOCK" 256 -d 2

# ---- guest TSO: segmented in software, checked on the peer --------------------
# TSO_LEN B frames: 54 B of headers, then payload in MSS (vnet-bench's 1448)
# segments; the last one carries the rest and PSH
TSO_LEN=20000 MSS=1448
capture() {	# check up to $1 TCP segments arriving on xb; prints a summary
	nsx python3 - xb "$1" "$TSO_LEN" "$MSS" <<'PY'
import socket, struct, sys, time
dev, want, flen, mss = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
pay = flen - 54
nfull, rest = divmod(pay, mss)
nseg = nfull + (1 if rest else 0)
lastlen = 54 + (rest or mss)
def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.bind((dev, 0))
s.settimeout(0.5)
print("ready", flush=True)
seen = bad = 0
why = ""
end = time.time() + 15
while seen < want and time.time() < end:
    try:
        f = s.recv(65536)
    except socket.timeout:
        continue
    if len(f) < 54 or f[12:14] != b"\x08\x00" or f[23] != 6:
        continue
    if nseg == 1 and len(f) != flen:
        continue    # a late segment of the TSO case before
    seen += 1
    ip, tcp = f[14:34], f[34:]
    tot = struct.unpack("!H", ip[2:4])[0]
    seq = struct.unpack("!I", tcp[4:8])[0]
    idx, off = divmod(seq, mss)
    last = idx == nseg - 1
    size = lastlen if last else 54 + mss
    pseudo = ip[12:20] + struct.pack("!BBH", 0, 6, len(tcp))
    err = ""
    if off or idx >= nseg:
        err = "seq %d not a segment start" % seq
    elif len(f) != size or tot != size - 14:
        err = "segment %d: %d bytes (IP total %d), expected %d" % (idx, len(f), tot, size)
    elif csum(ip) != 0xffff:
        err = "segment %d: bad IPv4 header checksum" % idx
    elif csum(pseudo + tcp) != 0xffff:
        err = "segment %d: bad TCP checksum" % idx
    elif bool(tcp[13] & 0x08) != last:
        err = "segment %d: PSH %s" % (idx, "missing" if last else "before the last")
    if err:
        bad += 1
        why = why or err
print("seen %d bad %d %s" % (seen, bad, why), flush=True)
PY
}
cap=$(mktemp /tmp/vnetd-afxdp-cap.XXXXXX)
cleanup_path "$cap"
csum_check() {	# NAME SOCK [WHY]: TSO and NEEDS_CSUM frames through SOCK
	# arrive at the peer with every checksum right, each asked of the
	# kernel: the status's first "tx-csum: kernel" line counts them (SOCK's
	# port must be the only af_xdp port); with WHY, summed by vnetd: status
	# says "tx-csum: software: WHY"
	local name=$1 sock=$2 soft=${3:-} res before got sent nseg st asked asked2 seen bad why
	capture 2000 > "$cap" 2>&1 &
	CPID=$!
	for _ in $(seq 50); do grep -q ready "$cap" && break; sleep 0.1; done
	before=$(rx_packets)
	res=$(nsx "$BENCH" --socket "$sock" --mode tx-only -l "$TSO_LEN" -d 1 --json 2>&1)
	wait $CPID
	# a frame still in the ring when vnet-bench's window closed (its 256
	# entries) may never go: a full TX ring made vnetd leave it there
	sleep 0.5
	got=$(( $(rx_packets) - before ))
	sent=$(bench_field tx_frames "$res")
	nseg=$(( (TSO_LEN - 54 + MSS - 1) / MSS ))
	read -r _ seen _ bad why < <(grep '^seen' "$cap")
	if [ -n "$sent" ] && [ "$sent" -gt 0 ] && [ "${seen:-0}" -ge 2000 ] && [ "${bad:-1}" = 0 ] &&
	   [ "$got" -ge $(((sent - 256) * nseg)) ] && [ "$got" -le $(((sent + 256) * nseg)) ]; then
		ok "$name TSO: $sent frames of $TSO_LEN B left as $got segments ($nseg each); $seen checked: sizes, checksums, seq, PSH right"
	else
		not_ok "$name TSO: ${sent:-?} frames sent, $got segments at the peer (want $nseg each); checked ${seen:-0}, ${bad:-?} bad${why:+: $why}"
		sed 's/^/# /' <<< "$res" | tail -n 4
		sed 's/^/# capture: /' "$cap" | tail -n 3
	fi
	st=$("$VNETCTL" status --socket "$CTL" 2>&1)
	if [ -n "$soft" ]; then
		# summed by vnetd: status says so, and why
		if grep -q "tx-csum: software: $soft" <<< "$st"; then
			ok "$name TSO: status says tx-csum: software: $soft"
		else
			not_ok "$name TSO: want tx-csum: software: $soft, status: $(grep -o 'tx-csum:.*' <<< "$st" | head -n 1)"
		fi
	else
		# the metadata path, not gso's sums: every segment asked the kernel
		asked=$(sed -n 's/.*tx-csum: kernel (filled in software: VNETD_XDP_TX_SW_CSUM[^)]*), \([0-9]*\) frames asked.*/\1/p' <<< "$st" | head -n 1)
		if [ -n "$sent" ] && [ "${asked:-0}" -ge "$(( (sent - 256) * nseg ))" ] && [ "${asked:-0}" -gt 0 ]; then
			ok "$name TSO: checksums asked of the kernel (TX metadata) for $asked segments: status says tx-csum: kernel"
		else
			not_ok "$name TSO: status does not say the kernel filled the checksums: $(grep -o 'tx-csum:.*' <<< "$st" | head -n 1)"
		fi
	fi
	# NEEDS_CSUM alone: a 1500 B frame is its own last "segment" (seq 0, PSH)
	TSO_LEN=1500 capture 500 > "$cap" 2>&1 &
	CPID=$!
	for _ in $(seq 50); do grep -q ready "$cap" && break; sleep 0.1; done
	res=$(nsx "$BENCH" --socket "$sock" --mode tx-only -l 1500 --csum -d 1 --json 2>&1)
	wait $CPID
	st=$("$VNETCTL" status --socket "$CTL" 2>&1)
	asked2=$(sed -n 's/.*tx-csum: kernel ([^)]*), \([0-9]*\) frames asked.*/\1/p' <<< "$st" | head -n 1)
	sent=$(bench_field tx_frames "$res")
	read -r _ seen _ bad why < <(grep '^seen' "$cap")
	# asked of the kernel: its count grew by (nearly) this run's frames
	if [ -n "$sent" ] && [ "$sent" -gt 0 ] && [ "${seen:-0}" -ge 500 ] && [ "${bad:-1}" = 0 ] &&
	   { [ -n "$soft" ] || [ "${asked2:-0}" -ge $(( ${asked:-0} + sent - 256 )) ]; }; then
		ok "$name NEEDS_CSUM: $sent frames of 1500 B, their checksums ${soft:+not }asked of the kernel; $seen checked at the peer: right"
	else
		not_ok "$name NEEDS_CSUM: ${sent:-?} frames sent, asked ${asked:-?} -> ${asked2:-?}; checked ${seen:-0}, ${bad:-?} bad${why:+: $why}"
		sed 's/^/# /' <<< "$res" | tail -n 4
	fi
}
csum_check "guest" "$SOCK"

# ---- guest RX: injected on the peer, paced ------------------------------------
inject() {	# COUNT frames with marker seq 0..COUNT-1 out of xb, a 2 ms pause
	# after every PACE (64)
	nsx python3 - xb "$COUNT" "${PACE:-64}" <<'PY'
import socket, struct, sys, time
dev, count, pace = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((dev, 0))
for seq in range(count):
    mark = struct.pack("<IHHQQ", 0x564e4254, 0, 0, seq, 0)
    frame = b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x99" + b"\x88\xb5" + mark
    frame += bytes(64 - len(frame))
    s.send(frame)
    if seq % pace == pace - 1:
        time.sleep(0.002)
PY
}
out=$(mktemp /tmp/vnetd-afxdp-out.XXXXXX)
cleanup_path "$out"
rx_check() {	# NAME [SOCK]: inject COUNT frames on the peer, all must reach the
	# guest behind SOCK (default $RSOCK) once and in order
	ip netns exec "$NS" "$BENCH" --socket "${2:-$RSOCK}" --mode rx-only --check-seq --json -d 60 \
		> "$out" 2>&1 &
	BPID=$!
	sleep 1
	inject
	# SIGINT ends the window; with --check-seq vnet-bench then collects what
	# is still in flight until 2 s pass without a frame
	kill -INT $BPID
	wait $BPID
	rc=$?
	res=$(cat "$out")
	why=
	[ "$rc" = 0 ] || why="exit $rc"
	rx=$(bench_field rx_frames "$res"); foreign=$(bench_field foreign "$res")
	ours=$(( ${rx:-0} - ${foreign:-0} ))
	[ "$ours" = "$COUNT" ] || why="$why, $ours of $COUNT frames arrived"
	for f in lost dup_or_reordered wrong_queue; do
		[ "$(bench_field $f "$res")" = 0 ] || why="$why, $f=$(bench_field $f "$res")"
	done
	if [ -z "$why" ]; then
		ok "$1: $COUNT frames injected on the peer received once, in order"
	else
		not_ok "$1:$why"
		sed 's/^/# /' <<< "$res" | tail -n 8
		sed 's/^/# vnetd: /' "$LOG" | tail -n 5
	fi
}
rx_check "guest RX" "$SOCK"
st=$("$VNETCTL" status --socket "$CTL" 2>&1)
js=$("$VNETCTL" status --socket "$CTL" --json 2>&1)
if grep -q 'host side: af_xdp on xa queues 0..0, copy mode.*refused from the kernel: 0 RX descriptors, 0 completions.*offloads refused 0' <<< "$st" &&
   grep -q '"host_side":"af_xdp on xa queues 0..0, copy mode' <<< "$js"; then
	ok "vnetctl status: interface, queues, mode and refused descriptors (text and JSON)"
else
	not_ok "vnetctl status: no af_xdp host side line: $(grep -m1 'host side' <<< "$st")"
fi
# GRO's counters: the status line's and the Prometheus families agree
gst=$(grep -o 'GRO [0-9]* frames merged into [0-9]*' <<< "$st" | head -n 1)
prom=$("$VNETCTL" status --socket "$CTL" --prometheus 2>&1)
gseg=$(awk '/^vnetd_port_gro_segments_total\{/ { s += $2; n++ } END { if (n) print s }' <<< "$prom")
gfr=$(awk '/^vnetd_port_gro_frames_total\{/ { s += $2; n++ } END { if (n) print s }' <<< "$prom")
if [ -n "$gst" ] && [ "$gst" = "GRO ${gseg:-x} frames merged into ${gfr:-x}" ]; then
	ok "metrics: vnetd_port_gro_segments_total $gseg, vnetd_port_gro_frames_total $gfr, as the status line says"
else
	not_ok "metrics: GRO families '${gseg:-none}' '${gfr:-none}', status line '${gst:-none}'"
fi

# ---- vnetctl upgrade: the socket and its UMEM pass to the new process ---------
# paced (at most 2000 frames/s) so that a pause of up to 0.5 s, far more than a
# hand-over takes even on a loaded machine, fits the RX ring's 1024 entries
UPCOUNT=${UP_FRAMES:-4000}
ip netns exec "$NS" "$BENCH" --socket "$SOCK" --mode rx-only --check-seq --json -d 60 \
	> "$out" 2>&1 &
BPID=$!
sleep 1
COUNT=$UPCOUNT PACE=4 inject &
IPID=$!
sleep 0.5
up=$(nsx "$VNETCTL" upgrade --binary "$VNETD" --socket "$CTL" 2>&1); urc=$?
NEWPID=$(sed -n 's/.*ok pid \([0-9]*\) .*/\1/p' <<< "$up")
[ -n "$NEWPID" ] && cleanup_run "kill -KILL $NEWPID 2>/dev/null"
wait $IPID
kill -INT $BPID	# the frames in flight: vnet-bench's drain (2 s without one)
wait $BPID
rc=$?
res=$(cat "$out")
wait "$VPID"; orc=$?
VPID=
why=
[ "$urc" = 0 ] && [ -n "$NEWPID" ] || why=", vnetctl upgrade rc=$urc: $up"
[ "$orc" = 0 ] || why="$why, the old vnetd exited $orc"
kill -0 "${NEWPID:-0}" 2>/dev/null || why="$why, the new vnetd (pid ${NEWPID:-?}) is not running"
grep -q 'copy mode (sockets handed over by the previous vnetd)' "$LOG" ||
	why="$why, no 'sockets handed over' line in the log"
"$VNETCTL" status --socket "$CTL" 2>&1 | grep -q 'tx-csum: kernel' ||
	why="$why, the new vnetd does not say tx-csum: kernel (the UMEM's metadata room)"
[ "$rc" = 0 ] || why="$why, vnet-bench exit $rc"
rx=$(bench_field rx_frames "$res"); foreign=$(bench_field foreign "$res")
ours=$(( ${rx:-0} - ${foreign:-0} ))
[ "$ours" = "$UPCOUNT" ] || why="$why, $ours of $UPCOUNT frames arrived"
for f in lost dup_or_reordered wrong_queue; do
	[ "$(bench_field $f "$res")" = 0 ] || why="$why, $f=$(bench_field $f "$res")"
done
if [ -z "$why" ]; then
	ok "upgrade during guest RX: pid $NEWPID serves ($(grep -o 'paused_ms [0-9]*' <<< "$up")); $UPCOUNT frames injected received once, in order"
else
	not_ok "upgrade during guest RX$why"
	sed 's/^/# /' <<< "$res" | tail -n 8
	sed 's/^/# vnetd: /' "$LOG" | tail -n 8
fi
# seqcap SECS: vnet-bench's markers (offset 14: magic, vm, pair, seq, time)
# of the frames arriving on xb for SECS seconds: per queue each sequence
# number later than the one before (no frame twice, none reordered; the
# capture may miss frames it is too slow for, which only leaves gaps)
seqcap() {
	nsx python3 - xb "$1" <<'PY'
import socket, struct, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 24)
s.bind((sys.argv[1], 0))
s.settimeout(0.2)
print("ready", flush=True)
last, seen, dup, back, lo, hi = {}, 0, 0, 0, None, 0
end = time.time() + float(sys.argv[2])
while time.time() < end:
    try:
        f = s.recv(2048)
    except socket.timeout:
        continue
    if len(f) < 38:
        continue
    magic, vm, pair, seq = struct.unpack_from("<IHHQ", f, 14)
    if magic != 0x564e4254:
        continue
    seen += 1
    k = (vm, pair)
    if k in last and seq == last[k]:
        dup += 1
    elif k in last and seq < last[k]:
        back += 1
    last[k] = seq
    lo = seq if lo is None else min(lo, seq)
    hi = max(hi, seq)
print("seen %d dup %d back %d lo %d hi %d" % (seen, dup, back, lo or 0, hi), flush=True)
PY
}

# again, from the sandboxed process that took over, while the guest sends
if [ -n "$NEWPID" ] && kill -0 "$NEWPID" 2>/dev/null; then
	OLDPID=$NEWPID
	scap=$(mktemp /tmp/vnetd-afxdp-seq.XXXXXX)
	cleanup_path "$scap"
	seqcap 4 > "$scap" 2>&1 &
	SPID=$!
	for _ in $(seq 50); do grep -q ready "$scap" && break; sleep 0.1; done
	before=$(rx_packets)
	nsx "$BENCH" --socket "$SOCK" --mode tx-only -d 2 --json > "$out" 2>&1 &
	BPID=$!
	sleep 0.7
	up=$(nsx "$VNETCTL" upgrade --binary "$VNETD" --socket "$CTL" 2>&1); urc=$?
	NEWPID=$(sed -n 's/.*ok pid \([0-9]*\) .*/\1/p' <<< "$up")
	[ -n "$NEWPID" ] && cleanup_run "kill -KILL $NEWPID 2>/dev/null"
	wait $BPID
	sleep 0.5
	got=$(( $(rx_packets) - before ))
	res=$(cat "$out")
	sent=$(bench_field tx_frames "$res")
	for _ in $(seq 50); do kill -0 "$OLDPID" 2>/dev/null || break; sleep 0.1; done
	if [ "$urc" = 0 ] && [ -n "$NEWPID" ] && ! kill -0 "$OLDPID" 2>/dev/null &&
	   [ -n "$sent" ] && [ "$sent" -gt 0 ] && [ "$got" -ge "$sent" ] && [ "$got" -le $((sent + 256)) ]; then
		ok "upgrade during guest TX: pid $NEWPID serves; $sent frames sent, $got arrived at the peer"
	else
		not_ok "upgrade during guest TX: rc=$urc ($up); ${sent:-?} frames sent, $got arrived at the peer"
		sed 's/^/# vnetd: /' "$LOG" | tail -n 6
	fi
	wait $SPID
	read -r _ sseen _ sdup _ sback _ slo _ shi < <(grep '^seen' "$scap")
	# the frames checked reach from before the upgrade (at 0.7 s of 2) to
	# after it: the first quarter's and the last quarter's sequence numbers
	if [ "${sseen:-0}" -ge 1000 ] && [ "${sdup:-1}" = 0 ] && [ "${sback:-1}" = 0 ] &&
	   [ -n "$sent" ] && [ "${slo:-0}" -lt $((sent / 4)) ] && [ "${shi:-0}" -gt $((sent * 3 / 4)) ]; then
		ok "upgrade during guest TX: in order: $sseen frames checked at the peer (seq $slo..$shi of $sent), none twice, none reordered"
	else
		not_ok "upgrade during guest TX: order at the peer: $(grep -m1 . "$scap") (${sent:-?} sent)"
	fi
	kill "$NEWPID" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$NEWPID" 2>/dev/null || break; sleep 0.1; done
	if ! kill -0 "$NEWPID" 2>/dev/null && ! grep -q 'seccomp: blocked' "$LOG"; then
		ok "after two upgrades: SIGTERM ends the new vnetd, no syscall blocked by the sandbox"
	else
		not_ok "after two upgrades: pid $NEWPID still runs or a syscall was blocked: $(grep -m1 seccomp "$LOG")"
	fi
else
	not_ok "upgrade during guest TX: no new vnetd to upgrade from"
fi

# ---- 2 pairs on 2 queues ----------------------------------------------------------
veth 2 || { not_ok "cannot make a 2-queue veth pair"; exit 1; }
if start --xdp-if xa --queues 2 --xdp-queue 0 --xdp-mode copy; then
	tx_check "guest TX, 2 pairs on queues 0 and 1" "$SOCK" 512 --pairs 2 -d 2
	stop "2 pairs"
else
	not_ok "vnetd --queues 2 on a 2-queue veth did not start: $(tail -n 2 "$LOG")"
	VPID=
fi

# ---- a queue still busy: the sockets vnetd makes itself (--config) -------------
# A queue a socket was just closed on stays busy until the kernel has released
# it (a workqueue): vnetd tries again for up to 250 ms. A vnetd started with an
# af_xdp --config port while another one holds the queue says it waits; the
# holder is killed; it binds, says after how long, and serves. One started
# while the queue stays held gives up after the 250 ms, saying so. SIGHUP cannot
# re-open an af_xdp port (no CAP_NET_RAW, no bpf() after setup): a reload that
# changes its line, or removes it and adds it back, is refused, saying what to
# do, and so never meets the busy queue.
veth 1 || { not_ok "cannot make a veth pair"; exit 1; }
CONF=/tmp/vnetd-afxdp-$$.conf CSOCK=/tmp/vnetd-afxdp-c-$$.sock
CCTL=/tmp/vnetd-afxdp-c-$$.ctl CLOG=/tmp/vnetd-afxdp-c-$$.log CPID=
cleanup_run 'stop_pid "$CPID"'
cleanup_path "$CONF"; cleanup_path "$CSOCK"; cleanup_path "$CCTL"; cleanup_path "$CLOG"
XC="name=xc socket=$CSOCK backend=af_xdp xdp-if=xa xdp-mode=copy"
echo "$XC" > "$CONF"
logwait() {	# FILE PATTERN [COUNT]: 0 once FILE has COUNT (1) lines matching
	# PATTERN, 1 if not within 5 s
	local _
	for _ in $(seq 250); do
		[ "$(grep -cE "$2" "$1")" -ge "${3:-1}" ] && return 0
		sleep 0.02
	done
	return 1
}
if start --xdp-if xa --xdp-mode copy; then
	rm -f "$CSOCK"
	ip netns exec "$NS" "$VNETD" --config "$CONF" --ctl-socket "$CCTL" > "$CLOG" 2>&1 &
	CPID=$!
	busy=no
	logwait "$CLOG" 'af_xdp xa queue 0: busy: trying again for up to 250 ms' && busy=yes
	stop_pid "$VPID" KILL; VPID=
	if [ "$busy" = yes ] && wait_sock "$CSOCK" 10 "$CPID" &&
	   grep -q 'af_xdp xa queue 0: bound after waiting [0-9]* ms' "$CLOG"; then
		ok "busy queue: a --config port waits for the queue another vnetd held, binds once it is released ($(grep -o 'after waiting [0-9]* ms' "$CLOG"))"
		tx_check "busy queue, bound after the wait: guest TX" "$CSOCK" 256 -d 1
		rx_check "busy queue, bound after the wait: guest RX" "$CSOCK"
	else
		not_ok "busy queue: --config port: waited: $busy; $(grep -m1 -E 'error|bound after' "$CLOG" | cut -c1-200)"
		sed 's/^/# vnetd: /' "$CLOG" | tail -n 4
	fi
else
	not_ok "vnetd --xdp-if xa --xdp-mode copy did not start: $(tail -n 2 "$LOG")"
	VPID=
fi
if [ -S "$CSOCK" ] && kill -0 "$CPID" 2>/dev/null; then
	refused "busy queue: held all along" \
		"af_xdp xa queue 0: Device or resource busy \(still busy after 250 ms\): .*another AF_XDP socket" \
		--xdp-if xa --xdp-mode copy
	REFUSED='SIGHUP: port xc: backend=af_xdp at run time needs its AF_XDP sockets.*vnetctl port add as root.*nothing changed'
	kill -HUP "$CPID"
	logwait "$CLOG" 'SIGHUP: --config .* applied: 0 added, 0 restarted, 0 removed, 1 untouched' &&
		kept=yes || kept=no
	echo "${XC/xdp-mode=copy/xdp-mode=auto}" > "$CONF"
	kill -HUP "$CPID"
	if [ "$kept" = yes ] && logwait "$CLOG" "$REFUSED"; then
		ok "SIGHUP: the af_xdp line unchanged: untouched; its xdp-mode changed: refused (it cannot be re-opened), nothing changed"
	else
		not_ok "SIGHUP: unchanged: kept: $kept; xdp-mode changed: $(grep 'SIGHUP' "$CLOG" | tail -n 1 | cut -c1-200)"
	fi
	: > "$CONF"
	kill -HUP "$CPID"
	logwait "$CLOG" 'SIGHUP: --config .* applied: 0 added, 0 restarted, 1 removed' &&
		gone=yes || gone=no
	nref=$(grep -cE "$REFUSED" "$CLOG")
	echo "$XC" > "$CONF"
	kill -HUP "$CPID"
	if [ "$gone" = yes ] && logwait "$CLOG" "$REFUSED" $((nref + 1)); then
		ok "SIGHUP: the af_xdp port removed; added back at once: refused, saying to use vnetctl port add"
	else
		not_ok "SIGHUP: removed: $gone; added back: $(grep 'SIGHUP' "$CLOG" | tail -n 1 | cut -c1-200)"
	fi
	kill "$CPID"
	wait "$CPID"; rc=$?; CPID=
	if [ "$rc" = 0 ] && ! grep -q 'seccomp: blocked' "$CLOG"; then
		ok "busy queue, --config: SIGTERM: exit 0, no syscall blocked by the sandbox"
	else
		not_ok "busy queue, --config: SIGTERM: exit $rc: $(grep -m1 'seccomp' "$CLOG")"
	fi
fi

# ---- at run time, into a sandboxed vnetd ----------------------------------------
veth 1 || { not_ok "cannot make a veth pair"; exit 1; }
RSOCK=/tmp/vnetd-afxdp-rt-$$.sock
cleanup_path "$RSOCK"; cleanup_path "$RSOCK.l"
rm -f "$SOCK"
ip netns exec "$NS" env VNETD_XDP_TX_SW_CSUM=1 "$VNETD" --socket "$SOCK" \
	--ctl-socket "$CTL" --backend null > "$LOG" 2>&1 &
VPID=$!
if ! wait_sock "$SOCK" 10 "$VPID"; then
	not_ok "vnetd --backend null did not start: $(tail -n 2 "$LOG")"
	exit 1
fi
RSPEC="name=xr,socket=$RSOCK,backend=af_xdp,xdp-if=xa"
# ctl_raw REQUEST: vnetd's answer to one request from a control client that
# passes no sockets (what vnetctl would send as a user)
ctl_raw() {
	python3 - "$CTL" "$1" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall((sys.argv[2] + "\n").encode())
s.shutdown(socket.SHUT_WR)
print(s.makefile().read().strip())
PY
}
raw=$(ctl_raw "port add $RSPEC")
if grep -q "port xr: backend=af_xdp at run time needs its AF_XDP sockets.*vnetctl port add as root" <<< "$raw"; then
	ok "run time: port add without sockets refused: $(cut -c1-120 <<< "$raw")"
else
	not_ok "run time: port add without sockets: '$raw'"
fi
raw=$(ctl_raw "port add name=xl,socket=$RSOCK.l,backend=loop,xdp-txmd=16")
if grep -q "port xl: xdp-txmd=16: only with the AF_XDP sockets and UMEMs passed with the request" <<< "$raw"; then
	ok "run time: xdp-txmd= without passed sockets refused: $(cut -c1-120 <<< "$raw")"
else
	not_ok "run time: xdp-txmd= without passed sockets: '$raw'"
fi
# a vnetd older than vnetctl's TX metadata room (xdp-txmd=) refuses the key
# as unknown: vnetctl says so and asks again without it (this stand-in
# refuses the second request too, which ends the command there)
fake=/tmp/vnetd-afxdp-old-$$.ctl
cleanup_path "$fake"
nsx python3 - "$fake" > "$out.old" 2>&1 <<'PY' &
import array, os, socket, sys
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(sys.argv[1]); srv.listen(4); srv.settimeout(20)
print("ready", flush=True)
for reply in ("error: port add 'xdp-txmd': unknown key (keys: socket, ...)\n",
              "error: port add: a stand-in for an older vnetd, stopping here\n"):
    c, _ = srv.accept()
    msg, anc, _, _ = c.recvmsg(1024, socket.CMSG_SPACE(16 * 4))
    fds = array.array("i")
    for lvl, typ, data in anc:
        fds.frombytes(data[:len(data) - len(data) % 4])
    print("req %d fds: %s" % (len(fds), msg.decode().strip()), flush=True)
    for f in fds:
        os.close(f)
    c.sendall(reply.encode()); c.close()
PY
FPID=$!
for _ in $(seq 50); do grep -q ready "$out.old" 2>/dev/null && break; sleep 0.1; done
old=$(nsx env VNETD_XDP_TX_SW_CSUM=1 "$VNETCTL" port add "$RSPEC" --socket "$fake" 2>&1); rc=$?
wait $FPID
cleanup_path "$out.old"
if [ "$rc" = 1 ] && grep -q '^req 2 fds: port add .*,xdp-txmd=16$' <<< "$(sed -n 2p "$out.old")" &&
   grep -q '^req 2 fds: port add ' <<< "$(sed -n 3p "$out.old")" &&
   ! grep -q 'xdp-txmd' <<< "$(sed -n 3p "$out.old")" &&
   grep -q "vnetd refused xdp-txmd= (it is older than this vnetctl): passing sockets without TX metadata room" <<< "$old" &&
   grep -q 'stand-in for an older vnetd' <<< "$old"; then
	ok "run time: a vnetd refusing xdp-txmd= as unknown gets the sockets again without the room, vnetctl says so"
else
	not_ok "run time: older vnetd: rc=$rc: $old / $(tr '\n' '|' < "$out.old")"
fi
add=$(nsx env VNETD_XDP_TX_SW_CSUM=1 "$VNETCTL" port add "$RSPEC" --socket "$CTL" 2>&1); rc=$?
if [ "$rc" = 0 ] && grep -q 'ok: port xr added' <<< "$add" &&
   grep -q 'port xr: backend af_xdp: af_xdp on xa queues 0..0, copy mode (auto, sockets passed in' "$LOG"; then
	ok "run time: vnetctl port add backend=af_xdp: sockets passed, bound by the sandboxed vnetd"
else
	not_ok "run time: vnetctl port add: rc=$rc: $add"
	sed 's/^/# vnetd: /' "$LOG" | tail -n 4
fi
# an interface that does not exist, at run time: vnetctl says which and what to
# do, nothing is added, and port xr goes on (the checks below use it)
bad=$(nsx "$VNETCTL" port add "name=xbad,socket=$RSOCK.bad,backend=af_xdp,xdp-if=nosuchif0" --socket "$CTL" 2>&1); rc=$?
check "run time: port add on a missing interface refused, naming it (rc=$rc: $(head -c 100 <<< "$bad"))" \
	eval '[ "$rc" != 0 ] && grep -q "xdp-if=nosuchif0: no such interface (ip link)" <<< "$bad" &&
	      ! "$VNETCTL" port list --socket "$CTL" 2>&1 | grep -q "^xbad "'
tx_check "run time: guest TX" "$RSOCK" 256 -d 1
# vnetctl registered the UMEM with TX metadata room and said so: the kernel
# fills the checksums (VNETD_XDP_TX_SW_CSUM for vnetctl's UMEM, as above)
csum_check "run time: guest" "$RSOCK"
rx_check "run time: guest RX"
# the queue is free again once the port is gone: del, add, frames flow
del=$("$VNETCTL" port del xr --socket "$CTL" 2>&1)
add=$(nsx env VNETD_XDP_TX_SW_CSUM=1 "$VNETCTL" port add "$RSPEC,xdp-mode=copy" --socket "$CTL" 2>&1); rc=$?
if [ "$rc" = 0 ] && grep -q 'removed' <<< "$del"; then
	ok "run time: port del, then add again on queue 0"
	rx_check "run time, added again: guest RX"
else
	not_ok "run time: del then add: $del / rc=$rc $add"
fi
# upgrade: a port added at run time passes with its spec, its sockets and
# UMEMs (the XSKMAP vnetctl filled keeps pointing at them): the new process
# serves it, guest RX arrives once and in order, port list shows it and
# port del removes it
OLDPID=$VPID
up=$(nsx "$VNETCTL" upgrade --binary "$VNETD" --socket "$CTL" 2>&1); rc=$?
NEWPID=$(sed -n 's/.*ok pid \([0-9]*\) .*/\1/p' <<< "$up")
[ -n "$NEWPID" ] && cleanup_run "kill -KILL $NEWPID 2>/dev/null"
wait "$OLDPID"; orc=$?
VPID=
if [ "$rc" = 0 ] && [ -n "$NEWPID" ] && [ "$orc" = 0 ] && kill -0 "$NEWPID" 2>/dev/null; then
	ok "upgrade with the run-time af_xdp port: pid $NEWPID serves, pid $OLDPID exited 0"
	rx_check "after the upgrade, run-time af_xdp port: guest RX"
	# the room vnetctl registered passes with the UMEM
	st=$("$VNETCTL" status --socket "$CTL" 2>&1)
	if grep -q 'tx-csum: kernel' <<< "$st"; then
		ok "after the upgrade, run-time af_xdp port: tx-csum: kernel (the hand-over carries the room)"
	else
		not_ok "after the upgrade, run-time af_xdp port: $(grep -o 'tx-csum:.*' <<< "$st" | head -n 1)"
	fi
	list=$("$VNETCTL" port list --socket "$CTL" 2>&1)
	del=$("$VNETCTL" port del xr --socket "$CTL" 2>&1)
	if grep -q '^xr .*backend=af_xdp .*from=start-or-add' <<< "$list" &&
	   grep -q 'removed' <<< "$del"; then
		ok "after the upgrade: port list shows xr, port del removes it"
	else
		not_ok "after the upgrade: list '$(grep -m1 '^xr' <<< "$list")', del '$del'"
	fi
	kill "$NEWPID"
	for _ in $(seq 50); do kill -0 "$NEWPID" 2>/dev/null || break; sleep 0.1; done
	if ! kill -0 "$NEWPID" 2>/dev/null && ! grep -q 'seccomp: blocked' "$LOG"; then
		ok "run time, after the upgrade: SIGTERM ends the new vnetd, no syscall blocked by the sandbox"
	else
		not_ok "run time, after the upgrade: pid $NEWPID still runs or a syscall was blocked: $(grep -m1 seccomp "$LOG")"
	fi
else
	not_ok "upgrade with the run-time af_xdp port: rc=$rc (old pid exit $orc): $up"
	sed 's/^/# vnetd: /' "$LOG" | tail -n 4
	[ -n "$NEWPID" ] && kill "$NEWPID" 2>/dev/null
fi
# ---- a kernel before 6.11, emulated: it refuses TX metadata room ------------------
# tests/lib/xsk_noroom.c (LD_PRELOAD) fails XDP_UMEM_REG with the metadata flag
# as those kernels do (Ubuntu 24.04's 6.8 among them): vnetd's own sockets and
# vnetctl's fall back to UMEMs without the room, each says so in one line, and
# vnetd sums the guest's checksums itself
NOROOM=$(mktemp /tmp/vnetd-afxdp-noroom.XXXXXX)
cleanup_path "$NOROOM"
if ! cc -shared -fPIC -o "$NOROOM" tests/lib/xsk_noroom.c -ldl > "$LOG" 2>&1; then
	not_ok "old kernel: cannot build the shim tests/lib/xsk_noroom.c: $(head -n 2 "$LOG")"
elif ! veth 1; then
	not_ok "old kernel: cannot make a veth pair"
else
	if PRELOAD=$NOROOM start --xdp-if xa; then
		n=$(grep -c "af_xdp xa queue 0: the kernel refused a UMEM with TX metadata (EINVAL, it needs 6.11): checksums in software" "$LOG")
		if [ "$n" = 1 ]; then
			ok "old kernel: vnetd's own socket falls back to a UMEM without the room, one line says so"
		else
			not_ok "old kernel: $n lines about the refused room; log: $(tail -n 3 "$LOG" | tr '\n' '|')"
		fi
		csum_check "old kernel: guest" "$SOCK" "the kernel refused TX metadata (before 6.11?)"
		stop "old kernel"
	else
		not_ok "old kernel: vnetd did not start: $(tail -n 3 "$LOG" | tr '\n' '|')"
		stop_pid "$VPID"; VPID=
	fi
	# at run time: vnetctl registers the UMEM; vnetd (no shim) binds it
	rm -f "$SOCK"
	ip netns exec "$NS" "$VNETD" --socket "$SOCK" --ctl-socket "$CTL" --backend null > "$LOG" 2>&1 &
	VPID=$!
	if wait_sock "$SOCK" 10 "$VPID"; then
		add=$(nsx env LD_PRELOAD="$NOROOM" "$VNETCTL" port add "$RSPEC" --socket "$CTL" 2>&1); rc=$?
		if [ "$rc" = 0 ] && grep -q 'ok: port xr added' <<< "$add" &&
		   [ "$(grep -c "af_xdp xa: the kernel refused a UMEM with TX metadata room (EINVAL, it needs 6.11): registered without, vnetd sums checksums in software" <<< "$add")" = 1 ]; then
			ok "old kernel, run time: vnetctl port add registers without the room, one line says so"
			csum_check "old kernel, run time: guest" "$RSOCK" "sockets passed in have no TX metadata room"
		else
			not_ok "old kernel, run time: vnetctl port add: rc=$rc: $(tr '\n' '|' <<< "$add")"
		fi
		stop "old kernel, run time"
	else
		not_ok "old kernel, run time: vnetd --backend null did not start: $(tail -n 2 "$LOG")"
	fi
fi
exit $FAILED
