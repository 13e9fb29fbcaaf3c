#!/usr/bin/env bash
# tests/deps.sh - install every Debian 12 package the build and the tests use, so that a
# run of `make check` skips nothing CI runs. One list: .ci/run and `make deps` call this,
# and `make check` runs it first when root (unless VNET_NO_DEPS=1).
#
# As root: installs what is missing (apt-get update first when something is), exit 0, or
# apt's exit status with the tail of its log. Not root: prints the list and a note, exit 0.
# --list: print the list and exit.
set -u
PKGS=(
	# build and static analysis
	build-essential clang llvm cppcheck pkg-config libseccomp-dev libcap-ng-dev
	liburing-dev libxdp-dev libbpf-dev
	# integration tests: namespaces, TAPs, frame injectors, counters
	iproute2 ethtool iperf3 procps psmisc python3 kmod util-linux
	# real peers and the test guest
	dpdk dpdk-dev qemu-system-x86 busybox-static cpio
	# service, metrics, documentation and packaging checks
	systemd prometheus scdoc mandoc man-db libxml2-utils
	debhelper devscripts fakeroot lintian dpkg-dev bash-completion
	# libvirt's own QEMU driving the test guest (tests/guest/test-libvirt.sh)
	libvirt-daemon-system libvirt-clients libvirt-daemon-driver-qemu
	# Open vSwitch, userspace datapath, across two hosts (tests/guest/test-fabric-ovs.sh)
	openvswitch-switch
)
if [ "${1:-}" = --list ]; then
	printf '%s\n' "${PKGS[@]}"
	exit 0
fi
# QEMU 10 for tests/guest/test-migrate.sh: from bookworm-backports, unpacked into the
# guest cache and not installed, so Debian's QEMU 7.2 stays every other test's QEMU
qemu10() {
	[ "$(id -u)" = 0 ] || return 0
	"$(dirname "$0")/guest/lib/qemu10.sh" fetch > /dev/null 2> /tmp/vnet-deps-qemu10.log ||
		{ tail -n 5 /tmp/vnet-deps-qemu10.log; echo "deps: no QEMU 10 (test-migrate.sh skips)"; }
}
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} = 0 ]; then
	echo "deps: all ${#PKGS[@]} packages the tests use are installed"
	qemu10
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "deps: not root, installing nothing; tests that need these skip with a reason."
	echo "deps: as root run 'make deps' (or: apt-get install ${missing[*]})"
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
log=/tmp/vnet-deps-apt.log
echo "deps: installing ${missing[*]}"
{ apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; } \
	> "$log" 2>&1 || { rc=$?; tail -n 40 "$log"; echo "deps: apt-get failed (exit $rc), log $log"; exit "$rc"; }
echo "deps: installed ${#missing[@]} packages"
qemu10
