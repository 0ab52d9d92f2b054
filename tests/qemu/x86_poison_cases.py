# SPDX-License-Identifier: MIT
"""inject=poison:PFN under QEMU x86_64 (issue 38 §3; docs/cmdline.md): a
page in a free chunk goes bad once the heap is open, before the scrub. The
boot passes with audit=full (the page its own class), the scrub writes
exactly the free pages, and a frame below 1 MiB (not the heap's) is
refused with a warning naming the word."""

from .poison_checks import poison_said, scrub_skips_bad
from .x86_machine import M, Machine, smp_case

PFN = 0x4000  # 64 MiB: inside node 0's free RAM
LOW = 0x10    # below 1 MiB: never the heap's


def poison_cases(kern, base):
    on = base + " bootscrub=on"
    return [
        smp_case("inject-poison", Machine("2", numa=[128 * M] * 2),
                 f"{on} inject=poison:{PFN:#x} inject=poison:{LOW:#x}",
                 kern, {"scrubbed": True},
                 checks=[poison_said(PFN, LOW), scrub_skips_bad]),
    ]
