# SPDX-License-Identifier: MIT
# arm64: a Linux arm64 Image for QEMU virt (-kernel) and U-Boot (booti),
# which is also a PE/COFF EFI application (UEFI firmware, shell, GRUB).
# The kernel is linked position independent (-pie, base 0) and relocates
# itself in head.S, so any 2 MiB aligned load address works. It links
# Debian's arm64 libfdt.a, unpacked by scripts/install-deps.sh.

CROSS_COMPILE ?= aarch64-linux-gnu-
CC_ARCH := $(CROSS_COMPILE)gcc
LD_ARCH := $(CROSS_COMPILE)ld
OBJCOPY_ARCH := $(CROSS_COMPILE)objcopy

ARM64_DEPS := build/deps/arm64/usr
LIBFDT_A := $(ARM64_DEPS)/lib/aarch64-linux-gnu/libfdt.a

ARCH_CFLAGS := -ffreestanding -mgeneral-regs-only -mstrict-align \
	-mno-outline-atomics -fno-pic -fno-stack-protector -nostdlib \
	-fno-omit-frame-pointer -fno-asynchronous-unwind-tables \
	-I$(ARM64_DEPS)/include
ARCH_ASFLAGS :=
# The sandbox firmware description and its ACPI/DT replay are the
# sandbox's alone.
ARCH_LDFLAGS := -pie --no-dynamic-linker -z norelro -z noexecstack \
	--build-id=sha1 --no-warn-rwx-segments -T arch/arm64/keel.lds
LIBGCC = $(shell $(CC_ARCH) -print-libgcc-file-name 2>/dev/null)

.PHONY: run-uboot run-uefi run-grub run-liveupdate

all: $(O)/Image

$(LIBFDT_A):
	$(Q)scripts/install-deps.sh

# OBJS is defined after this file is included: expand it at rule time.
.SECONDEXPANSION:
$(O)/keel.elf: $$(OBJS) $(LIBFDT_A) arch/arm64/keel.lds
	@echo "  LD      $@"
	$(Q)$(LD_ARCH) $(ARCH_LDFLAGS) -Map=$(O)/keel.map -o $@ $(OBJS) \
		$(LIBFDT_A) $(LIBGCC)
	@# head.S applies only R_AARCH64_RELATIVE: refuse anything else.
	$(Q)bad=$$($(CROSS_COMPILE)readelf -rW $@ | awk '/^[0-9a-f]+ / && $$3 != "R_AARCH64_RELATIVE" && $$3 != "R_AARCH64_NONE" { print $$3 }' | sort -u); \
	if [ -n "$$bad" ]; then echo "arm64: unsupported dynamic relocations: $$bad" >&2; rm -f $@; exit 1; fi

$(O)/Image: $(O)/keel.elf
	@echo "  OBJCOPY $@"
	$(Q)$(OBJCOPY_ARCH) -O binary $< $@

# `make run ARCH=arm64`: 4 CPUs, 2 NUMA nodes with distances, the guest RAM
# preallocated (-mem-prealloc: no host page fault on first touch).
QEMU_ARM64_ARGS ?= --smp 4 --numa 2 --mem 1G
run: deps $(O)/Image
	$(Q){ scripts/qemu-arm64.sh --image $(O)/Image $(QEMU_ARM64_ARGS) \
		--append "$(CMDLINE)" --timeout 120 -- -mem-prealloc; \
		echo $$? > $(O)/run.rc; } | \
		tee $(O)/run.log; \
		echo "make run: serial log in $(O)/run.log (pictures: make report LOG=$(O)/run.log)"; \
		exit $$(cat $(O)/run.rc)

# make run-liveupdate ARCH=arm64 (docs/liveupdate.md): EL2, 2 domains,
# liveupdate=2: the Image hands them to itself (the initrd) twice.
LU_CMDLINE ?= liveupdate=2 domain=64M@0 domain=64M@1
run-liveupdate: deps $(O)/Image
	$(Q){ scripts/qemu-arm64.sh --image $(O)/Image $(QEMU_ARM64_ARGS) --el2 \
		--initrd $(O)/Image --append "$(strip $(LU_CMDLINE) $(CMDLINE))" \
		--timeout 300 -- -mem-prealloc; \
		echo $$? > $(O)/run.rc; } | tee $(O)/run-liveupdate.log; \
		[ $$(cat $(O)/run.rc) -eq 0 ] || exit 1; \
		$(PYTHON) scripts/report.py $(O)/run-liveupdate.log; \
		echo "make run-liveupdate: serial log in $(O)/run-liveupdate.log"

run-uboot: deps $(O)/Image
	$(Q)scripts/qemu-arm64.sh --image $(O)/Image $(QEMU_ARM64_ARGS) --uboot \
		--append "$(CMDLINE)" --timeout 120

# UEFI (QEMU_EFI.fd) starts the Image as an EFI application from a FAT
# disk (scripts/mkesp-arm64.sh), directly or through a standalone GRUB.
QEMU_ARM64_EFI_ARGS ?= --smp 4 --numa 2 --mem 1G --dist 0-1=20
run-uefi: deps $(O)/Image
	$(Q)scripts/qemu-arm64.sh --image $(O)/Image $(QEMU_ARM64_EFI_ARGS) \
		--uefi --append "$(CMDLINE)" --timeout 120

run-grub: deps $(O)/Image
	$(Q)scripts/qemu-arm64.sh --image $(O)/Image $(QEMU_ARM64_EFI_ARGS) \
		--grub --append "$(CMDLINE)" --timeout 120

qemu-test: $(O)/Image
	$(Q)$(PYTHON) -m tests.qemu.arm64 --image $(O)/Image --logs $(O)/qemu-logs

# make check-scale: the largest machine (tests/qemu/arm64.py --scale).
qemu-scale-test: deps $(O)/Image
	$(Q)$(PYTHON) -m tests.qemu.arm64 --scale --image $(O)/Image --logs $(O)/qemu-scale-logs
