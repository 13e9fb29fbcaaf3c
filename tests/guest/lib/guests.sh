# shellcheck shell=bash
# tests/guest/lib/guests.sh - several guests in one scenario, each under a name (source it
# after vu-test.sh; vt_init sets up the work dir, kernel and image first).
#
#   gs_start ID [--ctl] ARGS... < SCRIPT
#       boot guest ID in the background: prelude.sh in front of SCRIPT, console in
#       $VT_W/ID.console, ARGS go to guest.sh run (they may end in -- QEMU ARGS). --ctl gives the guest a line channel from
#       the host: a second serial port (/dev/ttyS1 in the guest, a FIFO pair here) that
#       gs_send writes and the guest's gs_recv (prepended with --ctl) reads.
#   gs_wait ID          wait for QEMU to exit; 0 when the guest booted (its READY marker
#                       is on the console), 1 when it never did (a TCG boot that panicked
#                       or hung under load: the caller may boot it again)
#   gs_report ID        TAP lines from ID's VNET-CHECK lines (guest: ID: NAME (Ns)), a failure
#                       for a guest that timed out or whose QEMU failed
#   gs_mark_wait ID NAME SECS   wait for "VNET-MARK NAME" on ID's console (1: ID exited first)
#   gs_running ID       ID's guest.sh run is still running
#   gs_send ID LINE     one line to ID's --ctl channel (5 s at most)
#   gs_kill ID          stop ID's guest.sh run (and with it QEMU)
# GS_RC[ID] holds guest.sh run's exit status after gs_wait.

declare -A GS_PID=() GS_RC=() GS_T0=()

gs_cleanup() {
	local id
	for id in "${!GS_PID[@]}"; do gs_kill "$id"; done
}
cleanup_run gs_cleanup

# guest side of the --ctl channel, put after prelude.sh
gs_ctl_prelude() {
	cat << 'EOF'
# the host's lines arrive on /dev/ttyS1; opened once, before the host may write (a port
# opened later would drop what its FIFO held)
exec 3< /dev/ttyS1
stty -F /dev/ttyS1 raw -echo 2> /dev/null
# gs_recv WORD: read lines from the host until one is WORD
gs_recv() { while read -r _l <&3; do [ "$_l" = "$1" ] && return 0; done; return 1; }
EOF
}

gs_start() {
	local id=$1 ctl='' extra=() sep=(--) a
	shift
	[ "${1:-}" = --ctl ] && { ctl=1; shift; }
	# ARGS may end in "-- QEMU ARGS" already: the serial port joins them
	for a in "$@"; do [ "$a" = -- ] && sep=(); done
	{
		cat "$VT_LIB/prelude.sh"
		[ -n "$ctl" ] && gs_ctl_prelude
		cat
		# shellcheck disable=SC2016  # expands in the guest
		echo 'exit $GFAILS'
	} > "$VT_W/$id.script"
	: > "$VT_W/$id.console"
	rm -f "$VT_W/$id.qpid"
	if [ -n "$ctl" ]; then
		rm -f "$VT_W/$id.ser.in" "$VT_W/$id.ser.out"
		mkfifo "$VT_W/$id.ser.in" "$VT_W/$id.ser.out"
		extra=("${sep[@]+"${sep[@]}"}" -serial "pipe:$VT_W/$id.ser")
	fi
	GS_T0[$id]=$SECONDS
	"$VT_GUEST" run --initrd "$VT_INITRD" --script "$VT_W/$id.script" \
		--pidfile "$VT_W/$id.qpid" --log "$VT_W/$id.console" "$@" "${extra[@]+"${extra[@]}"}" \
		> /dev/null 2> "$VT_W/$id.run.log" &
	GS_PID[$id]=$!
}

gs_booted() { grep -aq 'VNET-GUEST-READY' "$VT_W/$1.console"; }

gs_running() { [ -n "${GS_PID[$1]:-}" ] && kill -0 "${GS_PID[$1]}" 2> /dev/null; }

gs_wait() {
	local id=$1 rc ready
	[ -n "${GS_PID[$id]:-}" ] || { gs_booted "$id"; return; }
	wait "${GS_PID[$id]}"; rc=$?
	unset "GS_PID[$id]"
	GS_RC[$id]=$rc
	ready=$(grep -a -m1 -o 'VNET-GUEST-READY uptime=[0-9.]*' "$VT_W/$id.console" | cut -d= -f2)
	vt_step "guest $id ran ${ready:+(kernel+init to READY ${ready}s) }in $((SECONDS - GS_T0[$id]))s, exit $rc"
	gs_booted "$id" && return 0
	echo "# guest $id did not boot (guest.sh run rc=$rc); console:"
	tr -d '\r' < "$VT_W/$id.console" | grep -av '^$' | tail -n 8 | sed "s/^/#   $id: /"
	return 1
}

gs_report() {
	local id=$1 res secs name rc=${GS_RC[$1]:-}
	tr -d '\r' < "$VT_W/$id.console" | grep -avE '^VNET-CHECK|^$' | tail -n 40 | sed "s/^/# $id: /"
	while read -r _ res secs name; do
		if [ "$res" = ok ]; then vt_ok "guest $id: $name (${secs}s)"
		else vt_notok "guest $id: $name (${secs}s)"; fi
	done < <(grep -a '^VNET-CHECK ' "$VT_W/$id.console" | tr -d '\r')
	if [ "$rc" = 124 ] || [ "$rc" = 125 ]; then
		tail -n 5 "$VT_W/$id.run.log" | sed "s/^/# $id run: /"
		vt_notok "guest $id finished (guest.sh run rc=$rc: timeout or QEMU failure)"
	fi
	[ "$(grep -ac 'VNET-GUEST-READY' "$VT_W/$id.console")" -le 1 ] || vt_notok "guest $id booted more than once"
}

gs_mark_wait() {
	local id=$1 _
	for _ in $(seq $(($3 * 5))); do
		grep -aq "VNET-MARK $2" "$VT_W/$id.console" && return 0
		[ -n "${GS_PID[$id]:-}" ] && kill -0 "${GS_PID[$id]}" 2> /dev/null || return 1
		sleep 0.2
	done
	return 1
}

# shellcheck disable=SC2016  # sh's own arguments
gs_send() { timeout 5 sh -c 'echo "$1" > "$2"' sh "$2" "$VT_W/$1.ser.in"; }

gs_kill() {
	local id=$1
	[ -n "${GS_PID[$id]:-}" ] || return 0
	vt_kill_pid "${GS_PID[$id]}"
	[ -s "$VT_W/$id.qpid" ] && vt_kill_pid "$(cat "$VT_W/$id.qpid")"
	unset "GS_PID[$id]"
}
