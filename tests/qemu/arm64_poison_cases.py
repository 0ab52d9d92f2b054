# SPDX-License-Identifier: MIT
"""inject=poison:PFN under QEMU arm64 (issue 38 §3; docs/cmdline.md): a
page of RAM (QEMU virt's RAM starts at 1 GiB) goes bad once the heap is
open, before the scrub; the boot passes with audit=full, the scrub
writes exactly the free pages, and a frame that is no RAM is refused
with a warning naming the word."""

from .arm64_machine import M, case
from .poison_checks import poison_said, scrub_skips_bad

PFN = 0x50000  # 1.25 GiB: in the free RAM of a 512 MiB virt machine
LOW = 0x10     # below RAM: not RAM at all


CASES = [
    case("inject-poison", ["--smp", "2", "--mem", "512M"],
         {"cpus": 2, "online": 2, "scrubbed": True, "ram": 512 * M},
         append=f"inject=poison:{PFN:#x} inject=poison:{LOW:#x}",
         checks=[poison_said(PFN, LOW), scrub_skips_bad]),
]
