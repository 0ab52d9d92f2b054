# SPDX-License-Identifier: MIT
"""The heap's deferred chunks (common/mm/heap_defer.c, issue 38) in the
sandbox.

- bad-defer-fill: 300 bad pages scattered (seed 3) over 2 nodes of 2 GiB
  (`bad` lines); the handoff hands each node's free RAM across them as
  spans, so it makes fewer chunks than there are bad pages (range by range
  it made ~17 per bad page: this check fails on that code); then four
  domains fill the machine to less than 2% free (built from the deferred
  chunks, split on demand: extents of 2 MiB and 4 KiB around every bad
  page), and audit=full must be exact: free + allocated + reserved + bad
  = RAM, 0 lost, heap_check clean, the 300 pages bad and none of them in
  a domain (held_pages 0). `domains_trust=on` after `bootscrub=off`: the
  build zeroes nothing, the sparse arena stays small.

- bad-defer-idle-canary: bad-scrub-canary's machine (bad pages at both
  sides of the node boundary, in the middle of node 0, at the top of node
  1, each guarded by the sandbox's canary) with `bootscrub=idle`: the heap
  opens with its deferred chunks, the idle scrubbers settle them
  (heap_take_dirty()) and scrub everything else, and no bad page is ever
  written (the canary), audit=full exact.

On this 2-core host (2026-12): bad-defer-fill 0.2-0.6 s (its timeout, 60
s, a safety net); bad-defer-idle-canary 8 s beside a running sandbox-test
(it scrubs 2 GiB; the default timeout, firmware.TIMEOUT, 120 s, over 10x).
"""

import os
import random

from . import firmware
from .badmem_cases import _canary, check_bad, check_canary

PAGE = 4096
GIB = 1 << 30
MIB = 1 << 20
COUNT = 300
DOMAINS = ["domain=1900M@0", "domain=1900M@1", "domain=100M@0",
           "domain=100M@1"]


def _fw():
    """2 nodes of 2 GiB, COUNT bad pages; (path, their pfns)."""
    pfns = sorted(random.Random(3).sample(range(1, (4 * GIB) // PAGE),
                                          COUNT))
    lines = ["ram 0 2G node=0", "ram 2G 4G node=1", "cpu 0 node=0",
             "cpu 1 node=1"]
    lines += [f"bad {p * PAGE:#x} {(p + 1) * PAGE:#x}" for p in pfns]
    d = os.path.join(os.path.dirname(firmware.BINARY), "fw-tests")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "bad-defer-fill.fw")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path, pfns


def check_fill(pfns):
    def check(rep, log):
        out = []
        a, h, bm = rep["audit"], rep["heap"], rep.get("bad_memory") or {}
        info = rep.get("domains_info") or {}
        if h["chunks"] >= COUNT:
            out.append(f"heap.chunks {h['chunks']} at the handoff: not "
                       f"fewer than the {COUNT} bad pages (no spans?)")
        if (info.get("built"), info.get("failed")) != (len(DOMAINS), 0):
            out.append(f"domains built {info.get('built')}, failed "
                       f"{info.get('failed')}")
        if a["free_pages"] * 50 > a["ram_pages"]:
            out.append(f"{a['free_pages']} pages still free of "
                       f"{a['ram_pages']}: the machine is not full")
        if not a["ok"] or a["lost_pages"] or a["problems"]:
            out.append(f"audit: ok {a['ok']}, lost {a['lost_pages']}, "
                       f"problems {a['problems']}")
        if a["free_pages"] + a["allocated_pages"] + a["reserved_pages"] + \
                a["bad_pages"] != a["ram_pages"]:
            out.append("audit classes do not add up to ram_pages")
        if a["bad_pages"] != len(pfns) or bm.get("pages") != len(pfns) or \
                bm.get("held_pages"):
            out.append(f"audit.bad_pages {a['bad_pages']}, bad_memory "
                       f"pages {bm.get('pages')} held "
                       f"{bm.get('held_pages')}: want {len(pfns)}, 0 held")
        return out
    return check


def defer_cases(Case):
    """The case above, as tests/sandbox/cases.py's @Case."""
    fw, pfns = _fw()
    fwc, pc = _canary()
    return [Case("bad-defer-fill", fw,
                 ["bootscrub=off", "domains_trust=on", "audit=full"] +
                 DOMAINS, [check_fill(pfns)], timeout=60),
            Case("bad-defer-idle-canary", fwc, ["bootscrub=idle",
                                                 "audit=full"],
                 [check_canary(len(pc)),
                  check_bad({"firmware": pc},
                            lambda p: 0 if p < 0x40000 else 1, 2)],
                 {"scrubbed": True}, env={"KEEL_SANDBOX_CANARY": "1"})]
