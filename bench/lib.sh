# shellcheck shell=bash
# bench/lib.sh - what benchmark scripts share (source it; no side effects).
#
#   bench_machine WHEN   "# WHEN: CPU model, N CPUs, load average A B C": figures from
#                        different runs or machines do not compare; print it at the
#                        start and the end of a run
#   bench_median         the median of the numbers on stdin (two middle ones: their mean),
#                        "nan" if there are none

bench_machine() {
	echo "# $1: $(sed -n 's/^model name[[:space:]]*: //p;' /proc/cpuinfo | head -n 1)," \
	     "$(nproc) CPUs, load average $(cut -d ' ' -f 1-3 /proc/loadavg)"
}

bench_median() {
	sort -g | awk '{a[NR] = $1} END {print NR ? (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) : "nan"}'
}
