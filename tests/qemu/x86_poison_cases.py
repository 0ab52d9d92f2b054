# SPDX-License-Identifier: MIT
"""inject=poison:PFN under QEMU x86_64 (issue 38 §3; docs/cmdline.md): a
page in a free chunk goes bad once the heap is open, before the scrub. The
boot passes with audit=full (the page its own class), the scrub writes
exactly the free pages, and a frame below 1 MiB (not the heap's) is
refused with a warning naming the word."""

from .x86_machine import M, Machine, log_contains, smp_case

PFN = 0x4000  # 64 MiB: inside node 0's free RAM
LOW = 0x10    # below 1 MiB: never the heap's


def _scrub_skips_bad(rep):
    heap, scrub = rep["heap"], rep["scrub"]
    out = []
    if heap["total_pages"] - heap["free_pages"] != 1:
        out.append(f"{heap['total_pages'] - heap['free_pages']} heap pages "
                   "not free, want the poisoned one")
    if scrub["bytes"] != heap["free_pages"] * 4096:
        out.append(f"scrub wrote {scrub['bytes']} bytes, free pages are "
                   f"{heap['free_pages'] * 4096}: the bad page was scrubbed")
    return out


def poison_cases(kern, base):
    on = base + " bootscrub=on"
    return [
        smp_case("inject-poison", Machine("2", numa=[128 * M] * 2),
                 f"{on} inject=poison:{PFN:#x} inject=poison:{LOW:#x}",
                 kern, {"scrubbed": True},
                 checks=[log_contains(f"inject=poison:{PFN}: pfn {PFN:#x} "
                                      "offlined (broken)"),
                         log_contains(f"warning: inject=poison:{LOW}: "
                                      "heap_offline() refused it"),
                         _scrub_skips_bad]),
    ]
