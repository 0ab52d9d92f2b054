#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check a keel boot log: scripts/report.py LOG [--expect-... ] (--help).

The parser and the checks live in scripts/keel/report.py (the tests and
the benchmarks import them from there); this is their command line.
"""

import sys

from keel import report

if __name__ == "__main__":
    sys.exit(report.main())
