# SPDX-License-Identifier: MIT
"""Helpers of the benchmark scripts: scripts/bench.py (sandbox),
bench-qemu.py (QEMU) and bench-plot.py (the combined table and plot).

fmt_ns() is the one human duration format of the scripts (plot-boot.py
labels too); host_info() describes the host a run measured on; the rest
turns KEEL-REPORTs of bench=on and scrub boots into JSON rows and
markdown tables.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

from . import keeltrace

# struct page_info: what heap_init=chunked/pagewise write per page.
PAGE_INFO_BYTES = 32
# Human allocation-benchmark line of common/selftest/bench.c; only it has the op
# count (the report row has maint_ns only).
BENCH_LINE = re.compile(r"bench: node (\d+) order\s+(\d+) (\S+)\s+"
                        r"(clean|dirty): .*\((\d+) ops\)")


def host_info():
    """CPU model, CPU count, QEMU versions and load of this host."""
    model = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    qemu = {}
    for arch, exe in (("x86_64", "qemu-system-x86_64"),
                      ("arm64", "qemu-system-aarch64")):
        try:
            out = subprocess.run([exe, "--version"], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, timeout=10)
            qemu[arch] = out.stdout.decode().splitlines()[0].strip()
        except (OSError, IndexError, subprocess.TimeoutExpired):
            qemu[arch] = None
    mem = None
    try:
        with open("/proc/meminfo", encoding="utf-8") as f:
            mem = int(f.readline().split()[1]) << 10
    except (OSError, ValueError, IndexError):
        pass
    return {"cpu_model": model, "cpus": os.cpu_count(), "mem_bytes": mem,
            "qemu": qemu, "kernel": os.uname().release,
            "date": time.strftime("%Y-%m-%d %H:%M %Z"),
            "load_start": round(os.getloadavg()[0], 2)}


def fmt_ns(ns):
    """Human duration: 812 ns, 35.2 us, 4.37 ms, 1.25 s; '-' for None."""
    if ns is None:
        return "-"
    if ns >= 1e9:
        return f"{ns / 1e9:.2f} s"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.1f} us"
    return f"{ns:.0f} ns"


def alloc_rows(rep, log):
    """bench=on rows of @rep, each with maint_ops from the boot @log."""
    ops = {}
    for m in BENCH_LINE.finditer(log):
        ops[(int(m.group(1)), int(m.group(2)), m.group(3),
             m.group(4) == "dirty")] = int(m.group(5))
    rows = []
    for r in rep.get("bench", []):
        r = dict(r)
        r["maint_ops"] = ops.get((r["node"], r["order"], r["mode"],
                                  r["dirty"]))
        rows.append(r)
    return sorted(rows, key=lambda r: (r["order"], r["node"], r["dirty"],
                                       r["mode"] == "eager"))


def alloc_markdown(rows, out):
    """The bench=on table and the order-18 lock-hold ratio table."""
    out.append("| order | node | mode | dirty | count | ns_avg | ns_max | "
               "lock_ns_max | maint_ns | maint ops |")
    out.append("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        ops = "?" if r["maint_ops"] is None else r["maint_ops"]
        out.append(f"| {r['order']} | {r['node']} | {r['mode']} | "
                   f"{'yes' if r['dirty'] else 'no'} | {r['count']} | "
                   f"{r['ns_avg']} | {r['ns_max']} | {r['lock_ns_max']} | "
                   f"{r['maint_ns']} | {ops} |")
    out.append("")
    out.append("Order 18, longest node-lock hold, deferred (or clflush) "
               "against eager:\n")
    out.append("| node | dirty | deferred lock_ns_max | eager lock_ns_max | "
               "deferred / eager |")
    out.append("|---|---|---|---|---|")
    n = 0
    for node, dirty, d, e in lock_pairs(rows):
        out.append(f"| {node} | {'yes' if dirty else 'no'} | "
                   f"{d['lock_ns_max']} ({d['mode']}) | {e['lock_ns_max']} | "
                   f"{100 * d['lock_ns_max'] / e['lock_ns_max']:.4f}% |")
        n += 1
    if not n:
        out.append("| (no order-18 rows: no free aligned GiB per node) "
                   "| | | | |")
    out.append("")


def lock_pairs(rows):
    """(node, dirty, deferred row, eager row) of every order-18 pair."""
    big = {}
    for r in rows:
        if r["order"] == 18:
            kind = "eager" if r["mode"] == "eager" else "deferred"
            big[(r["node"], r["dirty"], kind)] = r
    for (node, dirty, kind), r in sorted(big.items()):
        e = big.get((node, dirty, "eager"))
        if kind == "deferred" and e and e["lock_ns_max"]:
            yield node, dirty, r, e


def local_share(rep):
    """{node: share of its scrubbed bytes done by CPUs of that node}.

    From the scrub_unit trace events (arg0 = node, arg1 = bytes); None
    when the trace lost events. Workers drain their own node first and
    then help the node with the most work left (common/scrub/scrub.c), so a
    share below 1 means remote CPUs took over leftovers.
    """
    try:
        b = keeltrace.Boot(rep)
    except keeltrace.TraceError:
        return None
    if b.overflow or b.overflow_unknown:
        return None
    tot, loc = {}, {}
    for u in b.scrub_units():
        node = u["arg0"]
        tot[node] = tot.get(node, 0) + u["arg1"]
        if b.cpu_node(u["cpu"]) == node:
            loc[node] = loc.get(node, 0) + u["arg1"]
    return {n: loc.get(n, 0) / t for n, t in sorted(tot.items()) if t}


def scrub_row(rep, nodes, cpus, times):
    """The JSON row of a scrub boot (the best of @times)."""
    s = rep["scrub"]
    per = [c["bytes"] / c["ns"] for c in s["per_cpu"]
           if c["ns"] and c["bytes"]]
    share = local_share(rep)
    return {"nodes": nodes, "cpus": cpus, "workers": s["workers"],
            "primitive": s["primitive"], "bytes": s["bytes"],
            "ns": s["ns"], "gbps": s["bytes"] / s["ns"] if s["ns"] else 0,
            "per_worker_gbps": sum(per) / len(per) if per else 0,
            "per_node": [{"node": p["node"],
                          "gbps": p["bytes"] / p["ns"] if p["ns"] else 0,
                          "cpus": p["cpus"], "helper_of": p["helper_of"]}
                         for p in s["per_node"]],
            "calibration": s.get("calibration", []),
            "idle_ns": [c.get("idle_ns", 0) for c in s["per_cpu"]],
            "unit_bytes": [p.get("unit_bytes") for p in s["per_node"]],
            "local_share": share,
            "local_workers": (None if share is None else
                              all(v >= 1 for v in share.values())),
            "runs_ns": times}


def fmt_share(share):
    """Per-node local share: "100% / 93%", "?" without a full trace."""
    if share is None:
        return "? (trace incomplete)"
    return " / ".join(f"{100 * v:.0f}%" for v in share.values())


def scrub_markdown(rows, ref, ref_name, out):
    """Scrub table; @ref GB/s is the single-thread baseline."""
    out.append("| nodes | CPUs | workers | primitive | scrubbed | scrub time "
               "| GB/s | per node GB/s | per worker GB/s | per worker / "
               f"{ref_name} | speed-up vs 1 worker | done by local "
               "workers, per node | idle at the end, per worker | "
               "all runs |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    one = next((r["gbps"] for r in rows if r["workers"] == 1), None)
    for r in rows:
        if "error" in r:
            out.append(f"| {r['nodes']} | {r['cpus']} | | | | "
                       f"{r['error']} | | | | | | | | |")
            continue
        pn = " / ".join(f"{p['gbps']:.2f}" for p in r["per_node"])
        ratio = (f"{100 * r['per_worker_gbps'] / ref:.0f}%" if ref else "-")
        speed = f"{r['gbps'] / one:.2f}x" if one else "-"
        pf = "" if r.get("prefault", True) else " (fresh arena)"
        out.append(f"| {r['nodes']} | {r['cpus']}{pf} | {r['workers']} | "
                   f"{r['primitive']} | {r['bytes'] >> 20} MiB | "
                   f"{fmt_ns(r['ns'])} | {r['gbps']:.2f} | {pn} | "
                   f"{r['per_worker_gbps']:.2f} | {ratio} | {speed} | "
                   f"{fmt_share(r['local_share'])} | "
                   + (" / ".join(fmt_ns(t) for t in r.get("idle_ns", []))
                      or "-") + " | "
                   + ", ".join(fmt_ns(t) for t in r["runs_ns"]) + " |")
    out.append("")


def bringup_row(rep, wall):
    """A bring-up benchmark row from one boot's report (issue 24): the
    CPUs online, the start mode, smp.bringup_ns and the smp_boot phase
    (which also holds the wait for dead CPUs and the skew probes)."""
    phase = {}
    for ev in rep.get("trace", []):
        if ev.get("name") == "smp_boot":
            phase.setdefault(ev.get("kind"), ev.get("ns"))
    return {"cpus": len(rep["cpus"]),
            "online": sum(1 for c in rep["cpus"] if c["online"]),
            "start": rep["smp"]["start"],
            "bringup_ns": rep["smp"]["bringup_ns"],
            "smp_boot_ns": phase.get("end", 0) - phase.get("begin", 0),
            "wall_s": round(wall, 2)}


def bringup_markdown(rows, out):
    """The bring-up rows as a markdown table (best of the boots per cell
    comes first: callers sort)."""
    out.append("| platform | CPUs | online | smp_start | smp.bringup_ns "
               "| smp_boot phase | boot wall |")
    out.append("|---|---|---|---|---|---|---|")
    for r in rows:
        if "error" in r:
            out.append(f"| {r['platform']} | {r['cpus']} | - | {r['start']} "
                       f"| {r['error']} | | |")
            continue
        out.append(f"| {r['platform']} | {r['cpus']} | {r['online']} | "
                   f"{r['start']} | {fmt_ns(r['bringup_ns'])} | "
                   f"{fmt_ns(r['smp_boot_ns'])} | {r['wall_s']} s |")


def write_sandbox_fw(path, ram_bytes, cpus, who):
    """A sandbox firmware description: one node of @ram_bytes from 0 (the
    first MiB the BIOS's), @cpus CPUs on it; @who wrote it."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"# generated by {who}\n")
        f.write(f"ram 0 {ram_bytes:#x} node=0\nreserved 0 1M bios\n")
        for c in range(cpus):
            f.write(f"cpu {c} node=0 package=0 core={c} thread=0\n")


def parser(doc, timeout=600):
    """The options every bench part shares: --quick, --runs (default: 1
    with --quick, else 3, filled in by parse()), --timeout, --md and
    --json (write_outputs()). @doc: the script's __doc__ (its first line
    describes it). Add the part's own options, then call parse()."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--runs", type=int, default=None)
    ap.add_argument("--timeout", type=int, default=timeout)
    ap.add_argument("--md", help="write the markdown here, not stdout")
    ap.add_argument("--json", help="write the results here (JSON)")
    return ap


def parse(ap, argv=None):
    """ap.parse_args(), --runs defaulted as parser() says."""
    args = ap.parse_args(argv)
    if args.runs is None:
        args.runs = 1 if args.quick else 3
    return args


def write_outputs(args, out, results):
    """Markdown to --md or stdout, results to --json."""
    text = "\n".join(out) + "\n"
    if args.md:
        os.makedirs(os.path.dirname(os.path.abspath(args.md)),
                    exist_ok=True)
        with open(args.md, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)),
                    exist_ok=True)
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
            f.write("\n")
