# mig-guest.sh - the guest side of the live-migration tests with two VMs
# (test-fabric-migrate.sh, test-switch-migrate.sh), appended to prelude.sh
# by the host side, which sets first: ROLE (A migrates, B stays), PEER (the
# other VM's address), C (the host's control server, mig-peer.py), WHERE
# (where the other VM is, for the check's name) and VIA (how the control
# server is reached, for the check's name; may be empty).
# Each VM serves 2 MiB of random data and its sha256 and downloads the
# other's in a loop, checked, until the host says done; B pings A every
# 20 ms meanwhile and reports the longest gap.
done_yet() { timeout 5 wget -q -O /dev/null http://$C:8080/done 2> /dev/null; }
down_loop() {
	n=0 bad=0
	until done_yet || [ $bad -ge 3 ]; do
		s=$(timeout 60 wget -q -O - http://$PEER:8080/blob | sha256sum | cut -d' ' -f1)
		n=$((n + 1))
		if [ "$s" = "$SUM" ]; then echo "VNET-XFER $n ok"; else bad=$((bad + 1)); echo "VNET-XFER $n BAD $s"; fi
	done
}
ping_gap() { # the longest run of missing replies in /tmp/ping.log, in 20 ms steps
	awk -F'seq=' '/bytes from/ {split($2, a, " "); s = a[1] + 0; if (k && s - p > m) m = s - p; p = s; k++}
		/packets transmitted/ {split($0, w, " "); t = w[1]; r = w[4]} END {printf "sent=%d received=%d gap_ms=%d\n", t, r, (m ? m : 1) * 20}' /tmp/ping.log
}
# each serves 2 MiB of its own random data and its sha256 (fw_cfg reads are slow under TCG)
mkdir -p /www && head -c 2097152 /dev/urandom > /www/blob && sha256sum /www/blob | cut -d' ' -f1 > /www/sum
httpd -p 8080 -h /www
peer_up() { # up to 90 s; sleep between tries: a failed neighbour makes ping fail at once
	i=0; while ! ping -c 1 -W 1 $PEER > /dev/null 2>&1; do i=$((i + 1)); [ $i -ge 90 ] && return 1; sleep 1; done
}
gcheck "ping the VM on $WHERE" peer_up
get_sum() { # up to 60 s while the other VM boots
	i=0; while [ $i -lt 60 ]; do SUM=$(wget -q -O - http://$PEER:8080/sum 2> /dev/null) && [ ${#SUM} = 64 ] && return 0; sleep 1; i=$((i + 1)); done; return 1
}
gcheck "the other VM's sha256 of its blob" get_sum
gcheck "reach the host's control server$VIA" gping_wait $C 30
gmark ready
if [ $ROLE = B ]; then ping -i 0.02 $PEER > /tmp/ping.log 2>&1 & P=$!; fi
down_loop
echo "VNET-RESULT $n $bad"
if [ $ROLE = B ]; then kill -INT $P; wait $P; echo "VNET-PING $(ping_gap)"; fi
gcheck "$n downloads from the other VM, every sha256 right" test "$bad" = 0 -a "$n" -gt 0
gmark stopped
end_yet() { # up to 120 s: the other VM may still be downloading from this one
	i=0; until timeout 5 wget -q -O /dev/null http://$C:8080/end 2> /dev/null; do i=$((i + 1)); [ $i -ge 600 ] && return 1; sleep 0.2; done
}
gcheck "the host let this VM power off" end_yet
