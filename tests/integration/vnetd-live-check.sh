#!/usr/bin/env bash
# needs: none
# vnetd-live-check.sh - regression test: a second vnetd started
# on a socket a running vnetd serves refuses ("in use"), and its check for a
# live socket (connect, close, no byte sent) is not a frontend connection in
# the first one: no "frontend connected/disconnected" line at info, the
# connection counter stays 0; at --log-level debug one line says what it was.
# A real frontend (vnet-bench) afterwards is counted and logged. Prints TAP.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
VNETD=${VNETD:-build/vnetd} BENCH=build/vnet-bench CTL=build/vnetctl
need_built "$VNETD" "$BENCH" "$CTL"
TMP=$(mktemp -d /tmp/vnetd-live.XXXXXX)
cleanup_path "$TMP"
S=$TMP/vm.sock C=$TMP/ctl.sock

"$VNETD" --socket "$S" --backend loop --ctl-socket "$C" --log-level debug \
	--name live 2>"$TMP/first.log" &
PID=$!; cleanup_pid "$PID"
for _ in $(seq 100); do [ -S "$S" ] && [ -S "$C" ] && break; sleep 0.05; done
[ -S "$S" ] || { not_ok "first vnetd did not listen: $(cat "$TMP/first.log")"; exit 1; }

err=$(timeout 10 "$VNETD" --socket "$S" --backend loop --ctl-socket "$TMP/ctl2.sock" 2>&1); rc=$?
if [ "$rc" != 0 ] && grep -q "in use by a running process" <<< "$err"; then
	ok "second vnetd refuses the live socket (rc=$rc)"
else
	not_ok "second vnetd (rc=$rc): $err"
fi
sleep 0.3
if grep -qE 'frontend (connected|disconnected)' "$TMP/first.log"; then
	not_ok "the check appears as a frontend in the first vnetd's log: $(grep frontend "$TMP/first.log")"
else
	ok "no 'frontend connected/disconnected' line for the check"
fi
if grep -q 'debug.*closed before its first byte\|closed before its first byte' "$TMP/first.log"; then
	ok "one debug line names it"
else
	not_ok "no debug line for the check: $(cat "$TMP/first.log")"
fi
st=$("$CTL" status --json --socket "$C")
if grep -q '"connections":0,' <<< "$st"; then
	ok "connections counter still 0"
else
	not_ok "connections counter: $st"
fi

# A frontend that speaks is counted and logged
timeout 30 "$BENCH" --socket "$S" -d 0.3 >/dev/null 2>&1
st=$("$CTL" status --json --socket "$C")
if grep -q '"connections":1,' <<< "$st" &&
   grep -qE 'frontend (pid [0-9]+ )?connected on' "$TMP/first.log"; then
	ok "a real frontend is counted (1) and logged"
else
	not_ok "real frontend: $st / $(grep frontend "$TMP/first.log")"
fi
echo "1..$N"
exit $FAILED
