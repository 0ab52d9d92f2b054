#!/bin/sh
# SPDX-License-Identifier: MIT
# doc_lines.sh WORKDIR (make embed): run docs/embedding.md as a newcomer
# would, so that the page cannot drift from what works. Every line of its
# ```sh blocks runs, in order, in WORKDIR, with KEEL set to this tree and
# nothing inherited from make embed; the page's ```c example is
# WORKDIR/my_hv.c and tests/embed/host.c (with embed.h) its host.c.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
doc=$top/docs/embedding.md
work=$1

rm -rf "$work"
mkdir -p "$work"
cp "$top/tests/embed/host.c" "$top/tests/embed/embed.h" "$work/"
awk '/^```c$/ {f = 1; next} /^```$/ {f = 0} f' "$doc" >"$work/my_hv.c"
awk '/^```sh$/ {f = 1; next} /^```$/ {f = 0} f' "$doc" >"$work/lines.sh"

fail() {
	echo "embed: FAIL (docs/embedding.md: $1)"
	exit 1
}
grep -q 'main(' "$work/my_hv.c" || fail "no C example with a main()"
grep -q '^cc .* -c host.c my_hv.c' "$work/lines.sh" || fail "no compile line"
grep -q '^\./' "$work/lines.sh" || fail "no line runs the program"
! grep -q 'embed' "$work/lines.sh" || fail "a line runs make embed itself"

echo "  DOC     docs/embedding.md: $(grep -c . "$work/lines.sh") lines"
# A newcomer's shell: nothing of make embed's environment (it exports its
# command line, ARCH=sandbox SANITIZE=1, and MAKEFLAGS).
if ! (cd "$work" && env -i PATH="$PATH" HOME="${HOME:-/}" KEEL="$top" \
	sh -ex lines.sh) >"$work/log" 2>&1; then
	tail -30 "$work/log"
	fail "a line failed (the whole log: $work/log)"
fi
