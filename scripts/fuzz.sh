#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# libFuzzer targets for keel's parsers (tests/fuzz/*_fuzz.c).
#
#   scripts/fuzz.sh build TARGET.c...          build each target
#   scripts/fuzz.sh run SECONDS TARGET.c...    fuzz each for SECONDS
#   scripts/fuzz.sh run --smoke SECONDS TARGET.c...
#                                              the same from the seeds only
#                                              (make check's fuzz-smoke)
#
# build: compiles common/, boot/, arch/sandbox/ and the hooks every arch
# shares (arch/*.c) with clang
# -fsanitize=fuzzer-no-link,address,undefined into build/fuzz/obj/ (against
# a sandbox defconfig generated in build/fuzz/cfg/), archives them once
# for all targets, and links each target with -fsanitize=fuzzer
# (arch/sandbox/main.c's main is weak, so libFuzzer's main wins). Objects are
# rebuilt when their source or any header is newer, targets when their
# source, the archive or tests/fuzz/*.h is; FUZZ_JOBS (default 2) compiles
# and links in parallel. FUZZ_OUT moves build/fuzz elsewhere.
# run: seeds from tests/fuzz/corpus/<name>/ (read-only: real inputs and
# regression cases), new inputs to build/fuzz/out/<name>/ (--smoke: a
# fresh build/fuzz/smoke/<name>/), crash files to build/fuzz/crash/.
# -max_len is the largest seed (at least 4096). Prints executions, new
# inputs and coverage per target; exits non-zero when a target crashes or
# cannot be run. docs/fuzzing.md has the whole story.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=${FUZZ_OUT:-build/fuzz}
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
	echo "usage: $0 build TARGET.c... | $0 run [--smoke] SECONDS TARGET.c..." >&2
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
	# Any Kconfig newer than the header (boot/Kconfig holds options too).
	if [ ! -f "$hdr" ] || [ arch/sandbox/configs/sandbox_defconfig -nt "$hdr" ] ||
		[ -n "$(find . -path ./build -prune -o -name Kconfig -newer "$hdr" -print)" ]; then
		scripts/kconfig.sh defconfig sandbox "$cfg" arch/sandbox/configs/sandbox_defconfig
		scripts/kconfig.sh genconfig sandbox "$cfg" --header-path "$hdr"
	fi
}

# Parallel jobs for the compile and link steps (2 cores on the dev box).
JOBS=${FUZZ_JOBS:-2}
running=0
failed_jobs=0

# Start "$@" in the background, at most $JOBS at a time.
spawn() {
	if [ "$running" -ge "$JOBS" ]; then
		wait -n || failed_jobs=1
		running=$((running - 1))
	fi
	"$@" &
	running=$((running + 1))
}

reap() {
	while [ "$running" -gt 0 ]; do
		wait -n || failed_jobs=1
		running=$((running - 1))
	done
}

compile_one() {
	echo "  FUZZ-CC $1"
	# shellcheck disable=SC2086
	if ! $CLANG $CFLAGS $SAN -fsanitize=fuzzer-no-link -c "$1" -o "$2.tmp"; then
		echo "fuzz: warning: $1 does not compile; targets needing it will not link" >&2
		rm -f "$2" "$2.tmp"
		return 1
	fi
	mv "$2.tmp" "$2"
}

link_one() {
	echo "  FUZZ-LD $3"
	# shellcheck disable=SC2086
	if ! $CLANG $CFLAGS $SAN -fsanitize=fuzzer -Itests/fuzz "$1" "$2" \
		-lfdt -o "$3.tmp"; then
		echo "fuzz: error: cannot link $1 (missing keel objects? see the compiler errors above)" >&2
		rm -f "$3" "$3.tmp"
		return 1
	fi
	mv "$3.tmp" "$3"
}

# Compile the keel sources once for all targets (one archive); a file that
# fails is reported and left out, so only targets that need it fail to
# link. Objects are rebuilt when their source or any header is newer.
build_lib() {
	local newest_hdr src obj lib=$out/libkeel-fuzz.a stale=0 objs=()
	newest_hdr=$(find include arch/sandbox/include boot "$cfg/include" -name '*.h' \
		-printf '%T@ %p\n' | sort -n | tail -1 | cut -d' ' -f2)
	failed_jobs=0
	local host_s=
	# x86_64's CRC folding, which arch/sandbox/crc.c calls on such a host
	[ "$(uname -m)" = x86_64 ] && host_s=arch/x86_64/crc_fold.S
	for src in common/*.c common/*/*.c boot/*.c boot/*/*.c arch/*.c arch/sandbox/*.c $host_s; do
		[ -f "$src" ] || continue
		# glibc provides the libc names on the sandbox (see arch.mk)
		[ "$src" = common/lib/libc.c ] && continue
		obj=$out/obj/${src%.c}.o
		objs+=("$obj")
		mkdir -p "$(dirname "$obj")"
		if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] ||
			{ [ -n "$newest_hdr" ] && [ "$newest_hdr" -nt "$obj" ]; }; then
			stale=1
			spawn compile_one "$src" "$obj"
		fi
	done
	reap
	local have=()
	for obj in "${objs[@]}"; do
		[ -f "$obj" ] && have+=("$obj")
	done
	# the archive's member list follows the sources (a deleted file goes)
	if [ "$stale" = 1 ] || [ ! -f "$lib" ] ||
		[ "$(ar t "$lib" | wc -l)" != "${#have[@]}" ]; then
		rm -f "$lib"
		ar rcs "$lib" "${have[@]}"
	fi
	return $failed_jobs
}

cmd_build() {
	[ $# -ge 1 ] || usage
	command -v "$CLANG" >/dev/null || die "$CLANG not found (make deps installs clang and libclang-rt-14-dev)"
	mkdir -p "$out"
	config
	build_lib || true
	local t name bin lib=$out/libkeel-fuzz.a rc=0
	failed_jobs=0
	for t in "$@"; do
		[ -f "$t" ] || { echo "fuzz: error: no such target $t" >&2; rc=1; continue; }
		name=$(target_name "$t")
		bin=$out/${name}_fuzz
		if [ -x "$bin" ] && [ "$bin" -nt "$t" ] && [ "$bin" -nt "$lib" ] &&
			[ "$bin" -nt tests/fuzz/fuzz_util.h ] &&
			[ "$bin" -nt tests/fuzz/acpi_fuzz.h ]; then
			continue
		fi
		spawn link_one "$t" "$lib" "$bin"
	done
	reap
	[ "$failed_jobs" = 0 ] || rc=1
	return $rc
}

# One line per target: executions, new inputs, edge coverage.
summary() {
	local log=$1 name=$2 execs news cov
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	news=$(sed -n 's/^stat::new_units_added: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	printf '          %-12s %10s execs %6s new inputs  cov %s\n' \
		"$name:" "${execs:-?}" "${news:-?}" "${cov:-?}"
}

cmd_run() {
	local smoke=0
	if [ "${1:-}" = --smoke ]; then
		smoke=1
		shift
	fi
	[ $# -ge 2 ] || usage
	local secs=$1
	shift
	[[ $secs =~ ^[0-9]+$ ]] || die "SECONDS must be a number, not '$secs'"
	local t name bin corpus scratch log maxlen rc=0
	for t in "$@"; do
		name=$(target_name "$t")
		bin=$out/${name}_fuzz
		if [ ! -x "$bin" ]; then
			echo "fuzz: error: $bin is missing: run 'scripts/fuzz.sh build $t' first" >&2
			rc=1
			continue
		fi
		corpus=tests/fuzz/corpus/$name
		if [ "$smoke" = 1 ]; then
			# fresh scratch: start-up time stays that of the seeds
			scratch=$out/smoke/$name
			log=$out/smoke/$name.log
			rm -rf "$scratch"
		else
			scratch=$out/out/$name
			log=$out/$name.log
		fi
		mkdir -p "$scratch" "$out/crash" "$corpus"
		# Whole seeds must fit: QEMU's DSDTs and DTBs are 6-10 KiB.
		maxlen=$(find "$corpus" -type f -printf '%s\n' | sort -n | tail -1)
		[ "${maxlen:-0}" -ge 4096 ] || maxlen=4096
		echo "  FUZZ    $name (${secs}s)"
		if ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
			UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
			"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
			-max_len="$maxlen" -print_final_stats=1 \
			-artifact_prefix="$out/crash/$name-" \
			"$scratch" "$corpus" >"$log" 2>&1; then
			summary "$log" "$name"
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
