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

Quiet on this 2-core host (2026-12): about 0.5 s (three boots of 1.5 GiB);
the timeout, firmware.TIMEOUT (120 s), is a safety net.
"""

import re

from .lu_bad_cases import lu_check

PAGE = 4096
UPDATES = 2
DOMAINS = ["domain=64M@0", "domain=32M@1"]
MCE = ((0x6000000, 0x6002000), (0x44000000, 0x44001000))
PAGES = sum((e - s) // PAGE for s, e in MCE)


def _check(rep, log, ignored=UPDATES):
    out = []
    bad = rep["bad_memory"]
    want = {"firmware": 0, "option": 0, "mce": PAGES, "injection": 0,
            "handover": 0}
    if bad.get("by_source") != want or bad["pages"] != PAGES:
        out.append(f"bad_memory pages {bad['pages']}, by_source "
                   f"{bad.get('by_source')}: want {PAGES}, {want}")
    if bad.get("handover_pages") != PAGES:
        out.append(f"handover_pages {bad.get('handover_pages')}: want "
                   f"{PAGES} (all carried)")
    for s, e in MCE:
        for pa in range(s, e, PAGE):
            names = [n for a, b, n in rep["memmap"]["reserved"]
                     if a <= pa < b]
            if names != ["bad handover mce"]:
                out.append(f"{pa:#x} reserved as {names}: want "
                           "['bad handover mce']")
    first = re.findall(r"^keel: sandbox: the host's machine-check history: "
                       rf"{PAGES} pages offlined, 0 refused$", log, re.M)
    later = re.findall(r"^keel: sandbox: 2 mce lines not replayed: this "
                       r"boot came with a handover", log, re.M)
    if (len(first), len(later)) != (1, ignored):
        out.append(f"{len(first)} images offlined the history and "
                   f"{len(later)} ignored it: want 1 and {ignored}")
    out += lu_check(rep, UPDATES, 2)
    a = rep["audit"]
    if a.get("problems") != 0 or a["lost_pages"] != 0 or not a["ok"] or \
            a["bad_pages"] != PAGES:
        out.append(f"audit=full: {a}: want 0 problems, 0 lost, "
                   f"{PAGES} bad")
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


def lu_mce_cases(case_class):
    words = [f"liveupdate={UPDATES}", "audit=full"] + DOMAINS
    return [case_class("liveupdate-mce-history", "sandbox-liveupdate-mce.fw",
                       words, [_check]),
            case_class("liveupdate-mce-history-file",
                       "sandbox-liveupdate.fw",
                       ["--mce-history=tests/data/sandbox-liveupdate.mce"]
                       + words, [_check_file])]
