# SPDX-License-Identifier: MIT
# make bench: the sandbox benchmarks of DESIGN §9 (heap handoff per mode and
# RAM size, scrub GB/s against a streaming-store baseline), printed as a
# markdown table. Always measures the optimised (non-ASan) sandbox build.
# BENCH_ARGS=--quick stops the handoff sizes at 64 GiB.

BENCH_KEEL := build/sandbox/keel
BENCH_BASELINE := build/bench/memset_baseline
BENCH_ARGS ?=

.PHONY: bench bench-sandbox

$(BENCH_BASELINE): tests/bench/memset_baseline.c
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $<"
	$(Q)gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o $@ $<

bench: bench-sandbox

bench-sandbox: $(BENCH_BASELINE)
	$(Q)$(MAKE) --no-print-directory ARCH=sandbox SANITIZE=0 O=build/sandbox build/sandbox/keel
	$(Q)$(PYTHON) scripts/bench.py $(BENCH_KEEL) $(BENCH_BASELINE) $(BENCH_ARGS)

# The x86_64 QEMU part (scripts/bench-qemu.py): boot scrub GB/s with -smp
# 1/2/4 on 2 GiB and the speed-up against one worker; heap handoff per
# mode at 1, 16 and 256 GiB of sparse file-backed guest RAM (files under
# build/bench-qemu, deleted after each boot). Not part of `make bench`'s
# default: it takes minutes under TCG.
.PHONY: bench-qemu

bench-qemu:
	$(Q)$(MAKE) --no-print-directory ARCH=x86_64 O=build/x86_64 build/x86_64/keel.elf
	$(Q)$(PYTHON) scripts/bench-qemu.py build/x86_64/keel.elf $(BENCH_QEMU_ARGS)

# The arm64 part (scripts/bench-qemu.py --arch arm64, QEMU virt -cpu max):
# the same scrub and handoff tables, plus bench=on allocation latency on
# 2 nodes x 2.5 GiB (order 18 lock hold, eager against deferred).
.PHONY: bench-qemu-arm64

bench-qemu-arm64:
	$(Q)$(MAKE) --no-print-directory ARCH=arm64 O=build/arm64 build/arm64/Image
	$(Q)$(PYTHON) scripts/bench-qemu.py build/arm64/Image --arch arm64 \
		--work build/bench-qemu-arm64 $(BENCH_QEMU_ARGS)
