#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Compile the DT fixtures tests/data/*.dts to OUTDIR/*.dtb (default
# build/sandbox-asan/tests/data) for the unit tests and the fuzz corpus.
# Only out-of-date blobs are rebuilt. Usage: dtbs.sh [OUTDIR]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/sandbox-asan/tests/data}
mkdir -p "$out"
for src in "$top"/tests/data/*.dts; do
	dtb=$out/$(basename "${src%.dts}").dtb
	if [ ! -f "$dtb" ] || [ "$src" -nt "$dtb" ]; then
		# -q: the quirks fixture is malformed on purpose.
		dtc -q -I dts -O dtb -o "$dtb.tmp" "$src"
		mv "$dtb.tmp" "$dtb"
	fi
done
