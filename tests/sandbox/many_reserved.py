# SPDX-License-Identifier: MIT
"""Issue 36 §7's sandbox cases: many one-page firmware reserved ranges
(as many as the preserved ranges of a big live update), listed from the
top down.

- 300,000: bootinfo's reserved list outgrows its early pool (some 130,000
  ranges in the sandbox) and must merge neighbours; merging used to
  re-sort the whole list for every range past the pool (200,000 did not
  finish in 60 s). The merge is said once.
- 120,000: the list fits the pool, and bootmem took it in the firmware's
  order, moving its whole table for each range (25 s); now in address
  order (0.5 s). Nothing merged, no warning.

Every page stays reserved: the reserved bytes are at least the pages
listed and the audit finds nothing lost."""

import os

from . import firmware

PAGE = 4096
COUNT = 300000
BASE = 4 << 30
STEP = 4 * PAGE


def _fw(count):
    """RAM [0, BASE + count * STEP), a page reserved every 4 pages above
    BASE, highest first (an unsorted list)."""
    d = os.path.join(os.path.dirname(firmware.BINARY), "fw-tests")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, f"reserved-{count // 1000}k.fw")
    lines = [f"ram 0x0 {BASE + count * STEP:#x} node=0",
             "cpu 0 node=0 package=0 core=0 thread=0"]
    for i in range(count - 1, -1, -1):
        s = BASE + i * STEP
        lines.append(f"reserved {s:#x} {s + PAGE:#x} fw{i % 5}")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def all_reserved_kept(count, merged):
    """Never dropped: every listed page is still reserved; merged (said
    once) when @merged, else nothing merged."""
    def check(rep, log):
        out = []
        mm = rep["memmap"]
        if (rep.get("merged_reserved", 0) > 0) != merged:
            out.append(f"merged_reserved {rep.get('merged_reserved')}")
        if rep.get("dropped_reserved", 0):
            out.append(f"dropped_reserved {rep['dropped_reserved']}")
        if mm["firmware_reserved_bytes"] < count * PAGE:
            out.append("firmware_reserved_bytes "
                       f"{mm['firmware_reserved_bytes']} < the {count} "
                       "pages listed")
        if not merged and mm["firmware_reserved_bytes"] != count * PAGE:
            out.append("firmware_reserved_bytes "
                       f"{mm['firmware_reserved_bytes']}: not merged, "
                       f"so {count} pages")
        a = rep["audit"]
        if not a["ok"] or a["lost_pages"]:
            out.append(f"audit: ok {a['ok']}, lost_pages {a['lost_pages']}")
        said = log.count("reserved ranges: merging the nearest")
        if said != (1 if merged else 0):
            out.append(f"the merge said {said} times")
        return out
    return check


def many_reserved_cases(Case):
    """The cases above, as tests/sandbox/cases.py's @Case. Quiet on this
    2-core host: 120,000 ranges 0.5 s (25 s before), 300,000 2.5-4 s
    (1,000,000: 7 s); the timeouts are safety nets, 20x and 15x."""
    def case(name, count, merged, timeout):
        return Case(name, _fw(count), ["bootscrub=off"],
                    [all_reserved_kept(count, merged)],
                    {"cpus": 1, "online": 1, "nodes": 1,
                     "ram": BASE + count * STEP},
                    derive=False, timeout=timeout)
    return [case("reserved-120k-top-down", 120000, False, 10),
            case("reserved-300k-top-down", COUNT, True, 60)]
