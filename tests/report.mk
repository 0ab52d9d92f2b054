# SPDX-License-Identifier: MIT
# make report [LOG="a.log b.log ..."] [REPORT_DIR=build/report]
#   Pictures of a boot (docs/tracing.md): $(REPORT_DIR)/boot.json, the
#   Chrome/Perfetto trace of the first LOG, and boot.svg + boot.png, its
#   per-CPU timeline plus, with several LOGs, their phase durations side by
#   side. Without LOG, boots the sandbox once on $(REPORT_FW) (with
#   $(REPORT_CMDLINE)) and draws that.
# make scripts-test: tests/scripts_test.py (trace2perfetto.py, plot-boot.py
#   and keeltrace.py on a real sandbox boot).
# Both use the optimised sandbox build, like make bench.

REPORT_DIR ?= build/report
REPORT_FW ?= tests/data/sandbox-2node.fw
REPORT_CMDLINE ?=
REPORT_KEEL := build/sandbox/keel
REPORT_BUILD = $(MAKE) --no-print-directory ARCH=sandbox SANITIZE=0 \
	O=build/sandbox $(REPORT_KEEL)
REPORT_LOGS = $(if $(LOG),$(LOG),$(REPORT_DIR)/sandbox.log)

.PHONY: report report-sandbox-log scripts-test

report-sandbox-log:
	$(Q)$(REPORT_BUILD)
	@mkdir -p $(REPORT_DIR)
	@echo "  BOOT    $(REPORT_FW) $(REPORT_CMDLINE)"
	$(Q)timeout 300 $(REPORT_KEEL) $(REPORT_FW) $(REPORT_CMDLINE) \
		> $(REPORT_DIR)/sandbox.log 2>&1 || \
		echo "  (keel exited with status $$?: drawing what it logged)"

report: $(if $(LOG),,report-sandbox-log)
	@mkdir -p $(REPORT_DIR)
	@echo "  TRACE   $(REPORT_DIR)/boot.json"
	$(Q)$(PYTHON) scripts/trace2perfetto.py $(firstword $(REPORT_LOGS)) \
		-o $(REPORT_DIR)/boot.json
	@echo "  PLOT    $(REPORT_DIR)/boot.svg $(REPORT_DIR)/boot.png"
	$(Q)$(PYTHON) scripts/plot-boot.py $(REPORT_LOGS) \
		-o $(REPORT_DIR)/boot.svg -o $(REPORT_DIR)/boot.png

scripts-test:
	$(Q)$(REPORT_BUILD)
	$(Q)$(PYTHON) -m tests.scripts_test $(REPORT_KEEL)
