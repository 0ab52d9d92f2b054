#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build a GRUB rescue ISO (BIOS and UEFI) that boots keel.elf through
# multiboot2 on the serial console (COM1, 115200 8n1).
#
#   scripts/mkiso.sh KEEL_ELF OUT_ISO [KEEL_CMDLINE]
#
# Needs grub-mkrescue (grub-common), grub-pc-bin (BIOS), grub-efi-amd64-bin
# (UEFI), xorriso and mtools; `make deps` installs them.
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 KEEL_ELF OUT_ISO [CMDLINE]" >&2; exit 2; }
elf=$1 out=$2 cmdline=${3:-}
for t in grub-mkrescue xorriso mformat; do
	command -v "$t" >/dev/null || { echo "mkiso: $t missing (make deps)" >&2; exit 1; }
done

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
root=$dir/iso
mkdir -p "$root/boot/grub"
cp "$elf" "$root/boot/keel.elf"
cat >"$root/boot/grub/grub.cfg" <<CFG
serial --unit=0 --speed=115200 --word=8 --parity=no --stop=1
terminal_input serial console
terminal_output serial console
set timeout=0
set default=0
menuentry "keel" {
	multiboot2 /boot/keel.elf $cmdline
	boot
}
CFG
mkdir -p "$(dirname "$out")"
log=$dir/mkrescue.log
if ! grub-mkrescue -o "$out.tmp" "$root" >"$log" 2>&1; then
	cat "$log" >&2
	exit 1
fi
mv "$out.tmp" "$out"
echo "  ISO     $out"
