#!/usr/bin/env bash
# package-deb.sh - the Debian package: `dpkg-buildpackage -us -uc -b` in a
# temporary copy of the tree, lintian on the .deb (no error or warning),
# `apt-get install ./vnetd_*.deb`, then the installed programs: vnetd
# --version is the package version, vnetd --backend loop carries vnet-bench's
# frames for 1 s (sequence-checked), `man -w` finds the three pages, the
# vhost-user JSON parses and names /usr/sbin/vnetd, the completions and any
# contrib/systemd units are there. Purges the package at the end. Prints TAP.
# needs: root deb man
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
for t in apt-get python3; do
	command -v $t >/dev/null || skip_all "$t not installed"
done
[ -f debian/control ] || skip_all "no debian/ directory"
if dpkg-query -W -f='${Status}' vnetd 2>/dev/null | grep -q installed; then
	skip_all "a vnetd package is already installed; not touching it (apt-get purge vnetd first)"
fi
TMP=$(mktemp -d /tmp/package-deb.XXXXXX)
cleanup_path "$TMP"
PID= INSTALLED=0
APT=(apt-get -y -q -o DPkg::Lock::Timeout=300)
# at exit, newest first: the installed vnetd, then the package (both read then)
# shellcheck disable=SC2016
cleanup_run '[ "$INSTALLED" = 1 ] && DEBIAN_FRONTEND=noninteractive "${APT[@]}" purge vnetd >/dev/null 2>&1'
# shellcheck disable=SC2016
cleanup_run 'stop_pid "$PID"'
bail()   { not_ok "$1"; echo "1..$N"; exit 1; }

# A clean copy: what git tracks plus new files it does not ignore
mkdir "$TMP/src"
if git rev-parse --git-dir >/dev/null 2>&1; then
	git ls-files -co --exclude-standard -z | tar --null -cf - -T - | tar -xf - -C "$TMP/src"
else
	tar --exclude=./build --exclude=./build-asan --exclude=./build-fuzz -cf - . |
		tar -xf - -C "$TMP/src"
fi
start=$(date +%s)
# -j: a compiler per CPU (dh builds with one job unless DEB_BUILD_OPTIONS says parallel)
if ! (cd "$TMP/src" && nice dpkg-buildpackage -us -uc -b -j"$(nproc)") > "$TMP/build.log" 2>&1; then
	sed 's/^/#   /' "$TMP/build.log" | tail -20
	bail "dpkg-buildpackage -us -uc -b failed"
fi
deb=$(ls "$TMP"/vnetd_*.deb 2>/dev/null | head -1)
[ -f "$deb" ] || bail "no vnetd_*.deb built"
ok "dpkg-buildpackage -us -uc -b: ${deb##*/} in $(( $(date +%s) - start )) s"

lint=$(lintian --fail-on error,warning "$deb" 2>&1); rc=$?
lint=$(grep -v 'running with root privileges' <<< "$lint")
if [ "$rc" = 0 ] && [ -z "$lint" ]; then
	ok "lintian: clean"
else
	not_ok "lintian (rc=$rc): $(tr '\n' ';' <<< "$lint")"
fi

if ! DEBIAN_FRONTEND=noninteractive "${APT[@]}" install "$deb" > "$TMP/apt.log" 2>&1; then
	sed 's/^/#   /' "$TMP/apt.log" | tail -10
	bail "apt-get install ./${deb##*/}"
fi
INSTALLED=1
ok "apt-get install ./${deb##*/}"

want="vnetd $(cd "$TMP/src" && dpkg-parsechangelog -S Version)"
got=$(/usr/sbin/vnetd --version 2>&1)
[ "$got" = "$want" ] && ok "/usr/sbin/vnetd --version: $got" || not_ok "vnetd --version: '$got', want '$want'"
for p in vnetctl vnet-bench; do
	v=$(/usr/bin/$p --version 2>&1)
	[ "$v" = "$p ${want#vnetd }" ] && ok "/usr/bin/$p --version" || not_ok "/usr/bin/$p --version: '$v'"
done

S=$TMP/vm.sock
/usr/sbin/vnetd --socket "$S" --backend loop --ctl-socket "$TMP/ctl.sock" 2> "$TMP/vnetd.log" &
PID=$!
for _ in $(seq 100); do [ -S "$S" ] && break; sleep 0.05; done
out=$(timeout 30 /usr/bin/vnet-bench --socket "$S" -d 1 --check-seq --json 2>&1); rc=$?
frames=$(grep -o '"rx_frames": [0-9]*' <<< "$out" | tail -1 | awk '{print $2}')
if [ "$rc" = 0 ] && grep -q '"ok": true' <<< "$out" && [ "${frames:-0}" -gt 0 ]; then
	ok "installed vnetd --backend loop carried $frames frames for vnet-bench in 1 s, in order"
else
	not_ok "vnet-bench against installed vnetd (rc=$rc): $(head -c 300 <<< "$out") / $(cat "$TMP/vnetd.log")"
fi
st=$(/usr/bin/vnetctl status --socket "$TMP/ctl.sock" 2>&1)
grep -q 'connections 1' <<< "$st" && ok "installed vnetctl status reaches it" || not_ok "vnetctl status: $st"
kill "$PID"; wait "$PID" 2>/dev/null; PID=

if command -v man >/dev/null; then
	for p in vnetd vnetctl vnet-bench; do
		m=$(man -w "$p" 2>&1) && ok "man -w $p: $m" || not_ok "man -w $p: $m"
	done
else
	for m in man8/vnetd.8.gz man8/vnetctl.8.gz man1/vnet-bench.1.gz; do
		[ -f /usr/share/man/$m ] && ok "/usr/share/man/$m (man-db absent: file checked)" ||
			not_ok "/usr/share/man/$m missing"
	done
fi
J=/usr/share/qemu/vhost-user/50-vnetd.json
if python3 -m json.tool "$J" >/dev/null 2>&1 &&
   [ "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["type"], d["binary"])' "$J")" = "net /usr/sbin/vnetd" ]; then
	ok "$J parses: type net, binary /usr/sbin/vnetd"
else
	not_ok "$J: $(cat "$J" 2>&1)"
fi
missing=
for c in vnetd vnetctl vnet-bench; do
	[ -f /usr/share/bash-completion/completions/$c ] || missing="$missing $c"
done
[ -z "$missing" ] && ok "bash completions installed" || not_ok "completions missing:$missing"
units=0 missing=
for u in contrib/systemd/*.service contrib/systemd/*.socket; do
	[ -f "$u" ] || continue
	units=$((units + 1))
	[ -f "/lib/systemd/system/${u##*/}" ] || [ -f "/usr/lib/systemd/system/${u##*/}" ] ||
		missing="$missing ${u##*/}"
done
[ -z "$missing" ] && ok "$units systemd unit(s) of contrib/systemd installed" || not_ok "units missing:$missing"

DEBIAN_FRONTEND=noninteractive "${APT[@]}" purge vnetd > "$TMP/apt.log" 2>&1 && INSTALLED=0
[ "$INSTALLED" = 0 ] && [ ! -e /usr/sbin/vnetd ] && [ ! -e /etc/vnetd/ports.conf ] &&
	ok "apt-get purge vnetd removes it, conffile included" || not_ok "purge: $(tail -3 "$TMP/apt.log")"
echo "1..$N"
exit $FAILED
