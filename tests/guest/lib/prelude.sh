# shellcheck shell=sh
# tests/guest/lib/prelude.sh - prepended (by vu-test.sh) to every guest script: checks that
# the host turns into TAP lines. Runs inside the guest under busybox sh.
#   gcheck NAME CMD...   runs CMD; prints "VNET-CHECK ok|FAIL <seconds> NAME"; CMD's verdict
#   gmark NAME           prints "VNET-MARK NAME" (the host waits for it, e.g. to restart vnetd)
#   gwait_oper STATE S   waits up to S seconds for eth0 operstate STATE
#   gping_wait IP S      waits up to S seconds for the first ping reply
#   gcombined            eth0's current combined channel count (ethtool -l)
#   giperf ARGS...       iperf3 client, prints the receiver bitrate line; fails on no traffic
gnow() { read -r u _ < /proc/uptime; echo "$u"; }
GFAILS=0
gcheck() {
	_n=$1; shift
	_t0=$(gnow)
	if "$@"; then _r=ok; else _r=FAIL; GFAILS=$((GFAILS + 1)); fi
	_t1=$(gnow)
	echo "VNET-CHECK $_r $(awk -v a="$_t0" -v b="$_t1" 'BEGIN{printf "%.1f", b-a}') $_n"
	[ $_r = ok ]
}
gmark() { echo "VNET-MARK $1"; }
gwait_oper() {
	_i=0
	while [ "$(cat /sys/class/net/eth0/operstate)" != "$1" ]; do
		[ $_i -ge $(($2 * 10)) ] && return 1
		sleep 0.1; _i=$((_i + 1))
	done
}
gping_wait() {
	_i=0
	while ! ping -c 1 -W 1 "$1" > /dev/null 2>&1; do
		_i=$((_i + 1)); [ $_i -ge "$2" ] && return 1
	done
	# not the loop's status: that is the body's last test, false after one lost ping
	return 0
}
gcombined() {
	ethtool -l eth0 | awk '/Current hardware settings/{c=1} c && /^Combined:/{print $2; exit}'
}
giperf() {
	_o=$(iperf3 "$@" 2>&1); _rc=$?
	echo "$_o" | grep -E 'receiver|error' | sed 's/^/  iperf3: /'
	[ $_rc = 0 ] || return 1
	# the receiver's byte count must be non-zero
	echo "$_o" | awk '/receiver/ {if ($5 + 0 > 0) ok = 1} END {exit !ok}'
}
gsum_eq() { # FILE SHA256
	[ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]
}
# gping_gaps FILE [SEQ]: one "VNET-GAP" line from a busybox ping log: replies
# received, pings lost, the longest run of missing ones, the longest round
# trip (a ping sent while the carrier is down waits in the qdisc: it comes
# back late, not lost), and where replies went missing; SEQ, the ping count
# when the event began, is printed with them
gping_gaps() {
	awk -v ms="${2:-0}" '/seq=/ { t = $0; sub(/.*time=/, "", t); t += 0; if (t > rtt) rtt = t
		sub(/.*seq=/, ""); s = $1 + 0
		if (n++ && s - last - 1 > 0) holes = holes " " last + 1 "-" s - 1
		if (n > 1 && s - last - 1 > gap) gap = s - last - 1; last = s; got++ }
		END { printf "VNET-GAP received=%d last_seq=%d lost=%d max_gap_pings=%d max_rtt_ms=%.0f event_at_seq~%d missing:%s\n",
		      got, last, last + 1 - got, gap, rtt, ms, holes }' "$1"
}
