#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make check`: every test step, each run even when an earlier one failed,
# then one summary line. Exit status is non-zero when any step failed.
set -uo pipefail
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
J=${CHECK_JOBS:-$(nproc)}

steps=(
	"unit tests (ASan+UBSan)|$MAKE --no-print-directory -j$J unit"
	"the heap embedded: libkeel-heap.a in a program that is not keel|$MAKE --no-print-directory -j$J embed"
	"fuzz smoke|$MAKE --no-print-directory fuzz-smoke"
	"sandbox build|$MAKE --no-print-directory -j$J ARCH=sandbox all"
	"sandbox end to end|$MAKE --no-print-directory ARCH=sandbox sandbox-test"
	"hostile firmware maps|$MAKE --no-print-directory fuzz-maps-smoke"
)
[ -f tests/tsan.mk ] && steps+=("sandbox stress under TSan|$MAKE --no-print-directory -j$J tsan-test")
[ -f tests/scripts_test.py ] && steps+=("scripts, schema, trace and plot|$MAKE --no-print-directory scripts-test")
[ -f arch/x86_64/arch.mk ] && steps+=(
	"x86_64 build|$MAKE --no-print-directory -j$J ARCH=x86_64 all"
	"x86_64 QEMU boot matrix|$MAKE --no-print-directory ARCH=x86_64 qemu-test")
[ -f arch/arm64/arch.mk ] && steps+=(
	"arm64 build|$MAKE --no-print-directory -j$J ARCH=arm64 all"
	"arm64 QEMU boot matrix|$MAKE --no-print-directory ARCH=arm64 qemu-test")
steps+=("layers: calls go arch -> boot -> common -> lib (nm)|$MAKE --no-print-directory -j$J check-layers"
	"format|$MAKE --no-print-directory check-format"
	"code size (files <= 800 lines, functions <= 60)|/usr/bin/python3 scripts/check-size.py")

passed=0 failed=0 failures=() t0=$(date +%s)
for s in "${steps[@]}"; do
	name=${s%%|*} cmd=${s#*|}
	echo "=== $name: $cmd"
	start=$(date +%s)
	if bash -c "$cmd"; then
		passed=$((passed + 1))
		echo "=== $name: ok ($(($(date +%s) - start)) s)"
	else
		failed=$((failed + 1))
		failures+=("$name")
		echo "=== $name: FAILED ($(($(date +%s) - start)) s)"
	fi
done
for f in "${failures[@]}"; do echo "failed step: $f"; done
echo "=== all steps: $(($(date +%s) - t0)) s, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
