# SPDX-License-Identifier: MIT
"""Bad memory on arm64 (issue 38 §1): the DT's /chosen/keel,bad-memory
(docs/booting-arm64.md), one bad page and a 2 MiB range of QEMU virt's
RAM (256 MiB at 0x40000000) plus one badpage= on the command line; the
boot scrubs around them (it reads free chunks only) and the audit is
exact. The report's bad_memory must name exactly these pages, each from
its source. Quiet on this 2-core host: about 3 s; TIMEOUT (120 s) is
the matrix's safety net. dt-bad-memory-liveupdate: the same through a
live update, whose new image reads the DT copy's pages again and is
handed them in the handover too: each counted once.

And dt-badram-lattice: a failing column's badram= (a page in every 128
KiB, 4,096 of QEMU virt's 512 MiB of 2 nodes), kept as a pattern: the
report counts exactly the pattern's pages in RAM (from the report's RAM
ranges and ADDR, MASK alone), a domain is built, nothing is merged, keel's
own reservations stay under 5% of RAM, and the one error says QEMU loaded
keel on one of the pattern's pages. Quiet: about 0.5 s."""

from .arm64_machine import _patched_dtb, case
from .lattice_checks import WORD, heap_sliced, lattice_pages, lattice_updated

PAGE = 4096
BAD_PAGE = 0x48400000             # one page, above the DTB QEMU puts at 0x48000000
BAD_RANGE = (0x4a000000, 0x200000)  # 2 MiB, a 2 MiB-aligned block
OPT_PFN = 0x4b000                 # badpage=: the page at 0x4b000000


def make_bad_memory_dtb(workdir, qemu_args):
    """QEMU's DT plus /chosen/keel,bad-memory (two 64-bit cells a value)."""
    prop = (f"0x0 {BAD_PAGE:#x} 0x0 {PAGE:#x} "
            f"0x0 {BAD_RANGE[0]:#x} 0x0 {BAD_RANGE[1]:#x}")
    return _patched_dtb(workdir, qemu_args,
                        f"\tchosen {{\n\t\tkeel,bad-memory = <{prop}>;\n"
                        "\t};\n")


def bad_memory_named(rep, log):
    """bad_memory and audit.bad_pages from the inputs above alone."""
    bm, a = rep.get("bad_memory"), rep["audit"]
    if bm is None:
        return ["no bad_memory object"]
    fw = 1 + BAD_RANGE[1] // PAGE
    out = []
    if bm["pages"] != fw + 1 or a["bad_pages"] != fw + 1:
        out.append(f"bad_memory.pages {bm['pages']}, audit.bad_pages "
                   f"{a['bad_pages']}: expected {fw + 1}")
    if bm["by_source"]["firmware"] != fw or bm["by_source"]["option"] != 1:
        out.append(f"by_source {bm['by_source']}: expected firmware {fw}, "
                   "option 1")
    want = [(BAD_PAGE, BAD_PAGE + PAGE, 1, "firmware"),
            (BAD_RANGE[0], sum(BAD_RANGE), BAD_RANGE[1] // PAGE,
             "firmware"),
            (OPT_PFN * PAGE, (OPT_PFN + 1) * PAGE, 1, "option")]
    got = [tuple(r) for r in bm["ranges"]]
    if got != want:
        out.append(f"bad_memory.ranges {got}, expected {want}")
    if not a["ok"] or a["lost_pages"]:
        out.append(f"audit ok {a['ok']}, lost {a['lost_pages']}")
    return out


def carried_and_read(rep, log):
    """A live update's new image: the DT copy names the firmware's pages
    again, and the handover carries them (its source-0 record, with the
    badpage= page the new image reads again itself not in it): each page
    counted once, as bad_memory_named() says, reserved as `bad firmware`
    (bootmem's table names bytes a carried range also holds), the update
    taken, its domain restored with 0 mismatches."""
    out = bad_memory_named(rep, log)
    bm, lu = rep["bad_memory"], rep["liveupdate"]
    fw = 1 + BAD_RANGE[1] // PAGE
    if bm.get("handover_pages") != fw:
        out.append(f"bad_memory.handover_pages {bm.get('handover_pages')}: "
                   f"want {fw}, the firmware's pages")
    for pa in (BAD_PAGE, BAD_RANGE[0]):
        names = [n for s, e, n in rep["memmap"]["reserved"] if s <= pa < e]
        if names != ["bad firmware"]:
            out.append(f"{pa:#x} reserved as {names}: want ['bad "
                       "firmware']")
    if lu.get("state") != "taken" or lu.get("generation") != 1 or \
            lu.get("domains_restored") != 1 or lu.get("mismatches"):
        out.append(f"liveupdate {lu}: want taken, generation 1, 1 "
                   "restored, 0 mismatches")
    return out


CASES = [
    case("dt-bad-memory", ["--smp", "2", "--mem", "256M"], {"cpus": 2},
         append=f"bootscrub=on badpage={OPT_PFN:#x}",
         setup=make_bad_memory_dtb,
         log_has=("bad memory: 514 pages in 3 ranges",),
         checks=[bad_memory_named]),
]

# The same through a live update (the Image its own next image): the
# firmware's pages are read again from the DT copy and carried in the
# handover too. Quiet: about 1 s (two boots).
_bad_lu = case("dt-bad-memory-liveupdate", ["--smp", "2", "--mem", "256M"],
               {"cpus": 2},
               append=f"bootscrub=off badpage={OPT_PFN:#x} liveupdate=1 "
                      "domain=16M",
               setup=make_bad_memory_dtb,
               checks=[carried_and_read])
_bad_lu["initrd_self"] = True
CASES.append(_bad_lu)


def lattice_counted(rep, log):
    """The pattern's pages in the report's RAM, exactly, all the
    operator's, the audit balanced, nothing merged, the domain built, and
    the error naming the image on the pattern."""
    bm, a, b = rep["bad_memory"], rep["audit"], rep["bootmem"]
    want = lattice_pages(rep)
    out = []
    if bm["pages"] != want or a["bad_pages"] != want or \
            bm["by_source"]["option"] != want:
        out.append(f"bad_memory.pages {bm['pages']}, audit.bad_pages "
                   f"{a['bad_pages']}, by_source {bm['by_source']}: the "
                   f"pattern has {want}")
    if not a["ok"] or a["lost_pages"] or b["merged_regions"]:
        out.append(f"audit {a}, bootmem {b}")
    if a["reserved_pages"] * 20 > a["ram_pages"]:
        out.append(f"reserved {a['reserved_pages']} of {a['ram_pages']}")
    doms = rep.get("domains") or []
    if len(doms) != 1 or doms[0]["fail_reason"] is not None:
        out.append(f"domains {doms}: want one built")
    if "lies on memory called bad (badram= pattern 0x5000,0x1f000" \
            not in log:
        out.append("no error for the image on the pattern")
    return out


CASES.append(
    case("dt-badram-lattice", ["--smp", "2", "--numa", "2", "--mem", "512M"],
         {"cpus": 2},
         append=f"bootscrub=off {WORD} "
                "domain=32M",
         log_has=("pages of badram= patterns taken out of service",),
         checks=[lattice_counted]))

# A live update on the pattern, the Image its own next image, a domain of
# 16 MiB (256 extents) carried. The DTB copy once asked for QEMU's whole
# 1 MiB blob in one free block; the pattern leaves none above 64 KiB, so
# every update was refused. Quiet: about 3 s (two boots).
_lattice_lu = case("dt-badram-lattice-liveupdate",
                   ["--smp", "2", "--numa", "2", "--mem", "512M"],
                   {"cpus": 2},
                   append=f"bootscrub=off liveupdate=1 domain=16M {WORD}",
                   checks=[lattice_updated(1)])
_lattice_lu["initrd_self"] = True
CASES.append(_lattice_lu)

# The same with a domain of 144 MiB on node 0 (2,304 extents of 64 KiB):
# the new image's heap keeps its ranges in slices (one table for them
# all, 230 KiB, fits between no two of the pattern's pages), its bootmem
# the preserved list in one store of 114 KiB, nothing merged. Before, the
# update was refused above 80 MiB. Quiet: about 1 s.
_lattice_lu_big = case("dt-badram-lattice-liveupdate-144m",
                       ["--smp", "2", "--numa", "2", "--mem", "1G"],
                       {"cpus": 2},
                       append=f"bootscrub=off liveupdate=1 domain=144M@0 "
                              f"{WORD}",
                       checks=[lattice_updated(1), heap_sliced])
_lattice_lu_big["initrd_self"] = True
CASES.append(_lattice_lu_big)
