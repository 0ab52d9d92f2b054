# SPDX-License-Identifier: MIT
# x86_64: a freestanding ELF64 loaded by QEMU -kernel (multiboot1 with the
# a.out kludge) or GRUB (multiboot2). See docs/booting.md.

# A static PIE linked at 1 MiB (keel.lds): multiboot1 loads it there,
# GRUB's multiboot2 wherever its map is free, and head.S applies its
# R_X86_64_RELATIVE relocations (check-relocs.py fails the build on any
# other type). -z notext: the relocations write .rodata (address tables),
# before anything reads it. `make lib LIB_MODEL=kernel` (a higher-half
# host's archive, not keel) is built without PIC: that code model has none.
CC_ARCH := gcc
ARCH_PIC := $(if $(filter kernel,$(LIB_MODEL)),-fno-pic -fno-pie,-fpie)
ARCH_CFLAGS := -ffreestanding $(ARCH_PIC) -mcmodel=small \
	-mno-red-zone -mno-mmx -mno-sse -mno-sse2 -mno-avx -mgeneral-regs-only \
	-fno-stack-protector -fno-omit-frame-pointer \
	-fno-asynchronous-unwind-tables -fcf-protection=none -nostdlib
ARCH_ASFLAGS :=
ARCH_LDFLAGS := -nostdlib -static-pie -Wl,-z,notext -Wl,--build-id=sha1 \
	-Wl,-z,max-page-size=0x1000 -Wl,--no-warn-rwx-segments

KEEL_ELF := $(O)/keel.elf
KEEL_ISO := $(O)/keel.iso
QEMU_SH := scripts/qemu.sh

all: $(KEEL_ELF)

.PHONY: iso run-iso run-iso-uefi run-liveupdate

# OBJS is defined after this file is included: expand it late.
.SECONDEXPANSION:
$(KEEL_ELF): $$(OBJS) arch/x86_64/keel.lds arch/x86_64/check-relocs.py
	@echo "  LD      $@"
	$(Q)$(CC_ARCH) $(ARCH_LDFLAGS) -Wl,-T,arch/x86_64/keel.lds -o $@.tmp $(OBJS) -lgcc
	$(Q)$(PYTHON) arch/x86_64/check-relocs.py $@.tmp nm
	$(Q)mv $@.tmp $@

# The default run: 4 CPUs in 2 sockets, 2 NUMA nodes of 512M (socket i on
# node i), distance 20, after=exit, the guest RAM preallocated
# (-mem-prealloc) so that the scrub's GB/s is keel's, not the host's page
# faults on first touch. The log (build/x86_64/run.log) is then
# checked by report.py against that machine; with a CMDLINE of your own only
# the generic checks run (it may turn CPUs, ACPI or the scrub off).
RUN_EXPECT := $(if $(strip $(CMDLINE)),,--expect-cpus 4 --expect-online 4 \
	--expect-nodes 2 --expect-node-mem 0:512M,1:512M --mem-tolerance 1M \
	--expect-distance "10,20;20,10" --expect-scrubbed)

run: deps $(KEEL_ELF)
	$(Q){ $(QEMU_SH) x86_64 --kernel $(KEEL_ELF) --smp 4 --numa 2x512M \
		--timeout 300 --append "$(strip after=exit $(CMDLINE))" -- -mem-prealloc; \
		echo $$? > $(O)/run.rc; } | tee $(O)/run.log; \
		rc=$$(cat $(O)/run.rc); [ $$rc -eq 33 ] || { echo "make run: QEMU exit status $$rc (33 = PASS)"; exit 1; }; \
		$(PYTHON) scripts/report.py $(O)/run.log $(RUN_EXPECT); \
		echo "make run: serial log in $(O)/run.log (pictures: make report LOG=$(O)/run.log)"

# make run-liveupdate (docs/liveupdate.md): the same machine, 2 domains,
# liveupdate=2: keel.elf hands them to itself (module 0, -initrd) twice;
# the last image's report is checked, the domains' bytes read back.
LU_CMDLINE ?= liveupdate=2 domain=64M@0 domain=64M@1
run-liveupdate: deps $(KEEL_ELF)
	$(Q){ $(QEMU_SH) x86_64 --kernel $(KEEL_ELF) --smp 4 --numa 2x512M \
		--timeout 300 --append "$(strip after=exit $(LU_CMDLINE) $(CMDLINE))" \
		-- -mem-prealloc -initrd $(KEEL_ELF); \
		echo $$? > $(O)/run.rc; } | tee $(O)/run-liveupdate.log; \
		rc=$$(cat $(O)/run.rc); [ $$rc -eq 33 ] || { echo "make run-liveupdate: QEMU exit status $$rc (33 = PASS)"; exit 1; }; \
		$(PYTHON) scripts/report.py $(O)/run-liveupdate.log $(RUN_EXPECT); \
		echo "make run-liveupdate: serial log in $(O)/run-liveupdate.log"

# keel.iso: for hardware, command line $(CMDLINE) only. keel-qemu.iso: the
# same with after=exit, for run-iso / run-iso-uefi.
iso: $(KEEL_ISO)

$(KEEL_ISO): $(KEEL_ELF) scripts/mkiso.sh FORCE
	$(Q)scripts/mkiso.sh $(KEEL_ELF) $@ "$(strip $(CMDLINE))"

$(O)/keel-qemu.iso: $(KEEL_ELF) scripts/mkiso.sh FORCE
	$(Q)scripts/mkiso.sh $(KEEL_ELF) $@ "$(strip after=exit $(CMDLINE))"

run-iso: deps $(O)/keel-qemu.iso
	$(Q)$(QEMU_SH) x86_64 --iso $(O)/keel-qemu.iso --smp 4 --numa 2x512M \
		--timeout 300; rc=$$?; [ $$rc -eq 33 ]

run-iso-uefi: deps $(O)/keel-qemu.iso
	$(Q)$(QEMU_SH) x86_64 --iso $(O)/keel-qemu.iso --uefi --smp 4 \
		--numa 2x512M --timeout 300; rc=$$?; [ $$rc -eq 33 ]

# The boot matrix builds its own ISO (command line after=exit).
qemu-test: deps $(KEEL_ELF)
	$(Q)$(PYTHON) -m tests.qemu.x86_64 --elf $(KEEL_ELF) --logs $(O)/qemu-logs

# make check-scale: the largest machine (tests/qemu/x86_64.py --scale).
qemu-scale-test: deps $(KEEL_ELF)
	$(Q)$(PYTHON) -m tests.qemu.x86_64 --scale --elf $(KEEL_ELF) --logs $(O)/qemu-scale-logs
