#!/usr/bin/env bash
# make-install.sh - `make install` into a DESTDIR with non-default PREFIX,
# SBINDIR, MANDIR, SYSCONFDIR and SYSTEMDUNITDIR puts every file where those
# say (vnetd in SBINDIR, the vhost-user JSON naming that vnetd, a unit per
# contrib/systemd/*.service|*.socket), keeps an operator's edited
# ports.conf, and `make uninstall` removes everything else. Prints TAP.
# needs: man
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
command -v python3 >/dev/null || skip_all "python3 not installed"
TMP=$(mktemp -d /tmp/make-install.XXXXXX)
cleanup_path "$TMP"
D=$TMP/root
VARS=(DESTDIR="$D" PREFIX=/opt/vn SBINDIR=/opt/vn/daemons MANDIR=/opt/man
      SYSCONFDIR=/opt/etc SYSTEMDUNITDIR=/opt/units)

if ! make -s install "${VARS[@]}" > "$TMP/log" 2>&1; then
	not_ok "make install: $(tail -5 "$TMP/log")"
	echo "1..$N"; exit 1
fi
missing=
for f in opt/vn/bin/vnetctl opt/vn/bin/vnet-bench opt/vn/daemons/vnetd \
	 opt/man/man8/vnetd.8 opt/man/man8/vnetctl.8 opt/man/man1/vnet-bench.1 \
	 opt/vn/share/qemu/vhost-user/50-vnetd.json opt/etc/vnetd/ports.conf \
	 opt/vn/share/bash-completion/completions/vnetd \
	 opt/vn/share/bash-completion/completions/vnetctl \
	 opt/vn/share/bash-completion/completions/vnet-bench; do
	[ -f "$D/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] && ok "every file where PREFIX, SBINDIR, MANDIR, SYSCONFDIR say" ||
	not_ok "missing:$missing ($(cd "$D" && find . -type f | tr '\n' ' '))"
[ -e "$D/opt/vn/sbin/vnetd" ] && not_ok "vnetd also in PREFIX/sbin"
bin=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["type"] == "net"; print(d["binary"])' \
	"$D/opt/vn/share/qemu/vhost-user/50-vnetd.json" 2>&1)
[ "$bin" = /opt/vn/daemons/vnetd ] && ok "50-vnetd.json: type net, binary \$SBINDIR/vnetd" ||
	not_ok "50-vnetd.json: binary '$bin'"
units=0 unit_missing=
for u in contrib/systemd/*.service contrib/systemd/*.socket; do
	[ -f "$u" ] || continue
	units=$((units + 1))
	[ -f "$D/opt/units/${u##*/}" ] || unit_missing="$unit_missing ${u##*/}"
	grep -q '/usr/sbin/vnetd' "$D/opt/units/${u##*/}" 2>/dev/null &&
		unit_missing="$unit_missing ${u##*/}(still names /usr/sbin/vnetd)"
done
[ -z "$unit_missing" ] && ok "$units systemd unit(s) from contrib/systemd in SYSTEMDUNITDIR" ||
	not_ok "units:$unit_missing"
v=$("$D/opt/vn/daemons/vnetd" --version)
[[ $v == "vnetd "* ]] && ok "installed vnetd --version: $v" || not_ok "installed vnetd --version: $v"

# An operator's edit survives install and uninstall
echo "name=mine socket=/run/x.sock backend=null" >> "$D/opt/etc/vnetd/ports.conf"
make -s install "${VARS[@]}" > "$TMP/log" 2>&1
grep -q name=mine "$D/opt/etc/vnetd/ports.conf" && ok "install keeps an edited ports.conf" ||
	not_ok "install overwrote ports.conf"
make -s uninstall "${VARS[@]}" > "$TMP/log" 2>&1
left=$(cd "$D" && find . -type f | sort | tr '\n' ' ')
[ "$left" = "./opt/etc/vnetd/ports.conf " ] && ok "uninstall removes everything but the edited ports.conf" ||
	not_ok "uninstall left: $left"
rm -f "$D/opt/etc/vnetd/ports.conf"
make -s install "${VARS[@]}" > "$TMP/log" 2>&1 && make -s uninstall "${VARS[@]}" > "$TMP/log" 2>&1
left=$(cd "$D" && find . -type f | tr '\n' ' ')
[ -z "$left" ] && ok "install + uninstall leaves no file" || not_ok "left: $left"
echo "1..$N"
exit $FAILED
