#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build a GRUB rescue ISO (BIOS and UEFI) that boots keel.elf through
# multiboot2 on the serial console (COM1, 115200 8n1).
#
#   scripts/mkiso.sh [--multiboot1] [--module FILE]... [--pre CMD]... KEEL_ELF OUT_ISO [KEEL_CMDLINE]
#
# --multiboot1: GRUB's `multiboot`/`module` instead of `multiboot2`/`module2`.
# --module FILE: one more module, in the order given (a live update's next
# image is the first: keel.elf itself, docs/liveupdate.md); each is copied
# to /boot/modN on the ISO and named by its file name on its GRUB line.
# --pre COMMAND: a GRUB command run before the kernel line (e.g. `cutmem 1M
# 64M`, which takes that memory out of the map: tests/qemu/x86_reloc_cases.py).
#
# Needs grub-mkrescue (grub-common), grub-pc-bin (BIOS), grub-efi-amd64-bin
# (UEFI), xorriso and mtools; `make deps` installs them.
set -euo pipefail

mb=multiboot2 mod=module2
modules=()
pre=
while [ $# -gt 0 ]; do
	case $1 in
	--multiboot1) mb=multiboot mod=module; shift ;;
	--module) [ $# -ge 2 ] || { echo "mkiso: --module needs a file" >&2; exit 2; }
		modules+=("$2"); shift 2 ;;
	--pre) [ $# -ge 2 ] || { echo "mkiso: --pre needs a GRUB command" >&2; exit 2; }
		pre+="	$2"$'\n'; shift 2 ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || { echo "usage: $0 [--multiboot1] [--module FILE]... [--pre CMD]... KEEL_ELF OUT_ISO [CMDLINE]" >&2; exit 2; }
elf=$1 out=$2 cmdline=${3:-}
for t in grub-mkrescue xorriso mformat; do
	command -v "$t" >/dev/null || { echo "mkiso: $t missing (make deps)" >&2; exit 1; }
done

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
root=$dir/iso
mkdir -p "$root/boot/grub"
cp "$elf" "$root/boot/keel.elf"
mod_lines=""
for i in "${!modules[@]}"; do
	cp "${modules[$i]}" "$root/boot/mod$i"
	mod_lines+="	$mod /boot/mod$i $(basename "${modules[$i]}")"$'\n'
done
cat >"$root/boot/grub/grub.cfg" <<CFG
serial --unit=0 --speed=115200 --word=8 --parity=no --stop=1
terminal_input serial console
terminal_output serial console
set timeout=0
set default=0
menuentry "keel" {
${pre}	$mb /boot/keel.elf $cmdline
${mod_lines}	boot
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
