#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Boot build/arm64/Image on QEMU virt (TCG). Usage:
#   qemu-arm64.sh [--image Image] [--smp N] [--mem SIZE] [--numa SPEC]
#                 [--dist A-B=V,...] [--el2] [--gic 2|3] [--uboot]
#                 [--append "keel args"] [--timeout S] [--log FILE]
#                 [--dtb FILE] [--initrd FILE] [--dumpdtb FILE] [--dry-run]
#                 [--uefi | --grub [--grub-loader linux|xen]] [--no-acpi]
#                 [--grub-module FILE]... [--grub-cmd CMD]...
#                 [--uboot-bootcmd CMD]
#                 [--file-backed DIR] [-- extra QEMU args...]
# --numa SPEC: "N" = N nodes of equal memory, CPUs split evenly, all
#   distances 20 unless --dist; or a comma list of MEM:CPUS per node, e.g.
#   "512M:0-1,256M:,0:2-3" (node 1 memory only, node 2 CPUs only).
#   Node memory sizes must sum to --mem.
# --uboot: boot through U-Boot (Debian u-boot-qemu) with booti. With --numa
#   the U-Boot environment image from scripts/uboot.sh is used (U-Boot's
#   default boot hangs on NUMA DTs, see docs/booting-arm64.md).
#   --uboot-bootcmd CMD: U-Boot runs CMD instead (an environment image of
#   its own, e.g. bootefi; -kernel/-initrd/-append still through fw_cfg).
# --uefi: UEFI firmware (qemu-efi-aarch64's QEMU_EFI.fd) starts the Image as
#   an EFI application from a FAT disk built by scripts/mkesp-arm64.sh
#   (arguments through a startup.nsh). --grub: the same firmware starts a
#   standalone GRUB from that disk, which loads the Image with `linux`
#   (or `xen_hypervisor` with --grub-loader xen). UEFI on QEMU virt gives
#   ACPI tables and no DT; --no-acpi (virt,acpi=off) makes it give the DT.
#   With --grub, --initrd FILE is GRUB's `initrd` (not QEMU's -initrd) and
#   each --grub-module FILE a `xen_module` (with --grub-loader xen);
#   --grub-cmd CMD runs before them (lsefimmap: the firmware's map).
# --file-backed DIR: node memory in sparse files DIR/keel-node<i>
#   (memory-backend-file, share=on): huge guest RAM on a small host, only
#   touched pages cost; the caller deletes the files. Without --numa, one
#   node. Arguments after -- go to QEMU as they are (e.g. -mem-prealloc).
# Exit status: QEMU's (0 after PSCI SYSTEM_OFF), 124 on timeout.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
image=$top/build/arm64/Image
smp=1 mem=512M numa="" dist="" el2=0 gic=2 uboot=0 append="" timeout_s=60
filedir="" extra=() grub_modules=() uboot_cmd=""
log="" dtb="" initrd="" dumpdtb="" dry=0 efi="" grub_loader=linux acpi=1

while [ $# -gt 0 ]; do
	case $1 in
	--image) image=$2; shift ;;
	--smp) smp=$2; shift ;;
	--mem) mem=$2; shift ;;
	--numa) numa=$2; shift ;;
	--dist) dist=$2; shift ;;
	--el2) el2=1 ;;
	--gic) gic=$2; shift ;;
	--uboot) uboot=1 ;;
	--uboot-bootcmd) uboot=1 uboot_cmd=$2; shift ;;
	--uefi) efi=uefi ;;
	--grub) efi=grub ;;
	--grub-loader) grub_loader=$2; shift ;;
	--grub-module) grub_modules+=(--module "$2"); shift ;;
	--grub-cmd) grub_modules+=(--grub-cmd "$2"); shift ;;
	--no-acpi) acpi=0 ;;
	--append) append=$2; shift ;;
	--timeout) timeout_s=$2; shift ;;
	--log) log=$2; shift ;;
	--dtb) dtb=$2; shift ;;
	--initrd) initrd=$2; shift ;;
	--dumpdtb) dumpdtb=$2; shift ;;
	--dry-run) dry=1 ;;
	--file-backed) filedir=$2; shift ;;
	--) shift; extra=("$@"); break ;;
	-h | --help)
		sed -n '3,/^[^#]/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*) echo "qemu-arm64.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

to_mib() {
	local v=${1^^}
	case $v in
	*G) echo $((${v%G} * 1024)) ;;
	*M) echo $((${v%M})) ;;
	*) echo $((v / 1048576)) ;;
	esac
}

machine="virt,gic-version=$gic"
[ "$el2" = 1 ] && machine+=",virtualization=on"
[ -n "$dumpdtb" ] && machine+=",dumpdtb=$dumpdtb"
[ "$acpi" = 0 ] && machine+=",acpi=off"
args=(-M "$machine" -cpu max -smp "$smp" -m "$mem" -nographic
	-no-reboot -serial mon:stdio)

# File-backed RAM needs a memory backend: one node when --numa is absent.
if [ -n "$filedir" ]; then
	mkdir -p "$filedir"
	[ -z "$numa" ] && numa=1
fi
if [ -n "$numa" ]; then
	total=$(to_mib "$mem")
	specs=()
	if [[ $numa =~ ^[0-9]+$ ]]; then
		n=$numa
		per=$((total / n))
		for ((i = 0; i < n; i++)); do
			lo=$((i * smp / n)) hi=$(((i + 1) * smp / n - 1))
			m=$per
			[ $i -eq $((n - 1)) ] && m=$((total - per * (n - 1)))
			cpus=""
			[ $hi -ge $lo ] && cpus="$lo-$hi"
			specs+=("${m}M:$cpus")
		done
		if [ -z "$dist" ]; then
			for ((a = 0; a < n; a++)); do
				for ((b = a + 1; b < n; b++)); do
					dist+="${dist:+,}$a-$b=20"
				done
			done
		fi
	else
		IFS=, read -ra specs <<<"$numa"
	fi
	i=0
	for s in "${specs[@]}"; do
		m=${s%%:*} cpus=${s#*:}
		[ "$s" = "$m" ] && cpus=""
		node="node,nodeid=$i"
		if [ "$(to_mib "$m")" -gt 0 ]; then
			if [ -n "$filedir" ]; then
				# Sparse: only pages the guest touches cost.
				f="$filedir/keel-node$i"
				args+=(-object "memory-backend-file,id=m$i,size=$(to_mib "$m")M,mem-path=$f,share=on")
			else
				args+=(-object "memory-backend-ram,id=m$i,size=$(to_mib "$m")M")
			fi
			node+=",memdev=m$i"
		fi
		[ -n "$cpus" ] && node+=",cpus=$cpus"
		args+=(-numa "$node")
		i=$((i + 1))
	done
	if [ -n "$dist" ]; then
		IFS=, read -ra ds <<<"$dist"
		for d in "${ds[@]}"; do
			ab=${d%%=*} v=${d#*=}
			args+=(-numa "dist,src=${ab%%-*},dst=${ab#*-},val=$v")
		done
	fi
fi

[ -n "$dtb" ] && args+=(-dtb "$dtb")
[ -n "$initrd" ] && [ -z "$efi" ] && args+=(-initrd "$initrd")

if [ -n "$efi" ]; then
	# One ESP per run (tests run one QEMU at a time, but keep it private).
	esp=$(mktemp "$top/build/arm64/esp-XXXXXX.img")
	trap 'rm -f "$esp"' EXIT
	esp_extra=(${initrd:+--initrd "$initrd"} ${grub_modules[@]+"${grub_modules[@]}"})
	"$top/scripts/mkesp-arm64.sh" --image "$image" --out "$esp" \
		--mode "$efi" --append "$append" --loader "$grub_loader" \
		${esp_extra[@]+"${esp_extra[@]}"}
	# No NIC: the firmware would try PXE/HTTP boot first.
	args+=(-bios /usr/share/qemu-efi-aarch64/QEMU_EFI.fd -net none
		-drive "if=none,format=raw,file=$esp,id=esp"
		-device virtio-blk-pci,drive=esp)
elif [ "$uboot" = 1 ]; then
	args+=(-bios /usr/lib/u-boot/qemu_arm64/u-boot.bin -kernel "$image")
	[ -n "$append" ] && args+=(-append "$append")
	if [ -n "$uboot_cmd" ]; then
		envimg=$(mktemp "$top/build/arm64/uboot-env-XXXXXX.img")
		trap 'rm -f "$envimg"' EXIT
		"$top/scripts/uboot.sh" "$envimg" "$uboot_cmd"
		args+=(-drive "if=pflash,format=raw,unit=1,file=$envimg,readonly=on")
	elif [ -n "$numa" ]; then
		envimg=$top/build/arm64/uboot-env.img
		"$top/scripts/uboot.sh" "$envimg"
		args+=(-drive "if=pflash,format=raw,unit=1,file=$envimg,readonly=on")
	fi
else
	args+=(-kernel "$image")
	[ -n "$append" ] && args+=(-append "$append")
fi

args+=("${extra[@]}")

if [ "$dry" = 1 ]; then
	printf '%q ' qemu-system-aarch64 "${args[@]}"
	echo
	exit 0
fi
if [ -n "$log" ]; then
	mkdir -p "$(dirname "$log")"
	timeout "$timeout_s" qemu-system-aarch64 "${args[@]}" </dev/null >"$log" 2>&1
else
	timeout --foreground "$timeout_s" qemu-system-aarch64 "${args[@]}"
fi
