#!/usr/bin/env bash
# vnetctl-probe.sh - `vnetctl probe vhost-net` and the plan's fallback, with the
# device path pointed (VNET_VHOST_NET_DEV / --dev / --vhost-net-dev) at a
# missing file, a regular file, a character device the user may not open,
# and one it may: state, the sentence (mode, owner:group, which permission),
# exit status, and what `vnetctl plan --backend tap` then does.
# needs: root
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
BIN=$PWD/${VNETCTL:-build/vnetctl}
need_built "$BIN"
id nobody >/dev/null 2>&1 || skip_all "no user nobody"
D=$(mktemp -d /tmp/vnprobe.XXXXXX)
cleanup_path "$D"
G=$(id -gn nobody)
getent group kvm >/dev/null && G2=kvm || G2=root
touch "$D/regular"
mknod "$D/vhost-net" c 1 3 || skip_all "mknod not allowed here"
chown root:$G2 "$D/vhost-net"; chmod 660 "$D/vhost-net"
t() { # NAME WANT_RC WANT_SUBSTRING CMD...
	local name=$1 rc=$2 want=$3 out got; shift 3
	out=$("$@" 2>&1); got=$?
	if [ "$got" = "$rc" ] && [[ "$out" == *"$want"* ]]; then ok "$name"
	else not_ok "$name"; echo "#   rc=$got (want $rc), output:"; echo "$out" | sed 's/^/#   /'; fi
}
t "absent (env)" 1 "vhost-net: absent: $D/none: absent" env VNET_VHOST_NET_DEV=$D/none "$BIN" probe vhost-net
t "absent: says the fallback" 1 "falls back to vhost=off with 1 queue pair" env VNET_VHOST_NET_DEV=$D/none "$BIN" probe vhost-net
t "regular file" 1 "not a character device: -rw-r--r-- root:root: $D/regular is not a character device" \
	"$BIN" probe vhost-net --dev "$D/regular"
t "no permission: names mode, owner:group, user and group" 1 \
	"present but not accessible: crw-rw---- root:$G2: user nobody is not in group $G2" \
	"$BIN" probe vhost-net --dev "$D/vhost-net" --user nobody
t "root can" 0 "usable: crw-rw---- root:$G2: user root can read and write it" \
	"$BIN" probe vhost-net --dev "$D/vhost-net" --user root
chown root:$G "$D/vhost-net"; chmod 640 "$D/vhost-net"
t "group member lacking write" 1 "user nobody is in group $G but the group lacks write permission" \
	"$BIN" probe vhost-net --dev "$D/vhost-net" --user nobody
chown nobody "$D/vhost-net"; chmod 400 "$D/vhost-net"
t "owner lacking write" 1 "user nobody owns it but the owner lacks write permission" \
	"$BIN" probe vhost-net --dev "$D/vhost-net" --user nobody
chmod 600 "$D/vhost-net"
t "owner with rw" 0 "usable" "$BIN" probe vhost-net --dev "$D/vhost-net" --user nobody
t "unknown user: usage error" 2 "--user 'no-such-user-$$': no such user" \
	"$BIN" probe vhost-net --dev "$D/vhost-net" --user no-such-user-$$
chown root:$G2 "$D/vhost-net"; chmod 660 "$D/vhost-net"
t "plan, defaulted vhost: degrades with a warning, 1 pair" 0 \
	"warning: vhost is not available (crw-rw---- root:$G2: user nobody is not in group $G2): falling back to vhost off, 1 queue pair by default" \
	"$BIN" plan --vcpus 4 --backend tap --user nobody --vhost-net-dev "$D/vhost-net" --output qemu
out=$("$BIN" plan --vcpus 4 --backend tap --user nobody --vhost-net-dev "$D/vhost-net" --output qemu 2>/dev/null)
[[ "$out" == *",vhost=off"* ]] && [[ "$out" != *"queues="* ]] &&
	ok "plan fallback prints vhost=off without queues=" || { not_ok "plan fallback output"; echo "$out" | sed 's/^/#   /'; }
t "plan, explicit --vhost on: fails loudly" 1 \
	"vhost was requested (--vhost on) but cannot be used: crw-rw---- root:$G2: user nobody is not in group $G2" \
	"$BIN" plan --vcpus 4 --backend tap --user nobody --vhost on --vhost-net-dev "$D/vhost-net"
t "plan, usable: vhost=on, 4 pairs" 0 "vhost=on,queues=4" \
	env VNET_VHOST_NET_DEV="$D/vhost-net" "$BIN" plan --vcpus 4 --backend tap --user root --output qemu
# node settings from the environment; a flag still wins
t "node cap from VNET_MAX_QUEUES lowers the default" 0 "queues=4" \
	env VNET_MAX_QUEUES=4 "$BIN" plan --vcpus 8 --socket /x --qemu-version 7.2 --output qemu
t "--max-queues beats VNET_MAX_QUEUES" 0 "queues=8" \
	env VNET_MAX_QUEUES=4 "$BIN" plan --vcpus 8 --max-queues 16 --socket /x --qemu-version 7.2 --output qemu
t "bad VNET_MAX_QUEUES names the variable" 2 "VNET_MAX_QUEUES 99 is out of range (allowed 1..64)" \
	env VNET_MAX_QUEUES=99 "$BIN" plan --vcpus 8 --socket /x
t "VNET_VHOST=on on a node without vhost-net fails loudly" 1 "vhost was requested (--vhost on)" \
	env VNET_VHOST=on VNET_VHOST_NET_DEV=$D/none "$BIN" plan --vcpus 8 --backend tap
exit $FAILED
