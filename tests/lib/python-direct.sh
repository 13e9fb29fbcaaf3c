# shellcheck shell=bash
# tests/lib/python-direct.sh - python3 without a version manager's shim (source it).
#
# Where python3 in PATH is a shim (pyenv's is a chain of bash scripts that picks the
# version and then execs it) each call costs about a second on a loaded 2-CPU machine
# before the interpreter starts; a test that runs python3 dozens of times waits that
# out, and an attacker or sender started in the background starts that much late.
# tests/run.sh calls it once for all the tests it runs.
#
#   python_direct DIR   when `python3` is not the interpreter it runs, link that
#                       interpreter as DIR/python3 and put DIR first in PATH (exported:
#                       child scripts get it too); otherwise, or without python3,
#                       change nothing. The same interpreter runs either way.

python_direct() {
	local dir=$1 exe
	command -v python3 > /dev/null || return 0
	exe=$(python3 -c 'import sys; print(sys.executable)' 2> /dev/null) || return 0
	[ -n "$exe" ] && [ -x "$exe" ] && [ "$(command -v python3)" != "$exe" ] || return 0
	mkdir -p "$dir" && ln -sf "$exe" "$dir/python3" && PATH=$dir:$PATH
}
