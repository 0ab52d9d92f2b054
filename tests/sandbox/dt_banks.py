# SPDX-License-Identifier: MIT
"""Issue 30 §3's sandbox case: 1000 separate DT memory banks, replayed
(`dtb FILE`, arch/sandbox/replay.c) from a tree written here. bootinfo's
RAM table starts with 512 slots and must grow (into its early pool), so
every bank is kept: memmap.ranges lists all 1000, nothing is dropped and
no warning is printed; the audit accounts for every page."""

import os

from ..qemu.dom0less_cases import no_warnings
from . import firmware
from .fdtgen import Node, cells, fdt, string

MIB = 1 << 20
BANKS = 1000
BASE = 0x40000000


def _fw():
    """1000 /memory nodes of 1 MiB, 2 MiB apart from 1 GiB: a .fw of one
    `dtb` line next to the blob."""
    mems = [Node(f"memory@{BASE + 2 * i * MIB:x}",
                 [("device_type", string("memory")),
                  ("reg", cells(0, BASE + 2 * i * MIB, 0, MIB))])
            for i in range(BANKS)]
    cpus = Node("cpus", [("#address-cells", cells(1)),
                         ("#size-cells", cells(0))],
                [Node("cpu@0", [("device_type", string("cpu")),
                                ("reg", cells(0))])])
    root = Node(b"", [("#address-cells", cells(2)),
                      ("#size-cells", cells(2))], mems + [cpus])
    d = os.path.join(os.path.dirname(firmware.BINARY), "dt-tests")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "dt-1000-banks.dtb"), "wb") as f:
        f.write(fdt(root))
    path = os.path.join(d, "dt-1000-banks.fw")
    with open(path, "w", encoding="utf-8") as f:
        f.write("dtb dt-1000-banks.dtb\n")
    return path


def all_banks_kept(rep, log):
    """memmap.ranges: the 1000 banks, in order, none dropped."""
    mm = rep["memmap"]
    want = [[BASE + 2 * i * MIB, BASE + 2 * i * MIB + MIB, 0]
            for i in range(BANKS)]
    out = []
    if mm["ranges"] != want:
        out.append(f"memmap.ranges: {len(mm['ranges'])} ranges, not the "
                   f"{BANKS} banks")
    if mm["dropped_ram_bytes"]:
        out.append(f"memmap.dropped_ram_bytes {mm['dropped_ram_bytes']}")
    return out


def dt_banks_cases(Case):
    """The case above, as tests/sandbox/cases.py's @Case."""
    return [Case("dt-1000-separate-banks", _fw(), ["audit=full"],
                 [all_banks_kept, no_warnings],
                 {"cpus": 1, "online": 1, "nodes": 1, "ram": BANKS * MIB},
                 derive=False)]
