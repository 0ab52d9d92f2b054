#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Firmware replay of real machines: tests/data/machines/NAME.fw booted on
the sandbox keel with bootscrub=off, its report checked against
NAME.expect.json.

Usage: python3 -m tests.machines.replay KEEL_BINARY [NAME ...]

The expectations were written by hand from each machine's specification
and an iasl decode of its tables (SRAT memory ranges and CPU domains, SLIT
rows, MADT entries), never from keel's output. Nodes are matched by fw_id
(the SRAT proximity domain), so the check holds whatever keel numbers
them. One line per machine, then "replay: N passed, M failed".
"""

import glob
import json
import os
import sys

from scripts.keel import boot, report
from scripts.keel.boot import TOP

DATA = os.path.join(TOP, "tests", "data", "machines")
TIMEOUT = int(os.environ.get("SANDBOX_TEST_TIMEOUT", "120"))


def expected_nodes(exp):
    """{pxm: {"mem": bytes, "cpus": n}} from the SRAT transcription."""
    nodes = {}
    for pxm, base, length in exp["srat_memory"]:
        nodes.setdefault(pxm, {"mem": 0, "cpus": 0})["mem"] += int(length, 16)
    for pxm, n in exp["cpus_per_domain"].items():
        nodes.setdefault(int(pxm), {"mem": 0, "cpus": 0})["cpus"] = n
    return nodes


def expected_distance(exp, a, b):
    """SLIT entry by proximity domain; ACPI's 10/20 without a SLIT."""
    if exp["slit"] is None:
        return 10 if a == b else 20
    return int(exp["slit"][a][b], 16)


def check(name, exp, log):
    out = []
    rep = report.find_report(log)
    if rep is None:
        return ["no KEEL-REPORT line"]
    out += report.check_parsed(rep, log)
    if rep.get("result") != "pass":
        out.append(f"result {rep.get('result')}")
    cpus = rep["cpus"]
    if len(cpus) != exp["madt_cpus"]:
        out.append(f"{len(cpus)} CPUs, the MADT lists {exp['madt_cpus']}")
    online = [c for c in cpus if c["online"]]
    if len(online) != exp["enabled_cpus"]:
        out.append(f"{len(online)} CPUs online, {exp['enabled_cpus']} "
                   "enabled in the MADT")
    want = expected_nodes(exp)
    by_fw = {n["fw_id"]: n for n in rep["nodes"] if n["fw_id"] is not None}
    if sorted(by_fw) != sorted(want):
        out.append(f"firmware ids {sorted(by_fw)}, expected {sorted(want)}")
        return out
    cpu_node = {c["id"]: c["node"] for c in online}
    for pxm, w in sorted(want.items()):
        n = by_fw[pxm]
        if n["mem_bytes"] != w["mem"]:
            out.append(f"domain {pxm}: {n['mem_bytes']} bytes, SRAT says "
                       f"{w['mem']}")
        got = sum(1 for c in online if cpu_node[c["id"]] == n["id"])
        if got != w["cpus"]:
            out.append(f"domain {pxm}: {got} online CPUs, SRAT says "
                       f"{w['cpus']}")
        for qxm in want:
            d = n["distance"][by_fw[qxm]["id"]]
            e = expected_distance(exp, pxm, qxm)
            if d != e:
                out.append(f"distance {pxm}->{qxm}: {d}, expected {e}")
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
    names = argv[2:] or sorted(
        os.path.basename(p)[:-len(".expect.json")]
        for p in glob.glob(os.path.join(DATA, "*.expect.json")))
    passed = failed = 0
    for name in names:
        with open(os.path.join(DATA, name + ".expect.json")) as f:
            exp = json.load(f)
        b = boot.sandbox(keel, os.path.join(DATA, name + ".fw"),
                         ["bootscrub=off"], timeout=TIMEOUT)
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
