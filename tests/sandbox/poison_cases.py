# SPDX-License-Identifier: MIT
"""inject=poison:PFN (issue 38 §3 in the sandbox): a page goes bad once the
heap is open, before the boot scrub; heap_offline() takes it out of its
free chunk. The boot passes, audit=full balances with the page in its own
class, the scrub never writes it (scrubbed bytes are exactly the free
pages), and a page the heap does not own (firmware-reserved) is refused
with a warning naming the word. One boot of 512 MiB with the scrub on:
quiet on this 2-core host (2026-12) about 1.5 s; the timeout is
firmware.TIMEOUT (120 s a boot).
"""

import re

PAGE = 4096
GOOD = (0x12345, 0x100)  # in the heap: one mid-range, one at its start
RESERVED = 0x10          # inside "reserved 0x0 1M bios"


def _check_poison(rep, log):
    out = []
    for p in GOOD:
        if not re.search(rf"^keel: inject=poison:{p}: pfn {p:#x} offlined "
                         r"\(broken\)$", log, re.M):
            out.append(f"inject=poison:{p}: no 'offlined' line")
    if not re.search(rf"^keel: warning: inject=poison:{RESERVED}: "
                     r"heap_offline\(\) refused it", log, re.M):
        out.append(f"inject=poison:{RESERVED}: no warning naming it")
    if not re.search(rf"^keel: warning: heap_offline: pfn {RESERVED:#x}: "
                     r"not heap memory", log, re.M):
        out.append("heap_offline: no 'not heap memory' reason")
    heap, audit = rep["heap"], rep["audit"]
    if heap["total_pages"] - heap["free_pages"] != len(GOOD):
        out.append(f"heap: {heap['total_pages'] - heap['free_pages']} "
                   f"pages not free, want the {len(GOOD)} poisoned")
    if audit.get("problems") != 0 or audit["lost_pages"] != 0:
        out.append(f"audit=full: {audit.get('problems')} problems, "
                   f"{audit['lost_pages']} lost")
    if rep["scrub"]["bytes"] != heap["free_pages"] * PAGE:
        out.append(f"scrub wrote {rep['scrub']['bytes']} bytes, the free "
                   f"pages are {heap['free_pages'] * PAGE}: a bad page "
                   "was scrubbed")
    return out


def poison_cases(case_class):
    words = [f"inject=poison:{p:#x}" for p in GOOD + (RESERVED,)]
    return [case_class("poison-free-chunk", "sandbox-1node.fw",
                       ["bootscrub=on", "audit=full"] + words,
                       [_check_poison])]
