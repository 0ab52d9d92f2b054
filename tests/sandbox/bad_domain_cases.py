# SPDX-License-Identifier: MIT
"""Issue 38 §5 in the sandbox: a bad page inside a preserved domain's
extent stays that domain's, still marked, through N live updates.

- bad-domain-liveupdate: two domains (tests/data/sandbox-liveupdate.fw,
  64 MiB on node 0, 32 MiB on node 1); the first image offlines the page
  in the middle of domain 1 (inject=poison-domain:1, after the build and
  its check: heap_offline_owned(), the page held in the extent), then
  liveupdate=2. Each later image must mark the page again in the restored
  extent (the handover's bad-page record names it): the last image's
  domain0 row says bad_pages 1 (domain1's 0), bad_memory counts it once,
  held by its domain (held_pages 1, audit.bad_pages 0: it is the
  domain's, in allocated), its row names source injection (where it
  first went bad: the handover keeps the source, version 5), and
  handover_pages 1 says the handover carried it, the page lies
  in the memory the handover preserved, and audit=full is exact. On the
  code before the restore marked it (its row went back to 0, nothing
  counted it, the next image's heap would have had it free) this case
  fails on every one of those.
- poison-late-after-domains: inject=poison-late:PFN takes a free page out
  after the domains are built (the phase the word names), withheld and
  counted once.
- liveupdate-pattern-skips-bad-page: the first page of domain0 (host pfn
  FIRST: its one heap extent starts there on this machine, the
  poison-domain:1 line of the first case says its middle is 0x2000 pages
  on) goes bad after the build; the update's pattern (the first and the
  last page of each domain) must leave it alone in both images: 3 pages
  written, 3 x 512 words read back, one line in each image. Before, the
  old image wrote the pattern into the bad page (4 pages, 2048 words).

Quiet on this 2-core host (2026-12): 1.0-1.5 s (three boots that each
scrub 0.5 GiB); the timeout, firmware.TIMEOUT (120 s), is a safety net.
"""

import re

from .inject_cases import EFFECTS

FW = "sandbox-liveupdate.fw"
DOMAINS = ["domain=64M@0", "domain=32M@1"]
PAGE = 4096
UPDATES = 2

INJECTED = re.compile(r"^keel: inject=poison-domain:1: guest (0x[0-9a-f]+), "
                      r"host pfn (0x[0-9a-f]+) offlined \(broken\), still "
                      r"domain0's$", re.M)
MARKED = re.compile(r"^keel: domains: domain0: 1 pages of its extents came "
                    r"bad in the handover: still its own, marked$", re.M)

# inject=poison-domain:N takes effect with a built domain N; without one,
# a warning names the word (tests/sandbox/inject_cases.py's boots have no
# domain).
EFFECTS["poison-domain"] = lambda rep, log, n: re.search(
    rf"^keel: inject=poison-domain:{n}: guest 0x[0-9a-f]+, host pfn", log,
    re.M)
# inject=poison-late:N: page frame N offlined after the domains.
EFFECTS["poison-late"] = lambda rep, log, n: re.search(
    rf"^keel: inject=poison-late:{n}: pfn (0x[0-9a-f]+|0) offlined "
    r"\(broken\)$", log, re.M)

LATE = 0x12345  # free when the 64 MiB domain is built (mid-RAM)
FIRST = 0x8000  # domain0's first host page on sandbox-liveupdate.fw
WORDS_PER_PAGE = PAGE // 8


def _check_late(rep, log):
    """poison-late: the page goes bad after the domains are built and
    checked (its line after theirs), out of its free chunk: withheld
    (audit.bad_pages 1), one bad_memory row, the audit exact."""
    out = []
    checked = log.find("keel: domains: checked, ")
    line = log.find(f"keel: inject=poison-late:{LATE}: pfn {LATE:#x} "
                    "offlined (broken)")
    if line < 0 or checked < 0 or line < checked:
        out.append(f"the poison-late line at {line}, the domains' check at "
                   f"{checked}: want both, the poison after")
    bad, audit = rep["bad_memory"], rep["audit"]
    row = [LATE * PAGE, LATE * PAGE + PAGE, 1, "injection"]
    if row not in [list(r) for r in bad.get("ranges", [])] or \
            bad["pages"] != 1 or audit["bad_pages"] != 1:
        out.append(f"bad_memory {bad}, audit.bad_pages {audit['bad_pages']}"
                   f": want the row {row}, 1 page withheld")
    if audit.get("problems") != 0 or audit["lost_pages"] != 0:
        out.append(f"audit=full: {audit}")
    return out


def _row(rep, name):
    rows = [d for d in rep.get("domains") or [] if d["name"] == name]
    return rows[0] if len(rows) == 1 else None


def _check_kept(rep, log):
    out = []
    found = INJECTED.findall(log)
    if len(found) != 1:
        return [f"{len(found)} 'inject=poison-domain:1 ... offlined' lines, "
                "want 1 (the first image's)"]
    gpa, page = int(found[0][0], 16), int(found[0][1], 16)
    if gpa != (64 << 20) // 2:
        out.append(f"injected at guest {gpa:#x}, want the middle of 64 MiB")
    # The page is the domain's: inside the memory the handover preserved.
    kept = [(s, e) for s, e, n in rep["memmap"]["reserved"]
            if n == "preserved"]
    if not any(s <= page * PAGE < e for s, e in kept):
        out.append(f"pfn {page:#x} lies in no preserved range {kept}")
    marked = len(MARKED.findall(log))
    if marked != UPDATES:
        out.append(f"{marked} images marked the page in the restored "
                   f"extent, want {UPDATES} (each one after the first)")
    lu = rep["liveupdate"]
    if (lu["generation"], lu["domains"], lu["mismatches"]) != (UPDATES, 2, 0):
        out.append(f"liveupdate generation {lu['generation']}, domains "
                   f"{lu['domains']}, mismatches {lu['mismatches']}")
    d0, d1 = _row(rep, "domain0"), _row(rep, "domain1")
    if not d0 or not d1 or (d0["bad_pages"], d1["bad_pages"]) != (1, 0):
        out.append("domains[].bad_pages of domain0, domain1: "
                   f"{d0 and d0['bad_pages']}, {d1 and d1['bad_pages']}: "
                   "want 1, 0")
    out += _check_counted(rep, page)
    return out


def _check_counted(rep, page):
    """The page counted once, under its first source (injection), carried
    by the handover, held by its domain."""
    out = []
    bad, audit = rep["bad_memory"], rep["audit"]
    row = [page * PAGE, page * PAGE + PAGE, 1, "injection"]
    if row not in [list(r) for r in bad.get("ranges", [])]:
        out.append(f"bad_memory.ranges {bad.get('ranges')} lacks {row}")
    want = {"firmware": 0, "option": 0, "mce": 0, "injection": 1,
            "handover": 0}
    if bad["pages"] != 1 or bad.get("by_source") != want or \
            bad.get("held_pages") != 1 or bad.get("handover_pages") != 1:
        out.append(f"bad_memory pages {bad['pages']}, by_source "
                   f"{bad.get('by_source')}, held_pages "
                   f"{bad.get('held_pages')}, handover_pages "
                   f"{bad.get('handover_pages')}: want 1, {want}, 1, 1")
    if audit.get("problems") != 0 or audit["lost_pages"] != 0 or \
            audit["bad_pages"] != 0:
        out.append(f"audit=full: {audit}: want 0 problems, 0 lost, the "
                   "page in its domain's (allocated), not withheld")
    return out


def _check_pattern_skip(rep, log):
    out = []
    if f"keel: inject=poison-late:{FIRST}: pfn {FIRST:#x} offlined" not in log:
        return [f"pfn {FIRST:#x} was not offlined: the domain's placement "
                "moved? (read the first page of domain0 off a boot)"]
    alone = re.findall(r"^keel: liveupdate: domain 1: its sampled page at "
                       r"(0x[0-9a-f]+) is offline \(a bad page\): left alone$",
                       log, re.M)
    if alone != [hex(FIRST * PAGE)] * 2:
        out.append(f"'left alone' lines {alone}: want the page "
                   f"{FIRST * PAGE:#x} once in each image")
    sampled = 2 * len(DOMAINS) - 1  # first and last page a domain, less it
    wrote = re.findall(r"^keel: liveupdate: the pattern written into (\d+) "
                       r"pages", log, re.M)
    if wrote != [str(sampled)]:
        out.append(f"pattern written into {wrote} pages: want {sampled}")
    lu = rep["liveupdate"]
    if (lu["generation"], lu["verified_words"], lu["mismatches"]) != \
            (1, sampled * WORDS_PER_PAGE, 0):
        out.append(f"generation {lu['generation']}, verified_words "
                   f"{lu['verified_words']}, mismatches {lu['mismatches']}: "
                   f"want 1, {sampled * WORDS_PER_PAGE}, 0")
    d0 = _row(rep, "domain0")
    if not d0 or d0["bad_pages"] != 1:
        out.append(f"domain0's bad_pages {d0 and d0['bad_pages']}, want 1")
    audit = rep["audit"]
    if audit.get("problems") != 0 or audit["lost_pages"] != 0:
        out.append(f"audit=full: {audit}")
    return out


def bad_domain_cases(case_class):
    return [case_class("bad-domain-liveupdate", FW,
                       [f"liveupdate={UPDATES}", "audit=full",
                        "inject=poison-domain:1"] + DOMAINS,
                       [_check_kept], {"scrubbed": True}),
            # inject=poison-late:PFN: the phase after the domains.
            case_class("poison-late-after-domains", "sandbox-1node.fw",
                       ["bootscrub=off", "audit=full", "domain=64M",
                        f"inject=poison-late:{LATE:#x}"], [_check_late]),
            case_class("liveupdate-pattern-skips-bad-page", FW,
                       ["liveupdate=1", "audit=full", "bootscrub=off",
                        f"inject=poison-late:{FIRST:#x}"] + DOMAINS,
                       [_check_pattern_skip])]
