#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# libFuzzer targets for keel's parsers (tests/fuzz/*_fuzz.c).
#
#   scripts/fuzz.sh build TARGET.c...          build each target
#   scripts/fuzz.sh run SECONDS TARGET.c...    fuzz each for SECONDS
#
# build: compiles common/, boot/ and arch/sandbox/ with clang
# -fsanitize=fuzzer-no-link,address,undefined into build/fuzz/obj/ (against
# a sandbox defconfig generated in build/fuzz/cfg/), archives them, and
# links each target with -fsanitize=fuzzer (arch/sandbox/os.c's main is
# weak, so libFuzzer's main wins). Objects are rebuilt when their source or
# any header is newer.
# run: seeds from tests/fuzz/corpus/<name>/ (read-only), new inputs to
# build/fuzz/out/<name>/, crash files to build/fuzz/crash/. Exits non-zero
# when a target crashes or cannot be run.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=build/fuzz
cfg=$out/cfg
CLANG=${CLANG:-clang}
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
CFLAGS="-std=gnu11 -g -O1 -fno-omit-frame-pointer -pthread -Wall -Wno-unused-parameter -Wno-unused-function
	-Iinclude -Iarch/sandbox/include -I$cfg/include"

die() {
	echo "fuzz: error: $*" >&2
	exit 1
}

usage() {
	echo "usage: $0 build TARGET.c... | $0 run SECONDS TARGET.c..." >&2
	exit 2
}

# name of tests/fuzz/foo_fuzz.c is "foo"
target_name() {
	local b
	b=$(basename "$1" .c)
	echo "${b%_fuzz}"
}

config() {
	local hdr=$cfg/include/generated/autoconf.h
	if [ ! -f "$hdr" ] || [ arch/sandbox/configs/sandbox_defconfig -nt "$hdr" ] ||
		[ common/Kconfig -nt "$hdr" ] || [ Kconfig -nt "$hdr" ]; then
		scripts/kconfig.sh defconfig sandbox "$cfg" arch/sandbox/configs/sandbox_defconfig
		scripts/kconfig.sh genconfig sandbox "$cfg" --header-path "$hdr"
	fi
}

# Compile the keel sources; a file that fails is reported and left out, so
# only targets that need it fail to link.
build_lib() {
	local newest_hdr src obj failed=0 objs=()
	newest_hdr=$(find include arch/sandbox/include boot "$cfg/include" -name '*.h' \
		-printf '%T@ %p\n' | sort -n | tail -1 | cut -d' ' -f2)
	for src in common/*.c common/lib/*.c boot/*.c arch/sandbox/*.c; do
		[ -f "$src" ] || continue
		# glibc provides the libc names on the sandbox (see arch.mk)
		[ "$src" = common/lib/libc.c ] && continue
		obj=$out/obj/${src%.c}.o
		mkdir -p "$(dirname "$obj")"
		if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] ||
			{ [ -n "$newest_hdr" ] && [ "$newest_hdr" -nt "$obj" ]; }; then
			echo "  FUZZ-CC $src"
			# shellcheck disable=SC2086
			if ! $CLANG $CFLAGS $SAN -fsanitize=fuzzer-no-link -c "$src" -o "$obj"; then
				echo "fuzz: warning: $src does not compile; targets needing it will not link" >&2
				rm -f "$obj"
				failed=1
				continue
			fi
		fi
		objs+=("$obj")
	done
	rm -f "$out/libkeel-fuzz.a"
	ar rcs "$out/libkeel-fuzz.a" "${objs[@]}"
	return $failed
}

cmd_build() {
	[ $# -ge 1 ] || usage
	command -v "$CLANG" >/dev/null || die "$CLANG not found (make deps installs clang and libclang-rt-14-dev)"
	mkdir -p "$out"
	config
	build_lib || true
	local t name rc=0
	for t in "$@"; do
		[ -f "$t" ] || { echo "fuzz: error: no such target $t" >&2; rc=1; continue; }
		name=$(target_name "$t")
		echo "  FUZZ-LD $out/${name}_fuzz"
		# shellcheck disable=SC2086
		if ! $CLANG $CFLAGS $SAN -fsanitize=fuzzer -Itests/fuzz "$t" \
			"$out/libkeel-fuzz.a" -lfdt -o "$out/${name}_fuzz"; then
			echo "fuzz: error: cannot link $t (missing keel objects? see the compiler errors above)" >&2
			rm -f "$out/${name}_fuzz"
			rc=1
		fi
	done
	return $rc
}

cmd_run() {
	[ $# -ge 2 ] || usage
	local secs=$1
	shift
	[[ $secs =~ ^[0-9]+$ ]] || die "SECONDS must be a number, not '$secs'"
	local t name bin corpus scratch log rc=0
	for t in "$@"; do
		name=$(target_name "$t")
		bin=$out/${name}_fuzz
		if [ ! -x "$bin" ]; then
			echo "fuzz: error: $bin is missing: run 'scripts/fuzz.sh build $t' first" >&2
			rc=1
			continue
		fi
		corpus=tests/fuzz/corpus/$name
		scratch=$out/out/$name
		log=$out/$name.log
		mkdir -p "$scratch" "$out/crash" "$corpus"
		echo "  FUZZ    $name (${secs}s)"
		if ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
			UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
			"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
			-max_len=4096 -print_final_stats=1 \
			-artifact_prefix="$out/crash/$name-" \
			"$scratch" "$corpus" >"$log" 2>&1; then
			grep -E '^stat::number_of_executed_units' "$log" |
				sed "s/^/          $name: /" || true
		else
			echo "fuzz: error: $name crashed; crash input in $out/crash/, log $log:" >&2
			tail -40 "$log" >&2
			rc=1
		fi
	done
	return $rc
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
build) cmd_build "$@" ;;
run) cmd_run "$@" ;;
*) usage ;;
esac
