# SPDX-License-Identifier: MIT
# ThreadSanitizer: the sandbox (CPUs are pthreads) built with
# -fsanitize=thread into build/sandbox-tsan/ from the same source lists as
# every sandbox build (arch/sandbox/arch.mk adds the flags for
# SANITIZE=thread), then three runs: a short stress run with the idle scrub
# still going in the background, the latency probe (its timer signal
# interrupting the probe CPU's thread while the other CPUs build), and a
# short churn (every CPU allocating, freeing and building domains on the
# runtime heap with its per-CPU caches on, then re-scrubbing). Any
# TSan report fails: halt_on_error stops the run at the first one with
# exit code 66. The verdict line must say PASS too.
#
#   make tsan           build build/sandbox-tsan/keel
#   make tsan-test      build and run all three (TSAN_CMDLINE,
#                       TSAN_LATENCY_CMDLINE, TSAN_CHURN_CMDLINE, TSAN_FW
#                       to vary them)

TSAN_O := build/sandbox-tsan
TSAN_FW ?= tests/data/sandbox-2node.fw
TSAN_CMDLINE ?= stress=2 bootscrub=idle
# About 15 s under TSan on a quiet 2-core host; the timeout is 40x that.
TSAN_LATENCY_CMDLINE ?= latency=on bootscrub=off
# About 13 s under TSan on a 2-core host shared with other jobs, 10 s of it
# the boot scrub (kept on: then the domains' dirty memory is re-scrubbed on
# every CPU at the end); the timeout is 40x that.
TSAN_CHURN_CMDLINE ?= churn=2 audit=full
TSAN_TIMEOUT ?= 600

.PHONY: tsan tsan-test

tsan:
	$(Q)$(MAKE) --no-print-directory ARCH=sandbox SANITIZE=thread \
		O=$(TSAN_O) $(TSAN_O)/keel

# setarch -R: TSan's shadow layout wants no ASLR on some kernels; harmless
# elsewhere, skipped when setarch is missing.
tsan-test: tsan
	$(Q)norand=$$(command -v setarch >/dev/null && echo "setarch $$(uname -m) -R"); \
	n=0; for cl in "$(TSAN_CMDLINE)" "$(TSAN_LATENCY_CMDLINE)" \
		"$(TSAN_CHURN_CMDLINE)"; do \
	n=$$((n + 1)); log=$(TSAN_O)/tsan-test-$$n.log; rc=0; \
	echo "  TSAN    $(TSAN_O)/keel $(TSAN_FW) $$cl"; \
	TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 $(TSAN_OPTIONS_EXTRA)" \
		timeout $(TSAN_TIMEOUT) $$norand $(TSAN_O)/keel $(TSAN_FW) \
		$$cl >$$log 2>&1 || rc=$$?; \
	if [ $$rc -eq 66 ] || grep -q "WARNING: ThreadSanitizer" $$log; then \
		grep -A40 "WARNING: ThreadSanitizer" $$log | head -80; \
		echo "FAILED: ThreadSanitizer report (full log: $$log)"; exit 1; \
	fi; \
	if [ $$rc -eq 124 ]; then \
		echo "FAILED: timeout after $(TSAN_TIMEOUT)s (log: $$log)"; exit 1; \
	fi; \
	if [ $$rc -ne 0 ] || ! grep -q "^KEEL: PASS" $$log; then \
		grep -v "^KEEL-REPORT" $$log | tail -20; \
		echo "FAILED: exit $$rc, no KEEL: PASS (log: $$log)"; exit 1; \
	fi; \
	done
