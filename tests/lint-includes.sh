#!/usr/bin/env bash
# tests/lint-includes.sh - prove that src/lib and src/driver have no include
# cycle, and that the device side stands alone: no file of src/lib (what
# vnetd runs) includes a header of src/driver (the driver side: our own
# rings, the vhost-user frontend) or calls a function defined there.
#
# Builds the include graph of src/lib between modules and fails printing
# every cycle ("cycle: a -> b -> a"). A module is a .c file with the
# header named after it (foo.c and foo.h are module foo). An include of
# foo.h by bar.c is an edge bar -> foo, and also an edge to every other
# .c that defines a function foo.h declares and bar.c calls: a private
# header shared by several files (declaring functions of each) thus shows
# the cycle it hides. A header that declares no function defined in a .c
# (types, inline helpers) is a module of its own; what a header includes
# counts for every file that defines what it declares.
#
# The boundary: a quoted or angled include in src/lib/*.[ch] of a file that
# src/driver has and src/lib has not, or of a path through a driver/
# folder, fails ("boundary: src/lib/x.c includes driver-side vq_drv.h").
# With the archives built (build/libvnet.a, build/libvnet-driver.a, or
# $BUILD/...), a symbol that libvnet.a leaves undefined and
# libvnet-driver.a defines fails too ("boundary: libvnet.a calls
# driver-side vq_drv_add"): then vnetd, which links only libvnet.a, could
# not hold the driver side out.
#
# Usage: tests/lint-includes.sh [DIR]   (default: src/lib and src/driver,
#   each alone, and the boundary between them; with DIR, only DIR's cycles)
# Environment: VNET_INCLUDE_IGNORE="p1 p2": modules whose name starts with
#   one of these prefixes are left out of the graph (cycles being fixed
#   elsewhere); each ignored prefix is printed. VNET_INCLUDE_EDGES=1 also
#   prints the graph, one "edge: a -> b" line per edge.
# Exit: 0 no cycle (and no boundary crossed), 1 cycle or crossing found,
# 77 if DIR is missing or awk is absent.
set -u
cd "$(dirname "$0")/.." || exit 1
command -v awk >/dev/null || { echo "SKIP: awk not installed"; exit 77; }
if [ $# -gt 0 ]; then
	[ -d "$1" ] || { echo "SKIP: no directory $1"; exit 77; }
	dirs=$1
else
	dirs="src/lib src/driver"
fi
for p in ${VNET_INCLUDE_IGNORE:-}; do
	echo "note: ignoring modules $p* (VNET_INCLUDE_IGNORE)"
done

# One line per fact, for awk below:
#   def FILE.c FUNC     a non-static function defined at column 0
#   decl FILE.h FUNC    a prototype at column 0 of a header
#   use FILE WORD       an identifier FILE mentions
#   inc FILE INCLUDED   a quoted include of a file in $dir
facts() {
	local dir=$1 f inc
	for f in "$dir"/*.c; do
		sed -n 's/^\([a-z][^(;]*[ *]\)\{0,1\}\([A-Za-z_][A-Za-z0-9_]*\)(.*[^;]$/\2/p' "$f" |
			grep -v '^\(if\|for\|while\|switch\|return\|sizeof\)$' |
			sed "s|^|def $(basename "$f") |"
	done
	for f in "$dir"/*.h; do
		awk '/^(static|typedef|#|struct|union|enum|extern)/ { next }
		     /^[a-z][^(]*[ *][A-Za-z_][A-Za-z0-9_]*\(/ {
			s = $0; sub(/\(.*/, "", s); n = split(s, w, /[ *]+/)
			print "decl " w[n] }' "$f" | sed "s|^decl |decl $(basename "$f") |"
	done
	for f in "$dir"/*.c "$dir"/*.h; do
		grep -ow '[A-Za-z_][A-Za-z0-9_]*' "$f" | sort -u |
			sed "s|^|use $(basename "$f") |"
		sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
		while read -r inc; do
			[ -f "$dir/$inc" ] && echo "inc $(basename "$f") $inc"
		done
	done
}

# The cycle check of one folder: prints its verdict, exit 0 or 1
acyclic() {
facts "$1" | awk -v dir="$1" -v ignore="${VNET_INCLUDE_IGNORE:-}" -v show="${VNET_INCLUDE_EDGES:-0}" '
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

# The device side stands alone: src/lib includes nothing of src/driver
boundary_includes() {
	local f inc bad=0

	for f in src/lib/*.c src/lib/*.h; do
		while read -r inc; do
			case $inc in
			*driver/*) ;;
			*) [ -f "src/driver/${inc##*/}" ] && [ ! -f "src/lib/$inc" ] || continue ;;
			esac
			echo "boundary: $f includes driver-side $inc"
			bad=1
		done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]\([^">]*\)[">].*/\1/p' "$f")
	done
	return $bad
}

# ... and calls nothing of it: what libvnet.a leaves undefined, the driver
# archive may not define (checked where both are built)
boundary_symbols() {
	local b=${BUILD:-build} sym bad=0

	[ -f "$b/libvnet.a" ] && [ -f "$b/libvnet-driver.a" ] || {
		echo "note: $b/libvnet.a or $b/libvnet-driver.a not built: symbol boundary not checked"
		return 0
	}
	command -v nm >/dev/null || { echo "note: nm not installed: symbol boundary not checked"; return 0; }
	for sym in $(comm -12 <(nm -u "$b/libvnet.a" | awk '{ print $2 }' | sort -u) \
			       <(nm --defined-only -g "$b/libvnet-driver.a" | awk 'NF == 3 { print $3 }' | sort -u)); do
		echo "boundary: libvnet.a calls driver-side $sym"
		bad=1
	done
	return $bad
}

rc=0
for d in $dirs; do
	[ -d "$d" ] || { echo "SKIP: no directory $d"; exit 77; }
	acyclic "$d" || rc=1
done
if [ $# -eq 0 ]; then
	boundary_includes && boundary_symbols && echo "boundary: src/lib reaches nothing of src/driver" || rc=1
fi
exit $rc
