#!/usr/bin/env bash
# vnetctl-provision.sh - `vnetctl tap create|delete` inside a private network
# namespace: a multi-queue TAP (flags, owner, every queue attachable by the
# owner without privileges), bridge membership, idempotent create, delete,
# failures that leave nothing behind (a bridge that does not exist, a
# "bridge" the kernel refuses halfway through), refusing foreign devices,
# and a macvtap (its /dev/tapN, owner, queues, the bridge-port check).
# needs: root netns tun python3
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
BIN=$PWD/${VNETCTL:-build/vnetctl}
PY=/usr/bin/python3
need_built "$BIN"
[ -x $PY ] || skip_all "$PY not installed (opens TAP queues)"
command -v setpriv >/dev/null || skip_all "setpriv not installed"
NS=vnprov$$
netns_new $NS || skip_all "cannot create a network namespace"
TMP=$(mktemp -d /tmp/vnprov.XXXXXX) && chmod 755 "$TMP"
cleanup_path "$TMP"
HOLD=''
cleanup_run 'stop_pid "$HOLD"'
X() { ip netns exec $NS "$@"; }
U=nobody G=$(id -gn nobody) UID_N=$(id -u nobody) GID_N=$(id -g nobody)

# attach.py KIND NAME N: open N queues of a TAP (KIND=tap) or of /dev/tapN
# (KIND=macvtap, NAME is the device node); prints how many attached
cat > "$TMP/attach.py" <<'PY'
import fcntl, os, struct, sys
kind, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
TUNSETIFF = 0x400454ca
flags = 0x0002 | 0x1000 | 0x4000 | 0x0100   # TAP | NO_PI | VNET_HDR | MULTI_QUEUE
fds = []
try:
    for i in range(n):
        if kind == "tap":
            fd = os.open("/dev/net/tun", os.O_RDWR)
            fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), flags))
        else:
            fd = os.open(name, os.O_RDWR)
        fds.append(fd)
except OSError as e:
    print("attached %d of %d: %s" % (len(fds), n, e))
    sys.exit(1)
print("attached %d" % len(fds), flush=True)
if len(sys.argv) > 4:       # "hold": keep the queues open until killed
    import time
    time.sleep(60)
PY
attach() { X setpriv --reuid "$UID_N" --regid "$GID_N" --clear-groups $PY "$TMP/attach.py" "$@"; }

bad() { not_ok "$1"; shift; for l in "$@"; do echo "#   $l"; done; }
exists() { X ip link show "$1" >/dev/null 2>&1; }
run() { OUT=$(X "$BIN" "$@" 2>&1); RC=$?; }

# 1. a multi-queue TAP with owner and group
run tap create t0 --queues 4 --user $U --group "$G"
[ $RC = 0 ] && exists t0 && ok "tap create t0 --queues 4" || bad "tap create t0" "rc=$RC $OUT"
flags=$(X cat /sys/class/net/t0/tun_flags 2>/dev/null || echo 0)
want=$((0x0002 | 0x1000 | 0x4000 | 0x0100 | 0x0800))	# TAP NO_PI VNET_HDR MULTI_QUEUE PERSIST
[ $((flags & want)) = $want ] && ok "tun_flags $flags has TAP, NO_PI, VNET_HDR, MULTI_QUEUE, PERSIST" ||
	bad "tun_flags $flags lacks bits of $(printf 0x%x $want)"
[ "$(X cat /sys/class/net/t0/owner)" = "$UID_N" ] && [ "$(X cat /sys/class/net/t0/group)" = "$GID_N" ] &&
	ok "owner $U, group $G" || bad "owner/group" "$(X cat /sys/class/net/t0/owner /sys/class/net/t0/group)"
r=$(attach tap t0 4)
[ "$r" = "attached 4" ] && ok "user $U attaches 4 queues without privileges" || bad "attach 4 queues as $U" "$r"
r=$(X setpriv --reuid 1 --regid 1 --clear-groups $PY "$TMP/attach.py" tap t0 1 2>&1)
[[ "$r" == "attached 0 of 1"* ]] && ok "another user cannot attach" || bad "another user attached" "$r"

# 2. idempotent
idx=$(X cat /sys/class/net/t0/ifindex)
run tap create t0 --queues 4 --user $U --group "$G"
[ $RC = 0 ] && [ "$(X cat /sys/class/net/t0/ifindex)" = "$idx" ] && [[ "$OUT" == kept* ]] &&
	ok "repeating the create is idempotent (same ifindex, 'kept')" || bad "repeat create" "rc=$RC $OUT"

# 3. bridge membership
X ip link add vnbr0 type bridge
run tap create t1 --queues 2 --bridge vnbr0
m=$(X readlink /sys/class/net/t1/master 2>/dev/null)
[ $RC = 0 ] && [ "${m##*/}" = vnbr0 ] && ok "t1 is a port of vnbr0" || bad "bridge membership" "rc=$RC master=$m $OUT"
[ "$(X cat /sys/class/net/t1/operstate)" != "" ] && X ip link show t1 | grep -q '[<,]UP[,>]' &&
	ok "t1 is up" || bad "t1 not up"

# 4. failures leave nothing behind
run tap create t2 --queues 2 --bridge nosuchbr
[ $RC = 1 ] && ! exists t2 && [[ "$OUT" == *"nosuchbr: no such device"* ]] &&
	ok "missing bridge: rc 1, no t2 left" || bad "missing bridge" "rc=$RC $OUT"
X ip link add vnv0 type veth peer name vnv1
run tap create t3 --queues 3 --bridge vnv0
[ $RC = 1 ] && ! exists t3 && [[ "$OUT" == *"vnv0 is not a bridge"* ]] &&
	ok "kernel refuses halfway (veth as master): rc 1, no t3 left" || bad "halfway failure" "rc=$RC $OUT"
run tap create vnv0 --queues 1
[ $RC = 1 ] && exists vnv0 && [[ "$OUT" == *"is a veth device, not a TAP"* ]] &&
	ok "name taken by a veth: refused, veth untouched" || bad "name taken" "rc=$RC $OUT"
X ip tuntap add t5 mode tap
run tap create t5 --queues 2
[ $RC = 1 ] && exists t5 && [[ "$OUT" == *"not a multi_queue vnet_hdr TAP"* ]] &&
	ok "existing single-queue TAP: refused and left in place" || bad "existing sq tap" "rc=$RC $OUT"
run tap create t6 --queues 0
[ $RC = 2 ] && ! exists t6 && [[ "$OUT" == *"--queues 0 is out of range (allowed 1..256)"* ]] &&
	ok "--queues 0: usage error naming flag, value, range" || bad "--queues 0" "rc=$RC $OUT"
run tap create t6 --user no-such-user-$$
[ $RC = 2 ] && ! exists t6 && ok "unknown --user: usage error, nothing made" || bad "unknown user" "rc=$RC $OUT"

# 5. delete
run tap delete vnv0
[ $RC = 1 ] && exists vnv0 && [[ "$OUT" == *"not deleting it"* ]] &&
	ok "delete refuses a veth" || bad "delete veth" "rc=$RC $OUT"
ip netns exec $NS setpriv --reuid "$UID_N" --regid "$GID_N" --clear-groups $PY "$TMP/attach.py" tap t0 2 hold > "$TMP/hold.out" &
HOLD=$!
for i in $(seq 50); do [ -s "$TMP/hold.out" ] && break; sleep 0.1; done
run tap create t0 --queues 4 --user $U --group "$G"
[ $RC = 0 ] && [[ "$OUT" == kept* ]] && ok "create on a TAP in use with the same owner: kept" ||
	bad "create in use, same owner" "rc=$RC $OUT"
run tap create t0 --queues 4 --user root
[ $RC = 1 ] && exists t0 && [[ "$OUT" == *"t0 is in use (2 queues attached) with another owner"* ]] &&
	ok "create on a TAP in use with another owner: refused, left alone" || bad "create in use, other owner" "rc=$RC $OUT"
[ "$(X cat /sys/class/net/t0/owner)" = "$UID_N" ] && ok "owner unchanged" || bad "owner changed"
run tap delete t0
[ $RC = 1 ] && exists t0 && [[ "$OUT" == *"t0 has 2 queues attached"* ]] &&
	ok "delete refuses a TAP in use (2 queues attached)" || bad "delete in use" "rc=$RC $OUT"
run tap delete t0 --force
[ $RC = 0 ] && ! exists t0 && ok "delete --force while in use" || bad "delete --force" "rc=$RC $OUT"
kill $HOLD 2>/dev/null; wait $HOLD 2>/dev/null
run tap create t0 --queues 4
run tap delete t0
[ $RC = 0 ] && ! exists t0 && ok "delete t0" || bad "delete t0" "rc=$RC $OUT"
run tap delete t0
[ $RC = 0 ] && [[ "$OUT" == *"nothing to delete"* ]] && ok "delete again: nothing to do" || bad "delete again" "rc=$RC $OUT"
run tap delete t1
[ $RC = 0 ] && ! exists t1 && [ -z "$(X ls /sys/class/net/vnbr0/brif)" ] &&
	ok "delete t1 leaves the bridge empty" || bad "delete t1" "rc=$RC $OUT"

# 6. macvtap
if X ip link add vnmt$$ link vnv1 type macvtap 2>/dev/null; then
	X ip link del vnmt$$
	run tap create m0 --macvtap-parent vnv1 --queues 3 --user $U --group "$G"
	idx=$(X cat /sys/class/net/m0/ifindex 2>/dev/null)
	[ $RC = 0 ] && X ip -d link show m0 | grep -q 'macvtap mode bridge' &&
		ok "macvtap m0 on vnv1 (mode bridge)" || bad "macvtap create" "rc=$RC $OUT"
	[ "$(stat -c %U:%G:%a /dev/tap$idx 2>/dev/null)" = "$U:$G:660" ] &&
		ok "/dev/tap$idx owned by $U:$G, 0660" || bad "/dev/tap$idx" "$(ls -l /dev/tap$idx 2>&1)"
	r=$(attach macvtap /dev/tap$idx 3)
	[ "$r" = "attached 3" ] && ok "user $U opens 3 macvtap queues" || bad "macvtap queues" "$r"
	run tap create m0 --macvtap-parent vnv1 --queues 3 --user $U --group "$G"
	[ $RC = 0 ] && [ "$(X cat /sys/class/net/m0/ifindex)" = "$idx" ] &&
		ok "macvtap create is idempotent" || bad "macvtap repeat" "rc=$RC $OUT"
	run tap create m0 --macvtap-parent vnv1 --mode passthru
	[ $RC = 1 ] && exists m0 && [[ "$OUT" == *"exists on vnv1 in another mode"* ]] &&
		ok "same name, other mode: refused, m0 left alone" || bad "macvtap other mode" "rc=$RC $OUT"
	X ip link add vnv2 type veth peer name vnv3
	X ip link set vnv3 master vnbr0
	run tap create m1 --macvtap-parent vnv3 --mode passthru
	[ $RC = 1 ] && ! exists m1 && [[ "$OUT" == *"refusing an unfiltered (passthru) macvtap on vnv3: vnv3 is a port of bridge vnbr0"* ]] &&
		ok "passthru on a bridge port of a filtered node: refused" || bad "bridge-port check" "rc=$RC $OUT"
	run tap create m1 --macvtap-parent nosuchdev
	[ $RC = 1 ] && ! exists m1 && ok "missing parent: refused, nothing made" || bad "missing parent" "rc=$RC $OUT"
	run tap delete m0
	[ $RC = 0 ] && ! exists m0 && ok "delete m0" || bad "delete m0" "rc=$RC $OUT"
	for i in 1 2 3 4 5 6 7 8 9 10; do [ -e /dev/tap$idx ] || break; sleep 0.1; done
	[ ! -e /dev/tap$idx ] && ok "/dev/tap$idx is gone" || bad "/dev/tap$idx left behind"
else
	ok_skip macvtap "kernel has no macvtap"
fi
exit $FAILED
