# SPDX-License-Identifier: MIT
"""Issue 36 §7's sandbox case: 300,000 one-page firmware reserved ranges
(as many as the preserved ranges of a big live update), listed from the
top down. bootinfo's reserved list outgrows its early pool (some 130,000
ranges in the sandbox) and must merge neighbours; merging used to re-sort
the whole list for every range past the pool (200,000 did not finish in
60 s). Every page stays reserved: the reserved bytes are at least the
pages listed, the audit finds nothing lost, and the merge is said once."""

import os

from . import firmware

PAGE = 4096
COUNT = 300000
BASE = 4 << 30
STEP = 4 * PAGE


def _fw():
    """RAM [0, BASE + COUNT * STEP), a page reserved every 4 pages above
    BASE, highest first (an unsorted list)."""
    d = os.path.join(os.path.dirname(firmware.BINARY), "fw-tests")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "reserved-300k.fw")
    lines = [f"ram 0x0 {BASE + COUNT * STEP:#x} node=0",
             "cpu 0 node=0 package=0 core=0 thread=0"]
    for i in range(COUNT - 1, -1, -1):
        s = BASE + i * STEP
        lines.append(f"reserved {s:#x} {s + PAGE:#x} fw{i % 5}")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def all_reserved_kept(rep, log):
    """Merged, never dropped: every listed page is still reserved."""
    out = []
    mm = rep["memmap"]
    if rep.get("merged_reserved", 0) <= 0:
        out.append("merged_reserved is 0: the list never filled")
    if rep.get("dropped_reserved", 0):
        out.append(f"dropped_reserved {rep['dropped_reserved']}")
    if mm["firmware_reserved_bytes"] < COUNT * PAGE:
        out.append(f"firmware_reserved_bytes {mm['firmware_reserved_bytes']}"
                   f" < the {COUNT} pages listed")
    a = rep["audit"]
    if not a["ok"] or a["lost_pages"]:
        out.append(f"audit: ok {a['ok']}, lost_pages {a['lost_pages']}")
    if log.count("reserved ranges: merging the nearest") != 1:
        out.append("the merge is not said exactly once")
    return out


def many_reserved_cases(Case):
    """The case above, as tests/sandbox/cases.py's @Case. Quiet: 1.6 s
    (200,000 ranges) to 7 s (1,000,000) on this 2-core host; the timeout
    is a safety net, 10x the 300,000 case."""
    return [Case("reserved-300k-top-down", _fw(), ["bootscrub=off"],
                 [all_reserved_kept],
                 {"cpus": 1, "online": 1, "nodes": 1,
                  "ram": BASE + COUNT * STEP},
                 derive=False, timeout=60)]
