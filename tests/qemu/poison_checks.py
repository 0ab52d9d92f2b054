# SPDX-License-Identifier: MIT
"""Checks of inject=poison:PFN (issue 38 §3; docs/cmdline.md), one piece
for the x86_64 and arm64 cases (tests/qemu/x86_poison_cases.py,
tests/qemu/arm64_poison_cases.py): each takes (report, log), as
tests/qemu/checks.py's do."""

from .checks import _log_aware


@_log_aware
def scrub_skips_bad(rep, log):
    """One heap page not free (the poisoned one), and the scrub wrote
    exactly the free pages: never the bad page."""
    heap, scrub = rep["heap"], rep["scrub"]
    out = []
    if heap["total_pages"] - heap["free_pages"] != 1:
        out.append(f"{heap['total_pages'] - heap['free_pages']} heap pages "
                   "not free, want the poisoned one")
    if scrub["bytes"] != heap["free_pages"] * 4096:
        out.append(f"scrub wrote {scrub['bytes']} bytes, free pages are "
                   f"{heap['free_pages'] * 4096}: the bad page was scrubbed")
    return out


def poison_said(pfn, refused):
    """inject=poison:@pfn said offlined, and inject=poison:@refused (not
    the heap's) said refused, each in its line."""
    want = [f"inject=poison:{pfn}: pfn {pfn:#x} offlined (broken)",
            f"warning: inject=poison:{refused}: heap_offline() refused it"]

    @_log_aware
    def check(rep, log):
        return [f"log lacks {w!r}" for w in want if w not in log]
    return check
