# SPDX-License-Identifier: MIT
"""Issue 38 §1's sandbox cases: bad memory at boot, from every source the
sandbox has (the firmware description's `bad` lines, badpage=, badram=,
memmap=SIZE$START).

- bad-1g-alignments: one bad page first, in the middle and last of a
  1 GiB-aligned chunk, and a range across the node boundary (the last page
  of node 0 and the first of node 1), with audit=full: the audit exact
  (free + allocated + reserved + bad = RAM, heap_check clean), and the
  report's bad_memory (pages, ranges, by_source, by_node) equal to what the
  inputs name, computed here from the inputs alone.
- bad-words-malformed: a malformed word of each option is one warning
  naming it; its well-formed items are still taken; the boot scrub runs
  around the bad pages (it reads free chunks only) and the audit is exact.
- bad-scrub-canary: the boot scrub never writes a bad page: with the
  sandbox's canary (KEEL_SANDBOX_CANARY=1, arch/sandbox/canary.c) every
  page of a `bad` line holds a pattern before keel runs and must hold it
  at exit (a bad line left in the heap is scrubbed: 3 of these 4 pages
  were clobbered when the reservation was left out on purpose).
- bad-liveupdate: the new image of a live update (liveupdate=1, two
  domains) is handed the `bad` lines' pages (the old image carries them
  and gives it the description less those lines, arch/sandbox/
  fw_condense.c) and reads badpage= again, and cuts the same pages out
  before its bootmem allocates: all of them in its bad_memory, none
  handed out, 0 mismatches in the domains (0.5 s).
- bad-liveupdate-runtime-canary: two updates with the canary on, so not
  condensed: each new image reads the `bad` lines and is handed the same
  pages; each is counted once, reserved as `bad firmware` (bootmem's
  table names bytes a carried range also holds), the canary intact.
- bad-ranges-summary / bad-ranges-full: 40 bad pages: 32 summary rows
  whose pages add up, every page inside a row; report=full lists all 40.
- bad-under-image: badpage= names two ranges inside the image's own
  reservation ("kernel", the description's 1M..3M): its loader already
  wrote keel there, so nothing is mended, but each is one error naming the
  image and the bad range (errors 2 in the report, no warning), and each
  is counted bad (its bytes its own, the "kernel" reservation in pieces
  around it); before, nothing was said, and then nothing was counted.
- bad-100k-1tib: 100,000 scattered bad pages (`bad` lines) on a 1 TiB
  machine of 2 nodes: no table limit hit (no merge, no warning), every page
  counted on its node. Quiet on this 2-core host (2026-12): about 5.5 s
  (the handoff's 1,000,000 chunk heads are one host page fault each: 4.3
  s; with no bad page 0.01 s); the timeout, 120 s, is a safety net (20x).
"""

import os
import random

from . import firmware

PAGE = 4096
GIB = 1 << 30
TIB = 1 << 40


def _dir():
    d = os.path.join(os.path.dirname(firmware.BINARY), "fw-tests")
    os.makedirs(d, exist_ok=True)
    return d


def _write(name, lines):
    path = os.path.join(_dir(), name)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def _runs(pfns):
    """Sorted distinct PFNs as [start, end) byte ranges of touching pages."""
    out = []
    for p in sorted(set(pfns)):
        if out and out[-1][1] == p * PAGE:
            out[-1][1] += PAGE
        else:
            out.append([p * PAGE, (p + 1) * PAGE])
    return out


def check_bad(pfns_by_source, node_of, nodes, rows=None, exact=False):
    """bad_memory and the audit against the PFNs each source was given:
    @pfns_by_source {source: [pfn]}, @node_of(pfn) -> node. @rows: the
    most ranges rows (@exact: exactly that many); None: one per run."""
    def check(rep, log):
        out = []
        bm, a = rep.get("bad_memory"), rep["audit"]
        if bm is None:
            return ["no bad_memory object"]
        every = [p for ps in pfns_by_source.values() for p in ps]
        want_pages = len(set(every))
        if bm["pages"] != want_pages or a["bad_pages"] != want_pages:
            out.append(f"bad_memory.pages {bm['pages']}, audit.bad_pages "
                       f"{a['bad_pages']}: the inputs name {want_pages}")
        for src in ("firmware", "option", "mce", "injection", "handover"):
            want = len(set(pfns_by_source.get(src, ())))
            if bm["by_source"][src] != want:
                out.append(f"by_source.{src} {bm['by_source'][src]} != "
                           f"{want}")
        by_node = [0] * nodes
        for p in set(every):
            by_node[node_of(p)] += 1
        if bm["by_node"] != by_node:
            out.append(f"by_node {bm['by_node']} != {by_node}")
        rr = bm["ranges"]
        if sum(r[2] for r in rr) != want_pages:
            out.append("ranges' pages do not add up to "
                       f"{want_pages}: {sum(r[2] for r in rr)}")
        if rows is None:
            got = [[r[0], r[1]] for r in rr]
            # Runs of different sources stay apart: compare the pages.
            pages = sorted(p for s, e in got for p in range(s // PAGE,
                                                            e // PAGE))
            if pages != sorted(set(every)):
                out.append(f"ranges {got[:8]}... are not the pages named")
        else:
            if len(rr) > rows or (exact and len(rr) != rows):
                out.append(f"{len(rr)} ranges rows, expected "
                           f"{'' if exact else 'at most '}{rows}")
            for p in set(every):
                if not any(r[0] <= p * PAGE < r[1] for r in rr):
                    out.append(f"bad pfn {p:#x} in no ranges row")
                    break
        if not a["ok"] or a["lost_pages"] or a["problems"]:
            out.append(f"audit: ok {a['ok']}, lost {a['lost_pages']}, "
                       f"problems {a['problems']}")
        free = a["free_pages"] + a["allocated_pages"]
        if free + a["reserved_pages"] + a["bad_pages"] != a["ram_pages"]:
            out.append("audit classes do not add up to ram_pages")
        return out
    return check


def check_warnings(*texts, count=None):
    def check(rep, log):
        out = [f"no warning {t!r}" for t in texts
               if f"keel: warning: {t}" not in log]
        n = log.count("keel: warning:")
        if count is not None and n != count:
            out.append(f"{n} warnings, expected {count}")
        return out
    return check


def _alignments():
    """2 nodes of 4 GiB, touching at 4 GiB; the bad pages and their
    sources."""
    fw = _write("bad-1g-alignments.fw", [
        "ram 0 4G node=0", "ram 4G 8G node=1",
        "cpu 0 node=0", "cpu 1 node=0", "cpu 2 node=1",
        # Firmware: the last page of the 1 GiB chunk [2G, 3G).
        f"bad {3 * GIB - PAGE:#x} {3 * GIB:#x}",
    ])
    fw_pfns = [(3 * GIB - PAGE) // PAGE]
    opt = {
        # First page of [1G, 2G).
        "badpage": [GIB // PAGE],
        # The node boundary: last page of node 0, first of node 1.
        "badpage_range": [(4 * GIB) // PAGE - 1, (4 * GIB) // PAGE],
        # The middle of [2G, 3G) (memmap=4K$2.5G).
        "memmap": [(2 * GIB + GIB // 2) // PAGE],
        # The last page of [5G, 6G) on node 1 (an exact badram mask).
        "badram": [(6 * GIB - PAGE) // PAGE],
    }
    cmd = ["audit=full", "bootscrub=off",
           f"badpage={opt['badpage'][0]:#x},"
           f"{opt['badpage_range'][0]:#x}-{opt['badpage_range'][1]:#x}",
           f"memmap=4K${2 * GIB + GIB // 2:#x}",
           f"badram={6 * GIB - PAGE:#x},0xfffffffffffff000"]
    opt_pfns = [p for ps in opt.values() for p in ps]
    return fw, cmd, {"firmware": fw_pfns, "option": opt_pfns}


def _canary():
    """2 nodes of 1 GiB; bad pages at both sides of the node boundary, in
    the middle of node 0 and at the top of node 1."""
    pfns = [0x3ffff, 0x40000, 0x20000, 0x7ffff]
    fw = _write("bad-canary.fw", [
        "ram 0 1G node=0", "ram 1G 2G node=1", "cpu 0 node=0",
        "cpu 1 node=1"] +
        [f"bad {p * PAGE:#x} {(p + 1) * PAGE:#x}" for p in pfns])
    return fw, pfns


def updated(generation, domains=2):
    """The last image is generation @generation, its @domains domains
    restored, 0 mismatches."""
    def check(rep, log):
        lu = rep["liveupdate"]
        if lu["generation"] != generation or lu["mismatches"] or \
                lu["state"] != "taken" or lu["domains_restored"] != domains:
            return [f"liveupdate generation {lu['generation']}, restored "
                    f"{lu['domains_restored']}, mismatches "
                    f"{lu['mismatches']}"]
        return []
    return check


def check_carried(pfn, firmware):
    """Each new image was handed the page and refused to offline it again
    (it is not the heap's): two handover lines with 1 bad page more than
    the @firmware pages of the description's `bad` lines (the first image
    carries those too, for a next image given the description condensed,
    arch/sandbox/fw_condense.c), two refusals of the injection."""
    def check(rep, log):
        out = []
        took = log.count(f", {firmware + 1} bad pages, ")
        if took != 2:
            out.append(f"{took} handover lines with {firmware + 1} bad "
                       "pages, want 2")
        refusals = log.count(f"inject=poison:{pfn}: heap_offline() "
                             "refused it")
        if refusals != 2:
            out.append(f"{refusals} refused re-injections, want 2")
        return out
    return check


def check_read_and_carried(pfn):
    """Not condensed (the canary wants every line): each new image read
    the description's `bad` lines itself and was handed the same pages
    (arch/sandbox/fw_condense.c); bootmem's table names them (`bad
    firmware`), and bad_memory counts each once (check_bad())."""
    def check(rep, log):
        out = []
        if "the firmware description less its bad lines" in log:
            out.append("an update gave the description condensed under "
                       "KEEL_SANDBOX_CANARY=1")
        names = [n for s, e, n in rep["memmap"]["reserved"]
                 if s <= pfn * PAGE < e]
        if names != ["bad firmware"]:
            out.append(f"pfn {pfn:#x} reserved as {names}: want ['bad "
                       "firmware'] (read again; the carried copy under it)")
        return out
    return check


def check_canary(pages):
    def check(rep, log):
        want = f"sandbox: canary: {pages} reserved pages intact, 0 clobbered"
        return [] if want in log else [f"no line {want!r}"]
    return check


def _forty():
    fw = _write("bad-40.fw", ["ram 0 2G node=0", "cpu 0 node=0"] +
                [f"bad {(0x10000 + 4 * i) * PAGE:#x} "
                 f"{(0x10001 + 4 * i) * PAGE:#x}" for i in range(40)])
    return fw, [0x10000 + 4 * i for i in range(40)]


def _big():
    rng = random.Random(38)
    pfns = sorted(rng.sample(range(1, TIB // PAGE), 100000))
    fw = _write("bad-100k-1tib.fw", [
        "ram 0 512G node=0", "ram 512G 1T node=1",
        "cpu 0 node=0", "cpu 1 node=1"] +
        [f"bad {p * PAGE:#x} {(p + 1) * PAGE:#x}" for p in pfns])
    return fw, pfns


def check_image_errors(bad):
    """One error line per bad range (start, end) under the image's
    "kernel" reservation, read from the report (the bad ranges name their
    own bytes in it: the image is the span of its pieces), each counted
    bad, and no other error."""
    def check(rep, log):
        kern = [(s, e) for s, e, n in rep["memmap"]["reserved"]
                if n == "kernel"]
        if not kern:
            return ["no kernel reservation"]
        s, e = min(k[0] for k in kern), max(k[1] for k in kern)
        s = min([s] + [bs for bs, be in bad if be == s])
        pages = sum((be - bs) // PAGE for bs, be in bad)
        if rep["bad_memory"]["pages"] != pages or \
                sorted((r[0], r[1]) for r in rep["bad_memory"]["ranges"]) \
                != sorted(bad):
            return [f"bad_memory {rep['bad_memory']}: want {bad}"]
        want = [f"keel: error: the image [{s:#x}, {e:#x}) lies on memory "
                f"called bad (bad option [{bs:#x}, {be:#x})): its loader "
                "wrote keel there; load keel where memory is good"
                for bs, be in bad]
        got = [line for line in log.splitlines()
               if line.startswith("keel: error:")]
        out = []
        if got != want:
            out.append(f"error lines {got}, want {want}")
        if rep["errors"] != len(bad) or rep["warnings"] != 0:
            out.append(f"errors {rep['errors']}, warnings "
                       f"{rep['warnings']}: want {len(bad)}, 0")
        if rep["audit"]["lost_pages"] != 0:
            out.append(f"audit {rep['audit']}")
        return out
    return check


def _image_cases(Case):
    return [Case("bad-under-image", "sandbox-liveupdate.fw",
                 ["bootscrub=off", "audit=full", "badpage=0x100,0x180-0x181"],
                 [check_image_errors([(0x100000, 0x101000),
                                      (0x180000, 0x182000)])])]


def _lu_cases(Case, fwc, pc):
    """badmem_cases()'s live updates over _canary()'s machine."""
    runtime = ["bootscrub=off", "audit=full", "liveupdate=2", "domain=64M@0",
               "domain=64M@1", "inject=poison:0x31000"]
    return [
        Case("bad-liveupdate", fwc,
             ["bootscrub=off", "audit=full", "liveupdate=1", "domain=64M@0",
              "domain=64M@1", "badpage=0x30000"],
             [updated(1),
              check_bad({"firmware": pc, "option": [0x30000]},
                        lambda p: 0 if p < 0x40000 else 1, 2)]),
        # A page the first image's heap takes out (inject=poison, as a
        # machine check would) crosses two updates in the handover's
        # bad-page record: each new image reserves it as "bad handover"
        # before its bootmem allocates, so its own inject=poison of the
        # same page is refused (not heap memory), and the last image
        # counts it once, from the handover, under its first source
        # (injection: version 5 keeps it). Before the record, each new
        # image had the page back in its heap and offlined it again.
        Case("bad-liveupdate-runtime", fwc, runtime,
             [updated(2),
              check_bad({"firmware": pc, "injection": [0x31000]},
                        lambda p: 0 if p < 0x40000 else 1, 2),
              check_carried(0x31000, len(pc))]),
        # The same with the canary: the description is not condensed,
        # so each new image reads the firmware's pages and is handed
        # them too; each counted once, the handover lines say both.
        Case("bad-liveupdate-runtime-canary", fwc, runtime,
             [updated(2),
              check_bad({"firmware": pc, "injection": [0x31000]},
                        lambda p: 0 if p < 0x40000 else 1, 2),
              check_carried(0x31000, len(pc)),
              check_read_and_carried(pc[0]),
              check_canary(len(pc))],
             env={"KEEL_SANDBOX_CANARY": "1"}),
    ]


def badmem_cases(Case):
    """The cases above, as tests/sandbox/cases.py's @Case."""
    fw, cmd, srcs = _alignments()
    at4g = (4 * GIB) // PAGE
    fw40, p40 = _forty()
    fwbig, pbig = _big()
    fwc, pc = _canary()
    half = (512 * GIB) // PAGE
    return [
        Case("bad-1g-alignments", fw, cmd,
             [check_bad(srcs, lambda p: 0 if p < at4g else 1, 2),
              check_warnings(count=0)]),
        Case("bad-words-malformed", "sandbox-2node.fw",
             ["bootscrub=on", "audit=full", "badpage=0x20000,1-x",
              "badram=0x1000", "memmap=4K@0", "memmap=0$0x1000",
              "memmap=8K$0x30000000"],
             [check_warnings("cmdline: badpage=0x20000,1-x: ",
                             "cmdline: badram=0x1000: ",
                             "cmdline: memmap=4K@0: only SIZE$START",
                             "cmdline: memmap=0$0x1000: SIZE is 0",
                             count=4),
              check_bad({"option": [0x20000, 0x30000, 0x30001]},
                        lambda p: 0, 2)],
             {"scrubbed": True}),
        Case("bad-scrub-canary", fwc, ["bootscrub=on", "audit=full"],
             [check_canary(len(pc)),
              check_bad({"firmware": pc},
                        lambda p: 0 if p < 0x40000 else 1, 2)],
             {"scrubbed": True}, env={"KEEL_SANDBOX_CANARY": "1"}),
        Case("bad-ranges-summary", fw40, ["bootscrub=off"],
             [check_bad({"firmware": p40}, lambda p: 0, 1, rows=32)]),
        Case("bad-ranges-full", fw40, ["bootscrub=off", "report=full"],
             [check_bad({"firmware": p40}, lambda p: 0, 1, rows=40,
                        exact=True)]),
        Case("bad-100k-1tib", fwbig, ["bootscrub=off"],
             [check_bad({"firmware": pbig},
                        lambda p: 0 if p < half else 1, 2, rows=32),
              check_warnings(count=0)],
             timeout=120),
    ] + _lu_cases(Case, fwc, pc) + _image_cases(Case)
