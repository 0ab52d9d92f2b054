# SPDX-License-Identifier: MIT
# ThreadSanitizer: the sandbox (CPUs are pthreads) built with
# -fsanitize=thread into build/sandbox-tsan/ from the same source lists as
# every sandbox build (arch/sandbox/arch.mk adds the flags for
# SANITIZE=thread), then a short stress run with the idle scrub still going
# in the background. Any TSan report fails: halt_on_error stops the run at
# the first one with exit code 66. The verdict line must say PASS too.
#
#   make tsan           build build/sandbox-tsan/keel
#   make tsan-test      build and run (TSAN_CMDLINE, TSAN_FW to vary it)

TSAN_O := build/sandbox-tsan
TSAN_FW ?= tests/data/sandbox-2node.fw
TSAN_CMDLINE ?= stress=2 bootscrub=idle
TSAN_TIMEOUT ?= 600
TSAN_LOG := $(TSAN_O)/tsan-test.log

.PHONY: tsan tsan-test

tsan:
	$(Q)$(MAKE) --no-print-directory ARCH=sandbox SANITIZE=thread \
		O=$(TSAN_O) $(TSAN_O)/keel

# setarch -R: TSan's shadow layout wants no ASLR on some kernels; harmless
# elsewhere, skipped when setarch is missing.
tsan-test: tsan
	@echo "  TSAN    $(TSAN_O)/keel $(TSAN_FW) $(TSAN_CMDLINE)"
	$(Q)rc=0; \
	norand=$$(command -v setarch >/dev/null && echo "setarch $$(uname -m) -R"); \
	TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 $(TSAN_OPTIONS_EXTRA)" \
		timeout $(TSAN_TIMEOUT) $$norand $(TSAN_O)/keel $(TSAN_FW) \
		$(TSAN_CMDLINE) >$(TSAN_LOG) 2>&1 || rc=$$?; \
	if [ $$rc -eq 66 ] || grep -q "WARNING: ThreadSanitizer" $(TSAN_LOG); then \
		grep -A40 "WARNING: ThreadSanitizer" $(TSAN_LOG) | head -80; \
		echo "FAILED: ThreadSanitizer report (full log: $(TSAN_LOG))"; exit 1; \
	fi; \
	if [ $$rc -eq 124 ]; then \
		echo "FAILED: timeout after $(TSAN_TIMEOUT)s (log: $(TSAN_LOG))"; exit 1; \
	fi; \
	if [ $$rc -ne 0 ] || ! grep -q "^KEEL: PASS" $(TSAN_LOG); then \
		grep -v "^KEEL-REPORT" $(TSAN_LOG) | tail -20; \
		echo "FAILED: exit $$rc, no KEEL: PASS (log: $(TSAN_LOG))"; exit 1; \
	fi
