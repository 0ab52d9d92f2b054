#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install the Debian packages keel needs (DESIGN §8). Idempotent and silent
# when everything is already there. Also fetches Debian's arm64 builds of
# libfdt and GRUB (arm64-only packages) and unpacks them under build/deps/,
# since installing them system-wide would conflict with the amd64 ones.
#
# Works on a minimal Debian 12 (debootstrap --variant=minbase plus make and
# git), as root or, through sudo, as a user. Every tool that `make check`
# and `make run` call comes from this list or from Debian's essential set
# (coreutils' timeout and nproc, util-linux's setarch): python3 because the
# Makefile runs /usr/bin/python3 (never a pyenv or venv python), git because
# check-format lists the files with git ls-files.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# g++ and zlib1g-dev: make embed's C++ host and its compile beside <zlib.h>.
pkgs=(make git python3 gcc gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu
	qemu-system-x86 qemu-system-arm grub-pc-bin grub-efi-amd64-bin grub-common
	xorriso mtools dosfstools ovmf qemu-efi-aarch64 u-boot-qemu python3-kconfiglib
	libcmocka-dev libfdt-dev device-tree-compiler acpica-tools clang
	libclang-rt-14-dev python3-matplotlib clang-format zlib1g-dev g++)
# arm64 packages unpacked (not installed) under build/deps/arm64.
foreign_arch=arm64
foreign=(libfdt-dev libfdt1 grub-efi-arm64-bin)

# Run a command as root: directly, or through sudo when we are a user.
as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null; then
		sudo "$@"
	else
		echo "install-deps: need root to run '$*': run as root or install sudo" >&2
		exit 1
	fi
}

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
		missing+=("$p")
	fi
done

foreign_missing=()
for p in "${foreign[@]}"; do
	[ -f "$top/build/deps/$foreign_arch/.$p.stamp" ] || foreign_missing+=("$p")
done

# apt-get download of pkg:arm64 needs dpkg to know the architecture and the
# package lists to include it: add it before the (single) apt-get update.
need_update=0
[ ${#missing[@]} -eq 0 ] || need_update=1
if [ ${#foreign_missing[@]} -gt 0 ] &&
	! dpkg --print-foreign-architectures | grep -qx "$foreign_arch"; then
	echo "install-deps: dpkg --add-architecture $foreign_arch (for build/deps/$foreign_arch)"
	as_root dpkg --add-architecture "$foreign_arch"
	need_update=1
fi

export DEBIAN_FRONTEND=noninteractive
updated=0
apt_update() {
	as_root apt-get update -qq >/dev/null
	updated=1
}
[ "$need_update" = 0 ] || apt_update

if [ ${#missing[@]} -gt 0 ]; then
	echo "install-deps: installing ${missing[*]}"
	as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Download one foreign package into a fresh directory and unpack it.
unpack_foreign() {
	local arch=$1 pkg=$2 stamp tmp
	stamp="$top/build/deps/$arch/.$pkg.stamp"
	[ -f "$stamp" ] && return 0
	mkdir -p "$top/build/deps/$arch"
	tmp=$(mktemp -d)
	# As root apt downloads as user _apt, which must be able to write here.
	if [ "$(id -u)" -eq 0 ] && id _apt >/dev/null 2>&1; then
		chown _apt "$tmp"
	fi
	if ! (cd "$tmp" && apt-get download -qq "$pkg:$arch" >/dev/null 2>&1); then
		# Stale package lists: refresh once and retry, showing errors.
		[ "$updated" = 1 ] || apt_update
		(cd "$tmp" && apt-get download -qq "$pkg:$arch" >/dev/null)
	fi
	dpkg-deb -x "$tmp"/*.deb "$top/build/deps/$arch"
	rm -rf "$tmp"
	touch "$stamp"
}

for p in "${foreign_missing[@]}"; do
	unpack_foreign "$foreign_arch" "$p"
done
