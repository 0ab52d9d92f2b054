# SPDX-License-Identifier: MIT
"""tests/scripts_test.py, scripts/fuzz-maps.py: its checker must pass a
real boot of a hostile map and flag each broken copy of its log; its
generator must be repeatable."""

import json
import os
import re

from scripts.keel import fuzzmaps as fuzz_maps
from scripts.keel import report

from .scripts_base import TIMEOUT, check

# ---- fuzz-maps.py: the checker must fail on bad boots -------------------

# Two nodes, an unaligned reservation inside node 1's RAM, one reservation
# across the end of node 0's RAM and one in the hole above all RAM.
FUZZ_FW = """# cmdline: bootscrub=on
ram       0x0        0x1000000  node=0
ram       0x1000000  0x2000800  node=1
reserved  0x0        0x100000   bios
reserved  0xfff000   0x1001000  edge
reserved  0x1800123  0x1800456  acpi
reserved  0x8000000  0x8001000  hole
cpu 0 node=0
cpu 1 node=1
"""
FUZZ_CFG = {"max_numnodes": 16, "nr_cpus": 64}


def _with_report(log, edit):
    """@log with its KEEL-REPORT JSON passed through @edit(rep)."""
    out = []
    for ln in log.splitlines():
        if ln.startswith("KEEL-REPORT "):
            # Edited in the expanded form (lists of objects), which
            # report.py reads as well as the tables keel prints.
            rep = report.expand_tables(json.loads(ln[len("KEEL-REPORT "):]))
            rep.pop("report_bytes", None)  # the edit changes the length
            edit(rep)
            ln = "KEEL-REPORT " + json.dumps(rep)
        out.append(ln)
    return "\n".join(out) + "\n"


def _free_reserved_byte(rep):
    # Cut the page holding 0x1800123 (firmware "acpi") out of the table.
    regions = []
    for s, e, name in rep["memmap"]["reserved"]:
        if s <= 0x1800000 < e:
            if s < 0x1800000:
                regions.append([s, 0x1800000, name])
            if 0x1801000 < e:
                regions.append([0x1801000, e, name])
        else:
            regions.append([s, e, name])
    rep["memmap"]["reserved"] = regions


def _lose_page(rep):
    rep["audit"]["lost_pages"] = 1
    rep["audit"]["free_pages"] -= 1
    rep["heap"]["free_pages"] -= 1
    rep["heap"]["per_node"][0]["free_pages"] -= 1


def _move_ram(rep):
    for r in rep["memmap"]["ranges"]:
        r[2] = 0


def _flags(name, text, log, rc=0, hung=False, want="", cfg=FUZZ_CFG):
    probs = fuzz_maps.check(text, log, rc, hung, cfg)
    hit = [p for p in probs if want in p]
    check(f"fuzz-maps flags {name}", [] if hit else
          [f"not flagged (problems: {probs})"])


def fuzz_maps_synthetic():
    a = fuzz_maps.generate(7, 3)
    check("fuzz-maps: a case is repeatable",
          [] if a == fuzz_maps.generate(7, 3) else ["two texts for 7/3"])
    check("fuzz-maps: cases differ",
          [] if a != fuzz_maps.generate(7, 4) else ["7/3 == 7/4"])
    o = fuzz_maps.oracle(FUZZ_FW, FUZZ_CFG)
    # 256 bios pages + 1 edge page below 16M and 1 above + 1 acpi page.
    check("fuzz-maps oracle: reserved RAM pages",
          [] if o["canary_pages"] == 259 else [f"{o['canary_pages']}"])
    # No RAM page at all: the only acceptable end is FAIL no usable RAM.
    noram = "ram 0x100 0x200 node=0\ncpu 0\ncpu 1\n"
    panic = ("keel: panic: bootmem: cannot allocate 65536 bytes (align "
             "0x1000) on node 0 for cpu stack\nKEEL: FAIL panic: bootmem: "
             "cannot allocate 65536 bytes\nsandbox: canary: 0 reserved "
             "pages intact, 0 clobbered\n")
    _flags("a panic on a map without RAM", noram, panic, rc=1,
           want="panic:")
    # A map whose free RAM cannot hold a CPU stack may panic, clearly.
    tight = "ram 0 0x10000 node=0\nreserved 0 0xc000\ncpu 0\ncpu 1\n"
    probs = fuzz_maps.check(tight, panic.replace("0 reserved", "12 reserved"),
                            1, False, FUZZ_CFG)
    check("fuzz-maps accepts a clear panic on a tight map",
          [f"{probs}"] if probs else [])


def fuzz_maps_largest_left():
    """A heap state no piece holds is a right 'no usable RAM' (seed 7
    case 149): the largest piece between the report's reservations."""
    rep = {"memmap": {"ranges": [[0, 0x10000, 0], [0x20000, 0x21000, 0]],
                      "reserved": [[0x8000, 0x9000, "b"],
                                   [0x1000, 0x2000, "a"],
                                   [0x1800, 0x3000, "c"],
                                   [0x1ff000, 0x200000, "above"]]}}
    got = fuzz_maps.largest_left(rep)
    check("fuzz-maps: the largest piece left between reservations",
          [] if got == 0x7000 else [f"{got:#x}, want 0x7000"])


def fuzz_maps_rules():
    """The oracle reads a .fw as boot/fwdesc.c does (issue 20): a NUL is
    part of its line, node ids past 0xfffe and numbers past 2^64 refuse
    their line, RAM past 2^paddr_bits is dropped or clamped; the dead
    CPUs of inject=ap-timeout are known."""
    text = ("# cmdline: bootscrub=on inject=ap-timeout:1 "
            "inject=ap-timeout:9\n"
            "ram 0 16M node=0 # \0\nram 16M 32M\0 node=0\n"
            "reserved 1M 2M a\0b\nram 32M 48M node=0xffff\n"
            "ram 0x3fffff000000 0x400001000000 node=0\n"
            "ram 0x1000000000000 0x1000001000000 node=0\n"
            "reserved 0 0x10000000000000000\ncpu 0\ncpu 1\ncpu 2\n")
    o = fuzz_maps.oracle(text, dict(FUZZ_CFG, paddr_bits=46))
    want = [(0, 16 << 20), (0x3fffff000000, 0x400000000000)]
    check("fuzz-maps oracle: RAM as fwdesc.c reads it",
          [] if o["ram"] == want else [f"{o['ram']}"])
    check("fuzz-maps oracle: a reserved name that is not text",
          [] if o["fw"]["reserved"] == [(1 << 20, 2 << 20, "firmware")]
          else [f"{o['fw']['reserved']}"])
    check("fuzz-maps oracle: dead CPUs",
          [] if o["dead"] == {1} else [f"{o['dead']}"])
    check("fuzz-maps: odd bytes survive a case's text",
          [] if any("odd-bytes" in fuzz_maps.generate(1, i).split("\n")[0]
                    for i in range(200)) else ["no odd-bytes case"])


def fuzz_maps_real(keel, tmp):
    path = os.path.join(tmp, "hostile.fw")
    with open(path, "w") as f:
        f.write(FUZZ_FW)
    log, rc, hung = fuzz_maps.run_map(keel, path, FUZZ_FW, TIMEOUT)
    good = fuzz_maps.check(FUZZ_FW, log, rc, hung, FUZZ_CFG)
    check("fuzz-maps passes a good boot", good)
    if good or "KEEL-REPORT" not in log:
        return
    _flags("a reserved byte that is free", FUZZ_FW,
           _with_report(log, _free_reserved_byte),
           want="firmware-reserved RAM not reserved")
    _flags("lost_pages 1", FUZZ_FW, _with_report(log, _lose_page),
           want="lost_pages")
    _flags("a panic", FUZZ_FW, log.replace(
        "KEEL: PASS", "keel: panic: heap_free: pfn 0x10: double free\n"
        "KEEL: FAIL panic: heap_free: pfn 0x10: double free"), rc=1,
        want="panic:")
    _flags("a clobbered canary", FUZZ_FW,
           re.sub(r"canary: (\d+) reserved pages intact, 0 clobbered",
                  lambda m: f"canary: {int(m.group(1)) - 1} reserved pages "
                  "intact, 1 clobbered", log), rc=1, want="clobbered")
    _flags("RAM on the wrong node", FUZZ_FW, _with_report(log, _move_ram),
           want="on node 0, firmware says 1")
    _flags("a crash", FUZZ_FW, log, rc=-11, want="signal 11")
    _flags("a hang", FUZZ_FW, log.split("KEEL-REPORT")[0], rc=-9,
           hung=True, want="hang")
    _flags("a missing verdict", FUZZ_FW, log.replace("KEEL: PASS", ""),
           want="verdict")
