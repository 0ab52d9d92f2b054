# SPDX-License-Identifier: MIT
"""Hostile firmware maps for the sandbox, and the invariants of each boot.

Writes seeded, repeatable sandbox firmware descriptions (the .fw format of
boot/fwdesc.c) that mix what real firmware gets wrong: overlapping RAM
(same node and different nodes), many small and unaligned reserved ranges
(more than the bootinfo table holds), holes, RAM edges off page
boundaries, CPU-only and memory-only nodes, missing node ids, asymmetric
and invalid distances, more node ids than CONFIG_MAX_NUMNODES and more CPUs
than CONFIG_NR_CPUS; and the classes of issue 20 section 3: odd bytes
(NULs, control and high bytes), runs of adjacent or overlapping RAM, huge
node and CPU ids, addresses past the build's limit, dead CPUs. Each case boots build/sandbox/keel with the reserved
page canary on (KEEL_SANDBOX_CANARY=1, arch/sandbox/canary.c) and is
checked against an oracle computed from the .fw text alone, so a kept
failure file replays by itself:

  1. the boot ends: no crash signal, no hang (timeout), exactly one verdict
     "KEEL: PASS" or "KEEL: FAIL <reason>", exit status 0 / 1 to match;
     a panic is a failure unless the case is an expected refusal (below);
  2. every firmware-reserved page inside RAM is reserved in the report
     (memmap.reserved), under no allocation's name, and the canary saw
     every one of them intact ("sandbox: canary: N intact, 0 clobbered",
     N = the oracle's count);
  3. the audit balances: lost_pages 0, problems 0, free + allocated +
     reserved = RAM, the heap counters agree, every free byte scrubbed
     (keel.report's checks);
  4. every RAM byte is on the node the firmware gave it, mapped by the
     policy of include/keel/nodemap.h (node_map() below: the lowest
     MAX_NUMNODES ids are kept, the others fold into the kept node nearest
     by distance); where RAM of two nodes overlaps the lower keel id keeps
     it; a missing node= is node 0; no RAM appears that the firmware did
     not describe;
  5. CPUs: the first cpu line is logical CPU 0, duplicate hwids keep the
     first, at most NR_CPUS, each on its firmware node (same fold rule);
     nodes are 0..max-1 with a valid distance matrix.

Expected refusals: a map with no whole RAM page must end "KEEL: FAIL no
usable RAM"; a map whose free RAM is too small or too fragmented for the
frame table and CPU stacks ("tight") may instead end with a panic that
names the allocation ("bootmem: cannot allocate ..."). Anything else that
panics is a failure.

Usage:
  fuzz-maps.py [--keel build/sandbox/keel] [--seed S] [--count N] [-j J]
               [--keep-failures DIR] [--timeout SECONDS]
  fuzz-maps.py --seed S --case I --print        # the .fw text of one case
  fuzz-maps.py --replay FILE.fw [...]           # check given files
  fuzz-maps.py --minimize FILE.fw               # shrink a failing map

Prints one line per failed case (seed, case, first problems, file) and
"fuzz-maps: N passed, M failed"; exit status 1 when any case failed.
Library use: generate(seed, index) -> .fw text; oracle(text, config);
check(text, log, rc, timed_out, config) -> list of problems.
"""

import argparse
import multiprocessing
import os
import random
import re
import sys
import tempfile

from . import boot, report
from .boot import TOP

PAGE = 4096
MIB = 1 << 20
GIB = 1 << 30
PADDR_BITS = 46  # CONFIG_SANDBOX_PADDR_BITS's default (arch/sandbox/Kconfig)
NODE_ID_MAX = 0xfffe  # fwdesc.c: a larger node= is refused with its line
DEAD_CPU_TIMEOUT_MS = 250  # ap_timeout_ms of the dead-cpus cases
SMOKE_CASES = 300  # make fuzz-maps-smoke: cases 0..299 (tests/tests.mk)
NUMA_NO_NODE = None
SECTION_PAGES = 1 << 15  # FT_SECTION_PAGES, include/keel/frametable.h
PAGE_INFO_BYTES = 32  # struct page_info
SMP_STACK = 64 * 1024  # SMP_STACK_SIZE, include/keel/smp.h
PERCPU_STATE_BYTES = 4096  # common/smp.c
ALLOC_NAMES = ("frametable", "cpu stack")  # bootmem allocations' names
NAMES = ("bios", "acpi", "acpi-nvs", "smbios", "fw", "pci-window", "mmio",
         "tpm-log", "efi-rt", "vpd", "persistent-mem", "crashkernel")


# ---- configuration of the build ----------------------------------------

def build_config(keel):
    """CONFIG_MAX_NUMNODES / CONFIG_NR_CPUS / CONFIG_SANDBOX_PADDR_BITS from
    the .config beside @keel."""
    cfg = {"max_numnodes": 16, "nr_cpus": 64, "paddr_bits": PADDR_BITS}
    path = os.path.join(os.path.dirname(os.path.abspath(keel)), ".config")
    names = {"MAX_NUMNODES": "max_numnodes", "NR_CPUS": "nr_cpus",
             "SANDBOX_PADDR_BITS": "paddr_bits"}
    try:
        with open(path) as f:
            for ln in f:
                m = re.match(r"CONFIG_(MAX_NUMNODES|NR_CPUS|"
                             r"SANDBOX_PADDR_BITS)=(\d+)", ln)
                if m:
                    cfg[names[m.group(1)]] = int(m.group(2))
    except OSError:
        pass
    return cfg


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


# ---- parsing a .fw (as boot/fwdesc.c accepts it) -------------------------

LINE_MAX = 256  # FWDESC_LINE_MAX: a longer line is skipped
TOKENS_MAX = 8  # FWDESC_TOKENS: a line with more fields is skipped
_NUMBER = re.compile(r"(0[xX][0-9a-fA-F]+|[0-9]+)([KMGTkmgt]?)\Z")
_BLANKS = re.compile(r"[ \t\r\v\f]+")  # fwdesc.c's is_blank()


def _num(t, top=(1 << 64) - 1):
    """parse_size() of common/lib/lib.c: ValueError where it fails."""
    m = _NUMBER.match(t)
    if not m:
        raise ValueError(t)
    digits = m.group(1)
    v = int(digits, 16) if digits[:2].lower() == "0x" else int(digits, 10)
    if v > (1 << 64) - 1:
        raise ValueError(t)
    v <<= 10 * " KMGT".index(m.group(2).upper() or " ")
    if v > top:
        raise ValueError(t)
    return v


def _attrs(toks, names):
    """key=value fields as fwdesc.c's parse_attrs() takes them: node at
    most NODE_ID_MAX, the others 32 bits. ValueError: the line is
    skipped."""
    out = {}
    for t in toks:
        k, eq, v = t.partition("=")
        if not eq or k not in names:
            raise ValueError(t)
        out[k] = _num(v, NODE_ID_MAX if k == "node" else 0xffffffff)
    return out


def _is_text(name):
    return all(ord(c) >= 0x20 and ord(c) != 0x7f for c in name)


def _parse_line(fw, tok):
    """One line's fields into @fw, as fwdesc.c's parse_line() does."""
    kw, n = tok[0], len(tok)
    if kw == "ram" and n >= 3:
        s, e = _num(tok[1]), _num(tok[2])
        node = _attrs(tok[3:], ("node",)).get("node")
        if e > s:
            fw["ram"].append((s, e, node))
    elif kw == "reserved" and 3 <= n <= 4:
        s, e = _num(tok[1]), _num(tok[2])
        name = tok[3] if n == 4 and _is_text(tok[3]) else "firmware"
        if e > s:
            fw["reserved"].append((s, e, name))
    elif kw == "cpu" and n >= 2:
        hwid = _num(tok[1])
        node = _attrs(tok[2:], ("node", "package", "core",
                                "thread")).get("node")
        fw["cpus"].append((hwid, node))
    elif kw == "distance" and n == 4:
        a, b = _num(tok[1], NODE_ID_MAX), _num(tok[2], NODE_ID_MAX)
        v = _num(tok[3], 255)
        if 0 < v <= 255:
            fw["distance"].append((a, b, v))


def parse_fw(text):
    """Return dict(ram, reserved, cpus, distance, cmdline) of @text, read
    as boot/fwdesc.c reads it (characters are bytes: latin-1).

    Every byte counts, a NUL too (it is part of its line, never the end
    of the text); lines fwdesc.c skips (too long, too many fields, bad
    numbers or attributes, node ids past 0xfffe, END <= START) are
    skipped here too.
    """
    fw = {"ram": [], "reserved": [], "cpus": [], "distance": [],
          "cmdline": ["bootscrub=on"]}
    for ln in text.split("\n"):
        m = re.match(r"#\s*cmdline:\s*(.*)", ln)
        if m:
            fw["cmdline"] = m.group(1).split()
            continue
        if len(ln) > LINE_MAX:
            continue
        tok = [t for t in _BLANKS.split(ln.split("#", 1)[0]) if t]
        if not tok or len(tok) > TOKENS_MAX:
            continue
        try:
            _parse_line(fw, tok)
        except ValueError:
            continue
    return fw


# ---- interval helpers ----------------------------------------------------

def merge(ranges):
    """Sorted union of [s, e) pairs."""
    out = []
    for s, e in sorted(r[:2] for r in ranges):
        if s >= e:
            continue
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [tuple(r) for r in out]


def intersect(a, b):
    """Intersection of two merged range lists."""
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        s, e = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if s < e:
            out.append((s, e))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def subtract(a, b):
    """Merged ranges of @a minus merged ranges of @b."""
    out = []
    for s, e in a:
        cur = s
        for bs, be in b:
            if be <= cur or bs >= e:
                continue
            if bs > cur:
                out.append((cur, bs))
            cur = max(cur, be)
        if cur < e:
            out.append((cur, e))
    return out


def total(ranges):
    return sum(e - s for s, e in ranges)


# ---- the oracle ----------------------------------------------------------

NODEMAP_MAX_IDS = 256  # boot/nodemap.h: distinct firmware ids tracked


def _fw_distance(fw, a, b):
    """fwdesc.c's lookup: the last valid line a -> b, else the last b -> a."""
    d = rev = 0
    for x, y, v in fw["distance"]:
        if (x == y and v != 10) or (x != y and v <= 10):
            continue  # a line fwdesc.c skips
        if (x, y) == (a, b):
            d = v
        elif (x, y) == (b, a):
            rev = v
    return d or rev


def node_map(fw, maxn, nr):
    """{firmware node id: keel node id}, and the set of kept ids, by the
    policy of include/keel/nodemap.h: keep the lowest @maxn ids (of RAM
    lines and of the cpu lines the build holds) as keel nodes 0, 1, ... in
    id order; the rest go to the kept node nearest by distance[folded][kept], ties by
    distance[kept][folded] then lower keel id; with no usable distance, to
    the lowest kept keel id."""
    ids = {n for _s, _e, n in fw["ram"] if n is not None}
    ids |= {n for _h, n in fw["cpus"][:nr] if n is not None}
    ids = sorted(ids)
    tracked = ids[:NODEMAP_MAX_IDS]
    kept = tracked[:maxn]
    out = {f: i for i, f in enumerate(kept)}
    fallback = 0

    def rank(a, b):
        d = _fw_distance(fw, a, b)
        return d if 10 < d < 255 else None

    for f in ids[len(kept):]:
        best = None
        if f in tracked:
            for k in kept:
                d, r = rank(f, k), rank(k, f)
                if d is None:
                    continue
                key = (d, r if r is not None else 1 << 30, out[k])
                if best is None or key < best[0]:
                    best = (key, out[k])
        out[f] = best[1] if best else fallback
    return out, set(kept)


def _oracle_ram(fw, limit, mapped):
    """RAM lines trimmed inwards to pages and clamped below @limit (a range
    at or above it is dropped), cut into elementary pieces: ids are mapped
    first (fwdesc.c), then the lowest keel node claiming a piece keeps it
    (bootinfo_sanitise()). Return: (pieces, merged RAM)."""
    ram = []
    for s, e, n in fw["ram"]:
        e = min(e, limit)
        s2, e2 = -(-s // PAGE) * PAGE, e // PAGE * PAGE
        if s2 < e2:
            ram.append((s2, e2, 0 if n is None else n))
    points = sorted({p for s, e, _n in ram for p in (s, e)})
    pieces = []
    for s, e in zip(points, points[1:]):
        claim = {n for rs, re_, n in ram if rs <= s and re_ >= e}
        if not claim:
            continue
        ok = {min(mapped(n) for n in claim)}
        if pieces and pieces[-1][1] == s and pieces[-1][2:] == (ok, claim):
            pieces[-1] = (pieces[-1][0], e, ok, claim)
        else:
            pieces.append((s, e, ok, claim))
    return pieces, merge((p[0], p[1]) for p in pieces)


def _oracle_tight(ram_m, free, ncpus):
    """Do the boot's own allocations (section table, one frame table window
    per 128 MiB section, a stack per secondary CPU; each one contiguous and
    page aligned) not fit in the free RAM, packed first-fit decreasing?
    Only such a map may panic for lack of memory."""
    items = []
    if ram_m:
        max_pfn = ram_m[-1][1] // PAGE
        items.append(-(-max_pfn // SECTION_PAGES) * 16)
        windows = {}
        for s, e in ram_m:
            for sec in range(s // PAGE // SECTION_PAGES,
                             (e // PAGE - 1) // SECTION_PAGES + 1):
                lo = max(s // PAGE, sec * SECTION_PAGES)
                hi = min(e // PAGE, (sec + 1) * SECTION_PAGES)
                w = windows.get(sec)
                windows[sec] = (min(lo, w[0]), max(hi, w[1])) if w \
                    else (lo, hi)
        items += [(hi - lo) * PAGE_INFO_BYTES for lo, hi in windows.values()]
        items += [SMP_STACK] * (ncpus - 1)
    bins = sorted((e - s for s, e in free), reverse=True)
    for size in sorted((-(-i // PAGE) * PAGE for i in items), reverse=True):
        for k, room in enumerate(bins):
            if room >= size:
                bins[k] -= size
                break
        else:
            return True
    return False


def _oracle_dead(cmdline, ncpus):
    """Logical CPUs that inject=ap-timeout:N keeps from checking in (N in
    1..ncpus-1; others are refused with a warning)."""
    dead = set()
    for w in cmdline:
        m = re.fullmatch(r"inject=ap-timeout:(\d+)", w)
        if m and 1 <= int(m.group(1)) < ncpus:
            dead.add(int(m.group(1)))
    return dead


def oracle(text, cfg):
    """What a correct keel must report for the map @text."""
    fw = parse_fw(text)
    maxn, nr = cfg["max_numnodes"], cfg["nr_cpus"]
    limit = 1 << cfg.get("paddr_bits", PADDR_BITS)
    cpus, seen = [], set()
    for hwid, n in fw["cpus"][:nr]:
        if hwid not in seen:
            seen.add(hwid)
            cpus.append((hwid, 0 if n is None else n))
    if not cpus:
        cpus = [(0, 0)]  # sanitise assumes one boot CPU, hwid 0, node 0
    nmap, kept = node_map(fw, maxn, nr)
    folds = {f: {n} for f, n in nmap.items() if f not in kept}

    def mapped(n):
        return nmap.get(n, 0)

    def accept(n):
        return {mapped(n)}

    pieces, ram_m = _oracle_ram(fw, limit, mapped)
    rsv = []
    for s, e, _name in fw["reserved"]:
        s2 = s // PAGE * PAGE
        e2 = min(-(-e // PAGE) * PAGE, (1 << 64) - PAGE)
        if s2 < e2:
            rsv.append((s2, e2))
    rsv_m = merge(rsv)
    # The canary's pages: reserved x raw RAM lines (trimmed), below the
    # arena's top (arch/sandbox/main.c: lines starting below the limit).
    top = max((min(e, limit) for s, e, _n in fw["ram"] if s < limit),
              default=0)
    raw_ram = merge((-(-s // PAGE) * PAGE, min(e // PAGE * PAGE, top))
                    for s, e, _n in fw["ram"])
    free = subtract(ram_m, rsv_m)
    return {"fw": fw, "pieces": pieces, "ram": ram_m, "reserved": rsv_m,
            "free_bytes": total(free), "free": free,
            "must_reserve": intersect(ram_m, rsv_m),
            "canary_pages": total(intersect(raw_ram, rsv_m)) // PAGE,
            "no_ram": not ram_m, "tight": _oracle_tight(ram_m, free,
                                                         len(cpus)),
            "cpus": cpus, "dead": _oracle_dead(fw["cmdline"], len(cpus)),
            "folds": folds, "kept": kept, "accept": accept,
            "dropped_ram_expected": len(fw["ram"]) > 256}


# ---- the checks ----------------------------------------------------------

def _fmt(ranges, n=3):
    txt = ", ".join(f"[{s:#x}, {e:#x})" for s, e in ranges[:n])
    return txt + (f" (+{len(ranges) - n} more)" if len(ranges) > n else "")


def check_reserved(o, rep, out):
    """Invariant 2 from the report: firmware-reserved RAM stays reserved."""
    regions = rep["memmap"].get("reserved", [])
    rep_rsv = merge((r[0], r[1]) for r in regions)
    rep_ram = merge((r[0], r[1]) for r in rep["memmap"]["ranges"])
    must = intersect(o["must_reserve"], rep_ram)
    missing = subtract(must, rep_rsv)
    if missing:
        out.append(f"firmware-reserved RAM not reserved in the report "
                   f"({total(missing) // PAGE} pages): {_fmt(missing)}")
    allocs = merge((r[0], r[1]) for r in regions if r[2] in ALLOC_NAMES)
    stolen = intersect(must, allocs)
    if stolen:
        out.append(f"firmware-reserved RAM handed to a bootmem allocation "
                   f"({total(stolen) // PAGE} pages): {_fmt(stolen)}")
    outside = subtract(rep_rsv, rep_ram)
    if outside:
        out.append(f"memmap.reserved outside RAM: {_fmt(outside)}")
    if total(rep_rsv) != rep["memmap"]["reserved_bytes"]:
        out.append(f"memmap.reserved covers {total(rep_rsv)} bytes, "
                   f"reserved_bytes says {rep['memmap']['reserved_bytes']}")
    if total(rep_rsv) != rep["audit"]["reserved_pages"] * PAGE:
        out.append(f"memmap.reserved covers {total(rep_rsv) // PAGE} pages, "
                   f"audit.reserved_pages {rep['audit']['reserved_pages']}")


def _check_ram_nodes(o, rep, out):
    """Invariant 4: RAM as the firmware described it, on its nodes."""
    ranges = sorted((r[0], r[1], r[2]) for r in rep["memmap"]["ranges"])
    rep_ram = merge((s, e) for s, e, _n in ranges)
    extra = subtract(rep_ram, o["ram"])
    if extra:
        out.append(f"report has RAM the firmware did not describe: "
                   f"{_fmt(extra)}")
    lost = subtract(o["ram"], rep_ram)
    if lost and not rep.get("dropped_ram") and not o["dropped_ram_expected"]:
        out.append(f"firmware RAM missing from the report "
                   f"({total(lost) // PAGE} pages, dropped_ram 0): "
                   f"{_fmt(lost)}")
    wrong = []
    for s, e, ok, claim in o["pieces"]:
        for rs, re_, n in ranges:
            if re_ <= s or rs >= e:
                continue
            if n not in ok:
                wrong.append((max(s, rs), min(e, re_), n, ok, claim))
    for s, e, n, ok, claim in wrong[:3]:
        said = "/".join(map(str, sorted(claim)))
        want = "/".join(map(str, sorted(ok)))
        out.append(f"RAM [{s:#x}, {e:#x}) on node {n}, firmware says "
                   f"{said}" + ("" if said == want else f" (fold: {want})"))
    if len(wrong) > 3:
        out.append(f"RAM [...]: {len(wrong) - 3} more pieces on a wrong "
                   "node")


def _check_node_table(rep, cfg, out):
    """Nodes 0..n-1, a valid distance matrix, mem_bytes = their RAM."""
    ranges = sorted((r[0], r[1], r[2]) for r in rep["memmap"]["ranges"])
    maxn = cfg["max_numnodes"]
    nodes = rep["nodes"]
    ids = [n["id"] for n in nodes]
    if ids != list(range(len(nodes))) or not 1 <= len(nodes) <= maxn:
        out.append(f"node ids {ids}: not 0..n-1 with 1 <= n <= {maxn}")
    for n in nodes:
        row = n["distance"]
        if len(row) != len(nodes):
            out.append(f"node {n['id']} distance row {row} has "
                       f"{len(row)} entries for {len(nodes)} nodes")
            continue
        for j, d in enumerate(row):
            if (j == n["id"] and d != 10) or (j != n["id"] and d <= 10):
                out.append(f"distance[{n['id']}][{j}] = {d}")
    per_node = {}
    for s, e, n in ranges:
        per_node[n] = per_node.get(n, 0) + e - s
    for n in nodes:
        if n["mem_bytes"] != per_node.get(n["id"], 0):
            out.append(f"node {n['id']}: mem_bytes {n['mem_bytes']} != "
                       f"its memmap ranges {per_node.get(n['id'], 0)}")


def _check_cpus(o, rep, out, alone):
    """Invariant 5: CPUs in firmware order, deduplicated, on their nodes."""
    want = o["cpus"]
    got = rep["cpus"]
    if alone and len(got) == 1 and want:
        # common/smp.c: no free piece for every CPU's state (4 KiB a
        # CPU): the boot CPU alone. Only right when the firmware's largest
        # free range, less what the frame table may have taken, is short.
        largest = max((e - s for s, e in o["free"]), default=0)
        ft = rep["bootmem"].get("frametable_bytes", 0)
        if largest >= len(want) * PERCPU_STATE_BYTES + ft:
            out.append(f"the boot CPU ran alone, but a free range of "
                       f"{largest} bytes holds {len(want)} CPUs' state")
        want = want[:1]
    if [c["hwid"] for c in got] != [h for h, _n in want] and \
            sorted(c["hwid"] for c in got) != sorted(h for h, _n in want):
        out.append(f"cpu hwids {[c['hwid'] for c in got][:8]}..., "
                   f"firmware {[h for h, _n in want][:8]}...")
    elif want and got and got[0]["hwid"] != want[0][0]:
        out.append(f"cpu 0 is hwid {got[0]['hwid']}, the first cpu line "
                   f"says {want[0][0]}")
    wnode = dict(want)
    for c in got:
        if c["hwid"] in wnode and c["node"] not in o["accept"](
                wnode[c["hwid"]]):
            out.append(f"cpu hwid {c['hwid']} on node {c['node']}, "
                       f"firmware says {wnode[c['hwid']]}")
    n_lines, kept = len(o["fw"]["cpus"]), len(o["cpus"])
    if n_lines and rep.get("dropped_cpus", 0) != n_lines - kept:
        out.append(f"dropped_cpus {rep.get('dropped_cpus')}, expected "
                   f"{n_lines - kept} ({n_lines} cpu lines, "
                   f"{kept} kept)")


def check_nodes(o, rep, cfg, out, alone=False):
    """Invariants 4 and 5: RAM and CPUs on the firmware's nodes."""
    _check_ram_nodes(o, rep, out)
    _check_node_table(rep, cfg, out)
    _check_cpus(o, rep, out, alone)


def _check_canary(o, log, out):
    """Invariant 2 from the canary line. Return: pages clobbered."""
    m = re.search(r"sandbox: canary: (\d+) reserved pages intact, (\d+) "
                  r"clobbered", log)
    if not m:
        out.append("no canary line (KEEL_SANDBOX_CANARY=1 not honoured?)")
        return 0
    intact, clobbered = int(m.group(1)), int(m.group(2))
    if clobbered:
        pages = re.findall(r"canary: reserved page (0x[0-9a-f]+)", log)
        out.append(f"canary: {clobbered} firmware-reserved pages "
                   f"clobbered (first {', '.join(pages)})")
    elif intact != o["canary_pages"] and "(capped)" not in m.group(0):
        out.append(f"canary: {intact} pages checked, the map has "
                   f"{o['canary_pages']}")
    return clobbered


def check_dead(o, rep, out):
    """inject=ap-timeout:N: CPU N is reported offline, with a reason."""
    cpus = rep["cpus"]
    for k in sorted(o["dead"]):
        if k >= len(cpus):
            out.append(f"cpu {k} (inject=ap-timeout) missing from cpus[]")
        elif cpus[k]["online"] or not cpus[k].get("fail_reason"):
            out.append(f"cpu {k} (inject=ap-timeout) online "
                       f"{cpus[k]['online']}, fail_reason "
                       f"{cpus[k].get('fail_reason')!r}")


def _check_report(o, rep, log, verdict, reason, cfg):
    """Invariants 2-5 from the report of a boot that did not panic."""
    out = []
    if verdict == "FAIL" and "no usable RAM" in reason and not o["no_ram"]:
        # Only right when keel's own allocations (or RAM left out for
        # want of frame table room) took every free byte.
        bm = rep.get("bootmem", {})
        used = bm.get("allocated_bytes", 0) + \
            bm.get("frametable_left_out_bytes", 0)
        if rep["heap"]["total_pages"] or o["free_bytes"] > used:
            out.append(f"KEEL: FAIL no usable RAM, but {o['free_bytes']} "
                       f"free bytes and only {used} used by keel")
        check_reserved(o, rep, out)
        return out
    if o["no_ram"]:
        if verdict != "FAIL" or "no usable RAM" not in reason:
            out.append(f"map without RAM ended KEEL: {verdict} {reason}, "
                       "expected FAIL no usable RAM")
        return out
    if verdict != "PASS":
        out.append(f"KEEL: FAIL {reason}")
    problems = report.check_parsed(rep, log, {"scrubbed": True}) \
        if verdict == "PASS" else []
    problems += report.check_audit_log(rep, log)
    out += [p for p in problems if "verdict is" not in p]
    if rep["audit"]["lost_pages"] and not any("lost_pages" in p
                                              for p in out):
        out.append(f"audit.lost_pages = {rep['audit']['lost_pages']}")
    check_reserved(o, rep, out)
    check_nodes(o, rep, cfg, out,
                alone="the boot CPU runs alone" in log)
    if "the boot CPU runs alone" not in log:
        check_dead(o, rep, out)
    return out


def check(text, log, rc, timed_out, cfg):
    """All invariants of one boot of the map @text. Return: problems."""
    o = oracle(text, cfg)
    out = []
    if timed_out:
        return ["hang: no exit before the timeout"]
    if rc < 0:
        out.append(f"crash: killed by signal {-rc}")
    verdicts = re.findall(r"^KEEL: (PASS|FAIL)(.*)$", log, re.M)
    panic = re.search(r"keel: panic: (.*)", log)
    if len(verdicts) != 1:
        out.append(f"{len(verdicts)} verdict lines (expected exactly one)")
        return out
    verdict, reason = verdicts[0][0], verdicts[0][1].strip()
    if verdict == "FAIL" and not reason:
        out.append("KEEL: FAIL without a reason")
    clobbered = _check_canary(o, log, out)
    # The canary turns any verdict into exit status 1 (counted above).
    want_rc = 0 if verdict == "PASS" and not clobbered else 1
    if rc >= 0 and rc != want_rc:
        out.append(f"exit status {rc} after KEEL: {verdict}")
    if panic:
        msg = panic.group(1)
        if o["tight"] and "cannot allocate" in msg:
            return out  # expected refusal: tight map, clear message
        out.append(f"panic: {msg}" + (" (map is tight)" if o["tight"]
                                       else ""))
        return out
    try:
        rep = report.find_report(log)
    except report.ReportError as e:
        out.append(str(e))
        return out
    return out + _check_report(o, rep, log, verdict, reason, cfg)


INVARIANTS = (
    ("hang", ("hang:",)),
    ("crash", ("crash:",)),
    ("canary", ("canary:",)),
    ("reserved", ("firmware-reserved RAM", "memmap.reserved")),
    ("audit", ("audit", "heap.", "scrub", "free +", "sum of",
               "lost_pages")),
    ("node", ("RAM [", "report has RAM", "firmware RAM missing", "node ",
              "distance")),
    ("cpu", ("cpu ", "dropped_cpus")),
    ("panic", ("panic:",)),
    ("verdict", ("verdict", "KEEL: FAIL", "exit status", "map without RAM",
                 "KEEL-REPORT")),
)


def invariant(problem):
    """The invariant a problem string belongs to (for the summary)."""
    for name, starts in INVARIANTS:
        if any(problem.startswith(s) or s in problem.split(":")[0]
               for s in starts):
            return name
    return "other"


# ---- running -------------------------------------------------------------

def run_map(keel, path, text, timeout):
    """Boot @path. Return: (log text, return code, timed out)."""
    # report=full: check_reserved needs every reserved region, not the
    # 64 rows keel prints by default.
    b = boot.sandbox(keel, path, parse_fw(text)["cmdline"] + ["report=full"],
                     timeout=timeout, env={"KEEL_SANDBOX_CANARY": "1"})
    return b.log, -9 if b.timed_out else b.status, b.timed_out


def _one(job):
    """Pool worker: generate (or read), boot, check one case."""
    keel, cfg, seed, index, path, timeout, tmp = job
    if path:
        with open(path, encoding="latin-1", newline="") as f:
            text = f.read()
        fw_path = path
    else:
        text = generate(seed, index, cfg)
        fw_path = os.path.join(tmp, f"case-{index}.fw")
        with open(fw_path, "w", encoding="latin-1", newline="") as f:
            f.write(text)
    log, rc, hung = run_map(keel, fw_path, text, timeout)
    problems = check(text, log, rc, hung, cfg)
    if not path:
        os.unlink(fw_path)
    return index, path, text, log, problems


def minimize(keel, path, cfg, timeout):
    """Drop lines of @path while the boot still fails the same invariants.

    Greedy: chunks of halving size, then single lines (comments and the
    cmdline line are kept). Return: the smallest failing text found.
    """
    with open(path, encoding="latin-1", newline="") as f:
        lines = f.read().split("\n")

    def failing(cand, tmp):
        text = "\n".join(cand) + "\n"
        fw = os.path.join(tmp, "min.fw")
        with open(fw, "w", encoding="latin-1", newline="") as f:
            f.write(text)
        log, rc, hung = run_map(keel, fw, text, timeout)
        return {invariant(p) for p in check(text, log, rc, hung, cfg)}

    with tempfile.TemporaryDirectory(prefix="keel-fuzz-maps-") as tmp:
        want = failing(lines, tmp)
        if not want:
            return None
        chunk = max(1, len(lines) // 2)
        while True:
            i = 0
            while i < len(lines):
                cand = lines[:i] + [ln for ln in lines[i:i + chunk]
                                    if ln.startswith("#")] + \
                    lines[i + chunk:]
                if len(cand) < len(lines) and \
                        want <= failing(cand, tmp):
                    lines = cand
                else:
                    i += chunk
            if chunk == 1:
                break
            chunk = max(1, chunk // 2)
    return "\n".join(lines) + "\n"


def _args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keel", default=os.path.join(TOP, "build", "sandbox",
                                                   "keel"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=SMOKE_CASES)
    ap.add_argument("--first", type=int, default=0,
                    help="index of the first case (default 0)")
    ap.add_argument("--case", type=int, help="only this case of --seed")
    ap.add_argument("--print", action="store_true",
                    help="print the .fw text of --case and exit")
    ap.add_argument("--replay", nargs="+", metavar="FILE",
                    help="check these .fw files instead of generating")
    ap.add_argument("--minimize", metavar="FILE",
                    help="print the smallest map, by dropping lines, that "
                    "still fails the invariants FILE fails")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=90.0,
                    help="seconds before a boot counts as a hang")
    ap.add_argument("--keep-failures", metavar="DIR",
                    help="write each failing case's .fw and .log here")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="print every problem of a failed case")
    return ap.parse_args(argv)


def _report_failure(args, index, path, text, log, problems):
    """One line for a failed case; its .fw and .log kept when asked."""
    where = path or f"seed {args.seed} case {index}"
    if args.keep_failures and not path:
        os.makedirs(args.keep_failures, exist_ok=True)
        base = os.path.join(args.keep_failures,
                            f"seed{args.seed}-case{index}")
        with open(base + ".fw", "w", encoding="latin-1", newline="") as f:
            f.write(text)
        with open(base + ".log", "w") as f:
            f.write(log)
        where += f" ({base}.fw)"
    shown = problems if args.verbose else problems[:2]
    more = len(problems) - len(shown)
    print(f"fuzz-maps: FAIL {where}: " + "; ".join(shown) +
          (f"; +{more} more" if more else ""))


def _run_all(args, cfg):
    """Boot and check every case. Return: (passed, failed, tally)."""
    passed = failed = 0
    tally = {}
    with tempfile.TemporaryDirectory(prefix="keel-fuzz-maps-") as tmp:
        if args.replay:
            jobs = [(args.keel, cfg, args.seed, i, p, args.timeout, tmp)
                    for i, p in enumerate(args.replay)]
        else:
            idx = [args.case] if args.case is not None else \
                range(args.first, args.first + args.count)
            jobs = [(args.keel, cfg, args.seed, i, None, args.timeout, tmp)
                    for i in idx]
        with multiprocessing.Pool(max(1, args.jobs)) as pool:
            for index, path, text, log, problems in \
                    pool.imap_unordered(_one, jobs):
                if not problems:
                    passed += 1
                    continue
                failed += 1
                for name in {invariant(p) for p in problems}:
                    tally[name] = tally.get(name, 0) + 1
                _report_failure(args, index, path, text, log, problems)
    return passed, failed, tally


def main(argv=None):
    args = _args(argv)
    cfg = build_config(args.keel)
    if args.print:
        sys.stdout.buffer.write(generate(args.seed, args.case or 0,
                                         cfg).encode("latin-1"))
        return 0
    if not os.access(args.keel, os.X_OK):
        print(f"fuzz-maps: {args.keel} is not built (make ARCH=sandbox)")
        return 2
    if args.minimize:
        text = minimize(args.keel, args.minimize, cfg, args.timeout)
        if text is None:
            print(f"fuzz-maps: {args.minimize} does not fail")
            return 1
        sys.stdout.buffer.write(text.encode("latin-1"))
        return 0
    passed, failed, tally = _run_all(args, cfg)
    if tally:
        print("fuzz-maps: failed cases by invariant: " + ", ".join(
            f"{k} {v}" for k, v in sorted(tally.items(),
                                          key=lambda kv: -kv[1])))
    print(f"fuzz-maps: {passed} passed, {failed} failed"
          + ("" if args.replay else f" (seed {args.seed})"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
