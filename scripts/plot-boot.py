#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Draw a keel boot: per-CPU scrub timeline and a comparison of runs.

Usage: plot-boot.py LOG [LOG...] -o boot.svg [-o boot.png] [--title T]

The format follows each output's extension (svg, png, pdf). Needs
matplotlib (Debian's python3-matplotlib; run with /usr/bin/python3).

Top panel, from the first LOG: one row per CPU, each scrub unit a bar
coloured by the node it belongs to; above them a row with the boot phases.
The time axis is split at the start of the scrub when the boot before it
is too short to see at the scrub's scale: the left part shows bootmem,
SMP and the heap handoff in microseconds, the right part the scrub.
Dashed lines mark the heap handoff (end of heap_init), and when they
differ from it the report's heap_ready_ns and all_clean_ns. The legend
gives each node's scrubbed MiB and GB/s (from the report's scrub.per_node).

Latency panel, when the first LOG booted with latency=on and report=full
(the compact report has no histograms): the histogram of each probe phase
(report key latency.hist: timer interrupt entry minus its deadline), one
step line per phase, log-log, labelled with the phase, its cachemaint
mode, p99 and max.

Bottom panel, with several LOGs: the phase durations of every run side by
side (log scale), each run labelled by its CPU count and command line, e.g.
heap_init=lazy vs chunked vs pagewise, or 1, 2 and 4 CPUs.
"""

import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

from keel import keeltrace  # noqa: E402
from keel.bench import fmt_ns  # noqa: E402

NODE_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f")
ARCH_SETUP = "arch setup"
PHASE_COLOURS = {ARCH_SETUP: "#eeeeee", "bootmem": "#c7c7c7", "frametable": "#dbdb8d",
                 "smp": "#9edae5", "smp_boot": "#6baed6",
                 "heap_init": "#98df8a", "scrub": "#ffbb78",
                 "scrub_boot": "#fdd0a2", "bench": "#c5b0d5",
                 "audit": "#f7b6d2"}
RUN_COLOURS = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3",
               "#937860", "#da8bc3", "#8c8c8c")
# The pre-scrub boot gets its own axis when it is under this share of the
# whole timeline (else it would be a few pixels wide).
SPLIT_SHARE = 0.15
FIG_WIDTH = 12


def _unit(span_ns):
    if span_ns < 5e6:
        return 1e3, "us"
    if span_ns < 5e9:
        return 1e6, "ms"
    return 1e9, "s"


def _time_axis(ax, lo, hi):
    div, name = _unit(hi - lo)
    ax.set_xlim(lo, hi)
    ax.xaxis.set_major_formatter(
        FuncFormatter(lambda v, _pos: f"{v / div:g}"))
    # 0 is the kernel's entry (its first timer read), not the machine's
    # reset; keel_main() starts where the "arch setup" bar ends.
    ax.set_xlabel(f"time since kernel entry ({name})")


def _node_colour(node):
    return NODE_COLOURS[int(node) % len(NODE_COLOURS)]


def _rows(boot):
    """Row labels top to bottom and {cpu: y}. Row 0 is the phase row."""
    cpus = boot.cpu_ids()
    labels = ["phases"]
    ypos = {}
    for i, cpu in enumerate(cpus):
        node = boot.cpu_node(cpu)
        labels.append(f"cpu {cpu}" + (f"\nnode {node}" if node is not None
                                      else ""))
        ypos[cpu] = i + 1
    return labels, ypos


def _draw_timeline(ax, boot, ypos, lo, hi, width_in):
    """Draw everything of @boot into @ax (clipped to [lo, hi] by xlim).

    @width_in: about how wide the axis is, in inches: a phase is labelled
    only where its name fits inside its bar.
    """
    span = hi - lo
    # White gaps between units help until they would be all one sees.
    per_cpu = max((sum(1 for u in boot.scrub_units() if u["cpu"] == c)
                   for c in ypos), default=0)
    edge = 0.4 if per_cpu <= 60 else 0.0
    rates = {p.get("cpu"): p["bytes"] / p["ns"]
             for p in (boot.rep.get("scrub") or {}).get("per_cpu") or []
             if p.get("ns") and p.get("bytes")}
    setup = boot.arch_setup_ns()
    sl = boot.slices
    if setup:
        # The arch's part, from entry to keel_main() (the `entry` mark).
        sl = [{"name": ARCH_SETUP, "cpu": 0, "start": 0, "end": setup,
               "depth": 0, "open": False}] + sl
    for s in sl:
        if s["name"] == keeltrace.SCRUB_UNIT:
            y = ypos.get(s["cpu"])
            if y is None:
                continue
            end = s["end"]
            if s["open"]:
                # Its end was dropped: draw the time the CPU's own rate
                # says the unit took, hatched, not a bar to the report.
                rate = rates.get(s["cpu"])
                if rate:
                    end = min(end, s["start"] + s["arg1"] / rate)
            ax.broken_barh([(s["start"], max(end - s["start"],
                                             span * 1e-4))],
                           (y - 0.38, 0.76),
                           facecolors=_node_colour(s["arg0"]),
                           edgecolor="white", linewidth=edge,
                           hatch="//" if s["open"] else
                           ".." if s.get("summary") else None)
            continue
        depth = min(s["depth"], 1)
        height = 0.76 if depth == 0 else 0.34
        y0 = -0.38 if depth == 0 else 0.0
        ax.broken_barh([(s["start"], s["end"] - s["start"])],
                       (y0, height),
                       facecolors=PHASE_COLOURS.get(s["name"], "#d9d9d9"),
                       edgecolor="#555555", linewidth=0.5,
                       hatch="//" if s["open"] else None)
        visible = min(s["end"], hi) - max(s["start"], lo)
        fits = visible / span * width_in > 0.07 * len(s["name"]) + 0.1
        if depth == 0 and fits:
            mid = (max(s["start"], lo) + min(s["end"], hi)) / 2
            ax.text(mid, -0.2, f"{s['name']}\n{fmt_ns(s['end'] - s['start'])}",
                    ha="center", va="center", fontsize=7, clip_on=True)
    for m in boot.marks:
        ax.plot([m["ns"]], [ypos.get(m["cpu"], 0) - 0.45], marker="v",
                color="black", markersize=4, clip_on=True)


def _vlines(boot):
    """[(ns, label, colour)] of the moments worth a line across all rows."""
    out = []
    heap = boot.phase("heap_init")
    if heap:
        out.append((heap["end"], "heap handoff", "#2ca02c"))
    scrub = boot.rep.get("scrub") or {}
    ready = scrub.get("heap_ready_ns") or 0
    clean = scrub.get("all_clean_ns") or 0
    # bootscrub=on: the heap opens when the scrub is done (one line);
    # idle: it opens at once and the scrub finishes in the background.
    if ready and clean and abs(clean - ready) <= 0.01 * boot.end_ns:
        out.append((clean, "heap ready = all clean", "#d62728"))
        return out
    if ready:
        out.append((ready, "heap ready", "#1f77b4"))
    if clean:
        out.append((clean, "all clean", "#d62728"))
    return out


def _split_point(boot):
    """Where the time axis is broken, or None for one axis."""
    units = boot.scrub_units()
    sphase = boot.phase("scrub")
    starts = [u["start"] for u in units]
    if sphase:
        starts.append(sphase["start"])
    if not starts or boot.end_ns <= 0:
        return None
    split = min(starts)
    if split <= 0 or split > SPLIT_SHARE * boot.end_ns:
        return None
    return split


def _legend_handles(boot):
    handles = []
    per_node = boot.node_scrub()
    nodes = sorted({u["arg0"] for u in boot.scrub_units()} |
                   {n for n in per_node if n is not None})
    for n in nodes:
        b, ns, gbps = per_node.get(n, (None, None, None))
        if b is None:
            b = sum(u["arg1"] for u in boot.scrub_units() if u["arg0"] == n)
            text = f"node {n}: {b >> 20} MiB"
        elif not b:
            text = f"node {n}: nothing to scrub"
        else:
            text = f"node {n}: {b >> 20} MiB in {fmt_ns(ns)}, {gbps:.3g} GB/s"
        handles.append(Patch(facecolor=_node_colour(n), label=text))
    return handles


def _draw_vlines(ax, boot, lo, hi, labelled):
    """The phase lines of @boot between @lo and @hi ns, each label once
    (@labelled: the labels already drawn)."""
    prev = None
    for ns, text, colour in sorted(_vlines(boot)):
        if not lo <= ns <= hi:
            continue
        ax.axvline(ns, color=colour, linestyle="--", linewidth=1)
        if text in labelled:
            continue
        labelled.add(text)
        # Two lines close together: the second label goes on the
        # right of its line so that they do not overprint.
        near = prev is not None and ns - prev < 0.04 * (hi - lo)
        prev = ns
        # x in data, y in axes fraction: the label sits inside the
        # bottom of the plot whatever the row count.
        ax.text(ns, 0.02, f" {text} " if near else f"{text} ",
                color=colour, fontsize=7, rotation=90, va="bottom",
                ha="left" if near else "right",
                transform=ax.get_xaxis_transform())


def _overflow_notes(ax, boot, ypos, lo, end):
    """A red note on the row of each CPU whose trace overflowed."""
    for cpu in sorted(boot.overflow):
        if cpu not in ypos:
            continue
        last = max((e["ns"] for e in boot.events if e["cpu"] == cpu),
                   default=0)
        ax.text(max(last, lo) + 0.01 * end, ypos[cpu],
                "trace overflowed: later units missing",
                color="red", fontsize=7, ha="left", va="center",
                bbox={"facecolor": "white", "edgecolor": "none",
                      "alpha": 0.8, "pad": 1})


def plot_timeline(fig, spec, boot):
    """The per-CPU timeline of @boot in gridspec cell @spec."""
    labels, ypos = _rows(boot)
    split = _split_point(boot)
    end = boot.end_ns * 1.01 or 1
    if split is not None:
        sub = spec.subgridspec(1, 2, width_ratios=(1, 3), wspace=0.04)
        axes = [fig.add_subplot(sub[0, 0])]
        axes.append(fig.add_subplot(sub[0, 1], sharey=axes[0]))
        ranges = [(0, split * 1.02), (split * 0.98, end)]
        widths = [FIG_WIDTH * 0.2, FIG_WIDTH * 0.65]
    else:
        axes = [fig.add_subplot(spec)]
        ranges = [(0, end)]
        widths = [FIG_WIDTH * 0.85]
    labelled = set()
    for ax, (lo, hi), width in zip(axes, ranges, widths):
        _draw_timeline(ax, boot, ypos, lo, hi, width)
        _time_axis(ax, lo, hi)
        _draw_vlines(ax, boot, lo, hi, labelled)
        ax.set_ylim(len(labels) - 0.5, -0.5)
        ax.grid(axis="x", linestyle=":", linewidth=0.5)
    axes[0].set_yticks(range(len(labels)), labels, fontsize=8)
    if len(axes) == 2:
        axes[0].set_title("boot before the scrub", fontsize=9)
        axes[1].set_title("scrub", fontsize=9)
        axes[1].tick_params(axis="y", left=False, labelleft=False)
        for side, ax in (("right", axes[0]), ("left", axes[1])):
            ax.spines[side].set_linestyle((0, (2, 2)))
    _overflow_notes(axes[-1], boot, ypos, ranges[-1][0], end)
    handles = _legend_handles(boot)
    if handles:
        axes[-1].legend(handles=handles, loc="lower right",
                        bbox_to_anchor=(1.0, 1.06), ncol=min(len(handles), 3),
                        fontsize=8, frameon=False)
    return axes


def _phase_durations(boot):
    """{phase: ns} of the top-level phases, plus the whole boot."""
    out = {}
    for name in keeltrace.TOP_PHASES:
        s = boot.phase(name)
        if s:
            out[name] = s["end"] - s["start"]
    out["boot total"] = boot.end_ns
    return out


def run_labels(boots):
    """Labels that tell the runs apart (the file name when they tie)."""
    labels = [b.label() for b in boots]
    for i, lab in enumerate(labels):
        if labels.count(lab) > 1:
            labels[i] = f"{lab} [{os.path.basename(boots[i].path)}]"
    return labels


def plot_compare(ax, boots):
    """Grouped bars of phase durations, one bar per run."""
    durs = [_phase_durations(b) for b in boots]
    phases = [p for p in list(keeltrace.TOP_PHASES) + ["boot total"]
              if any(p in d for d in durs)]
    labels = run_labels(boots)
    n = len(boots)
    height = 0.8 / n
    lo = min((v for d in durs for v in d.values() if v > 0), default=1)
    for i, (d, lab) in enumerate(zip(durs, labels)):
        ys = [j + (i - (n - 1) / 2) * height for j in range(len(phases))]
        vals = [d.get(p, 0) for p in phases]
        # Log scale: bars start at a floor below the shortest phase and
        # end at their value.
        base = lo / 4
        ax.barh(ys, [max(v - base, 0) for v in vals], height=height * 0.92,
                left=base,
                color=RUN_COLOURS[i % len(RUN_COLOURS)], label=lab)
        for y, v in zip(ys, vals):
            if v > 0:
                ax.text(v * 1.15, y, fmt_ns(v), va="center", fontsize=6.5)
    ax.set_xscale("log")
    hi = max((v for d in durs for v in d.values()), default=1)
    ax.set_xlim(lo / 4, hi * 8)
    ax.set_yticks(range(len(phases)), phases, fontsize=8)
    ax.invert_yaxis()
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: fmt_ns(v)))
    ax.set_xlabel("phase duration (log scale)")
    ax.grid(axis="x", linestyle=":", linewidth=0.5)
    ax.legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1.0),
              title="run", title_fontsize=8, frameon=False)
    ax.set_title("phase durations by run", fontsize=9)


LATENCY_STYLES = {"deferred": "-", "none": "-", "eager": "--",
                  "clflush": "-."}


def latency_rows(boot):
    """[(phases row, [[lo_ns, count], ...]), ...] of a latency=on boot."""
    lat = boot.rep.get("latency") or {}
    return list(zip(lat.get("phases") or [], lat.get("hist") or []))


def plot_latency(ax, boot):
    """One step line per probe phase: samples per bucket, log-log."""
    for i, (row, hist) in enumerate(latency_rows(boot)):
        if not hist:
            continue
        xs = [lo for lo, _ in hist]
        ys = [c for _, c in hist]
        ax.step(xs, ys, where="post",
                linestyle=LATENCY_STYLES.get(row["cachemaint"], ":"),
                color=RUN_COLOURS[i % len(RUN_COLOURS)],
                label=f"{row['phase']} {row['cachemaint']}: p99 "
                      f"{fmt_ns(row['p99_ns'])}, max {fmt_ns(row['max_ns'])}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: fmt_ns(v)))
    ax.set_xlabel("timer interrupt entry - deadline")
    ax.set_ylabel("samples")
    ax.grid(linestyle=":", linewidth=0.5)
    lat = boot.rep["latency"]
    ax.set_title(f"latency probe: CPU {lat['probe_cpu']}, period "
                 f"{fmt_ns(lat['period_ns'])}, load {lat['load']}",
                 fontsize=9)
    ax.legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1.0),
              frameon=False)


def title_of(boot):
    rep = boot.rep
    scrub = rep.get("scrub") or {}
    nodes = len(rep.get("nodes") or [])
    ram = (rep.get("memmap") or {}).get("ram_bytes", 0) >> 20
    mode = scrub.get("mode", "?")
    text = (f"keel {rep.get('arch', '?')}/{rep.get('boot', '?')}: "
            f"{boot.label()}; {nodes} node{'s' if nodes != 1 else ''}, "
            f"{ram} MiB; ")
    if mode == "off":
        text += "no scrub"
    else:
        text += f"scrub {mode} by {scrub.get('workers', '?')} workers"
    if boot.overflow_unknown:
        text += " (trace overflowed)"
    if getattr(boot, "summarised", False):
        text += " (units summed per CPU: trace=full for each unit)"
    return text


def plot(boots, outputs, title=None):
    """Render @boots (keeltrace.Boot) into every file of @outputs."""
    first = boots[0]
    rows = len(first.cpu_ids()) + 1
    top_h = 1.4 + 0.42 * rows
    heights = [top_h]
    lat = bool(latency_rows(first))
    if lat:
        heights.append(3.2)
    if len(boots) > 1:
        nphases = len(keeltrace.TOP_PHASES) + 1
        heights.append(0.6 + nphases * (0.12 + 0.1 * len(boots)))
    fig = plt.figure(figsize=(FIG_WIDTH, sum(heights) + 0.8),
                     layout="constrained")
    grid = fig.add_gridspec(len(heights), 1, height_ratios=heights)
    plot_timeline(fig, grid[0, 0], first)
    if lat:
        plot_latency(fig.add_subplot(grid[1, 0]), first)
    if len(boots) > 1:
        plot_compare(fig.add_subplot(grid[len(heights) - 1, 0]), boots)
    fig.suptitle(title or title_of(first), fontsize=10)
    for out in outputs:
        fig.savefig(out, dpi=110)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("logs", nargs="+", metavar="LOG")
    ap.add_argument("-o", "--output", action="append", required=True,
                    help="picture to write (.svg, .png, .pdf); repeatable")
    ap.add_argument("--title")
    args = ap.parse_args(argv)
    try:
        boots = [keeltrace.load(p) for p in args.logs]
    except (OSError, keeltrace.TraceError) as e:
        print(f"plot-boot.py: {e}", file=sys.stderr)
        return 1
    for b in boots:
        if b.overflow or b.overflow_unknown:
            print(f"plot-boot.py: warning: {b.path}: trace buffer overflowed;"
                  " later events are missing from the picture",
                  file=sys.stderr)
    plot(boots, args.output, args.title)
    return 0


if __name__ == "__main__":
    sys.exit(main())
