#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Firmware replay of real machines: tests/data/machines/NAME.fw booted on
the sandbox keel with bootscrub=off, its report checked against
NAME.expect.json.

Usage: python3 -m tests.machines.replay KEEL_BINARY [NAME ...]

The expectations were written by hand from each machine's specification
and its firmware, never from keel's output: for ACPI machines an iasl
decode of the tables (SRAT memory ranges and CPU domains, SLIT rows, MADT
entries), for device tree machines the DT source (cpu reg and
numa-node-id, /memory reg, distance-map, cpu-map). Nodes are matched by
fw_id (SRAT proximity domain or numa-node-id), so the check holds whatever
keel numbers them. One line per machine, then "replay: N passed, M failed".

A description with a `dtb` line is run from a copy placed next to the
blobs tests/tests.mk compiles from tests/data/machines/src: MACHINES_DTB_DIR,
by default the folder "machines" beside KEEL_BINARY.
"""

import glob
import json
import os
import shutil
import sys

from scripts.keel import boot, report
from scripts.keel.boot import TOP

DATA = os.path.join(TOP, "tests", "data", "machines")
# A safety net, not a measurement: each replay (bootscrub=off) takes well
# under 1 s on this 2-core host, 2-3 s while other builds load it; 120 s
# is over 40x that.
TIMEOUT = int(os.environ.get("SANDBOX_TEST_TIMEOUT", "120"))


def acpi_expectation(exp):
    """From the SRAT/SLIT/MADT transcription: (CPUs listed, CPUs enabled,
    {pxm: {"mem", "cpus", "ranges", "hwids"}}, distance(a, b))."""
    nodes = {}

    def node(pxm):
        return nodes.setdefault(pxm, {"mem": 0, "cpus": 0, "ranges": None,
                                      "hwids": None})

    for pxm, base, length in exp["srat_memory"]:
        node(pxm)["mem"] += int(length, 16)
    for pxm, n in exp["cpus_per_domain"].items():
        node(int(pxm))["cpus"] = n

    def distance(a, b):
        # SLIT entry by proximity domain; ACPI's 10/20 without a SLIT.
        if exp["slit"] is None:
            return 10 if a == b else 20
        return int(exp["slit"][a][b], 16)

    return exp["madt_cpus"], exp["enabled_cpus"], nodes, distance


def mpidr_list(spans):
    """["0x10000-0x10003", "0x20000"] -> the MPIDR values they name."""
    out = []
    for span in spans:
        first, _, last = span.partition("-")
        out += range(int(first, 16), int(last or first, 16) + 1)
    return out


def merge(ranges):
    """[start, end) ranges sorted, touching ones joined."""
    out = []
    for start, end in sorted(ranges):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return out


def dt_expectation(exp):
    """From the device tree source: (CPUs listed, CPUs enabled,
    {numa-node-id: {"mem", "cpus", "ranges", "hwids"}}, distance(a, b))."""
    nodes = {}

    def node(nid):
        return nodes.setdefault(nid, {"mem": 0, "cpus": 0, "ranges": [],
                                      "hwids": set()})

    total = 0
    for nid, spans in exp["dt_cpus"].items():
        hwids = mpidr_list(spans)
        total += len(hwids)
        node(int(nid))["hwids"] |= set(hwids)
        node(int(nid))["cpus"] += len(hwids)
    for nid, base, size in exp["dt_memory"]:
        node(nid)["mem"] += int(size, 16)
        node(nid)["ranges"].append([int(base, 16),
                                    int(base, 16) + int(size, 16)])
    for n in nodes.values():
        n["ranges"] = merge(n["ranges"])
    index = {nid: i for i, nid in enumerate(exp["node_ids"])}

    def distance(a, b):
        return exp["distances"][index[a]][index[b]]

    return total, exp["enabled_cpus"], nodes, distance


def check_topology(exp, online):
    """Packages and cores per package, when the expectation gives them."""
    if "packages" not in exp:
        return []
    per_pkg = {}
    for c in online:
        per_pkg.setdefault(c["package"], set()).add(c["core"])
    out = []
    if len(per_pkg) != exp["packages"]:
        out.append(f"{len(per_pkg)} packages, expected {exp['packages']}")
    odd = {p: len(cores) for p, cores in per_pkg.items()
           if len(cores) != exp["cores_per_package"]}
    if odd:
        p = min(odd)
        out.append(f"package {p}: {odd[p]} cores, expected "
                   f"{exp['cores_per_package']}")
    return out


def check(name, exp, log):
    out = []
    rep = report.find_report(log)
    if rep is None:
        return ["no KEEL-REPORT line"]
    out += report.check_parsed(rep, log)
    if rep.get("result") != "pass":
        out.append(f"result {rep.get('result')}")
    dt = "dt_cpus" in exp
    fw = "device tree" if dt else "MADT"
    listed, enabled, want, distance = (dt_expectation if dt else
                                       acpi_expectation)(exp)
    cpus = rep["cpus"]
    if len(cpus) != listed:
        out.append(f"{len(cpus)} CPUs, the {fw} lists {listed}")
    online = [c for c in cpus if c["online"]]
    if len(online) != enabled:
        out.append(f"{len(online)} CPUs online, {enabled} enabled in the "
                   f"{fw}")
    by_fw = {n["fw_id"]: n for n in rep["nodes"] if n["fw_id"] is not None}
    if sorted(by_fw) != sorted(want):
        out.append(f"firmware ids {sorted(by_fw)}, expected {sorted(want)}")
        return out
    src = "the device tree" if dt else "SRAT"
    for fid, w in sorted(want.items()):
        n = by_fw[fid]
        if n["mem_bytes"] != w["mem"]:
            out.append(f"node {fid}: {n['mem_bytes']} bytes, {src} says "
                       f"{w['mem']}")
        if w["ranges"] is not None and n["ranges"] != w["ranges"]:
            out.append(f"node {fid}: RAM {n['ranges']}, {src} says "
                       f"{w['ranges']}")
        here = [c for c in online if c["node"] == n["id"]]
        if len(here) != w["cpus"]:
            out.append(f"node {fid}: {len(here)} online CPUs, {src} says "
                       f"{w['cpus']}")
        if w["hwids"] is not None:
            got = {c["hwid"] for c in here}
            if got != w["hwids"]:
                diff = sorted(got ^ w["hwids"])
                out.append(f"node {fid}: MPIDR {diff[0]:#x} misplaced "
                           f"({len(diff)} differ)")
        for gid in want:
            d = n["distance"][by_fw[gid]["id"]]
            e = distance(fid, gid)
            if d != e:
                out.append(f"distance {fid}->{gid}: {d}, expected {e}")
    out += check_topology(exp, online)
    warns = [l for l in log.splitlines() if "keel: warning:" in l]
    for w in exp["warnings"]:
        if not any(w in l for l in warns):
            out.append(f"no warning containing {w!r}")
    extra = [l for l in warns if not any(w in l for w in exp["warnings"])]
    if extra:
        out.append(f"unexpected warning: {extra[0]}")
    return out


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    keel = argv[1]
    dtb_dir = os.environ.get("MACHINES_DTB_DIR", os.path.join(
        os.path.dirname(os.path.abspath(keel)), "machines"))
    names = argv[2:] or sorted(
        os.path.basename(p)[:-len(".expect.json")]
        for p in glob.glob(os.path.join(DATA, "*.expect.json")))
    passed = failed = 0
    for name in names:
        with open(os.path.join(DATA, name + ".expect.json")) as f:
            exp = json.load(f)
        fw = os.path.join(DATA, name + ".fw")
        if "dt_cpus" in exp:
            # The .fw names its blob relative to itself: run a copy
            # beside the blobs the build compiled.
            if not os.path.exists(os.path.join(dtb_dir, name + ".dtb")):
                failed += 1
                print(f"FAIL {name}: no {name}.dtb in {dtb_dir} "
                      "(make ARCH=sandbox replay-test builds it)")
                continue
            fw = shutil.copy(fw, dtb_dir)
        b = boot.sandbox(keel, fw, ["bootscrub=off"], timeout=TIMEOUT)
        if b.timed_out:
            problems = [b.status_text()]
        else:
            problems = [] if b.status == 0 else [b.status_text()]
            problems += check(name, exp, b.log)
        if problems:
            failed += 1
            print(f"FAIL {name}: " + "; ".join(problems))
        else:
            passed += 1
            print(f"ok   {name}")
    print(f"replay: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
