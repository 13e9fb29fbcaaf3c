#!/usr/bin/env bash
# run-needs.sh - tests/run.sh's reading of "# needs:" lines: a script whose needs are
# present runs; an absent need skips it with the reason and without running it; a word
# outside the vocabulary fails it, naming the word; the same for a program's
# PROGRAM.needs. And every test script, system and bench C test in the tree carries
# a needs line whose words are all known (tests/lib/needs.sh), unit tests none.
# needs: none
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
. tests/lib/needs.sh
D=$(mktemp -d /tmp/vnet-run-needs.XXXXXX)
cleanup_path "$D"

# mk NAME NEEDS: a script that leaves $D/NAME.ran behind when it runs
mk() { printf '#!/usr/bin/env bash\n# needs: %s\ntouch %s/%s.ran\n' "$2" "$D" "$1" > "$D/$1.sh"; }
# run NAME [ENV...]: run.sh on $D/NAME.sh; OUT its output, RC its status
run() { local n=$1; shift; OUT=$(env "$@" tests/run.sh "$D/$n.sh" 2>&1); RC=$?; }

mk present none
run present
check "needs present: the script runs and passes" \
	bash -c '[ "$1" = 0 ] && [ -e "$2" ] && grep -q "^PASS .*present.sh" <<< "$3"' _ "$RC" "$D/present.ran" "$OUT"

mk absent "python3 dpdk"
run absent VNET_NEEDS_ABSENT=dpdk
check "absent need (VNET_NEEDS_ABSENT=dpdk): skipped with the reason, not run" \
	bash -c '[ "$1" = 0 ] && [ ! -e "$2" ] && grep -q "^SKIP .*absent.sh.*: needs dpdk: absent by VNET_NEEDS_ABSENT" <<< "$3" &&
		grep -q "^0 passed, 0 failed, 1 skipped" <<< "$3"' _ "$RC" "$D/absent.ran" "$OUT"

mk noqemu qemu
run noqemu VNET_QEMU=no-such-qemu-$$
check "qemu probed for real: 'needs qemu: no-such-qemu-$$ not found (apt-get install qemu-system-x86)'" \
	bash -c '[ "$1" = 0 ] && [ ! -e "$2" ] && grep -q "needs qemu: no-such-qemu-[0-9]* not found (apt-get install qemu-system-x86)" <<< "$3"' \
	_ "$RC" "$D/noqemu.ran" "$OUT"

mk unknown "root frobnicate"
run unknown
check "unknown word: a failure naming it and the vocabulary, not run" \
	bash -c '[ "$1" = 1 ] && [ ! -e "$2" ] && grep -q "^FAIL .*unknown.sh.*unknown need .frobnicate. (known: root " <<< "$3" &&
		grep -q "^0 passed, 1 failed, 0 skipped" <<< "$3"' _ "$RC" "$D/unknown.ran" "$OUT"

# a program's needs: PROGRAM.needs next to it (the Makefile writes it from the
# source's /* needs: */ line); same vocabulary, read before it runs
printf '#!/bin/sh\ntouch %s/prog.ran\n' "$D" > "$D/prog"
chmod +x "$D/prog"
echo '# needs: python3 dpdk' > "$D/prog.needs"
OUT=$(VNET_NEEDS_ABSENT=dpdk tests/run.sh "$D/prog" 2>&1); RC=$?
check "program with an absent need in PROG.needs: skipped with the reason, not run" \
	bash -c '[ "$1" = 0 ] && [ ! -e "$2" ] && grep -q "^SKIP .*prog .*: needs dpdk: absent by VNET_NEEDS_ABSENT" <<< "$3"' \
	_ "$RC" "$D/prog.ran" "$OUT"
OUT=$(tests/run.sh "$D/prog" 2>&1); RC=$?
check "program whose PROG.needs are present: runs and passes" \
	bash -c '[ "$1" = 0 ] && [ -e "$2" ] && grep -q "^PASS .*prog" <<< "$3"' _ "$RC" "$D/prog.ran" "$OUT"

# C tests: system and bench programs declare their needs with known words;
# unit tests declare none and reach for no root, TAP or namespace
cline() { sed -n 's|^/\* needs:\(.*\) \*/$|\1|p' "$1" | head -n 1; }
bad=''
for t in tests/system/test_*.c bench/test_*.c; do
	line=$(cline "$t")
	if [ -z "$line" ]; then bad="$bad $t(no line)"; continue; fi
	for w in $line; do
		[ "$w" = none ] || case " $NEEDS_WORDS " in *" $w "*) ;; *) bad="$bad $t($w)" ;; esac
	done
done
check "every system and bench C test says what it needs with known words${bad:+:$bad}" test -z "$bad"
bad=$(grep -lE '^/\* needs:|netns_testutil\.h|/dev/net/tun|geteuid\(\) != 0|unshare\(' tests/unit/test_*.c | tr '\n' ' ')
check "unit tests need nothing: no needs line, netns, TAP or root-only case${bad:+: $bad}" test -z "$bad"

bad=''
for t in tests/lint.sh tests/integration/*.sh tests/peers/*.sh tests/guest/test-*.sh; do
	line=$(needs_line "$t")
	if [ -z "$line" ]; then bad="$bad $t(no line)"; continue; fi
	for w in $line; do
		[ "$w" = none ] || case " $NEEDS_WORDS " in *" $w "*) ;; *) bad="$bad $t($w)" ;; esac
	done
done
check "every test script says what it needs with known words${bad:+:$bad}" test -z "$bad"
echo "1..$N"
exit $FAILED
