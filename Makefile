# SPDX-License-Identifier: MIT
# keel: ARCH=x86_64 (default) | arm64 | sandbox. Objects go to build/$(ARCH)/.
# The two commands a newcomer needs: `make run` and `make check`.

ARCH ?= $(if $(wildcard arch/x86_64/arch.mk),x86_64,sandbox)
SANITIZE ?= 0
V ?= 0

# make lib LIB_MODEL=kernel|pic: a freestanding archive of another code
# model, compiled apart (docs/embedding.md).
ifneq ($(LIB_MODEL),)
O ?= build/$(ARCH)-$(LIB_MODEL)
endif
ifeq ($(SANITIZE),1)
O ?= build/$(ARCH)-asan
else
O ?= build/$(ARCH)
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

TOP := $(CURDIR)
PYTHON := /usr/bin/python3
KCONFIG := scripts/kconfig.sh
DEFCONFIG := arch/$(ARCH)/configs/$(ARCH)_defconfig

CFLAGS_COMMON := -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter \
	-Wshadow -Wstrict-prototypes -Wmissing-prototypes -g -O2 \
	-Iinclude -Iarch/$(ARCH)/include -I$(O)/include -MMD -MP

# Sources: everything in these directories (arch/*.c: the hooks every arch
# shares) but the firmware readers the configuration leaves out (BOOT_OFF,
# below). The arch may filter more out
# (ARCH_EXCLUDE) and add its own flags, rules and targets.
SRCS_C := $(wildcard common/*.c common/*/*.c boot/*.c boot/*/*.c arch/*.c \
	arch/$(ARCH)/*.c)
SRCS_S := $(wildcard arch/$(ARCH)/*.S)
ARCH_EXCLUDE :=

.PHONY: all run check bench defconfig menuconfig olddefconfig format \
	check-format clean deps unit embed fuzz qemu-test FORCE

all:

include arch/$(ARCH)/arch.mk

# Which firmware readers in boot/ this build has: Kconfig (boot/Kconfig),
# read from .config as Kconfig resolves it (config.mk, generated first).
ifeq ($(filter clean deps format check-format,$(MAKECMDGOALS)),)
-include $(O)/config.mk
endif
BOOT_OFF := \
	$(if $(CONFIG_BOOT_MULTIBOOT),,$(wildcard boot/multiboot*.c)) \
	$(if $(CONFIG_BOOT_FDT),,$(wildcard boot/fdt/*.c)) \
	$(if $(CONFIG_BOOT_ACPI),,$(wildcard boot/acpi/*.c) boot/fdt/acpi_dt.c) \
	$(if $(CONFIG_BOOT_UEFI),,boot/uefi.c) \
	$(if $(CONFIG_BOOT_REPLAY),,boot/fwdesc.c boot/acpi/acpidump.c boot/acpi/acpi_replay.c)

SRCS := $(filter-out $(ARCH_EXCLUDE) $(BOOT_OFF),$(SRCS_C) $(SRCS_S))
OBJS := $(patsubst %,$(O)/%.o,$(SRCS))
AUTOCONF := $(O)/include/generated/autoconf.h

# --- configuration ------------------------------------------------------
$(O)/.config:
	$(Q)$(KCONFIG) defconfig $(ARCH) $(O) $(DEFCONFIG)

# What this Makefile reads of the configuration (BOOT_OFF): .config resolved
# against the Kconfig files (olddefconfig), so that an older or hand-written
# .config (a test's defconfig copy) still gets every default.
KCONFIG_FILES := Kconfig boot/Kconfig common/Kconfig arch/$(ARCH)/Kconfig
$(O)/config.mk: $(O)/.config $(KCONFIG_FILES)
	$(Q)$(KCONFIG) olddefconfig $(ARCH) $(O)
	$(Q)cp $(O)/.config $@

$(AUTOCONF): $(O)/config.mk
	$(Q)$(KCONFIG) genconfig $(ARCH) $(O) --header-path $@

defconfig:
	$(Q)$(KCONFIG) defconfig $(ARCH) $(O) $(DEFCONFIG)
	$(Q)$(KCONFIG) genconfig $(ARCH) $(O) --header-path $(AUTOCONF)

olddefconfig:
	$(Q)$(KCONFIG) olddefconfig $(ARCH) $(O)
	$(Q)$(KCONFIG) genconfig $(ARCH) $(O) --header-path $(AUTOCONF)

menuconfig: $(O)/.config
	$(Q)$(KCONFIG) menuconfig $(ARCH) $(O)
	$(Q)$(KCONFIG) genconfig $(ARCH) $(O) --header-path $(AUTOCONF)

# --- compiling ----------------------------------------------------------
# The compile line this build's objects were made with (written at the end
# of this file): objects depend on it, so a changed line (a pull that made
# keel.elf a PIE) compiles them again instead of linking stale ones.
FLAGS_STAMP := $(O)/flags.txt

$(O)/%.c.o: %.c $(AUTOCONF) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC_ARCH) $(CFLAGS_COMMON) $(ARCH_CFLAGS) -c $< -o $@

$(O)/%.S.o: %.S $(AUTOCONF) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@echo "  AS      $<"
	$(Q)$(CC_ARCH) $(CFLAGS_COMMON) $(ARCH_CFLAGS) $(ARCH_ASFLAGS) -D__ASSEMBLY__ -c $< -o $@

-include $(OBJS:.o=.d)

# The objects this build links, for scripts/check-layers.py, and the check
# itself over every arch's build: no call goes up a layer (DESIGN §1). And
# every path of the tree a comment or a doc names exists (check-paths.py).
LAYER_ARCHES := $(patsubst arch/%/arch.mk,%,$(wildcard arch/*/arch.mk))
.PHONY: objs-list check-layers
objs-list: $(OBJS)
	$(Q)echo $(filter %.o,$(OBJS)) > $(O)/objs.txt

check-layers:
	$(Q)for a in $(LAYER_ARCHES); do \
		$(MAKE) --no-print-directory -s ARCH=$$a objs-list || exit 1; \
	done
	$(Q)$(PYTHON) scripts/check-layers.py $(addprefix build/,$(LAYER_ARCHES))
	$(Q)$(PYTHON) scripts/check-paths.py

# make stress-liveupdate [RUNS=N] [HOGS=K]: each live-update case with
# guests, N times, on both arches (issue 36 §0); not part of make check.
RUNS ?= 20
HOGS ?= 0
.PHONY: stress-liveupdate
stress-liveupdate:
	$(Q)$(MAKE) --no-print-directory ARCH=x86_64
	$(Q)$(MAKE) --no-print-directory ARCH=arm64
	$(Q)$(PYTHON) -m tests.qemu.stress_liveupdate --runs $(RUNS) --hogs $(HOGS)

# --- make lib: the heap as a library (docs/embedding.md) ----------------
# The mm room and the lib objects it calls, nothing else: what a host
# links is listed by `nm -u` on the archive and declared in
# include/keel/hooks.h. The build's configuration goes beside it, for the
# host's -include (include/keel/config.h).
#
# The objects are linked into one (ld -r) and every symbol but the API is
# made local (objcopy --keep-global-symbols): the API is each defined name
# with a keel prefix that the headers a host includes (LIB_HEADERS) name,
# and numa_init_matrix(), exported as keel_numa_init(). printk, panic, sort,
# crc32, memset, ... stay inside: a host may have its own.
#
# `make lib` alone builds the hosted archive (the sandbox's objects:
# position-independent, as gcc builds for Linux); `make lib ARCH=x86_64`
# or arm64 a freestanding one, named after its code model (LIB_MODEL:
# small, the arch's default; kernel on x86_64, for a higher-half host;
# pic on either).
LIB_HEAP_SRCS := $(wildcard common/mm/*.c) $(addprefix common/lib/, \
	printk.c range_table.c enum_names.c lib.c irqsoff.c libc.c lattice.c)
LIB_HEAP_OBJS := $(patsubst %,$(O)/%.o,$(filter-out $(ARCH_EXCLUDE),$(LIB_HEAP_SRCS)))
LIB_HEADERS := $(addprefix include/keel/,heap.h bootmem.h frametable.h \
	heap_boot.h cachemaint.h heap_check.h heap_scrub.h numa.h hooks.h)
LIB_PREFIXES := keel|heap|bootmem|frametable|cachemaint
LIB_RENAME := numa_init_matrix=keel_numa_init
LIB_TOOLS := $(patsubst %gcc,%,$(CC_ARCH))
ifeq ($(ARCH),sandbox)
LIB_HEAP := $(O)/libkeel-heap.a
LIB_MODEL_NOTE := hosted: position-independent (-fPIE), for a Linux program
else
LIB_MODEL_NAME := $(or $(LIB_MODEL),small)
LIB_HEAP := $(O)/libkeel-heap-$(LIB_MODEL_NAME).a
LIB_MODEL_NOTE := freestanding, code model $(LIB_MODEL_NAME)
ifeq ($(LIB_MODEL_NAME)-$(ARCH),kernel-x86_64)
ARCH_CFLAGS := $(filter-out -mcmodel=small,$(ARCH_CFLAGS)) -mcmodel=kernel
LIB_MODEL_NOTE += (-mcmodel=kernel: link in the top 2 GiB)
else ifeq ($(LIB_MODEL_NAME),pic)
ARCH_CFLAGS := $(filter-out -fno-pic -fno-pie,$(ARCH_CFLAGS)) -fPIC
LIB_MODEL_NOTE += (-fPIC: link anywhere)
else ifeq ($(LIB_MODEL_NAME)-$(ARCH),small-x86_64)
LIB_MODEL_NOTE += (-mcmodel=small -fpie: keel's objects; link in the low 2 GiB or a PIE)
else ifeq ($(LIB_MODEL_NAME)-$(ARCH),small-arm64)
LIB_MODEL_NOTE += (-mcmodel=small: PC-relative, code and data within 4 GiB)
else
$(error LIB_MODEL=$(LIB_MODEL) on $(ARCH): small, pic$(if $(filter x86_64,$(ARCH)), or kernel))
endif
endif
LIB_HEAP_CONFIG := $(O)/libkeel-heap-config.h
LIB_HEAP_API := $(O)/libkeel-heap.api
.PHONY: lib lib-here
ifeq ($(origin ARCH)-$(LIB_MODEL),file-)
lib:
	$(Q)$(MAKE) --no-print-directory ARCH=sandbox lib-here
else
lib: lib-here
endif
lib-here: $(LIB_HEAP) $(LIB_HEAP_CONFIG)

$(LIB_HEAP): $(LIB_HEAP_OBJS) $(LIB_HEADERS)
	@echo "  AR      $@"
	$(Q)$(LIB_TOOLS)ld -r -o $@.o $(LIB_HEAP_OBJS)
	$(Q)$(LIB_TOOLS)objcopy $(addprefix --redefine-sym ,$(LIB_RENAME)) $@.o
	$(Q)sed 's,/\*.*\*/,,; s,//.*,,' $(LIB_HEADERS) | \
		grep -oE '\b($(LIB_PREFIXES))_[A-Za-z0-9_]+\b' | \
		sort -u >$@.named
	$(Q)$(LIB_TOOLS)nm -g --defined-only $@.o | awk 'NF == 3 {print $$3}' | \
		sort -u | comm -12 - $@.named >$(LIB_HEAP_API)
	$(Q)$(LIB_TOOLS)objcopy --keep-global-symbols=$(LIB_HEAP_API) $@.o
	$(Q)rm -f $@.tmp $@.named && $(LIB_TOOLS)ar rcs $@.tmp $@.o && \
		rm $@.o && mv $@.tmp $@

$(LIB_HEAP_CONFIG): $(AUTOCONF) Makefile
	$(Q){ echo "/* $(notdir $(LIB_HEAP))'s configuration (make lib) */"; \
		echo "/* $(LIB_MODEL_NOTE) */"; \
		echo "#define KEEL_CONFIG_GIVEN 1"; \
		echo '#define KEEL_LIB_CODE_MODEL "$(or $(LIB_MODEL_NAME),hosted)"'; \
		cat $<; } > $@

# --- deps, tests, formatting ---------------------------------------------
deps:
	$(Q)scripts/install-deps.sh

# `make -j run` on a fresh machine: configure and compile only after deps
# has installed python3-kconfiglib and the compilers.
$(O)/.config: | $(if $(filter deps run run-% check check-scale qemu-test qemu-scale-test,$(MAKECMDGOALS)),deps)

# The tracked C files; outside a git work tree (a tarball), every C file
# but build/. Never empty: clang-format without files would read stdin.
FORMAT_FILES = $(or $(shell git ls-files '*.c' '*.h' 2>/dev/null), \
	$(shell find . -path ./build -prune -o \( -name '*.c' -o -name '*.h' \) \
		-type f -print))
format:
	$(Q)clang-format -i $(FORMAT_FILES)

check-format:
	$(Q)clang-format --dry-run --Werror $(FORMAT_FILES) </dev/null

# make check: everything CI runs (scripts/check.sh runs each step even when
# an earlier one failed, then prints one summary line).
check: deps
	$(Q)scripts/check.sh

include tests/tests.mk
-include tests/bench.mk
-include tests/tsan.mk
-include tests/report.mk

# Last, once every flag is final: rewrite the stamp only when the line changed.
FLAGS_LINE := $(CC_ARCH) $(CFLAGS_COMMON) $(ARCH_CFLAGS) $(ARCH_ASFLAGS)
ifneq ($(filter-out clean deps format check-format,$(or $(MAKECMDGOALS),all)),)
ifneq ($(FLAGS_LINE),$(file <$(FLAGS_STAMP)))
$(shell mkdir -p $(O))
$(file >$(FLAGS_STAMP),$(FLAGS_LINE))
endif
endif
$(FLAGS_STAMP):
	$(Q)mkdir -p $(dir $@) && echo '$(FLAGS_LINE)' > $@

clean:
	rm -rf build
