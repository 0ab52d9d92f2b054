# SPDX-License-Identifier: MIT
"""keel's Python package: what the scripts and the tests share.

  boot       boot keel (sandbox or QEMU) under a timeout, capture the log
  report     find, parse and check the KEEL-REPORT of a log (DESIGN 7)
  keeltrace  the report's boot trace as slices
  bench      helpers of the benchmark scripts (fmt_ns, tables, host info)
  fuzzmaps   hostile firmware maps and the oracle of their boots

Found by Python's own rules, with no sys.path edits: a script run as
scripts/foo.py has scripts/ on its path and imports `keel`; the tests run
as modules from the top directory (python3 -m tests.qemu.x86_64) and
import `scripts.keel`. Modules inside import each other relatively.
"""
