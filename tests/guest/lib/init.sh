#!/bin/sh
# /init of the vnetd test guest (copied into the initramfs by guest.sh build-initramfs).
#
# Kernel command line knobs (all optional):
#   vnet.ip=CIDR      address for eth0; vnet.ipN=CIDR for ethN
#   vnet.mods=a,b     modules to load instead of /etc/vnet/modules ("none": none)
#   vnet.addmods=a,b  modules to load in addition
#   vnet.noup=1       leave the ethN links down
#   vnet.shell=1      interactive shell after the script (or instead of it)
# The script to run arrives through fw_cfg (opt/vnet/script, see guest.sh run --script);
# it is copied to /tmp/vnet-script and run with sh. Without one: /etc/vnet/run, else a shell.
# Console markers (host side greps these):
#   VNET-GUEST-READY uptime=<s>   set up, about to run the script
#   VNET-GUEST-EXIT status=<n>    the script's exit status; the guest then powers off
PATH=/bin:/sbin:/usr/bin:/usr/sbin
export PATH
/bin/busybox mkdir -p /proc /sys /dev /tmp /run
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm /dev/net
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /dev/shm
exec </dev/console >/dev/console 2>&1
up() { read -r u _ < /proc/uptime; echo "$u"; }
T_INIT=$(up)

MODS_OVR='' ADDMODS='' NOUP='' SHELL1=''
for a in $(cat /proc/cmdline); do
	case "$a" in
	vnet.mods=*)    MODS_OVR=${a#vnet.mods=} ;;
	vnet.addmods=*) ADDMODS=${a#vnet.addmods=} ;;
	vnet.noup=*)    NOUP=${a#vnet.noup=} ;;
	vnet.shell=*)   SHELL1=${a#vnet.shell=} ;;
	vnet.ip=*)      echo "eth0 ${a#vnet.ip=}" >> /tmp/vnet-ips ;;
	vnet.ip[0-9]=*) n=${a%%=*}; echo "eth${n#vnet.ip} ${a#*=}" >> /tmp/vnet-ips ;;
	esac
done

case "$MODS_OVR" in
'')   MODS=$(grep -v '^#' /etc/vnet/modules 2>/dev/null) ;;
none) MODS='' ;;
*)    MODS=$(echo "$MODS_OVR" | tr ',' ' ') ;;
esac
for m in $MODS $(echo "$ADDMODS" | tr ',' ' '); do
	modprobe "$m" || echo "VNET-GUEST: modprobe $m FAILED"
done
T_MODS=$(up)

ip link set lo up
if [ -z "$NOUP" ]; then
	if grep -qs '^0x0001$' /sys/bus/virtio/devices/*/device; then
		i=0
		while [ ! -e /sys/class/net/eth0 ] && [ $i -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
	fi
	for d in /sys/class/net/eth*; do
		[ -e "$d" ] || continue
		ip link set "${d##*/}" up
	done
	# virtio link status arrives from a workqueue: wait up to 3 s for carrier
	for d in /sys/class/net/eth*; do
		[ -e "$d" ] || continue
		i=0
		while [ "$(cat "$d/operstate" 2>/dev/null)" != up ] && [ $i -lt 30 ]; do
			sleep 0.1; i=$((i + 1))
		done
		echo "VNET-GUEST: ${d##*/} operstate=$(cat "$d/operstate") mac=$(cat "$d/address")"
	done
	if [ -f /tmp/vnet-ips ]; then
		while read -r dev cidr; do ip addr add "$cidr" dev "$dev"; done < /tmp/vnet-ips
	fi
fi

RUN=''
FW=/sys/firmware/qemu_fw_cfg/by_name/opt/vnet/script/raw
if [ -e "$FW" ]; then
	cp "$FW" /tmp/vnet-script
	RUN=/tmp/vnet-script
elif [ -f /etc/vnet/run ]; then
	RUN=/etc/vnet/run
fi
hostname vnet-guest
T_READY=$(up)
echo "VNET-GUEST: uptime init=$T_INIT modules=$T_MODS ready=$T_READY"
echo "VNET-GUEST-READY uptime=$T_READY"
rc=0
if [ -n "$RUN" ]; then
	sh "$RUN"
	rc=$?
fi
if [ -z "$RUN" ] || [ -n "$SHELL1" ]; then
	setsid cttyhack sh -l
fi
sync
echo "VNET-GUEST-EXIT status=$rc"
poweroff -f
