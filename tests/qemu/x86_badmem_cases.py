# SPDX-License-Identifier: MIT
"""Bad memory on x86_64 (issue 38 §1): the operator's three spellings on
QEMU's multiboot1 command line, badpage= (a PFN and a range), badram=
(an exact mask) and memmap=SIZE$START, with the boot scrub on (it reads
free chunks only) and audit=full. The report's bad_memory must name
exactly these pages (computed here from the words), and a malformed word
is one warning. Quiet on this 2-core host: about 2 s; the matrix's
TIMEOUT is the safety net. And a live update on a dense pattern (below)."""

from .x86_machine import M, Case

PAGE = 4096
BADPAGE = [0x5000, 0x6000, 0x6001, 0x6002, 0x6003]  # 80 MiB, 96 MiB
BADRAM = 0x7000000                                  # 112 MiB
MEMMAP = (0x8000000, 2 * PAGE)                      # 128 MiB, 2 pages
WORDS = (f"badpage=0x5000,0x6000-0x6003 "
         f"badram={BADRAM:#x},0xfffffffffffff000 "
         f"memmap=8K${MEMMAP[0]:#x} memmap=4K@0")


def bad_memory_named(rep, log):
    bm, a = rep.get("bad_memory"), rep["audit"]
    if bm is None:
        return ["no bad_memory object"]
    pages = set(BADPAGE) | {BADRAM // PAGE} | \
        {MEMMAP[0] // PAGE + i for i in range(MEMMAP[1] // PAGE)}
    out = []
    if bm["pages"] != len(pages) or a["bad_pages"] != len(pages):
        out.append(f"bad_memory.pages {bm['pages']}, audit.bad_pages "
                   f"{a['bad_pages']}: expected {len(pages)}")
    if bm["by_source"]["option"] != len(pages) or \
            bm["by_source"]["firmware"]:
        out.append(f"by_source {bm['by_source']}")
    got = {p for r in bm["ranges"]
           for p in range(r[0] // PAGE, r[1] // PAGE)}
    if got != pages:
        out.append(f"bad_memory.ranges name pages {sorted(got)}, expected "
                   f"{sorted(pages)}")
    if log.count("keel: warning: cmdline: memmap=4K@0: only SIZE$START") \
            != 1:
        out.append("memmap=4K@0 not warned once")
    return out


bad_memory_named.wants_log = True


# A BadRAM pattern of a failing column or bank: a page every 128 KiB.
LATTICE = (0x5000, 0x1f000)


def lattice_pages(rep):
    """The pattern's pages in the report's RAM."""
    a, m = LATTICE
    return sum(1 for s, e, _ in rep["memmap"]["ranges"]
               for p in range(s // PAGE, e // PAGE)
               if (p * PAGE) & m == a & m)


def lattice_updated(rep, log):
    """The new image of a live update on that pattern, with no domain to
    restore, ran to the end (it once panicked asking for a domain set of
    192 KiB that no range between the bad pages holds, and its bootmem
    merged neighbours for want of room for its table). The pattern is
    kept as a pattern (a lattice): the report counts exactly its pages in
    RAM, all the operator's, the audit balances, nothing is merged, and
    keel's own reservations stay under 5% of RAM (the heap has the rest:
    before, node 0 got none)."""
    lu, bm, a, b = (rep["liveupdate"], rep["bad_memory"], rep["audit"],
                    rep["bootmem"])
    out = []
    if lu["state"] != "taken" or lu["generation"] != 1 or lu["domains"]:
        out.append(f"liveupdate {lu['state']}, generation "
                   f"{lu['generation']}, {lu['domains']} domains")
    want = lattice_pages(rep)
    if bm["pages"] != want or a["bad_pages"] != want or \
            bm["by_source"]["option"] != want:
        out.append(f"bad_memory.pages {bm['pages']}, audit.bad_pages "
                   f"{a['bad_pages']}, by_source {bm['by_source']}: the "
                   f"pattern has {want}")
    if a["lost_pages"] or b["merged_regions"] or b["merged_gap_bytes"]:
        out.append(f"audit {a}, bootmem {b}")
    if a["reserved_pages"] * 20 > a["ram_pages"]:
        out.append(f"reserved {a['reserved_pages']} of {a['ram_pages']} "
                   "pages")
    if "kept as a pattern" not in log:
        out.append("no line for the pattern kept")
    return out


lattice_updated.wants_log = True


def badmem_cases(kern, base):
    return [
        Case("bad-memory-options", kern + ["--mem", "256M"], 256 * M,
             f"{base} bootscrub=on {WORDS}",
             expect={"boot": "multiboot1", "online": 1, "scrubbed": True},
             checks=[bad_memory_named]),
        # keel.elf its own next image (-initrd). Quiet: about 8 s.
        Case("bad-badram-lattice-liveupdate", kern + ["--mem", "256M"],
             256 * M,
             f"{base} bootscrub=off liveupdate=1 "
             f"badram={LATTICE[0]:#x},{LATTICE[1]:#x}",
             expect={"boot": "multiboot1", "online": 1},
             qemu_tail=["-initrd", kern[1]], checks=[lattice_updated]),
    ]
