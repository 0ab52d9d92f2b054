#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Interrupt latency while domains are built (issue 23), markdown + JSON.

Usage: bench-latency.py [--elf ELF] [--image IMAGE] [--arch x86_64|arm64]
                        [--md FILE] [--json FILE]

BOOTS (3) QEMU boots per (arch, extent size): -smp 2 -m 3G, bootscrub=off
(so the 1 GiB block is dirty and the eager baseline zeroes it inside the
heap lock), latency=on, latency_cpu=1, latency_max_order=18 (1 GiB
extents) and 9 (2 MiB); arm64 at EL2 with a GICv3 (CNTHP). Guest RAM is
preallocated, and the host is set up as real-time measurements set it up
(scripts/keel/rtpin.py): the probe's vCPU thread on a host core with
QEMU's main loop thread (which fires the emulated timers; SCHED_FIFO), the
other vCPUs on the other cores, and the host's CPUs kept out of deep idle
(/dev/cpu_dma_latency = 0, as cyclictest does); what could not be set up
is printed with the table. The first boot's phases are tabled.
From each report, ratios within the boot, against the targets of issue 23
(a target is met when it is met in most boots, i.e. by the median boot;
every boot's figure is printed):
  - deferred build-local and build-remote p99 <= 2x idle p99;
  - deferred irqsoff_max_ns <= 50 us;
  - eager build-local max >= 100x the deferred one (1 GiB extents);
and across the two extent sizes, boot by boot: deferred build-local max
and irqsoff max with 1 GiB extents about those with 2 MiB extents.

Under QEMU TCG a vCPU is a host thread: a host reschedule stretches any
single sample (max), which is why p99 and the interrupts-off regions
(measured on the guest's clock) are the figures to judge; the host's load
average is printed with the table, and each boot's host steal time (what
a host that stops this whole VM took from it, /proc/stat: HOST_STOPS
below says why a lone 30-36 ms maximum is that). Every number in the
tables is measured by this run.
"""

import argparse
import json
import os
import sys

from keel import boot, rtpin

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
PROBE_CPU = 1
APPEND = ("after=exit bootscrub=off latency=on latency_cpu={cpu} "
          "latency_max_order={order}")
EXTRA = ["-mem-prealloc", "-name", "debug-threads=on"]
TIMEOUT = 600
BOOTS = 3

# Issue 28 §8, measured once on this VM (2026-12-01, AMD EPYC, 2 vCPUs,
# Firecracker); the commands are in the text, the per-run figure is the
# steal row of the table.
HOST_STOPS = """\
A worst sample of 30-36 ms in one boot, while the others stay far lower,
is this VM's host, not keel (the 32.4-32.6 ms of the first x86_64 boot of
the earlier runs are of this size and kind). The host stops both vCPUs of the VM at once, for
up to a third of a 100 ms period, in bursts of 0.5-1 s, as a CPU-time
quota of the VM with a 100 ms period does: nothing inside runs meanwhile
(not the probe's vCPU, not QEMU's main loop that fires its timer), while
the TSC the probe reads goes on; interrupts were on (`irqs off max` stays
in microseconds). Measured once (2026-12-01, on a 2-vCPU AMD EPYC VM of
this kind) with `perf record -e sched:sched_switch -e
exceptions:page_fault_user -a` around one latency boot and
`scripts/host-freezes.py`: 39 windows of 11-35 ms without a single event
on either CPU (630 thousand events in 12 s otherwise), each ending
19.9-20.5 ms into a 100 ms period; the boot's three worst samples (34.0,
33.2 and 35.3 ms, in idle, build-remote and build-local) had their
deadlines at the start of three of them (the guest's clock lined up on
the first, the other two within 0.7 ms of one). A thread that only
sleeps 50 us at a time saw 22 such stops in 10 s; two threads spinning on
both CPUs, none. The stops show in the steal time of /proc/stat (about
twice their length: two vCPUs), in the `host steal` row of each table: a
boot whose worst sample is a stop has at least twice that sample in
steal."""


def run(arch, kernel, order):
    """One boot. Return: its report's latency object (with "host_notes":
    what rtpin could not set up), or None."""
    append = APPEND.format(cpu=PROBE_CPU, order=order)
    if arch == "x86_64":
        cmd = boot.x86_64_cmd(["--kernel", kernel, "--smp", "2",
                               "--mem", "3G"], append=append,
                              timeout=TIMEOUT, extra=EXTRA)
    else:
        cmd = boot.arm64_cmd(kernel, ["--el2", "--gic", "3", "--smp", "2",
                                      "--mem", "3G"], append=append,
                             timeout=TIMEOUT, extra=EXTRA)
    with rtpin.Pinned(PROBE_CPU) as pin:
        b = boot.qemu(cmd, TIMEOUT)
    rep = b.report
    lat = rep.get("latency") if rep else None
    if lat is not None:
        lat["host_notes"] = pin.notes
        lat["host_steal_ms"] = pin.steal_ms
    return lat


def row(lat, phase, mode):
    for p in lat.get("phases", []):
        if p["phase"] == phase and (p["cachemaint"] == "eager") == \
                (mode == "eager"):
            return p
    return None


def us(ns):
    return f"{ns / 1000:.1f} us" if ns < 10 ** 7 else f"{ns / 1e6:.1f} ms"


def verdicts(lat):
    """[(target, measured, met)] within one boot."""
    idle = row(lat, "idle", None)
    out = []
    for phase in ("build-remote", "build-local"):
        p = row(lat, phase, "deferred")
        if idle and p:
            r = p["p99_ns"] / max(idle["p99_ns"], 1)
            out.append((f"{phase} deferred p99 <= 2x idle p99",
                        f"{us(p['p99_ns'])} / {us(idle['p99_ns'])} = "
                        f"{r:.2f}x", r <= 2))
    for phase in ("build-remote", "build-local"):
        p = row(lat, phase, "deferred")
        if p:
            out.append((f"{phase} deferred irqsoff_max <= 50 us",
                        f"{us(p['irqsoff_max_ns'])} ({p['irqsoff_site']})",
                        p["irqsoff_max_ns"] <= 50000))
    e, d = row(lat, "build-local", "eager"), row(lat, "build-local",
                                                  "deferred")
    if e and d:
        r = e["max_ns"] / max(d["max_ns"], 1)
        out.append(("build-local eager max >= 100x deferred max",
                    f"{us(e['max_ns'])} / {us(d['max_ns'])} = {r:.0f}x",
                    r >= 100))
    return out


def phase_rows(ext, lat):
    """The table rows of one boot."""
    if not lat or lat.get("unsupported"):
        return [f"| {ext} | no probe: {lat and lat['unsupported']} "
                "| | | | | | | |"]
    return [f"| {ext} | {p['phase']} | {p['cachemaint']} | "
            f"{p['samples']} | {us(p['p50_ns'])} | {us(p['p99_ns'])} | "
            f"{us(p['max_ns'])} | {us(p['irqsoff_max_ns'])} "
            f"({p['irqsoff_site']}) | {p['builds']} |"
            for p in lat["phases"]]


def verdict_rows(boots):
    """Each target over the boots: every boot's figure; met in most."""
    per = [verdicts(lat) for lat in boots if lat and
           not lat.get("unsupported")]
    out = []
    for i, (target, _, _) in enumerate(per[0] if per else []):
        got = [v[i] for v in per if len(v) > i]
        met = sum(1 for g in got if g[2])
        out.append(f"| {target} | {'; '.join(g[1] for g in got)} | "
                   f"{met} of {len(got)}: "
                   f"{'yes' if 2 * met > len(got) else 'no'} |")
    return out


def table(arch, res):
    out = [f"### QEMU {arch}", "",
           f"The first of {BOOTS} boots per extent size:", "",
           "| extents | phase | cachemaint | samples | p50 | p99 | max | "
           "irqs off max (site) | builds |", "|---|---|---|---|---|---|---|"
           "---|---|"]
    for order, boots in res.items():
        out += phase_rows("1 GiB" if order == 18 else "2 MiB", boots[0])
    notes = sorted({n for boots in res.values() for lat in boots if lat
                    for n in lat.get("host_notes", [])})
    out += ["", "Host set-up (scripts/keel/rtpin.py): the probe's vCPU "
            "thread and QEMU's main loop (SCHED_FIFO) on one host core, the "
            "other vCPUs and this script on the others, "
            "/dev/cpu_dma_latency held at 0" +
            ("" if not notes else "; not done: " + "; ".join(notes)) + "."]
    out += ["", f"| target (1 GiB extents) | measured, each of {BOOTS} "
            "boots | met |", "|---|---|---|"]
    out += verdict_rows(res.get(18) or [])
    a, b = ([row(lat, "build-local", "deferred") for lat in res.get(o, [])
             if lat and not lat.get("unsupported")] for o in (18, 9))
    if a and b:
        out.append("| build-local deferred, 1 GiB against 2 MiB extents: "
                   "max | " + "; ".join(f"{us(x['max_ns'])} / "
                                        f"{us(y['max_ns'])}"
                                        for x, y in zip(a, b)) + " | - |")
        out.append("| build-local deferred, 1 GiB against 2 MiB extents: "
                   "irqs off max | " +
                   "; ".join(f"{us(x['irqsoff_max_ns'])} / "
                             f"{us(y['irqsoff_max_ns'])}"
                             for x, y in zip(a, b)) + " | - |")
    out.append(steal_row(res))
    return out + [""]


def steal_row(res):
    """Each boot's host steal (both CPUs) and its worst build-local
    deferred sample, 1 GiB then 2 MiB extents."""
    cells = []
    for order in (18, 9):
        for lat in res.get(order, []):
            if not lat:
                continue
            d = row(lat, "build-local", "deferred")
            steal = lat.get("host_steal_ms")
            cells.append(f"{'?' if steal is None else steal} ms "
                         f"({us(d['max_ns']) if d else '-'})")
    return ("| host steal during each boot, both CPUs (its build-local "
            "deferred max), 1 GiB then 2 MiB extents | " +
            "; ".join(cells) + " | - |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--elf", default=os.path.join(TOP, "build/x86_64/"
                                                  "keel.elf"))
    ap.add_argument("--image", default=os.path.join(TOP, "build/arm64/"
                                                    "Image"))
    ap.add_argument("--arch", action="append",
                    choices=("x86_64", "arm64"))
    ap.add_argument("--md")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    arches = args.arch or ["x86_64", "arm64"]
    results, out = {}, ["## Interrupt latency while domains are built", ""]
    for arch in arches:
        kernel = args.elf if arch == "x86_64" else args.image
        results[arch] = {o: [run(arch, kernel, o) for _ in range(BOOTS)]
                         for o in (18, 9)}
        out += table(arch, results[arch])
    out += [HOST_STOPS, ""]
    with open("/proc/loadavg") as f:
        out.append(f"Host load average after the run: "
                   f"{' '.join(f.read().split()[:3])}.")
    text = "\n".join(out) + "\n"
    sys.stdout.write(text)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
