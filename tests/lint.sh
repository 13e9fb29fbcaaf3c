#!/usr/bin/env bash
# tests/lint.sh - static analysis of every C file with cppcheck; fails on
# any finding. Skips (77) with a reason if cppcheck is not installed.
# needs: cppcheck
set -u
cd "$(dirname "$0")/.." || exit 1
bash tests/lint-includes.sh || exit 1
bash tests/lint-reasons.sh || exit 1
command -v cppcheck >/dev/null || { echo "SKIP: cppcheck not installed (apt-get install cppcheck)"; exit 77; }
out=$(cppcheck --quiet --std=c11 --enable=warning,portability,performance \
	--inline-suppr --error-exitcode=1 -D__linux__ -D_GNU_SOURCE \
	--suppress=missingIncludeSystem --suppress=unknownMacro \
	$(for d in src/*/; do printf -- "-I %s " "${d%/}"; done) src tests/unit fuzz 2>&1)
rc=$?
[ -n "$out" ] && echo "$out"
[ $rc = 0 ] && echo "cppcheck: clean"
exit $rc
