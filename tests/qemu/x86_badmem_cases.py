# SPDX-License-Identifier: MIT
"""Bad memory on x86_64 (issue 38 §1): the operator's three spellings on
QEMU's multiboot1 command line, badpage= (a PFN and a range), badram=
(an exact mask) and memmap=SIZE$START, with the boot scrub on (it reads
free chunks only) and audit=full. The report's bad_memory must name
exactly these pages (computed here from the words), and a malformed word
is one warning. Quiet on this 2-core host: about 2 s; the matrix's
TIMEOUT is the safety net. And a live update on a dense pattern (below)."""

import struct

from .lattice_checks import WORD, heap_sliced, lattice_updated
from .x86_machine import G, M, Case, above_4g, reserved_named

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


def image_end(elf):
    """Where the image's loaded segments end (ELF64 program headers)."""
    with open(elf, "rb") as f:
        b = f.read(1 << 16)
    phoff, = struct.unpack_from("<Q", b, 0x20)
    phsz, phnum = struct.unpack_from("<HH", b, 0x36)
    end = 0
    for i in range(phnum):
        typ, = struct.unpack_from("<I", b, phoff + i * phsz)
        paddr, = struct.unpack_from("<Q", b, phoff + i * phsz + 0x18)
        memsz, = struct.unpack_from("<Q", b, phoff + i * phsz + 0x28)
        if typ == 1:
            end = max(end, paddr + memsz)
    return end


def past_image_pfns(elf, count=32):
    """Every other page from 16 KiB past the image: where the first RAM
    free of reservations lies, and no piece of 2 pages between them."""
    first = (image_end(elf) + 4 * PAGE + PAGE - 1) // PAGE
    return [first + 2 * i for i in range(count)]


def tables_clear_of_bad(pfns):
    """The page tables past the static pool (2 MiB pages on a big machine)
    were placed before the command line's bad pages were read, and landed
    on them: the report lost those pages (inside "page tables") and the
    tables lived on memory the operator called bad. Every page named is
    counted bad, and no "page tables" page is one of them."""
    want = set(pfns)

    def check(rep):
        bm, out = rep["bad_memory"], []
        got = {p for r in bm.get("ranges", [])
               for p in range(r[0] // PAGE, r[1] // PAGE)}
        if bm["pages"] != len(want) or got != want:
            out.append(f"bad_memory.pages {bm['pages']} naming "
                       f"{sorted(got)[:4]}..., expected {len(want)}")
        for s, e, name in rep["memmap"]["reserved"]:
            hit = want & set(range(s // PAGE, e // PAGE))
            if name == "page tables" and hit:
                out.append(f"page tables [{s:#x}, {e:#x}) on bad pages "
                           f"{sorted(hit)[:4]}")
        return out
    return check


def trampoline_kept_off(rep, log):
    """badpage= names the SMP trampoline's page (0x8000): keel once copied
    its trampoline there all the same. Now the page is never written: the
    warning names it, the second CPU is not started (the boot CPU runs
    alone, both CPUs still described), and the page is counted bad (it
    lies inside keel's own reservation of the first MiB, which named its
    bytes in bootmem: bad_memory said 0 pages)."""
    out = []
    if "x86_64: the SMP trampoline page [0x8000, 0x9000) holds bad " \
            "option: no secondary CPU is started" not in log:
        out.append("no warning for the trampoline's page")
    if len(rep["cpus"]) != 2 or \
            [c["online"] for c in rep["cpus"]] != [True, False]:
        out.append(f"cpus online {[c['online'] for c in rep['cpus']]}: "
                   "want the boot CPU alone of 2")
    bm, a = rep["bad_memory"], rep["audit"]
    if bm["pages"] != 1 or bm.get("ranges") != [[0x8000, 0x9000, 1,
                                                 "option"]] or \
            a["bad_pages"] != 1 or a["lost_pages"] or not a["ok"]:
        out.append(f"bad_memory {bm}, audit {a}")
    return out


trampoline_kept_off.wants_log = True


def badmem_cases(kern, base):
    return [
        # Quiet: about 0.5 s.
        Case("bad-page-trampoline", kern + ["--smp", "2", "--mem", "256M"],
             256 * M, f"{base} bootscrub=off badpage=0x8",
             expect={"boot": "multiboot1", "online": 1},
             checks=[trampoline_kept_off]),
        Case("bad-memory-options", kern + ["--mem", "256M"], 256 * M,
             f"{base} bootscrub=on {WORDS}",
             expect={"boot": "multiboot1", "online": 1, "scrubbed": True},
             checks=[bad_memory_named]),
        # keel.elf its own next image (-initrd), a domain of 16 MiB in
        # 256 extents carried. Quiet: about 8 s.
        Case("bad-badram-lattice-liveupdate", kern + ["--mem", "256M"],
             256 * M,
             f"{base} bootscrub=off liveupdate=1 domain=16M {WORD}",
             expect={"boot": "multiboot1", "online": 1},
             qemu_tail=["-initrd", kern[1]],
             checks=[lattice_updated(1)]),
        # The same with 144 MiB in 2,304 extents of 64 KiB: the new
        # image's heap keeps its ranges in slices (one table for them
        # all fits between no two of the pattern's pages), its bootmem
        # the preserved list in one store, nothing merged. Before, the
        # update was refused above 80 MiB. Quiet: about 1 s.
        Case("bad-badram-lattice-liveupdate-144m", kern + ["--mem", "512M"],
             512 * M,
             f"{base} bootscrub=off liveupdate=1 domain=144M {WORD}",
             expect={"boot": "multiboot1", "online": 1},
             qemu_tail=["-initrd", kern[1]],
             checks=[lattice_updated(1), heap_sliced]),
    ]


def pt_overflow_case(elf, base, memdir):
    """48 GiB with 2 MiB pages outgrows the 32-page bss pool: the rest of
    the tables come from RAM ("page tables"), clear of the bad pages the
    command line names where they would have gone. Sparse file-backed
    memory: only touched pages cost host memory and disk."""
    pfns = past_image_pfns(elf)
    return Case("mb1-pc-48G-pt-overflow",
                ["--kernel", elf, "--cpu", "qemu64", "--numa", "1x48G",
                 "--file-backed", memdir],
                48 * G, base + " bootscrub=off badpage=" +
                ",".join(f"{p:#x}" for p in pfns),
                expect={"boot": "multiboot1", "online": 1},
                checks=[above_4g, reserved_named("page tables"),
                        tables_clear_of_bad(pfns)])
