#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Guest walk throughput (issue 31), markdown and JSON: the `guests` part
of `make bench`.

Usage: bench-guests.py [--parts arm64,x86_64] [--quick] [--runs N]
                       [--what walk,blackout] [--md FILE] [--json FILE]
                       [--timeout S]

Each boot: QEMU (TCG, -mem-prealloc) with 2 CPUs in one node of 4 GiB
(arm64; x86_64: 5 GiB, as its firmware keeps the top of the RAM below
4 GiB), bootscrub=on, then two domains of 1 GiB, each one 1 GiB block
(keel's own allocations take the top of RAM, so two aligned GiBs stay
whole; the row's `1G` column says how many were), one guest each, one
per CPU: the
guests walk their memory through stage 2 at once (arm64 at
EL2: VMSAv8-64 stage 2; x86_64: AMD NPT under SVM), reading and writing
one word every guest_touch= bytes. A row: the guests' walk in GB/s
(guests_info.walk_gbps: their bytes over the time from the round's start
to the last walk reported) beside the boot scrub's GB/s on the same two
CPUs in the same boot (scrub.gbps), and their ratio. guest_touch=8 reads
and writes every word, as the scrub writes every byte; guest_touch=64 is
the default, one word a cache line. Best (largest walk GB/s) of --runs
boots per row. TCG translates every guest page through its own TLB
whatever the leaf size, so the 1 GiB block shows in the `1G` column,
not in the rate.

The blackout (issue 31 §4): QEMU arm64 at EL2 and x86_64 (SVM), 3 CPUs,
one node, -mem-prealloc, `liveupdate=1 guests=on` with two domains, the
image its own next image (the initrd): the old image holds the guests in
their loops on CPUs 1 and 2 (not the boot CPU, which freezes), its freeze
stops them, the new image resumes each on a CPU of its own. With 2 CPUs
both guests shared CPU 1 in the old image, so one of them had waited up
to a slice (2 ms) for its turn before the freeze, and that wait, not the
update, stood above the downtime in its blackout. Two
sizes (BLACKOUT_SIZES): 2 GiB preserved (two 1 GiB domains, 4 GiB of
RAM), and the most QEMU can hold here, 12 GiB preserved (two 6 GiB
domains, 14 GiB of RAM): -mem-prealloc (every guest walks every page, so
sparse RAM would be filled in anyway) makes QEMU hold all of it in host
RAM, which is 24 GiB on this host with other boots beside it; 12 GiB
keeps a boot of both images under 60 s. Two guests whatever the size, so
that a resumed guest waits for one other's slice, not for many. A row:
the largest blackout a guest saw (guests_info.blackout_max_ns) beside
liveupdate.downtime_ns and guests_stop_ns, and blackout / downtime
against the target (<= 1.2). x86_64 the same under SVM (one GiB more
RAM: its firmware keeps the top of the RAM below 4 GiB; the ELF its own
next image, the first multiboot module).

--what: which tables (default both). --quick: guest_touch=64 only, one
boot per row. Every number printed is
measured by this run; nothing is copied.
"""

import os
import sys

from keel import boot
from keel.bench import host_info, parse, parser, write_outputs
from keel.boot import TOP

EXIT_PASS = 33
KERNEL = {"x86_64": os.path.join(TOP, "build", "x86_64", "keel.elf"),
          "arm64": os.path.join(TOP, "build", "arm64", "Image")}
DOMAINS = "domain=1G domain=1G"
CMDLINE = f"report=full guests=on guest_run_ms=1 {DOMAINS}"


def qemu_boot(arch, touch, timeout):
    append = f"{CMDLINE} guest_touch={touch}"
    if arch == "arm64":
        cmd = boot.arm64_cmd(KERNEL[arch], ["--el2", "--gic", "3", "--smp",
                                            "2", "--mem", "4G"],
                             "after=poweroff " + append, timeout,
                             ["-mem-prealloc"])
    else:
        cmd = boot.x86_64_cmd(["--kernel", KERNEL[arch], "--smp", "2",
                               "--mem", "5G"], "after=exit " + append,
                              timeout, ["-mem-prealloc"])
    return boot.qemu(cmd, timeout)


# The blackout's sizes: GiB of each of the two domains (preserved: twice
# that), GiB of arm64 RAM (x86_64: one more). The largest is the most this
# host holds with -mem-prealloc beside other boots (see the top).
BLACKOUT_SIZES = ((1, 4), (6, 14))
BLACKOUT_TARGET = 1.2


def blackout_boot(arch, size, timeout):
    dom_gib, mem_gib = size
    append = (f"report=full liveupdate=1 guests=on guest_run_ms=5 "
              f"domain={dom_gib}G domain={dom_gib}G")
    if arch == "arm64":
        cmd = boot.arm64_cmd(KERNEL[arch], ["--el2", "--gic", "3", "--smp",
                                            "3", "--mem", f"{mem_gib}G",
                                            "--initrd", KERNEL[arch]],
                             "after=poweroff " + append, timeout,
                             ["-mem-prealloc"])
    else:
        cmd = boot.x86_64_cmd(["--kernel", KERNEL[arch], "--smp", "3",
                               "--mem", f"{mem_gib + 1}G"],
                              "after=exit " + append, timeout,
                              ["-mem-prealloc", "-initrd", KERNEL[arch]])
    return boot.qemu(cmd, timeout)


def blackout_row(arch, size, args):
    """Best (smallest ratio) of --runs live updates with guests."""
    best = None
    status = 0 if arch == "arm64" else EXIT_PASS
    want = 2 * size[0] << 30
    for _ in range(args.runs):
        b = blackout_boot(arch, size, args.timeout)
        problems = b.problems(status, {})
        if problems:
            return {"arch": arch, "want_bytes": want,
                    "error": problems[0][:80]}
        lu, info = b.report["liveupdate"], b.report["guests_info"]
        if not lu.get("guests_resumed"):
            return {"arch": arch, "want_bytes": want, "error":
                    "not resumed: " + str(lu.get("guests_not_resumed"))}
        down, black = lu["downtime_ns"], info["blackout_max_ns"]
        row = {"arch": arch, "want_bytes": want,
               "preserved_bytes": lu["preserved_bytes"],
               "guests": lu["guests_resumed"], "blackout_ns": black,
               "downtime_ns": down, "stop_ns": lu["guests_stop_ns"],
               "boot_s": b.elapsed,
               "ratio": black / down if down else None}
        if best is None or (row["ratio"] or 9) < (best["ratio"] or 9):
            best = row
    return best


def blackout_markdown(rows, out):
    out += ["", "## Guest-observed blackout across a live update", "",
            f"Target: blackout <= {BLACKOUT_TARGET}x downtime, each row "
            "(the rest above the downtime is the time to stop and resume "
            "the vCPUs). Preserved: 2 GiB, and 12 GiB, the most QEMU holds "
            "on this host (-mem-prealloc: QEMU keeps all the guest RAM, "
            "14-15 GiB, in the host's 24 GiB beside other boots).", "",
            "| arch | preserved | guests | blackout max | downtime | "
            "stopped after the freeze | blackout / downtime | target | "
            "boot (both images) |",
            "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            out.append(f"| {r['arch']} | {r['want_bytes'] >> 20} MiB | "
                       f"error: {r['error']} | | | | | | |")
            continue
        ok = r["ratio"] is not None and r["ratio"] <= BLACKOUT_TARGET
        out.append(f"| {r['arch']} | {r['preserved_bytes'] >> 20} MiB | "
                   f"{r['guests']} | {r['blackout_ns'] / 1e6:.1f} ms | "
                   f"{r['downtime_ns'] / 1e6:.1f} ms | "
                   f"{r['stop_ns'] / 1e6:.2f} ms | {r['ratio']:.3f} | "
                   f"{'met' if ok else 'missed'} (<= {BLACKOUT_TARGET}) | "
                   f"{r['boot_s']:.1f} s |")


def row_of(arch, touch, rep):
    info, scrub = rep["guests_info"], rep["scrub"]
    walk = info["walk_gbps"]
    return {"arch": arch, "format": rep["domains_info"]["p2m_format"],
            "touch": touch, "guests": info["count"],
            "bytes": info["walk_bytes"],
            "extents_1g": sum(d["extents_1g"] for d in rep["domains"]),
            "walk_ns": info["walk_ns"], "walk_gbps": walk,
            "scrub_gbps": scrub["gbps"], "scrub_workers": scrub["workers"],
            "ratio": walk / scrub["gbps"] if scrub["gbps"] else None}


def best_of(arch, touch, args):
    best = None
    status = 0 if arch == "arm64" else EXIT_PASS
    for _ in range(args.runs):
        b = qemu_boot(arch, touch, args.timeout)
        problems = b.problems(status, {})
        if problems:
            return {"arch": arch, "touch": touch, "error": problems[0][:80]}
        info = b.report["guests_info"]
        if info["unsupported"] or info["problems"]:
            return {"arch": arch, "touch": touch,
                    "error": info["unsupported"] or "guest problems"}
        row = row_of(arch, touch, b.report)
        if best is None or row["walk_gbps"] > best["walk_gbps"]:
            best = row
    return best


def markdown(rows, out):
    out += ["| arch | stage 2 | guest_touch | guests | walked | 1G leaves "
            "| walk | walk GB/s | scrub GB/s (2 CPUs) | walk / scrub |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            out.append(f"| {r['arch']} | | {r['touch']} | error: "
                       f"{r['error']} | | | | | | |")
            continue
        ratio = f"{r['ratio']:.2f}" if r["ratio"] is not None else "-"
        out.append(f"| {r['arch']} | {r['format']} | {r['touch']} | "
                   f"{r['guests']} | {r['bytes'] >> 20} MiB | "
                   f"{r['extents_1g']} | {r['walk_ns'] / 1e6:.1f} ms | "
                   f"{r['walk_gbps']:.3f} | {r['scrub_gbps']:.3f} | "
                   f"{ratio} |")


def main():
    ap = parser(__doc__)
    ap.add_argument("--parts", default="arm64,x86_64")
    ap.add_argument("--what", default="walk,blackout",
                    help="the tables to measure: walk, blackout")
    args = parse(ap)
    touches = (64,) if args.quick else (8, 64)
    host = host_info()
    parts, what = args.parts.split(","), args.what.split(",")
    walk = "walk" in what
    out = ["## Guest walk throughput" if walk else "## Guests", "",
           f"Host: {host.get('cpu_model', '?')}, {host.get('cpus', '?')} "
           f"CPUs, load {host.get('load_start', '?')}. QEMU TCG, 2 CPUs"
           + (f", one node of 4 GiB (x86_64: 5 GiB), `{DOMAINS}`, one "
              "guest per CPU" if walk else "") +
           f"; best of {args.runs} boot(s) per row.", ""]
    rows = [best_of(arch, t, args) for arch in parts if arch in KERNEL
            for t in touches] if walk else []
    if rows:
        markdown(rows, out)
    blackout = [blackout_row(arch, size, args) for arch in parts
                if arch in KERNEL for size in BLACKOUT_SIZES] \
        if "blackout" in what else []
    if blackout:
        blackout_markdown(blackout, out)
    write_outputs(args, out, {"platform": "guests", "host": host,
                              "command": "make bench-guests",
                              "rows": rows, "blackout": blackout})
    return 0


if __name__ == "__main__":
    sys.exit(main())
