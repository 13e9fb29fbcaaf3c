#!/usr/bin/env bash
# needs: root tun python3 runuser
# vnetd-privdrop.sh - least privilege: --user nobody drops to nobody after
# setup with every id changed and CapEff/CapPrm 0 (/proc/PID/status) and
# still carries frames; vnetd started as nobody (runuser) serves a
# persistent TAP owned by nobody, and a TAP queue fd (--tap-fd) opened by
# a privileged parent, frames reaching the TAP in both cases; --user
# without the privilege to switch fails with the reason. Prints TAP lines.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
VNETD=${VNETD:-$PWD/build/vnetd}
BENCH=${BENCH:-$PWD/build/vnet-bench}
need_built "$VNETD" "$BENCH"
id nobody >/dev/null 2>&1 || skip_all "no user nobody"
TMP=$(mktemp -d /tmp/vnetd-priv.XXXXXX)
cleanup_path "$TMP"
chmod 755 "$TMP"
NB=$TMP/nobody; mkdir "$NB"; chown nobody "$NB"	# where nobody binds its sockets
NB_VNETD=$(exec_for_user nobody "$VNETD" "$TMP") || skip_all "cannot copy $VNETD where nobody can run it"
TAPU=hspu$$ TAPF=hspf$$
# at exit, newest first: the processes (TERM: runuser passes it on to the vnetd
# it started), then the persistent TAP they used
cleanup_run "ip link del $TAPU 2>/dev/null"
field() { awk -v k="$2:" '$1 == k { $1 = ""; print substr($0, 2) }' "/proc/$1/status"; }
rx_packets() { cat "/sys/class/net/$1/statistics/rx_packets" 2>/dev/null || echo 0; }

# 1. --user nobody: the drop, checked from outside
"$VNETD" --socket "$TMP/d.sock" --backend loop --ctl-socket "$TMP/d.ctl" --user nobody \
	2>"$TMP/d.log" &
PID=$!; cleanup_run "stop_pid $PID"
wait_sock "$TMP/d.sock"; sleep 0.3
u=$(field "$PID" Uid) g=$(field "$PID" Gid) gr=$(field "$PID" Groups)
if [ "$(echo $u)" = "65534 65534 65534 65534" ] && [ "$(echo $g)" = "65534 65534 65534 65534" ] &&
   [ "$(echo $gr)" = 65534 ]; then
	ok "--user nobody: real, effective, saved uid/gid and groups are nobody's"
else
	not_ok "--user nobody: Uid '$u' Gid '$g' Groups '$gr' log: $(cat "$TMP/d.log")"
fi
[ "$(field "$PID" CapEff)" = 0000000000000000 ] && [ "$(field "$PID" CapPrm)" = 0000000000000000 ] &&
	ok "--user nobody: CapEff and CapPrm are 0" ||
	not_ok "caps left: CapEff $(field "$PID" CapEff) CapPrm $(field "$PID" CapPrm)"
out=$(timeout 30 "$BENCH" --socket "$TMP/d.sock" --duration 1 --check-seq 2>&1)
grep -q 'sequence check: OK' <<< "$out" && ok "--user nobody: frames still flow after the drop" ||
	not_ok "after the drop: $out"
grep -q 'running as uid 65534 gid 65534, no capabilities' "$TMP/d.log" && ok "the drop is logged" ||
	not_ok "no drop line: $(cat "$TMP/d.log")"

# 2. wholly unprivileged: a persistent multi-queue TAP owned by nobody
ip tuntap add dev "$TAPU" mode tap user nobody multi_queue vnet_hdr && ip link set "$TAPU" up
runuser -u nobody -- "$NB_VNETD" --socket "$NB/u.sock" --backend tap --tap "$TAPU" \
	--ctl-socket "$NB/u.ctl" 2>"$TMP/u.log" &
RPID=$!; cleanup_run "stop_pid $RPID"
if wait_sock "$NB/u.sock"; then
	PID=$(pgrep -P "$RPID" -x vnetd)	# runuser's child
	before=$(rx_packets "$TAPU")
	timeout 30 "$BENCH" --socket "$NB/u.sock" --mode tx-only --duration 1 >"$TMP/u.bench" 2>&1
	after=$(rx_packets "$TAPU")
	[ "$after" -gt "$before" ] && [ "$(field "$PID" CapEff)" = 0000000000000000 ] &&
		ok "as nobody on a TAP owned by nobody: $((after - before)) frames reached $TAPU" ||
		not_ok "unprivileged TAP: rx $before -> $after; $(cat "$TMP/u.bench" "$TMP/u.log")"
else
	not_ok "vnetd as nobody on $TAPU did not start: $(cat "$TMP/u.log")"
fi

# 3. --tap-fd from a privileged parent that then becomes nobody
cat > "$TMP/parent.py" <<'PY'
import fcntl, os, pwd, struct, subprocess, sys
TUNSETIFF = 0x400454ca
IFF_TAP, IFF_NO_PI, IFF_VNET_HDR, IFF_MULTI_QUEUE = 0x2, 0x1000, 0x4000, 0x100
name, vnetd, sockdir = sys.argv[1], sys.argv[2], sys.argv[3]
fd = os.open('/dev/net/tun', os.O_RDWR)
fcntl.ioctl(fd, TUNSETIFF, struct.pack('16sH', name.encode(),
            IFF_TAP | IFF_NO_PI | IFF_VNET_HDR | IFF_MULTI_QUEUE))
subprocess.check_call(['ip', 'link', 'set', name, 'up'])
os.set_inheritable(fd, True)
pw = pwd.getpwnam('nobody')          # the parent gives up root, keeps the fd
os.setgroups([pw.pw_gid]); os.setgid(pw.pw_gid); os.setuid(pw.pw_uid)
os.execv(vnetd, [vnetd, '--socket', sockdir + '/f.sock', '--backend', 'tap',
                 '--tap-fd', str(fd), '--ctl-socket', sockdir + '/f.ctl'])
PY
python3 "$TMP/parent.py" "$TAPF" "$NB_VNETD" "$NB" 2>"$TMP/f.log" &
PID=$!; cleanup_run "stop_pid $PID"
if wait_sock "$NB/f.sock"; then
	before=$(rx_packets "$TAPF")
	timeout 30 "$BENCH" --socket "$NB/f.sock" --mode tx-only --duration 1 >"$TMP/f.bench" 2>&1
	after=$(rx_packets "$TAPF")
	[ "$after" -gt "$before" ] && [ "$(echo $(field "$PID" Uid))" = "65534 65534 65534 65534" ] &&
		ok "as nobody on --tap-fd from a root parent: $((after - before)) frames reached $TAPF" ||
		not_ok "--tap-fd: rx $before -> $after uid $(field "$PID" Uid); $(cat "$TMP/f.bench" "$TMP/f.log")"
else
	not_ok "vnetd on --tap-fd did not start: $(cat "$TMP/f.log")"
fi

# 4. --user without the privilege to switch: refuses to run
err=$(runuser -u nobody -- timeout 10 "$NB_VNETD" --socket "$NB/n.sock" --backend null \
	--ctl-socket "$NB/n.ctl" --user root 2>&1); rc=$?
[ "$rc" = 1 ] && grep -q -- '--user: setgroups: Operation not permitted (needs CAP_SETGID' <<< "$err" &&
	ok "--user root as nobody: exit 1 with the reason" || not_ok "--user without privilege (rc=$rc): $err"
echo "1..$N"
exit $FAILED
