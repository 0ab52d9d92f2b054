# SPDX-License-Identifier: MIT
"""Dense bad pages (issue 38 §1: "no table limit is hit"): GRUB's badram=
from a failing column, a page in every 128 KiB, and the same pages given
by the firmware as 32,768 `bad` lines.

- bad-badram-lattice: badram=0x5000,0x1f000 on 4 GiB names 32,768 pages.
  A table of 48-byte ranges fits between no two of them, so the pattern is
  kept as a pattern (a lattice): bootmem allocates around its pages, the
  heap takes them out right after the handoff. The report must count
  exactly the pattern's pages (computed here from ADDR, MASK alone), all
  of source option, each once, the audit balanced, nothing merged, keel's
  own reservations under 2% of RAM (the heap has the rest), the ranges in
  at most 64 rows whose pages add up. Before, bootmem merged its table's
  neighbours and the heap got 92 MiB of the 4 GiB.
- bad-badram-lattice-liveupdate: the same with liveupdate=1: the new image
  (which once panicked for want of 192 KiB in one piece for its domain
  set) reads the pattern itself; the handover carries none of its pages
  (528 KiB of records the lattice leaves no room for); its heap's first
  step, in the downtime, takes out at most the 528 pages of its first 66
  MiB (it took all 32,475 of its one range, 31 ms of downtime, before the
  step's range was cut).
- bad-badram-lattice-domains: two domains on that machine: their set is
  sized to them (a few KiB, where the whole set is 192 KiB, which no
  piece between the pattern's pages holds: before, "no room for the
  domain set"), both built, audit=full reads their leaves for zero, the
  audit balances with them.
- bad-badram-lattice-scrub: 1 GiB, the boot scrub on and a domain built, with
  the sandbox's canary on the pattern's pages (KEEL_SANDBOX_CANARY_BADRAM,
  arch/sandbox/canary.c): every one holds its pattern at exit, none
  scrubbed, handed out or written (on 4 GiB without the pattern, the
  scrub clobbered 32,510 of 32,768). Quiet: about 1.3 s.
- bad-badram-lattice-64g: 64 GiB, 2 nodes, 524,288 pages: the frame
  table's 16 KiB pieces in the gaps are a few regions across the pattern's
  runs, not one a gap (before the join: 2,816 merges and 8 s); every page
  counted on its node. Quiet on this host: 1.2 s; timeout 60 s.
- bad-firmware-lattice: the same 32,768 pages as firmware `bad` lines,
  which are ranges, not a pattern: bootmem's table still merges
  neighbours there (the RAM between them withheld, never a bad page handed
  out), and the report says how much (bootmem.merged_gap_bytes, one line,
  one warning): the limit that remains, visible.
- bad-badram-lattice-liveupdate-144m: a domain of 144 MiB there (2,304
  extents of 64 KiB): updated, 0 mismatches, the audit exact, and the
  new image's bootmem merged nothing (its reserved list in a store of
  114 KiB; before, only a store of the list plus an eighth plus 1,024
  was asked, which no piece holds, and bootmem merged its neighbours:
  with the old check off, 88 MiB of domains withheld 32 MiB of free RAM
  between extents). Its heap's ranges are in slices
  (common/mm/heap_ranges.c): before, one table of a range per extent and
  one per free range between them had to lie in one piece, and 80 MiB
  was the most an update could carry here.
- bad-badram-lattice-liveupdate-big: a domain of 160 MiB there (2,560
  extents of 64 KiB): the next image's reserved table (a region per
  preserved range, 48 bytes each) must lie in one piece, which the
  pattern's 124 KiB gaps cannot hold: the update is refused before the
  freeze, naming both sizes; the domain built and untouched, the audit
  exact.
- bad-lattice-under-image: a pattern over the image's own reservation
  ("kernel", 1M..3M): one error naming the image, the pattern and its
  first page there.
"""

import re

from ..qemu.domains_checks import Ask, domains_built
from .badmem_cases import GIB, PAGE, _write, check_canary, updated


def lattice_pages(addr, mask, ram):
    """The pages of @ram (a list of (start, end) bytes) that badram= ADDR,
    MASK names, counted page by page."""
    m, v = mask >> 12, (addr & mask) >> 12
    return sum(1 for s, e in ram for p in range(s // PAGE, e // PAGE)
               if p & m == v)


def check_lattice(pages, ram_bytes, nodes):
    """@pages bad pages (@nodes: each node's), all of source option, the
    audit exact, nothing merged, the heap given all but keel's own."""
    def check(rep, log):
        out = []
        bm, a, b = rep["bad_memory"], rep["audit"], rep["bootmem"]
        if bm["pages"] != pages or bm["by_source"]["option"] != pages:
            out.append(f"bad_memory.pages {bm['pages']}, by_source "
                       f"{bm['by_source']}: want {pages} option")
        if bm["by_node"] != nodes:
            out.append(f"by_node {bm['by_node']}, want {nodes}")
        if a["bad_pages"] != pages or not a["ok"] or a["lost_pages"] or \
                a["problems"]:
            out.append(f"audit {a}")
        if b["merged_regions"] or b["merged_gap_bytes"] or \
                "merging the nearest" in log:
            out.append(f"bootmem merged: {b}")
        if a["reserved_pages"] * 50 > ram_bytes // PAGE:
            out.append(f"reserved {a['reserved_pages']} pages: over 2% "
                       "of RAM")
        rows = bm["ranges"]
        if len(rows) > 64 or sum(r[2] for r in rows) != pages:
            out.append(f"{len(rows)} rows of {sum(r[2] for r in rows)} "
                       f"pages, want at most 64 of {pages}")
        if "kept as a pattern" not in log or \
                "pages of badram= patterns taken out of service" not in log:
            out.append("no line for the pattern kept or taken")
        return out
    return check


def check_nothing_withheld(rep, log):
    """The new image's bootmem held every preserved range as a region of
    its own: none merged with its neighbours (the RAM between them, free,
    withheld as "preserved" when the store for the list had no room)."""
    b = rep["bootmem"]
    if b["merged_regions"] or b["merged_gap_bytes"] or \
            "keel: warning: bootmem: more than" in log:
        return [f"bootmem merged {b['merged_regions']} regions, "
                f"{b['merged_gap_bytes']} bytes withheld"]
    return []


def check_lu_refused_tables(extents):
    """The update refused before the freeze: the next image's reserved
    table (a region per preserved range beside the rest of its list, 48
    bytes each, 64 + 128 more: bootmem_presize_need()) must lie in one
    piece, and the pattern (one bad page in 32) leaves 31 pages, 124 KiB,
    at most between its pages. Without the check the old image jumped
    and the new one merged the preserved regions with the RAM between
    them, or could not restore the domain. One image, the domain built
    and untouched."""
    def check(rep, log):
        out = []
        why = rep.get("fail_reason") or ""
        m = re.match(r"liveupdate: the next image's reserved table: (\d+) "
                     r"ranges of the domains and (\d+) more need (\d+) KiB "
                     r"in one piece, badram= leaves (\d+) KiB at most$", why)
        if not m:
            return [f"fail_reason {why!r}"]
        ranges, more, need, gap = (int(g) for g in m.groups())
        if ranges < extents or need * 1024 < (ranges + 64 + 128) * 48 or \
                need <= gap or gap != 31 * 4:
            out.append(f"{ranges} ranges (+{more}), {need} KiB, gap {gap} "
                       f"KiB: want {extents} extents at least, more than a "
                       "124 KiB gap")
        lu = rep["liveupdate"]
        if lu["generation"] != 0 or lu["state"] != "none":
            out.append(f"liveupdate {lu['state']} generation "
                       f"{lu['generation']}")
        if log.count("keel: cmdline ") != 1:
            out.append("another image was entered")
        return out
    return check


def check_withheld(pattern_pages, source):
    """A pattern of @pattern_pages pages 128 KiB apart on 4 GiB given as
    ranges of @source: a table of them all fits between no two, so bootmem
    merges neighbours (the RAM between them withheld, the merged region
    keeping the bad name: never a bad page handed out). The report must
    say how much: the bad pages counted are the pattern's plus
    bootmem.merged_gap_bytes, less those a merge with another name made
    reserved ("merged"), and the warning and the info line say it."""
    def check(rep, log):
        out = []
        bm, a, b = rep["bad_memory"], rep["audit"], rep["bootmem"]
        gap = b["merged_gap_bytes"]
        counted = bm["pages"] - gap // PAGE
        if not gap or gap % PAGE or \
                not (pattern_pages - a["reserved_pages"] <= counted <=
                     pattern_pages):
            out.append(f"bad_memory.pages {bm['pages']} - merged_gap_bytes "
                       f"{gap} / {PAGE} = {counted}: not the pattern's "
                       f"{pattern_pages} (less at most the "
                       f"{a['reserved_pages']} reserved)")
        if bm["by_source"][source] != bm["pages"]:
            out.append(f"by_source {bm['by_source']}")
        if not a["ok"] or a["lost_pages"] or a["problems"]:
            out.append(f"audit {a}")
        line = (f"keel: bootmem: {b['merged_regions']} reserved regions "
                "merged, no free range of RAM holding a table of them all: "
                f"{gap >> 10} KiB between them withheld with them")
        if line not in log or "keel: warning: bootmem: more than" not in log:
            out.append(f"merged {gap} bytes, but no {line!r} or warning")
        return out
    return check


def check_first_take(limit):
    """The new image's first take (its heap's first step, inside the
    update's downtime) is of at most @limit pages: the step's range cut
    past what the node needs (common/mm/heap_init.c), not the whole
    range's lattice; the second takes the rest."""
    def check(rep, log):
        new = log.split("keel: handover: generation 1", 1)[-1]
        takes = [int(line.split()[2]) for line in new.splitlines()
                 if "pages of badram= patterns taken out" in line]
        if len(takes) != 2 or takes[0] > limit or not takes[1]:
            return [f"the new image's takes {takes}: want two, the first "
                    f"at most {limit}"]
        return []
    return check


def check_image_lattice(log_line):
    """The one error line about the image on the pattern, no other."""
    def check(rep, log):
        got = [line for line in log.splitlines()
               if line.startswith("keel: error:")]
        if got != [log_line] or rep["errors"] != 1:
            return [f"error lines {got} ({rep['errors']}), want "
                    f"[{log_line!r}]"]
        if rep["audit"]["lost_pages"]:
            return [f"audit {rep['audit']}"]
        return []
    return check


def lu_cases(Case, fw, word, pages):
    """A live update on the 4 GiB pattern whose domain the next image's
    reserved table holds (144 MiB) and one whose it does not (160 MiB)."""
    return [
        # 144 MiB: 2,304 extents of 64 KiB, 2,311 preserved ranges (the
        # next image's reserved table 114 KiB, its heap's ranges in
        # slices): taken, 0 mismatches, nothing withheld.
        Case("bad-badram-lattice-liveupdate-144m", fw,
             ["bootscrub=off", "audit=full", word, "liveupdate=1",
              "domain=144M"],
             [check_lattice(pages, 4 * GIB, [pages]), updated(1, domains=1),
              check_nothing_withheld,
              domains_built([Ask(144 << 20)], exact_extents=False)]),
        Case("bad-badram-lattice-liveupdate-big", fw,
             ["bootscrub=off", "audit=full", word, "liveupdate=1",
              "domain=160M"],
             [check_lattice(pages, 4 * GIB, [pages]),
              check_lu_refused_tables((160 << 20) // (64 << 10)),
              domains_built([Ask(160 << 20)], exact_extents=False)],
             {"fail": True}),
    ]


def lattice_cases(Case):
    """The cases above, as tests/sandbox/cases.py's @Case."""
    fw = _write("bad-4g.fw", ["ram 0 4G node=0", "cpu 0 node=0"])
    fw64 = _write("bad-64g.fw", ["ram 0 32G node=0", "ram 32G 64G node=1",
                                 "cpu 0 node=0", "cpu 1 node=1"])
    pat = (0x5000, 0x1f000)
    word = f"badram={pat[0]:#x},{pat[1]:#x}"
    pages = lattice_pages(*pat, [(0, 4 * GIB)])
    fw1 = _write("bad-1g.fw", ["ram 0 1G node=0", "cpu 0 node=0",
                               "cpu 1 node=0"])
    pages1 = lattice_pages(*pat, [(0, GIB)])
    half = lattice_pages(*pat, [(0, 32 * GIB)])
    fwl = _write("bad-4g-lines.fw", ["ram 0 4G node=0", "cpu 0 node=0"] +
                 [f"bad {p * PAGE:#x} {(p + 1) * PAGE:#x}"
                  for p in range(5, 4 * GIB // PAGE, 32)])
    # The image's reservation is 1M..3M: the pattern's first page there.
    first = next(p for p in range(0x100, 0x300) if p & 0x1f == 5)
    image_line = ("keel: error: the image [0x100000, 0x300000) lies on "
                  "memory called bad (badram= pattern 0x5000,0x1f000, page "
                  f"{first * PAGE:#x}): its loader wrote keel there; load "
                  "keel where memory is good")
    return [
        Case("bad-badram-lattice", fw, ["bootscrub=off", "audit=full", word],
             [check_lattice(pages, 4 * GIB, [pages])]),
        Case("bad-badram-lattice-liveupdate", fw,
             ["bootscrub=off", "audit=full", word, "liveupdate=1"],
             [updated(1, domains=0),
              check_lattice(pages, 4 * GIB, [pages]),
              check_first_take((64 + 2) * (1 << 20) // (128 << 10))]),
        Case("bad-badram-lattice-domains", fw,
             ["bootscrub=off", "audit=full", word, "domain=64M@0",
              "domain=32M"],
             [check_lattice(pages, 4 * GIB, [pages]),
              domains_built([Ask(64 << 20, 0), Ask(32 << 20)],
                            exact_extents=False, zero_sampled=True)]),
        Case("bad-badram-lattice-scrub", fw1,
             ["bootscrub=on", word, "domain=64M"],
             [check_lattice(pages1, GIB, [pages1]), check_canary(pages1)],
             {"scrubbed": True},
             env={"KEEL_SANDBOX_CANARY": "1",
                  "KEEL_SANDBOX_CANARY_BADRAM": f"{pat[0]:#x},{pat[1]:#x}"}),
        Case("bad-badram-lattice-64g", fw64, ["bootscrub=off", word],
             [check_lattice(2 * half, 64 * GIB, [half, half])],
             timeout=60),
        Case("bad-firmware-lattice", fwl, ["bootscrub=off", "audit=full"],
             [check_withheld(pages, "firmware")]),
        *lu_cases(Case, fw, word, pages),
        Case("bad-lattice-under-image", "sandbox-liveupdate.fw",
             ["bootscrub=off", word], [check_image_lattice(image_line)]),
    ]
