# SPDX-License-Identifier: MIT
"""Sandbox end-to-end tests: the real keel binary on firmware descriptions.

Usage, from the top directory:
  python3 -m tests.sandbox.run KEEL_BINARY [CASE_NAME ...]
  python3 -m tests.sandbox.run KEEL_BINARY --list   (the case names)

Each case is a firmware description (tests/data/*.fw), a command line and
expectations. The expectations about the machine (nodes, RAM per node, CPUs,
distances) are derived by reading the .fw file, never copied from
keel's output; keel.report checks the KEEL-REPORT line against them.
Every run is bounded by a timeout (scripts/keel/boot.py runs the boots).
One line per case, then "sandbox-test: N passed, M failed"; the exit
status is non-zero on failure.
"""

import os
import re
import sys
import time

from scripts.keel import report

from . import firmware
from .cases import cases
from .firmware import FwDesc, DATA, audit_numbers, run_keel


def run_case(binary, case):
    """Return: list of failures (empty = passed)."""
    b = run_keel(binary, case.fw, case.cmdline, case.timeout, case.env)
    rc, log = b.status, b.log
    if b.timed_out or rc < 0:
        return [f"{b.status_text()}; last lines: {b.tail()}"]
    verdict, reason = b.verdict()
    if case.clean_fail_ok and verdict != "PASS" and rc != 0:
        # A refusal is fine (KEEL: FAIL or an early error exit) as long as
        # it is not a crash and says why.
        if not re.search(r"keel: (warning|error|panic): ", log):
            return [f"{b.status_text()} without a warning/error line "
                    "saying why"]
        return []
    if verdict is None:
        return [f"no KEEL: verdict line ({b.status_text()})"]
    exp = {}
    if case.derive:
        exp.update(FwDesc(os.path.join(DATA, case.fw)).expectations())
    exp.update(case.expect)
    if "cmdline" not in case.expect:
        words = [w for w in case.cmdline if not w.startswith("--")]
        exp["cmdline"] = " ".join(words) if words else None
    failures = report.check_report(log, exp)
    if verdict == "PASS" and rc != 0:
        failures.append(f"PASS but {b.status_text()}")
    if verdict == "FAIL" and rc == 0:
        failures.append("FAIL but exit status 0")
    if failures:
        return failures
    case.report = b.report
    for check in case.checks:
        failures += check(case.report, log)
    return failures


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    binary = os.path.abspath(argv[1])
    if not os.access(binary, os.X_OK):
        print(f"sandbox-test: {binary} is not an executable")
        return 2
    firmware.BINARY = binary
    if argv[2:] == ["--list"]:
        for case in cases():
            print(case.name)
        return 0
    only = set(argv[2:])
    passed = failed = 0
    groups = {}
    for case in cases():
        if only and case.name not in only:
            continue
        t0 = time.monotonic()
        failures = run_case(binary, case)
        if not failures and case.group:
            nums = audit_numbers(case.report)
            first = groups.setdefault(case.group, (case.name, nums))
            if first[1] != nums:
                failures.append(f"audit (ram, free+alloc, reserved, lost) "
                                f"{nums} differs from {first[0]} {first[1]}")
        dt = time.monotonic() - t0
        if failures:
            failed += 1
            print(f"  FAIL  {case.name} ({dt:.1f} s)")
            for f in failures:
                print(f"        {f}")
        else:
            passed += 1
            extra = ""
            if case.report:
                extra = " " + report.summary(case.report)
            print(f"  ok    {case.name} ({dt:.1f} s){extra}")
    print(f"sandbox-test: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
