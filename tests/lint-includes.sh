#!/usr/bin/env bash
# tests/lint-includes.sh - prove that the source folders form layers: no
# include cycle, no folder reaching one above it or beside it, and the
# device side standing alone (vnetd links nothing of the driver side or
# the planner).
#
# The layers, from the bottom (LAYERS below; a folder may include headers
# of its own folder and of folders of a lower rank only):
#   0 base       util, log, reason, iov, mac, ids, ...
#   1 ring       guest memory and the virtqueues, device side
#   1 proto      vhost-user framing, shared by device and driver sides
#   1 host       host sides behind host.h (tap, af_xdp, null, loop, gen)
#   1 plan       the planner and provisioning (vnetctl only)
#   2 vhost-net  the kernel's vhost-net, one fd per pair
#   2 datapath   a pair's TX/RX, anti-spoofing, the worker threads
#   2 driver     the driver side: our own rings, the vhost-user frontend
#   3 device     the vhost-user device: sessions, memory, rings, upgrade
# and the programs, each with the folders it may use (PROGRAMS below):
# vnetd everything but plan and driver, vnetctl everything but driver,
# vnet-bench everything but plan. A violation prints
# "layer: src/ring/vq.c includes datapath/net.h (ring may use: base)".
#
# Cycles: the include graph of the library folders together (libvnet
# and the planner), and of src/driver, src/vnetd and src/vnetctl each,
# between modules; fails printing every cycle ("cycle: a -> b -> a"). A module is a .c file with the
# header named after it (foo.c and foo.h are module foo). An include of
# foo.h by bar.c is an edge bar -> foo, and also an edge to every other
# .c that defines a function foo.h declares and bar.c calls: a private
# header shared by several files (declaring functions of each) thus shows
# the cycle it hides. A header that declares no function defined in a .c
# (types, inline helpers) is a module of its own; what a header includes
# counts for every file that defines what it declares.
#
# Symbols: with the archives built (build/libvnet.a, build/libvnet-plan.a,
# build/libvnet-driver.a, or $BUILD/...), a symbol that libvnet.a leaves
# undefined and the driver or planner archive defines fails ("boundary:
# libvnet.a calls driver-side vq_drv_add"): vnetd, which links only
# libvnet.a, then could not hold them out.
#
# Sources, not headers: no file of src/, tests/ or fuzz/ includes a .c
# file ("c-include: tests/unit/x.c includes ../../src/vnetd/y.c"); a test
# links the file instead (Makefile: <test>_LINK) and includes its header.
#
# Usage: tests/lint-includes.sh [DIR...]   (default: everything above;
#   with DIRs, only the cycles of those folders taken together)
# Environment: VNET_INCLUDE_IGNORE="p1 p2": modules whose name starts with
#   one of these prefixes are left out of the graph (cycles being fixed
#   elsewhere); each ignored prefix is printed. VNET_INCLUDE_EDGES=1 also
#   prints the graph, one "edge: a -> b" line per edge.
# Exit: 0 no cycle and no layer crossed, 1 otherwise, 77 if a DIR is
# missing or awk is absent.
set -u
cd "$(dirname "$0")/.." || exit 1
command -v awk >/dev/null || { echo "SKIP: awk not installed"; exit 77; }

LAYERS="base:0 ring:1 proto:1 host:1 plan:1 vhost-net:2 datapath:2 driver:2 device:3"
LIBVNET="base ring proto host vhost-net datapath device"
PROGRAMS="vnetd:$LIBVNET;vnetctl:$LIBVNET plan;vnet-bench:$LIBVNET driver"
for p in ${VNET_INCLUDE_IGNORE:-}; do
	echo "note: ignoring modules $p* (VNET_INCLUDE_IGNORE)"
done

# One line per fact, for awk below:
#   def FILE.c FUNC     a non-static function defined at column 0
#   decl FILE.h FUNC    a prototype at column 0 of a header
#   use FILE WORD       an identifier FILE mentions
#   inc FILE INCLUDED   a quoted include of a file in one of the folders
# One awk over all the files (a process per file made this script take most
# of lint.sh's time), .c files before headers; the cycle check reads the
# includes in that order.
facts() {
	local files
	files=$(shopt -s nullglob; printf '%s\n' $(printf '%s/*.c ' "$@") $(printf '%s/*.h ' "$@"))
	[ -n "$files" ] || return 0
	# shellcheck disable=SC2086  # file names have no spaces
	awk -v dirs="$*" '
	function name(f) { sub(/.*\//, "", f); return f }
	# a quoted include resolves to a file in one of the folders
	function present(inc,    i, p, line, r) {
		for (i = 1; i <= ndir; i++) {
			p = dir[i] "/" inc
			r = (getline line < p); close(p)
			if (r >= 0) return 1
		}
		return 0
	}
	BEGIN { ndir = split(dirs, dir, " ") }
	FNR == 1 { f = name(FILENAME); isc = FILENAME ~ /\.c$/; delete seen }
	isc && /^([a-z][^(;]*[ *])?[A-Za-z_][A-Za-z0-9_]*\(.*[^;]$/ {
		s = $0; sub(/\(.*/, "", s); sub(/.*[ *]/, "", s)
		if (s !~ /^(if|for|while|switch|return|sizeof)$/) print "def " f " " s
	}
	!isc && !/^(static|typedef|#|struct|union|enum|extern)/ && /^[a-z][^(]*[ *][A-Za-z_][A-Za-z0-9_]*\(/ {
		s = $0; sub(/\(.*/, "", s); n = split(s, w, /[ *]+/)
		print "decl " f " " w[n]
	}
	{
		n = split($0, w, /[^A-Za-z0-9_]+/)
		for (i = 1; i <= n; i++)
			if (w[i] ~ /^[A-Za-z_]/ && !(w[i] in seen)) { seen[w[i]]; print "use " f " " w[i] }
	}
	/^[ \t]*#[ \t]*include[ \t]*"[^"]*"/ {
		s = $0; sub(/^[^"]*"/, "", s); sub(/".*/, "", s)
		if (present(s)) print "inc " f " " s
	}
	' $files
}

# The cycle check of folders taken together: prints its verdict, exit 0 or 1
acyclic() {
facts "$@" | awk -v dir="$*" -v ignore="${VNET_INCLUDE_IGNORE:-}" -v show="${VNET_INCLUDE_EDGES:-0}" '
function base(f) { sub(/\.[ch]$/, "", f); return f }
function ignored(m,    i) { for (i = 1; i <= nign; i++) if (index(m, ign[i]) == 1) return 1; return 0 }
# Modules a header stands for when it includes: the files defining what it
# declares, or itself if none
function owners_of(h, out,    k, p, n) {
	delete out; n = 0
	for (k in owner) { split(k, p, SUBSEP); if (p[1] == h) { out[owner[k]] = 1; n++ } }
	if (!n) out[base(h)] = 1
}
# Modules an include of @h by @f reaches: @h own module (a .c of its name,
# or @h itself if it declares nothing defined in a .c), plus the files
# defining the functions of @h that @f uses (a header @f: all of them)
function reached(f, h, out,    k, p, n) {
	delete out; n = 0
	if (base(h) ".c" in isc) out[base(h)] = 1
	for (k in owner) {
		split(k, p, SUBSEP)
		if (p[1] != h) continue
		n++
		if (f ~ /\.h$/ || (f, p[2]) in used) out[owner[k]] = 1
	}
	if (!n) out[base(h)] = 1
}
function add(a, b) {
	if (a == b || ignored(a) || ignored(b)) return
	if (!((a, b) in edge)) {
		edge[a, b] = 1; adj[a] = adj[a] " " b; nedges++
		if (show == 1) print "edge: " a " -> " b
	}
	nodes[a]; nodes[b]
}
BEGIN { nign = split(ignore, ign, " ") }
$1 == "def"  { defd[$3] = base($2); isc[$2] = 1 }
$1 == "decl" { decl[$2, $3] = 1 }
$1 == "use"  { used[$2, $3] = 1 }
$1 == "inc"  { incs[++ninc] = $2 " " $3 }
END {
	for (k in decl) { split(k, p, SUBSEP); if (p[2] in defd) owner[p[1], p[2]] = defd[p[2]] }
	for (i = 1; i <= ninc; i++) {
		split(incs[i], e, " ")
		if (e[1] ~ /\.c$/) { delete from; from[base(e[1])] = 1 }
		else owners_of(e[1], from)
		reached(e[1], e[2], to)
		for (a in from) for (b in to) add(a, b)
	}
	for (s in nodes) dfs(s, s, s, 0)
	nn = 0; for (s in nodes) nn++
	if (found) { printf "include graph of %s: %d cycle(s)\n", dir, found; exit 1 }
	printf "include graph of %s: no cycle (%d modules, %d edges)\n", dir, nn, nedges
}
# Elementary cycles through @start whose other modules all sort after it:
# each cycle is printed once, from its smallest module
function dfs(start, node, path, depth,    n, i, nx, list) {
	onpath[node] = 1
	n = split(adj[node], list, " ")
	for (i = 1; i <= n; i++) {
		nx = list[i]
		if (nx == start) {
			print "cycle: " path " -> " start
			found++
		} else if (!(nx in onpath) && nx > start && depth < 64) {
			dfs(start, nx, path " -> " nx, depth + 1)
		}
	}
	delete onpath[node]
}'
}

# rank_of FOLDER: its rank in LAYERS, empty if it has none
rank_of() {
	local l
	for l in $LAYERS; do [ "${l%%:*}" = "$1" ] && { echo "${l#*:}"; return; }; done
}

# The folders FOLDER may include from besides its own: those of a lower
# rank, or a program's list
allowed() {
	local f=$1 r l p
	local IFS=';'
	for p in $PROGRAMS; do
		[ "${p%%:*}" = "$f" ] && { echo "${p#*:}"; return 0; }
	done
	unset IFS
	r=$(rank_of "$f")
	[ -n "$r" ] || return 1
	for l in $LAYERS; do [ "${l#*:}" -lt "$r" ] && printf '%s ' "${l%%:*}"; done
	return 0
}

# Every include of every src/FOLDER/*.[ch] resolved to its folder (its own
# first, then the first src/*/ holding a file of that name), checked against
# what that folder may use; one awk lists the includes of all the files
layers() {
	local dir folder f inc found any bad=0 n=0
	local -A ok=() home=()
	for dir in src/*/; do
		folder=$(basename "$dir") any=
		for f in "$dir"*.[ch]; do
			[ -f "$f" ] || continue
			any=1
			[ -n "${home[${f##*/}]:-}" ] || home[${f##*/}]=$folder
		done
		[ -n "$any" ] || continue
		ok[$folder]=" $(allowed "$folder") " || {
			echo "layer: src/$folder is in no layer: add it to LAYERS or PROGRAMS in $0"
			unset "ok[$folder]"
			bad=1
		}
	done
	while read -r f inc; do
		dir=${f%/*}/ folder=${dir%/}; folder=${folder##*/}
		[ -n "${ok[$folder]+x}" ] || continue
		[ -f "$dir$inc" ] && continue
		found=${home[${inc##*/}]:-}
		[ -n "$found" ] || continue
		n=$((n + 1))
		case ${ok[$folder]} in *" $found "*) continue ;; esac
		echo "layer: $f includes $found/${inc##*/} ($folder may use:${ok[$folder]})"
		bad=1
	done < <(awk '/^[ \t]*#[ \t]*include[ \t]*["<][^">]*[">]/ {
			s = $0; sub(/^[^"<]*["<]/, "", s); sub(/[">].*/, "", s); print FILENAME " " s }' src/*/*.[ch])
	[ $bad = 0 ] && echo "layers: $n includes across folders, each to a lower layer ($LAYERS)"
	return $bad
}

# What libvnet.a (all vnetd links) leaves undefined, the driver and planner
# archives may not define (checked where they are built)
boundary_symbols() {
	local b=${BUILD:-build} sym bad=0 side

	command -v nm >/dev/null || { echo "note: nm not installed: symbol boundary not checked"; return 0; }
	for side in driver plan; do
		[ -f "$b/libvnet.a" ] && [ -f "$b/libvnet-$side.a" ] || {
			echo "note: $b/libvnet.a or $b/libvnet-$side.a not built: symbol boundary not checked"
			continue
		}
		for sym in $(comm -12 <(nm -u "$b/libvnet.a" | awk '{ print $2 }' | sort -u) \
				       <(nm --defined-only -g "$b/libvnet-$side.a" | awk 'NF == 3 { print $3 }' | sort -u)); do
			echo "boundary: libvnet.a calls $side-side $sym"
			bad=1
		done
	done
	[ $bad = 0 ] && echo "boundary: libvnet.a calls nothing of libvnet-driver.a or libvnet-plan.a"
	return $bad
}

# No quoted include of a .c file anywhere in src/, tests/ or fuzz/
no_c_includes() {
	local hits
	hits=$(grep -rnE --include='*.[ch]' '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*\.c"' src tests fuzz 2>/dev/null |
	       sed -E 's/^([^:]*):[0-9]+:[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)".*/c-include: \1 includes \2/')
	[ -z "$hits" ] && { echo "c-include: no file of src, tests or fuzz includes a .c file"; return 0; }
	echo "$hits"
	return 1
}

rc=0
if [ $# -gt 0 ]; then
	for d in "$@"; do [ -d "$d" ] || { echo "SKIP: no directory $d"; exit 77; }; done
	acyclic "$@" || rc=1
	exit $rc
fi
# shellcheck disable=SC2046  # folder names have no spaces
acyclic $(printf 'src/%s ' $LIBVNET plan) || rc=1
acyclic src/driver || rc=1
acyclic src/vnetd || rc=1
acyclic src/vnetctl || rc=1
layers || rc=1
no_c_includes || rc=1
boundary_symbols || rc=1
exit $rc
