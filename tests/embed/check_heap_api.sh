#!/bin/sh
# SPDX-License-Identifier: MIT
# check_heap_api.sh MAX CFLAGS... (make embed): keel/heap.h is the runtime
# API on one screen (issue 37): it may declare at most MAX functions,
# inline or not. The compiler counts them (gcc -aux-info lists every
# function a translation unit declares or defines, with the file and line
# that does), so neither a macro trick nor a new style of declaration
# hides one. CFLAGS: how a host compiles it (-Iinclude -include its
# configuration).
#
# Then the check proves it can fail: a copy of the header with functions
# added up to MAX must pass and one with MAX + 1 must fail.
set -eu
max=$1
shift
cc=${CC:-gcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
top=$(cd "$(dirname "$0")/../.." && pwd)

# count INCDIR CFLAGS...: the functions INCDIR/keel/heap.h declares.
count() {
	inc=$1
	shift
	printf '#include <keel/heap.h>\n' >"$tmp/t.c"
	"$cc" -std=gnu11 -fsyntax-only -I"$inc" "$@" -aux-info "$tmp/aux" \
		"$tmp/t.c" 2>"$tmp/err" || { cat "$tmp/err" >&2; echo 0; return; }
	grep -c '^/\* [^ ]*/keel/heap\.h:[0-9]*:' "$tmp/aux" || true
}

# judge INCDIR CFLAGS...: the verdict on INCDIR/keel/heap.h (0: at most
# MAX functions; 1, with the reason, when more; 2 when none is counted).
judge() {
	have=$(count "$@")
	if [ "$have" -eq 0 ]; then
		echo "embed: FAIL ($1/keel/heap.h: no function counted)"
		return 2
	fi
	if [ "$have" -gt "$max" ]; then
		echo "embed: FAIL ($1/keel/heap.h declares $have functions," \
			"more than $max: the runtime API on one screen; setup" \
			"calls go to keel/heap_boot.h)"
		return 1
	fi
}

# grow N: a copy of heap.h in $tmp/N/keel with N declarations more.
grow() {
	mkdir -p "$tmp/$1/keel"
	awk -v n="$1" '/^#ifdef __cplusplus$/ && ++seen == 2 {
		for (i = 0; i < n; i++) printf "void heap_api_extra_%d(void);\n", i
	} {print}' "$top/include/keel/heap.h" >"$tmp/$1/keel/heap.h"
}

judge "$top/include" "$@" || exit 1
real=$have
grow $((max - real))
grow $((max + 1 - real))
judge "$tmp/$((max - real))" "$@" >"$tmp/at_max" || {
	cat "$tmp/at_max"
	echo "embed: FAIL (check_heap_api.sh refuses a header of $max functions)"
	exit 1
}
if judge "$tmp/$((max + 1 - real))" "$@" >"$tmp/above" ||
	[ "$have" != $((max + 1)) ]; then
	echo "embed: FAIL (check_heap_api.sh let a header of $((max + 1)) functions pass)"
	exit 1
fi
echo "  HEAP-API keel/heap.h: $real functions (at most $max; a copy with $max passes, with $((max + 1)) fails)"
