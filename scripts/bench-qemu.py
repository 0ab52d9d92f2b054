#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""x86_64 and arm64 QEMU benchmarks (DESIGN section 9), as markdown tables.

Usage: bench-qemu.py KERNEL [--arch x86_64|arm64] [--scrub-mem SIZE]
                     [--runs N] [--work DIR] [--max-seconds S] [--timeout S]
                     [--bench-mem SIZE]

KERNEL is build/x86_64/keel.elf (--arch x86_64, the default, machine pc
through scripts/qemu.sh) or build/arm64/Image (--arch arm64, machine virt
with -cpu max through scripts/qemu-arm64.sh; RAM starts at 1 GiB there).

1. Boot scrub on real (emulated) cores: bootscrub=on with -smp 1, 2 and 4
   on the same RAM size (default 2 GiB, one node): scrub.ns, GB/s
   (scrub.bytes / scrub.ns), per-worker GB/s and the speed-up against the
   one-worker boot of the same run. Guest RAM is preallocated
   (-mem-prealloc) so that host page faults on first touch are not
   measured as scrub time; best of --runs boots per row.
2. Heap handoff (heap.init_ns) per heap_init mode at 1, 16 and 256 GiB of
   guest RAM, bootscrub=off, one node backed by a sparse file under --work
   (only what keel touches costs host memory or disk; the file is deleted
   after each boot). A mode is skipped at a size when the previous size
   took longer than --max-seconds (the next one is 16x larger).

3. arm64 only: allocation latency (bench=on, cachemaint deferred, the
   arm64 default) on 2 nodes of --bench-mem each (default 2560M: each node
   keeps a free aligned GiB, so order 18 is measured); the bench rows and
   the order-18 lock hold, eager against deferred.

One QEMU at a time, each under a timeout (the scripts' --timeout).
Every number printed is measured by this run; nothing is copied.
"""

import argparse
import os
import subprocess
import sys
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(TOP, "scripts"))
import report  # noqa: E402

QEMU_SH = os.path.join(TOP, "scripts", "qemu.sh")
QEMU_ARM64_SH = os.path.join(TOP, "scripts", "qemu-arm64.sh")
EXIT_PASS = 33
ARCH = "x86_64"   # set by main()
MACHINE = {"x86_64": "pc", "arm64": "virt, -cpu max"}
GIB = 1 << 30
HANDOFF_SIZES = [("1G", 1), ("16G", 16), ("256G", 256)]
MODES = ["lazy", "chunked", "pagewise"]


def fmt_ns(ns):
    if ns >= 1e9:
        return f"{ns / 1e9:.2f} s"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e3:.1f} us"


def boot(elf, qemu_args, cmdline, timeout, memdir=None, extra=()):
    """One boot. Return: (report dict or None, wall seconds, problem)."""
    if ARCH == "arm64":
        # PSCI SYSTEM_OFF: QEMU exits 0, the verdict is in the log.
        args = [QEMU_ARM64_SH, "--image", elf] + qemu_args + [
            "--append", "after=poweroff " + cmdline,
            "--timeout", str(timeout)]
    else:
        args = [QEMU_SH, "x86_64", "--kernel", elf] + qemu_args + [
            "--append", "after=exit " + cmdline, "--timeout", str(timeout)]
    if extra:
        args += ["--"] + list(extra)
    t0 = time.monotonic()
    try:
        proc = subprocess.run(args, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL)
    finally:
        if memdir:
            for f in os.listdir(memdir):
                if f.startswith("keel-node"):
                    os.unlink(os.path.join(memdir, f))
    secs = time.monotonic() - t0
    text = proc.stdout.decode("utf-8", "replace")
    if proc.returncode == 124:
        return None, secs, f"timeout after {timeout} s"
    if proc.returncode != (0 if ARCH == "arm64" else EXIT_PASS):
        return None, secs, f"QEMU exit status {proc.returncode}"
    if "KEEL: PASS" not in text:
        return None, secs, "no KEEL: PASS"
    try:
        rep = report.find_report(text)
    except report.ReportError as e:
        return None, secs, str(e)
    return rep, secs, None


def bench_scrub(elf, mem, runs, timeout):
    print(f"### Boot scrub (QEMU TCG, {ARCH} {MACHINE[ARCH]}, {mem} RAM "
          "preallocated, one "
          f"node, bootscrub=on, best of {runs})\n")
    print("| -smp | workers | primitive | scrubbed | scrub time | GB/s | "
          "per worker GB/s | speed-up vs 1 | all runs |")
    print("|---|---|---|---|---|---|---|---|---|")
    base = None
    for n in (1, 2, 4):
        best, err, times = None, None, []
        for _ in range(runs):
            rep, _, err = boot(elf, ["--smp", str(n), "--mem", mem],
                               "bootscrub=on", timeout,
                               extra=["-mem-prealloc"])
            if err:
                break
            times.append(rep["scrub"]["ns"])
            if best is None or rep["scrub"]["ns"] < best["scrub"]["ns"]:
                best = rep
        if err:
            print(f"| {n} | | | | {err} | | | | |")
            continue
        rep = best
        sc = rep["scrub"]
        gbps = sc["bytes"] / sc["ns"]
        per = [c["bytes"] / c["ns"] for c in sc["per_cpu"] if c["ns"]]
        if base is None and n == 1:
            base = sc["ns"]
        speed = f"{base / sc['ns']:.2f}x" if base else "n/a"
        print(f"| {n} | {sc['workers']} | {sc['primitive']} | "
              f"{sc['bytes'] >> 20} MiB | {fmt_ns(sc['ns'])} | "
              f"{gbps:.3f} | {sum(per) / len(per):.3f} | {speed} | "
              + ", ".join(fmt_ns(t) for t in times) + " |")
    print()


def bench_handoff(elf, workdir, timeout, max_seconds):
    print(f"### Heap handoff (QEMU TCG, {ARCH} {MACHINE[ARCH]}, one node, "
          "sparse file-backed RAM, bootscrub=off, heap.init_ns)\n")
    print("| RAM | " + " | ".join(MODES) + " | chunks (lazy) |")
    print("|---|" + "---|" * (len(MODES) + 1))
    os.makedirs(workdir, exist_ok=True)
    slow = set()
    for label, gib in HANDOFF_SIZES:
        cells, chunks = [], ""
        for mode in MODES:
            if mode in slow:
                cells.append("skipped (previous size over "
                             f"{max_seconds} s)")
                continue
            where = (["--mem", label] if ARCH == "arm64" else
                     ["--numa", f"1x{label}"])
            rep, secs, err = boot(
                elf, where + ["--file-backed", workdir],
                f"bootscrub=off heap_init={mode}", timeout, workdir)
            if err:
                cells.append(err)
                slow.add(mode)
                continue
            ns = rep["heap"]["init_ns"]
            cells.append(fmt_ns(ns))
            if mode == "lazy":
                chunks = str(rep["heap"]["chunks"])
            if ns / 1e9 > max_seconds:
                slow.add(mode)
        print(f"| {label} | " + " | ".join(cells) + f" | {chunks} |")
    print()


def bench_alloc(elf, node_mem, timeout):
    """arm64: bench=on on 2 nodes; the rows, then order 18 lock holds."""
    print(f"### Allocation latency (QEMU TCG, arm64 virt, -smp 2, 2 nodes "
          f"x {node_mem}, bench=on, cachemaint deferred)\n")
    mib = int(node_mem.rstrip("M")) if node_mem.endswith("M") else \
        int(node_mem.rstrip("G")) * 1024
    rep, secs, err = boot(elf, ["--smp", "2", "--numa", "2", "--mem",
                                f"{2 * mib}M"],
                          "audit=full bench=on", timeout)
    if err:
        print(f"failed: {err}\n")
        return
    print(f"KEEL: PASS, audit.lost_pages {rep['audit']['lost_pages']}, "
          f"audit.problems {rep['audit']['problems']}, "
          f"{secs:.0f} s wall\n")
    print("| order | node | mode | dirty | count | ns_avg | ns_max | "
          "lock_ns_max | maint_ns |")
    print("|---|---|---|---|---|---|---|---|---|")
    rows = rep["bench"]
    for r in sorted(rows, key=lambda r: (r["order"], r["node"], r["dirty"])):
        print(f"| {r['order']} | {r['node']} | {r['mode']} | "
              f"{'yes' if r['dirty'] else 'no'} | {r['count']} | "
              f"{r['ns_avg']} | {r['ns_max']} | {r['lock_ns_max']} | "
              f"{r['maint_ns']} |")
    print()
    print("Order 18, longest node-lock hold, eager divided by deferred:\n")
    print("| node | dirty | deferred lock_ns_max | eager lock_ns_max | "
          "eager / deferred |")
    print("|---|---|---|---|---|")
    big = {(r["node"], r["dirty"], r["mode"]): r for r in rows
           if r["order"] == 18}
    for (node, dirty, mode), r in sorted(big.items()):
        if mode != "deferred" or (node, dirty, "eager") not in big:
            continue
        e = big[(node, dirty, "eager")]["lock_ns_max"]
        d = r["lock_ns_max"]
        print(f"| {node} | {'yes' if dirty else 'no'} | {d} | {e} | "
              f"{e / d:.0f}x |")
    if not big:
        print("| (no order-18 rows: no free aligned GiB per node) | | | | |")
    print()


def main():
    global ARCH
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("elf")
    ap.add_argument("--arch", choices=("x86_64", "arm64"), default="x86_64")
    ap.add_argument("--bench-mem", default="2560M",
                    help="arm64 bench=on: memory per node (2 nodes)")
    ap.add_argument("--skip", default="",
                    help="comma list of parts to skip: scrub,handoff,alloc")
    ap.add_argument("--scrub-mem", default="2G")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--work", default=os.path.join(TOP, "build",
                                                   "bench-qemu"))
    ap.add_argument("--max-seconds", type=float, default=20.0)
    ap.add_argument("--timeout", type=int, default=600)
    args = ap.parse_args()
    ARCH = args.arch
    skip = set(args.skip.split(",")) - {""}
    load = os.getloadavg()[0]
    print(f"host: {os.cpu_count()} CPUs, load average at start {load:.1f}; "
          f"kernel {os.path.relpath(args.elf, TOP)}; QEMU TCG {ARCH} (one "
          "QEMU at a time)\n")
    if "scrub" not in skip:
        bench_scrub(args.elf, args.scrub_mem, args.runs, args.timeout)
    if "handoff" not in skip:
        bench_handoff(args.elf, args.work, args.timeout, args.max_seconds)
    if ARCH == "arm64" and "alloc" not in skip:
        bench_alloc(args.elf, args.bench_mem, args.timeout)
    try:
        os.rmdir(args.work)
    except OSError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
