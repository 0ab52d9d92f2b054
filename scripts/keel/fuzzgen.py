# SPDX-License-Identifier: MIT
"""The generator of the hostile-map fuzzer (scripts/keel/fuzzmaps.py):
generate(seed, index) writes one repeatable .fw text mixing the faults
that file's docstring lists, each drawn from a seeded random stream."""

import random

from .fuzzfw import (DEAD_CPU_TIMEOUT_MS, GIB, MIB, NAMES, PADDR_BITS,
                     PAGE)

# ---- the generator -----------------------------------------------------

def _logsize(rng, lo, hi):
    """A size between @lo and @hi, log-uniform (small ones are common)."""
    return int(2 ** rng.uniform(lo.bit_length() - 1, hi.bit_length() - 1))


def _off(rng, p):
    """An offset off the page grid with probability @p."""
    return rng.randrange(1, PAGE) if rng.random() < p else 0


class _Gen:
    """One case's random stream and the features it picked."""

    def __init__(self, seed, index, cfg):
        self.cfg = cfg
        self.index = index
        self.rng = random.Random(f"keel-fuzz-maps:{seed}:{index}")
        self.feat = set()

    def pick(self, name, p):
        if self.rng.random() < p:
            self.feat.add(name)
            return True
        return False


def _gen_nodes(g):
    """Firmware node ids; which have RAM, which CPUs; P(missing node=)."""
    rng, maxn = g.rng, g.cfg["max_numnodes"]
    if g.pick("many-nodes", 0.12):
        ids = sorted(rng.sample(range(maxn + 8), rng.randint(maxn - 2,
                                                             maxn + 6)))
    elif g.pick("sparse-ids", 0.15):
        ids = sorted(rng.sample(range(maxn), rng.randint(1, 4)))
    else:
        ids = list(range(rng.choice((1, 1, 2, 2, 2, 3, 4))))
    if g.pick("huge-node-ids", 0.05):
        # The largest ids node= takes (fwdesc.c: 0xfffe), past MAX_NUMNODES.
        ids = sorted(set(ids) | set(rng.sample((0xfffe, 0xfff0, 0x8000,
                                                0x1000), 2)))
    mem_nodes = list(ids)
    cpu_nodes = list(ids)
    if len(ids) > 1 and g.pick("cpu-only-node", 0.25):
        mem_nodes.remove(rng.choice(ids[1:]))
    if len(mem_nodes) > 1 and g.pick("mem-only-node", 0.25):
        gone = rng.choice(mem_nodes)
        cpu_nodes = [n for n in cpu_nodes if n != gone] or [ids[0]]
    no_node_p = 0.1 if g.pick("missing-node-ids", 0.1) else 0.0
    return ids, mem_nodes, cpu_nodes, no_node_p


def _gen_ram_ranges(g, mem_nodes, budget):
    """RAM with holes, grouped or interleaved by node."""
    rng = g.rng
    nranges = rng.randint(len(mem_nodes), max(len(mem_nodes), 12))
    if g.pick("many-ram-ranges", 0.1):
        nranges = rng.randint(40, 120)
    interleave = g.pick("interleaved-nodes", 0.2)
    unaligned_p = 0.5 if g.pick("unaligned-ram", 0.35) else 0.0
    cursor = rng.choice((0, 0, PAGE, MIB, 16 * MIB))
    ram = []
    per = max(1, budget // nranges)
    for i in range(nranges):
        if interleave:
            node = mem_nodes[i % len(mem_nodes)]
        else:
            node = mem_nodes[min(i * len(mem_nodes) // nranges,
                                 len(mem_nodes) - 1)]
        if i and rng.random() < 0.6:
            if g.pick("big-holes", 0.08):
                cursor += rng.choice((GIB, 2 * GIB, 3 * GIB))
            else:
                cursor += _logsize(rng, PAGE, 64 * MIB)
        if rng.random() < 0.7:
            size = rng.randint(per // 2, 2 * per)
        else:
            size = max(PAGE // 2, _logsize(rng, PAGE // 2, 2 * per))
        s = cursor + _off(rng, unaligned_p)
        e = cursor + size + _off(rng, unaligned_p)
        if e > s:
            ram.append((s, e, node))
        cursor += size + PAGE
    return ram, unaligned_p


def _gen_ram_overlaps(g, ram, mem_nodes, unaligned_p):
    """A few overlapping ranges, same node or another."""
    rng = g.rng
    for _ in range(rng.randint(1, 4)):
        s, e, n = rng.choice(ram)
        ns = max(0, s + rng.randint(-(e - s), e - s) // PAGE * PAGE
                 + _off(rng, unaligned_p))
        ne = ns + _logsize(rng, PAGE, max(2 * PAGE, 2 * (e - s)))
        other = rng.choice(mem_nodes) if rng.random() < 0.6 else n
        ram.append((ns, ne, other))


def _gen_ram_runs(g, ram, mem_nodes):
    """Many adjacent (or chained overlapping) ranges of one node above the
    rest: more lines than bootinfo's 512-entry table, one range of RAM
    (issue 20 section 2.2: merged as added, or dropped with a count)."""
    rng = g.rng
    # Past 512 lines: bootinfo merges RAM of one node as it is added
    # (issue 20 section 2.2), so a run of 600 touching lines is one range.
    count = rng.choice((64, 300, 520, 600))
    size = rng.choice((16, 64)) * 1024
    node = rng.choice(mem_nodes)
    at = (max(e for _s, e, _n in ram) // MIB + 1) * MIB
    overlap = g.pick("chained-overlapping-ram", 0.4)
    for i in range(count):
        s = at + i * size
        ram.append((s, s + size + (size // 2 if overlap else 0), node))


def _gen_ram_past_limit(g, ram, mem_nodes):
    """Ranges at or across the build's address limit (2^paddr_bits), at
    2^48, between 128 and 256 TiB, and near 2^64."""
    rng, limit = g.rng, 1 << g.cfg.get("paddr_bits", PADDR_BITS)
    node = rng.choice(mem_nodes)
    size = rng.choice((PAGE, MIB, 4 * MIB))
    cands = [(limit, limit + size), (1 << 48, (1 << 48) + size),
             (200 << 40, (200 << 40) + size),
             ((1 << 64) - 2 * size, (1 << 64) - size),
             (limit - size, limit + size)]
    for s, e in rng.sample(cands, rng.randint(1, 3)):
        ram.append((s, e, node))


def _gen_ram(g, ids, mem_nodes):
    """RAM lines (start, end, firmware node), budgeted so a case boots and
    scrubs in a small fraction of a second."""
    rng, maxn = g.rng, g.cfg["max_numnodes"]
    budget = rng.choice((8, 16, 32, 48, 64, 128)) * MIB
    if g.pick("too-many-cpus", 0.06):
        budget = 48 * MIB  # 64 CPU stacks of 64 KiB
    ram, unaligned_p = _gen_ram_ranges(g, mem_nodes, budget)
    if g.pick("tiny-ram", 0.04):
        ram = [(r[0], r[0] + rng.choice((PAGE // 2, PAGE, 3 * PAGE)), r[2])
               for r in ram[:2]]
    if g.pick("no-ram", 0.015):
        ram = []
    if ram and g.pick("overlapping-ram", 0.3):
        _gen_ram_overlaps(g, ram, mem_nodes, unaligned_p)
    if ram and g.pick("adjacent-ram-runs", 0.05):
        _gen_ram_runs(g, ram, mem_nodes)
    if ram and "many-nodes" in g.feat and g.pick("ram-on-big-node", 0.8):
        big = [n for n in ids if n >= maxn] or [maxn + 1]
        top = max(r[1] for r in ram)
        for n in rng.sample(big, min(len(big), 3)):
            size = _logsize(rng, PAGE, 8 * MIB)
            at = top + _logsize(rng, PAGE, 64 * MIB) // PAGE * PAGE
            ram.append((at, at + size, n))
            top = at + size
    if ram and g.pick("ram-past-limit", 0.05):
        _gen_ram_past_limit(g, ram, mem_nodes)
    if g.pick("unsorted-ram", 0.3):
        rng.shuffle(ram)
    return ram


def _gen_reserved_many(g, ram, rsv):
    """Many small, edge-crossing, whole-range and duplicate reservations."""
    rng = g.rng
    if g.pick("many-small-reserved", 0.3):
        # 600 and 900: more than bootinfo's 512-entry table, which must
        # merge neighbours rather than drop any.
        for i in range(rng.choice((20, 100, 130, 200, 300, 600, 900))):
            s, e, _n = rng.choice(ram)
            at = rng.randrange(s, e)
            rsv.append((at, at + rng.randint(1, 3 * PAGE), f"r{i}"))
    if g.pick("reserved-across-ram-edge", 0.25):
        for _ in range(rng.randint(1, 3)):
            s, e, _n = rng.choice(ram)
            edge = rng.choice((s, e))
            rsv.append((max(0, edge - rng.randint(1, 2 * PAGE)),
                        edge + rng.randint(1, 2 * PAGE), "edge"))
    if g.pick("whole-range-reserved", 0.15):
        s, e, _n = rng.choice(ram)
        rsv.append((s, e, "whole"))
    if rsv and g.pick("overlapping-reserved", 0.25):
        for _ in range(rng.randint(1, 5)):
            s, e, name = rng.choice(rsv)
            d = rng.randint(-PAGE, PAGE)
            rsv.append((max(0, s + d), max(0, s + d) + (e - s) +
                        rng.randint(1, PAGE), name + "-dup"))
    if g.pick("all-reserved", 0.02):
        rsv += [(s, e, "all") for s, e, _n in ram]


def _gen_reserved(g, ram):
    """Reserved lines (start, end, name)."""
    rng = g.rng
    rsv = []
    if ram and rng.random() < 0.5:
        rsv.append((0, MIB, "bios"))
    lo = min((r[0] for r in ram), default=0)
    hi = min(max((r[1] for r in ram), default=MIB), 1 << 40)
    for _ in range(rng.randint(0, 6)):
        if ram and rng.random() < 0.8:
            s, e, _n = rng.choice(ram)
            at = rng.randrange(s, e)
        else:
            at = rng.randrange(lo, max(lo + 1, hi + 64 * MIB))
        size = _logsize(rng, 1, 4 * MIB)
        rsv.append((at, at + size, rng.choice(NAMES)))
    if ram:
        _gen_reserved_many(g, ram, rsv)
    rng.shuffle(rsv)
    return rsv


def _gen_cpus(g, ids, cpu_nodes):
    """CPU lines (hwid, node); the first is the boot CPU."""
    rng = g.rng
    ncpus = rng.choice((1, 2, 2, 3, 4, 4, 6))
    if "too-many-cpus" in g.feat:
        ncpus = g.cfg["nr_cpus"] + rng.randint(1, 8)
    huge = g.pick("huge-cpu-ids", 0.05)
    cpus = []
    hw = 0
    for i in range(ncpus):
        hw += rng.choice((1, 1, 1, 2, 16))
        if huge and i and rng.random() < 0.5:
            hw = rng.choice((0xffffffff, 1 << 32, 1 << 63, (1 << 64) - 1 - i))
        cpus.append((hw, rng.choice(cpu_nodes) if i else cpu_nodes[0]))
    if ncpus > 1 and g.pick("duplicate-hwid", 0.08):
        dup = rng.choice(cpus)
        cpus.insert(rng.randrange(1, len(cpus)), (dup[0], rng.choice(ids)))
    return cpus


def _gen_distances(g, used):
    """Distance lines (a, b, value): symmetric, one-way, partial,
    asymmetric or with an invalid value."""
    rng = g.rng
    dist = []
    if len(used) < 2 or rng.random() >= 0.7:
        return dist
    kind = rng.choice(("symmetric", "symmetric", "one-way", "asymmetric",
                       "invalid", "partial"))
    g.feat.add(f"distance-{kind}")
    base = {}
    for a in used:
        for b in used:
            if a < b:
                base[(a, b)] = rng.choice((12, 15, 20, 21, 30, 40, 255))
    for (a, b), v in base.items():
        if kind == "partial" and rng.random() < 0.5:
            continue
        dist.append((a, b, v))
        if kind in ("symmetric", "partial") and rng.random() < 0.5:
            dist.append((b, a, v))
        elif kind == "asymmetric":
            dist.append((b, a, rng.choice((11, 14, 25, v + 1))))
    if kind == "invalid" and dist:
        a, b, _v = rng.choice(dist)
        dist.append((a, b, rng.choice((1, 5, 10))))
    if kind == "one-way":
        dist = [(b, a, v) if rng.random() < 0.5 else (a, b, v)
                for a, b, v in dist]
    rng.shuffle(dist)
    return dist


def _gen_cmdline(g, cpus):
    """keel's command line of the case (the `# cmdline:` comment)."""
    rng = g.rng
    cmd = ["bootscrub=on"]
    if rng.random() < 0.3:
        cmd.append(f"bootscrub_chunk={rng.choice(('64K', '1M', '4M'))}")
    if rng.random() < 0.15:
        cmd.append(f"heap_init={rng.choice(('chunked', 'pagewise'))}")
    if rng.random() < 0.3:
        cmd.append("audit=full")
    present = len({h for h, _n in cpus[:g.cfg["nr_cpus"]]})
    if present > 2 and g.pick("dead-cpus", 0.05):
        # A few CPUs that never check in: each costs ap_timeout_ms until
        # they share one deadline (issue 20 section 2.7), so few and short.
        dead = rng.sample(range(1, present), min(3, present - 1))
        cmd += [f"inject=ap-timeout:{c}" for c in sorted(dead)]
        cmd.append(f"ap_timeout_ms={DEAD_CPU_TIMEOUT_MS}")
    return cmd


def _odd(rng, n, first=None):
    """@n bytes of anything but a newline (a str of latin-1 chars)."""
    out = [first] if first else []
    while len(out) < n:
        c = chr(rng.randrange(256))
        if c != "\n":
            out.append(c)
    return "".join(out)


def _oddify(g, lines):
    """Odd bytes in a description (issue 20 section 2.1): NULs, control
    and high bytes in comments and names, junk lines, CRLF. Every one
    must be an error naming its line or be read past, never the end of
    the text."""
    rng, out = g.rng, []
    for ln in lines:
        r = rng.random()
        if ln.startswith("#"):
            out.append(ln)
        elif r < 0.1:
            out.append(f"{ln} #{_odd(rng, rng.randint(1, 12), chr(0))}")
        elif r < 0.14 and ln.startswith("reserved"):
            out.append(f"{ln}\x00{_odd(rng, 2)}")  # a name that is not text
        elif r < 0.17:
            out.append(ln + "\r")
        else:
            out.append(ln)
        if rng.random() < 0.03:
            bad = chr(rng.choice((0, 1, 7, 0x1b, 0x7f, 0xff)))
            out.append(_odd(rng, rng.randint(1, 40), bad))
    return out


def _render(g, head, case, no_node_p):
    """The .fw lines of the case: @case is (ram, rsv, cpus, dist)."""
    rng = g.rng
    ram, rsv, cpus, dist = case

    def node_attr(n):
        return "" if rng.random() < no_node_p else f" node={n}"

    out = list(head)
    for s, e, n in ram:
        out.append(f"ram {s:#x} {e:#x}{node_attr(n)}")
    for s, e, name in rsv:
        out.append(f"reserved {s:#x} {e:#x} {name}")
    for hwid, n in cpus:
        out.append(f"cpu {hwid}{node_attr(n)}")
    if "refused-node-ids" in g.feat:
        # node= past 0xfffe is refused with its line (0xffffffff is
        # NUMA_NO_NODE): what the line described is not there.
        for _ in range(rng.randint(1, 3)):
            bad = rng.choice((0xffff, 0xffffffff, 1 << 32))
            out.append(rng.choice((f"cpu {rng.randrange(1 << 20)} "
                                   f"node={bad:#x}",
                                   f"ram 0x1000000 0x1100000 node={bad}")))
    for a, b, v in dist:
        out.append(f"distance {a} {b} {v}")
    if "odd-bytes" in g.feat:
        out = _oddify(g, out)
    return out


def generate(seed, index, cfg=None):
    """The .fw text of case @index of @seed (deterministic). Characters
    stand for bytes (latin-1): write it with encoding="latin-1"."""
    cfg = dict(cfg or {"max_numnodes": 16, "nr_cpus": 64})
    g = _Gen(seed, index, cfg)
    ids, mem_nodes, cpu_nodes, no_node_p = _gen_nodes(g)
    ram = _gen_ram(g, ids, mem_nodes)
    rsv = _gen_reserved(g, ram)
    cpus = _gen_cpus(g, ids, cpu_nodes)
    dist = _gen_distances(g, sorted(set(mem_nodes) | set(cpu_nodes)))
    cmd = _gen_cmdline(g, cpus)
    g.pick("refused-node-ids", 0.04)
    g.pick("odd-bytes", 0.08)
    head = [f"# fuzz-maps seed {seed} case {index}: "
            f"{','.join(sorted(g.feat)) or 'plain'}",
            f"# cmdline: {' '.join(cmd)}"]
    return "\n".join(_render(g, head, (ram, rsv, cpus, dist),
                             no_node_p)) + "\n"
