#!/bin/sh
# SPDX-License-Identifier: MIT
# check_exports.sh TOOLS ARCHIVE HEADER... (make embed): ARCHIVE, one of
# the libkeel-heap flavours, may define as global only the API: names with
# a keel prefix that HEADER... (the headers a host includes) name. And a
# freestanding archive (TOOLS: its binutils prefix, "-" for the host's)
# may need from outside only the hooks (arch_*; and the GOT, which its
# linker makes), never libc.
set -eu
tools=$1
archive=$2
shift 2
[ "$tools" = - ] && tools=
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sed 's,/\*.*\*/,,; s,//.*,,' "$@" |
	grep -oE '\b(keel|heap|bootmem|frametable|cachemaint)_[A-Za-z0-9_]+\b' |
	sort -u >"$tmp/api"
"${tools}nm" -g --defined-only "$archive" | awk 'NF == 3 {print $3}' |
	sort -u >"$tmp/exported"
fail=0
if comm -23 "$tmp/exported" "$tmp/api" | grep . >"$tmp/extra"; then
	echo "embed: FAIL ($archive exports $(wc -l <"$tmp/extra") names outside the API: $(head -20 "$tmp/extra" | tr '\n' ' '))"
	fail=1
fi
# Not vacuous: the archive has the calls every host makes.
for name in heap_alloc heap_free heap_init bootmem_init frametable_init \
	keel_numa_init; do
	grep -qx "$name" "$tmp/exported" || {
		echo "embed: FAIL ($archive does not export $name)"
		fail=1
	}
done
case $archive in
*/sandbox*) ;; # hosted: libc's string functions come from the host's libc
*)
	"${tools}nm" -u "$archive" | awk '$1 == "U" {print $2}' |
		grep -v -e '^arch_' -e '^_GLOBAL_OFFSET_TABLE_$' |
		sort -u >"$tmp/needs" || true
	if [ -s "$tmp/needs" ]; then
		echo "embed: FAIL ($archive needs more than the hooks: $(tr '\n' ' ' <"$tmp/needs"))"
		fail=1
	fi
	;;
esac
[ $fail = 0 ] && echo "  EXPORTS $archive: $(wc -l <"$tmp/exported") API names, nothing else"
exit $fail
