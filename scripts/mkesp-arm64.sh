#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build a FAT EFI system partition image that boots keel's arm64 Image
# (which is also a PE/COFF EFI application, see arch/arm64/head.S). Usage:
#   mkesp-arm64.sh --out esp.img [--image build/arm64/Image]
#                  [--mode uefi|grub] [--append "keel args"] [--loader linux|xen]
#                  [--initrd FILE] [--module FILE]... [--grub-cmd CMD]...
# --mode uefi: the firmware starts keel itself. Without --append the Image is
#   EFI/BOOT/BOOTAA64.EFI (the removable-media default, no arguments); with
#   --append it is /keel.efi and a startup.nsh runs it from the UEFI shell
#   with the arguments (the shell passes them as LoadOptions).
# --mode grub: EFI/BOOT/BOOTAA64.EFI is a standalone GRUB (grub-mkstandalone,
#   Debian's grub-efi-arm64-bin unpacked by scripts/install-deps.sh) whose
#   embedded grub.cfg finds /keel on the ESP and runs `linux /keel ARGS` (or
#   `xen_hypervisor`) on the UEFI console with no menu delay. --initrd: GRUB
#   loads FILE with `initrd` (linux loader; a live update's next image);
#   --module (repeatable, xen loader): `xen_module` FILE, each a /chosen
#   multiboot,module node. --grub-cmd: a GRUB command run before the
#   loader's (e.g. lsefimmap, which prints the firmware's memory map).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
image=$top/build/arm64/Image
out="" mode=uefi append="" loader=linux initrd="" modules=() pre=""
grubdir=$top/build/deps/arm64/usr/lib/grub/arm64-efi

while [ $# -gt 0 ]; do
	case $1 in
	--image) image=$2; shift ;;
	--out) out=$2; shift ;;
	--mode) mode=$2; shift ;;
	--append) append=$2; shift ;;
	--loader) loader=$2; shift ;;
	--initrd) initrd=$2; shift ;;
	--module) modules+=("$2"); shift ;;
	--grub-cmd) pre+=$'\t'"$2"$'\n'; shift ;;
	-h | --help) sed -n '3,21p' "$0"; exit 0 ;;
	*) echo "mkesp-arm64.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$out" ] || { echo "mkesp-arm64.sh: --out is required" >&2; exit 2; }
[ -f "$image" ] || { echo "mkesp-arm64.sh: no image $image" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -f "$out"
mkdir -p "$(dirname "$out")"
# 16 MiB FAT16: room for keel and a standalone GRUB (~1.5 MiB each).
mformat -i "$out" -C -T 32768 -h 64 -s 32 -v KEELESP ::
mmd -i "$out" ::/EFI ::/EFI/BOOT

case $mode in
uefi)
	if [ -z "$append" ]; then
		mcopy -i "$out" "$image" ::/EFI/BOOT/BOOTAA64.EFI
	else
		mcopy -i "$out" "$image" ::/keel.efi
		printf 'fs0:\r\n\\keel.efi %s\r\n' "$append" >"$tmp/startup.nsh"
		mcopy -i "$out" "$tmp/startup.nsh" ::/startup.nsh
	fi
	;;
grub)
	if [ ! -d "$grubdir" ]; then
		"$top/scripts/install-deps.sh"
	fi
	case $loader in
	linux) cmd="linux /keel $append" ;;
	xen) cmd="xen_hypervisor /keel $append" ;;
	*) echo "mkesp-arm64.sh: --loader linux|xen" >&2; exit 2 ;;
	esac
	if [ -n "$initrd" ]; then
		mcopy -i "$out" "$initrd" ::/initrd
		cmd+=$'\n\tinitrd /initrd'
	fi
	i=0
	for m in ${modules[@]+"${modules[@]}"}; do
		mcopy -i "$out" "$m" "::/module$i"
		cmd+=$'\n\t'"xen_module /module$i"
		i=$((i + 1))
	done
	# The UEFI console (ConOut) is the serial port on QEMU and on most
	# servers; see docs/booting-arm64.md for a GRUB-driven serial port.
	cat >"$tmp/grub.cfg" <<EOF
terminal_input console
terminal_output console
set timeout=0
search --no-floppy --file /keel --set=root
menuentry "keel" {
$pre	$cmd
	boot
}
EOF
	grub-mkstandalone -O arm64-efi -d "$grubdir" \
		--modules="part_gpt part_msdos fat search search_fs_file linux lsefimmap" \
		--locales= --themes= --fonts= \
		-o "$tmp/BOOTAA64.EFI" "boot/grub/grub.cfg=$tmp/grub.cfg"
	mcopy -i "$out" "$tmp/BOOTAA64.EFI" ::/EFI/BOOT/BOOTAA64.EFI
	mcopy -i "$out" "$image" ::/keel
	;;
*)
	echo "mkesp-arm64.sh: --mode uefi|grub" >&2
	exit 2
	;;
esac
