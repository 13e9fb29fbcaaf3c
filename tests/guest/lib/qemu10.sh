#!/usr/bin/env bash
# tests/guest/lib/qemu10.sh - QEMU 10 for the migration test, next to Debian's QEMU 7.2.
# Debian 12's QEMU 7.2 under TCG corrupts its own guests when it live-migrates them (no
# vhost-user involved), so tests/guest/test-migrate.sh runs QEMU 10 from
# bookworm-backports, unpacked into the guest cache and never installed: the system QEMU
# stays the default for every other test.
#
# usage: qemu10.sh path    print a qemu-system-x86_64 of major version >= 10 and exit 0:
#                          $VNET_QEMU10, else $VNET_QEMU or the one in PATH when >= 10,
#                          else the unpacked one in the cache; else print why, exit 1
#        qemu10.sh fetch   (root) add the bookworm-backports apt source if no source
#                          names it, apt-get download qemu-system-x86 and its data
#                          packages from it, dpkg-deb -x them into $CACHE/qemu-bpo;
#                          a no-op when that QEMU is already there. Prints its path.
# Environment: VNET_GUEST_CACHE (default tests/guest/cache), VNET_QEMU10, VNET_QEMU.
set -uo pipefail

Q10_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
Q10_TOP=$(cd "$Q10_DIR/../../.." && pwd)
CACHE=${VNET_GUEST_CACHE:-$Q10_TOP/tests/guest/cache}
DEST=$CACHE/qemu-bpo
BIN=$DEST/usr/bin/qemu-system-x86_64
SRC=/etc/apt/sources.list.d/vnet-bookworm-backports.sources

q10_log() { echo "[qemu10] $*" >&2; }

# q10_major QEMU: its major version (0 when it does not run)
q10_major() {
	"$1" --version 2> /dev/null | awk 'NR == 1 {split($4, v, "."); print v[1] + 0; exit}' | grep . || echo 0
}

q10_path() {
	local q
	for q in ${VNET_QEMU10:-} "${VNET_QEMU:-qemu-system-x86_64}" "$BIN"; do
		q=$(command -v "$q" 2> /dev/null) || continue
		[ "$(q10_major "$q")" -ge 10 ] && { echo "$q"; return 0; }
	done
	if [ -x "$BIN" ]; then
		echo "QEMU 10 in $DEST does not run: $("$BIN" --version 2>&1 | head -n 1)"
	else
		echo "no QEMU >= 10 (Debian's is $(q10_major "${VNET_QEMU:-qemu-system-x86_64}")): as root run tests/deps.sh or tests/guest/lib/qemu10.sh fetch (bookworm-backports, unpacked into $DEST)"
	fi
	return 1
}

# q10_source: a bookworm-backports apt source, from the mirror the machine already uses
q10_source() {
	local uri
	apt-cache policy qemu-system-x86 2> /dev/null | grep -q bookworm-backports && return 0
	if ! grep -rqs bookworm-backports /etc/apt/sources.list /etc/apt/sources.list.d/; then
		uri=$(grep -rhoE '^(URIs:[[:space:]]*|deb[[:space:]]+)[^[:space:]]+' \
			/etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2> /dev/null |
			awk '{print $NF}' | grep -v security | head -n 1)
		[ -n "$uri" ] || { q10_log "no Debian apt source to derive bookworm-backports from"; return 1; }
		q10_log "adding $SRC ($uri)"
		printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
			"$uri" > "$SRC" || return 1
	fi
	apt-get update -qq >&2
}

q10_fetch() {
	local tmp d
	if [ -x "$BIN" ] && [ "$(q10_major "$BIN")" -ge 10 ]; then echo "$BIN"; return 0; fi
	[ "$(id -u)" = 0 ] || { q10_log "fetch needs root (apt)"; return 1; }
	q10_source || return 1
	mkdir -p "$CACHE" || return 1
	tmp=$(mktemp -d /tmp/vnet-qemu10.XXXXXX) && chmod 777 "$tmp"	# apt drops to _apt
	if ! (cd "$tmp" && apt-get download -q qemu-system-x86/bookworm-backports \
		qemu-system-data/bookworm-backports qemu-system-common/bookworm-backports >&2); then
		rm -rf "$tmp"; q10_log "apt-get download from bookworm-backports failed"; return 1
	fi
	rm -rf "$DEST" && mkdir -p "$DEST" || return 1
	for d in "$tmp"/*.deb; do dpkg-deb -x "$d" "$DEST" || { rm -rf "$tmp" "$DEST"; return 1; }; done
	rm -rf "$tmp"
	if ldd "$BIN" | grep -q 'not found'; then
		ldd "$BIN" | grep 'not found' >&2
		q10_log "the backported QEMU lacks shared libraries (apt-get install them)"
		return 1
	fi
	q10_log "$("$BIN" --version | head -n 1) in $DEST"
	echo "$BIN"
}

case ${1:-} in
path) q10_path ;;
fetch) q10_fetch ;;
*) echo "usage: qemu10.sh path|fetch" >&2; exit 2 ;;
esac
