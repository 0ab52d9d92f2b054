#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Sandbox benchmarks of DESIGN section 9, as markdown tables and JSON.

Usage: bench.py KEEL_BINARY BASELINE_BINARY [--quick] [--md FILE]
                [--json FILE] [--max-seconds S] [--repeat N]

1. Heap handoff: heap.init_ns of the KEEL-REPORT for heap_init=lazy,
   chunked and pagewise at 1, 16, 64, 256 GiB and 1 TiB of described RAM,
   on 1 and 4 nodes, bootscrub=off. The RAM is a MAP_NORESERVE arena, so
   only what keel touches costs host memory; chunked and pagewise write one
   32-byte page_info per page, so they are skipped where that would exceed
   --max-ft-bytes of host memory or where the previous size already took
   longer than --max-seconds.
2. The ratios section 9 asks for, from the same run.
3. Boot scrub: GB/s with 1 and 2 worker CPUs on one node and with 1 and 2
   CPUs per node on two nodes (CPUs come from the generated firmware
   description), per node, against a single-thread streaming-store
   baseline (tests/bench/memset_baseline.c) measured in the same run.
4. Allocation latency: bench=on on 2 nodes x 2.5 GiB (order 18 fits).

The markdown goes to stdout (or --md FILE), the machine-readable results
to --json FILE (read by scripts/bench-plot.py). The helpers at the top
(host_info, fmt_ns, alloc_rows, ...) are shared with bench-qemu.py and
bench-plot.py. Every number printed is measured by this run; nothing is
copied.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(TOP, "scripts"))
import keeltrace  # noqa: E402
import report  # noqa: E402

GIB = 1 << 30
SIZES = [("1G", GIB), ("16G", 16 * GIB), ("64G", 64 * GIB),
         ("256G", 256 * GIB), ("1T", 1024 * GIB), ("64T", 64 << 40)]
MODES = ["lazy", "chunked", "pagewise"]
PAGE_INFO_BYTES = 32
# Human allocation-benchmark line of common/bench.c; only it has the op
# count (the report row has maint_ns only).
BENCH_LINE = re.compile(r"bench: node (\d+) order\s+(\d+) (\S+)\s+"
                        r"(clean|dirty): .*\((\d+) ops\)")


# ---- helpers shared with bench-qemu.py and bench-plot.py ----------------

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
    """Human duration: 35.2 us, 4.37 ms, 1.25 s."""
    if ns is None:
        return "-"
    if ns >= 1e9:
        return f"{ns / 1e9:.2f} s"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e3:.1f} us"


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
    then help the node with the most work left (common/scrub.c), so a
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


# ---- sandbox ------------------------------------------------------------

def write_fw(path, ram_bytes, nodes, cpus_per_node):
    """A machine with @ram_bytes split evenly over @nodes, above 1 MiB."""
    per = ram_bytes // nodes
    with open(path, "w", encoding="utf-8") as f:
        f.write("# generated by scripts/bench.py\n")
        for n in range(nodes):
            f.write(f"ram {n * per:#x} {(n + 1) * per:#x} node={n}\n")
        f.write("reserved 0 1M bios\n")
        hwid = 0
        for n in range(nodes):
            for c in range(cpus_per_node):
                f.write(f"cpu {hwid} node={n} package={n} core={c} "
                        "thread=0\n")
                hwid += 1
        for a in range(nodes):
            for b in range(a + 1, nodes):
                f.write(f"distance {a} {b} 20\n")


# 2 nodes x 2.5 GiB: each node keeps a free aligned GiB, so the bench=on
# table has order-18 rows (tests/data/sandbox-2node.fw has none).
ALLOC_FW = """# generated by scripts/bench.py: 2 nodes x 2.5 GiB
ram       0x0      2560M   node=0
ram       4G       6656M   node=1
reserved  0x0      1M      bios
cpu       0  node=0 package=0 core=0 thread=0
cpu       1  node=0 package=0 core=1 thread=0
cpu       2  node=1 package=1 core=0 thread=0
cpu       3  node=1 package=1 core=1 thread=0
distance  0 1 20
"""


def boot(keel, fw, cmdline, timeout, pre=()):
    """Run one boot; return (parsed report or None, seconds, error, log).
    @pre: sandbox options before the firmware description (--prefault)."""
    t0 = time.monotonic()
    try:
        p = subprocess.run([keel] + list(pre) + [fw] + cmdline,
                           stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, time.monotonic() - t0, f"timeout {timeout} s", ""
    dt = time.monotonic() - t0
    log = p.stdout.decode("utf-8", "replace")
    failures = report.check_report(log, {})
    if failures or p.returncode:
        return None, dt, (failures[0] if failures else
                          f"exit status {p.returncode}"), log
    return report.find_report(log), dt, None, log


def bench_handoff(keel, tmp, args, out):
    results = []
    sizes = SIZES[:3] if args.quick else SIZES
    out.append("## Heap handoff (sandbox, bootscrub=off, heap.init_ns)\n")
    out.append(f"Each cell: best of {args.repeat} boots (one boot when a "
               f"boot takes more than {args.repeat_below} s). `chunks` = "
               "heap.chunks in lazy mode.\n")
    out.append("| RAM | nodes | lazy | chunks | chunked | pagewise |")
    out.append("|---|---|---|---|---|---|")
    for nodes in (1, 4):
        slow = set()
        for label, size in sizes:
            fw = os.path.join(tmp, f"h-{label}-{nodes}.fw")
            write_fw(fw, size, nodes, 1)
            cells = {}
            chunks = "-"
            for mode in MODES:
                row = {"ram": label, "ram_bytes": size, "nodes": nodes,
                       "mode": mode, "init_ns": None, "chunks": None}
                results.append(row)
                ft = size // 4096 * PAGE_INFO_BYTES
                if mode != "lazy" and ft > args.max_ft_bytes:
                    cells[mode] = row["skipped"] = (
                        f"skipped (would write {ft >> 30} GiB of "
                        "page_info)")
                    continue
                if mode in slow:
                    cells[mode] = row["skipped"] = (
                        f"skipped (smaller size took > {args.max_seconds} "
                        "s)")
                    continue
                # The host is shared: keep the best of --repeat boots, but
                # do not repeat boots that take seconds.
                ns = None
                for _ in range(args.repeat):
                    rep, dt, err, _ = boot(keel, fw,
                                           ["bootscrub=off",
                                            f"heap_init={mode}"],
                                           args.timeout)
                    if rep is None:
                        break
                    t = rep["heap"]["init_ns"]
                    ns = t if ns is None else min(ns, t)
                    if dt > args.repeat_below:
                        break
                if rep is None:
                    cells[mode] = row["error"] = f"error: {err}"
                    if err.startswith("timeout"):
                        slow.add(mode)
                    continue
                row["init_ns"] = ns
                row["chunks"] = rep["heap"]["chunks"]
                cells[mode] = fmt_ns(ns)
                if mode == "lazy":
                    chunks = str(rep["heap"]["chunks"])
                if dt > args.max_seconds:
                    slow.add(mode)
            out.append(f"| {label} | {nodes} | {cells['lazy']} | {chunks} | "
                       f"{cells['chunked']} | {cells['pagewise']} |")
            sys.stderr.write(f"bench: sandbox handoff {label} x{nodes} "
                             "done\n")
    out.append("")
    return results


def ratio_line(what, num, den, target):
    if num is None or den is None or not den:
        return f"| {what} | n/a (not measured) | {target} |"
    return f"| {what} | {num / den:.1f}x | {target} |"


def bench_ratios(results, out):
    g = {(r["ram"], r["nodes"], r["mode"]): r["init_ns"]
         for r in results}.get
    out.append("## Ratios (DESIGN §9, 1 node and 4 nodes)\n")
    out.append("| ratio | measured | target |")
    out.append("|---|---|---|")
    for nodes in (1, 4):
        out.append(ratio_line(f"lazy 1T / lazy 1G ({nodes} node)",
                              g(("1T", nodes, "lazy")),
                              g(("1G", nodes, "lazy")), "<= 2x"))
        out.append(ratio_line(f"lazy 64T / lazy 1G ({nodes} node)",
                              g(("64T", nodes, "lazy")),
                              g(("1G", nodes, "lazy")), "(informative)"))
        out.append(ratio_line(f"pagewise / lazy at 64G ({nodes} node)",
                              g(("64G", nodes, "pagewise")),
                              g(("64G", nodes, "lazy")), ">= 100x"))
        out.append(ratio_line(f"chunked / lazy at 64G ({nodes} node)",
                              g(("64G", nodes, "chunked")),
                              g(("64G", nodes, "lazy")), ">= 20x"))
    out.append("")


def scrub_boots(keel, fw, cmdline, args, pre):
    """Best of args.repeat boots: (best report or None, all ns, error)."""
    best, times, err = None, [], None
    for _ in range(args.repeat):
        r, _, err, _ = boot(keel, fw, cmdline, args.timeout, pre)
        if r is None:
            break
        times.append(r["scrub"]["ns"])
        if best is None or r["scrub"]["ns"] < best["scrub"]["ns"]:
            best = r
    return best, times, err


def bench_scrub(keel, baseline, tmp, args, out):
    """Scrub on a prefaulted arena (stores, not page faults) against the
    host's best streaming-store rates on faulted memory, same run."""
    mib = args.scrub_mib
    threads = os.cpu_count() or 1
    base = json.loads(subprocess.run(
        [baseline, str(mib), "3", str(threads)], stdout=subprocess.PIPE,
        check=True, timeout=args.timeout).stdout)
    w1, wa = base["warm_1"], base["warm_all"]

    def fmt(d):
        return ", ".join(f"{k} {v:.2f}" for k, v in d.items()
                         if v is not None)
    out.append(f"## Boot scrub (sandbox --prefault, {mib} MiB in all, best "
               f"of {args.repeat} boots)\n")
    out.append("Baselines, same run, memory already faulted in (GB/s): "
               f"1 thread: {fmt(w1)}; {threads} threads: {fmt(wa)}. "
               f"Best: {base['best_1']:.2f} (1 thread), "
               f"{base['best_all']:.2f} ({threads} threads). For context, "
               "one thread into a fresh mapping (page faults included, "
               f"what the sandbox without --prefault pays): streaming "
               f"{base['nt_fresh']:.2f}, memset {base['memset_fresh']:.2f}."
               "\n")
    rows = []
    for nodes, cpn, pre in ((1, 1, ["--prefault"]), (1, 2, ["--prefault"]),
                            (2, 1, ["--prefault"]), (2, 2, ["--prefault"]),
                            (1, 1, [])):
        fw = os.path.join(tmp, f"s-{nodes}-{cpn}.fw")
        # Node 0 also holds the 1 MiB reserved at 0.
        write_fw(fw, (mib << 20) + (nodes << 20), nodes, cpn)
        best, times, err = scrub_boots(keel, fw, ["bootscrub=on"], args, pre)
        if best is None:
            rows.append({"nodes": nodes, "cpus": nodes * cpn,
                         "prefault": bool(pre), "error": f"error: {err}"})
            continue
        row = scrub_row(best, nodes, nodes * cpn, times)
        row["prefault"] = bool(pre)
        rows.append(row)
        sys.stderr.write(f"bench: sandbox scrub {nodes} node(s) x {cpn} "
                         f"CPU(s){' prefaulted' if pre else ''} done\n")
    scrub_markdown(rows, base["best_1"], "best 1-thread baseline", out)
    scrub_targets(rows, base, out)
    # Every primitive forced once, 1 worker, prefaulted: the calibration's
    # short probe against the whole scrub.
    prim = []
    fw = os.path.join(tmp, "s-1-1.fw")
    cal = next((r.get("calibration") for r in rows if "calibration" in r),
               [])
    for c in cal:
        name = c["primitive"].replace(" ", "_")
        best, _, err = scrub_boots(keel, fw, ["bootscrub=on",
                                              f"scrub_primitive={name}"],
                                   args, ["--prefault"])
        prim.append({"primitive": c["primitive"], "calib_gbps": c["gbps"],
                     "gbps": (best["scrub"]["bytes"] / best["scrub"]["ns"]
                              if best else None),
                     "error": err if best is None else None})
    if prim:
        out.append("Each primitive forced (`scrub_primitive=`), 1 worker, "
                   "prefaulted: calibration probe (8 MiB) against the whole "
                   "scrub, GB/s.\n")
        out.append("| primitive | calibration GB/s | scrub GB/s | "
                   "scrub / best 1-thread baseline |")
        out.append("|---|---|---|---|")
        for p in prim:
            g = p["gbps"]
            out.append(f"| {p['primitive']} | {p['calib_gbps']:.2f} | "
                       + (f"{g:.2f} | {100 * g / base['best_1']:.0f}% |"
                          if g else f"{p['error']} | |"))
        out.append("")
    return {"baseline": base, "baseline_gbps": base["best_1"],
            "baseline_name": "best 1-thread streaming store, faulted memory "
                             "(memset_baseline)",
            "mib": mib, "rows": rows, "primitives": prim}


def scrub_targets(rows, base, out):
    """The two 90% targets of DESIGN section 9, from the prefaulted rows."""
    ok = [r for r in rows if r.get("prefault") and "error" not in r]
    one = max((r["gbps"] for r in ok if r["workers"] == 1), default=None)
    top = max(r["workers"] for r in ok) if ok else None
    allw = max((r["gbps"] for r in ok if r["workers"] == top), default=None)
    out.append("| target | keel GB/s | baseline GB/s | ratio | goal |")
    out.append("|---|---|---|---|---|")
    for what, k, b in (("1 worker vs best 1-thread", one, base["best_1"]),
                       (f"{top} workers vs best all-thread", allw,
                        base["best_all"])):
        if k is None or not b:
            out.append(f"| {what} | n/a | | | >= 90% |")
            continue
        out.append(f"| {what} | {k:.2f} | {b:.2f} | {100 * k / b:.0f}% | "
                   ">= 90% |")
    out.append("")


def bench_alloc(keel, tmp, args, out):
    fw = os.path.join(tmp, "alloc-2x2560M.fw")
    with open(fw, "w", encoding="utf-8") as f:
        f.write(ALLOC_FW)
    out.append("## Allocation latency (sandbox, 2 nodes x 2.5 GiB, 4 CPUs, "
               "bench=on, cachemaint deferred)\n")
    rep, secs, err, log = boot(keel, fw, ["audit=full", "bench=on"],
                               args.timeout)
    if rep is None:
        out.append(f"failed: {err}\n")
        return {"error": err}
    out.append(f"KEEL: PASS, audit.lost_pages {rep['audit']['lost_pages']}, "
               f"{secs:.1f} s wall\n")
    rows = alloc_rows(rep, log)
    alloc_markdown(rows, out)
    return {"config": "2 nodes x 2560M, 4 CPUs, audit=full bench=on",
            "lost_pages": rep["audit"]["lost_pages"], "rows": rows}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("keel")
    ap.add_argument("baseline")
    ap.add_argument("--quick", action="store_true",
                    help="sizes up to 64 GiB, 512 MiB scrub, one boot each")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--repeat", type=int, default=None,
                    help="boots per measurement, the best is kept "
                    "(default 3, --quick 1)")
    ap.add_argument("--repeat-below", type=float, default=1.0,
                    help="repeat only boots shorter than this (s)")
    ap.add_argument("--max-seconds", type=float, default=60)
    ap.add_argument("--max-ft-bytes", type=int, default=4 << 30,
                    help="skip chunked/pagewise above this much page_info")
    ap.add_argument("--scrub-mib", type=int, default=None,
                    help="scrubbed RAM in all (default 2048, --quick 512)")
    ap.add_argument("--skip", default="",
                    help="comma list of parts to skip: handoff,scrub,alloc")
    ap.add_argument("--md", help="write the markdown here, not stdout")
    ap.add_argument("--json", help="write the results here (JSON)")
    args = ap.parse_args(argv)
    if args.repeat is None:
        args.repeat = 1 if args.quick else 3
    if args.scrub_mib is None:
        args.scrub_mib = 512 if args.quick else 2048
    skip = set(args.skip.split(",")) - {""}

    host = host_info()
    out = ["# keel sandbox benchmark", "",
           f"host: {host['cpu_model']}, {host['cpus']} CPUs, load average "
           f"at start {host['load_start']:.1f}; binary {args.keel}"
           + ("; --quick" if args.quick else ""), ""]
    results = {"platform": "sandbox", "host": host, "quick": args.quick,
               "command": "scripts/bench.py " + " ".join(
                   sys.argv[1:] if argv is None else argv),
               "handoff": [], "scrub": None, "alloc": None}
    with tempfile.TemporaryDirectory(prefix="keel-bench-") as tmp:
        if "handoff" not in skip:
            results["handoff"] = bench_handoff(args.keel, tmp, args, out)
            bench_ratios(results["handoff"], out)
        if "scrub" not in skip:
            results["scrub"] = bench_scrub(args.keel, args.baseline, tmp,
                                           args, out)
        if "alloc" not in skip:
            results["alloc"] = bench_alloc(args.keel, tmp, args, out)
    results["load_end"] = round(os.getloadavg()[0], 2)
    out.append(f"Load average at the end: {results['load_end']:.1f}.")
    write_outputs(args, out, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
