# SPDX-License-Identifier: MIT
# Unit tests: cmocka, one file per subsystem, linked against the real
# sources built for the sandbox arch with ASan and UBSan.

UNIT_SRCS := $(wildcard tests/unit/*_test.c)
UNIT_BINS := $(patsubst tests/unit/%.c,build/sandbox-asan/tests/%,$(UNIT_SRCS))

unit:
	$(Q)$(MAKE) --no-print-directory ARCH=sandbox SANITIZE=1 unit-run

ifeq ($(ARCH)-$(SANITIZE),sandbox-1)
# The fixture (tests/unit/common.{c,h}) is compiled once and linked into
# every test binary.
UNIT_COMMON := build/sandbox-asan/tests/common.o
$(UNIT_COMMON): tests/unit/common.c tests/unit/common.h $(AUTOCONF)
	@mkdir -p $(dir $@)
	@echo "  TEST-CC $<"
	$(Q)$(CC_ARCH) $(CFLAGS_COMMON) $(ARCH_CFLAGS) -Itests/unit -c -o $@ $<

build/sandbox-asan/tests/%: tests/unit/%.c tests/unit/common.h $(UNIT_COMMON) $(SANDBOX_LIB)
	@mkdir -p $(dir $@)
	@echo "  TEST-CC $<"
	$(Q)$(CC_ARCH) $(CFLAGS_COMMON) $(ARCH_CFLAGS) -Wno-missing-prototypes -Itests/unit -o $@ $< $(UNIT_COMMON) $(SANDBOX_LIB) $(ARCH_LDFLAGS) -lcmocka -lfdt

# Device tree fixtures for fdt_test (dt-quirks.dts is malformed on purpose: -q).
DT_DTBS := $(patsubst tests/data/%.dts,build/sandbox-asan/tests/data/%.dtb,$(wildcard tests/data/*.dts))
build/sandbox-asan/tests/data/%.dtb: tests/data/%.dts
	@mkdir -p $(dir $@)
	$(Q)dtc -q -I dts -O dtb -o $@ $<

# ACPI table fixtures for acpi_test, compiled with iasl.
ACPI_DSL := $(wildcard tests/data/acpi/*.dsl)
ACPI_AML := $(patsubst tests/data/acpi/%.dsl,build/sandbox-asan/tests/data/acpi/%.aml,$(ACPI_DSL))
$(ACPI_AML) &: $(ACPI_DSL) scripts/acpi-fixtures.sh
	$(Q)scripts/acpi-fixtures.sh

# The headers each test and the fixture include (gcc -MMD): a changed
# struct rebuilds them, not only the library.
-include $(UNIT_COMMON:.o=.d) $(addsuffix .d,$(UNIT_BINS))

unit-run: $(UNIT_BINS) $(DT_DTBS) $(ACPI_AML)
	$(Q)fail=0; for t in $(UNIT_BINS); do \
		echo "  RUN     $$t"; \
		(cd $(TOP) && ASAN_OPTIONS=detect_leaks=0 $$t) || { echo "FAILED: $$t"; fail=1; }; \
	done; exit $$fail
endif

# make embed: the heap's second user (tests/embed/, docs/embedding.md), a
# Linux program that is not arch/sandbox: only include/ on its path, only
# libkeel-heap.a linked (the sandbox build's, with the unit tests'
# sanitisers). It must print "embed: PASS", and its --break-holes run
# (holes given to bootmem as RAM, checked as holes) must fail. Beside it:
# the same program with a host that has its own printk, panic, crc32,
# sort and memset (collide.c), a C++ host (cxx_host.cc), each header a
# host includes compiled alone as C++ and beside <zlib.h>, the archives'
# exported names (check_exports.sh), keel/heap.h's function count
# (check_heap_api.sh: at most 14), and every line of
# docs/embedding.md's sh blocks (doc_lines.sh).
embed:
	$(Q)$(MAKE) --no-print-directory ARCH=sandbox SANITIZE=1 embed-run

ifeq ($(ARCH)-$(SANITIZE),sandbox-1)
EMBED_BIN := $(O)/tests/embed
EMBED_SRCS := tests/embed/embed.c tests/embed/host.c
EMBED_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter \
	-Wshadow -Wstrict-prototypes -Wmissing-prototypes -g -O1 \
	-fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-Iinclude -include $(LIB_HEAP_CONFIG)
EMBED_DEPS := $(EMBED_SRCS) tests/embed/embed.h $(LIB_HEAP) $(LIB_HEAP_CONFIG)

$(EMBED_BIN): $(EMBED_DEPS) tests/embed/hooks_match.c
	@mkdir -p $(dir $@)
	@echo "  EMBED   $@"
	$(Q)$(CC_ARCH) $(EMBED_CFLAGS) -fsyntax-only tests/embed/hooks_match.c
	$(Q)$(CC_ARCH) $(EMBED_CFLAGS) -o $@ $(EMBED_SRCS) $(LIB_HEAP)

# The colliding host: collide.c without sanitisers or builtins (its
# memset must stay a loop), linked before the archive.
EMBED_COLLIDE_FLAGS := -std=gnu11 -Wall -Wextra -Werror -O1 -fno-builtin -Iinclude
$(O)/tests/embed-collide: $(EMBED_DEPS) tests/embed/collide.c
	@mkdir -p $(dir $@)
	@echo "  EMBED   $@"
	$(Q)$(CC_ARCH) $(EMBED_COLLIDE_FLAGS) -include $(LIB_HEAP_CONFIG) \
		-c -o $@-collide.o tests/embed/collide.c
	$(Q)$(CC_ARCH) $(EMBED_CFLAGS) -o $@ $(EMBED_SRCS) $@-collide.o $(LIB_HEAP)

$(O)/tests/embed-cxx: $(EMBED_DEPS) tests/embed/cxx_host.cc
	@mkdir -p $(dir $@)
	@echo "  EMBED   $@"
	$(Q)g++ -std=c++17 -Wall -Wextra -Werror -g -O1 \
		-fsanitize=address,undefined -Iinclude -include $(LIB_HEAP_CONFIG) \
		-c -o $@-main.o tests/embed/cxx_host.cc
	$(Q)$(CC_ARCH) $(EMBED_CFLAGS) -c -o $@-host.o tests/embed/host.c
	$(Q)g++ -fsanitize=address,undefined -pthread -o $@ $@-main.o \
		$@-host.o $(LIB_HEAP)

# What a host's header may pull in: the others of the list, keel's types,
# configuration, node limits, lock storage and enum names; not keel/string.h (whose
# crc32 is not zlib's), printk.h, bug.h or bootinfo.h.
EMBED_HDR_OK := $(LIB_HEADERS) $(addprefix include/keel/,types.h config.h \
	lock_type.h enum_names.h node_limits.h)
EMBED_HDR_FLAGS := -Wall -Wextra -Werror -Iinclude -include $(LIB_HEAP_CONFIG)
embed-headers: $(LIB_HEAP_CONFIG)
	$(Q)for h in $(LIB_HEADERS); do \
		i="#include <$${h#include/}>"; \
		printf '%s\n' "$$i" | g++ -x c++ -std=c++17 -fsyntax-only \
			$(EMBED_HDR_FLAGS) - || { echo "embed: FAIL ($$h as C++)"; exit 1; }; \
		printf '#include <zlib.h>\n%s\n' "$$i" | $(CC_ARCH) -x c -std=gnu11 \
			-fsyntax-only $(EMBED_HDR_FLAGS) - || \
			{ echo "embed: FAIL ($$h after <zlib.h>)"; exit 1; }; \
		printf '%s\n#include <zlib.h>\n' "$$i" | $(CC_ARCH) -x c -std=gnu11 \
			-fsyntax-only $(EMBED_HDR_FLAGS) - || \
			{ echo "embed: FAIL ($$h before <zlib.h>)"; exit 1; }; \
		extra=$$(printf '%s\n' "$$i" | $(CC_ARCH) -x c -M $(EMBED_HDR_FLAGS) - | \
			tr ' \\' '\n\n' | grep '^include/' | \
			grep -vxF $(patsubst %,-e %,$(EMBED_HDR_OK)) || true); \
		[ -z "$$extra" ] || { echo "embed: FAIL ($$h pulls in $$extra)"; exit 1; }; \
	done
	@echo "  HEADERS $(words $(LIB_HEADERS)): C++, beside <zlib.h>, nothing else pulled in"

# The hooks the archive calls (nm -u, less what it defines) must be the
# ones include/keel/hooks.h declares: the documented list stays true.
EMBED_T := $(O)/tests/embed-
EMBED_CHECK := tests/embed/check_exports.sh
embed-run: $(EMBED_BIN) $(O)/tests/embed-collide $(O)/tests/embed-cxx embed-headers
	$(Q)nm -u $(LIB_HEAP) | awk '{print $$2}' | sort -u >$(EMBED_T)undef.txt
	$(Q)nm --defined-only $(LIB_HEAP) | awk 'NF == 3 {print $$3}' | \
		sort -u >$(EMBED_T)def.txt
	$(Q)comm -23 $(EMBED_T)undef.txt $(EMBED_T)def.txt | grep '^arch_' \
		>$(EMBED_T)needed.txt || true
	$(Q)grep -o 'arch_[a-z_]*(' include/keel/hooks.h | tr -d '(' | \
		sort -u >$(EMBED_T)declared.txt
	$(Q)diff -u $(EMBED_T)declared.txt $(EMBED_T)needed.txt || { \
		echo "embed: FAIL (libkeel-heap.a's hooks are not keel/hooks.h's list)"; \
		exit 1; }
	$(Q)$(EMBED_CHECK) - $(LIB_HEAP) $(LIB_HEADERS)
	$(Q)CC=$(CC_ARCH) tests/embed/check_heap_api.sh 14 $(EMBED_HDR_FLAGS)
	$(Q)$(EMBED_BIN) || exit 1
	$(Q)if $(EMBED_BIN) --break-holes >$(O)/tests/embed-broken.log; then \
		echo "embed: FAIL (the --break-holes run passed: the checks cannot fail)"; \
		exit 1; \
	fi
	$(Q)$(O)/tests/embed-collide >$(EMBED_T)collide.log || { \
		cat $(EMBED_T)collide.log; echo "embed: FAIL (the colliding host)"; exit 1; }
	$(Q)sed 's/^embed:/embed-collide:/' $(EMBED_T)collide.log
	$(Q)$(O)/tests/embed-cxx
	$(Q)tests/embed/doc_lines.sh $(TOP)/$(O)/tests/embed-doc
	$(Q)$(EMBED_CHECK) - build/sandbox/libkeel-heap.a $(LIB_HEADERS)
	$(Q)$(EMBED_CHECK) - build/x86_64/libkeel-heap-small.a $(LIB_HEADERS)
	$(Q)$(EMBED_CHECK) - build/x86_64-kernel/libkeel-heap-kernel.a $(LIB_HEADERS)
	$(Q)$(EMBED_CHECK) - build/x86_64-pic/libkeel-heap-pic.a $(LIB_HEADERS)
	$(Q)$(EMBED_CHECK) aarch64-linux-gnu- build/arm64/libkeel-heap-small.a $(LIB_HEADERS)
	$(Q)$(EMBED_CHECK) aarch64-linux-gnu- build/arm64-pic/libkeel-heap-pic.a $(LIB_HEADERS)
	$(Q)$(MAKE) --no-print-directory embed-collide-small
	@echo "embed: PASS (the programs, the colliding and C++ hosts, the page's lines)"

# The colliding host against the freestanding x86_64 archive (the doc
# lines built it): keel's own memset is inside it, the host's outside.
EMBED_SMALL := build/x86_64/libkeel-heap-small.a
embed-collide-small:
	$(Q)$(CC_ARCH) $(EMBED_COLLIDE_FLAGS) -fno-pie \
		-include build/x86_64/libkeel-heap-config.h \
		-c -o $(EMBED_T)small-collide.o tests/embed/collide.c
	$(Q)$(CC_ARCH) -std=gnu11 -O1 -fno-pie -no-pie -pthread -Iinclude \
		-include build/x86_64/libkeel-heap-config.h -o $(EMBED_T)small \
		$(EMBED_SRCS) $(EMBED_T)small-collide.o $(EMBED_SMALL)
	$(Q)$(EMBED_T)small >$(EMBED_T)small.log || { cat $(EMBED_T)small.log; \
		echo "embed: FAIL (the colliding host, x86_64 small)"; exit 1; }
	$(Q)sed 's/^embed:/embed-collide (x86_64 small):/' $(EMBED_T)small.log
endif

# Fuzz targets: tests/fuzz/*_fuzz.c, built with clang and libFuzzer.
FUZZ_SRCS := $(wildcard tests/fuzz/*_fuzz.c)
FUZZ_SECONDS ?= 10

# make check: every target briefly from its seeds. libFuzzer stops after
# SECONDS + 1 s, so 2 keeps 15 targets plus the build near 60 s.
FUZZ_SMOKE_SECONDS ?= 2
fuzz-smoke:
	$(Q)if [ -n "$(FUZZ_SRCS)" ]; then scripts/fuzz.sh build $(FUZZ_SRCS) && scripts/fuzz.sh run --smoke $(FUZZ_SMOKE_SECONDS) $(FUZZ_SRCS); fi

fuzz:
	$(Q)scripts/fuzz.sh build $(FUZZ_SRCS) && scripts/fuzz.sh run $(FUZZ_SECONDS) $(FUZZ_SRCS)

# Real arm64 machines' device trees (tests/data/machines/src, README.md
# there), built as Linux builds its dtbs: cpp for the #includes, then dtc.
# The replay finds them next to the binary, in $(O)/machines.
MACHINE_SRC := tests/data/machines/src
MACHINE_DTBS := $(patsubst $(MACHINE_SRC)/%.dts,$(O)/machines/%.dtb,$(wildcard $(MACHINE_SRC)/*.dts))
$(O)/machines/%.dtb: $(MACHINE_SRC)/%.dts $(wildcard $(MACHINE_SRC)/*.dtsi $(MACHINE_SRC)/include/*/*/*.h)
	@mkdir -p $(dir $@)
	@echo "  DTC     $@"
	$(Q)cpp -nostdinc -undef -x assembler-with-cpp -D__DTS__ -I $(MACHINE_SRC)/include $< | \
		dtc -q -I dts -O dtb -i $(MACHINE_SRC) -o $@ -

# Sandbox end to end (the real binary on firmware descriptions), then the
# replay of real machines' firmware (tests/data/machines, docs/replay.md).
sandbox-test: $(O)/keel $(MACHINE_DTBS)
	$(Q)$(PYTHON) -m tests.sandbox.run $(O)/keel && \
		$(PYTHON) -m tests.machines.replay $(O)/keel

replay-test: $(O)/keel $(MACHINE_DTBS)
	$(Q)$(PYTHON) -m tests.machines.replay $(O)/keel

# Hostile firmware maps booted on the sandbox, each checked for its
# invariants (scripts/fuzz-maps.py, docs/fuzzing.md). N cases of seed SEED;
# failing maps and their logs are kept in FUZZ_MAPS_KEEP for replay with
# `scripts/fuzz-maps.py --replay FILE.fw`. make check runs the smoke (the
# first FUZZ_MAPS_SMOKE_N cases of seed 1).
N ?= 1000
SEED ?= 1
FUZZ_MAPS_SMOKE_N ?= 300
FUZZ_MAPS_KEEP ?= build/fuzz-maps
FUZZ_MAPS = $(PYTHON) scripts/fuzz-maps.py --keel build/sandbox/keel \
	--keep-failures $(FUZZ_MAPS_KEEP)

.PHONY: fuzz-maps fuzz-maps-smoke
fuzz-maps:
	$(Q)$(MAKE) --no-print-directory ARCH=sandbox all
	$(Q)$(FUZZ_MAPS) --seed $(SEED) --count $(N)

fuzz-maps-smoke:
	$(Q)$(MAKE) --no-print-directory ARCH=sandbox all
	$(Q)$(FUZZ_MAPS) --seed 1 --count $(FUZZ_MAPS_SMOKE_N)

# make check-scale: the big-machine boots too slow for make check on a
# 2-core CI runner (240 x86_64 CPUs in 2 nodes, 256 arm64 CPUs in 4;
# each case's measured time is in its comment). make check keeps one boot
# over 128 CPUs per arch. Both arches run even when the first fails.
.PHONY: check-scale qemu-scale-test
check-scale: deps
	$(Q)fail=0; for a in x86_64 arm64; do \
		$(MAKE) --no-print-directory ARCH=$$a all && \
		$(MAKE) --no-print-directory ARCH=$$a qemu-scale-test || fail=1; \
	done; exit $$fail
