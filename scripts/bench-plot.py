#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Combined table and handoff plot of `make bench` results.

Usage: bench-plot.py RESULTS.json [RESULTS.json...] [-o handoff.png]
                     [--no-table]

Reads the JSON files written by scripts/bench.py (sandbox) and
scripts/bench-qemu.py (qemu-x86_64, qemu-arm64) under build/bench/ and

- prints one combined markdown table per benchmark to stdout: heap handoff
  per platform, mode and RAM size; boot scrub per platform, node count and
  worker count; the order-18 lock hold of the allocation benchmark; then
  the DESIGN section 9 targets, each with the measured ratio and a verdict
  computed from the numbers (nothing is typed in by hand);
- draws heap.init_ns against RAM size, log-log, one line per platform and
  heap_init mode (one node), to each -o file (format from the extension).

Needs matplotlib (Debian's python3-matplotlib; run with /usr/bin/python3).
"""

import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter  # noqa: E402

from keel.bench import fmt_ns, fmt_share, lock_pairs  # noqa: E402
from keel.report import HEAP_MODES  # noqa: E402

GIB = 1 << 30
MODE_COLOURS = {"lazy": "#1f77b4", "chunked": "#ff7f0e",
                "pagewise": "#2ca02c"}
PLATFORM_STYLE = {"sandbox": ("-", "o"), "qemu-x86_64": ("--", "s"),
                  "qemu-arm64": (":", "^")}
PLATFORM_ORDER = ("sandbox", "qemu-x86_64", "qemu-arm64")
# "Near-linear" scrub speed-up, made a number: at least this share of the
# worker count (at most the host's cores).
LINEAR_SHARE = 0.9
SCRUB_SHARE = 0.9       # per worker >= 90% of the baseline (DESIGN §9)


def load(paths):
    res = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            d = json.load(f)
        d["_path"] = p
        res.append(d)
    res.sort(key=lambda d: PLATFORM_ORDER.index(d["platform"])
             if d["platform"] in PLATFORM_ORDER else 99)
    return res


def gib_label(v, _pos=None):
    g = v / GIB
    return f"{g / 1024:g} TiB" if g >= 1024 else f"{g:g} GiB"


def tick_s(v, _pos=None):
    """Axis label of @v seconds: 10 us, 1 ms, 10 s."""
    for div, unit in ((1, "s"), (1e-3, "ms"), (1e-6, "us")):
        if v >= div:
            return f"{v / div:g} {unit}"
    return f"{v * 1e9:g} ns"


def ok_rows(d, nodes=1):
    return [r for r in d.get("handoff", [])
            if r["nodes"] == nodes and r.get("init_ns")]


def plot(results, outs):
    fig, ax = plt.subplots(figsize=(8, 5.6))
    sizes = set()
    for d in results:
        ls, marker = PLATFORM_STYLE.get(d["platform"], ("-.", "x"))
        for mode in HEAP_MODES:
            pts = sorted((r["ram_bytes"], r["init_ns"] / 1e9)
                         for r in ok_rows(d) if r["mode"] == mode)
            if not pts:
                continue
            sizes.update(p[0] for p in pts)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], ls=ls,
                    marker=marker, color=MODE_COLOURS[mode], ms=5, lw=1.6)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(FixedLocator(sorted(sizes)))
    ax.xaxis.set_major_formatter(FuncFormatter(gib_label))
    ax.xaxis.set_minor_locator(FixedLocator([]))
    ax.yaxis.set_major_formatter(FuncFormatter(tick_s))
    ax.set_xlabel("RAM described to keel (one node)")
    ax.set_ylabel("heap handoff time (heap.init_ns)")
    ax.grid(True, which="major", alpha=0.35)
    ax.grid(True, which="minor", axis="y", alpha=0.12)
    handles = [Line2D([], [], color=MODE_COLOURS[m], lw=2, label=m)
               for m in HEAP_MODES]
    handles += [Line2D([], [], color="0.3",
                       ls=PLATFORM_STYLE.get(d["platform"], ("-.", "x"))[0],
                       marker=PLATFORM_STYLE.get(d["platform"],
                                                 ("-.", "x"))[1],
                       label=d["platform"]) for d in results]
    ax.legend(handles=handles, loc="upper left", fontsize=8, ncol=2)
    host = results[0]["host"] if results else {}
    quick = any(d.get("quick") for d in results)
    ax.set_title("keel heap handoff vs RAM size, bootscrub=off"
                 + (" (quick run)" if quick else "") + "\n"
                 f"{host.get('cpu_model', '?')}, {host.get('cpus', '?')} "
                 f"CPUs, {host.get('date', '')}; QEMU TCG, sparse "
                 "file-backed RAM", fontsize=9)
    fig.tight_layout()
    for out in outs:
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
        fig.savefig(out, dpi=100)
    plt.close(fig)


def get(d, ram, mode, nodes=1):
    for r in d.get("handoff", []):
        if r["ram"] == ram and r["mode"] == mode and r["nodes"] == nodes:
            return r
    return None


def handoff_table(results, out):
    out.append("### Heap handoff (heap.init_ns, bootscrub=off)\n")
    out.append("| platform | nodes | RAM | lazy | chunks | lazy per chunk "
               "| chunked | pagewise |")
    out.append("|---|---|---|---|---|---|---|---|")
    for d in results:
        keys = []
        for r in d.get("handoff", []):
            if (r["nodes"], r["ram_bytes"], r["ram"]) not in keys:
                keys.append((r["nodes"], r["ram_bytes"], r["ram"]))
        for nodes, _, ram in sorted(keys):
            cells = []
            for mode in HEAP_MODES:
                r = get(d, ram, mode, nodes)
                if r is None:
                    cells.append("-")
                elif r.get("init_ns"):
                    cells.append(fmt_ns(r["init_ns"]))
                else:
                    cells.append("skipped" if r.get("skipped")
                                 else r.get("error", "-"))
            lz = get(d, ram, "lazy", nodes)
            ch = lz.get("chunks") if lz else None
            per = (fmt_ns(lz["init_ns"] / ch) if ch and lz.get("init_ns")
                   else "-")
            out.append(f"| {d['platform']} | {nodes} | {ram} | {cells[0]} | "
                       f"{ch if ch else '-'} | {per} | {cells[1]} | "
                       f"{cells[2]} |")
    out.append("")


def scrub_table(results, out):
    out.append("### Boot scrub (bootscrub=on; baseline: sandbox = one host "
               "thread of non-temporal stores, QEMU = the 1-worker boot)\n")
    out.append("| platform | nodes | workers | primitive | GB/s | per node "
               "GB/s | per worker GB/s | baseline GB/s | per worker / "
               "baseline | speed-up vs 1 worker | done by local workers, per "
               "node |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for d in results:
        sc = d.get("scrub")
        if not sc:
            continue
        ref = sc.get("baseline_gbps")
        one = next((r["gbps"] for r in sc["rows"]
                    if r.get("workers") == 1), None)
        for r in sc["rows"]:
            if "error" in r:
                out.append(f"| {d['platform']} | {r['nodes']} | "
                           f"({r['cpus']} CPUs) | {r['error']} "
                           "| | | | | | | |")
                continue
            pn = " / ".join(f"{p['gbps']:.2f}" for p in r["per_node"])
            out.append(
                f"| {d['platform']} | {r['nodes']} | {r['workers']} | "
                f"{r['primitive']} | {r['gbps']:.2f} | {pn} | "
                f"{r['per_worker_gbps']:.2f} | "
                f"{ref:.2f} | {100 * r['per_worker_gbps'] / ref:.0f}% | "
                f"{r['gbps'] / one:.2f}x | "
                f"{fmt_share(r.get('local_share'))} |"
                if ref and one else
                f"| {d['platform']} | {r['nodes']} | {r['workers']} | "
                f"{r['primitive']} | {r['gbps']:.2f} | {pn} | "
                f"{r['per_worker_gbps']:.2f} | - | - | - | - |")
    out.append("")


def alloc_table(results, out):
    out.append("### Allocation latency (bench=on): order-18 lock hold and "
               "maintenance of clean_poc blocks\n")
    out.append("| platform | config | order-18 pairs | deferred lock_ns_max "
               "(worst) | eager lock_ns_max (least) | worst deferred / "
               "eager | maint ops, clean deferred rows | lost pages |")
    out.append("|---|---|---|---|---|---|---|---|")
    for d in results:
        a = d.get("alloc")
        if not a or "rows" not in a:
            continue
        pairs = list(lock_pairs(a["rows"]))
        clean = [r.get("maint_ops") for r in a["rows"]
                 if r["mode"] != "eager" and not r["dirty"]]
        ops = ("?" if any(o is None for o in clean) else
               str(sum(clean)))
        if pairs:
            worst = max(pairs, key=lambda p: p[2]["lock_ns_max"] /
                        p[3]["lock_ns_max"])
            dmax = max(p[2]["lock_ns_max"] for p in pairs)
            emin = min(p[3]["lock_ns_max"] for p in pairs)
            share = worst[2]["lock_ns_max"] / worst[3]["lock_ns_max"]
            ratio = f"{100 * share:.4f}%"
        else:
            dmax = emin = ratio = "-"
        out.append(f"| {d['platform']} | {a['config']} | {len(pairs)} | "
                   f"{dmax} | {emin} | {ratio} | {ops} | "
                   f"{a['lost_pages']} |")
    out.append("")


def verdict(ok):
    return "n/a" if ok is None else ("met" if ok else "**not met**")


def targets_table(results, out):
    out.append("### DESIGN §9 targets: measured against target\n")
    out.append("| platform | target | measured | verdict |")
    out.append("|---|---|---|---|")
    for d in results:
        p = d["platform"]
        cores = d["host"].get("cpus") or 1
        _handoff_targets(d, p, out)
        _scrub_targets(d, p, cores, out)
        _alloc_targets(d, p, out)
    out.append("")


def _handoff_targets(d, p, out):
    """Rows of the handoff targets (lazy 1 TiB vs 1 GiB, lazy vs the
    others at 64 GiB) for platform @p, one set per node count."""
    for nodes in sorted({r["nodes"] for r in d.get("handoff", [])}):
        tag = f" ({nodes} nodes)" if nodes > 1 else ""
        a, b = get(d, "1G", "lazy", nodes), get(d, "1T", "lazy", nodes)
        if a and b and a.get("init_ns") and b.get("init_ns"):
            r = b["init_ns"] / a["init_ns"]
            dc = b["chunks"] - a["chunks"]
            marg = ((b["init_ns"] - a["init_ns"]) / dc if dc > 0
                    else None)
            out.append(
                f"| {p} | lazy 1 TiB <= 2x lazy 1 GiB{tag} | {r:.1f}x "
                f"({fmt_ns(a['init_ns'])} -> {fmt_ns(b['init_ns'])}; "
                f"chunks {a['chunks']} -> {b['chunks']}, "
                f"{b['chunks'] / a['chunks']:.0f}x; "
                f"{fmt_ns(marg) if marg else '-'} per added chunk) | "
                f"{verdict(r <= 2)} |")
        else:
            out.append(f"| {p} | lazy 1 TiB <= 2x lazy 1 GiB{tag} | "
                       "not measured | n/a |")
        lz = get(d, "64G", "lazy", nodes)
        for mode, want in (("pagewise", 100), ("chunked", 20)):
            o = get(d, "64G", mode, nodes)
            if lz and o and lz.get("init_ns") and o.get("init_ns"):
                r = o["init_ns"] / lz["init_ns"]
                out.append(f"| {p} | lazy >= {want}x faster than {mode} "
                           f"at 64 GiB{tag} | {r:.0f}x | "
                           f"{verdict(r >= want)} |")
            else:
                out.append(f"| {p} | lazy >= {want}x faster than {mode} "
                           f"at 64 GiB{tag} | not measured | n/a |")


def _scrub_targets(d, p, cores, out):
    """Rows of the scrub targets: per-worker rate, speed-up, locality."""
    sc = d.get("scrub")
    if sc and sc.get("baseline_gbps"):
        ref = sc["baseline_gbps"]
        # The sandbox's fresh-arena row (no --prefault) is context:
        # host page faults, not the scrub.
        rows = [r for r in sc["rows"] if "error" not in r and
                r["workers"] <= cores and r.get("prefault", True)]
        if rows:
            worst = min(rows, key=lambda r: r["per_worker_gbps"])
            share = worst["per_worker_gbps"] / ref
            out.append(
                f"| {p} | scrub per worker >= 90% of baseline "
                f"(workers <= {cores} host cores) | worst "
                f"{100 * share:.0f}% ({worst['nodes']} node(s), "
                f"{worst['workers']} workers; baseline {ref:.2f} "
                f"GB/s) | {verdict(share >= SCRUB_SHARE)} |")
        one = next((r["gbps"] for r in sc["rows"]
                    if r.get("workers") == 1), None)
        lin = [r for r in sc["rows"] if "error" not in r and
               r["nodes"] == 1 and r["workers"] == cores]
        if one and lin and cores > 1:
            s = lin[0]["gbps"] / one
            out.append(
                f"| {p} | near-linear speed-up to {cores} host cores "
                f"(>= {LINEAR_SHARE * cores:.1f}x at {cores}) | "
                f"{s:.2f}x | {verdict(s >= LINEAR_SHARE * cores)} |")
        multi = [r for r in sc["rows"] if "error" not in r and
                 r["nodes"] > 1]
        if multi:
            shares = [v for r in multi
                      for v in (r.get("local_share") or {}).values()]
            full = [r for r in multi if r.get("local_workers")]
            low = f"{100 * min(shares):.0f}%" if shares else "?"
            out.append(
                f"| {p} | every node scrubbed by local workers (strictly: "
                "100% of its bytes) | "
                f"{len(full)} of {len(multi)} multi-node boots all "
                f"local; lowest local share of a node {low} | "
                f"{verdict(len(full) == len(multi))} |")


def _alloc_targets(d, p, out):
    """Rows of the allocation targets: lock hold, maintenance ops."""
    a = d.get("alloc")
    if a and a.get("rows"):
        pairs = list(lock_pairs(a["rows"]))
        if pairs:
            worst = max(p_[2]["lock_ns_max"] / p_[3]["lock_ns_max"]
                        for p_ in pairs)
            out.append(f"| {p} | order-18 lock hold <= 1% of eager | "
                       f"worst {100 * worst:.4f}% ({len(pairs)} pairs) "
                       f"| {verdict(worst <= 0.01)} |")
        clean = [r.get("maint_ops") for r in a["rows"]
                 if r["mode"] != "eager" and not r["dirty"]]
        if clean and all(o is not None for o in clean):
            out.append(f"| {p} | clean_poc allocations: 0 maintenance "
                       f"ops | {sum(clean)} ops in {len(clean)} rows | "
                       f"{verdict(sum(clean) == 0)} |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="+")
    ap.add_argument("-o", dest="outs", action="append", default=[],
                    help="plot file (png, svg, pdf); may repeat")
    ap.add_argument("--no-table", action="store_true")
    args = ap.parse_args(argv)
    results = load([p for p in args.results if os.path.exists(p)])
    if not results:
        sys.stderr.write("bench-plot: no results files\n")
        return 1
    if not args.no_table:
        h = results[0]["host"]
        out = ["## keel benchmark: combined results", "",
               f"host: {h['cpu_model']}, {h['cpus']} CPUs; "
               f"{h['qemu'].get('x86_64')}; {h.get('date')}", ""]
        for d in results:
            out.append(f"- {d['platform']}: `{d['command']}`"
                       + (" (quick)" if d.get("quick") else "")
                       + f", load average {d['host']['load_start']:.1f} at "
                       f"start, {d.get('load_end', 0):.1f} at the end")
        out.append("")
        handoff_table(results, out)
        scrub_table(results, out)
        alloc_table(results, out)
        targets_table(results, out)
        print("\n".join(out))
    if args.outs:
        plot(results, args.outs)
        for o in args.outs:
            sys.stderr.write(f"bench-plot: wrote {o} "
                             f"({os.path.getsize(o) >> 10} KiB)\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
