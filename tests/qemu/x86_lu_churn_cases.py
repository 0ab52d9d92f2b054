# SPDX-License-Identifier: MIT
"""A live update after churn restores exactly (issue 37, Tests;
tests/qemu/lu_churn_checks.py), under QEMU x86_64: keel.elf is its own next
image (module 0, -initrd), on 2 CPUs in 2 nodes of 256 MiB; the first image
churns for 1 s with the per-CPU caches on, builds a domain on each node and
hands them over; the new image restores them, churns with them in place,
and its audit (full) balances. Quiet on this 2-core host: about 8 s (two
boots, two churns of 1 s); the matrix TIMEOUT (120 s) is over 10x."""

from .churn_checks import churn_ok_everywhere
from .liveupdate_checks import updated
from .lu_churn_checks import restored_exactly
from .x86_machine import M, Case, Machine

DOMAINS = ["domain=32M@0", "domain=16M@1"]


def lu_churn_cases(elf, base):
    m = Machine("2", numa=[256 * M, 256 * M])
    words = " ".join(["churn=1", "liveupdate=1"] + DOMAINS)
    return [
        Case("liveupdate-after-churn", ["--kernel", elf] + m.qemu_args(),
             m.mem, f"{base} {words}",
             expect=dict(m.expect(), scrubbed=True),
             qemu_tail=["-initrd", elf],
             checks=[updated(elf, 1, 2, r"^keel: x86_64 entry, magic"),
                     restored_exactly(DOMAINS, 1), churn_ok_everywhere]),
    ]
