#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""x86_64 QEMU benchmarks (DESIGN section 9), printed as a markdown table.

Usage: bench-qemu.py KEEL_ELF [--scrub-mem SIZE] [--runs N] [--work DIR]
                     [--max-seconds S] [--timeout S]

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

One QEMU at a time, each under a timeout (scripts/qemu.sh --timeout).
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
EXIT_PASS = 33
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
    if proc.returncode != EXIT_PASS:
        return None, secs, f"QEMU exit status {proc.returncode}"
    try:
        rep = report.find_report(text)
    except report.ReportError as e:
        return None, secs, str(e)
    return rep, secs, None


def bench_scrub(elf, mem, runs, timeout):
    print(f"### Boot scrub (QEMU TCG, pc, {mem} RAM preallocated, one "
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
    print("### Heap handoff (QEMU TCG, pc, one node, sparse file-backed "
          "RAM, bootscrub=off, heap.init_ns)\n")
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
            rep, secs, err = boot(
                elf, ["--numa", f"1x{label}", "--file-backed", workdir],
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("elf")
    ap.add_argument("--scrub-mem", default="2G")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--work", default=os.path.join(TOP, "build",
                                                   "bench-qemu"))
    ap.add_argument("--max-seconds", type=float, default=20.0)
    ap.add_argument("--timeout", type=int, default=600)
    args = ap.parse_args()
    load = os.getloadavg()[0]
    print(f"host: {os.cpu_count()} CPUs, load average at start {load:.1f}; "
          f"kernel {os.path.relpath(args.elf, TOP)}; QEMU TCG (one QEMU at "
          "a time)\n")
    bench_scrub(args.elf, args.scrub_mem, args.runs, args.timeout)
    bench_handoff(args.elf, args.work, args.timeout, args.max_seconds)
    try:
        os.rmdir(args.work)
    except OSError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
