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
