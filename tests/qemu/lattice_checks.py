# SPDX-License-Identifier: MIT
"""A BadRAM pattern of a failing column or bank (a page in every 128 KiB),
kept by keel as a pattern (a lattice), and a live update on it: shared by
the x86_64 and arm64 matrices. The pages are computed here from ADDR and
MASK and the report's RAM ranges alone."""

PAGE = 4096
LATTICE = (0x5000, 0x1f000)
WORD = f"badram={LATTICE[0]:#x},{LATTICE[1]:#x}"


def lattice_pages(rep):
    """The pattern's pages in the report's RAM."""
    a, m = LATTICE
    return sum(1 for s, e, _ in rep["memmap"]["ranges"]
               for p in range(s // PAGE, e // PAGE)
               if (p * PAGE) & m == a & m)


def lattice_updated(domains):
    """The new image of a live update on that pattern ran to the end with
    @domains domains restored, all their words read back (it once
    panicked asking for a domain set of 192 KiB that no range between the
    bad pages holds; its bootmem merged neighbours for want of room for its
    table; arm64 refused every update, its DTB copy asking for one free
    MiB). The report counts exactly the pattern's pages in RAM, all the
    operator's, the audit balances, nothing is merged, and keel's own
    reservations stay under 5% of RAM (before, node 0 got no heap)."""
    def check(rep, log):
        lu, bm, a, b = (rep["liveupdate"], rep["bad_memory"], rep["audit"],
                        rep["bootmem"])
        out = []
        if lu["state"] != "taken" or lu["generation"] != 1 or \
                lu["domains"] != domains or \
                lu.get("domains_restored") != domains or lu["mismatches"] \
                or lu["verified_words"] != domains * 2 * 512:
            out.append(f"liveupdate {lu['state']}, generation "
                       f"{lu['generation']}, {lu['domains']} domains, "
                       f"{lu.get('domains_restored')} restored, "
                       f"{lu['verified_words']} words read, "
                       f"{lu['mismatches']} mismatches: expected "
                       f"{domains} domains")
        want = lattice_pages(rep)
        if bm["pages"] != want or a["bad_pages"] != want or \
                bm["by_source"]["option"] != want:
            out.append(f"bad_memory.pages {bm['pages']}, audit.bad_pages "
                       f"{a['bad_pages']}, by_source {bm['by_source']}: "
                       f"the pattern has {want}")
        if not a["ok"] or a["lost_pages"] or b["merged_regions"] or \
                b["merged_gap_bytes"]:
            out.append(f"audit {a}, bootmem {b}")
        if a["reserved_pages"] * 20 > a["ram_pages"]:
            out.append(f"reserved {a['reserved_pages']} of "
                       f"{a['ram_pages']} pages")
        if "kept as a pattern" not in log:
            out.append("no line for the pattern kept")
        return out
    check.wants_log = True
    return check


def heap_sliced(rep, log):
    """The new image's heap kept a node's ranges in slices: no piece
    between the pattern's pages holds one table for the restore's extents
    (a range each, and one each free range between them); before, such an
    update was refused at 80 MiB of 64 KiB extents."""
    new = log.split("keel: handover: generation 1", 1)[-1]
    if "generation 1" not in log or not any(
            "ranges in" in line and "slices (no piece for one table" in line
            for line in new.splitlines()):
        return ["no 'heap: node N: ranges in K slices' line in the new "
                "image's log"]
    return []


heap_sliced.wants_log = True
