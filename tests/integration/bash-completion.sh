#!/usr/bin/env bash
# bash-completion.sh - contrib/bash-completion/: each program's completion
# offers its subcommands, its options (read from --help, so a new flag
# completes) and the fixed values of enum options. Prints TAP lines.
# needs: bash-completion
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
BC=/usr/share/bash-completion/bash_completion
need_built build/vnetd build/vnetctl build/vnet-bench
# shellcheck disable=SC1090
source $BC
PATH=$PWD/build:$PATH
for f in contrib/bash-completion/*; do source "$f"; done
t() { # FUNCTION WANT WORDS... (the last word is being completed)
	local fn=$1 want=$2 w
	shift 2
	COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
	$fn "$1"
	for w in $want; do
		if ! printf '%s\n' "${COMPREPLY[@]}" | grep -qx -- "$w"; then
			not_ok "'$*' completes $w (got: ${COMPREPLY[*]})"
			return
		fi
	done
	ok "'$*' -> ${COMPREPLY[*]}"
}
t _vnetd "--config --config-space" vnetd --con
t _vnetd "tap null loop" vnetd --backend ""
t _vnetd "--version --help --socket" vnetd --
t _vnetd "auto" vnetd --worker-threads ""
t _vnetd "--frontend-stall-ms" vnetd --frontend
t _vnetd "auto copy zerocopy" vnetd --xdp-mode ""
t _vnetd "s0,uplink=tap: s0,uplink-vlan= s0,uplink-trunk=" vnetd --switch s0,
t _vnetd "s0,uplink=tap:lo" vnetd --switch s0,uplink=tap:l
t _vnetctl "plan tap probe status port switch upgrade" vnetctl ""
t _vnetctl "list show" vnetctl switch ""
t _vnetctl "--json --socket" vnetctl switch show s0 --
t _vnetctl "--switch --vms --vlan --uplink --uplink-vlan --uplink-trunk" vnetctl plan --
t _vnetctl "tap:" vnetctl plan --uplink ""
t _vnetctl "tap:lo" vnetctl plan --uplink tap:l
t _vnetctl "add del list" vnetctl port ""
t _vnetctl "create delete" vnetctl tap ""
t _vnetctl "vhost-net" vnetctl probe ""
t _vnetctl "--queues" vnetctl tap create t0 --q
t _vnetctl "--json --prometheus --socket" vnetctl status --
t _vnetctl "--binary --help --socket" vnetctl upgrade --
t _vnetctl "libvirt qemu" vnetctl plan --output ""
t _vnet_bench "--spawn --spawn-backend" vnet-bench --sp
t _vnet_bench "ring" vnet-bench r
t _vnet_bench "ping-pong" vnet-bench --mode p
echo "1..$N"
exit $FAILED
