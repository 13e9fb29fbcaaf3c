# mig-pair.sh - the host side that the live-migration tests with two VMs share
# (test-fabric-migrate.sh, test-switch-migrate.sh; the guests run
# mig-guest.sh): waiting for a guest's console marks, counting its finished
# downloads, and the end of the run, once VM-A runs on the destination.
# Sourced after vu-test.sh; uses VT_W, GPIDS and XB0 (B's downloads before
# the migration).

# mp_wait_mark LOG NAME SECS: wait for "VNET-MARK NAME" on a console
mp_wait_mark() {
	local _
	for _ in $(seq $(($3 * 10))); do grep -aq "VNET-MARK $2" "$1" && return 0; sleep 0.1; done
	tail -n 10 "$1" | sed 's/^/# console: /'
	return 1
}

# mp_xfers LOG...: downloads finished so far
mp_xfers() { grep -ac '^VNET-XFER' "$@"; }

# mp_talk_out SRC DST: VM-A moved from SRC to DST (names for the output):
# let both VMs finish a download after the switch-over, stop them, collect
# their checks and check the downloads, their ends and B's pings (sets
# $ping and $gap, B's longest run of lost pings in ms)
mp_talk_out() {
	local p _ cA cB XA XB r secs name
	for _ in $(seq 600); do
		[ "$(mp_xfers "$VT_W/console-A2.log")" -gt 0 ] && [ "$(mp_xfers "$VT_W/console-B.log")" -gt "$XB0" ] && break
		sleep 0.1
	done
	XA=$(mp_xfers "$VT_W/console-A2.log") XB=$(mp_xfers "$VT_W/console-B.log")
	echo "# downloads finished: A $(mp_xfers "$VT_W/console-A1.log") on $1 + $XA on $2; B $XB0 before the migration + $((XB - XB0)) after"
	touch "$VT_W/done"
	mp_wait_mark "$VT_W/console-A2.log" stopped 120 || vt_notok "VM-A stopped its downloads on $2"
	mp_wait_mark "$VT_W/console-B.log" stopped 120 || vt_notok "VM-B stopped its downloads"
	touch "$VT_W/done.end"
	for p in "${GPIDS[@]}"; do
		for _ in $(seq 600); do kill -0 "$p" 2> /dev/null || break; sleep 0.1; done
	done
	cA=$(cat "$VT_W/console-A1.log" "$VT_W/console-A2.log" | tr -d '\r')
	cB=$(tr -d '\r' < "$VT_W/console-B.log")
	while read -r _ r secs name; do
		if [ "$r" = ok ]; then vt_ok "VM-A: $name (${secs}s)"; else vt_notok "VM-A: $name (${secs}s)"; fi
	done < <(grep -a '^VNET-CHECK ' <<< "$cA")
	while read -r _ r secs name; do
		if [ "$r" = ok ]; then vt_ok "VM-B: $name (${secs}s)"; else vt_notok "VM-B: $name (${secs}s)"; fi
	done < <(grep -a '^VNET-CHECK ' <<< "$cB")
	grep -a 'VNET-XFER.*BAD\|VNET-RESULT' <<< "$cA" | sed 's/^/# VM-A: /'
	grep -a 'VNET-XFER.*BAD\|VNET-RESULT\|VNET-PING' <<< "$cB" | sed 's/^/# VM-B: /'
	vt_check "VM-A downloaded from VM-B across the switch-over ($XA after it)" test "$XA" -gt 0
	vt_check "VM-B downloaded from VM-A across the switch-over ($((XB - XB0)) after it)" test "$XB" -gt "$XB0"
	vt_check "VM-A ran to its end on $2 (VNET-GUEST-EXIT status=0)" grep -aq 'VNET-GUEST-EXIT status=0' "$VT_W/console-A2.log"
	vt_check "VM-B ran to its end (VNET-GUEST-EXIT status=0)" grep -aq 'VNET-GUEST-EXIT status=0' <<< "$cB"
	ping=$(grep -a -m1 -o 'VNET-PING .*' <<< "$cB")
	gap=$(sed -n 's/.*gap_ms=\([0-9]*\).*/\1/p' <<< "$ping")
	vt_check "B's 20 ms pings to A came back ($ping)" test "${gap:-0}" -gt 0
}
