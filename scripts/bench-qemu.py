#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""x86_64 and arm64 QEMU benchmarks (DESIGN section 9), markdown and JSON.

Usage: bench-qemu.py KERNEL [--arch x86_64|arm64] [--quick] [--md FILE]
                     [--json FILE] [--scrub-mem SIZE] [--runs N]
                     [--work DIR] [--max-seconds S] [--timeout S]
                     [--bench-mem SIZE] [--skip scrub,handoff,alloc]

KERNEL is build/x86_64/keel.elf (--arch x86_64, the default, machine pc
through scripts/qemu.sh) or build/arm64/Image (--arch arm64, machine virt
with -cpu max through scripts/qemu-arm64.sh; RAM starts at 1 GiB there).

1. Boot scrub on emulated cores: bootscrub=on with -smp 1, 2 and 4 on one
   node and with -smp 2 and 4 on two nodes, the same RAM size in all
   (default 2 GiB): scrub.ns, GB/s (scrub.bytes / scrub.ns), per node and
   per worker GB/s and the speed-up against the one-worker boot of the
   same run. There is no guest-side baseline program: the one-worker boot
   is the single-thread streaming-store loop (movnti / dc zva, the
   primitive arch_scrub_init() picked), so per-worker rates are compared
   with it. Guest RAM is preallocated (-mem-prealloc) so that host page
   faults on first touch are not measured as scrub time; best of --runs.
2. Heap handoff (heap.init_ns) per heap_init mode at 1, 16, 64, 256 GiB
   and 1 TiB of guest RAM, bootscrub=off, one node backed by a sparse file
   under --work (only what keel touches costs host memory or disk; the
   file is deleted after each boot); best of --handoff-runs boots per
   cell, one boot where a boot takes longer than --repeat-below seconds. chunked and pagewise are skipped
   where their page_info writes would exceed --max-ft-bytes of the file
   (1 TiB: 8 GiB of disk) or where the previous size took longer than
   --max-seconds. x86_64 above 512 GiB needs -cpu max,phys-bits=42 (QEMU's
   TCG default of 40 bits ends at 1 TiB and the pc machine puts RAM above
   4 GiB).
3. Allocation latency: bench=on (audit=full) on 2 nodes of --bench-mem
   each (default 2560M: each node keeps a free aligned GiB, so order 18
   is measured), -smp 2; the rows and the order-18 lock hold, deferred (on
   x86_64: clflush, by range outside the lock) against eager.

One QEMU at a time, each under a timeout (the scripts' --timeout).
Every number printed is measured by this run; nothing is copied.
"""

import os
import sys

from keel import boot, report
from keel.bench import (PAGE_INFO_BYTES, alloc_markdown, alloc_rows, fmt_ns,
                        host_info, parse, parser, scrub_markdown, scrub_row,
                        write_outputs)
from keel.boot import TOP
from keel.report import HEAP_MODES

EXIT_PASS = 33
ARCH = "x86_64"   # set by main()
MACHINE = {"x86_64": "pc, -cpu max", "arm64": "virt, -cpu max"}
GIB = 1 << 30
HANDOFF_SIZES = [("1G", 1), ("16G", 16), ("64G", 64), ("256G", 256),
                 ("1T", 1024)]


def run(elf, qemu_args, cmdline, timeout, memdir=None, extra=()):
    """One boot. Return: (report or None, wall seconds, problem, log)."""
    if ARCH == "arm64":
        # PSCI SYSTEM_OFF: QEMU exits 0, the verdict is in the log.
        cmd = boot.arm64_cmd(elf, qemu_args, "after=poweroff " + cmdline,
                             timeout, extra)
    else:
        cmd = boot.x86_64_cmd(["--kernel", elf] + qemu_args,
                              "after=exit " + cmdline, timeout, extra)
    try:
        b = boot.qemu(cmd, timeout)
    finally:
        if memdir:
            for f in os.listdir(memdir):
                if f.startswith("keel-node"):
                    os.unlink(os.path.join(memdir, f))
    failures = b.problems(0 if ARCH == "arm64" else EXIT_PASS, {})
    if failures:
        return None, b.elapsed, failures[0], b.log
    return b.report, b.elapsed, None, b.log


def mem_args(nodes, mem):
    """QEMU script arguments for @nodes equal nodes of @mem in all."""
    if nodes == 1:
        return ["--mem", mem]
    mib = report.parse_size(mem) >> 20
    if ARCH == "arm64":
        return ["--numa", str(nodes), "--mem", f"{mib}M"]
    return ["--numa", f"{nodes}x{mib // nodes}M"]


def bench_scrub(elf, args, out):
    mem, runs = args.scrub_mem, args.runs
    out.append(f"### Boot scrub (QEMU TCG, {ARCH} {MACHINE[ARCH]}, {mem} "
               "RAM in all, preallocated, bootscrub=on, best of "
               f"{runs})\n")
    out.append("The baseline is the `-smp 1` boot of the same run (one "
               "worker running the streaming-store primitive alone).\n")
    rows = []
    configs = [(1, 1), (1, 2), (1, 4), (2, 2), (2, 4)]
    for nodes, n in configs:
        best, err, times = None, None, []
        for _ in range(runs):
            rep, _, err, _ = run(elf, ["--smp", str(n)] +
                                 mem_args(nodes, mem), "bootscrub=on",
                                 args.timeout, extra=["-mem-prealloc"])
            if err:
                break
            times.append(rep["scrub"]["ns"])
            if best is None or rep["scrub"]["ns"] < best["scrub"]["ns"]:
                best = rep
        if best is None:
            rows.append({"nodes": nodes, "cpus": n, "error": err})
        else:
            rows.append(scrub_row(best, nodes, n, times))
        sys.stderr.write(f"bench: {ARCH} scrub {nodes} node(s) -smp {n} "
                         f"{'failed: ' + err if best is None else 'done'}"
                         "\n")
    ref = next((r["per_worker_gbps"] for r in rows
                if r.get("workers") == 1), None)
    scrub_markdown(rows, ref, "1 worker", out)
    return {"baseline_gbps": ref, "mem": mem,
            "baseline_name": "the -smp 1 boot of the same run",
            "rows": rows}


def handoff_boots(elf, args, gib, mode, row):
    """Boot @gib GiB in heap_init=@mode: best of --handoff-runs, but boots
    that take longer than --repeat-below seconds only once (the host is
    shared). Return: (best ns or None, every ns, last report, its
    seconds, error)."""
    workdir = args.work
    where = (["--mem", f"{gib}G"] if ARCH == "arm64" else
             ["--numa", f"1x{gib}G"])
    extra = ()
    if ARCH == "x86_64" and gib > 512:
        extra = ("-cpu", "max,phys-bits=42")
        row["qemu_extra"] = " ".join(extra)
    ns, runs = None, []
    rep = secs = err = None
    for _ in range(args.handoff_runs):
        rep, secs, err, _ = run(
            elf, where + ["--file-backed", workdir],
            f"bootscrub=off heap_init={mode}", args.timeout,
            workdir, extra)
        if err:
            break
        runs.append(rep["heap"]["init_ns"])
        ns = min(runs)
        if secs > args.repeat_below:
            break
    return ns, runs, rep, secs, err


def bench_handoff(elf, args, out):
    workdir = args.work
    sizes = HANDOFF_SIZES[:2] if args.quick else HANDOFF_SIZES
    out.append(f"### Heap handoff (QEMU TCG, {ARCH} {MACHINE[ARCH]}, one "
               "node, sparse file-backed RAM, bootscrub=off, "
               "heap.init_ns, best of "
               f"{args.handoff_runs} boots, one boot where a boot took over "
               f"{args.repeat_below:g} s)\n")
    out.append("| RAM | " + " | ".join(HEAP_MODES) + " | chunks (lazy) | "
               "lazy per chunk |")
    out.append("|---|" + "---|" * (len(HEAP_MODES) + 2))
    os.makedirs(workdir, exist_ok=True)
    slow = set()
    results = []
    for label, gib in sizes:
        cells, chunks, per = [], "", ""
        for mode in HEAP_MODES:
            row = {"ram": label, "ram_bytes": gib * GIB, "nodes": 1,
                   "mode": mode, "init_ns": None, "chunks": None}
            results.append(row)
            ft = gib * GIB // 4096 * PAGE_INFO_BYTES
            if mode != "lazy" and ft > args.max_ft_bytes:
                cells.append(f"skipped (would write {ft >> 30} GiB of "
                             "page_info)")
                row["skipped"] = cells[-1]
                continue
            if mode in slow:
                cells.append("skipped (previous size over "
                             f"{args.max_seconds:g} s)")
                row["skipped"] = cells[-1]
                continue
            ns, runs, rep, secs, err = handoff_boots(elf, args, gib, mode,
                                                     row)
            if ns is None:
                cells.append(err)
                row["error"] = err
                slow.add(mode)
                continue
            row["init_ns"] = ns
            row["runs_ns"] = runs
            row["chunks"] = rep["heap"]["chunks"]
            row["wall_s"] = round(secs, 2)
            cells.append(fmt_ns(ns))
            if mode == "lazy":
                chunks = str(rep["heap"]["chunks"])
                per = fmt_ns(ns / rep["heap"]["chunks"])
            if ns / 1e9 > args.max_seconds:
                slow.add(mode)
        out.append(f"| {label} | " + " | ".join(cells) +
                   f" | {chunks} | {per} |")
        sys.stderr.write(f"bench: {ARCH} handoff {label} done\n")
    out.append("")
    return results


def bench_alloc(elf, args, out):
    node_mem = args.bench_mem
    mib = report.parse_size(node_mem) >> 20
    out.append(f"### Allocation latency (QEMU TCG, {ARCH} "
               f"{MACHINE[ARCH]}, -smp 2, 2 nodes x {node_mem}, "
               "audit=full bench=on)\n")
    if ARCH == "arm64":
        where = ["--numa", "2", "--mem", f"{2 * mib}M"]
    else:
        where = ["--numa", f"2x{mib}M"]
    rep, secs, err, log = run(elf, ["--smp", "2"] + where,
                              "audit=full bench=on", args.timeout)
    if err:
        out.append(f"failed: {err}\n")
        return {"error": err}
    out.append(f"KEEL: PASS, cachemaint {rep['cachemaint']['mode']}, "
               f"audit.lost_pages {rep['audit']['lost_pages']}, "
               f"audit.problems {rep['audit']['problems']}, "
               f"{secs:.0f} s wall\n")
    rows = alloc_rows(rep, log)
    alloc_markdown(rows, out)
    return {"config": f"-smp 2, 2 nodes x {node_mem}, audit=full bench=on",
            "cachemaint": rep["cachemaint"]["mode"],
            "lost_pages": rep["audit"]["lost_pages"], "rows": rows}


def main():
    global ARCH
    ap = parser(__doc__)
    ap.add_argument("elf")
    ap.add_argument("--arch", choices=("x86_64", "arm64"), default="x86_64")
    ap.add_argument("--bench-mem", default="2560M",
                    help="bench=on: memory per node (2 nodes)")
    ap.add_argument("--skip", default="",
                    help="comma list of parts to skip: scrub,handoff,alloc")
    ap.add_argument("--scrub-mem", default=None,
                    help="scrubbed guest RAM (default 2G, --quick 1G)")
    ap.add_argument("--handoff-runs", type=int, default=None,
                    help="handoff boots per cell (default 3, --quick 1)")
    ap.add_argument("--repeat-below", type=float, default=10.0,
                    help="repeat only handoff boots shorter than this (s)")
    ap.add_argument("--work", default=os.path.join(TOP, "build",
                                                   "bench-qemu"))
    ap.add_argument("--max-seconds", type=float, default=60.0)
    ap.add_argument("--max-ft-bytes", type=int, default=4 << 30,
                    help="skip chunked/pagewise above this much page_info")
    args = parse(ap)  # --runs: scrub boots per row
    ARCH = args.arch
    if args.handoff_runs is None:
        args.handoff_runs = 1 if args.quick else 3
    if args.scrub_mem is None:
        args.scrub_mem = "1G" if args.quick else "2G"
    skip = set(args.skip.split(",")) - {""}
    host = host_info()
    out = [f"## QEMU {ARCH} benchmark", "",
           f"host: {host['cpu_model']}, {host['cpus']} CPUs, load average "
           f"at start {host['load_start']:.1f}; kernel "
           f"{os.path.relpath(args.elf, TOP)}; {host['qemu'].get(ARCH)}, "
           f"TCG (one QEMU at a time)" + ("; --quick" if args.quick else ""),
           ""]
    results = {"platform": f"qemu-{ARCH}", "host": host,
               "quick": args.quick,
               "command": "scripts/bench-qemu.py " + " ".join(sys.argv[1:]),
               "handoff": [], "scrub": None, "alloc": None}
    if "scrub" not in skip:
        results["scrub"] = bench_scrub(args.elf, args, out)
    if "handoff" not in skip:
        results["handoff"] = bench_handoff(args.elf, args, out)
    if "alloc" not in skip:
        results["alloc"] = bench_alloc(args.elf, args, out)
    try:
        os.rmdir(args.work)
    except OSError:
        pass
    results["load_end"] = round(os.getloadavg()[0], 2)
    out.append(f"Load average at the end: {results['load_end']:.1f}.")
    write_outputs(args, out, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
