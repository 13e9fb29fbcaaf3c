# shellcheck shell=bash
# tests/lib/needs.sh - the `# needs:` vocabulary of test scripts (source it).
#
# A test script says what it needs in one comment line near its top:
#     # needs: root netns tun dpdk
# tests/run.sh reads that line before it runs the script and skips it with the reason
# when a need is absent; a word not in this vocabulary is a failure of that test. The
# words, and what present means (see docs/testing.md):
#   root     running as uid 0
#   netns    network namespaces can be created (ip netns add; root)
#   tun      /dev/net/tun is a character device
#   dpdk     dpdk-testpmd in PATH
#   qemu     qemu-system-x86_64 (or $VNET_QEMU) in PATH
#   qemu10   a QEMU >= 10 (tests/guest/lib/qemu10.sh path: $VNET_QEMU10, or QEMU 10
#            from bookworm-backports unpacked into the guest cache by tests/deps.sh)
#   busybox  busybox in PATH (the guest's initramfs wants busybox-static)
#   cpio     cpio in PATH
#   python3  python3 in PATH
#   cppcheck cppcheck in PATH
#   vhost-net /dev/vhost-net is a character device on this host
#   libvirt  libvirtd and virsh in PATH (libvirt-daemon-system, libvirt-clients)
#   systemd  systemd-socket-activate and systemd-analyze in PATH (systemd)
#   runuser  runuser and unshare in PATH (util-linux)
#   man      scdoc and mandoc in PATH (man pages are built and linted)
#   deb      dpkg-buildpackage, debhelper and lintian (a .deb is built)
#   bash-completion  /usr/share/bash-completion/bash_completion exists
#   promtool promtool in PATH (prometheus)
#   ovs      ovs-vswitchd, ovsdb-server and ovs-vsctl in PATH (openvswitch-switch)
#   none     nothing beyond a build (the line says so explicitly)
# VNET_NEEDS_ABSENT="word ..." makes those needs absent (to test the skip path).

NEEDS_WORDS="root netns tun dpdk qemu qemu10 busybox cpio python3 cppcheck vhost-net libvirt systemd runuser man deb bash-completion promtool ovs"

# needs_line FILE: the words of FILE's first "# needs:" line (empty when there is none)
needs_line() {
	sed -n 's/^# needs:\(.*\)$/\1/p;/^# needs:/q' "$1" | head -n 1
}

# needs_probe WORD: 0 if present; else prints why (one line) and returns 1;
# 2 (after printing why) when WORD is not in the vocabulary
needs_probe() {
	local w=$1 ns
	case " $NEEDS_WORDS " in
	*" $w "*) ;;
	*) echo "unknown need '$w' (known: $NEEDS_WORDS)"; return 2 ;;
	esac
	case " ${VNET_NEEDS_ABSENT:-} " in
	*" $w "*) echo "needs $w: absent by VNET_NEEDS_ABSENT"; return 1 ;;
	esac
	case $w in
	root) [ "$(id -u)" = 0 ] || { echo "needs root: running as uid $(id -u)"; return 1; } ;;
	netns)
		[ "$(id -u)" = 0 ] || { echo "needs netns: network namespaces need root"; return 1; }
		command -v ip > /dev/null || { echo "needs netns: ip not found (apt-get install iproute2)"; return 1; }
		ns=vnet-needs-$$-$RANDOM
		ip netns add "$ns" 2> /dev/null || { echo "needs netns: ip netns add failed here"; return 1; }
		ip netns del "$ns" ;;
	tun) [ -c /dev/net/tun ] || { echo "needs tun: /dev/net/tun is not a character device (modprobe tun)"; return 1; } ;;
	vhost-net) [ -c /dev/vhost-net ] || { echo "needs vhost-net: /dev/vhost-net missing (modprobe vhost_net)"; return 1; } ;;
	dpdk) needs_cmd dpdk dpdk-testpmd dpdk || return 1 ;;
	qemu) needs_cmd qemu "${VNET_QEMU:-qemu-system-x86_64}" qemu-system-x86 || return 1 ;;
	qemu10) ns=$("$(dirname "${BASH_SOURCE[0]}")/../guest/lib/qemu10.sh" path) || { echo "needs qemu10: $ns"; return 1; } ;;
	busybox) needs_cmd busybox busybox busybox-static || return 1 ;;
	cpio) needs_cmd cpio cpio cpio || return 1 ;;
	python3) needs_cmd python3 python3 python3 || return 1 ;;
	cppcheck) needs_cmd cppcheck cppcheck cppcheck || return 1 ;;
	libvirt) needs_cmd libvirt libvirtd libvirt-daemon-system && needs_cmd libvirt virsh libvirt-clients || return 1 ;;
	systemd) needs_cmd systemd systemd-socket-activate systemd && needs_cmd systemd systemd-analyze systemd || return 1 ;;
	runuser) needs_cmd runuser runuser util-linux && needs_cmd runuser unshare util-linux || return 1 ;;
	man) needs_cmd man scdoc scdoc && needs_cmd man mandoc mandoc || return 1 ;;
	deb) needs_cmd deb dpkg-buildpackage dpkg-dev && needs_cmd deb dh debhelper && needs_cmd deb lintian lintian || return 1 ;;
	bash-completion) [ -f /usr/share/bash-completion/bash_completion ] ||
		{ echo "needs bash-completion: /usr/share/bash-completion/bash_completion missing (apt-get install bash-completion)"; return 1; } ;;
	promtool) needs_cmd promtool promtool prometheus || return 1 ;;
	ovs) needs_cmd ovs ovs-vswitchd openvswitch-switch && needs_cmd ovs ovsdb-server openvswitch-switch &&
		needs_cmd ovs ovs-vsctl openvswitch-switch || return 1 ;;
	esac
	return 0
}

# needs_cmd WORD COMMAND PACKAGE: COMMAND in PATH, else the reason naming the package
needs_cmd() {
	command -v "$2" > /dev/null && return 0
	echo "needs $1: $2 not found (apt-get install $3)"
	return 1
}

# needs_check FILE: probes every word of FILE's needs line; prints the first reason and
# returns 1 (absent) or 2 (unknown word), 0 when all are present
needs_check() {
	local w rc
	for w in $(needs_line "$1"); do
		[ "$w" = none ] && continue
		needs_probe "$w" || { rc=$?; return "$rc"; }
	done
	return 0
}
