# SPDX-License-Identifier: MIT
"""Issue 36 §7's sandbox cases: 100,000 RAM ranges (the RAM side of
tests/sandbox/many_reserved.py). Every RAM page the file lists must be
accounted: memmap.ram_bytes is the sum of its `ram` lines (the union
where two nodes list the same RAM), nothing dropped, the audit loses
nothing.

- ram-100k-separate: 100,000 one-page ranges. bootinfo's RAM table holds
  them (the early pool: some 174,000 ranges), but sanitise resolved
  overlaps in a second full-size table from the same pool and dropped
  67,233 of them ("more than 131072 separate RAM ranges"); now it
  resolves in the table itself.
- ram-50k-under-a-node: node 1 lists one stretch, node 0 every other
  page of it (50,000): 100,000 pieces, node 0 keeps its pages, one
  "claimed by" warning, the table grows for the pieces.
- ram-100k-under-a-node-at-the-limit: the same with 100,000 pages of
  node 0: 200,000 pieces, more than the early pool holds. Pieces are
  joined to the RAM of the other node they touch (one warning naming the
  limit); no RAM dropped, none called RAM that is not.
- ram-100k-fragmented (NOT registered: fails until the heap's range table
  can grow without one big block): 100,000 ranges of 64 KiB and 32 MiB at
  0; the frame table takes the 32 MiB, no free range can hold the heap's
  4.8 MB range table, and the heap refuses 99,410 ranges ("range table
  full"): 1,590,545 pages lost. See fragmented_case()."""

import os

from . import firmware

PAGE = 4096
MIB = 1 << 20
COUNT = 100000
BASE = 1 << 30   # the listed ranges start here
LOW = 256 * MIB  # plus [0, LOW) on node 0, for keel itself


def _write(name, lines):
    d = os.path.join(os.path.dirname(firmware.BINARY), "fw-tests")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def _head(low=LOW, nodes=1):
    lines = [f"ram 0x0 {low:#x} node=0"] if low else []
    lines += [f"cpu {n} node={n} package={n} core=0 thread=0"
              for n in range(nodes)]
    return lines


def _separate(count):
    """@count one-page ranges of node 0, two pages apart."""
    lines = _head()
    for i in range(count):
        s = BASE + 2 * i * PAGE
        lines.append(f"ram {s:#x} {s + PAGE:#x} node=0")
    return _write(f"ram-{count // 1000}k-separate.fw", lines)


def _under_a_node(count):
    """Node 1 lists [BASE, BASE + 2 * count pages), node 0 every other
    page of it (listed after node 1's stretch)."""
    lines = _head(nodes=2)
    lines.append(f"ram {BASE:#x} {BASE + 2 * count * PAGE:#x} node=1")
    for i in range(count):
        s = BASE + 2 * i * PAGE
        lines.append(f"ram {s:#x} {s + PAGE:#x} node=0")
    return _write(f"ram-{count // 1000}k-under-a-node.fw", lines)


def _fragmented(count, pages=16, low=32 * MIB):
    """@count ranges of @pages pages, one page apart, from 4 GiB."""
    lines = _head(low)
    for i in range(count):
        s = (4 << 30) + i * (pages + 1) * PAGE
        lines.append(f"ram {s:#x} {s + pages * PAGE:#x} node=0")
    return _write(f"ram-{count // 1000}k-fragmented.fw", lines)


def all_ram_kept(node_bytes=None, limit_said=False):
    """Nothing dropped, nothing lost, no "separate RAM ranges" line; the
    limit's line once when @limit_said, else never; each node's RAM as
    @node_bytes when given."""
    def check(rep, log):
        out = []
        mm = rep["memmap"]
        if rep.get("dropped_ram", 0) or mm.get("dropped_ram_bytes", 0):
            out.append(f"dropped_ram {rep.get('dropped_ram')}, "
                       f"dropped_ram_bytes {mm.get('dropped_ram_bytes')}")
        a = rep["audit"]
        if not a["ok"] or a["lost_pages"]:
            out.append(f"audit: ok {a['ok']}, lost_pages {a['lost_pages']}")
        if a["ram_pages"] * PAGE != mm["ram_bytes"]:
            out.append(f"audit: {a['ram_pages']} RAM pages, memmap.ram_bytes "
                       f"{mm['ram_bytes']}")
        if "not added" in log:
            out.append("bootmem did not take all the RAM")
        if "separate RAM ranges" in log:
            out.append("a separate RAM range was dropped")
        said = log.count("the RAM table holds")
        if said != (1 if limit_said else 0):
            out.append(f"the table's limit said {said} times")
        if node_bytes is not None:
            got = [n["mem_bytes"] for n in rep["nodes"]]
            if got != node_bytes:
                out.append(f"nodes' mem_bytes {got}, not {node_bytes}")
        return out
    return check


def fragmented_case(Case):
    """ram-100k-fragmented, to register once heap_size_ranges() can give
    the heap a range table without one 4.8 MB block (or the heap accounts
    what it refuses)."""
    return Case("ram-100k-fragmented", _fragmented(COUNT), ["bootscrub=off"],
                [all_ram_kept()],
                {"cpus": 1, "online": 1, "nodes": 1,
                 "ram": 32 * MIB + COUNT * 16 * PAGE},
                derive=False, timeout=60)


def many_ram_cases(Case):
    """The registered cases above, as tests/sandbox/cases.py's @Case.
    Quiet on this 2-core host each boots in 0.2-0.4 s; the timeouts (30 s)
    are safety nets, 75x and more."""
    def case(name, fw, checks, ram, nodes):
        return Case(name, fw, ["bootscrub=off"], checks,
                    {"cpus": nodes, "online": nodes, "nodes": nodes,
                     "ram": ram},
                    derive=False, timeout=30)
    half = COUNT // 2
    return [
        case("ram-100k-separate", _separate(COUNT), [all_ram_kept()],
             LOW + COUNT * PAGE, 1),
        case("ram-50k-under-a-node", _under_a_node(half),
             [all_ram_kept([LOW + half * PAGE, half * PAGE])],
             LOW + 2 * half * PAGE, 2),
        case("ram-100k-under-a-node-at-the-limit", _under_a_node(COUNT),
             [all_ram_kept(limit_said=True)], LOW + 2 * COUNT * PAGE, 2),
    ]
