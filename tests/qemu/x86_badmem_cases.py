# SPDX-License-Identifier: MIT
"""Bad memory on x86_64 (issue 38 §1): the operator's three spellings on
QEMU's multiboot1 command line, badpage= (a PFN and a range), badram=
(an exact mask) and memmap=SIZE$START, with the boot scrub on (it reads
free chunks only) and audit=full. The report's bad_memory must name
exactly these pages (computed here from the words), and a malformed word
is one warning. Quiet on this 2-core host: about 2 s; the matrix's
TIMEOUT is the safety net."""

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


def badmem_cases(kern, base):
    return [
        Case("bad-memory-options", kern + ["--mem", "256M"], 256 * M,
             f"{base} bootscrub=on {WORDS}",
             expect={"boot": "multiboot1", "online": 1, "scrubbed": True},
             checks=[bad_memory_named]),
    ]
