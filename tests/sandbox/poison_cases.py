# SPDX-License-Identifier: MIT
"""inject=poison:PFN (issue 38 §3 in the sandbox): a page goes bad once the
heap is open, before the boot scrub; heap_offline() takes it out of its
free chunk. The boot passes, audit=full balances with the page in its own
class, the scrub never writes it (scrubbed bytes are exactly the free
pages), and a page the heap does not own (firmware-reserved) is refused
with a warning naming the word; a domain built after it over almost all
RAM works around it. inject=ce:PFN (corrected errors through the
sandbox's simulated banks and the poll): ce-offline, ce-counted. Two boots of 512 MiB (scrub on; a 505 MiB domain):
on this 2-core host (2026-12), loaded, 0.5-1.5 s each; the timeout is
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
    out += _bad_reported(rep, [(p, "injection") for p in GOOD])
    if rep["scrub"]["bytes"] != heap["free_pages"] * PAGE:
        out.append(f"scrub wrote {rep['scrub']['bytes']} bytes, the free "
                   f"pages are {heap['free_pages'] * PAGE}: a bad page "
                   "was scrubbed")
    return out


def _bad_reported(rep, pages):
    """The report's bad_memory and audit name each (pfn, source) of
    @pages: one page each, in its own audit class (withheld: the heap no
    longer holds it free, nor in any block)."""
    out = []
    bad, audit = rep["bad_memory"], rep["audit"]
    rows = {(r[0], r[1], r[2], r[3]) for r in bad["ranges"]}
    for p, src in pages:
        if (p * PAGE, p * PAGE + PAGE, 1, src) not in rows:
            out.append(f"bad_memory.ranges lacks pfn {p:#x} ({src})")
    if bad["pages"] != len(pages) or audit.get("bad_pages") != len(pages):
        out.append(f"bad_memory.pages {bad['pages']}, audit.bad_pages "
                   f"{audit.get('bad_pages')}, want {len(pages)}")
    for src in {s for _, s in pages}:
        want = sum(1 for _, s in pages if s == src)
        if bad["by_source"].get(src) != want:
            out.append(f"bad_memory.by_source.{src} "
                       f"{bad['by_source'].get(src)}, want {want}")
    if sum(bad["by_node"]) != len(pages):
        out.append(f"bad_memory.by_node {bad['by_node']}")
    return out


DOMAIN_BAD = 0x10000  # mid-RAM: the 505 MiB domain must work around it


def _check_domain_around(rep, log):
    """The domain takes almost every page (4 KiB extents from the halves
    around the bad page): built whole, checked, and the bad page is still
    counted once, apart from the domain's pages and tables."""
    out = []
    if not re.search(rf"^keel: inject=poison:{DOMAIN_BAD}: pfn "
                     rf"{DOMAIN_BAD:#x} offlined", log, re.M):
        out.append("no 'offlined' line")
    rows = rep["domains"]  # the report reader made rows of dicts
    if len(rows) != 1 or rows[0]["fail_reason"] is not None or \
            rows[0]["bytes"] != 505 << 20:
        return out + [f"domain not built whole: {rows}"]
    if not rows[0]["extents_4k"]:
        out.append("no 4 KiB extent: the bad page's 2 MiB was not cut")
    want = (505 << 20) // PAGE + rows[0]["table_pages"] + 1
    alloc = rep["heap"]["total_pages"] - rep["heap"]["free_pages"]
    if alloc != want:
        out.append(f"{alloc} heap pages not free, want the domain's, its "
                   f"tables and the bad page: {want}")
    if not re.search(r"^keel: domains: checked, 0 problems", log, re.M):
        out.append("the domain check found problems")
    if rep["audit"].get("problems") != 0 or rep["audit"]["lost_pages"]:
        out.append(f"audit=full: {rep['audit']}")
    return out


CE_PAGE = 0x12345  # in the heap, free when the first drain polls


def _ce_check(errors, offlined, ce_offline):
    """inject=ce:PFN @errors times (the sandbox's simulated banks, found by
    the boot CPU's poll before the first drain): counted, the page out of
    service as soft (source mce) when @offlined."""
    def check(rep, log):
        out = []
        first = (f"keel: warning: mce: corrected memory error in page "
                 f"{CE_PAGE:#x} (status 0x9c0000000000009f): counted, taken "
                 f"out of service at {ce_offline} (ce_offline=)")
        taken = (f"keel: warning: mce: page {CE_PAGE:#x} had {ce_offline} "
                 f"corrected errors (ce_offline={ce_offline}): taken out "
                 "of service (soft) (0)")
        if log.count(first) != 1:
            out.append(f"{log.count(first)} lines {first!r}, want 1")
        if log.count(taken) != offlined:
            out.append(f"{log.count(taken)} lines {taken!r}, want "
                       f"{offlined}")
        bad = rep["bad_memory"]
        got = (bad.get("corrected_errors"), bad.get("corrected_pages"),
               bad.get("corrected_offlined"))
        if got != (errors, 1, offlined):
            out.append(f"bad_memory corrected_errors, _pages, _offlined "
                       f"{got}, want {(errors, 1, offlined)}")
        if offlined and not bad["pages"]:
            out.append("bad_memory.pages 0: the page is not out of service")
        elif offlined:
            out += _bad_reported(rep, [(CE_PAGE, "mce")])
        elif bad["pages"] or rep["audit"].get("bad_pages"):
            out.append(f"bad_memory.pages {bad['pages']}: want 0")
        if rep["audit"].get("problems") != 0 or rep["audit"]["lost_pages"]:
            out.append(f"audit=full: {rep['audit']}")
        return out
    return check


def poison_cases(case_class):
    words = [f"inject=poison:{p:#x}" for p in GOOD + (RESERVED,)]
    return [case_class("poison-free-chunk", "sandbox-1node.fw",
                       ["bootscrub=on", "audit=full"] + words,
                       [_check_poison]),
            case_class("poison-domain-around", "sandbox-1node.fw",
                       ["bootscrub=off", "audit=full", "domain=505M",
                        f"inject=poison:{DOMAIN_BAD:#x}"],
                       [_check_domain_around]),
            # inject=ce (issue 38, corrected errors): 3 on one page reach
            # ce_offline=3; 2 below the default (16) are only counted.
            case_class("ce-offline", "sandbox-1node.fw",
                       ["bootscrub=off", "audit=full", "ce_offline=3"] +
                       [f"inject=ce:{CE_PAGE:#x}"] * 3,
                       [_ce_check(3, 1, 3)]),
            case_class("ce-counted", "sandbox-1node.fw",
                       ["bootscrub=off", "audit=full"] +
                       [f"inject=ce:{CE_PAGE:#x}"] * 2,
                       [_ce_check(2, 0, 16)])]
