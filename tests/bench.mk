# SPDX-License-Identifier: MIT
# make bench: the benchmarks of DESIGN §9, the single entry point.
#
#   make bench                 every part in turn (one QEMU at a time):
#                              sandbox, x86_64, arm64 (handoff, scrub,
#                              allocation), smp (CPU bring-up), domains
#                              (guests' memory), latency (interrupt latency
#                              while domains are built), guests (guest walk
#                              throughput through stage 2), liveupdate (the
#                              downtime of a live update), runtime (the heap
#                              at runtime against an in-tree reference
#                              allocator, and opening it), ras (memory
#                              that fails: offline per chunk order, the
#                              handoff and a live update with 100,000 bad
#                              pages); then the combined table, the
#                              handoff plot and the page
#   make bench BENCH_QUICK=1   short run (smaller sizes, one boot per cell)
#   make bench BENCH_PARTS="sandbox arm64"   a subset of the parts
#
# Every part writes its full markdown and its machine-readable results to
# build/bench/<part>.md and build/bench/<part>.json (sandbox, qemu-x86_64,
# qemu-arm64, smp, domains, latency); scripts/bench-plot.py reads the first
# three, prints the combined table and draws handoff time against RAM size
# (log-log) to $(BENCH_PLOT): docs/img/handoff.png for a full run,
# build/bench/handoff.png for BENCH_QUICK=1 (a quick run does not replace
# the documented picture); then scripts/bench-doc.py writes the page
# $(BENCH_DOC) from this run's files (docs/benchmarks.md for a full run,
# $(BENCH_DIR)/benchmarks.md for a quick one).
#
# The parts alone, markdown on stdout (and JSON under build/bench):
#   make bench-sandbox   make bench-qemu (x86_64)   make bench-qemu-arm64
#   make bench-smp (CPU bring-up, all three platforms)
# Extra script arguments: BENCH_ARGS (bench.py), BENCH_QEMU_ARGS
# (bench-qemu.py). Always the optimised (non-ASan) builds.

BENCH_KEEL := build/sandbox/keel
BENCH_BASELINE := build/bench/memset_baseline
BENCH_DIR := build/bench
BENCH_ARGS ?=
BENCH_QEMU_ARGS ?=
BENCH_QUICK ?= 0
BENCH_PARTS ?= sandbox x86_64 arm64 smp domains latency guests liveupdate \
	runtime ras
ifeq ($(BENCH_QUICK),1)
BENCH_QARG := --quick
BENCH_PLOT ?= $(BENCH_DIR)/handoff.png
BENCH_DOC ?= $(BENCH_DIR)/benchmarks.md
else
BENCH_QARG :=
BENCH_PLOT ?= docs/img/handoff.png
BENCH_DOC ?= docs/benchmarks.md
endif

# This run's result files, in the order of BENCH_PARTS.
BENCH_JSON = $(foreach p,$(filter sandbox x86_64 arm64,$(BENCH_PARTS)),$(BENCH_DIR)/$(if \
	$(filter sandbox,$(p)),sandbox,qemu-$(p)).json)

BENCH_RUN_SANDBOX = $(PYTHON) scripts/bench.py $(BENCH_KEEL) \
	$(BENCH_BASELINE) $(BENCH_QARG) $(BENCH_ARGS) \
	--json $(BENCH_DIR)/sandbox.json
BENCH_RUN_X86 = $(PYTHON) scripts/bench-qemu.py build/x86_64/keel.elf \
	$(BENCH_QARG) $(BENCH_QEMU_ARGS) --json $(BENCH_DIR)/qemu-x86_64.json
# Guests' memory (scripts/bench-domains.py): clean build time 1 GiB..1 TiB,
# dirty build against the boot scrub (sandbox), and a 2 GiB domain on QEMU
# arm64 with deferred against eager cache maintenance.
BENCH_RUN_DOMAINS = $(PYTHON) scripts/bench-domains.py $(BENCH_KEEL) \
	$(if $(filter arm64,$(BENCH_PARTS)),--arm64-image build/arm64/Image) \
	$(BENCH_QARG) --json $(BENCH_DIR)/domains.json
# CPU bring-up (issue 24): not a handoff/scrub result for bench-plot.py,
# a part of its own on the page bench-doc.py writes.
BENCH_RUN_SMP = $(PYTHON) scripts/bench-smp.py $(BENCH_QARG) \
	--json $(BENCH_DIR)/smp.json
# Interrupt latency while domains are built (issue 23): QEMU x86_64 and
# arm64, 1 GiB against 2 MiB extents; about a minute.
BENCH_RUN_LATENCY = $(PYTHON) scripts/bench-latency.py \
	--json $(BENCH_DIR)/latency.json
# Guests that run (issue 31): their walk through stage 2 against the boot
# scrub on the same CPUs, QEMU arm64 (EL2) and x86_64 (SVM+NPT).
BENCH_RUN_GUESTS = $(PYTHON) scripts/bench-guests.py $(BENCH_QARG) \
	--json $(BENCH_DIR)/guests.json
# Live update (issue 30): downtime against preserved bytes and domain count
# in the sandbox, 2 GiB and 64 GiB on QEMU x86_64 and arm64 against a cold
# boot's scrub of the same machine.
BENCH_RUN_LIVEUPDATE = $(PYTHON) scripts/bench-liveupdate.py $(BENCH_KEEL) \
	--x86-elf build/x86_64/keel.elf --arm64-image build/arm64/Image \
	--work build/bench-liveupdate $(BENCH_QARG) \
	--json $(BENCH_DIR)/liveupdate.json
# The heap at runtime (issue 37): tests/bench/heap_runtime, a host linking
# the optimised sandbox build's libkeel-heap.a with its own lock hook,
# beside an in-tree reference allocator, and the `bench: runtime` lines of
# bench=on boots on QEMU x86_64 and arm64; about a minute (quick: 30 s).
BENCH_RUNTIME := $(BENCH_DIR)/heap_runtime
BENCH_RUNTIME_SRCS := tests/bench/heap_runtime.c tests/embed/host.c \
	tests/bench/runtime_ref.c
BENCH_RUN_RUNTIME = $(PYTHON) scripts/bench-runtime.py --bin $(BENCH_RUNTIME) \
	$(BENCH_QARG) --json $(BENCH_DIR)/runtime.json
# Memory that fails (issue 38): tests/bench/heap_offline (a host linking
# the optimised sandbox build's libkeel.a: one offline in a free chunk of
# order 0, 9 and 18), then the 1 TiB sandbox machine's handoff with 0,
# 1,000 and 100,000 bad pages (and a 4 GiB prefaulted machine with 0
# and 1,000: the same without host page faults), its live update with 0
# and 100,000 bad pages; about a minute (quick: 30 s).
BENCH_OFFLINE := $(BENCH_DIR)/heap_offline
BENCH_RUN_RAS = $(PYTHON) scripts/bench-ras.py $(BENCH_KEEL) \
	--offline-bin $(BENCH_OFFLINE) --work build/bench-ras $(BENCH_QARG) \
	--json $(BENCH_DIR)/ras.json
BENCH_RUN_ARM64 = $(PYTHON) scripts/bench-qemu.py build/arm64/Image \
	--arch arm64 --work build/bench-qemu-arm64 $(BENCH_QARG) \
	$(BENCH_QEMU_ARGS) --json $(BENCH_DIR)/qemu-arm64.json

.PHONY: bench bench-sandbox bench-qemu bench-qemu-arm64 bench-domains \
	bench-latency bench-guests bench-build-guests bench-build-sandbox \
	bench-build-x86_64 bench-build-arm64 bench-plot bench-smp \
	bench-build-smp bench-build-domains bench-build-latency \
	bench-liveupdate bench-build-liveupdate bench-runtime bench-build-runtime \
	bench-ras bench-build-ras

$(BENCH_BASELINE): tests/bench/memset_baseline.c
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $<"
	$(Q)gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o $@ $< -lpthread

BENCH_SUBMAKE = $(MAKE) --no-print-directory

# The library first (its own make: the sandbox's objects, no sanitiser),
# then the benchmark against it, as a host would build it.
$(BENCH_RUNTIME): $(BENCH_RUNTIME_SRCS) tests/bench/runtime.h \
		tests/bench/bench_clock.h tests/bench/bench_heap.h tests/embed/embed.h \
		build/sandbox/libkeel-heap.a
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $@"
	$(Q)gcc -std=gnu11 -O2 -Wall -Wextra -Werror -pthread -Iinclude \
		-include build/sandbox/libkeel-heap-config.h -o $@ \
		$(BENCH_RUNTIME_SRCS) build/sandbox/libkeel-heap.a

bench-build-runtime: bench-build-x86_64 bench-build-arm64
	$(Q)$(BENCH_SUBMAKE) ARCH=sandbox SANITIZE=0 O=build/sandbox lib-here
	$(Q)$(BENCH_SUBMAKE) $(BENCH_RUNTIME) $(BENCH_AGING)

# The heap after years of churn (a subsection of the runtime part,
# scripts/bench-aging.py, called by scripts/bench-runtime.py): the same
# library and host hooks, a long hypervisor-like mix on 2 threads.
BENCH_AGING := $(BENCH_DIR)/heap_aging
$(BENCH_AGING): tests/bench/heap_aging.c tests/bench/bench_clock.h tests/bench/heap_frag.h \
		tests/bench/bench_heap.h \
		tests/embed/host.c tests/embed/embed.h build/sandbox/libkeel-heap.a
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $@"
	$(Q)gcc -std=gnu11 -O2 -Wall -Wextra -Werror -pthread -Iinclude \
		-include build/sandbox/libkeel-heap-config.h -o $@ \
		tests/bench/heap_aging.c tests/embed/host.c \
		build/sandbox/libkeel-heap.a

# The whole sandbox library: heap_offline() and the boot it needs
# (bootmem, the frame table) are not in libkeel-heap.a.
$(BENCH_OFFLINE): tests/bench/heap_offline.c build/sandbox/libkeel.a
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $@"
	$(Q)gcc -std=gnu11 -O2 -Wall -Wextra -Werror -Iinclude \
		-Iarch/sandbox/include -Ibuild/sandbox/include -o $@ $< \
		build/sandbox/libkeel.a -lfdt

bench-build-ras: bench-build-sandbox
	$(Q)$(BENCH_SUBMAKE) $(BENCH_OFFLINE)

bench-build-sandbox: $(BENCH_BASELINE)
	$(Q)$(BENCH_SUBMAKE) ARCH=sandbox SANITIZE=0 O=build/sandbox \
		build/sandbox/keel

bench-build-x86_64:
	$(Q)$(BENCH_SUBMAKE) ARCH=x86_64 O=build/x86_64 build/x86_64/keel.elf

bench-build-arm64:
	$(Q)$(BENCH_SUBMAKE) ARCH=arm64 O=build/arm64 build/arm64/Image

# One recipe, so that even `make -j bench` runs the parts one after the
# other (never two QEMUs at a time). Old results are removed first: the
# combined table and the plot show this run only.
BENCH_STEP_sandbox = $(BENCH_RUN_SANDBOX) --md $(BENCH_DIR)/sandbox.md &&
BENCH_STEP_x86_64 = $(BENCH_RUN_X86) --md $(BENCH_DIR)/qemu-x86_64.md &&
BENCH_STEP_arm64 = $(BENCH_RUN_ARM64) --md $(BENCH_DIR)/qemu-arm64.md &&
BENCH_STEP_smp = $(BENCH_RUN_SMP) --md $(BENCH_DIR)/smp.md &&
BENCH_STEP_domains = $(BENCH_RUN_DOMAINS) --md $(BENCH_DIR)/domains.md &&
BENCH_STEP_latency = $(BENCH_RUN_LATENCY) --md $(BENCH_DIR)/latency.md &&
BENCH_STEP_guests = $(BENCH_RUN_GUESTS) --md $(BENCH_DIR)/guests.md &&
BENCH_STEP_liveupdate = $(BENCH_RUN_LIVEUPDATE) --md $(BENCH_DIR)/liveupdate.md &&
BENCH_STEP_runtime = $(BENCH_RUN_RUNTIME) --md $(BENCH_DIR)/runtime.md &&
BENCH_STEP_ras = $(BENCH_RUN_RAS) --md $(BENCH_DIR)/ras.md &&

bench: $(addprefix bench-build-,$(BENCH_PARTS))
	$(Q)mkdir -p $(BENCH_DIR)
	$(Q)rm -f $(BENCH_DIR)/*.json $(BENCH_DIR)/*.md
	$(Q)t0=$$(date +%s); $(foreach p,$(BENCH_PARTS),$(BENCH_STEP_$(p))) \
		$(if $(strip $(BENCH_JSON)),$(PYTHON) scripts/bench-plot.py \
			$(BENCH_JSON) -o $(BENCH_PLOT) &&) \
		$(PYTHON) scripts/bench-doc.py --dir $(BENCH_DIR) \
			--wall $$(($$(date +%s) - t0)) -o $(BENCH_DOC)

# The combined table and the plot again, from the JSON files present.
bench-plot:
	$(Q)$(PYTHON) scripts/bench-plot.py $(wildcard $(BENCH_DIR)/*.json) \
		-o $(BENCH_PLOT)

# Guests' memory alone (the arm64 row when BENCH_PARTS has arm64).
bench-domains: bench-build-sandbox $(if $(filter arm64,$(BENCH_PARTS)),bench-build-arm64)
	$(Q)mkdir -p $(BENCH_DIR)
	$(Q)$(BENCH_RUN_DOMAINS)

# Live update downtime alone (the part `liveupdate` of make bench).
bench-liveupdate: bench-build-liveupdate
	$(Q)mkdir -p $(BENCH_DIR)
	$(Q)$(BENCH_RUN_LIVEUPDATE) --md $(BENCH_DIR)/liveupdate.md

# The heap at runtime alone (the part `runtime` of make bench).
bench-runtime: bench-build-runtime
	$(Q)mkdir -p $(BENCH_DIR)
	$(Q)$(BENCH_RUN_RUNTIME) --md $(BENCH_DIR)/runtime.md

# Memory that fails alone (the part `ras` of make bench).
bench-ras: bench-build-ras
	$(Q)mkdir -p $(BENCH_DIR)
	$(Q)$(BENCH_RUN_RAS) --md $(BENCH_DIR)/ras.md

# Guest walk throughput alone (the part `guests` of make bench).
bench-guests: bench-build-guests
	$(Q)mkdir -p $(BENCH_DIR)
	$(Q)$(BENCH_RUN_GUESTS) --md $(BENCH_DIR)/guests.md

# Interrupt latency alone (the part `latency` of make bench).
bench-latency: bench-build-x86_64 bench-build-arm64
	$(Q)mkdir -p $(BENCH_DIR)
	$(Q)$(BENCH_RUN_LATENCY) --md $(BENCH_DIR)/latency.md

bench-sandbox: bench-build-sandbox
	$(Q)mkdir -p $(BENCH_DIR)
	$(Q)$(BENCH_RUN_SANDBOX)

# QEMU x86_64 (machine pc, TCG): scrub with -smp 1/2/4 on 1 and 2 nodes,
# heap handoff per mode at 1 GiB .. 1 TiB of sparse file-backed guest RAM
# (files under build/bench-qemu, deleted after each boot), bench=on.
bench-qemu: bench-build-x86_64
	$(Q)mkdir -p $(BENCH_DIR)
	$(Q)$(BENCH_RUN_X86)

# CPU bring-up: sandbox 512 vs 2048 CPUs, QEMU 64 vCPUs parallel vs
# serial, growth 8 -> 64 -> 240 (x86_64) / 256 (arm64) vCPUs.
bench-build-smp: bench-build-sandbox bench-build-x86_64 bench-build-arm64
bench-build-domains: bench-build-sandbox bench-build-arm64
bench-build-latency: bench-build-x86_64 bench-build-arm64
bench-build-guests: bench-build-x86_64 bench-build-arm64
bench-build-liveupdate: bench-build-sandbox bench-build-x86_64 bench-build-arm64

bench-smp: bench-build-smp
	$(Q)mkdir -p $(BENCH_DIR)
	$(Q)$(BENCH_RUN_SMP)

# The same on arm64 (QEMU virt, -cpu max, TCG).
bench-qemu-arm64: bench-build-arm64
	$(Q)mkdir -p $(BENCH_DIR)
	$(Q)$(BENCH_RUN_ARM64)
