#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hostile firmware maps booted on the sandbox: scripts/fuzz-maps.py
[--seed S] [--count N] [--replay FILE.fw] ... (--help; docs/fuzzing.md).

The generator, the oracle and the checks live in scripts/keel/fuzzmaps.py
and its parts fuzzfw.py, fuzzgen.py, fuzzoracle.py (tests/sandbox and
tests/scripts_fuzz.py import them); this is their command line.
"""

import sys

from keel import fuzzmaps

if __name__ == "__main__":
    sys.exit(fuzzmaps.main())
