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
     policy of include/keel/nodemap.h (node_map() in fuzzoracle.py: the
     lowest MAX_NUMNODES ids are kept, the others fold into the kept node
     nearest by distance); where RAM of two nodes overlaps the lower keel id keeps
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
check(text, log, rc, timed_out, config) -> list of problems. The parts:
fuzzfw.py (limits, the .fw parser), fuzzgen.py (the generator),
fuzzoracle.py (the oracle); this file keeps the checks and the runner.
"""

import argparse
import multiprocessing
import os
import re
import sys
import tempfile

from . import boot, report
from .boot import TOP
# The parts, and what users of this module call (generate, node_map, oracle).
from .fuzzfw import (ALLOC_NAMES, PADDR_BITS, PAGE, PERCPU_STATE_BYTES,
                     SMOKE_CASES, intersect, merge, parse_fw, subtract, total)
from .fuzzgen import generate
from .fuzzoracle import node_map, oracle

__all__ = ["build_config", "check", "generate", "invariant", "main",
           "minimize", "node_map", "oracle", "parse_fw", "run_map"]


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
    # audit.bad_pages: reserved in memmap, a class apart in the audit.
    audit_rsv = (rep["audit"]["reserved_pages"] +
                 rep["audit"].get("bad_pages", 0))
    if total(rep_rsv) != audit_rsv * PAGE:
        out.append(f"memmap.reserved covers {total(rep_rsv) // PAGE} pages, "
                   f"audit.reserved_pages + bad_pages {audit_rsv}")


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
        # common/smp/smp.c: no free piece for every CPU's state (4 KiB a
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


def largest_left(rep):
    """The largest piece of RAM no reserved range of the report holds."""
    mm = rep.get("memmap", {})
    rsv = sorted((r[0], r[1]) for r in mm.get("reserved", []))
    best = 0
    for s, e, *_ in mm.get("ranges", []):
        at = s
        for rs, re_ in rsv:
            if re_ <= at or rs >= e:
                continue
            best = max(best, rs - at)
            at = max(at, re_)
        best = max(best, e - at)
    return best


def _check_report(o, rep, log, verdict, reason, cfg):
    """Invariants 2-5 from the report of a boot that did not panic."""
    out = []
    if verdict == "FAIL" and "no usable RAM" in reason and not o["no_ram"]:
        # Only right when keel's own allocations (or RAM left out for
        # want of frame table room) took every free byte.
        bm = rep.get("bootmem", {})
        used = bm.get("allocated_bytes", 0) + \
            bm.get("frametable_left_out_bytes", 0)
        # Or when no piece left holds the heap's state for a node (the
        # error line names its bytes): 9 free pages, 7 taken; 200 KB in
        # pieces of 20 KB between 204 reserved ranges.
        m = re.search(r"no boot memory for node \d+'s state \((\d+) "
                      r"bytes\)", log)
        if m and largest_left(rep) < int(m.group(1)):
            used = o["free_bytes"]
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
