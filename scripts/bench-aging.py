#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The heap after years of churn (issue 37): a subsection of the `runtime`
part of `make bench` (scripts/bench-runtime.py calls it), markdown on
stdout (or --md FILE) and JSON (--json FILE).

Usage: bench-aging.py [--bin build/bench/heap_aging] [--quick]
                      [--epochs N] [--ops N] [--md FILE] [--json FILE]
                      [--timeout S]

Runs `heap_aging run NODES EPOCHS OPS` (tests/bench/heap_aging.c: a Linux
host linking libkeel-heap.a, 2 threads, a hypervisor-like mix of domains
created and destroyed, short-lived anonymous blocks of orders 0..10 and
long-lived ones, at 70-80% occupancy) on one node and on two nodes, one
JSON line per epoch of OPS operations per thread: --quick 10 epochs,
else 30, of 10^7 operations per thread. Then a verdict per placement:
the last epoch against the first for ns/op, p99 and free_2m_share.
Nothing is typed in: every number is this run's.
"""

import json
import os
import statistics
import subprocess
import sys
import time

from keel.bench import host_info, parse, parser, write_outputs
from keel.boot import TOP

BIN = os.path.join(TOP, "build", "bench", "heap_aging")
PLACEMENTS = ((1, "2 threads, one node"), (2, "2 threads, two nodes"))
# A drift: the last epoch this much worse than the first (the host is
# shared: a few tens of per cent move between epochs with no cause here).
DRIFT_NS, DRIFT_P99, DRIFT_SHARE = 1.25, 1.5, 0.05
# An epoch of 10^7 operations per thread takes a few seconds of CPU; a
# busy host may take 5x that. The safety net: 60 s per epoch.
EPOCH_TIMEOUT_S = 60


def run(exe, nodes, epochs, ops):
    """One `heap_aging run`: (meta, [epoch lines], end line, command,
    wall seconds). Each epoch line gets the host's 1-minute load average
    as it arrives (the host is shared: a busy phase shows there)."""
    cmd = [exe, "run", str(nodes), str(epochs), str(ops)]
    t0 = time.monotonic()
    lines = []
    with subprocess.Popen(cmd, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as proc:
        for x in proc.stdout:
            if x.strip():
                lines.append(dict(json.loads(x),
                                  load=round(os.getloadavg()[0], 2)))
            if time.monotonic() - t0 > EPOCH_TIMEOUT_S * epochs:
                proc.kill()
        err = proc.stderr.read()
    wall = time.monotonic() - t0
    if proc.returncode or len(lines) != epochs + 2:
        raise SystemExit(f"bench-aging: {' '.join(cmd)} failed "
                         f"({proc.returncode}): {err.strip()[-400:]}")
    shown = " ".join(["build/bench/heap_aging"] + cmd[1:])
    return lines[0], lines[1:-1], lines[-1], shown, wall


def third(epochs, key, last):
    """The median of @key over the first (or @last) third of @epochs."""
    n = max(len(epochs) // 3, 1)
    return statistics.median(e[key] for e in
                             (epochs[-n:] if last else epochs[:n]))


def verdict(epochs):
    """(text, drifted): the last epoch against the first, as asked; the
    call on the medians of the last third against the first third, so
    that one epoch in a busy phase of the shared host does not decide."""
    first, last = epochs[0], epochs[-1]
    ratio = {k: third(epochs, k, True) / third(epochs, k, False)
             for k in ("ns_per_op", "p99_ns", "failed")}
    share = (third(epochs, "free_2m_share", True)
             - third(epochs, "free_2m_share", False))
    bad = [n for n, worse in (("ns/op", ratio["ns_per_op"] > DRIFT_NS),
                              ("p99", ratio["p99_ns"] > DRIFT_P99),
                              ("free_2m_share", share < -DRIFT_SHARE))
           if worse]
    text = (f"last epoch / first: ns/op "
            f"{last['ns_per_op'] / first['ns_per_op']:.2f}x, p99 "
            f"{last['p99_ns'] / first['p99_ns']:.2f}x, free_2m_share "
            f"{first['free_2m_share']:.3f} -> {last['free_2m_share']:.3f}, "
            f"largest free order {first['largest_free_order']:.1f} -> "
            f"{last['largest_free_order']:.1f}. Medians, last third / first "
            f"third: ns/op {ratio['ns_per_op']:.2f}x, p99 "
            f"{ratio['p99_ns']:.2f}x, failed allocations "
            f"{ratio['failed']:.2f}x, free_2m_share {share:+.3f}: "
            + (f"**drifts** ({', '.join(bad)})" if bad else "no drift")
            + f" (a drift: ns/op > {DRIFT_NS}x, p99 > {DRIFT_P99}x or "
            f"free_2m_share down by more than {DRIFT_SHARE})")
    return text, bool(bad)


def table(epochs, out):
    out += ["| epoch | ops/thread | ns/op (CPU) | p50 | p99 | node locks/op"
            " | failed allocs | cached pages | occupancy | dirty / free | "
            "free_2m_share | largest free order (lowest) | free chunks | "
            "host load |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for e in epochs:
        dirty = e["dirty_pages"] / e["free_pages"] if e["free_pages"] else 0
        out.append(f"| {e['epoch']} | {e['ops_per_thread']:.2e} | "
                   f"{e['ns_per_op']:.0f} | {e['p50_ns']:.0f} | "
                   f"{e['p99_ns']:.0f} | {e['node_locks_per_op']:.3f} | "
                   f"{e['failed']} | {e['cached_pages']:.0f} | "
                   f"{e['occupancy']:.2f} | {dirty:.2f} | "
                   f"{e['free_2m_share']:.3f} | "
                   f"{e['largest_free_order']:.1f} "
                   f"({e['largest_free_order_min']}) | "
                   f"{e['free_chunks']:.0f} | "
                   f"{e['load']:.1f} |")


def markdown(runs, args):
    out = ["## The heap after years of churn (aging)", "",
           f"`scripts/bench-aging.py{' --quick' if args.quick else ''}` "
           "(called by scripts/bench-runtime.py) ran "
           "tests/bench/heap_aging: a host linking `libkeel-heap.a` (the "
           "host's mutex as the node lock), 2 threads, 512 MiB (one node, "
           "or two of 256 MiB), a hypervisor-like mix for "
           f"{args.epochs} epochs of {args.ops:.0e} operations per thread: "
           "domains of 4 KiB to 32 MiB created and destroyed (owned "
           "extents of at most 2 MiB, cut as keel's domain build cuts "
           "them, freed dirty, plus their table pages), short-lived "
           "anonymous blocks of orders 0..10, and long-lived ones (order "
           "0, some order 9; lives of about 2.6e5 and 1.7e7 operations; "
           "all taken at the start, as a boot takes its tables, so that "
           "their number is steady and only their places age), "
           "the threads' holdings steered to 70-80% of the heap. ns/op: "
           "thread CPU time per operation over the epoch; p50/p99: one "
           "operation in 64 timed by the cycle counter; failed: "
           "allocations the heap refused (no free chunk that large: each "
           "first drains the caches of the nodes it tried, where their "
           "free memory could hold the block); the heap's state: 8 times an "
           "epoch, both threads stopped, the walk of every free chunk "
           "(which gives the caches back: cached pages are read before "
           "it), averaged (the lowest largest free order in brackets). "
           "Anonymous blocks are taken "
           "`HEAP_NO_SCRUB` and freed clean; nobody scrubs what the "
           "domains leave dirty (the library has no idle scrub). Host "
           "load: the 1-minute load average as the epoch ended (2 cores, "
           "shared).", ""]
    for r in runs:
        m, end = r["meta"], r["end"]
        out += [f"### {r['placement']}", "",
                f"`{r['command']}` ({r['wall_s']:.0f} s wall). At the "
                f"start: largest free order {m['largest_free_order']}, "
                f"free_2m_share {m['free_2m_share']:.3f}.", ""]
        table(r["epochs"], out)
        out += ["", f"At the end, everything freed: heap_check() and the "
                f"walk found {end['audit_problems']} problems, free pages "
                f"{end['free_pages']} of {end['free_pages_start']}, "
                f"largest free order {end['largest_free_order']} (at the "
                f"start {end['largest_free_order_start']}).", "",
                f"Verdict ({r['placement']}): {r['verdict']}", ""]
    return out


def main(argv=None):
    ap = parser(__doc__, timeout=EPOCH_TIMEOUT_S)
    ap.add_argument("--bin", default=BIN)
    ap.add_argument("--epochs", type=int, default=None)
    ap.add_argument("--ops", type=int, default=10 ** 7)
    args = parse(ap, argv)
    if args.epochs is None:
        args.epochs = 10 if args.quick else 30
    runs = []
    for nodes, name in PLACEMENTS:
        meta, epochs, end, cmd, wall = run(args.bin, nodes, args.epochs,
                                           args.ops)
        text, drifted = verdict(epochs)
        runs.append({"placement": name, "nodes": nodes, "command": cmd,
                     "wall_s": round(wall, 1), "meta": meta,
                     "epochs": epochs, "end": end, "verdict": text,
                     "drifted": drifted})
    results = {"host": host_info(), "quick": args.quick, "runs": runs,
               "load_end": round(os.getloadavg()[0], 2)}
    write_outputs(args, markdown(runs, args), results)
    return 0 if all(not r["end"]["audit_problems"] for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
