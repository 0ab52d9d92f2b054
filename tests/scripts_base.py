# SPDX-License-Identifier: MIT
"""What every part of tests/scripts_test.py shares: the paths, the
timeout, the pass/fail count (check) and one sandbox boot."""

import os
import subprocess

from scripts.keel import boot
from scripts.keel.boot import TOP

SCRIPTS = os.path.join(TOP, "scripts")

PYTHON = os.environ.get("PYTHON", "/usr/bin/python3")
FW = os.path.join(TOP, "tests", "data", "sandbox-2node.fw")
TIMEOUT = int(os.environ.get("SCRIPTS_TEST_TIMEOUT", "300"))

passed = 0
failed = 0


def check(name, failures):
    """Count one check; @failures is a list of strings (empty = pass)."""
    global passed, failed
    if failures:
        failed += 1
        for f in failures:
            print(f"scripts-test: FAIL {name}: {f}")
    else:
        passed += 1


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True,
                          timeout=TIMEOUT, **kw)


def sandbox_boot(keel, out, *args):
    """Run the sandbox, its log in @out. Return: (rc, log text)."""
    b = boot.sandbox(keel, FW, args, timeout=TIMEOUT, log_path=out)
    return b.status, b.log
