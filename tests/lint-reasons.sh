#!/usr/bin/env bash
# tests/lint-reasons.sh - one shape for a failure's reason.
#
# A function that can fail for a reason a person must read takes
# `struct reason *why` (src/base/reason.h) and fills it with reason_set();
# it does not write into a caller's `char *err, size_t errlen` buffer.
# This fails, naming file and line, on any parameter list in DIR that
# passes a reason as a char buffer and its size: `char *err, size_t ...`,
# `char *why, size_t ...`, `char *errbuf, size_t ...`, or any `size_t
# errlen` / `err_len` / `whylen`, also when split across lines. Output
# buffers (`char *buf, size_t len`) are not reasons and are left alone.
#
# Before looking at DIR it proves on a sample that the pattern matches,
# so a broken pattern cannot pass silently.
#
# Usage: tests/lint-reasons.sh [DIR]   (default src)
# Exit: 0 none found, 1 found (or the self-check failed), 77 if DIR or
#   perl is missing.
set -u
cd "$(dirname "$0")/.." || exit 1
dir=${1:-src}
[ -d "$dir" ] || { echo "SKIP: no directory $dir"; exit 77; }
command -v perl >/dev/null || { echo "SKIP: perl not installed"; exit 77; }

# Prints FILE:LINE: TEXT for each reason buffer parameter in the files given
scan() {
	perl -0777 -ne '
		while (/char\s*\*\s*(err|why|errbuf|errmsg|err_buf|reason)\w*\s*,\s*size_t\s+\w+
		       |size_t\s+(errlen|err_len|errsz|err_size|whylen|why_len)\b/gx) {
			my $at = $-[0];
			my $line = 1 + (substr($_, 0, $at) =~ tr/\n//);
			(my $m = $&) =~ s/\s+/ /g;
			print "$ARGV:$line: $m\n";
		}' "$@"
}

sample=$(mktemp) || exit 1
trap 'rm -f "$sample"' EXIT
printf 'int f(int a, char *err,\n\t size_t errlen);\nint g(char *buf, size_t len);\n' >"$sample"
if [ "$(scan "$sample" | wc -l)" != 1 ]; then
	echo "lint-reasons: self-check failed: the pattern does not find the sample's one reason buffer"
	exit 1
fi

mapfile -d '' files < <(find "$dir" -name '*.[ch]' -print0 | sort -z)
found=
[ ${#files[@]} -gt 0 ] && found=$(scan "${files[@]}")
if [ -n "$found" ]; then
	echo "$found"
	echo "lint-reasons: a reason travels as a char buffer above: take 'struct reason *why' and fill it with reason_set() (src/base/reason.h, docs/architecture.md)"
	exit 1
fi
echo "reasons: one shape (no char-buffer reason parameters in $dir)"
exit 0
