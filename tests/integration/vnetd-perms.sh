#!/usr/bin/env bash
# needs: root python3 runuser
# vnetd-perms.sh - who may connect: the default socket file (0660, group
# kvm: libvirt's QEMU runs as libvirt-qemu:kvm) refuses a user outside kvm;
# --socket-owner / --socket-group / --socket-mode (flags and config keys)
# let exactly the named user in; a missing /run/vnetd is created 0755 (in a
# private mount namespace with its own /run); the control socket checks
# SO_PEERCRED: root passes, nobody is refused with a one-line reason (reply
# and log), --ctl-group lets the group in. Prints TAP lines.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
VNETD=${VNETD:-$PWD/build/vnetd}
VNETCTL=${VNETCTL:-$PWD/build/vnetctl}
need_built "$VNETD" "$VNETCTL"
id nobody >/dev/null 2>&1 || skip_all "no user nobody"
NOGROUP=$(id -gn nobody)
TMP=$(mktemp -d /tmp/vnetd-perms.XXXXXX)
cleanup_path "$TMP"
chmod 755 "$TMP"	# nobody must reach the sockets' directory
NB_VNETCTL=$(exec_for_user nobody "$VNETCTL" "$TMP") || skip_all "cannot copy $VNETCTL where nobody can run it"

cat > "$TMP/fe.py" <<'PY'
import socket, struct, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(5)
try:
    s.connect(sys.argv[1])
except PermissionError:
    print('EACCES'); sys.exit(0)
s.sendall(struct.pack('<III', 1, 1, 0)); h = s.recv(20)
print('features' if len(h) == 20 else 'closed')
PY
as_nobody() { runuser -u nobody -- timeout 10 python3 "$TMP/fe.py" "$1" 2>&1; }

# start NAME ARGS...: vnetd on $TMP/NAME.sock, backend null
start() {
	local name=$1
	shift
	"$VNETD" --socket "$TMP/$name.sock" --backend null --ctl-socket "$TMP/$name.ctl" \
		"$@" 2>"$TMP/$name.log" &
	cleanup_pid "$!"
	wait_sock "$TMP/$name.sock" || echo "# $name did not start: $(cat "$TMP/$name.log")"
}

start def
if getent group kvm >/dev/null; then
	[ "$(stat -c '%a %U %G' "$TMP/def.sock")" = "660 root kvm" ] &&
		ok "default socket: 0660 root:kvm" ||
		not_ok "default socket is $(stat -c '%a %U %G' "$TMP/def.sock")"
else
	[ "$(stat -c '%a' "$TMP/def.sock")" = 660 ] && ok "default socket: 0660 (no kvm group here)" ||
		not_ok "default socket is $(stat -c '%a %U %G' "$TMP/def.sock")"
fi
[ "$(as_nobody "$TMP/def.sock")" = EACCES ] && ok "default socket: nobody (not in kvm) is refused" ||
	not_ok "nobody got into the default socket"
[ "$(timeout 10 python3 "$TMP/fe.py" "$TMP/def.sock")" = features ] &&
	ok "default socket: root's QEMU connects" || not_ok "root cannot connect"

start owner --socket-owner nobody --socket-mode 0600
[ "$(stat -c '%a %U' "$TMP/owner.sock")" = "600 nobody" ] && ok "--socket-owner nobody --socket-mode 0600" ||
	not_ok "owner socket is $(stat -c '%a %U' "$TMP/owner.sock")"
[ "$(as_nobody "$TMP/owner.sock")" = features ] && ok "--socket-owner nobody: nobody connects" ||
	not_ok "nobody cannot use its own socket"

start group --socket-group "$NOGROUP" --socket-mode 660
[ "$(stat -c '%a %G' "$TMP/group.sock")" = "660 $NOGROUP" ] && [ "$(as_nobody "$TMP/group.sock")" = features ] &&
	ok "--socket-group $NOGROUP: nobody connects through the group" ||
	not_ok "group socket $(stat -c '%a %G' "$TMP/group.sock")"

printf 'name=c1 socket=%s socket-owner=nobody socket-group=%s socket-mode=0640\n' "$TMP/cfg.sock" "$NOGROUP" > "$TMP/ports.conf"
"$VNETD" --config "$TMP/ports.conf" --backend null --ctl-socket "$TMP/cfg.ctl" 2>"$TMP/cfg.log" &
cleanup_pid "$!"
wait_sock "$TMP/cfg.sock"
[ "$(stat -c '%a %U %G' "$TMP/cfg.sock")" = "640 nobody $NOGROUP" ] && ok "config keys socket-owner/-group/-mode" ||
	not_ok "config socket is $(stat -c '%a %U %G' "$TMP/cfg.sock" 2>&1)"

# /run/vnetd is created 0755 when a socket lives there (private /run)
if command -v unshare >/dev/null; then
	out=$(timeout 20 unshare -m sh -c "mount --make-rprivate / && mount -t tmpfs vnetd-test /run &&
		( '$VNETD' --socket /run/vnetd/t.sock --backend null --ctl-socket '$TMP/run.ctl' 2>'$TMP/run.log' & p=\$!;
		  for i in \$(seq 50); do [ -S /run/vnetd/t.sock ] && break; sleep 0.1; done;
		  stat -c '%a %U' /run/vnetd; kill \$p; wait \$p )" 2>&1)
	[ "$out" = "755 root" ] && ok "missing /run/vnetd created 0755 root" ||
		not_ok "/run/vnetd: $out $(cat "$TMP/run.log" 2>/dev/null)"
else
	ok_skip "/run/vnetd creation" "unshare missing"
fi

# control socket: SO_PEERCRED
out=$("$VNETCTL" status --socket "$TMP/def.ctl" 2>&1)
grep -q 'port0' <<< "$out" && ok "control socket: root is answered" || not_ok "root status: $out"
chmod 666 "$TMP/def.ctl"	# get past the file mode to reach the SO_PEERCRED check
out=$(runuser -u nobody -- "$NB_VNETCTL" status --socket "$TMP/def.ctl" 2>&1)
if grep -q 'refused: uid 65534 (pid [0-9]*) is not root' <<< "$out" && ! grep -q port0 <<< "$out"; then
	ok "control socket: nobody refused with the reason"
else
	not_ok "nobody on the control socket: $out"
fi
sleep 0.2
grep -qE 'warn: control socket: refused: uid 65534 \(pid [0-9]+\) is not root' "$TMP/def.log" &&
	ok "the refusal is one log line" || not_ok "no refusal line in: $(cat "$TMP/def.log")"

start ctlg --ctl-group "$NOGROUP"
[ "$(stat -c '%a %G' "$TMP/ctlg.ctl")" = "660 $NOGROUP" ] && ok "--ctl-group: control socket 0660 group $NOGROUP" ||
	not_ok "ctl socket is $(stat -c '%a %G' "$TMP/ctlg.ctl")"
out=$(runuser -u nobody -- "$NB_VNETCTL" status --socket "$TMP/ctlg.ctl" 2>&1)
grep -q port0 <<< "$out" && ok "--ctl-group $NOGROUP: nobody is answered" || not_ok "ctl-group member: $out"
echo "1..$N"
exit $FAILED
