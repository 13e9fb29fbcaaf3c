#!/usr/bin/env bash
# tests/run.sh - run test programs and scripts, count their results, print
# "N passed, N failed, N skipped" as the last line, exit 1 on any failure.
#
# Usage: tests/run.sh [--lint] TEST...
#   Each TEST is an executable (unit test program) or a .sh script. A test
#   may print TAP lines ("ok N - name", "not ok N - name", "... # SKIP why");
#   each counts as one result. A test that prints none counts once, by exit
#   status: 0 pass, 77 skip (its last output line is shown as the reason),
#   anything else fail. A non-zero exit with TAP lines adds a failure unless
#   one of its lines already failed (a crash after the last case counts).
#   --lint runs tests/lint.sh first, as one test.
#   A script's "# needs: WORD..." line (tests/lib/needs.sh, docs/testing.md) is read
#   first: a need that is absent skips the script with the reason, a word outside the
#   vocabulary fails it. A program's needs are in PROGRAM.needs next to it (the
#   Makefile copies them there from the source's "/* needs: WORD... */" line);
#   a NAME.needs given as a TEST (build/tests/system/*) is passed over.
# python3 is the interpreter a version manager's shim would start (python-direct.sh).
# Environment: VNET_TEST_TIMEOUT (seconds per test, default 600),
#   VNET_TEST_VERBOSE=1 shows every test's output.
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/lib/needs.sh
PASS=0 FAIL=0 SKIP=0
TIMEOUT=${VNET_TEST_TIMEOUT:-600}
LOGDIR=$(mktemp -d /tmp/vnet-tests.XXXXXX)
# every test's python3 is the interpreter itself, not a version manager's shim
# (a folder others may read: tests run some steps as an unprivileged user)
PYDIR=$(mktemp -d /tmp/vnet-python.XXXXXX) && chmod 755 "$PYDIR"
trap 'rm -rf "$LOGDIR" "$PYDIR"' EXIT
. tests/lib/python-direct.sh
python_direct "$PYDIR"
FAILED_NAMES=()

# run_needs SCRIPT NAME: 0 when SCRIPT's needs are present; else counts a skip (absent)
# or a failure (unknown word), prints its line and returns 1
run_needs() {
	local why rc
	why=$(needs_check "$1"); rc=$?
	case $rc in
	0) return 0 ;;
	1) echo "SKIP  $2 (0.0s): $why"; SKIP=$((SKIP + 1)) ;;
	*) echo "FAIL  $2: '# needs:$(needs_line "$1")': $why"; FAIL=$((FAIL + 1)); FAILED_NAMES+=("$2") ;;
	esac
	return 1
}

run_one() {
	local t=$1 name log rc start end secs npass nfail nskip
	name=${t#./}
	log=$LOGDIR/$(echo "$name" | tr '/' '_').log
	case $t in
	*.sh) run_needs "$t" "$name" || return 0 ;;
	*) if [ -f "$t.needs" ]; then run_needs "$t.needs" "$name" || return 0; fi ;;
	esac
	start=$(date +%s.%N)
	case $t in
	*.sh) timeout -k 10 "$TIMEOUT" bash "$t" > "$log" 2>&1 < /dev/null ;;
	*)    timeout -k 10 "$TIMEOUT" "$t" > "$log" 2>&1 < /dev/null ;;
	esac
	rc=$?
	end=$(date +%s.%N)
	secs=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.1f", b-a}')
	npass=$(grep -cE '^ok [0-9]+' "$log" | head -1)
	nskip=$(grep -cE '^ok [0-9]+ .*# SKIP' "$log" | head -1)
	nfail=$(grep -cE '^not ok [0-9]+' "$log" | head -1)
	npass=$((npass - nskip))
	if [ $((npass + nskip + nfail)) -eq 0 ]; then
		case $rc in
		0)  npass=1 ;;
		77) nskip=1 ;;
		*)  nfail=1 ;;
		esac
	elif [ "$rc" != 0 ] && [ "$rc" != 77 ] && [ "$nfail" = 0 ]; then
		nfail=1		# crashed or timed out after its last case
	fi
	PASS=$((PASS + npass)); FAIL=$((FAIL + nfail)); SKIP=$((SKIP + nskip))
	if [ "$nfail" -gt 0 ]; then
		echo "FAIL  $name (${secs}s, rc=$rc): $npass passed, $nfail failed, $nskip skipped"
		grep -E '^not ok' "$log" | sed 's/^/      /'
		echo "      --- last lines of output ---"
		tail -n 25 "$log" | sed 's/^/      | /'
		FAILED_NAMES+=("$name")
	elif [ "$npass" = 0 ] && [ "$nskip" -gt 0 ]; then
		echo "SKIP  $name (${secs}s): $(grep -E '# SKIP' "$log" | head -1 | sed 's/.*# SKIP //')$( [ "$rc" = 77 ] && ! grep -q '# SKIP' "$log" && tail -n 1 "$log")"
	else
		if [ "$nskip" -gt 0 ]; then
			echo "PASS  $name (${secs}s): $npass passed, $nskip skipped"
		else
			echo "PASS  $name (${secs}s): $npass passed"
		fi
		grep -E '# SKIP' "$log" | sed 's/^/      /'
	fi
	[ "${VNET_TEST_VERBOSE:-0}" = 1 ] && sed 's/^/      | /' "$log"
	return 0
}

if [ "${1:-}" = --lint ]; then
	shift
	run_one tests/lint.sh
fi
for t in "$@"; do
	case $t in *.needs) continue ;; esac	# a program's declaration, not a test
	[ -e "$t" ] || { echo "FAIL  $t: missing"; FAIL=$((FAIL + 1)); continue; }
	run_one "$t"
done
if [ ${#FAILED_NAMES[@]} -gt 0 ]; then
	echo "failed: ${FAILED_NAMES[*]}"
fi
echo "$PASS passed, $FAIL failed, $SKIP skipped"
[ "$FAIL" = 0 ]
