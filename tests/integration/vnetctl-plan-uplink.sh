#!/usr/bin/env bash
# vnetctl-plan-uplink.sh - what `vnetctl plan --switch NAME --vms N --uplink
# tap:IF --bridge BR` prints runs as printed: vnetd started with the printed
# command line (its sockets /run/vnetd/vmK.sock, in a mount namespace of its
# own with /run a tmpfs, and a network namespace of its own) takes it, creates
# the uplink's TAP and lists the uplink with the plan's VLANs in vnetctl
# status; the printed host lines then put that TAP on the bridge (made here,
# as the operator would have). Once with an access uplink on the VMs' VLAN,
# once with a trunk uplink. The golden test checks the text of the plan; this
# one that vnetd and ip take it.
# needs: root netns tun
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
VNETD=${VNETD:-build/vnetd}
VNETCTL=${VNETCTL:-build/vnetctl}
need_built "$VNETD" "$VNETCTL"
command -v unshare > /dev/null || skip_all "unshare not found (apt-get install util-linux)"
TMP=$(mktemp -d /tmp/vnetctl-plan-uplink.XXXXXX)
cleanup_path "$TMP"

# inside CASE PLANFILE: (in the new namespaces) the plan's vnetd line and host
# lines run; one "CASE-CHECK ok|FAIL NAME: DETAIL" line per check
# shellcheck disable=SC2317  # run through bash -c, by run_case
inside() {
	local tag=$1 plan=$2 line host pid i st
	# /sys of this network namespace: the bridge's MAC pin reads it
	if ! mount -t tmpfs plan-uplink /run || ! mount -t sysfs sysfs /sys; then
		echo "$tag-CHECK FAIL tmpfs on /run, sysfs on /sys: mount failed"
		return 1
	fi
	ip link set lo up
	ip link add pbr0 type bridge && ip link set pbr0 up
	# the command: from "vnetd --switch" to the line without a trailing '\'
	line=$(sed -n '/^vnetd --switch /,/[^\\]$/p' "$plan" | sed 's/ \\$//' | tr '\n' ' ')
	host=$(sed -n '/^# host:/,/^$/p' "$plan" | grep -v '^#' | grep -v '^$')
	read -r -a args <<< "$line"
	"$VNETD" "${args[@]:1}" --ctl-socket /run/ctl.sock > "$TMP/$tag.log" 2>&1 &
	pid=$!
	st=ok
	for i in 1 2; do
		wait_sock "/run/vnetd/vm$i.sock" 5 "$pid" || st=FAIL
	done
	echo "$tag-CHECK $st vnetd takes the printed line: ${line}"
	[ "$st" = ok ] || { sed 's/^/#   /' "$TMP/$tag.log"; return 1; }
	for i in $(seq 50); do
		ip link show "$UPIF" > /dev/null 2>&1 && break
		sleep 0.1
	done
	st=$("$VNETCTL" status -s /run/ctl.sock 2>&1 | grep "uplink tap:$UPIF")
	if [[ "$st" == "switch ps0: uplink tap:$UPIF, $WANT_VLANS, "* ]]; then
		echo "$tag-CHECK ok vnetctl status lists the uplink with the plan's VLANs: $st"
	else
		echo "$tag-CHECK FAIL vnetctl status lists the uplink with the plan's VLANs: want '$WANT_VLANS', got '$st'"
	fi
	if (set -e; eval "$host") > "$TMP/$tag.host" 2>&1 &&
	   ip -o link show "$UPIF" | grep -q " master pbr0 "; then
		echo "$tag-CHECK ok the printed host lines put $UPIF on pbr0: $(echo "$host" | tr '\n' ';')"
	else
		echo "$tag-CHECK FAIL the printed host lines put $UPIF on pbr0: $(tr '\n' ' ' < "$TMP/$tag.host") $(ip -o link show "$UPIF")"
	fi
	st=FAIL
	kill -0 "$pid" 2> /dev/null && st=ok
	echo "$tag-CHECK $st vnetd still runs after the host lines: pid $pid"
	stop_pid "$pid"
}

# run_case TAG WANT_VLANS PLAN-ARGS...: plan, then the plan's lines in new namespaces
run_case() {
	local tag=$1 want=$2 rc
	shift 2
	if ! "$VNETCTL" plan --vcpus 2 --switch ps0 --vms 2 --bridge pbr0 --qemu-version 7.2 \
		"$@" > "$TMP/$tag.plan" 2> "$TMP/$tag.err"; then
		not_ok "$tag: vnetctl plan $* refused: $(cat "$TMP/$tag.err")"
		return
	fi
	UPIF=$(sed -n 's/^vnetd --switch [^,]*,uplink=tap:\([^ ,]*\).*/\1/p' "$TMP/$tag.plan")
	export UPIF WANT_VLANS=$want TMP VNETD VNETCTL
	timeout 60 unshare -n -m --propagation private \
		bash -c ". tests/lib/common.sh; $(declare -f inside); inside $tag $TMP/$tag.plan" \
		> "$TMP/$tag.out" 2>&1
	rc=$?
	TAP_PREFIX="$tag: " guest_checks "$tag" "$TMP/$tag.out" "$rc"
}

run_case access "vlan 10" --vlan 10 --uplink tap:psup0
run_case trunk "trunk 10,20-30" --vlan 20 --uplink tap:psup1 --uplink-trunk 10,20-30
exit $FAILED
