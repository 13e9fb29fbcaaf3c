#!/usr/bin/env bash
# tests/lint.sh - static analysis of every C file with cppcheck; fails on
# any finding (run.sh skips it, saying why, where cppcheck is absent).
# needs: cppcheck
set -u
cd "$(dirname "$0")/.." || exit 1
bash tests/lint-includes.sh || exit 1
bash tests/lint-reasons.sh || exit 1
out=$(cppcheck -j "$(nproc)" --quiet --std=c11 --enable=warning,portability,performance \
	--inline-suppr --error-exitcode=1 -D__linux__ -D_GNU_SOURCE -D__CPPCHECK__ \
	--suppress=missingIncludeSystem --suppress=unknownMacro \
	$(for d in src/*/; do printf -- "-I %s " "${d%/}"; done) -I tests/unit \
	src tests/unit tests/system bench/test_*.c fuzz 2>&1)
rc=$?
[ -n "$out" ] && echo "$out"
[ $rc = 0 ] && echo "cppcheck: clean"
exit $rc
