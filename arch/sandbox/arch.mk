# SPDX-License-Identifier: MIT
# The sandbox: keel as a Linux process. RAM is an mmap arena, CPUs are
# pthreads. One file per arch header (cpu.c, mm.c, console.c, cache.c,
# scrub.c, smp.c), the firmware replay (replay.c), main() (main.c), the
# canary.c test observer, and os.c: the only file that includes host
# headers, behind <asm/os.h>. libc provides the string functions of
# <keel/string.h>, so keel's own copies (common/lib/libc.c) are left out.

CC_ARCH := gcc
ARCH_CFLAGS := -fno-omit-frame-pointer -pthread
ARCH_LDFLAGS := -pthread
ARCH_EXCLUDE := common/lib/libc.c
# On an x86-64 host, x86_64's CRC folding (arch/sandbox/crc.c uses it).
ifeq ($(shell uname -m),x86_64)
SRCS_S += arch/x86_64/crc_fold.S
endif

ifeq ($(SANITIZE),1)
ARCH_CFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=undefined -O1
ARCH_LDFLAGS += -fsanitize=address,undefined
endif

# SANITIZE=thread: the ThreadSanitizer build of tests/tsan.mk (its own O=).
ifeq ($(SANITIZE),thread)
ARCH_CFLAGS += -fsanitize=thread -O1
ARCH_LDFLAGS += -fsanitize=thread
endif

SANDBOX_LIB := $(O)/libkeel.a

all: $(O)/keel

# OBJS is only defined after this file is included: expand it late.
.SECONDEXPANSION:
$(SANDBOX_LIB): $$(OBJS)
	@echo "  AR      $@"
	$(Q)rm -f $@.tmp && ar rcs $@.tmp $^ && mv $@.tmp $@

$(O)/keel: $(SANDBOX_LIB)
	@echo "  LD      $@"
	$(Q)$(CC_ARCH) $(ARCH_LDFLAGS) -o $@ -Wl,--whole-archive $< -Wl,--no-whole-archive -lfdt

SANDBOX_FW ?= tests/data/sandbox-2node.fw
run: deps $(O)/keel
	$(Q){ $(O)/keel --prefault $(SANDBOX_FW) $(CMDLINE); echo $$? > $(O)/run.rc; } | \
		tee $(O)/run.log; \
		echo "make run: serial log in $(O)/run.log (pictures: make report LOG=$(O)/run.log)"; \
		exit $$(cat $(O)/run.rc)

# make run-liveupdate ARCH=sandbox (docs/liveupdate.md): 2 domains,
# liveupdate=2: the binary exec()s itself twice over one memfd arena.
# No --prefault: each new process would fault the whole arena in again
# before its heap, inside the downtime it reports.
LU_CMDLINE ?= liveupdate=2 domain=64M@0 domain=64M@1
.PHONY: run-liveupdate
run-liveupdate: deps $(O)/keel
	$(Q){ $(O)/keel $(SANDBOX_FW) $(LU_CMDLINE) $(CMDLINE); echo $$? > $(O)/run.rc; } | \
		tee $(O)/run-liveupdate.log; \
		[ $$(cat $(O)/run.rc) -eq 0 ] || exit 1; \
		$(PYTHON) scripts/report.py $(O)/run-liveupdate.log; \
		echo "make run-liveupdate: serial log in $(O)/run-liveupdate.log"
