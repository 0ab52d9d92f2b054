# SPDX-License-Identifier: MIT
"""A host's runtime bad pages reach the next image through the handover
alone (issue 38 §5; the benchmark's realistic source, scripts/bench-ras.py).

- liveupdate-mce-history: tests/data/sandbox-liveupdate-mce.fw names three
  pages in `mce` lines (machine checks the host took before this boot);
  no `bad` line, nothing on the command line. The first image offlines
  them once its heap is open (one line: 3 offlined, 0 refused); the two
  later images ignore the lines (one line each: the handover carries
  them). The last image must count them as `mce` (by_source mce 3,
  pages 3), all carried (handover_pages 3), reserved as `bad handover
  mce`, the audit exact (audit=full) and the domains intact. Before the
  `mce` line existed the parser skipped it (unknown keyword): 0 bad pages.
- liveupdate-mce-history-file: the same history in a file of its own,
  `--mce-history=tests/data/sandbox-liveupdate.mce`, on the same machine
  without `mce` lines. The first image offlines the three pages; the
  later images are not given the file (no line about ignored history:
  the option is not passed on), and the last must have all three from
  the handover alone, as above. The file's `ram` line is warned once and
  ignored (RAM stays the description's 512 MiB). Fails on a build
  without the option (usage error, exit 2).

- liveupdate-mce-history-many: 3,000 pages in such a file (single pages
  and runs of up to 4, random, seed 38, away from keel's own tables at
  the top of each node), more than bootmem's static table: the new
  images read them beside their reserved table in the downtime and write
  them into it after the restore (common/mm/bootmem_carried.c). The last
  image must have every page reserved as `bad handover mce` (report=full:
  every reserved range listed), the counts and the audit exact.

- liveupdate-frametable-placed: a page every 64 KiB of node 1's RAM in
  [1 GiB + 16 MiB, LOW) in such a file, LOW the lowest of keel's own
  tables at the top of node 1 in the first image (0x4fd3c000 less 64 KiB:
  3,791 pages). The first image's frame table of node 1 (2 MiB) and its
  section table lie at node 1's top, above its other tables, the only
  free range there that holds them. The handover names them
  (HANDOVER_REC_FT_PLACE); bootmem's own table in a later image, for
  3,791 carried ranges, placed first, keeps clear of them, and the frame
  table goes where it was: bootmem.frametable_pieces 3 (the section table
  and one piece a node), node 1's `frametable` row [0x4fdff000,
  0x50000000) as in the first image. Before, bootmem's table took the
  top of node 1 and the frame table of node 1 went 256 KiB lower, onto
  pages no image had used for it ([0x4fdbf000, 0x4ffc0000)).

Quiet on this 2-core host (2026-12): about 0.5 s each (three boots of
1.5 GiB); the timeout, firmware.TIMEOUT (120 s), is a safety net.
"""

import atexit
import bisect
import os
import random
import re
import tempfile

from .lu_bad_cases import lu_check

PAGE = 4096
UPDATES = 2
DOMAINS = ["domain=64M@0", "domain=32M@1"]
MCE = ((0x6000000, 0x6002000), (0x44000000, 0x44001000))


def _names_at(reserved, pa):
    """The names of memmap.reserved's rows (sorted, apart) holding @pa."""
    i = bisect.bisect_right(reserved, (pa, float("inf"), "")) - 1
    return [n for a, b, n in reserved[max(i, 0):i + 1] if a <= pa < b]


def _check(rep, log, ignored=UPDATES, mce=MCE):
    out = []
    pages = sum((e - s) // PAGE for s, e in mce)
    bad = rep["bad_memory"]
    want = {"firmware": 0, "option": 0, "mce": pages, "injection": 0,
            "handover": 0}
    if bad.get("by_source") != want or bad["pages"] != pages:
        out.append(f"bad_memory pages {bad['pages']}, by_source "
                   f"{bad.get('by_source')}: want {pages}, {want}")
    if bad.get("handover_pages") != pages:
        out.append(f"handover_pages {bad.get('handover_pages')}: want "
                   f"{pages} (all carried)")
    reserved = sorted(tuple(r) for r in rep["memmap"]["reserved"])
    for s, e in mce:
        for pa in range(s, e, PAGE):
            names = _names_at(reserved, pa)
            if names != ["bad handover mce"]:
                out.append(f"{pa:#x} reserved as {names}: want "
                           "['bad handover mce']")
    first = re.findall(r"^keel: sandbox: the host's machine-check history: "
                       rf"{pages} pages offlined, 0 refused$", log, re.M)
    later = re.findall(r"^keel: sandbox: 2 mce lines not replayed: this "
                       r"boot came with a handover", log, re.M)
    if (len(first), len(later)) != (1, ignored):
        out.append(f"{len(first)} images offlined the history and "
                   f"{len(later)} ignored it: want 1 and {ignored}")
    out += lu_check(rep, UPDATES, 2)
    a = rep["audit"]
    if a.get("problems") != 0 or a["lost_pages"] != 0 or not a["ok"] or \
            a["bad_pages"] != pages:
        out.append(f"audit=full: {a}: want 0 problems, 0 lost, "
                   f"{pages} bad")
    return out


def _check_file(rep, log):
    out = _check(rep, log, ignored=0)
    warn = re.findall(r"^keel: warning: sandbox: --mce-history \S+: only "
                      r"its mce lines are read", log, re.M)
    if len(warn) != 1:
        out.append(f"{len(warn)} warnings about the history's ram line: "
                   "want 1 (the first image's)")
    if rep["memmap"]["ram_bytes"] != 512 << 20:
        out.append(f"ram_bytes {rep['memmap']['ram_bytes']}: want 512 MiB, "
                   "the description's (the history's ram line ignored)")
    return out


MANY = 3000


def _many():
    """MANY pages of tests/data/sandbox-liveupdate.fw's RAM in runs of 1
    to 4, apart, in [16 MiB, 192 MiB) of each node (its top, keel's own
    tables, left alone), in a history file written for this run: (path,
    runs)."""
    rnd = random.Random(38)
    pfns = set()
    while len(pfns) < MANY:
        base = rnd.choice((0, 1 << 30)) + (16 << 20)
        p = (base + rnd.randrange(176 << 20)) // PAGE
        for q in range(p, p + min(rnd.choice((1, 1, 1, 2, 4)),
                                  MANY - len(pfns))):
            pfns.add(q)
    runs, pfns = [], sorted(pfns)
    for p in pfns:
        if runs and runs[-1][1] == p * PAGE:
            runs[-1][1] += PAGE
        else:
            runs.append([p * PAGE, (p + 1) * PAGE])
    fd, path = tempfile.mkstemp(prefix="keel-mce-many-", suffix=".mce")
    with os.fdopen(fd, "w") as f:
        f.write("# tests/sandbox/lu_mce_cases.py, liveupdate-mce-history-"
                "many\n")
        for s, e in runs:
            f.write(f"mce {s:#x} {e:#x}\n")
    atexit.register(os.unlink, path)
    return path, [tuple(r) for r in runs]


FT1 = (0x4fdff000, 0x50000000)  # node 1's frame table (see the top)
LOW = 0x4fd3c000 - (64 << 10)


def _dense():
    """A page every 64 KiB of node 1 in [1 GiB + 16 MiB, LOW), in a
    history file written for this run: (path, pages)."""
    pfns = [p // PAGE for p in range((1 << 30) + (16 << 20), LOW, 64 << 10)]
    fd, path = tempfile.mkstemp(prefix="keel-mce-dense-", suffix=".mce")
    with os.fdopen(fd, "w") as f:
        f.write("# tests/sandbox/lu_mce_cases.py, liveupdate-frametable-"
                "placed\n")
        for p in pfns:
            f.write(f"mce {p * PAGE:#x} {(p + 1) * PAGE:#x}\n")
    atexit.register(os.unlink, path)
    return path, pfns


def _check_placed(pages):
    def check(rep, log):
        out = lu_check(rep, UPDATES)
        bad = rep["bad_memory"]
        if bad["pages"] != pages or bad.get("handover_pages") != pages:
            out.append(f"bad_memory.pages {bad['pages']}, handover_pages "
                       f"{bad.get('handover_pages')}: want {pages}, {pages}")
        ft = [(s, e) for s, e, n in rep["memmap"]["reserved"]
              if n == "frametable" and s >= (1 << 30)]
        pieces = rep["bootmem"]["frametable_pieces"]
        if pieces != 3 or ft != [FT1]:
            out.append(f"frametable_pieces {pieces}, node 1's frametable "
                       f"rows {[(hex(s), hex(e)) for s, e in ft]}: want 3, "
                       f"[{FT1[0]:#x}, {FT1[1]:#x})")
        a = rep["audit"]
        if a.get("problems") != 0 or a["lost_pages"] != 0:
            out.append(f"audit {a}: want 0 problems, 0 lost")
        return out
    return check


def lu_mce_cases(case_class):
    words = [f"liveupdate={UPDATES}", "audit=full"] + DOMAINS
    path, runs = _many()
    dense, dense_pfns = _dense()

    def check_many(rep, log):
        return _check(rep, log, ignored=0, mce=runs)

    return [case_class("liveupdate-mce-history", "sandbox-liveupdate-mce.fw",
                       words, [_check]),
            case_class("liveupdate-mce-history-file",
                       "sandbox-liveupdate.fw",
                       ["--mce-history=tests/data/sandbox-liveupdate.mce"]
                       + words, [_check_file]),
            case_class("liveupdate-mce-history-many",
                       "sandbox-liveupdate.fw",
                       [f"--mce-history={path}", "report=full"] + words,
                       [check_many]),
            case_class("liveupdate-frametable-placed",
                       "sandbox-liveupdate.fw",
                       [f"--mce-history={dense}", f"liveupdate={UPDATES}",
                        "audit=full", "domain=64M@0"],
                       [_check_placed(len(dense_pfns))])]
