#!/usr/bin/env bash
# man-pages.sh - the man pages in docs/man/ build with scdoc, pass
# `mandoc -T lint` and list the same long options as each program's --help,
# both ways, so neither can drift: a flag added to a program without a man
# page entry fails here, and so does a man page entry for a flag that is gone.
# needs: man
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/common.sh
B=${VNET_BIN_DIR:-build}
for p in vnetd vnetctl vnet-bench; do
	need_built "$B/$p"
done
TMP=$(mktemp -d /tmp/man-pages.XXXXXX)
cleanup_path "$TMP"

# Long options a text names, one per line, sorted
opts() { grep -oE -- '--[a-z][a-z0-9-]*[a-z0-9]' | sort -u; }

# The help texts of a program: its --help and every subcommand's
help_of() {
	case $1 in
	vnetd)	"$B/vnetd" --help ;;
	vnetctl) for s in "" plan tap probe status port upgrade; do "$B/vnetctl" $s --help; done ;;
	vnet-bench) "$B/vnet-bench" --help; "$B/vnet-bench" ring --help ;;
	esac
}

for page in docs/man/vnetd.8.scd docs/man/vnetctl.8.scd docs/man/vnet-bench.1.scd; do
	name=${page##*/}; name=${name%.scd}; prog=${name%.*}
	if ! scdoc < "$page" > "$TMP/$name" 2> "$TMP/err"; then
		not_ok "$name: scdoc: $(cat "$TMP/err")"
		continue
	fi
	# scdoc puts .PP after .SH and between list items: cosmetic, and not ours
	lint=$(mandoc -T lint -W warning "$TMP/$name" 2>&1 | grep -v 'skipping paragraph macro')
	if [ -z "$lint" ]; then
		ok "$name: mandoc -T lint clean"
	else
		not_ok "$name: mandoc -T lint: $lint"
	fi
	# Man page options: the terms of its option lists (lines starting *-)
	grep -E '^\*-' "$page" | opts > "$TMP/man.opts"
	if ! help_of "$prog" > "$TMP/help" 2>&1; then
		not_ok "$prog --help failed: $(head -3 "$TMP/help")"
		continue
	fi
	opts < "$TMP/help" > "$TMP/help.opts"
	only_help=$(comm -23 "$TMP/help.opts" "$TMP/man.opts" | tr '\n' ' ')
	only_man=$(comm -13 "$TMP/help.opts" "$TMP/man.opts" | tr '\n' ' ')
	if [ -z "$only_help$only_man" ] && [ -s "$TMP/man.opts" ]; then
		ok "$name and $prog --help list the same $(wc -l < "$TMP/man.opts") options"
	else
		[ -n "$only_help" ] && not_ok "$prog: in --help but missing from $page: $only_help"
		[ -n "$only_man" ] && not_ok "$prog: in $page but missing from --help: $only_man"
		[ -s "$TMP/man.opts" ] || not_ok "$page: no option list found"
	fi
	# The sections an operator looks for
	for sec in SYNOPSIS DESCRIPTION "(OPTIONS|COMMANDS)" "EXIT STATUS" EXAMPLES "SEE ALSO"; do
		grep -qE "^# $sec\$" "$page" || not_ok "$page: no '# $sec' section"
	done
done
grep -q '^# CONFIGURATION FILE$' docs/man/vnetd.8.scd && grep -q '^# SIGNALS$' docs/man/vnetd.8.scd &&
	grep -q '^# FILES$' docs/man/vnetd.8.scd && ok "vnetd.8: configuration file, signals and files sections" ||
	not_ok "vnetd.8: CONFIGURATION FILE, SIGNALS or FILES section missing"
echo "1..$N"
exit $FAILED
