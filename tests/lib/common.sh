# shellcheck shell=bash
# tests/lib/common.sh - what test scripts share (source it, don't run it): TAP output,
# skipping, stopping processes, waiting for sockets, network namespaces and cleanup at
# exit. Sourcing it installs an EXIT trap that runs the cleanups registered below; a script
# that sets its own EXIT trap calls cleanup_all from it.
#
#   ok NAME / not_ok NAME        one TAP line ("ok N - $TAP_PREFIX NAME"); N counts them,
#                                FAILS counts failures, FAILED is 1 after any
#   check NAME CMD...            ok or not_ok from CMD's exit status
#   tap_result ok|notok NAME [DETAIL]   ok NAME, or not_ok "NAME (DETAIL)"
#   ok_skip NAME WHY             "ok N - NAME # SKIP WHY"
#   skip_all WHY...              "SKIP: WHY", exit 77
#   need_built FILE...           skip_all unless each FILE is executable (run make)
#   stop_pid PID [SIG]           SIG (TERM), up to 5 s, then SIGKILL; waits; always 0
#   wait_sock PATH [SECS [PID]]  PATH becomes a socket within SECS (5); 1 if PID exits first
#   netns_new NS                 ip netns add NS + lo up, deleted at exit
#   cleanup_pid PID / cleanup_path PATH / cleanup_run CMD...   at exit: stop, rm -rf, run
#   bench_field NAME JSON        a number from the "total" object of vnet-bench --json
#   med                          the median of the numbers on stdin (two middle ones: their
#                                mean), for tests that re-derive a benchmark's table; kept
#                                apart from bench/lib.sh's so that a bug there shows
#   near A B [TOL]               |A - B| < TOL (0.015)

# shellcheck disable=SC2034  # N, FAILS, FAILED are read by the scripts that source this
N=0 FAILS=0 FAILED=0
TAP_PREFIX=${TAP_PREFIX:-}
CLEANUP_PIDS=() CLEANUP_NETNS=() CLEANUP_PATHS=() CLEANUP_CMDS=()

ok() { N=$((N + 1)); echo "ok $N - $TAP_PREFIX$*"; }
# shellcheck disable=SC2034
not_ok() { N=$((N + 1)); FAILS=$((FAILS + 1)); FAILED=1; echo "not ok $N - $TAP_PREFIX$*"; }
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}
tap_result() {
	if [ "$1" = ok ]; then ok "$2"; else not_ok "$2${3:+ ($3)}"; fi
}
# guest_checks TAG FILE RC: the "TAG-CHECK ok|FAIL NAME: DETAIL" lines a guest
# script printed (FILE: its console, \r removed) as TAP lines; none at all is
# a failure (the guest's last lines and RC, its exit status, are shown) and
# returns 1
guest_checks() {
	local tag=$1 file=$2 rc=$3 st rest name detail
	if ! grep -q "^$tag-CHECK " "$file"; then
		tail -n 30 "$file"
		tap_result notok "guest ran the checks" "guest rc=$rc, no $tag-CHECK output"
		return 1
	fi
	while read -r _ st rest; do
		name=${rest%%:*} detail=${rest#*: }
		if [ "$st" = ok ]; then tap_result ok "$name"; echo "#   $detail"
		else tap_result notok "$name" "$detail"; fi
	done < <(grep "^$tag-CHECK " "$file")
}
ok_skip() { N=$((N + 1)); echo "ok $N - $TAP_PREFIX$1 # SKIP $2"; }
skip_all() { echo "SKIP: $*"; exit 77; }
need_built() {
	local f
	for f in "$@"; do
		[ -x "$f" ] || skip_all "$f not built (run make)"
	done
}

stop_pid() {
	local p=$1 sig=${2:-TERM} _
	[ -n "$p" ] && kill -0 "$p" 2> /dev/null || return 0
	kill "-$sig" "$p" 2> /dev/null
	for _ in $(seq 50); do kill -0 "$p" 2> /dev/null || break; sleep 0.1; done
	kill -0 "$p" 2> /dev/null && kill -KILL "$p" 2> /dev/null
	wait "$p" 2> /dev/null
	return 0
}

wait_sock() {
	local path=$1 secs=${2:-5} pid=${3:-} _
	for _ in $(seq $((secs * 10))); do
		[ -S "$path" ] && return 0
		[ -n "$pid" ] && ! kill -0 "$pid" 2> /dev/null && return 1
		sleep 0.1
	done
	[ -S "$path" ]
}

netns_new() {
	ip netns add "$1" 2> /dev/null || return 1
	CLEANUP_NETNS+=("$1")
	ip -n "$1" link set lo up
}

# exec_for_user USER BIN DIR: a path to BIN that USER may execute: BIN itself, or a
# copy in DIR (a directory USER can reach) when the tree is not reachable by USER,
# as in a clone under a 0700 directory
exec_for_user() {
	if runuser -u "$1" -- test -x "$2" 2>/dev/null; then echo "$2"; return 0; fi
	cp "$2" "$3/" && chmod 755 "$3/${2##*/}" && echo "$3/${2##*/}"
}
cleanup_pid() { CLEANUP_PIDS+=("$1"); }
cleanup_path() { CLEANUP_PATHS+=("$1"); }
cleanup_run() { CLEANUP_CMDS+=("$*"); }

# cleanup_all: registered commands first (newest first), then processes, namespaces, paths
cleanup_all() {
	local i
	for ((i = ${#CLEANUP_CMDS[@]} - 1; i >= 0; i--)); do eval "${CLEANUP_CMDS[$i]}"; done
	CLEANUP_CMDS=()
	for i in "${CLEANUP_PIDS[@]+"${CLEANUP_PIDS[@]}"}"; do stop_pid "$i"; done
	CLEANUP_PIDS=()
	for i in "${CLEANUP_NETNS[@]+"${CLEANUP_NETNS[@]}"}"; do ip netns del "$i" 2> /dev/null; done
	CLEANUP_NETNS=()
	for i in "${CLEANUP_PATHS[@]+"${CLEANUP_PATHS[@]}"}"; do rm -rf "$i"; done
	CLEANUP_PATHS=()
}
trap cleanup_all EXIT

bench_field() {
	sed -n 's/.*"total": {\(.*\)}.*/\1/p' <<< "$2" | grep -o "\"$1\": [0-9.]*" | awk '{print $2}'
}

med() { sort -g | awk '{ v[n++] = $1 } END { if (n % 2) print v[(n - 1) / 2]; else print (v[n / 2 - 1] + v[n / 2]) / 2 }'; }
near() { awk -v a="$1" -v b="$2" -v t="${3:-0.015}" 'BEGIN { d = a - b; exit !(d < t && d > -t) }'; }
