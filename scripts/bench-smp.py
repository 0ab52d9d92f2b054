#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""CPU bring-up benchmarks (issue 24), markdown and JSON.

Usage: bench-smp.py [--parts sandbox,x86_64,arm64] [--quick] [--runs N]
                    [--md FILE] [--json FILE] [--timeout S]

Every row is the best (smallest smp.bringup_ns) of --runs boots, each
with bootscrub=off and report=full:

1. sandbox (build/sandbox/keel): 512 and 2048 CPUs on 8 nodes, parallel
   start; target: 2048 CPUs in at most 5x the time of 512 (linear).
2. QEMU x86_64 (build/x86_64/keel.elf, pc, -cpu max) and arm64
   (build/arm64/Image, virt, GICv3, -cpu max): 64 vCPUs with
   smp_start=parallel and smp_start=serial; target: parallel
   smp.bringup_ns at most 15% of serial. Then the growth of the parallel
   start from 8 to 64 to 240 (x86_64) or 256 (arm64) vCPUs.

--quick: one boot per cell, no 2048-CPU sandbox boot and no 240/256-vCPU
boots. One boot at a time, each under --timeout. Every number printed is
measured by this run; nothing is copied.
"""

import os
import sys
import tempfile

from keel import boot
from keel.bench import (bringup_markdown, bringup_row, host_info, parse,
                        parser, write_outputs)
from keel.boot import TOP

EXIT_PASS = 33
CMDLINE = "bootscrub=off report=full"
KERNEL = {"x86_64": os.path.join(TOP, "build", "x86_64", "keel.elf"),
          "arm64": os.path.join(TOP, "build", "arm64", "Image")}
GROWTH = {"x86_64": (8, 64, 240), "arm64": (8, 64, 256)}


def write_fw(path, cpus, nodes=8):
    """A sandbox description: @cpus CPUs on @nodes nodes of 32 MiB."""
    lines = ["# bench-smp.py: bring-up benchmark machine"]
    for n in range(nodes):
        lines.append(f"ram {32 * n}M {32 * (n + 1)}M node={n}")
    for c in range(cpus):
        n = c * nodes // cpus
        lines.append(f"cpu {c} node={n} package={n} core={c} thread=0")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def qemu_boot(arch, cpus, mode, timeout):
    """One QEMU boot. Return: a Boot."""
    mem = "512M" if cpus <= 64 else "2G"
    append = f"{CMDLINE} smp_start={mode}"
    if arch == "arm64":
        cmd = boot.arm64_cmd(KERNEL[arch], ["--gic", "3", "--smp", str(cpus),
                                            "--mem", mem],
                             "after=poweroff " + append, timeout)
    else:
        cmd = boot.x86_64_cmd(["--kernel", KERNEL[arch], "--smp", str(cpus),
                               "--mem", mem], "after=exit " + append,
                              timeout)
    return boot.qemu(cmd, timeout)


def best_of(platform, cpus, mode, runs, one_boot, status):
    """The row of the fastest of @runs boots (or the first error)."""
    best = None
    for _ in range(runs):
        b = one_boot()
        problems = b.problems(status, {})
        if problems:
            return {"platform": platform, "cpus": cpus, "start": mode,
                    "error": problems[0][:60]}
        row = dict(bringup_row(b.report, b.elapsed), platform=platform)
        if best is None or row["bringup_ns"] < best["bringup_ns"]:
            best = row
    return best


def ratio(rows, what, num, den, target):
    """One target line: num / den against @target."""
    try:
        r = num["bringup_ns"] / den["bringup_ns"]
    except (KeyError, TypeError, ZeroDivisionError):
        return f"- {what}: not measured"
    verdict = "met" if r <= target else "NOT met"
    return f"- {what}: {r:.2f} (target <= {target}): {verdict}"


def bench_sandbox(args, out, rows):
    sizes = (512,) if args.quick else (512, 2048)
    got = {}
    with tempfile.TemporaryDirectory(prefix="keel-bench-smp-") as tmp:
        for n in sizes:
            fw = os.path.join(tmp, f"smp-{n}.fw")
            write_fw(fw, n)
            got[n] = best_of("sandbox", n, "parallel", args.runs,
                             lambda fw=fw: boot.sandbox(
                                 KERNEL["sandbox"], fw, CMDLINE.split(),
                                 timeout=args.timeout), 0)
            rows.append(got[n])
    out.append(ratio(rows, "sandbox 2048 / 512 CPUs", got.get(2048),
                     got.get(512), 5.0))


def bench_qemu(arch, args, out, rows):
    status = 0 if arch == "arm64" else EXIT_PASS
    par = best_of(f"qemu-{arch}", 64, "parallel", args.runs,
                  lambda: qemu_boot(arch, 64, "parallel", args.timeout),
                  status)
    ser = best_of(f"qemu-{arch}", 64, "serial", args.runs,
                  lambda: qemu_boot(arch, 64, "serial", args.timeout),
                  status)
    rows += [par, ser]
    out.append(ratio(rows, f"{arch} 64 vCPUs parallel / serial", par, ser,
                     0.15))
    if args.quick:
        return
    for n in GROWTH[arch]:
        if n != 64:
            rows.append(best_of(f"qemu-{arch}", n, "parallel", args.runs,
                                lambda n=n: qemu_boot(arch, n, "parallel",
                                                      args.timeout), status))


def main():
    ap = parser(__doc__)
    ap.add_argument("--parts", default="sandbox,x86_64,arm64")
    args = parse(ap)
    KERNEL["sandbox"] = os.path.join(TOP, "build", "sandbox", "keel")
    host = host_info()
    out = ["## CPU bring-up benchmark", "",
           f"Host: {host.get('cpu_model', '?')}, {host.get('cpus', '?')} "
           f"CPUs, load {host.get('load_start', '?')}. bootscrub=off, best of "
           f"{args.runs} boot(s) per row.", ""]
    rows, targets = [], []
    parts = args.parts.split(",")
    if "sandbox" in parts:
        bench_sandbox(args, targets, rows)
    for arch in ("x86_64", "arm64"):
        if arch in parts:
            bench_qemu(arch, args, targets, rows)
    bringup_markdown(rows, out)
    out += [""] + targets
    write_outputs(args, out, {"platform": "smp", "host": host,
                              "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
