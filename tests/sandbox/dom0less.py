# SPDX-License-Identifier: MIT
"""Issue 28's sandbox cases: the DT replay (`dtb FILE`, arch/sandbox/
replay.c) of Xen's dom0less examples as its documentation writes them
(tests/data/xen-*.dts, compiled here with dtc), with the reserved-page
canary on (KEEL_SANDBOX_CANARY=1: every range the DT reserved is filled
with a pattern before keel runs and compared when it exits), and the
batches of the section 4 generator (tests/sandbox/dom0less_gen.py).

Expected numbers come from the DT text: a module of reg 0xffffff bytes
is 4096 pages; Xen's static example is 512 MiB at 0x30000000 (2 MiB
aligned both ways, not 1 GiB: 256 leaves of 2 MiB; two maximal aligned
blocks, [0x30000000, 0x40000000) and [0x40000000, 0x50000000))."""

import os
import subprocess

from ..qemu.dom0less_cases import reserved_covers, rows_are, no_warnings
from ..qemu.domains_checks import Ask, domains_built
from . import dom0less_gen, firmware
from .fdtgen import fdt
from .firmware import DATA

MIB = 1 << 20
XEN_MODULES = [(0x4a000000, "module:kernel"), (0x4b000000, "module:ramdisk"),
               (0x4c000000, "module:kernel"), (0x4d000000, "module:ramdisk")]
CANARY = {"KEEL_SANDBOX_CANARY": "1"}
# The machine every replay here describes: one CPU, 1 GiB of RAM.
MACHINE = {"cpus": 1, "online": 1, "nodes": 1, "ram": 1 << 30}


def _out_dir():
    d = os.path.join(os.path.dirname(firmware.BINARY), "dom0less-tests")
    os.makedirs(d, exist_ok=True)
    return d


def _fw(name, blob):
    """@blob as NAME.dtb and a description NAME.fw of one `dtb` line."""
    d = _out_dir()
    with open(os.path.join(d, name + ".dtb"), "wb") as f:
        f.write(blob)
    path = os.path.join(d, name + ".fw")
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"dtb {name}.dtb\n")
    return path


def fixture_fw(name):
    """tests/data/@name.dts compiled with dtc, in a description."""
    blob = subprocess.run(["dtc", "-q", "-I", "dts", "-O", "dtb", "-o", "-",
                           os.path.join(DATA, name + ".dts")],
                          check=True, stdout=subprocess.PIPE).stdout
    return _fw(name, blob)


def canary_intact(pages):
    """The canary counted @pages reserved pages, none clobbered."""
    line = f"sandbox: canary: {pages} reserved pages intact, 0 clobbered"

    def check(rep, log):
        return [] if line in log else [f"log lacks {line!r}: " + " | ".join(
            ln for ln in log.splitlines() if "canary" in ln)]
    return check


def _pages(s, e):
    return (-(-e // 4096) * 4096 - s // 4096 * 4096) // 4096


def _static_case(Case, name, fixture, destroy):
    base, size = 0x30000000, 0x20000000
    return Case(name, fixture_fw(fixture),
                ["audit=full"] + (["domains_destroy=on"] if destroy else []),
                [domains_built([Ask(size, name="domU1")], destroyed=destroy),
                 rows_are({"domU1": {"origin": "static", "vcpus": 2,
                                     "extents_2m": 256, "heap_extents": 2,
                                     "zero_ns": 0, "kernel": None}}),
                 reserved_covers([("static-mem", base, base + size)]),
                 canary_intact(_pages(base, base + size)), no_warnings],
                dict(MACHINE, scrubbed=True), derive=False, env=CANARY)


def _gen_check(batch):
    def check(rep, log):
        return ([p for c in batch for p in dom0less_gen.judge(c, rep, log)]
                + dom0less_gen.batch_checks(rep, log))
    return check


def dom0less_cases(Case):
    """The cases above, as tests/sandbox/cases.py's @Case."""
    mods = [(k, a, a + 0xffffff) for a, k in XEN_MODULES]
    out = [
        Case("dom0less-xen-example", fixture_fw("xen-dom0less"),
             ["audit=full"],
             [domains_built([Ask(131072 * 1024, name="domU1"),
                             Ask(65536 * 1024, name="domU2")],
                            zero_sampled=True),
              rows_are({"domU1": {"vcpus": 2, "origin": "boot",
                                  "kernel": "module@0x4a000000"},
                        "domU2": {"vcpus": 1, "origin": "boot",
                                  "kernel": "module@0x4c000000"}}),
              reserved_covers(mods),
              canary_intact(sum(_pages(s, e) for _, s, e in mods)),
              no_warnings],
             dict(MACHINE, scrubbed=True), derive=False, env=CANARY),
        _static_case(Case, "dom0less-xen-static-mem", "xen-static-mem",
                     False),
        # Xen 4.16's binding, and destroy: the range back to reserved.
        _static_case(Case, "dom0less-xen-static-mem-4.16",
                     "xen-static-mem-4.16", True),
    ]
    for i, batch in enumerate(dom0less_gen.gen_cases()):
        root = dom0less_gen.batch_root(batch)
        out.append(Case(f"dom0less-gen-{i}", _fw(f"gen-{i}", fdt(root)),
                        ["bootscrub=off", "report=full", "domain=4K"],
                        [_gen_check(batch)], dict(MACHINE), derive=False))
    return out
