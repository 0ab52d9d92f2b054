# SPDX-License-Identifier: MIT
"""The sandbox tests' machines: a firmware description read here (the
oracle the expectations come from) and one boot of keel on it."""

import os

from scripts.keel import boot, report
# One oracle of the node-map policy, shared with the hostile-map fuzzer.
from scripts.keel import fuzzmaps as fuzz_maps
from scripts.keel.boot import TOP

DATA = os.path.join(TOP, "tests", "data")
BINARY = None  # the keel under test (main sets it)
# A safety net, not a measurement. Quiet on this 2-core host (2026-12):
# 0.0-2.6 s per case (ap-timeout 1.5 s, 1024cpu-16node 1.4 s); 0.1-11 s
# while other builds load it. 120 s is over 40x the quiet times; the one
# case slower on the CI VM of issue 20 has its own (1024cpu-16node).
TIMEOUT = int(os.environ.get("SANDBOX_TEST_TIMEOUT", "120"))
GIB = 1 << 30
PAGE = 4096


class FwDesc:
    """What a well-formed .fw file describes (DESIGN section 3)."""

    def __init__(self, path):
        self.ram = []          # (start, end, node)
        self.reserved = []     # (start, end, name)
        self.cpus = []         # (hwid, node)
        self.dist = {}         # (a, b) -> value
        with open(path, encoding="utf-8") as f:
            for line in f:
                words = line.split("#", 1)[0].split()
                if not words:
                    continue
                kw = dict(w.split("=", 1) for w in words if "=" in w)
                pos = [w for w in words[1:] if "=" not in w]
                if words[0] == "ram":
                    self.ram.append((report.parse_size(pos[0]),
                                     report.parse_size(pos[1]),
                                     int(kw.get("node", "0"), 0)))
                elif words[0] == "reserved":
                    self.reserved.append((report.parse_size(pos[0]),
                                          report.parse_size(pos[1]),
                                          pos[2] if len(pos) > 2 else ""))
                elif words[0] == "cpu":
                    self.cpus.append((int(pos[0], 0),
                                      int(kw.get("node", "0"), 0)))
                elif words[0] == "distance":
                    a, b, v = (int(x, 0) for x in pos[:3])
                    self.dist[(a, b)] = v

    @property
    def node_count(self):
        ids = [n for _, _, n in self.ram] + [n for _, n in self.cpus]
        return max(ids) + 1 if ids else 1

    def node_mem(self):
        mem = {n: 0 for n in range(self.node_count)}
        for s, e, n in self.ram:
            mem[n] += e - s
        return mem

    def distance(self):
        """distance[a][b]: from a's CPUs to b's memory, as given.

        Asymmetric input stays asymmetric; a direction given only one way
        holds both ways (DESIGN section 3).
        """
        n = self.node_count
        d = [[10 if a == b else 20 for b in range(n)] for a in range(n)]
        for (a, b), v in self.dist.items():
            d[a][b] = v
        for (a, b), v in self.dist.items():
            if (b, a) not in self.dist:
                d[b][a] = v
        return d

    def node_map(self, max_nodes):
        """Firmware node id -> keel node id, by the policy of
        include/keel/nodemap.h as scripts/keel/fuzzmaps.py's oracle states
        it (node_map() there)."""
        fw = {"ram": self.ram, "cpus": self.cpus,
              "distance": [(a, b, v) for (a, b), v in self.dist.items()]}
        return fuzz_maps.node_map(fw, max_nodes, len(self.cpus))[0]

    def node_cpus(self):
        """Logical CPU ids per node: bootinfo order, the first is the boot CPU."""
        out = {n: [] for n in range(self.node_count)}
        for i, (_, node) in enumerate(self.cpus):
            out[node].append(i)
        return out

    def expectations(self):
        return {"cpus": len(self.cpus), "online": len(self.cpus),
                "nodes": self.node_count, "node_mem": self.node_mem(),
                "distance": self.distance(),
                "ram": sum(e - s for s, e, _ in self.ram),
                "boot": "sandbox"}


def run_keel(binary, fw, cmdline, timeout=None, env=None):
    """Run one boot of tests/data/@fw (or @fw, an absolute path), @env
    added to the environment. Return: a keel.boot.Boot."""
    # Sandbox options (--prefault) go before the firmware description.
    return boot.sandbox(binary, os.path.join(DATA, fw),
                        [w for w in cmdline if not w.startswith("--")],
                        opts=[w for w in cmdline if w.startswith("--")],
                        timeout=timeout or TIMEOUT,
                        env={"ASAN_OPTIONS": "detect_leaks=0", **(env or {})},
                        cwd=TOP)


def audit_numbers(rep):
    a = rep["audit"]
    return (a["ram_pages"], a["free_pages"] + a["allocated_pages"],
            a["reserved_pages"], a["lost_pages"])
