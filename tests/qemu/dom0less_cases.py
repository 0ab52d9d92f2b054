# SPDX-License-Identifier: MIT
"""Issue 28's arm64 QEMU cases: boot modules and Xen's dom0less examples
as Xen's documentation writes them (the blocks between BEGIN and END of
tests/data/xen-dom0less.dts and xen-static-mem.dts, merged into QEMU's own
DT), with files placed in RAM by QEMU's -device guest-loader. The files'
bytes are read back after the verdict (tests/qemu/memcheck.py): nothing
keel reserves for the user may be scrubbed, zeroed or handed out.

Expected values come from the DT text and the files, never from keel: the
module ranges are the DT's reg (or the file's size for QEMU's own node),
a static domain's range and its leaves follow from its address (512 MiB
at 0x60000000: 2 MiB aligned both ways, not 1 GiB: 256 leaves of 2 MiB;
one aligned 512 MiB block, one heap extent)."""

import os
import random
import re

from scripts.keel.boot import TOP

from .arm64_machine import M, _patched_dtb, case
from .domains_checks import Ask, domains_built

DATA = os.path.join(TOP, "tests", "data")
# QEMU virt's RAM begins at 0x40000000: the example's 0x30000000 is moved
# to the top 512 MiB of a 1 GiB machine (said in xen-static-mem.dts).
STATIC_BASE = 0x60000000
STATIC_SIZE = 0x20000000


def doc_block(name):
    """The DTS text between `// BEGIN` and `// END` of tests/data/@name."""
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        text = f.read()
    return text.split("// BEGIN\n", 1)[1].split("// END", 1)[0]


def _file(workdir, name, size, seed):
    """A file of @size bytes that are not zero and not a pattern keel or a
    scrub could produce by accident."""
    path = os.path.join(workdir, name)
    with open(path, "wb") as f:
        f.write(random.Random(seed).randbytes(size))
    return path


def loaded_at(*places):
    """@places [(addr, size)]: one guest-loader file each, in the case's
    work folder. Return: fn(workdir) -> [(addr, path)]."""
    def make(workdir):
        return [(a, _file(workdir, f"module-{a:x}.bin", n, a))
                for a, n in places]
    return make


def reserved_covers(want):
    """memmap.reserved has, for each (name, start, end) of @want, a row of
    that name covering [start, end)."""
    def check(rep, log):
        rows = rep["memmap"]["reserved"]
        return [f"no {n!r} reservation covers [{s:#x}, {e:#x}) (have "
                f"{[(hex(r[0]), hex(r[1]), r[2]) for r in rows]})"
                for n, s, e in want
                if not any(r[2] == n and r[0] <= s and r[1] >= e
                           for r in rows)]
    return check


def rows_are(want):
    """Each domains[] row named as a key of @want has those columns."""
    def check(rep, log):
        rows = {d["name"]: d for d in rep.get("domains", [])}
        out = []
        for name, cols in want.items():
            d = rows.get(name)
            if d is None:
                out.append(f"no domains row {name!r}")
                continue
            out += [f"domains {name!r}: {k} = {d.get(k)!r}, expected {v!r}"
                    for k, v in cols.items() if d.get(k) != v]
        return out
    return check


def no_warnings(rep, log):
    return ([] if rep["warnings"] == 0 else
            [f"{rep['warnings']} warnings: " +
             " | ".join(ln for ln in log.splitlines() if "warning:" in ln)])


def make_xen_example(workdir, qemu_args):
    return _patched_dtb(workdir, qemu_args, doc_block("xen-dom0less.dts"))


def make_xen_static(workdir, qemu_args):
    block = re.sub(r"<0x30000000 0x20000000>",
                   f"<{STATIC_BASE:#x} {STATIC_SIZE:#x}>",
                   doc_block("xen-static-mem.dts"))
    return _patched_dtb(workdir, qemu_args, block, whole=True)


GUEST_LOADER_FILE = 3 * M + 12345
XEN_MODULES = [0x4a000000, 0x4b000000, 0x4c000000, 0x4d000000]
KINDS = ["module:kernel", "module:ramdisk"] * 2

CASES = [
    # QEMU's own DT and node (/chosen/module@0x50000000, 2+2 cells under a
    # /chosen without cells): reserved, and the file survives the scrub.
    case("module-guest-loader", ["--smp", "2", "--mem", "512M"],
         {"cpus": 2, "online": 2, "scrubbed": True}, after="halt",
         loaded=loaded_at((0x50000000, GUEST_LOADER_FILE)),
         checks=[reserved_covers([("module:kernel", 0x50000000,
                                   0x50000000 + GUEST_LOADER_FILE)]),
                 no_warnings]),
    # Xen's "Example" as written: two domains, four 16 MiB modules (a
    # file at the start of each), each domain's kernel named in its row.
    case("dom0less-xen-example", ["--el2", "--smp", "2", "--mem", "512M"],
         {"cpus": 2, "online": 2, "scrubbed": True}, el=2, after="halt",
         setup=make_xen_example,
         loaded=loaded_at(*[(a, M + 4095) for a in XEN_MODULES]),
         checks=[domains_built([Ask(131072 * 1024, name="domU1"),
                                Ask(65536 * 1024, name="domU2")],
                               zero_sampled=True),
                 rows_are({"domU1": {"vcpus": 2, "origin": "boot",
                                     "kernel": "module@0x4a000000"},
                           "domU2": {"vcpus": 1, "origin": "boot",
                                     "kernel": "module@0x4c000000"}}),
                 reserved_covers([(k, a, a + 0xffffff)
                                  for k, a in zip(KINDS, XEN_MODULES)]),
                 no_warnings]),
    # Xen's "Static Allocation" example (the range moved into virt's RAM),
    # with a domain= beside it and destroy: the static range is reserved
    # from the start, never scrubbed, adopted unzeroed, and back to
    # reserved after destroy; files at both ends of it survive all that.
    case("dom0less-static-mem", ["--el2", "--smp", "2", "--mem", "1G"],
         {"cpus": 2, "online": 2, "scrubbed": True}, el=2, after="halt",
         setup=make_xen_static, append="domain=8M domains_destroy=on",
         loaded=loaded_at((STATIC_BASE, M + 5),
                          (STATIC_BASE + STATIC_SIZE - M, M)),
         checks=[domains_built([Ask(8 * M, name="domain0"),
                                Ask(STATIC_SIZE, name="domU1")],
                               zero_sampled=True, destroyed=True),
                 rows_are({"domU1": {"origin": "static", "vcpus": 2,
                                     "kernel": None, "node": 0,
                                     "extents_1g": 0, "extents_2m": 256,
                                     "extents_4k": 0, "heap_extents": 1,
                                     "zero_ns": 0, "fail_reason": None}}),
                 reserved_covers([("static-mem", STATIC_BASE,
                                   STATIC_BASE + STATIC_SIZE)]),
                 no_warnings]),
]
