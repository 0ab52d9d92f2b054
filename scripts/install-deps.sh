#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install the Debian packages keel needs (DESIGN §8). Idempotent and silent
# when everything is already there. Also fetches Debian's arm64 builds of
# libfdt and GRUB (arm64-only packages) and unpacks them under build/deps/,
# since installing them system-wide would conflict with the amd64 ones.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
pkgs=(gcc make gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu
	qemu-system-x86 qemu-system-arm grub-pc-bin grub-efi-amd64-bin grub-common
	xorriso mtools dosfstools ovmf qemu-efi-aarch64 u-boot-qemu python3-kconfiglib
	libcmocka-dev libfdt-dev device-tree-compiler acpica-tools clang
	libclang-rt-14-dev python3-matplotlib clang-format)

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -gt 0 ]; then
	echo "install-deps: installing ${missing[*]}"
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq >/dev/null
	$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Foreign-architecture packages, unpacked (not installed) under build/deps.
unpack_foreign() {
	local arch=$1 pkg=$2 stamp
	stamp="$top/build/deps/$arch/.$pkg.stamp"
	[ -f "$stamp" ] && return 0
	mkdir -p "$top/build/deps/$arch"
	local tmp
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get download -qq -oAPT::Architecture="$arch" "$pkg:$arch" >/dev/null 2>&1) || {
		# The package lists may not know the architecture yet.
		dpkg --print-foreign-architectures | grep -qx "$arch" || {
			sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
			$sudo dpkg --add-architecture "$arch"
		}
		sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
		$sudo apt-get update -qq >/dev/null
		(cd "$tmp" && apt-get download -qq "$pkg:$arch" >/dev/null)
	}
	dpkg-deb -x "$tmp"/*.deb "$top/build/deps/$arch"
	rm -rf "$tmp"
	touch "$stamp"
}

unpack_foreign arm64 libfdt-dev
unpack_foreign arm64 libfdt1
unpack_foreign arm64 grub-efi-arm64-bin
