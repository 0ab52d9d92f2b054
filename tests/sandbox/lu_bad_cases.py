# SPDX-License-Identifier: MIT
"""Issue 38 §5 in the sandbox: bad pages keep their source across live
updates, and a domain whose restore fails keeps its bad page out.

- liveupdate-bad-sources: tests/data/sandbox-liveupdate-bad.fw has two
  pages the firmware calls bad (a `bad` line, [80 MiB, +8 KiB)); the
  first image takes pfn POISON out at runtime (inject=poison:POISON, the
  source `injection`), then liveupdate=2. The last image must count each
  page under its first source: by_source firmware 2, injection 1,
  handover 0; handover_pages 3 (the first image carries the firmware's
  pages too, and each new image is given the description condensed, less
  its `bad` lines: arch/sandbox/fw_condense.c, one line each update);
  the rows name the same sources, the pages are reserved as `bad
  handover firmware` and `bad handover injection`, the audit is exact.
  Before the handover kept the source (version 4: ranges only) the last
  image said injection 0, handover 1; before the firmware's pages were
  carried, handover_pages 1, and a new image that read no `bad` line
  handed them out.
- liveupdate-restore-fail-bad: two domains (sandbox-liveupdate.fw), the
  page in the middle of each goes bad in the first image
  (inject=poison-domain:1 and :2), and inject=restore-fail:2 makes
  domain 2's restore fail in each later image while domain 1's is
  restored; liveupdate=2. From the command line: each later image names
  domain1 as not restored, once; the update fails on it (`liveupdate: 1
  of 2 domains of the handover not restored`), the last image reports
  generation 2, 1 restored, 1 failed, domain1's row fails with the
  injection's reason; domain0 keeps its bad page (bad_pages 1, marked
  again in each image, held_pages 1); domain1's bad page stays in the
  memory its record keeps preserved (never heap memory) and bad_memory
  counts it (kept_pages 1, in audit.bad_pages): pages 2, both
  `injection`, handover_pages 2, the audit exact (audit=full, lost 0).
  Before, the report counted only domain0's page (pages 1, the failed
  domain's page reserved as `preserved` like any of its pages).

- liveupdate-restore-fail-sampled-bad: the first page of domain0 (pfn
  FIRST, one the update's pattern samples) goes bad after the build
  (inject=poison-late:FIRST), domain0's restore fails in the next image
  (inject=restore-fail:1), liveupdate=1. The new image must leave the
  page alone as the old one did (a read of a poisoned page is another
  machine check): one "left alone" line in each image, 3 x 512 words
  read back, 0 mismatches, the boot failing on the restore alone; the page
  counted as kept (kept_pages 1, audit.bad_pages 1). Before, the new image
  read it (the heap does not hold a failed domain's memory, and only the
  heap was asked): 2048 words, 512 mismatches, and the boot failed on
  those.

- liveupdate-bad-mce-freeze: the same, but pfn QUEUED is queued as a
  machine check queues it (inject=mce-freeze:QUEUED), after the flow's
  last drain, before the freeze. The freeze must take it out (one line in
  the old image) and hand it over: the new image has it as `bad handover
  injection`, handover_pages 4 (the firmware's 2 with them). Before the
  freeze took the queue, nothing drained it in the old image and the new
  one handed the page out.

- liveupdate-bad-freeze: the first image takes pfn POISON out at runtime
  (inject=poison:POISON), so its update writes the bad-page records aside
  before the freeze; then pfn FREEZE goes bad between those records and
  the freeze (inject=poison-freeze:FREEZE); liveupdate=1. The new image
  must have both (by_source firmware 2, injection 2, handover_pages 4,
  each reserved as `bad handover injection`), the audit exact. A freeze
  that copied the records written aside without checking the heap's bad
  version would carry POISON alone, and the new image would hand FREEZE
  out.

- liveupdate-bad-not-heap: the same, but the page queued (OWN) is one of
  the old image's frame table (reserved `frametable` at [0xfd00000,
  0xff00000) on this machine, in both images). The old image cannot take
  it out (heap_offline(): not the heap's): one line that it keeps it in
  use and names it bad to the next image. The new image must have it as
  `bad handover injection` (by_source injection 2, handover_pages 4) and
  no table of its own on it. Before, the handover did not name it, and
  the new image placed its frame table on it again (`frametable`).

Quiet on this 2-core host (2026-12): 0.4-0.6 s a case (three boots that
each scrub 0.5 GiB); the timeout, firmware.TIMEOUT (120 s), is a safety
net.
"""

import re

from .inject_cases import EFFECTS

PAGE = 4096
UPDATES = 2
DOMAINS = ["domain=64M@0", "domain=32M@1"]
POISON = 0x6000           # free in the first image (below domain0's 128 MiB)
FW_BAD = (0x5000000, 0x5002000)   # tests/data/sandbox-liveupdate-bad.fw
SOURCES = ("firmware", "option", "mce", "injection", "handover")

# inject=restore-fail:N acts in a live update's new image; in a cold boot
# (tests/sandbox/inject_cases.py's) a warning names the word.
EFFECTS["restore-fail"] = lambda rep, log, n: re.search(
    rf"^keel: error: domains: \S+: not restored from the handover: "
    rf"inject=restore-fail:{n}: ", log, re.M)


# inject=poison-freeze:N acts in a live update's old image; in a cold boot
# (tests/sandbox/inject_cases.py's) a warning names the word.
EFFECTS["poison-freeze"] = lambda rep, log, n: re.search(
    rf"^keel: inject=poison-freeze:{n}: pfn ", log, re.M)

# inject=mce-freeze:N too (queued, not yet taken out: the freeze takes it).
EFFECTS["mce-freeze"] = lambda rep, log, n: re.search(
    rf"^keel: inject=mce-freeze:{n}: pfn ", log, re.M)


def lu_check(rep, generation, restored=None):
    """The last image's liveupdate object: @generation, @restored domains
    (None: not checked), 0 mismatches."""
    lu = rep["liveupdate"]
    got = (lu["generation"], lu["domains_restored"], lu["mismatches"])
    want = (generation, lu["domains_restored"] if restored is None
            else restored, 0)
    if got != want:
        return [f"liveupdate generation, restored, mismatches {got}: want "
                f"{want}"]
    return []


def _by_source(**pages):
    return {s: pages.get(s, 0) for s in SOURCES}


def _rows(bad):
    return [list(r) for r in bad.get("ranges", [])]


def _audit(rep):
    a = rep["audit"]
    if a.get("problems") != 0 or a["lost_pages"] != 0 or not a["ok"]:
        return [f"audit=full: {a}: want 0 problems, 0 lost"]
    return []


def _reserved_as(rep, pa):
    return [n for s, e, n in rep["memmap"]["reserved"] if s <= pa < e]


def _check_sources(rep, log):
    out = []
    bad = rep["bad_memory"]
    want = _by_source(firmware=(FW_BAD[1] - FW_BAD[0]) // PAGE, injection=1)
    if bad.get("by_source") != want or bad["pages"] != sum(want.values()):
        out.append(f"bad_memory pages {bad['pages']}, by_source "
                   f"{bad.get('by_source')}: want {sum(want.values())}, "
                   f"{want} (each page under its first source)")
    if bad.get("handover_pages") != sum(want.values()) or \
            bad.get("kept_pages") != 0:
        out.append(f"handover_pages {bad.get('handover_pages')}, kept_pages "
                   f"{bad.get('kept_pages')}: want {sum(want.values())} "
                   "(the firmware's pages and the injected one), 0")
    names = _reserved_as(rep, FW_BAD[0])
    if names != ["bad handover firmware"]:
        out.append(f"{FW_BAD[0]:#x} reserved as {names}: want ['bad "
                   "handover firmware'] (the description condensed)")
    condensed = log.count("the firmware description less its bad lines)")
    if condensed != UPDATES:
        out.append(f"{condensed} updates gave the description condensed: "
                   f"want {UPDATES}")
    for row in ([FW_BAD[0], FW_BAD[1], 2, "firmware"],
                [POISON * PAGE, POISON * PAGE + PAGE, 1, "injection"]):
        if row not in _rows(bad):
            out.append(f"bad_memory.ranges {bad.get('ranges')} lacks {row}")
    names = _reserved_as(rep, POISON * PAGE)
    if names != ["bad handover injection"]:
        out.append(f"pfn {POISON:#x} reserved as {names}: want "
                   "['bad handover injection']")
    offlined = re.findall(rf"^keel: inject=poison:{POISON}: pfn {POISON:#x} "
                          r"offlined \(broken\)$", log, re.M)
    if len(offlined) != 1:
        out.append(f"{len(offlined)} images offlined pfn {POISON:#x}: want "
                   "1, the first (the later ones have it reserved)")
    out += lu_check(rep, UPDATES, 2)
    if rep["audit"]["bad_pages"] != sum(want.values()):
        out.append(f"audit.bad_pages {rep['audit']['bad_pages']}: want "
                   f"{sum(want.values())}")
    return out + _audit(rep)


INJECTED = re.compile(r"^keel: inject=poison-domain:(\d): guest "
                      r"0x[0-9a-f]+, host pfn (0x[0-9a-f]+) offlined "
                      r"\(broken\), still (domain\d)'s$", re.M)


def _row(rep, did):
    rows = [d for d in rep.get("domains") or [] if d["id"] == did]
    return rows[0] if len(rows) == 1 else None


def _check_restore_fail(rep, log):
    out = []
    pfns = {int(d): int(p, 16) for d, p, _ in INJECTED.findall(log)}
    if sorted(pfns) != [1, 2]:
        return [f"poison-domain lines for domains {sorted(pfns)}: want 1 "
                "and 2, once each (the first image's)"]
    failed = re.findall(r"^keel: error: domains: domain1: not restored from "
                        r"the handover: inject=restore-fail:2: ", log, re.M)
    if len(failed) != UPDATES:
        out.append(f"{len(failed)} images failed domain1's restore: want "
                   f"{UPDATES} (each one after the first)")
    marked = re.findall(r"^keel: domains: domain0: 1 pages of its extents "
                        r"came bad in the handover: still its own, marked$",
                        log, re.M)
    if len(marked) != UPDATES:
        out.append(f"{len(marked)} images marked domain0's page: want "
                   f"{UPDATES}")
    why = ("liveupdate: 1 of 2 domains of the handover not restored (each "
           "named in a domains: line)")
    if rep["result"] != "fail" or rep["fail_reason"] != why:
        out.append(f"result {rep['result']} {rep['fail_reason']!r}: want "
                   f"fail {why!r}")
    lu = rep["liveupdate"]
    got = (lu["state"], lu["generation"], lu["domains"],
           lu["domains_restored"], lu["domains_failed"], lu["mismatches"])
    if got != ("taken", UPDATES, 2, 1, 1, 0):
        out.append(f"liveupdate state, generation, domains, restored, "
                   f"failed, mismatches {got}: want ('taken', {UPDATES}, "
                   "2, 1, 1, 0)")
    # The last image's one error is the failed restore's line.
    if rep["errors"] != 1 or rep["domains_info"]["failed"] != 1:
        out.append(f"errors {rep['errors']}, domains_info.failed "
                   f"{rep['domains_info']['failed']}: want 1, 1")
    d1, d2 = _row(rep, 1), _row(rep, 2)
    if not d1 or d1["fail_reason"] is not None or d1["bad_pages"] != 1:
        out.append(f"domain id 1's row {d1}: want restored, bad_pages 1")
    if not d2 or not (d2["fail_reason"] or "").startswith(
            "inject=restore-fail:2: "):
        out.append(f"domain id 2's row {d2}: want its restore failed by "
                   "inject=restore-fail:2")
    return out + _check_kept(rep, pfns)


def _check_kept(rep, pfns):
    """Both pages counted once, under injection; domain 2's kept with its
    preserved memory, domain 1's held by its restored extent."""
    out = []
    bad = rep["bad_memory"]
    for did, pfn in pfns.items():
        row = [pfn * PAGE, pfn * PAGE + PAGE, 1, "injection"]
        if row not in _rows(bad):
            out.append(f"bad_memory.ranges {bad.get('ranges')} lacks "
                       f"domain {did}'s {row}")
        if _reserved_as(rep, pfn * PAGE) != ["preserved"]:
            out.append(f"domain {did}'s pfn {pfn:#x} reserved as "
                       f"{_reserved_as(rep, pfn * PAGE)}: want ['preserved']")
    got = (bad["pages"], bad.get("by_source"), bad.get("handover_pages"),
           bad.get("kept_pages"), bad.get("held_pages"))
    want = (2, _by_source(injection=2), 2, 1, 1)
    if got != want:
        out.append(f"bad_memory pages, by_source, handover_pages, "
                   f"kept_pages, held_pages {got}: want {want}")
    if rep["audit"]["bad_pages"] != 1:
        out.append(f"audit.bad_pages {rep['audit']['bad_pages']}: want 1 "
                   "(the failed domain's page; the restored one's is its "
                   "domain's, allocated)")
    return out + _audit(rep)


FIRST = 0x8000  # domain0's first host page on sandbox-liveupdate.fw


def _check_sampled(rep, log):
    out = []
    alone = re.findall(r"^keel: liveupdate: domain 1: its sampled page at "
                       r"(0x[0-9a-f]+) is offline \(a bad page\): left "
                       r"alone$", log, re.M)
    if alone != [hex(FIRST * PAGE)] * 2:
        out.append(f"'left alone' lines {alone}: want the page "
                   f"{FIRST * PAGE:#x} once in each image")
    lu = rep["liveupdate"]
    got = (lu["generation"], lu["domains_failed"], lu["verified_words"],
           lu["mismatches"])
    if got != (1, 1, 3 * PAGE // 8, 0):
        out.append(f"generation, domains_failed, verified_words, mismatches "
                   f"{got}: want (1, 1, {3 * PAGE // 8}, 0)")
    why = ("liveupdate: 1 of 2 domains of the handover not restored (each "
           "named in a domains: line)")
    if rep["fail_reason"] != why:
        out.append(f"fail_reason {rep['fail_reason']!r}: want {why!r}")
    bad = rep["bad_memory"]
    got = (bad["pages"], bad.get("kept_pages"), bad.get("held_pages"),
           rep["audit"]["bad_pages"])
    if got != (1, 1, 0, 1):
        out.append(f"bad_memory pages, kept_pages, held_pages, "
                   f"audit.bad_pages {got}: want (1, 1, 0, 1)")
    return out + _audit(rep)


FREEZE = POISON + 2


def _carried_two(rep, pfns):
    """The new image has the firmware's 2 pages and 2 injected ones, the
    latter (@pfns) from the handover, reserved as such."""
    out = []
    bad = rep["bad_memory"]
    want = _by_source(firmware=(FW_BAD[1] - FW_BAD[0]) // PAGE, injection=2)
    # Every page carried: the firmware's too (arch/sandbox/fw_condense.c).
    if bad.get("by_source") != want or \
            bad.get("handover_pages") != sum(want.values()):
        out.append(f"by_source {bad.get('by_source')}, handover_pages "
                   f"{bad.get('handover_pages')}: want {want}, "
                   f"{sum(want.values())}")
    for p in pfns:
        names = _reserved_as(rep, p * PAGE)
        if names != ["bad handover injection"]:
            out.append(f"pfn {p:#x} reserved as {names}: want "
                       "['bad handover injection']")
    return out


def _check_freeze(rep, log):
    out = _carried_two(rep, (POISON, FREEZE))
    said = re.findall(rf"^keel: inject=poison-freeze:{FREEZE}: pfn "
                      rf"{FREEZE:#x} offlined \(broken\) after the bad-page "
                      r"records were written aside$", log, re.M)
    if len(said) != 1:
        out.append(f"{len(said)} poison-freeze lines: want 1 (the old "
                   "image's)")
    out += lu_check(rep, 1)
    return out + _audit(rep)


QUEUED = POISON + 4


def _check_mce_freeze(rep, log):
    """liveupdate-bad-mce-freeze: the page queued after the last drain is
    taken out in the old image's freeze, once, and the new image has it
    from the handover beside the one the records held before."""
    out = _carried_two(rep, (POISON, QUEUED))
    for line in (rf"inject=mce-freeze:{QUEUED}: pfn {QUEUED:#x} queued "
                 r"after the last drain",
                 rf"warning: inject: memory error in page {QUEUED:#x} "
                 r"\(status 0\): taken out of service \(0\)"):
        said = re.findall(rf"^keel: {line}$", log, re.M)
        if len(said) != 1:
            out.append(f"{len(said)} lines {line!r}: want 1 (the old "
                       "image's)")
    out += lu_check(rep, 1)
    return out + _audit(rep)


OWN = 0xfe00  # the old image's frame table (see the top)


def _check_not_heap(rep, log):
    """liveupdate-bad-not-heap: the frame-table page queued after the last
    drain is kept in use by the old image, named in the handover, and the
    new image leaves it out of everything of its own."""
    out = _carried_two(rep, (POISON, OWN))
    line = (rf"warning: inject: memory error in page {OWN:#x} \(status 0\): "
            r"not the heap's \(keel's own or reserved\): kept in use, and "
            r"named bad to a live update's next image \(-1\)")
    said = re.findall(rf"^keel: {line}$", log, re.M)
    if len(said) != 1:
        out.append(f"{len(said)} lines {line!r}: want 1 (the old image's)")
    out += lu_check(rep, 1)
    return out + _audit(rep)


def lu_bad_cases(case_class):
    return [case_class("liveupdate-bad-sources", "sandbox-liveupdate-bad.fw",
                       [f"liveupdate={UPDATES}", "audit=full",
                        f"inject=poison:{POISON:#x}"] + DOMAINS,
                       [_check_sources]),
            case_class("liveupdate-restore-fail-bad", "sandbox-liveupdate.fw",
                       [f"liveupdate={UPDATES}", "audit=full",
                        "inject=poison-domain:1", "inject=poison-domain:2",
                        "inject=restore-fail:2"] + DOMAINS,
                       [_check_restore_fail], {"fail": True}),
            case_class("liveupdate-restore-fail-sampled-bad",
                       "sandbox-liveupdate.fw",
                       ["liveupdate=1", "audit=full", "bootscrub=off",
                        f"inject=poison-late:{FIRST:#x}",
                        "inject=restore-fail:1"] + DOMAINS,
                       [_check_sampled], {"fail": True}),
            case_class("liveupdate-bad-freeze", "sandbox-liveupdate-bad.fw",
                       ["liveupdate=1", "audit=full",
                        f"inject=poison:{POISON:#x}",
                        f"inject=poison-freeze:{FREEZE:#x}"] + DOMAINS,
                       [_check_freeze]),
            case_class("liveupdate-bad-mce-freeze",
                       "sandbox-liveupdate-bad.fw",
                       ["liveupdate=1", "audit=full",
                        f"inject=poison:{POISON:#x}",
                        f"inject=mce-freeze:{QUEUED:#x}"] + DOMAINS,
                       [_check_mce_freeze]),
            case_class("liveupdate-bad-not-heap",
                       "sandbox-liveupdate-bad.fw",
                       ["liveupdate=1", "audit=full",
                        f"inject=poison:{POISON:#x}",
                        f"inject=mce-freeze:{OWN:#x}"] + DOMAINS,
                       [_check_not_heap])]
